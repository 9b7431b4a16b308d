"""Evaluating a loaded ledger into a Report.

Claims that use other claims form a graph; it is ordered once (a cycle is an error for every claim
on it), then each claim is evaluated exactly once, in order, so a claim sees the finished result of
every claim it uses. Each claim's failure is contained: it becomes that claim's ``error`` status
with the file, line and key, and the run goes on. On a large ledger a second process may evaluate
whole groups of claims beside this one (``evaluate_ledger``'s ``jobs``, ``split_batches``; for a cold
verify's outputs, ``coldshares`` has it link and format them too); the Report is the same.
"""

from __future__ import annotations

import ast
import operator
from collections import defaultdict
from dataclasses import fields, replace
from fractions import Fraction
import os
from collections.abc import Callable, Container, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from . import dependence, expr, readahead, units
from .compare import Outcome, compare_figure
from .dtypes import bytes_per_value
from .errors import LedgerError, Problem
from .figures import format_number, read_figure
from .frozen import frozen
from .loader import MEASUREMENTS_DIR, BadRecord, Ledger
from .models import GRADES, Claim, Erratum, Input, Step
from .report import Citation, ClaimResult, InputResult, Message, Quantity, Report, SourceResult, StepResult
from .sources import number_value

if TYPE_CHECKING:
    from .measurements import Beside, Measurement

_T = TypeVar("_T")
# each evaluated claim: its result, and the value its dependants use (None: they cannot)
_Done = dict[str, tuple[ClaimResult, units.Value]]
# literal and source inputs already read: (name, text, assumption) -> (value, InputResult)
_Read = dict[tuple[str, str, "str | None"], tuple[Any, InputResult]]
# steps already evaluated: (id of the tree, ids of the values it reads) -> (tree, those values, its value);
# what a claim's value depends on (``dependence.held``): a key starting "depends_on" -> (None, the trees and
# values, the inputs it depends on); and a figure compared with a value (``_Evaluation.compared``): a key
# starting "compare_figure" -> (None, (the value,), the Outcome)
_Stepped = dict[tuple[Any, ...], tuple[Any, tuple[Any, ...], Any]]


def evaluate_ledger(ledger: Ledger, *, jobs: int | None = 1) -> Report:
    """Every claim evaluated and the Report made. ``jobs`` (default 1: this process alone): how many
    processes may evaluate a large ledger's claims (``_evaluate_split``); None, the processors this
    one may use. The Report is the same for any number."""
    if readahead.forks(len(ledger.claims), jobs):  # 2,000 claims and more, two processors, fork allowed
        return report_of(ledger, _evaluate_split(ledger, jobs))
    return report_of(ledger, evaluate_claims(ledger))


def evaluate_claims(ledger: Ledger, reused: _Done | None = None) -> _Done:
    """Each claim's result (before the links to other claims and sources are added) and the value
    its dependants use, in dependency order.

    ``reused``: results a warm run took from the cache (``workings.cache``), in dependency order,
    for claims that are not in ``ledger.claims``; each rests only on claims also reused. They come
    first, so ``done`` stays in dependency order, and the claims of ``ledger.claims`` read them as
    they would read results computed here."""
    order, cycles = _order(ledger.claims)
    done: _Done = dict(reused or {})
    _evaluate_in_order(ledger, order, cycles, done, {}, {})
    return done


def _evaluate_in_order(ledger: Ledger, order: Iterable[str], cycles: dict[str, str], done: _Done, read: _Read,
                       stepped: _Stepped) -> None:
    """Each claim of ``order`` (dependency order) evaluated into ``done``, which holds every claim it uses.
    ``read`` and ``stepped``: the inputs and steps known so far (``_Evaluation.resolve``, ``step``)."""
    for claim_id in order:
        claim = ledger.claims[claim_id]
        if claim_id in cycles:
            result = _failed(claim, "error", f"claims form a cycle: {cycles[claim_id]}", key="inputs")
            done[claim_id] = (result, None)
            continue
        done[claim_id] = _evaluate_contained(ledger, claim, done, read, stepped)


SPLIT_BATCH = 16  # claims evaluated in one piece by either process: fewer, larger messages between the two


def _evaluate_split(ledger: Ledger, jobs: int | None) -> _Done:
    """``evaluate_claims`` with a second process evaluating too (``split_batches``). The values
    dependants use are not sent: every dependant is in its group, and the Report does not read them,
    so each claim's is None here (``evaluate_claims`` is the call that keeps them, for the cache)."""
    order = _order(ledger.claims)[0]

    def results(batch: list[str], done: _Done) -> list[tuple[str, ClaimResult]]:
        return [(claim_id, done.pop(claim_id)[0]) for claim_id in batch]

    got = {claim_id: result for part in split_batches(ledger, jobs, results) for claim_id, result in part}
    return {claim_id: (got[claim_id], None) for claim_id in order}


def split_batches(ledger: Ledger, jobs: int | None, finish: Callable[[list[str], _Done], _T]) -> list[_T]:
    """``finish(batch, done)`` of every batch of the ledger's claims, in the batches' order, each batch
    evaluated by this process or a second one (``readahead.outcomes``), and finished by the process
    that evaluated it.

    A claim reads only the claims it uses, so the ledger falls apart into groups that share no claim
    (connected by ``claim:`` inputs); each group is evaluated whole by one process, in dependency
    order (``_batches``). The batches are taken by a forked child from the first on and by this
    process from the last back, until the two meet; the child sends what ``finish`` gave pickled
    through a pipe (it must be data whose pickle names only workings' classes and builtins). A result
    does not depend on which process made it or what it made before: each process keeps its own
    ``read`` and ``stepped``, which hold only what any claim reading the same values would compute (see
    ``_Evaluation.step``). ``done`` holds the batch's results and values (and may hold earlier
    batches' that ``finish`` did not take out: ``finish`` may ``pop`` its batch's, which no other batch
    reads). A batch the child could not evaluate or send, or never reached, is evaluated here."""
    import pickle

    deps = _dependencies(ledger.claims)  # asked by both: worked out once
    order, cycles = _order(ledger.claims, deps)
    batches = _batches(ledger.claims, order, deps)
    done: _Done = {}
    read: _Read = {}
    stepped: _Stepped = {}

    def evaluate(index: int) -> _T:
        _evaluate_in_order(ledger, batches[index], cycles, done, read, stepped)
        return finish(batches[index], done)

    def send(finished: _T) -> bytes:
        return pickle.dumps(finished, protocol=pickle.HIGHEST_PROTOCOL)

    def receive(index: int, sent: bytes) -> _T:
        finished: _T = pickle.loads(sent)  # noqa: S301  # this process's own child
        return finished

    return readahead.outcomes(len(batches), evaluate, lambda index, finished: finished, jobs,
                              encode=send, decode=receive, size=len(order))[0]


def _batches(claims: dict[str, Claim], order: list[str], deps: dict[str, list[str]] | None = None) -> list[list[str]]:
    """``order``'s claims in groups that share no claim, each in dependency order, the groups joined into
    batches of at least SPLIT_BATCH claims (the last may hold fewer). ``deps``: ``_dependencies(claims)``,
    where the caller has it."""
    deps = _dependencies(claims) if deps is None else deps
    root: dict[str, str] = {}

    def find(claim_id: str) -> str:
        top = claim_id
        while root.get(top, top) != top:
            top = root[top]
        while claim_id != top:  # every claim on the way points at the top now
            above = root[claim_id]
            root[claim_id] = top
            claim_id = above
        return top

    for claim_id in order:
        for used in deps[claim_id]:
            a, b = find(claim_id), find(used)
            if a != b:
                root[a] = b
    groups: dict[str, list[str]] = {}
    for claim_id in order:
        groups.setdefault(find(claim_id), []).append(claim_id)
    batches: list[list[str]] = []
    batch: list[str] = []
    for group in groups.values():
        batch += group
        if len(batch) >= SPLIT_BATCH:
            batches.append(batch)
            batch = []
    if batch:
        batches.append(batch)
    return batches


def report_of(ledger: Ledger, done: _Done) -> Report:
    """The Report: ``done``'s results with their links (what uses each claim, the sources it rests
    on, their least certain grade, its measurements), the invalid records, the sources, the problems."""
    used_by = users(ledger)
    for claim_id, (result, _) in done.items():
        if claim_id not in ledger.claims:  # reused from the cache: its record was not read
            for used in result.uses:
                used_by[used].add(claim_id)
    claims = []
    upstream = _upstream_sources(done)
    measured = defaultdict(list)  # claim id -> its measurements, looked up once per claim
    for m in ledger.measurements:
        measured[m.claim].append(m)
    for claim_id, (result, _) in done.items():
        claims.append(_with_links(result, ledger, upstream[claim_id], sorted(used_by.get(claim_id, ())),
                                  measured.get(claim_id, ())))
    claims.extend(bad_result(bad) for bad in ledger.bad_claims)
    claims.sort(key=lambda c: c.id)
    sources = _sources(ledger, claims)
    return Report(claims=tuple(claims), sources=tuple(sources), problems=problems_of(ledger, done))


def users(ledger: Ledger) -> defaultdict[str, set[str]]:
    """For each claim id, the ledger's claims that use it (``claim:`` inputs)."""
    used_by = defaultdict(set)
    for claim in ledger.claims.values():
        for item in claim.inputs:
            if item.kind == "claim":
                used_by[item.claim].add(claim.id)
    return used_by


def problems_of(ledger: Ledger, claims: Container[str]) -> tuple[Problem, ...]:
    """The report's problems, sorted: the ledger's, and each measurement of a claim not among ``claims``
    (the ids of the claims evaluated or reused)."""
    problems = list(ledger.problems)
    for m in ledger.measurements:
        if m.claim not in claims:
            problems.append(Problem(file=f"ledger/measurements/{m.filename}", line=1, key="claim",
                                    message=f"no claim {m.claim!r} in claims/ (renamed or removed?)"))
    return tuple(sorted(problems))


def bad_result(bad: BadRecord) -> ClaimResult:
    """An invalid record's place in the report: an ``error`` claim with the record's problems."""
    first = bad.problems[0] if bad.problems else None
    return ClaimResult(
        id=bad.id, group=bad.id.split("/", 1)[0] if "/" in bad.id else "", file=bad.file,
        line=first.line if first else 0, said=None, label=None, figure=None, check=None, status="error",
        reason=f"the record is invalid: {first.key + ': ' if first and first.key else ''}{first.message if first else ''}",
        messages=tuple(Message(kind="error", text=p.message, file=p.file, line=p.line, key=p.key) for p in bad.problems))


def _evaluate_contained(ledger: Ledger, claim: Claim, done: _Done, read: _Read | None = None,
                        stepped: _Stepped | None = None) -> tuple[ClaimResult, units.Value]:
    """One claim's evaluation; an unexpected exception (a bug in workings that a record set off)
    becomes that claim's error instead of stopping the run for every other claim."""
    evaluation = _Evaluation(ledger, claim, done, {} if read is None else read, {} if stepped is None else stepped)
    try:
        return evaluation.run()
    except (ArithmeticError, ValueError, TypeError, AttributeError, KeyError, RecursionError, MemoryError) as exc:
        text = (f"workings could not evaluate this record ({type(exc).__name__}: {exc}); this is a bug in "
                "workings, please report it with the record")
        return _failed(claim, "error", text, key=".".join(evaluation.where), path=evaluation.where), None


def _order(claims: dict[str, Claim], deps: dict[str, list[str]] | None = None) -> tuple[list[str], dict[str, str]]:
    """Claims in dependency order, and the claims on a cycle with the cycle spelled out. ``deps``:
    ``_dependencies(claims)``, where the caller has it."""
    deps = _dependencies(claims) if deps is None else deps
    order, state, cycles = [], {}, {}
    for start in sorted(claims):
        if start in state:
            continue
        stack = [(start, iter(deps[start]))]
        state[start], path = "open", [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = "done"
                order.append(node)
            elif state.get(child) == "open":
                ring = path[path.index(child):] + [child]
                for member in ring[:-1]:
                    cycles[member] = " -> ".join(ring)
            elif child not in state:
                state[child] = "open"
                path.append(child)
                stack.append((child, iter(deps[child])))
    return order, cycles


def _dependencies(claims: dict[str, Claim]) -> dict[str, list[str]]:
    """For each claim, the claims of ``claims`` it uses (its ``claim:`` inputs), sorted, each once."""
    out: dict[str, list[str]] = {}
    for claim_id, claim in claims.items():
        used = [i.claim for i in claim.inputs if i.kind == "claim" and i.claim is not None and i.claim in claims]
        out[claim_id] = sorted(set(used)) if len(used) > 1 else used
    return out


class _Evaluation:
    """One claim's evaluation: inputs, steps, then the figure or the check."""

    def __init__(self, ledger: Ledger, claim: Claim, done: _Done, read: _Read, stepped: _Stepped):
        self.ledger, self.claim, self.done, self.read, self.stepped = ledger, claim, done, read, stepped
        self.messages: list[Message] = []
        self.inputs: list[InputResult] = []
        self.steps: list[StepResult] = []
        self.status: str | None = None  # set early by an input that decides it
        self.where: tuple[str, ...] = ("compute",)  # the key being evaluated, for an unexpected failure's message
        self.refused: list[str] = []  # the measurements of this claim that measured something else

    def problem(self, kind: str, text: str, *path: str | int) -> None:
        self.messages.append(Message(kind=kind, text=text, file=self.claim.file,
                                     line=self.claim.line_of(*path), key=".".join(str(p) for p in path)))

    def run(self) -> tuple[ClaimResult, object]:
        claim = self.claim
        env = {}
        for item in claim.inputs:
            self.where = ("inputs", item.name)
            value = self.resolve(item)
            if value is not None:
                env[item.name] = value
        self.where = ("cites",)
        self.cites = self.citations()
        if any(m.kind == "error" for m in self.messages):
            return self.finish("error", None), None
        if not claim.compute and claim.check is None:
            why = "nothing recomputes this figure (no compute)"
            if self.status == "unchecked":
                why = "an input rests on an unchecked claim"
            self.messages.append(Message(kind="unchecked", text=why))
            return self.finish("unchecked", None, why), None
        if len(env) < len(claim.inputs):  # an input claim was unchecked: its value is unknown
            return self.finish("unchecked", None, self.messages[-1].text if self.messages else ""), None
        value, inputs_env = None, dict(env)
        for step in claim.compute:
            self.where = ("compute", step.name)
            try:
                value = self.step(step.tree, env)
            except LedgerError as exc:
                self.problem("error", f"step {step.name!r}: {exc}", "compute", step.name)
                return self.finish("error", None), None
            env[step.name] = value
            self.steps.append(self.step_result(step, value))
        measured = [m for m in self.ledger.measurements if m.claim == claim.id]
        if measured:  # only a measurement of what the claim's probe asks for counts
            measured = self.measured(measured, env)
        # what the value is computed from decides whether anything backs it (dependence.py)
        self.dependence = dependence.analyse(
            claim, inputs_env, dict(env), cites=self.cites, steps=self.steps,
            upstream={i.claim: self.done[i.claim][0].basis for i in claim.inputs
                      if i.kind == "claim" and i.claim is not None},
            measurements=measured, known=self.stepped)
        result, value = self.compare(value, env)
        # claims built on an unchecked figure are unchecked too, except one resting on stated
        # assumptions: its value is an assumption theirs can rest on, and it counts as one there
        passed = result.status != "unchecked" or self.dependence.basis == "assumptions-only"
        return result, (value if passed else None)

    def measured(self, measured: list[Measurement], env: dict[str, units.Value]) -> list[Measurement]:
        """The measurements of this claim that measured what its probe asks for; each other one is an
        error naming its file, line and key (``measurements.refusal``), and the claim's status is error.
        One of an estimate the claim no longer computes is stale (shown so, backing nothing): the claim
        changed since, and its probe may have too."""
        from types import SimpleNamespace

        from .measurements import beside, refusal  # no torch: the record and the claim's probe: key only

        kept = []
        now = SimpleNamespace(steps=tuple(self.steps))  # as much of a ClaimResult as beside() reads
        for m in measured:
            why = None if beside(m, now).stale is not None else refusal(m, self.claim, env)  # type: ignore[arg-type]
            if why is None:
                kept.append(m)
                continue
            key, text = why
            self.refused.append(m.filename)
            self.messages.append(Message(kind="error", text=f"this measurement is not of this claim: {text}",
                                         file=f"{MEASUREMENTS_DIR}/{m.filename}", line=m.line_of(key), key=key))
        return kept

    def step(self, tree: ast.Expression, env: dict[str, units.Value]) -> units.Value:
        """``expr.evaluate(tree, env)``, once per tree and the very values it reads: records share
        their step lines (one tree per text) and the inputs they read from the same source (one
        value, ``resolve``), and a step's value is a function of those alone (values are immutable;
        a name not in ``env`` is a unit). Claims of one model's config compute its head size and
        bytes per token once. What fails is not kept, so each record reports its own error."""
        reads = _READS.get(id(tree))
        if reads is None or reads[0] is not tree:
            if len(_READS) >= 65536:
                _READS.clear()
            reads = _READS[id(tree)] = (tree, tuple(sorted(expr.names(tree))))
        held = tuple(env.get(name) for name in reads[1])
        key = (id(tree), *map(id, held))
        known = self.stepped.get(key)
        if known is not None and known[0] is tree and all(map(operator.is_, known[1], held)):
            return known[2]
        value = expr.evaluate(tree, env)
        if len(self.stepped) >= 65536:
            self.stepped.clear()
        self.stepped[key] = (tree, held, value)  # held: their ids stay their own while the entry is here
        return value

    def step_result(self, step: Step, value: units.Value) -> StepResult:
        """The StepResult of ``step`` computing ``value``, once per run for its name, its text and the
        very value: claims that compute a step alike (``step``) share it, which is frozen and a
        function of those alone."""
        key = ("step_result", step.name, step.text, id(value))
        known = self.stepped.get(key)
        if known is not None:  # its entry holds the value: no other object has its id
            shared: StepResult = known[2]
            return shared
        made = StepResult(name=step.name, expression=step.text, result=_quantity(value))
        if len(self.stepped) >= 65536:
            self.stepped.clear()
        self.stepped[key] = (None, (value,), made)
        return made

    def resolve(self, item: Input) -> units.Value:
        """An input's value, and its InputResult appended. A literal or source input is decided by its
        name, its text and its stated assumption (the ledger does not change during a run): records
        that write the same one share the value and the InputResult read first (both are immutable).
        What fails is not kept, so each record reports its own error."""
        if item.kind != "claim":
            key = (item.name, item.text, self.claim.assumptions.get(item.name))
            known = self.read.get(key)
            if known is None:
                before = len(self.inputs)
                value = self.resolve_new(item)
                if value is None or len(self.inputs) != before + 1:
                    return value
                known = self.read[key] = (value, self.inputs[-1])
            else:
                self.inputs.append(known[1])
            return known[0]
        return self.resolve_new(item)

    def resolve_new(self, item: Input) -> units.Value:
        claim = self.claim
        path = ("inputs", item.name)
        if item.kind == "literal":
            value = units.quantity(_given(item.value, "a literal input's number"), item.unit)
            self.inputs.append(InputResult(name=item.name, text=item.text, kind="literal", result=_quantity(value),
                                           assumption=claim.assumptions.get(item.name)))
            return value
        if item.kind == "source":
            return self.resolve_source(item, path)
        other = self.done.get(item.claim) if item.claim is not None else None
        if other is None:
            known = "a claim with an invalid record" if any(b.id == item.claim for b in self.ledger.bad_claims) else "no such claim"
            self.problem("error", f"claim:{item.claim}: {known}", *path)
            return None
        result, value = other
        self.inputs.append(InputResult(name=item.name, text=item.text, kind="claim", claim=item.claim,
                                       claim_status=result.status, result=result.result))
        if result.status == "error":
            self.problem("error", f"input claim {item.claim!r} has an error", *path)
            return None
        if result.status == "drift":
            self.status = "drift"
            self.problem("drift", f"input claim {item.claim!r} drifted: {result.reason}", *path)
        if value is None:
            self.status = self.status or "unchecked"
            self.messages.append(Message(kind="unchecked", text=f"input claim {item.claim!r} is unchecked"))
        return value

    def resolve_source(self, item: Input, path: tuple[str, str]) -> units.Value:
        source = self.ledger.sources.get(item.source) if item.source is not None else None
        key = _given(item.key, "a source input's key")
        if source is None:
            why = "its record is invalid" if item.source in self.ledger.bad_sources else "no such source in ledger/sources/"
            self.problem("error", f"unknown source {item.source!r} ({why})", *path)
            return None
        passage = None
        try:
            if item.dtype:  # dtype:src#key: the width of the dtype the source names, in bytes
                snapshot = self.ledger.snapshots.get(item.source)
                if snapshot is None:
                    raise LedgerError(f"source {item.source!r} has no snapshot to read {key!r} from")
                name = snapshot.lookup_text(key)
                magnitude, unit = bytes_per_value(name, f"{item.source}#{key}"), "B"
                passage = f"{key}: {name}"  # what was read, shown beside the 2 B
            elif key in source.values:
                declared = source.values[key]
                if item.unit and declared.unit:
                    raise LedgerError(f"{item.source}#{key} already has the unit {declared.unit}")
                magnitude, unit, passage = declared.value, declared.unit or item.unit, declared.passage
            elif key.startswith("safetensors.") and source.safetensors:
                # parameter counts refresh read from the official shards' headers
                magnitude, unit = _lookup_safetensors(source.safetensors, key), item.unit
            else:
                snapshot = self.ledger.snapshots.get(item.source)
                if snapshot is None:
                    raise LedgerError(f"source {item.source!r} has no snapshot to read {key!r} from")
                magnitude, unit = number_value(snapshot.lookup(key)), item.unit
            value = units.quantity(magnitude, unit)
        except LedgerError as exc:
            self.problem("error", str(exc), *path)
            return None
        self.inputs.append(InputResult(name=item.name, text=item.text, kind="source", source=item.source, key=key,
                                       grade=source.grade, passage=passage, result=_quantity(value),
                                       assumption=self.claim.assumptions.get(item.name)))
        return value

    def citations(self) -> tuple[Citation, ...]:
        out = []
        for index, ref in enumerate(self.claim.cites):
            source_id, pid = ref.split("#", 1)
            source = self.ledger.sources.get(source_id)
            if source is None or pid not in source.passages:
                what = "no such source" if source is None else f"source {source_id!r} has no passage {pid!r}"
                self.problem("error", f"cites {ref}: {what}", "cites", index)
                continue
            text = source.passages[pid]
            states = self.claim.figure is not None and dependence.states(text, read_figure(self.claim.figure).number)
            out.append(Citation(source=source_id, passage_id=pid, text=text, grade=source.grade, states=states))
        return tuple(out)

    def compare(self, value: units.Value, env: dict[str, units.Value]) -> tuple[ClaimResult, object]:
        claim = self.claim
        self.where = ("check",) if claim.check is not None else ("figure",)
        if claim.check is not None:
            return self.check(env, value)
        assert claim.figure is not None  # a record has exactly one of figure and check (models.Claim)
        try:
            outcome = self.compared(claim.figure, value)
        except LedgerError as exc:
            self.problem("error", f"{exc}", "figure")
            return self.finish("error", value), value
        self.comparison = outcome.comparison
        for m in outcome.messages:
            self.problem(m.kind, m.text, "figure")
        status = outcome.status
        if status == "drift" and claim.erratum is not None:
            status = self.erratum(claim.erratum, value)
        elif claim.erratum is not None:
            self.problem("note", "an erratum is recorded, but the figure holds as printed", "erratum")
        if self.status == "drift":
            status = "drift"
        return self.finish(status, value), value

    def compared(self, figure: str, value: units.Value) -> Outcome:
        """``compare_figure`` of the claim's figure and rules, once per run for the very value: claims
        that print one figure of a value computed once (``step``) share the outcome, which is frozen
        and a function of the figure's text, the rules and the value alone. What fails is not kept."""
        claim = self.claim
        key = ("compare_figure", figure, claim.round, claim.within, claim.bound, claim.reading, id(value))
        known = self.stepped.get(key)
        if known is not None:  # its entry holds the value: no other object has its id
            shared: Outcome = known[2]
            return shared
        outcome = compare_figure(figure, value, rounding=claim.round, within=claim.within, bound=claim.bound,
                                 reading=claim.reading)
        if len(self.stepped) >= 65536:
            self.stepped.clear()
        self.stepped[key] = (None, (value,), outcome)
        return outcome

    def erratum(self, erratum: Erratum, value: units.Value) -> str:
        acknowledged = erratum.recomputed
        self.where = ("erratum", "recomputed")
        try:
            outcome = compare_figure(acknowledged, value)
        except LedgerError as exc:
            self.problem("error", f"erratum.recomputed: {exc}", "erratum", "recomputed")
            return "error"
        if outcome.status == "verified":
            # acknowledged: the printed-vs-recomputed difference is the erratum's, not a drift
            self.messages = [replace(m, kind="note") if m.kind == "drift" else m for m in self.messages]
            printed = self.claim.figure or self.claim.check
            self.problem("erratum", f"wrong as printed ({printed}; recomputed {acknowledged}): "
                         f"{erratum.reason}", "erratum")
            return "erratum"
        self.problem("drift", f"the erratum acknowledged {acknowledged}, but the recomputed value is now "
                     f"{outcome.comparison.recomputed.display}", "erratum", "recomputed")
        return "drift"

    def check(self, env: dict[str, units.Value], value: units.Value) -> tuple[ClaimResult, object]:
        check, tree = self.claim.check, self.claim.check_tree
        assert check is not None and tree is not None  # models.Claim parses a check when it reads one
        try:
            ok = expr.evaluate(tree, env)
            sides = [expr.evaluate(expr.parse(part), env) for part in _sides(check)]
        except LedgerError as exc:
            self.problem("error", f"check: {exc}", "check")
            return self.finish("error", value), value
        shown = " vs ".join(_in_unit_of(sides[0], s).display for s in sides)
        if ok:
            self.messages.append(Message(kind="note", text=f"holds: {shown}"))
            status = "verified"
            if self.claim.erratum is not None:
                self.problem("note", "an erratum is recorded, but the relation holds as printed", "erratum")
        elif self.claim.erratum is not None and value is not None:
            # acknowledged: it stays an erratum only while the last step keeps the acknowledged value
            self.messages.append(Message(kind="note", text=f"the relation does not hold: {shown}"))
            status = self.erratum(self.claim.erratum, value)
        else:
            self.problem("drift", f"the relation does not hold: {shown}", "check")
            status = "drift"
        if self.status == "drift":
            status = "drift"
        return self.finish(status, value), value

    def finish(self, status: str, value: units.Value, reason: str | None = None) -> ClaimResult:
        claim = self.claim
        found = getattr(self, "dependence", None)
        if self.refused and status != "error":  # a measurement filed for it that measured something else
            status, reason = "error", None
        if found is not None and status in ("verified", "erratum") and not dependence.backed(found, claim.label):
            reason = dependence.why_unbacked(found, claim.label, self.cites)
            self.messages.append(Message(kind="unchecked", text=reason))
            status = "unchecked"
        if reason is None:
            reason = _reason(status, self.messages)
        if found is not None and found.basis == "restated" and claim.label == "derived":
            self.problem("note", "labelled derived, but its value is one source value restated: it is quoted",
                         "label")
        for name in found.unused if found is not None else ():
            self.problem("note", f"the value does not depend on {name} (the steps cancel it, never reach the "
                         "result, or hold it where doubling it does not move it, as ceil(48 / 128) is 1 for any "
                         "48 up to 128): it backs nothing here", "inputs", name)
        return ClaimResult(
            id=claim.id, group=claim.group, file=claim.file, line=claim.line, said=claim.said, label=claim.label,
            also_said=claim.also_said, about=claim.about, figure=claim.figure, check=claim.check, status=status, reason=reason,
            result=_quantity(value) if value is not None else None, comparison=getattr(self, "comparison", None),
            messages=tuple(self.messages), steps=tuple(self.steps), inputs=tuple(self.inputs),
            cites=getattr(self, "cites", ()), notes=claim.notes,
            erratum={"reason": claim.erratum.reason, "recomputed": claim.erratum.recomputed} if claim.erratum else None,
            uses=tuple(sorted({i.claim for i in claim.inputs if i.kind == "claim" and i.claim is not None})),
            basis=found.basis if found is not None and status != "error" else "none", dependence=found)


def _given(value: _T | None, what: str) -> _T:
    """A part models.Input always sets for its kind. Its absence is a bug: the ValueError becomes that
    claim's error (``_evaluate_contained``), and the rest of the run goes on."""
    if value is None:
        raise ValueError(f"{what} is missing")
    return value


def _lookup_safetensors(data: dict[str, Any], key: str) -> Fraction:
    node = data
    for part in key.split(".")[1:]:
        if not isinstance(node, dict) or part not in node:
            raise LedgerError(f"key {key!r} is not in the source's safetensors record")
        node = node[part]
    if isinstance(node, bool) or not isinstance(node, int):
        raise LedgerError(f"key {key!r} in the safetensors record is not a whole number")
    return Fraction(node)


def _reason(status: str, messages: list[Message]) -> str:
    wanted = {"verified": ("note", "ambiguous"), "erratum": ("erratum",), "drift": ("drift", "ambiguous"),
              "error": ("error",), "unchecked": ("unchecked",)}[status]
    for message in sorted(messages, key=lambda m: not m.key.startswith("erratum")):  # a moved erratum first
        if message.kind in wanted:
            return str(message.text)
    return {"verified": "recomputed and printed agree"}.get(status, "")


def _sides(check: str) -> list[str]:
    import ast

    tree = expr.parse(check, allow_compare=True).body
    if not isinstance(tree, ast.Compare):
        raise LedgerError(f"check: expected a comparison such as 'a > b + c', got {check!r}")
    return [ast.unparse(n) for n in (tree.left, *tree.comparators)]


def _in_unit_of(first: units.Value, value: units.Value) -> Quantity:
    """``value`` shown in the unit ``first`` is shown in, so both sides of a check read alike."""
    shown = _quantity(first)
    if shown.unit and units.is_quantity(value):
        magnitude = units.convert(value, shown.unit)
        return Quantity(value=magnitude, unit=shown.unit, display=f"{format_number(magnitude)} {shown.unit}")
    return _quantity(value)


def _quantity(value: units.Value) -> Quantity:
    """``value`` for display; once per distinct (magnitude, unit): a ledger shows the same inputs and
    steps in many claims, and the Quantity is frozen, so they share one object."""
    magnitude, unit = (value._magnitude, value._units) if units.is_quantity(value) else (value, None)
    # whole numbers as the key, not the Fraction, and the unit by identity: hashing and comparing a
    # Fraction or a pint unit is Python code (the unit is held beside the result, so its id stays its own)
    key = (magnitude.numerator, magnitude.denominator, id(unit)) if type(magnitude) is Fraction \
        else (magnitude, id(unit))
    known = _SHOWN.get(key)
    if known is not None and known[0] is unit:
        return known[1]
    magnitude, label = units.display_form(value)
    shown = Quantity(value=magnitude, unit=label, display=f"{format_number(magnitude)} {label}".strip())
    if len(_SHOWN) > 100_000:
        _SHOWN.clear()
    _SHOWN[key] = (unit, shown)
    return shown


_SHOWN: dict[tuple[Any, ...], tuple[Any, Quantity]] = {}
_READS: dict[int, tuple[Any, tuple[str, ...]]] = {}  # id of a step's tree -> (the tree, the names it reads, sorted)


def _failed(claim: Claim, status: str, text: str, *, key: str, path: tuple[str | int, ...] = ()) -> ClaimResult:
    message = Message(kind="error", text=text, file=claim.file, line=claim.line_of(*(path or (key,))), key=key)
    return ClaimResult(id=claim.id, group=claim.group, file=claim.file, line=claim.line, said=claim.said,
                       also_said=claim.also_said, about=claim.about, label=claim.label, figure=claim.figure, check=claim.check, status=status, reason=text,
                       messages=(message,))


def _with_links(result: ClaimResult, ledger: Ledger, sources: frozenset[str], used_by: list[str],
                measured: Sequence[Measurement]) -> ClaimResult:
    grades = [ledger.sources[s].grade for s in sources if s in ledger.sources]
    grade = max(grades, key=GRADES.index) if grades else None
    measurements: tuple[Beside, ...] = ()
    if measured and result.status == "error":  # one its evaluation refused is not shown beside it
        refused = {m.file for m in result.messages if m.kind == "error"}
        measured = [m for m in measured if f"{MEASUREMENTS_DIR}/{m.filename}" not in refused]
    if measured:
        from .measurements import beside  # no torch: the record and its comparison only

        measurements = tuple(beside(m, result) for m in measured)
    links: dict[str, Any] = {"used_by": tuple(used_by), "sources": tuple(sorted(sources)), "grade": grade,
             "measurements": measurements}
    held = result.__dict__
    if len(held) != _CLAIM_FIELDS:  # something beside the fields (none today): dataclasses' own way
        return replace(result, **links)
    # ``replace`` without building every field again through the frozen __init__ (a tenth of making
    # the report): the same fields, four of them new
    linked = object.__new__(ClaimResult)
    linked.__dict__.update(held)
    linked.__dict__.update(links)
    return linked


_CLAIM_FIELDS = len(fields(ClaimResult))


def _upstream_sources(done: _Done) -> dict[str, frozenset[str]]:
    """For each claim, the sources its inputs read and its cites quote, and those of every claim
    upstream of it.

    ``done`` is in dependency order, so each claim's set is its own sources joined with the finished
    sets of the claims it uses: every edge of the graph is looked at once. (Walking the whole upstream
    again for each claim made a chain of 5,000 claims take a minute and a half.)"""
    found: dict[str, frozenset[str]] = {}
    for claim_id, (result, _) in done.items():
        sources = {i.source for i in result.inputs if i.source} | {c.source for c in result.cites}
        for dep in result.uses:
            if dep in found:
                sources |= found[dep]
        found[claim_id] = frozenset(sources)
    return found


@frozen
class Cited:
    """What ``_sources`` reads of a claim to list who cites each source, where the claim's whole result
    is not at hand (``cacheshares``, ``coldshares``)."""

    id: str
    sources: frozenset[str]


def _sources(ledger: Ledger, claims: Sequence[Any]) -> list[SourceResult]:
    """Every source's result, with the claims resting on it (each claim: anything with an ``id``
    and ``sources``, a ClaimResult or what a warm run keeps of one)."""
    cited = defaultdict(set)
    for claim in claims:
        for source in claim.sources:
            cited[source].add(claim.id)
    out = []
    for source_id, source in ledger.sources.items():
        out.append(SourceResult(
            id=source_id, file=source.file, line=source.line, title=source.title, grade=source.grade, status="ok",
            publisher=source.publisher, date=source.date, url=source.url,
            hub={"repo": source.hub.repo, "file": source.hub.file, "revision": source.hub.revision} if source.hub else None,
            retrieved=dict(source.retrieved), snapshot=source.snapshot, sha256=source.sha256,
            passages=dict(source.passages),
            values={n: {"value": v.text, "passage": v.passage} for n, v in source.values.items()},
            notes=source.notes, cited_by=tuple(sorted(cited.get(source_id, ())))))
    for source_id, bad in ledger.bad_sources.items():
        out.append(SourceResult(id=source_id, file=bad.file, line=bad.problems[0].line if bad.problems else 0,
                                title=None, grade=None, status="error", cited_by=tuple(sorted(cited.get(source_id, ()))),
                                messages=tuple(Message(kind="error", text=p.message, file=p.file, line=p.line, key=p.key)
                                               for p in bad.problems)))
    return sorted(out, key=lambda s: s.id)


def verify(root: str | os.PathLike[str], *, jobs: int | None = None) -> Report:
    """Load the ledger at ``root`` and evaluate every claim: the library call behind ``workings verify``.
    ``jobs``: how many processes may read the claim records (``loader.load_ledger``)."""
    from .gcpause import paused
    from .loader import load_ledger

    # The run builds many small objects and few cycles; the cyclic collector rescanning the growing
    # heap made 10,000 claims take a third longer. What the run built is frozen at its end (gcpause).
    with paused():
        return evaluate_ledger(load_ledger(root, jobs=jobs), jobs=jobs)
