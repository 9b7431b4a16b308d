"""Measurement records: what a probe measured, on what, and how it compares with the estimate.

``ledger/measurements/<claim>--<device>--<date>.yaml`` files are written by ``workings probe``
(``workings.probe.run``) and read here, without torch, so that verify and the HTML ledger can
show each measurement beside the estimate it tests.

A measurement carries its device ``type`` (``cpu`` or ``cuda``). Whether it reads as a GPU
measurement is decided by that type alone, and the type is tied to the rest of the record: a
``cpu`` record has no CUDA or driver version and no CUDA allocator, and its file name says
``--cpu--``. A probe that did not run on a GPU cannot be labelled as one, and a ``cuda`` record whose
own fields say otherwise (``cuda: 'none'``, a ``+cpu`` build of torch, ``--device cpu`` in its
command) is refused.

A measurement counts for its claim only where it measured what the claim's probe asks for
(``refusal``): the claim has a ``probe:`` key or is the per-token formula kv-bytes measures without
one (``probespec.implied_spec``), and the record's probe, step, shape and format are the claim's.
"""

from __future__ import annotations

import re
from dataclasses import field, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

import datetime as dt

from .frozen import frozen
from .errors import LedgerError, Problem
from .loader import MEASUREMENTS_DIR
from .yamlio import Document, load

if TYPE_CHECKING:
    from .report import ClaimResult

FORMAT = 1  # version history: 1 (first format)
PROBES = ("kv-bytes", "fit", "quant")
DEVICE_TYPES = ("cpu", "cuda")
# How a probe's result is compared with its estimate:
#   equal:   the measured value must equal the estimate (within `tolerance`, default exact)
#   at-most: the estimate is an upper bound; the measured value must not exceed it
RELATIONS = ("equal", "at-most")
ALLOCATORS = {"cpu": ("storage", "budget"), "cuda": ("cuda-caching",)}
_NUMBER = re.compile(r"-?\d{1,200}(/[1-9]\d{0,199})?", re.ASCII)  # 0-9 only: Python reads other scripts' digits too
# The comparison is the probe's, not the file's: a record cannot loosen it.
PROBE_RELATION = {"kv-bytes": "equal", "quant": "equal", "fit": "at-most"}
MAX_QUANT_TOLERANCE = Fraction(1, 10)  # a quant claim's own `within:`, at most 10%
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_VERSION = re.compile(r"\d+(?:\.\d+)*")  # CUDA as torch.version.cuda prints it: 12.8, 13.0
_CPU_COMMAND = re.compile(r"--device(?:\s+|=)['\"]?cpu\b")


class MeasurementError(LedgerError):
    """A measurement record that cannot be used; ``key`` names the offending field."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


def _fraction(text: object, key: str) -> Fraction:
    if isinstance(text, bool) or not isinstance(text, (int, str)) or not _NUMBER.fullmatch(str(text)):
        raise MeasurementError(key, f"expected an integer or a fraction like '32/9' (quoted), got {text!r}")
    return Fraction(str(text))


def _optional_text(data: dict[str, Any], key: str, where: str) -> str | None:
    return None if data.get(key) is None else _text(data, key, where)


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise MeasurementError(f"{where}{key}", f"expected text, got {value!r} (quote numbers and booleans)")
    return value


def _positive_int(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MeasurementError(key, f"expected a positive integer, got {value!r}")
    return value


def _format_fraction(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _check_keys(data: object, allowed: set[str], where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise MeasurementError(where.rstrip("."), f"expected a mapping, got {type(data).__name__}")
    for key in data:
        if key not in allowed:
            raise MeasurementError(f"{where}{key}", f"unknown key (expected one of: {', '.join(sorted(allowed))})")
    return data


@frozen(kw_only=True)
class Value:
    """An exact number and its unit, as text: ``196608 B/token``, ``32/9`` (a ratio)."""

    value: Fraction
    unit: str = ""

    @classmethod
    def from_dict(cls, data: object, where: str) -> "Value":
        data = _check_keys(data, {"value", "unit"}, where + ".")
        unit = data.get("unit", "")
        if not isinstance(unit, str):
            raise MeasurementError(f"{where}.unit", f"expected text, got {unit!r}")
        return cls(value=_fraction(data.get("value"), f"{where}.value"), unit=unit)

    def to_dict(self) -> dict[str, Any]:
        return {"value": _format_fraction(self.value), "unit": self.unit}

    def __str__(self) -> str:
        number = f"{self.value.numerator:,}" if self.value.denominator == 1 else (
            f"{_format_fraction(self.value)} (= {float(self.value):.4g})")
        return f"{number} {self.unit}".rstrip()


@frozen(kw_only=True)
class Device:
    """The device a probe ran on; ``type`` alone decides whether this is a GPU measurement."""

    type: str
    name: str
    memory_bytes: int
    allocator: str

    def __post_init__(self) -> None:
        if self.type not in DEVICE_TYPES:
            raise MeasurementError("device.type", f"expected one of {', '.join(DEVICE_TYPES)}, got {self.type!r}")
        if self.allocator not in ALLOCATORS[self.type]:
            raise MeasurementError("device.allocator", f"a {self.type} measurement uses allocator "
                                   f"{' or '.join(ALLOCATORS[self.type])}, not {self.allocator!r}")
        _positive_int(self.memory_bytes, "device.memory_bytes")

    @property
    def is_gpu(self) -> bool:
        return self.type == "cuda"

    @property
    def label(self) -> str:
        if self.is_gpu:
            return f"GPU ({self.name})"
        if self.allocator == "budget":  # a fit searched within a stated budget: no tensor was allocated
            return "CPU against a stated budget, nothing allocated (not a GPU measurement)"
        return "CPU (not a GPU measurement)"

    @property
    def slug(self) -> str:
        """The device part of the file name: ``cpu``, or ``cuda-`` and the GPU's name."""
        if not self.is_gpu:
            return "cpu"
        name = re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")
        return f"cuda-{name}" if name else "cuda"

    @classmethod
    def from_dict(cls, data: object) -> "Device":
        data = _check_keys(data, {"type", "name", "memory_bytes", "allocator"}, "device.")
        return cls(type=_text(data, "type", "device."), name=_text(data, "name", "device."),
                   memory_bytes=_positive_int(data.get("memory_bytes"), "device.memory_bytes"), allocator=_text(data, "allocator", "device."))

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "memory_bytes": self.memory_bytes, "allocator": self.allocator}


@frozen(kw_only=True)
class Software:
    torch: str
    python: str
    cuda: str | None = None
    driver: str | None = None

    @classmethod
    def from_dict(cls, data: object) -> "Software":
        data = _check_keys(data, {"torch", "python", "cuda", "driver"}, "software.")
        return cls(torch=_text(data, "torch", "software."), python=_text(data, "python", "software."),
                   cuda=_optional_text(data, "cuda", "software."),
                   driver=_optional_text(data, "driver", "software."))

    def to_dict(self) -> dict[str, Any]:
        return {"torch": self.torch, "python": self.python, "cuda": self.cuda, "driver": self.driver}


@frozen(kw_only=True)
class Agreement:
    """How a measured value compares with its estimate; derived, never stored."""

    holds: bool
    relative_difference: Fraction  # (measured - estimate) / estimate
    text: str


@frozen(kw_only=True)
class Measurement:
    claim: str
    probe: str
    measures: str  # the claim's step (or "result") that the estimate is
    result: Value
    estimate: Value  # the claim's value the result is compared with, for this device
    relation: str
    tolerance: Fraction
    device: Device
    software: Software
    command: str
    date: str
    samples: tuple[dict[str, Any], ...]
    details: dict[str, Any] = field(default_factory=dict)
    doc: Document | None = field(default=None, compare=False, repr=False)  # the file read, for a key's line

    def line_of(self, key: str) -> int:
        return self.doc.line(*key.split(".")) if self.doc is not None and key else 1

    def __post_init__(self) -> None:
        if self.probe not in PROBES:
            raise MeasurementError("probe", f"expected one of {', '.join(PROBES)}, got {self.probe!r}")
        if self.relation not in RELATIONS:
            raise MeasurementError("relation", f"expected one of {', '.join(RELATIONS)}, got {self.relation!r}")
        if self.probe in PROBE_RELATION and self.relation != PROBE_RELATION[self.probe]:
            raise MeasurementError("relation", f"a {self.probe} measurement is compared as "
                                   f"{PROBE_RELATION[self.probe]!r}, not {self.relation!r}")
        if self.tolerance and (self.probe != "quant" or self.tolerance > MAX_QUANT_TOLERANCE):
            raise MeasurementError("tolerance", f"a {self.probe} measurement must match exactly"
                                   if self.probe != "quant" else "a quant measurement allows at most 10%")
        if not _DATE.fullmatch(self.date):
            raise MeasurementError("date", f"expected YYYY-MM-DD, got {self.date!r}")
        if self.tolerance < 0:
            raise MeasurementError("tolerance", "must not be negative")
        if self.result.unit != self.estimate.unit:
            raise MeasurementError("estimate.unit", f"must be the result's unit {self.result.unit!r}")
        if not self.device.is_gpu and (self.software.cuda or self.software.driver):
            raise MeasurementError("software", "a cpu measurement records no CUDA or driver version: "
                                   "it must not read as a GPU measurement")
        if self.device.is_gpu and not self.software.cuda:
            raise MeasurementError("software.cuda", "a cuda measurement must record the CUDA version")
        if self.device.is_gpu:  # the record's own fields must not say it ran without a GPU
            self._ran_on_a_gpu()

    def _ran_on_a_gpu(self) -> None:
        cuda = self.software.cuda or ""
        if not _VERSION.fullmatch(cuda):
            raise MeasurementError("software.cuda", f"a cuda measurement records the CUDA version it ran with "
                                   f"(12.8); {cuda!r} says it had none")
        if self.software.torch.endswith("+cpu"):
            raise MeasurementError("software.torch", f"torch {self.software.torch} is a build without CUDA: "
                                   "it cannot have measured on a GPU")
        if _CPU_COMMAND.search(self.command):
            raise MeasurementError("command", "the command ran the probe with --device cpu: it is not a GPU "
                                   "measurement")
        where = self.details.get("tensor_device")
        if where is not None and where != "cuda":
            raise MeasurementError("details.tensor_device", f"the cache was built on {where!r}, not on the GPU: "
                                   "it is not a GPU measurement")

    @property
    def filename(self) -> str:
        """The path under ``ledger/measurements/``: ``<claim>--<device>--<date>.yaml``."""
        return f"{self.claim}--{self.device.slug}--{self.date}.yaml"

    def agreement(self) -> Agreement:
        measured, estimate = self.result.value, self.estimate.value
        diff = (measured - estimate) / estimate if estimate else Fraction(0 if measured == estimate else 1)
        percent = f"{float(abs(diff)) * 100:.2f}%"
        if self.relation == "at-most":
            holds = measured <= estimate
            text = (f"within the bound ({percent} below it)" if holds and measured != estimate else
                    "at the bound" if holds else f"exceeds the bound by {percent}")
        else:
            holds = abs(diff) <= self.tolerance
            text = ("exactly as estimated" if measured == estimate else
                    f"{percent} {'above' if diff > 0 else 'below'} the estimate"
                    + (f" (within {float(self.tolerance) * 100:g}%)" if holds else ""))
        return Agreement(holds=holds, relative_difference=diff, text=text)

    @classmethod
    def from_dict(cls, data: object) -> "Measurement":
        keys = {"format", "claim", "probe", "measures", "result", "estimate", "relation", "tolerance",
                "device", "software", "command", "date", "samples", "details"}
        data = _check_keys(data, keys, "")
        if type(data.get("format")) is not int or data.get("format") != FORMAT:  # not "true", which is 1
            raise MeasurementError("format", f"expected {FORMAT}, got {data.get('format')!r}")
        samples = data.get("samples")
        if not isinstance(samples, list) or not samples or not all(isinstance(s, dict) for s in samples):
            raise MeasurementError("samples", "expected a non-empty list of mappings (the raw samples)")
        details = data.get("details", {})
        if not isinstance(details, dict):
            raise MeasurementError("details", "expected a mapping")
        measurement = cls(
            claim=_text(data, "claim", ""), probe=_text(data, "probe", ""), measures=_text(data, "measures", ""),
            result=Value.from_dict(data.get("result"), "result"),
            estimate=Value.from_dict(data.get("estimate"), "estimate"),
            relation=_text(data, "relation", ""), tolerance=_fraction(data.get("tolerance", 0), "tolerance"),
            device=Device.from_dict(data.get("device")), software=Software.from_dict(data.get("software")),
            command=_text(data, "command", ""), date=_text(data, "date", ""),
            samples=tuple(samples), details=details)
        if measurement.probe == "kv-bytes":
            _samples_give_the_result(measurement)
        return measurement

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "claim": self.claim, "probe": self.probe, "measures": self.measures,
            "result": self.result.to_dict(), "estimate": self.estimate.to_dict(), "relation": self.relation,
            "tolerance": _format_fraction(self.tolerance), "device": self.device.to_dict(),
            "software": self.software.to_dict(), "command": self.command, "date": self.date,
            "samples": list(self.samples), "details": self.details,
        }


def _samples_give_the_result(measurement: "Measurement") -> None:
    """A kv-bytes result is the exact least-squares slope of its samples' bytes over their tokens (what
    ``workings probe`` computes): a file whose result its own samples do not give is refused, so a
    hand-typed result cannot pass for a measured one beside samples that say otherwise."""
    from .probe.linfit import fit_line  # exact fractions only: no torch

    tokens: list[int] = []
    sizes: list[int] = []
    for index, sample in enumerate(measurement.samples):
        for key, into in (("tokens", tokens), ("measured_bytes", sizes)):
            value = sample.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise MeasurementError(f"samples[{index}].{key}", f"expected a whole number, got {value!r}")
            into.append(value)
    try:
        fit = fit_line(tokens, sizes)
    except ValueError as exc:
        raise MeasurementError("samples", f"a kv-bytes probe fits at least two token counts: {exc}") from None
    if fit.per_token != measurement.result.value:
        raise MeasurementError("result.value", f"the samples give {_format_fraction(fit.per_token)} bytes per token "
                               f"(their exact fit), not {_format_fraction(measurement.result.value)}")


@frozen(kw_only=True)
class Beside:
    """A measurement as verify and the ledger page show it, beside the claim's estimate."""

    file: str
    probe: str
    measures: str
    device_type: str
    device: str  # "GPU (NVIDIA H100 80GB HBM3)" or "CPU (not a GPU measurement)"
    is_gpu: bool
    result: str
    estimate: str
    relation: str
    holds: bool
    agreement: str
    stale: str | None  # set when the claim now computes a different estimate than the probe compared with

    @property
    def contradicts(self) -> bool:
        """A current measurement (not stale) that disagrees with the claim's estimate: verify exits 1."""
        return not self.holds and self.stale is None
    date: str
    command: str
    software: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "file", "probe", "measures", "device_type", "device", "is_gpu", "result", "estimate", "relation",
            "holds", "agreement", "stale", "date", "command", "software")}


def beside(measurement: Measurement, claim_result: ClaimResult | None = None) -> Beside:
    """The view of ``measurement`` for a report; ``claim_result`` (a report ClaimResult) checks staleness.

    A fit's estimate is the bound for the device it ran on, which the claim (written for another
    device) does not compute, so only equal-relation probes are checked for staleness.
    """
    agreement = measurement.agreement()
    stale = None
    if claim_result is not None and measurement.relation == "equal":
        step = next((s for s in getattr(claim_result, "steps", ()) if s.name == measurement.measures), None)
        if step is None or step.result is None:
            stale = f"the claim no longer computes {measurement.measures!r}"
        else:
            from . import units  # pint only; still no torch

            try:
                now = units.convert(units.quantity(step.result.value, step.result.unit), measurement.estimate.unit)
            except LedgerError:
                now = None
            if now != measurement.estimate.value:
                stale = (f"the claim now computes {step.result.display}; this measurement was compared with "
                         f"{measurement.estimate}: run the probe again")
    return Beside(file=f"{MEASUREMENTS_DIR}/{measurement.filename}", probe=measurement.probe,
                  measures=measurement.measures, device_type=measurement.device.type,
                  device=measurement.device.label, is_gpu=measurement.device.is_gpu,
                  result=str(measurement.result), estimate=str(measurement.estimate),
                  relation=measurement.relation, holds=agreement.holds and stale is None,
                  agreement=agreement.text, stale=stale, date=measurement.date, command=measurement.command,
                  software=measurement.software.to_dict())


def dump(measurement: Measurement) -> bytes:
    """The file's bytes: sorted keys, block style, UTF-8, so the same result gives the same bytes."""
    text = yaml.safe_dump(measurement.to_dict(), sort_keys=True, default_flow_style=False,
                          allow_unicode=True, width=4096)  # long commands stay on one line
    return text.encode("utf-8")


def write(measurement: Measurement, root: Path, *, replace: bool = False) -> Path:
    """Write atomically under ``root/ledger/measurements``; never replace different bytes unless asked.

    Returns the path. Raises MeasurementError when a different file is already there.
    """
    from . import atomic  # only probe writes: verify and check-draft read measurements without it

    folder = (Path(root) / MEASUREMENTS_DIR).resolve()
    path = Path(root) / MEASUREMENTS_DIR / measurement.filename
    if not path.resolve().is_relative_to(folder):
        raise MeasurementError("claim", f"{measurement.claim!r} would be written outside {MEASUREMENTS_DIR}")
    atomic.check_inside(root, path)  # never through a ledger/ or measurements/ that links elsewhere
    raw = dump(measurement)
    if path.exists() and not replace:
        if _same_but_command(path.read_bytes(), measurement):
            return path  # the same measurement, taken by another spelling of the command: keep it
        raise MeasurementError("", f"{path} exists with a different measurement; "
                               "pass --replace to overwrite it, or remove it first")
    atomic.write_bytes(path, raw)
    return path


def _same_but_command(raw: bytes, measurement: Measurement) -> bool:
    try:
        data = load(raw, "existing").data
        if not isinstance(data, dict):
            return False
        data["command"] = measurement.command
        return Measurement.from_dict(data) == measurement
    except LedgerError:
        return False


def load_measurement(doc: Document) -> tuple[Measurement | None, list[Problem]]:
    """Validate one parsed measurement file; ``doc.file`` is its path relative to the ledger root."""
    try:
        measurement = Measurement.from_dict(doc.data)
        expected = f"{MEASUREMENTS_DIR}/{measurement.filename}"
        if doc.file != expected and not doc.file.endswith("/" + expected):
            raise MeasurementError("", f"file name must be {expected!r}: the claim, device and date it holds")
        _not_after_today(measurement.date)
    except MeasurementError as exc:
        path = tuple(exc.key.split(".")) if exc.key else ()
        return None, [Problem(file=doc.file, line=doc.line(*path), key=exc.key, message=str(exc))]
    return replace(measurement, doc=doc), []


def _not_after_today(date: str) -> None:
    """A measurement is of a day that has come (UTC, a day's slack for the time zones)."""
    try:
        day = dt.date.fromisoformat(date)
    except ValueError:
        raise MeasurementError("date", f"{date!r} is no day of the calendar") from None
    today = dt.datetime.now(dt.timezone.utc).date()
    if day > today + dt.timedelta(days=1):
        raise MeasurementError("date", f"{date!r} is after today ({today.isoformat()}, UTC): nothing was "
                               "measured then yet")


def refusal(measurement: Measurement, claim: Any, values: dict[str, Any]) -> tuple[str, str] | None:
    """Why ``measurement`` does not measure ``claim`` (its key and the reason), or None when it does.

    ``values``: the claim's inputs and steps by name, as evaluated. What the record says it measured
    must be what the claim's probe asks for: the probe's kind, the step it compares, and the cache
    built (the shape's layers, KV heads, head size, query heads and dtype; a quant probe's format).
    A shape number the claim's probe takes from another claim (``claim:<id>#name``) is not compared
    here: that claim's values are not this claim's to read."""
    from .probespec import ProbeSpecError, ProbeSpec, implied_spec

    try:
        spec = ProbeSpec.from_dict(claim.probe) if claim.probe else implied_spec(claim, values)
    except (ProbeSpecError, LedgerError):
        spec = None
    if spec is None:
        return "claim", (f"{claim.id!r} has no probe: key (nor is it the per-token formula over layers, kv_heads, "
                         "head_dim and value_bytes that kv-bytes measures without one): nothing says what a "
                         "measurement of it builds, so none counts for it")
    if measurement.probe != spec.kind:
        return "probe", f"the claim's probe is {spec.kind}, not {measurement.probe}: it measured something else"
    step = spec.measures or (claim.compute[-1].name if claim.compute else None)
    if measurement.measures != step:
        return "measures", f"the claim's probe measures {step!r}, not {measurement.measures!r}"
    shape = measurement.details.get("shape")
    if not isinstance(shape, dict):
        return "details.shape", ("the record does not say what cache it built (details.shape, as workings probe "
                                 "writes it), so nothing ties it to the claim's probe")
    wanted: dict[str, Any] = {"dtype": spec.dtype}
    for key in ("layers", "kv_heads", "head_dim", "heads"):
        ref = getattr(spec, key)
        if ref is None:
            wanted[key] = None
        elif ref.literal is not None:
            wanted[key] = ref.literal
        elif ref.claim is None or ref.claim == claim.id:
            wanted[key] = _whole(values.get(ref.name))
    for key, want in wanted.items():
        if shape.get(key) != want:
            return f"details.shape.{key}", (f"the measured cache has {key} {shape.get(key)!r}, but the claim's "
                                            f"probe builds {want!r}: it measured another model's cache")
    if spec.kind == "quant" and measurement.details.get("format") != spec.format:
        return "details.format", (f"the measured format is {measurement.details.get('format')!r}, but the claim's "
                                  f"probe is {spec.format!r}")
    return None


def _whole(value: Any) -> int | None:
    """A shape number as the probe builds it: a positive whole number, else None (nothing it built)."""
    from . import units

    try:
        number = units.convert(value, "")
    except (LedgerError, TypeError, AttributeError):
        return None
    return int(number) if number.denominator == 1 and number >= 1 else None
