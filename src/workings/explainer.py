"""The explainer's data: which claims give a model's cache per token, a machine's memory, a format's ratio.

``ledger/explainer.yaml`` names claims (see docs/format.md, "The explainer"); ``build`` reads it and
resolves every name against a Report, so each number the page shows is a claim's recomputed value (or
one named step of its working), converted exactly to bytes, tokens or bytes per token. Nothing here
invents a number: a figure the ledger lacks stays ``missing`` and is shown so, and a claim nothing
recomputes is ``unchecked`` (its printed figure is used only to bound the slider, labelled as such).

``cache_bytes``, ``total_bytes`` and ``tokens_that_fit`` are the arithmetic the page repeats in its
script with BigInt: exact fractions, the same formula as the ledger's own capacity claim
(``tokens = (memory - weights) / per_token``), extended by the number of chats, a format's ratio and
the parts of a cache that do not grow. The render package lays it out; this module has no HTML.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

from .frozen import frozen
from . import units
from .errors import LedgerError, Problem
from .figures import read_figure
from .loader import MAX_RECORD_BYTES, read_plain_file
from .models import CLAIM_ID, GRADES
from .report import ClaimResult, Report
from .validate import Checker, KeyPath
from .yamlio import Document, YamlError, load

FILE = "ledger/explainer.yaml"
ATTENTION = ("standard", "mla", "compressed", "hybrid")
CACHE_FORMATS = ("16-bit", "as-built")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_REF = re.compile(r"^claim:(?P<claim>" + CLAIM_ID.pattern + r")(?:#(?P<step>[A-Za-z][A-Za-z0-9_]{0,63}))?$")
# The unit each kind of figure is converted to (exactly), and how a wrong one is named.
BASE = {"per_token": ("B/token", "bytes per token"), "window": ("token", "tokens"), "bytes": ("B", "bytes"),
        "ratio": ("", "a pure number")}
MAX_CHATS = 4096
_Entry = TypeVar("_Entry", "Model", "Machine", "Format")


@frozen(kw_only=True)
class Figure:
    """One number the page shows, and the claim (or a step of it) it comes from.

    ``value`` is exact, in ``unit`` (B/token, token, B, or a pure number); None when the ledger has no
    value for it. ``status`` is the claim's status, or ``missing`` when no claim is named."""

    ref: str | None
    claim: str | None = None
    step: str | None = None
    value: Fraction | None = None
    unit: str = ""
    display: str | None = None  # the ledger's own display of it ("196,608 B/token")
    status: str = "missing"
    grade: str | None = None
    label: str | None = None
    printed_only: bool = False  # an unchecked claim: the value is the figure as printed, not recomputed


@frozen(kw_only=True)
class Fixed:
    """A part of a model's cache that does not grow with the chat (a window cache, a recurrent state)."""

    name: str
    bytes: Figure
    context: tuple[Figure, ...] = ()


@frozen(kw_only=True)
class Model:
    id: str
    name: str
    attention: str
    cache_format: str
    per_token: Figure
    window: Figure
    weights: Figure
    fixed: tuple[Fixed, ...] = ()
    context: tuple[Figure, ...] = ()
    leaves_out: str | None = None


@frozen(kw_only=True)
class Machine:
    id: str
    name: str
    memory: Figure


@frozen(kw_only=True)
class Format:
    id: str
    name: str
    smaller_by: Figure | None  # None: the base format, the models' figures as the ledger has them
    basis: Figure | None = None


@frozen(kw_only=True)
class Explainer:
    models: tuple[Model, ...]
    machines: tuple[Machine, ...]
    formats: tuple[Format, ...]
    defaults: dict[str, Any]
    problems: tuple[Problem, ...] = ()


# ---------------------------------------------------------------------------------------------------
# The arithmetic (the page's script does the same with BigInt fractions).


def _known(figure: Figure) -> Fraction:
    """The figure's exact value; the arithmetic below needs one (the page shows a missing figure instead)."""
    if figure.value is None:
        raise ValueError(f"{figure.ref or 'a figure'} has no value in the ledger ({figure.status})")
    return figure.value


def per_token_bytes(model: Model, fmt: Format) -> Fraction:
    """Bytes per token of one chat's growing cache in ``fmt``: the model's figure divided by the
    format's ratio, or as it is when the model's cache is built in its own formats."""
    if model.cache_format == "as-built" or fmt.smaller_by is None:
        return _known(model.per_token)
    return _known(model.per_token) / _known(fmt.smaller_by)


def fixed_bytes(model: Model) -> Fraction:
    """The known parts that do not grow, per chat (a part the ledger has no size for counts 0, and says so)."""
    return sum((f.bytes.value for f in model.fixed if f.bytes.value is not None), Fraction(0))


def cache_bytes(model: Model, fmt: Format, length: int, chats: int) -> Fraction:
    return chats * (per_token_bytes(model, fmt) * length + fixed_bytes(model))


def total_bytes(model: Model, fmt: Format, length: int, chats: int) -> Fraction:
    weights = model.weights.value if model.weights.value is not None else Fraction(0)
    return weights + cache_bytes(model, fmt, length, chats)


def tokens_that_fit(model: Model, machine: Machine, fmt: Format, chats: int) -> int | None:
    """The longest chat (tokens, each of ``chats`` chats that long) whose cache fits beside the weights:
    floor((memory - weights - chats * fixed) / (chats * per token)). None when even no chat fits."""
    weights = model.weights.value if model.weights.value is not None else Fraction(0)
    free = _known(machine.memory) - weights - chats * fixed_bytes(model)
    if free < 0:
        return None
    return math.floor(free / (chats * per_token_bytes(model, fmt)))


# ---------------------------------------------------------------------------------------------------
# Reading ledger/explainer.yaml


def build(report: Report, root: str | Path) -> Explainer | None:
    """The explainer of the ledger at ``root``, or None when it has no ``ledger/explainer.yaml``.

    Every problem (with file, line and key) is collected; an entry with a problem is left out and the
    rest is built. A file that cannot be read at all gives an Explainer with no entries and its problem."""
    path = Path(root) / FILE
    if not path.exists() and not path.is_symlink():
        return None
    try:
        doc = load(read_plain_file(path, MAX_RECORD_BYTES), FILE)
    except YamlError as exc:
        return Explainer(models=(), machines=(), formats=(), defaults={},
                         problems=(Problem(file=FILE, line=exc.line, key="", message=str(exc)),))
    except LedgerError as exc:
        return Explainer(models=(), machines=(), formats=(), defaults={},
                         problems=(Problem(file=FILE, line=0, key="", message=str(exc)),))
    return _Reader(doc, report).read()


class _Reader:
    def __init__(self, doc: Document, report: Report):
        self.c = Checker(doc)
        self.claims = {c.id: c for c in report.claims}

    def read(self) -> Explainer:
        c = self.c
        data = c.mapping((), c.doc.data, allowed={"models", "machines", "formats", "defaults"},
                         required={"models", "machines", "formats"})
        models = self.entries("models", data.get("models"), self.model)
        machines = self.entries("machines", data.get("machines"), self.machine)
        formats = self.entries("formats", data.get("formats"), self.format)
        if formats and sum(f.smaller_by is None for f in formats) != 1:
            c.problem(("formats",), "exactly one format must be the base (smaller_by: null), the format the "
                      "models' own figures are in")
            formats = []
        defaults = self.defaults(data.get("defaults"), models, machines, formats)
        return Explainer(models=tuple(models), machines=tuple(machines), formats=tuple(formats),
                         defaults=defaults, problems=tuple(c.problems))

    def entries(self, key: str, value: object, read: Callable[[KeyPath, object], _Entry | None]) -> list[_Entry]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.c.problem((key,), "expected a list of entries")
            return []
        out: list[_Entry] = []
        seen: set[str] = set()
        for index, item in enumerate(value):
            before = len(self.c.problems)
            entry = read((key, index), item)
            if entry is not None and entry.id in seen:
                self.c.problem((key, index, "id"), f"id {entry.id!r} appears twice")
                continue
            if entry is not None and len(self.c.problems) == before:
                seen.add(entry.id)
                out.append(entry)
        return out

    def ident(self, path: KeyPath, value: object) -> str | None:
        text = self.c.text(path, value)
        if text is not None and not _ID.match(text):
            self.c.problem(path, f"ids are lower-case letters, digits, '.', '_' and '-' (at most 64); got {text!r}")
            return None
        return text

    def model(self, path: KeyPath, value: object) -> Model | None:
        c = self.c
        data = c.mapping(path, value, allowed={"id", "name", "attention", "cache_format", "per_token", "window",
                                               "weights", "fixed", "context", "leaves_out"},
                         required={"id", "name", "attention", "cache_format", "per_token", "window", "weights"})
        if not data:
            return None
        fixed: list[Fixed] = []
        items = data.get("fixed") or []
        if not isinstance(items, list):
            c.problem(path + ("fixed",), "expected a list of parts that do not grow")
            items = []
        for index, item in enumerate(items):
            where = path + ("fixed", index)
            part = c.mapping(where, item, allowed={"name", "bytes", "context"}, required={"name", "bytes"})
            if part:
                fixed.append(Fixed(name=c.text(where + ("name",), part.get("name")) or "",
                                   bytes=self.figure(where + ("bytes",), part.get("bytes"), "bytes", optional=True),
                                   context=self.figures(where + ("context",), part.get("context"))))
        per_token = self.figure(path + ("per_token",), data.get("per_token"), "per_token")
        if per_token.value is not None and per_token.value <= 0:
            c.problem(path + ("per_token",), f"{per_token.ref} is not a positive number of bytes per token")
        window = self.figure(path + ("window",), data.get("window"), "window", optional=True)
        if window.value is not None and window.value < 1:
            c.problem(path + ("window",), f"{window.ref} is not a positive number of tokens")
        # A missing or bad id, name or choice is a problem, and `entries` drops an entry that added one:
        # the "" below is never kept.
        return Model(id=self.ident(path + ("id",), data.get("id")) or "",
                     name=c.text(path + ("name",), data.get("name")) or "",
                     attention=c.choice(path + ("attention",), data.get("attention"), ATTENTION) or "",
                     cache_format=c.choice(path + ("cache_format",), data.get("cache_format"), CACHE_FORMATS) or "",
                     per_token=per_token, window=window,
                     weights=self.figure(path + ("weights",), data.get("weights"), "bytes", optional=True),
                     fixed=tuple(fixed), context=self.figures(path + ("context",), data.get("context")),
                     leaves_out=c.text(path + ("leaves_out",), data.get("leaves_out"), required=False))

    def machine(self, path: KeyPath, value: object) -> Machine | None:
        data = self.c.mapping(path, value, allowed={"id", "name", "memory"}, required={"id", "name", "memory"})
        if not data:
            return None
        memory = self.figure(path + ("memory",), data.get("memory"), "bytes")
        if memory.value is not None and memory.value <= 0:
            self.c.problem(path + ("memory",), f"{memory.ref} is not a positive number of bytes")
        return Machine(id=self.ident(path + ("id",), data.get("id")) or "",  # "": dropped, as in model()
                       name=self.c.text(path + ("name",), data.get("name")) or "",
                       memory=memory)

    def format(self, path: KeyPath, value: object) -> Format | None:
        data = self.c.mapping(path, value, allowed={"id", "name", "smaller_by", "basis"},
                              required={"id", "name", "smaller_by"})
        if not data:
            return None
        smaller = None
        if data.get("smaller_by") is not None:
            smaller = self.figure(path + ("smaller_by",), data.get("smaller_by"), "ratio")
            if smaller.value is not None and smaller.value <= 0:
                self.c.problem(path + ("smaller_by",), f"{smaller.ref} is not a positive ratio")
        basis = None
        if data.get("basis") is not None:
            basis = self.figure(path + ("basis",), data.get("basis"), None)
        return Format(id=self.ident(path + ("id",), data.get("id")) or "",  # "": dropped, as in model()
                      name=self.c.text(path + ("name",), data.get("name")) or "",
                      smaller_by=smaller, basis=basis)

    def defaults(self, value: object, models: list[Model], machines: list[Machine],
                 formats: list[Format]) -> dict[str, Any]:
        c = self.c
        out: dict[str, Any] = {"model": models[0].id if models else None, "machine": machines[0].id if machines else None,
               "format": next((f.id for f in formats if f.smaller_by is None), None), "chats": 1, "length": 1000}
        if value is None:
            return out
        data = c.mapping(("defaults",), value, allowed={"model", "machine", "format", "chats", "length"})
        for key, entries in (("model", models), ("machine", machines), ("format", formats)):
            if key in data:
                if data[key] in {e.id for e in entries}:
                    out[key] = data[key]
                else:
                    c.problem(("defaults", key), f"no {key} with id {data[key]!r}")
        for key, top in (("chats", MAX_CHATS), ("length", 10 ** 12)):
            if key in data:
                number = data[key]
                if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= top:
                    c.problem(("defaults", key), f"expected a whole number from 1 to {top:,}; got {number!r}")
                else:
                    out[key] = number
        return out

    def figures(self, path: KeyPath, value: object) -> tuple[Figure, ...]:
        if value is None:
            return ()
        if not isinstance(value, list):
            self.c.problem(path, "expected a list of claim:<id> references")
            return ()
        return tuple(self.figure(path + (i,), item, None) for i, item in enumerate(value))

    def figure(self, path: KeyPath, value: object, kind: str | None, *, optional: bool = False) -> Figure:
        """Resolve ``claim:<id>`` or ``claim:<id>#<step>``; ``kind`` names the unit it must convert to
        (None: any, shown as the ledger displays it)."""
        c = self.c
        if value is None:
            if not optional:
                c.problem(path, "expected claim:<id>; null is allowed only for a figure the ledger may lack")
            return Figure(ref=None)
        match = _REF.match(value) if isinstance(value, str) else None
        if not isinstance(value, str) or not match:
            c.problem(path, f"expected claim:<id> or claim:<id>#<step>; got {value!r}")
            return Figure(ref=None)
        claim: ClaimResult | None = self.claims.get(match.group("claim"))
        if claim is None:
            c.problem(path, f"no claim {match.group('claim')!r} in the ledger")
            return Figure(ref=value)
        step = match.group("step")
        quantity, printed_only = claim.result, False
        if step:
            found = next((s for s in claim.steps if s.name == step), None)
            if found is None:
                c.problem(path, f"claim {claim.id!r} has no step {step!r} (steps: "
                          f"{', '.join(s.name for s in claim.steps) or 'none'})")
                return Figure(ref=value)
            quantity = found.result
        base = Figure(ref=value, claim=claim.id, step=step, status=claim.status, grade=claim.grade,
                      label=claim.label)
        value_unit = None
        if quantity is not None:
            value_unit = (quantity.value, quantity.unit)
            base = replace(base, display=quantity.display)
        elif claim.status == "unchecked" and claim.figure and not step:
            try:  # nothing recomputes it: the figure as printed, flagged as such
                printed = read_figure(claim.figure)
                value_unit, printed_only = (printed.value, printed.unit), True
                base = replace(base, display=claim.figure)
            except LedgerError:
                value_unit = None
        if kind is None or value_unit is None:
            return replace(base, printed_only=printed_only)
        unit, words = BASE[kind]
        try:
            exact = units.convert(units.quantity(*value_unit), unit)
        except LedgerError:
            c.problem(path, f"{value} is {value_unit[1] or 'a pure number'}; expected {words}")
            return Figure(ref=value)
        return replace(base, value=exact, unit=unit, printed_only=printed_only)


def weakest(figures: Iterable[Figure]) -> dict[str, Any]:
    """The least certain grade among the figures that name a claim, and how many are unchecked or missing."""
    graded = [f.grade for f in figures if f.grade in GRADES]
    return {"grade": max(graded, key=GRADES.index) if graded else None,
            "unchecked": sum(f.status == "unchecked" for f in figures),
            "missing": sum(f.status == "missing" for f in figures)}
