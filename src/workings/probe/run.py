"""``workings probe``: from a claim's ``probe:`` key to a measurement file.

The claim is evaluated as verify evaluates it; the probe's shapes are read from the claim's own
inputs and steps (or another claim's, or a literal in ``probe:``), so the probe builds what the
claim computes with. The result is compared with the claim's value (for a fit: the claim's bound
recomputed with the memory of the device the probe ran on) and written to
``ledger/measurements/<claim>--<device>--<date>.yaml``.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import torch

from .. import expr, units
from ..engine import evaluate_ledger
from ..errors import LedgerError
from ..report import InputResult, StepResult
from ..loader import load_ledger
from ..measurements import Measurement, Value, write
from ..models import Claim
from . import device as devinfo
from .fit import probe_fit
from .kv import probe_kv_bytes
from .quant import probe_quant
from .shapes import KVShape
from ..probespec import ProbeError, ProbeSpec, ProbeSpecError, Ref, implied_spec


@dataclass(frozen=True, kw_only=True)
class Outcome:
    measurement: Measurement
    path: Path


class _Claims:
    """The evaluated ledger: each claim's inputs and steps as quantities, by name."""

    def __init__(self, root: Path):
        self.ledger = load_ledger(root)
        self.report = evaluate_ledger(self.ledger)

    def claim(self, claim_id: str) -> Claim:
        claim: Claim | None = self.ledger.claims.get(claim_id)
        if claim is None:
            bad = next((b for b in self.ledger.bad_claims if b.id == claim_id), None)
            raise ProbeError(f"claim {claim_id!r}: " + (f"its record is invalid ({bad.problems[0]})" if bad and bad.problems
                                                          else "no such claim"))
        return claim

    def values(self, claim_id: str) -> dict[str, Any]:
        result = self.report.claim(claim_id)
        # an unchecked claim with a value (resting on assumptions only) can be measured: a measurement
        # is what would back it
        if result is None or result.status == "error" or result.result is None:
            why = result.reason if result is not None else "not evaluated"
            raise ProbeError(f"claim {claim_id!r} has no recomputed value to measure against ({why})")
        out: dict[str, Any] = {}
        items: list[InputResult | StepResult] = [*result.inputs, *result.steps]
        for item in items:
            if item.result is not None:
                out[item.name] = units.quantity(item.result.value, item.result.unit)
        return out


def _whole(claims: _Claims, claim_id: str, ref: Ref, key: str, unit: str = "") -> int:
    if ref.literal is not None:
        return ref.literal
    owner = ref.claim or claim_id
    values = claims.values(owner)
    if ref.name not in values:
        raise ProbeError(f"claim {claim_id!r}: probe.{key}: {ref} names no input or step of claim {owner!r}")
    number = units.convert(values[ref.name], unit)
    if number.denominator != 1 or number < 1:
        raise ProbeError(f"claim {claim_id!r}: probe.{key}: {ref} is {number}, not a positive whole number")
    return int(number)


def _shape(claims: _Claims, claim_id: str, spec: ProbeSpec) -> KVShape:
    sizes = {k: _whole(claims, claim_id, getattr(spec, k), k) for k in ("layers", "kv_heads", "head_dim")}
    heads = _whole(claims, claim_id, spec.heads, "heads") if spec.heads is not None else None
    try:
        return KVShape(dtype=spec.dtype, heads=heads, **sizes)
    except ValueError as exc:
        raise ProbeError(f"claim {claim_id!r}: probe: {exc}") from None


def _measured_step(claim: Claim, spec: ProbeSpec) -> str:
    name = spec.measures or claim.compute[-1].name
    if name not in {s.name for s in claim.compute}:
        raise ProbeError(f"claim {claim.id!r}: probe.measures: no step {name!r}")
    return name


def _bound_for_memory(claim: Claim, values: dict[str, Any], memory_input: str, memory_bytes: int, step: str) -> Fraction:
    """The claim's own steps, recomputed with its memory input set to ``memory_bytes``."""
    if memory_input not in {i.name for i in claim.inputs}:
        raise ProbeError(f"claim {claim.id!r}: probe.memory: no input {memory_input!r}")
    env = {i.name: values[i.name] for i in claim.inputs}
    env[memory_input] = units.quantity(memory_bytes, "B")
    for s in claim.compute:
        env[s.name] = expr.evaluate(s.tree, env)
        if s.name == step:
            break
    return units.convert(env[step], "token")


def _spec(claim: Claim, claims: _Claims) -> ProbeSpec:
    """The claim's ``probe:``, or, without one, kv-bytes for a standard-attention per-token claim."""
    if claim.probe:
        try:
            return ProbeSpec.from_dict(claim.probe)
        except ProbeSpecError as exc:
            key = f"probe.{exc.key}" if exc.key else "probe"
            line = claim.line_of("probe", exc.key) if exc.key else claim.line_of("probe")
            raise ProbeError(f"{claim.file}:{line}: {key}: {exc}") from None
    spec = implied_spec(claim, claims.values(claim.id))  # the standard-attention per-token formula
    if spec is not None:
        return spec
    raise ProbeError(f"claim {claim.id!r} has no probe: key, and is not a per-token claim over layers, kv_heads, "
                     f"head_dim and value_bytes that kv-bytes could measure ({claim.file}; see docs/format.md)")


def _probeable(claim: Claim, claims: _Claims) -> bool:
    if claim.probe:
        return True
    try:
        _spec(claim, claims)
    except LedgerError:
        return False
    return True


def probe_claim(root: Path, claim_id: str, *, device: str = "cpu", budget: int | None = None,
                command: str | None = None, today: str | None = None, replace: bool = False,
                claims: _Claims | None = None) -> Outcome:
    """Run the probe ``claim_id`` asks for on ``device`` and write its measurement file."""
    claims = claims or _Claims(root)
    claim = claims.claim(claim_id)
    spec = _spec(claim, claims)
    dev = devinfo.resolve(device)
    if budget is not None and dev.type == "cuda":
        raise ProbeError("--budget applies to cpu runs; on cuda the limit is the GPU's own memory")
    values = claims.values(claim_id)
    shape = _shape(claims, claim_id, spec)
    step = _measured_step(claim, spec)
    torch.manual_seed(0)  # the values in the cache do not change a byte count; fix them anyway
    allocator, relation, tolerance = None, "equal", Fraction(0)
    samples: list[dict[str, object]]
    details: dict[str, object]
    if spec.kind == "kv-bytes":
        kv_result = probe_kv_bytes(shape, dev, spec.tokens or None)
        measured, unit = kv_result.per_token, "B/token"
        estimate = units.convert(values[step], unit)
        samples = [s.to_dict() for s in kv_result.samples]
        details = {"shape": shape.to_dict(), "fixed_bytes": str(kv_result.fit.fixed),
                   "exact_fit": kv_result.fit.exact, "max_residual_bytes": str(kv_result.fit.max_abs_residual),
                   "requested_per_token": str(kv_result.requested_fit.per_token),
                   "allocator_rounding_bytes": [s.rounding for s in kv_result.samples],
                   "decode_step": f"scaled_dot_product_attention, {kv_result.decode_heads} query heads, 1 token"}
    elif spec.kind == "fit":
        if spec.weights is None or spec.memory is None:  # the spec's loader requires both for a fit probe
            raise ProbeError(f"claim {claim_id!r}: a fit probe names its weights and memory")
        weights = _whole(claims, claim_id, spec.weights, "weights", "B")
        if dev.type == "cpu":
            budget = budget or int(units.convert(values[spec.memory], "B"))
            allocator = "budget"
        fit_result = probe_fit(shape, dev, weights_bytes=weights, budget=budget)
        measured, unit, relation = Fraction(fit_result.max_tokens), "token", "at-most"
        estimate = Fraction(math.floor(_bound_for_memory(claim, values, spec.memory, fit_result.memory_bytes, step)))
        samples = [t.to_dict() for t in fit_result.trials]
        details = {"shape": shape.to_dict(), "weights_bytes": weights, "memory_bytes": fit_result.memory_bytes,
                   "memory_is": "the GPU's total memory" if dev.type == "cuda" else "a stated budget (--budget, "
                   "default the claim's memory input); no GPU was used",
                   "tensor_device": fit_result.tensor_device, "per_token_bytes": shape.formula_bytes_per_token()}
    else:
        element = "e2m1" if spec.format == "fp4" else "int4"
        quant_result = probe_quant(shape, dev, tokens=spec.tokens[0], group=spec.group,
                                   scale_dtype=spec.scale_dtype, element=element)
        measured = quant_result.fp8_ratio if spec.format == "fp8" else quant_result.int4_ratio
        unit, tolerance = "", claim.within or Fraction(0)
        estimate = units.convert(values[step], unit)
        quant_bytes = quant_result.fp8_bytes if spec.format == "fp8" else quant_result.int4_bytes
        samples = [{"tokens": quant_result.tokens, "format": spec.format, "baseline_dtype": shape.dtype,
                    "baseline_bytes": quant_result.baseline_bytes, "quantized_bytes": quant_bytes,
                    **({"packed_bytes": quant_result.int4_data_bytes, "scale_bytes": quant_result.int4_scale_bytes}
                       if spec.format == "int4" else {}),
                    "max_relative_error": f"{quant_result.fp8_error if spec.format == 'fp8' else quant_result.int4_error:.4f}"}]
        details = {"shape": shape.to_dict(), "format": spec.format,
                   "layout": "float8_e4m3fn, 1 byte per value" if spec.format == "fp8" else
                   f"{'FP4 E2M1' if element == 'e2m1' else 'int4 in [-8, 7]'} codes, 2 per uint8, "
                   f"one {spec.scale_dtype} scale per {spec.group} values"}
    dev_record, software = devinfo.describe(dev, allocator=allocator)
    measurement = Measurement(
        claim=claim_id, probe=spec.kind, measures=step, result=Value(value=Fraction(measured), unit=unit),
        estimate=Value(value=estimate, unit=unit), relation=relation, tolerance=tolerance,
        device=dev_record, software=software, date=today or dt.date.today().isoformat(),
        command=command or default_command(claim_id, root, dev.type, budget if dev.type == "cpu" and spec.kind == "fit" else None),
        samples=tuple(samples), details=details)
    return Outcome(measurement=measurement, path=write(measurement, root, replace=replace))


def default_command(claim_id: str, root: Path, device: str, budget: int | None) -> str:
    parts = ["workings", "probe", claim_id]
    if Path(root) != Path("."):
        parts += ["--root", str(root)]
    parts += ["--device", device]
    if budget is not None:
        parts += ["--budget", str(budget)]
    return " ".join(parts)


def probe_claims(root: Path, claim_ids: list[str], **options: Any) -> list[Outcome | ProbeError]:
    """Probe each of ``claim_ids``, or, when none are named, every claim with a ``probe:`` key.

    One claim that cannot be probed does not stop the others: its place in the list holds the error.
    """
    devinfo.resolve(options.get("device", "cpu"))  # once, before any claim: no GPU is no GPU for all
    claims = _Claims(root)
    ids = claim_ids or [c for c in sorted(claims.ledger.claims) if _probeable(claims.ledger.claims[c], claims)]
    if not ids:
        raise ProbeError("no claim has a probe: key or is a per-token claim kv-bytes can measure; see docs/format.md")
    out: list[Outcome | ProbeError] = []
    for claim_id in ids:
        try:
            out.append(probe_claim(root, claim_id, claims=claims, **options))
        except LedgerError as exc:
            out.append(exc if isinstance(exc, ProbeError) else ProbeError(f"{claim_id}: {exc}"))
    return out


def budget_bytes(text: str) -> int:
    """``--budget``: a whole number of bytes, or a size with a unit (``80 GiB``, ``1.5GB``)."""
    import re

    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    if not match:
        raise ProbeError(f"--budget: expected a size such as '80 GiB' or a number of bytes, got {text!r}")
    size = units.convert(units.quantity(Fraction(match.group(1)), match.group(2) or "B"), "B")
    if size.denominator != 1 or size < 1:
        raise ProbeError(f"--budget: {text!r} is not a whole, positive number of bytes")
    return int(size)
