"""The records: claims and sources, as frozen keyword-only dataclasses.

``Claim.from_document`` and ``Source.from_document`` validate a parsed YAML Document and return the
record (or None) with every problem found; the loader does the reading. ``to_dict`` gives back the
plain mapping, so a record round-trips.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import field
from fractions import Fraction
from typing import Any

from .frozen import frozen
from . import expr, units
from .errors import LedgerError, Problem
from .figures import MAX_FIGURE, MAX_SENTENCE, Figure
from .validate import Checker, KeyPath
from .yamlio import Document

LABELS = ("derived", "quoted", "estimate", "bound", "vendor", "measured")
# How sure anyone can be of what a source says, most to least certain: a claim shows the least certain
# grade among the sources it rests on. The words are what editors (docs) and readers (the page) see.
GRADE_MEANING = {
    "primary": "the official bytes",
    "copy": "a third-party copy of the official file",
    "transcription": "the source's own words, as quoted elsewhere",
    "paraphrase": "someone's account of what the source says, not its words",
    "unarchived": "cited, no copy kept",
}
GRADES = tuple(GRADE_MEANING)
ROUNDING = ("nearest", "floor", "ceil")
# The widest tolerance ``within:`` may give: "about" is a figure rounded, not one off by a third.
MAX_WITHIN = Fraction(1, 5)
BOUNDS = ("at-least", "at-most")
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
SOURCE_REF = re.compile(r"^(?P<source>[a-z0-9][a-z0-9._-]*)#(?P<key>[A-Za-z0-9_.\-\[\]]+)(?:\s+(?P<unit>.+))?$")
# Segments that start with a letter or digit: no empty, "." or ".." segment can reach outside a folder.
CLAIM_ID = re.compile(r"[a-z0-9][a-z0-9._-]*(?:/[a-z0-9][a-z0-9._-]*)*")
SOURCE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
SNAPSHOT = re.compile(r"^(?P<sha>[0-9a-f]{64})\.(?P<ext>[a-z0-9]{1,8})$")

CLAIM_KEYS = {"id", "said", "figure", "check", "label", "inputs", "assumptions", "compute", "round",
              "within", "bound", "reading", "erratum", "cites", "notes", "probe", "also_said", "about"}
# ``about``: the model a claim is about, as named ("DeepSeek-V4.1-Flash", "Qwen2.5-14B-Instruct-1M"): a name
# with its version or size, so a letter and a digit, on one line
ABOUT = re.compile(r"(?=[^\n]*[A-Za-z])(?=[^\n]*\d)[^\n]{2,120}")


@frozen(kw_only=True)
class Input:
    """One named input: a literal quantity, a value of a source, or another claim's result."""

    name: str
    text: str
    kind: str  # literal | source | claim
    value: Fraction | None = None  # literal
    unit: str = ""  # literal unit, or the unit attached to a source value
    source: str | None = None
    key: str | None = None
    claim: str | None = None
    dtype: bool = False  # dtype:src#key: the dtype named at key, as bytes per value (workings.dtypes)

    @classmethod
    def parse(cls, name: str, text: str) -> Input:
        text = text.strip()
        if text.startswith("dtype:"):
            match = SOURCE_REF.fullmatch(text[len("dtype:"):].strip())
            if not match or match.group("unit"):
                raise LedgerError(f"expected dtype:source#key (bytes per value; no unit), got {text!r}")
            return cls(name=name, text=text, kind="source", source=match.group("source"), key=match.group("key"),
                       unit="B", dtype=True)
        if text.startswith("claim:"):
            target = text[len("claim:"):].strip()
            if not CLAIM_ID.fullmatch(target):
                raise LedgerError(f"expected claim:<id>, got {text!r}")
            return cls(name=name, text=text, kind="claim", claim=target)
        if "#" in text:
            match = SOURCE_REF.fullmatch(text)
            if not match:
                raise LedgerError(f"expected source#key [unit], got {text!r}")
            unit = (match.group("unit") or "").strip()
            units.parse_unit(unit)
            return cls(name=name, text=text, kind="source", source=match.group("source"), key=match.group("key"), unit=unit)
        figure = units.read_quantity(text)
        return cls(name=name, text=text, kind="literal", value=figure.value, unit=figure.unit)


@frozen(kw_only=True)
class Step:
    name: str
    text: str
    tree: ast.Expression = field(compare=False, repr=False)


@frozen(kw_only=True)
class Erratum:
    reason: str
    recomputed: str  # the recomputed value that was acknowledged, printed like a figure


def _group(claim_id: str) -> str:
    """The group of a claim id: its folder under claims/ ("kv" of "kv/per-token"; "" at the top)."""
    return claim_id.split("/", 1)[0] if "/" in claim_id else ""


@frozen(kw_only=True)
class Claim:
    id: str
    file: str
    line: int
    said: str
    label: str
    also_said: tuple[str, ...] = ()   # other sentences of the text that repeat this very figure
    about: str | None = None          # the model it is about, where its id names none (check-draft reads it)
    figure: str | None = None
    check: str | None = None
    check_tree: ast.Expression | None = field(default=None, compare=False, repr=False)
    inputs: tuple[Input, ...] = ()
    assumptions: dict[str, str] = field(default_factory=dict)
    compute: tuple[Step, ...] = ()
    round: str | None = None
    within: Fraction | None = None
    bound: str | None = None
    reading: str | None = None
    erratum: Erratum | None = None
    cites: tuple[str, ...] = ()
    notes: str | None = None
    probe: dict[str, Any] | None = None
    doc: Document | None = field(default=None, compare=False, repr=False)  # for the line of any key
    explicit_id: bool = False

    @property
    def group(self) -> str:
        return _group(self.id)

    def line_of(self, *path: str | int) -> int:
        return self.doc.line(*path) if self.doc is not None else self.line

    @classmethod
    def from_document(cls, doc: Document, default_id: str) -> tuple[Claim | None, list[Problem]]:
        c = Checker(doc)
        data = c.mapping((), doc.data, allowed=CLAIM_KEYS, required={"said", "label"})
        if not isinstance(doc.data, dict):
            return None, c.problems
        claim_id = default_id
        if "id" in data:
            claim_id = c.text(("id",), data["id"]) or default_id
            if not CLAIM_ID.fullmatch(claim_id):
                c.problem(("id",), "expected a lower-case id of letters, digits, '-', '_', '.' and '/'")
            elif _group(claim_id) != _group(default_id):  # its group's articles would take it as their own
                c.problem(("id",), f"{claim_id!r} is of the group {_group(claim_id) or '(none)'!r}, but the record "
                                   f"is in {_group(default_id) or '(none)'!r}: a claim's group is its folder")
        said = c.text(("said",), data.get("said"), max_len=MAX_SENTENCE)
        also_said = _also_said(c, data.get("also_said"))
        about = c.text(("about",), data["about"], max_len=120) if "about" in data else None
        if about is not None and not ABOUT.fullmatch(about):
            c.problem(("about",), "expected the model as named, with its version or size ('DeepSeek-V4.1-Flash')")
            about = None
        label = c.choice(("label",), data.get("label"), LABELS)
        figure = check = check_tree = printed = None
        if ("figure" in data) == ("check" in data):
            c.problem((), "expected exactly one of 'figure' (a number as printed) and 'check' (a relation)")
        if "figure" in data:
            figure = c.text(("figure",), data["figure"], max_len=MAX_FIGURE)
            if figure is not None:
                try:
                    printed = units.read_quantity(figure, printed=True)
                except LedgerError as exc:
                    c.problem(("figure",), str(exc))
                    figure = None
                else:
                    _prints(c, said, also_said, printed, figure)
        if "check" in data:
            check = c.text(("check",), data["check"], max_len=expr.MAX_SOURCE)
            if check is not None:
                try:
                    check_tree = expr.parse(check, allow_compare=True)
                    if not isinstance(check_tree.body, ast.Compare):
                        raise LedgerError("expected a comparison such as 'a > b + c'")
                except LedgerError as exc:
                    c.problem(("check",), str(exc))
                    check = None
        inputs = _inputs(c, data.get("inputs"))
        written = data.get("inputs")
        assumptions = _assumptions(c, data.get("assumptions"), inputs,
                                   frozenset(written) if isinstance(written, dict) else frozenset())
        compute = _steps(c, data.get("compute"), {i.name for i in inputs})
        rounding = c.choice(("round",), data["round"], ROUNDING) if "round" in data else None
        within = _percent(c, data.get("within")) if "within" in data else None
        bound = c.choice(("bound",), data["bound"], BOUNDS) if "bound" in data else None
        reading = c.text(("reading",), data["reading"]) if "reading" in data else None
        if reading is not None:
            try:
                units.parse_unit(reading)
            except LedgerError as exc:
                c.problem(("reading",), str(exc))
                reading = None
        used = set().union(*(expr.names(step.tree) for step in compute)) if compute else set()
        if check_tree is not None:
            used |= expr.names(check_tree)
        for item in inputs:
            if item.name not in used and (compute or check_tree is not None):
                c.problem(("inputs", item.name), "no step and no check uses this input (a typo, or left over?)")
        if within is not None and bound is not None:
            c.problem(("bound",), "give either within: or bound:, not both")
        elif bound is not None and printed is not None and said is not None:
            _prints_bound(c, bound, printed, (said, *also_said))
        if rounding is not None and figure is not None and "/" in figure.split()[0]:
            c.problem(("round",), "a fraction as printed (1/4) is compared exactly or within:, not rounded")
        erratum = _erratum(c, data["erratum"], figure, reading) if "erratum" in data else None
        cites = _cites(c, data.get("cites"))
        notes = c.text(("notes",), data["notes"], max_len=5000) if "notes" in data else None
        probe = data.get("probe")
        if probe is not None:
            from .probespec import ProbeSpecError, ProbeSpec  # no torch: validating is cheap

            try:
                ProbeSpec.from_dict(probe)
            except ProbeSpecError as exc:
                c.problem(("probe", exc.key) if exc.key else ("probe",), str(exc))
                probe = None
        if c.problems:
            return None, c.problems
        assert said is not None and label is not None  # required keys: a missing one is a problem, above
        return cls(id=claim_id, file=doc.file, line=doc.line(), said=said, label=label, figure=figure,
                   check=check, check_tree=check_tree, inputs=inputs, assumptions=assumptions,
                   compute=compute, round=rounding, within=within, bound=bound, reading=reading,
                   erratum=erratum, cites=cites, notes=notes, probe=probe, doc=doc, also_said=also_said, about=about,
                   explicit_id="id" in data), []

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"said": self.said}
        if self.explicit_id:
            out["id"] = self.id
        out["figure" if self.figure is not None else "check"] = self.figure if self.figure is not None else self.check
        out["label"] = self.label
        if self.inputs:
            out["inputs"] = {i.name: i.text for i in self.inputs}
        if self.assumptions:
            out["assumptions"] = dict(self.assumptions)
        if self.compute:
            out["compute"] = {s.name: s.text for s in self.compute}
        if self.round is not None:
            out["round"] = self.round
        if self.within is not None:
            out["within"] = f"{float(self.within * 100):g}%"
        for key in ("bound", "reading", "notes", "probe", "about"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.erratum:
            out["erratum"] = {"reason": self.erratum.reason, "recomputed": self.erratum.recomputed}
        if self.cites:
            out["cites"] = list(self.cites)
        return out


# Unit names a step writes as units (`80 * GiB`, `/ token`); an input or step of that name would hide
# the unit from every later step. Plurals (tokens, bytes) stay free for names of counts.
# A prefix (short or spelled) makes any unit of units.txt a unit ("Gb", "gigabyte", "kUSD", "ks"); a bare
# "b", "s", "h", "d", "min" or "day" stays free for a name (batch, sequence, heads, a day of the month).
_UNIT_WORDS = re.compile(r"(?:k|M|G|T|P|Ki|Mi|Gi|Ti|Pi|kilo|mega|giga|tera|peta|kibi|mebi|gibi|tebi|pebi)?"
                         r"(?:B|bit|byte|token|tok|parameter|param|octet|USD|dollar)|percent"
                         r"|(?:k|M|G|T|P|Ki|Mi|Gi|Ti|Pi|kilo|mega|giga|tera|peta|kibi|mebi|gibi|tebi|pebi)"
                         r"(?:b|s|sec|second|min|minute|h|hour|d|day)")


_FREE_NAMES: set[str] = set()  # names already seen not to be a unit's (records reuse a few)


def _shadows_a_unit(c: Checker, path: KeyPath, name: str) -> bool:
    if name in _FREE_NAMES:
        return False
    if not _UNIT_WORDS.fullmatch(name):
        if len(_FREE_NAMES) < 10_000:
            _FREE_NAMES.add(name)
        return False
    c.problem(path, f"{name!r} is the name of a unit; choose another name")
    return True


def _inputs(c: Checker, raw: object) -> tuple[Input, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        c.problem(("inputs",), "expected a mapping of name: value")
        return ()
    out = []
    for name, value in raw.items():
        known = _GOOD_INPUTS.get((name, value)) if type(value) is str else None
        if known is not None:  # this very line passed every check below before: the same Input
            out.append(known)
            continue
        path = ("inputs", name)
        if not isinstance(name, str) or not NAME.fullmatch(name):
            c.problem(path, "input names are letters, digits and _, starting with a letter")
            continue
        if _shadows_a_unit(c, path, name):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # a bare number is a pure-number literal
        text = c.text(path, value, max_len=500)
        if text is None:
            continue
        # a claim: line names one upstream claim, and is mostly the only line of its kind: kept in
        # neither cache (at 10,000 claims they held 10,000 such lines, about 2 MB, to no use)
        once = text.lstrip().startswith("claim:")
        try:
            parsed = Input.parse(name, text) if once else _parse_input(name, text)
        except LedgerError as exc:
            c.problem(path, str(exc))
            continue
        out.append(parsed)
        if value is text and type(name) is str and not once:  # nothing above depends on more than (name, text)
            if len(_GOOD_INPUTS) >= 65536:
                _GOOD_INPUTS.clear()
            _GOOD_INPUTS[(name, text)] = parsed
    return tuple(out)


# (name, text) -> its Input, for input lines that passed every check of ``_inputs``: records repeat
# their inputs (``layers: cfg#num_hidden_layers``), and each check is a function of the line alone.
_GOOD_INPUTS: dict[tuple[str, str], Input] = {}


@functools.lru_cache(maxsize=65536)
def _parse_input(name: str, text: str) -> Input:
    """``Input.parse`` once per distinct (name, text): records repeat their inputs (``layers:
    cfg#num_hidden_layers``) and an Input is frozen, so one object serves them all (errors are raised
    again each time, never cached)."""
    return Input.parse(name, text)


@functools.lru_cache(maxsize=65536)
def _step(name: str, text: str) -> Step:
    """One Step per distinct (name, text), its tree parsed once per text (frozen: records share it)."""
    return Step(name=name, text=text, tree=expr.parse_shared(text))


def _assumptions(c: Checker, raw: object, inputs: tuple[Input, ...],
                 written: frozenset[str] = frozenset()) -> dict[str, str]:
    """The assumptions by input name. One naming an input the record writes but that was refused (its own
    error is reported) is not reported again as naming no input."""
    out: dict[str, str] = {}
    if raw is not None:
        if not isinstance(raw, dict):
            c.problem(("assumptions",), "expected a mapping of input name: why")
            raw = {}
        names = {i.name for i in inputs}
        for name, why in raw.items():
            if name not in names:
                if name not in written:
                    c.problem(("assumptions", name), "names no input of this claim")
                continue
            text = c.text(("assumptions", name), why, max_len=2000)
            if text:
                out[name] = text
    for item in inputs:
        if item.kind == "literal" and item.name not in out:
            c.problem(("inputs", item.name), "a literal input needs an assumption saying why (assumptions: "
                      f"{item.name}: ...)")
    return out


def _steps(c: Checker, raw: object, input_names: set[str]) -> tuple[Step, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        c.problem(("compute",), "expected a mapping of step name: expression, in order")
        return ()
    out, known = [], set(input_names)
    for name, text in raw.items():
        step = _GOOD_STEPS.get((name, text)) if type(text) is str else None
        if step is not None and name not in input_names:  # passed every check below before
            out.append(step)
            known.add(name)
            continue
        path = ("compute", name)
        if not isinstance(name, str) or not NAME.fullmatch(name):
            c.problem(path, "step names are letters, digits and _, starting with a letter")
            continue
        if _shadows_a_unit(c, path, name):
            continue
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            text = str(text)
        text = c.text(path, text, max_len=expr.MAX_SOURCE)
        if text is None:
            continue
        if name in input_names:
            c.problem(path, f"step {name!r} has the name of an input")
            continue
        try:
            step = _step(name, text)  # one tree per distinct text, shared
        except LedgerError as exc:
            c.problem(path, str(exc))
            continue
        out.append(step)
        known.add(name)
        if type(raw[name]) is str and len(_GOOD_STEPS) < 65536:
            _GOOD_STEPS[(name, text)] = step
    position = {step.name: index for index, step in enumerate(out)}
    for index, step in enumerate(out):  # "a: b" then "b: 1" would read b as the unit bit, silently
        for used in sorted(n for n in expr.names(step.tree) if position.get(n, -1) >= index):
            c.problem(("compute", step.name), f"{used!r} is {'this step' if used == step.name else 'a later step'}, "
                      "not an input or an earlier step: steps run in order")
    return tuple(out)


# (name, text) -> its Step, for step lines that passed every check of ``_steps`` that depends on the
# line alone (whether the name is an input's is asked each time).
_GOOD_STEPS: dict[tuple[str, str], Step] = {}


def _percent(c: Checker, raw: object) -> Fraction | None:
    text = c.text(("within",), raw if not isinstance(raw, (int, float)) or isinstance(raw, bool) else str(raw),
                  max_len=40)  # "5%", "0.25%": 4,301 digits would stop the whole run (Python's int limit)
    if text is None:
        return None
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*", text)
    if not match or not 0 < Fraction(match.group(1)):
        c.problem(("within",), f"expected a tolerance like '5%'; got {text!r}")
        return None
    if Fraction(match.group(1)) > MAX_WITHIN * 100:
        c.problem(("within",), f"{text.strip()} is no approximation: at most {MAX_WITHIN * 100}% (100% holds for "
                  "anything from 0 to twice the figure); print the figure as the value rounds, or use bound:")
        return None
    return Fraction(match.group(1)) / 100


def _erratum(c: Checker, raw: object, figure: str | None, reading: str | None) -> Erratum | None:
    data = c.mapping(("erratum",), raw, allowed={"reason", "recomputed"}, required={"reason", "recomputed"})
    reason = c.text(("erratum", "reason"), data.get("reason"), max_len=2000)
    recomputed = c.text(("erratum", "recomputed"), data.get("recomputed"), max_len=200)
    if recomputed is not None:
        try:
            acknowledged = units.read_quantity(recomputed, printed=True)
            problem = _coarse(acknowledged, units.read_quantity(figure, printed=True) if figure else None, reading)
        except LedgerError as exc:
            problem = str(exc)
        if problem:
            c.problem(("erratum", "recomputed"), problem)
            return None
    return Erratum(reason=reason, recomputed=recomputed) if reason and recomputed else None


def _coarse(acknowledged: Figure, figure: Figure | None, reading: str | None) -> str | None:
    """Why an erratum's acknowledged value could hide later drift, or None.

    The erratum holds while the recomputed value, rounded as the acknowledged value is written, equals
    it: "0.0 PB" on a GB figure would hold for anything under 50 TB. So the value is written in the
    figure's unit (or its stated reading) to at least the figure's decimals. A relation (``check:``)
    has no printed precision: its acknowledged value must show two significant digits at least."""
    if acknowledged.is_fraction or acknowledged.places == 0:
        places_ok = True  # a fraction or a whole number is compared exactly
    elif figure is not None:
        places_ok = acknowledged.places >= figure.places
    else:
        places_ok = acknowledged.value != 0 and Fraction(1, 10**acknowledged.places) * 20 <= abs(acknowledged.value)
    if figure is not None:
        allowed = {figure.unit, *units.readings(figure.unit)} | ({reading} if reading else set())
        if acknowledged.unit not in allowed:
            return (f"the acknowledged value is in {acknowledged.unit or 'a pure number'}, not in the figure's unit "
                    f"({figure.unit or 'a pure number'}): write it in that unit, to at least the figure's "
                    f"{_decimals(figure.places)}, so that a later change still shows")
        if not places_ok:
            return (f"the acknowledged value is written to {_decimals(acknowledged.places)}, coarser than the figure "
                    f"({_decimals(figure.places)}): it would hide a later change; write the recomputed value to at "
                    "least the figure's precision")
    elif not places_ok:
        return ("the acknowledged value shows fewer than two significant digits, so it would hide a later change: "
                "write the recomputed value with more digits (or exactly)")
    return None


def _decimals(places: int) -> str:
    return "no decimals" if places <= 0 else f"{places} decimal{'s' if places > 1 else ''}"


def _cites(c: Checker, raw: object) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        c.problem(("cites",), "expected a list of source#passage")
        return ()
    out = []
    for index, item in enumerate(raw):
        text = c.text(("cites", index), item)
        if text is None:
            continue
        if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*#[A-Za-z0-9_.-]+", text):
            c.problem(("cites", index), f"expected source#passage-id; got {text!r}")
            continue
        out.append(text)
    return tuple(out)


def _prints(c: Checker, said: str | None, also_said: tuple[str, ...], figure: Figure, text: str) -> None:
    """``said`` must print the figure's number, and so must each ``also_said`` sentence (there at the
    sentence's precision too, as check-draft reads a draft): see ``workings.said``. ``text``: the
    figure as the record writes it; an answer worked out where the record was read (``c.doc.known``,
    ``said.answers``) is looked up by it rather than worked out again."""
    known = c.doc.known

    def ask(sentence: str, rounded: bool) -> str | None:
        if known is not None and (sentence, text, rounded) in known:
            return known[(sentence, text, rounded)]
        from .said import missing  # imported where asked: a function's import is 1.5 us each time it runs

        return missing(sentence, figure, rounded=rounded)

    shown = f"{figure.number} {figure.unit}".strip()
    if said is not None and (what := ask(said, False)) is not None:
        c.problem(("said",), f"the sentence {what}, not the figure ({shown}): said is the sentence that printed "
                  "this very figure, and figure its number as printed; correct whichever is wrong")
    raw = c.doc.data.get("also_said") if isinstance(c.doc.data, dict) else None
    for index, sentence in enumerate(raw if isinstance(raw, list) else ()):
        if isinstance(sentence, str) and sentence in also_said and (what := ask(sentence, True)):
            c.problem(("also_said", index), f"the sentence {what}, not the figure ({shown}), even rounded as "
                      "printed: each also_said sentence repeats this very figure")


def _prints_bound(c: Checker, bound: str, figure: Figure, sentences: tuple[str, ...]) -> None:
    """``bound:`` compares the figure as a bound, which the text must print as one: "more than 90%" for
    ``at-least``, "up to 48 GB" for ``at-most`` (``said.prints_bound``). "Qwen2.5-14B has 4,800 layers."
    with ``bound: at-most`` verified 48: the reader is told 4,800, plainly."""
    from .said import BOUND_WORDS, prints_bound

    if not any(prints_bound(sentence, figure, bound) for sentence in sentences):
        side = "lower" if bound == "at-least" else "upper"
        c.problem(("bound",), f"{bound} compares the figure as {'an' if side == 'upper' else 'a'} {side} bound, but "
                  f"no sentence prints {figure.number} as one ({BOUND_WORDS[bound]}): a figure stated plainly is "
                  "compared as printed")


def _also_said(c: Checker, raw: object) -> tuple[str, ...]:
    """``also_said``: the other sentences, as printed, where the text repeats this claim's figure."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        c.problem(("also_said",), "expected a list of sentences as printed")
        return ()
    return tuple(t for index, item in enumerate(raw)
                 if (t := c.text(("also_said", index), item, max_len=MAX_SENTENCE)))
