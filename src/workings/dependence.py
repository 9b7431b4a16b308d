"""What a claim's value is computed from: the inputs it really depends on, and its basis.

"verified" must mean recomputed from something sourced. Which keys a record has says nothing about
that: ``compute: {r: memory}`` over a literal ``memory: 999 GB`` has inputs and an assumption, and
``x + 0 * source_value`` names a source without using it. So dependence is decided by the value:

**Numeric sensitivity.** Every step is evaluated again with one input perturbed; the input is a
dependence when the result changes. The real run (``expr.evaluate``, with pint) has checked the units,
so these runs walk the same parsed steps over magnitudes in base units (bits, tokens, ...), exact
fractions with the engine's limits, at a few microseconds a run; a unit name stands for its size. Each
input the polynomial test (``_modular``) has not already shown to count is doubled (``2x + 1``, in the
input's own unit); it counts if that changes the result. A perturbed run that fails (division by zero,
a number too large) is tried again with the input at ``x + 1`` and ``3x + 2``; the input counts only if
a run that evaluates changes the result, so an error can never make a typed number "recomputed".

What it detects, soundly (these results do not change under any perturbation, so no input they
cancel can be counted): ``0 * x``, ``x * 0``, ``x ** 0``, ``x - x``, ``x / x``, ``(x + 1) - x``,
``x // x``, ``min(x, x) - x``, a step the result does not use, and every other way of writing a
value that does not move with the input. A piecewise result that doubling the input does not move
(``max(x, 999)``, ``min(x, 40) + 8`` and ``floor(x / 1000) + 555`` at ``x = 48``) does not count it: the
value there is the typed number, not the source's (until 3 Dec 2026 three more perturbations,
``x/1000 - 1``, ``1000x + 1`` and ``-x - 1``, were tried, and any of them moving such a result made a
typed 999 GB "recomputed" and verified). This errs towards ``unchecked``, never towards ``verified``.

**Basis.** From the inputs a value depends on:

- ``recomputed``: computed from sourced values (a source's value, a claim that rests on sources, a
  measurement) by steps that change them;
- ``restated``: the value *is* one sourced value (a config key, another claim's value, in any unit),
  or nothing sourced enters the steps but a cited passage states the figure;
- ``measured``: nothing sourced enters, but a probe measured the value on real allocations and agrees;
- ``assumptions-only``: it depends only on literals whose assumptions the record states (or on claims
  that do): verified only for an ``estimate`` or ``bound``, else ``unchecked``;
- ``typed-only``: it depends on no input at all, only on numbers typed into the steps: ``unchecked``;
- ``none``: nothing was recomputed (no compute, an error, an unchecked input).

A cited passage backs a figure only if it states it: the figure's number occurs in the passage, in
any of its printed forms (``196,608``, ``196608``, ``196 608``; ``1/4``; ``0.25`` for ``.25``).
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .frozen import frozen
from . import expr, units
from .errors import LedgerError
from .figures import round_step
from .report import BASES, _without_memos  # noqa: F401 - the one list, kept with the Report that carries it
SOURCED = ("recomputed", "restated", "measured")  # a claim of these bases is a sourced input for others
ASSUMED_LABELS = ("estimate", "bound")  # may rest on stated assumptions only and still be verified

# (multiply by, then add this many of the input's unit): the first decides whether an input counts,
# both whether a value restates it
_PERTURBATIONS = ((Fraction(2), Fraction(1)), (Fraction(1, 1000), Fraction(-1)))
# Where the doubled run fails ("0 / (layers - 97)" at 48 layers, a power past the limits), the input is
# moved to x + 1, then 3x + 2: a failure is no change (until 4 Dec 2026 it counted as one, so a typed
# 4,800 written "4800 + 0 / (layers - 97)" read as recomputed from the config and was verified).
_RETRIES = ((Fraction(1), Fraction(1)), (Fraction(3), Fraction(2)))


@frozen(kw_only=True)
class Dependence:
    """The inputs the value depends on, by kind, and the basis that follows."""

    basis: str
    sourced: tuple[str, ...] = ()  # inputs that are source values, sourced claims
    assumed: tuple[str, ...] = ()  # literals with an assumption, claims that rest on assumptions only
    unused: tuple[str, ...] = ()  # inputs the value does not depend on at all
    stating: tuple[str, ...] = ()  # cited passages (source#id) that state the figure

    def to_dict(self) -> dict:
        return {"basis": self.basis, "sourced": list(self.sourced), "assumed": list(self.assumed),
                "unused": list(self.unused), "stating": list(self.stating)}

    __getstate__ = _without_memos  # its JSON text (``jsonline.dependence``) is made again where needed


def depends_on(steps, env: dict, inputs, outputs) -> frozenset[str]:
    """The names among ``inputs`` that change the ``outputs`` when perturbed.

    ``steps`` are ``(name, tree)`` in order, ``env`` the inputs' values (pint quantities or numbers);
    ``outputs`` are step or input names, or parsed expressions over them (a check's sides). Only steps
    downstream of the perturbed input are evaluated again."""
    fast = {name: _magnitude(value) for name, value in env.items()}
    found = _modular(steps, fast, [n for n in inputs if n in fast], outputs)
    rest = [n for n in inputs if n in fast and n not in found]
    if not rest:
        return frozenset(found)
    base = _run(steps, fast, None)
    reference = _outputs(outputs, base)
    if reference is None:  # the recorded evaluation itself fails here: nothing to compare with
        return frozenset(inputs)
    scale, shift = _PERTURBATIONS[0]  # doubled: an input that moves the result only when multiplied by
    for name in rest:                   # 1,000 or negated does not decide the value where it is
        trial = _outputs(outputs, _run(steps, {**fast, name: fast[name] * scale + shift}, (name, base)))
        for again, more in _RETRIES if trial is None else ():  # the doubled run failed (a pole, a limit):
            trial = _outputs(outputs, _run(steps, {**fast, name: fast[name] * again + more}, (name, base)))
            if trial is not None:                              # decided by one that does not
                break
        if trial is not None and trial != reference:  # no run that evaluates moves it: it does not count
            found.add(name)
    return frozenset(found)


def held(known: dict, steps, env: dict, inputs: list, output: str) -> frozenset[str]:
    """``depends_on(steps, env, inputs, [output])``, worked out once per run for the very trees and
    values: it is a function of them alone (values are immutable; records share their step lines, one
    tree per text, and the values they read from one source or compute from the same ones: see
    ``engine._Evaluation.step``), so the claims that compute one model's figure from its config the
    same way ask it once. ``known`` is the run's memory, keyed by the trees' and values' ids; each
    entry holds those objects, so no id in its key can be another object's while it is there."""
    trees = tuple(tree for _, tree in steps)
    objects = trees + tuple(env.values())
    key = ("depends_on", output, tuple(name for name, _ in steps), tuple(env), tuple(inputs), *map(id, objects))
    got = known.get(key)
    if got is not None:  # its entry holds the objects of the ids in its key: no other object has them
        return got[2]
    found = depends_on(steps, env, inputs, [output])
    if len(known) >= 65536:
        known.clear()
    known[key] = (None, objects, found)
    return found


# A first pass modulo a prime, where every step is plain arithmetic (no calls, no //, constant
# exponents): evaluating modulo p is a ring homomorphism, so a result that differs modulo p differs
# exactly, and an input found that way is a dependence for certain, at a tenth of the cost of
# fractions. An input whose result does not differ modulo p (or whose run divides by a multiple of p)
# is decided by the exact runs below, so this pass can only save time, never change an answer.
_P = (1 << 61) - 1  # a Mersenne prime


def _modular(steps, fast: dict, inputs, outputs) -> set:
    if not all(_plain(o.body) for o in outputs if not isinstance(o, str)):
        return set()
    plan = _plan(steps)
    if plan is None:
        return set()
    last = outputs[0] if len(outputs) == 1 and isinstance(outputs[0], str) else None
    try:
        base = _ModValues({name: _mod(value) for name, value in fast.items()})
        for name, run in plan.compiled:
            base[name] = run(base)
        reference = base[last] if last is not None else _outputs_mod(outputs, base)
    except ZeroDivisionError:
        return set()
    found = set()
    for name in inputs:
        values = _ModValues(base)
        values[name] = (base[name] * 2 + 1) % _P
        try:
            for step, run in plan.reached(name):
                values[step] = run(values)
            if (values[last] if last is not None else _outputs_mod(outputs, values)) != reference:
                found.add(name)
        except ZeroDivisionError:
            continue  # decided exactly
    return found


class _Plan:
    """What the modular pass does with one claim's steps, worked out once for every claim that has
    the same steps (records share their step lines, ``models._step``): each step compiled, with the
    names it reads; and, per input, the steps that (through earlier steps) read it, in order: a
    trial starts from the base run's values and evaluates again only those, without building each
    trial's values from the inputs up."""

    def __init__(self, steps) -> None:
        self.trees = tuple(tree for _, tree in steps)  # held: their ids key the plan
        self.named = [(name, _compiled_mod(tree.body), expr.names(tree)) for name, tree in steps]
        self.compiled = [(name, run) for name, run, _ in self.named]
        self._reached: dict[str, tuple] = {}

    def reached(self, name: str) -> tuple:
        known = self._reached.get(name)
        if known is None:
            dirty, steps = {name}, []
            for step, run, reads in self.named:
                if not reads.isdisjoint(dirty):
                    steps.append((step, run))
                    dirty.add(step)
            known = self._reached[name] = tuple(steps)
        return known


def _plan(steps) -> _Plan | None:
    """The claim's steps' plan (None: a step that is not plain arithmetic, or that reads its own or a
    later step's name, which there is a unit or a failure: left to the exact runs)."""
    key = tuple((name, id(tree)) for name, tree in steps)
    known = _PLANS.get(key)
    if known is not None and all(map(operator.is_, known[0], (tree for _, tree in steps))):
        return known[1]
    plan: _Plan | None = None
    if all(_plain(tree.body) for _, tree in steps):
        plan = _Plan(steps)
        named = set()
        for name, _, reads in reversed(plan.named):
            named.add(name)
            if not reads.isdisjoint(named):
                plan = None
                break
    if len(_PLANS) >= 4096:
        _PLANS.clear()
    _PLANS[key] = (tuple(tree for _, tree in steps), plan)
    return plan


_PLANS: dict[tuple, tuple[tuple, _Plan | None]] = {}


def _plain(node) -> bool:
    cached = _PLAIN.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    ok = all(isinstance(n, (ast.Constant, ast.Name, ast.UnaryOp, ast.BinOp, ast.operator, ast.unaryop, ast.Load))
             and not isinstance(n, (ast.FloorDiv, ast.Mod, ast.BitAnd))
             and not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and not (
                 isinstance(n.right, ast.Constant) and isinstance(n.right.value, int)
                 or isinstance(n.right, ast.UnaryOp) and isinstance(n.right.operand, ast.Constant)
                 and isinstance(n.right.operand.value, int)))
             for n in ast.walk(node))
    if len(_PLAIN) > 100_000:
        _PLAIN.clear()
    _PLAIN[id(node)] = (node, ok)
    return ok


_PLAIN: dict = {}


def _mod(value: Fraction) -> int:
    denominator = value.denominator
    if denominator == 1:  # a whole number: no inverse to find
        return value.numerator % _P
    if denominator % _P == 0:
        raise ZeroDivisionError
    return value.numerator * pow(denominator, -1, _P) % _P


def _outputs_mod(outputs, values) -> tuple:
    return tuple(values[o] if isinstance(o, str) else _compiled_mod(o.body)(values) for o in outputs)


class _ModValues(dict):
    """The values of a modular run (ints, by name); a name that is none of them is a unit, whose size
    modulo ``_P`` is found on first use (as the exact runs read a unit's size)."""

    def __missing__(self, name: str) -> int:
        return _unit_mod(name)


@functools.cache
def _unit_mod(name: str) -> int:
    return _mod(_unit_size(name))


def _compiled_mod(node) -> Callable[[dict], int]:
    """``node`` compiled once into nested closures that compute it modulo ``_P`` over a dict of values.

    Steps are shared between records (``expr.parse_shared``) and each is evaluated once per input and
    perturbation: walking the tree with a chain of isinstance tests each time was a third of
    evaluating a claim. The closure does exactly what that walk did, in the same order, raising the
    same errors at the same points."""
    compiled = getattr(node, "workings_mod", None)
    if compiled is None:
        compiled = _compile_mod(node)
        setattr(node, "workings_mod", compiled)
    return compiled


def _compile_mod(node) -> Callable[[dict], int]:
    if isinstance(node, ast.Constant):
        def constant(values, node=node):
            return _mod(_constant(node))
        try:
            fixed = _mod(_constant(node))
        except (ZeroDivisionError, ValueError):
            return constant  # raised when evaluated, as the walk did
        return lambda values: fixed
    if isinstance(node, ast.Name):
        return operator.itemgetter(node.id)  # a C call; a unit's name is found by _ModValues.__missing__
    if isinstance(node, ast.UnaryOp):
        operand = _compile_mod(node.operand)
        if isinstance(node.op, ast.USub):
            return lambda values: (-operand(values)) % _P
        return operand
    left = _compile_mod(node.left)
    op = node.op
    if isinstance(op, ast.Pow):
        right_node = node.right

        def power(values):
            a = left(values)
            exponent = _whole_exponent(right_node)
            if exponent < 0 and a == 0:
                raise ZeroDivisionError
            return pow(a, exponent, _P)
        return power
    right = _compile_mod(node.right)
    if isinstance(op, ast.Add):
        return lambda values: (left(values) + right(values)) % _P
    if isinstance(op, ast.Sub):
        return lambda values: (left(values) - right(values)) % _P
    if isinstance(op, ast.Mult):
        return lambda values: left(values) * right(values) % _P

    def divide(values):  # ast.Div
        a = left(values)
        b = right(values)
        if b == 0:
            raise ZeroDivisionError
        return a * pow(b, -1, _P) % _P
    return divide


def restates(steps, env: dict, name: str, output, value=None) -> bool:
    """Whether ``output`` is the input ``name`` itself, in any unit: of its dimension (when ``value``,
    the output as evaluated, is given), equal to it at the recorded value and under two perturbations
    (``96 - x`` is 48 at ``x = 48``, but it is not x)."""
    if value is not None and units.is_quantity(env[name]) and units.is_quantity(value) \
            and not units.same_dimension(env[name], value):
        return False
    fast = {n: _magnitude(v) for n, v in env.items()}
    base = _run(steps, fast, None)
    if _outputs([output], base) != (fast[name],):
        return False
    for scale, shift in _PERTURBATIONS[:2]:
        moved = fast[name] * scale + shift
        if _outputs([output], _run(steps, {**fast, name: moved}, (name, base))) != (moved,):
            return False
    return True


# The perturbed runs evaluate magnitudes in base units (bit, token, ...) as exact fractions: the real
# run has already checked the units, and without pint each run costs a few microseconds. A unit name
# in a step stands for its size in base units (GiB: 8 × 2^30 bits).


def _magnitude(value) -> Fraction:
    if units.is_quantity(value):
        magnitude = value._magnitude
        if type(magnitude) is not Fraction:
            magnitude = Fraction(magnitude)
        container = value._units
        known = _SIZES.get(id(container))  # by identity first: pint's hash of a unit is Python code
        if known is not None and known[0] is container:
            size = known[1]
        else:
            size = _size(container)
            if len(_SIZES) >= 1024:
                _SIZES.clear()
            _SIZES[id(container)] = (container, size)  # held: its id stays its own while it is here
        return magnitude if size == 1 else magnitude * size
    return value if type(value) is Fraction else Fraction(value)


_SIZES: dict[int, tuple[Any, Fraction]] = {}


@functools.lru_cache(maxsize=1024)
def _size(container) -> Fraction:
    """The size of a unit (a pint UnitsContainer) in base units, once per unit."""
    return Fraction(units.registry().Quantity(1, container).to_base_units().magnitude)


@functools.cache
def _unit_size(name: str) -> Fraction:
    return Fraction(units.quantity(1, name).to_base_units().magnitude)


def _outputs(outputs, values):
    if values is None:
        return None
    try:
        return tuple(values[o] if isinstance(o, str) else _eval(o.body, values) for o in outputs)
    except (LedgerError, ArithmeticError, ValueError, TypeError, KeyError):
        return None


def _run(steps, env: dict, changed):
    """Every step's value over ``env``; with ``changed = (name, base)`` only steps that (through
    earlier steps) use ``name`` are evaluated again, the rest taken from ``base``. None on failure."""
    if changed is not None and changed[1] is None:
        return None
    values = dict(env)
    dirty = {changed[0]} if changed else None
    for name, tree in steps:
        if dirty is not None and not (expr.names(tree) & dirty):
            values[name] = changed[1][name]
            continue
        try:
            values[name] = _eval(tree.body, values)
        except (LedgerError, ArithmeticError, ValueError, TypeError, KeyError):
            return None
        if dirty is not None:
            dirty.add(name)
    return values


def _eval(node, values) -> Fraction:
    """The magnitude of a parsed (already validated) expression, in base units; the engine's limits."""
    if isinstance(node, ast.Constant):
        return _constant(node)
    if isinstance(node, ast.Name):
        return values[node.id] if node.id in values else _unit_size(node.id)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, values)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, values), _eval(node.right, values)
        if isinstance(node.op, ast.Pow):
            if b.denominator != 1 or abs(b) > expr.MAX_EXPONENT:
                raise ValueError("exponent")
            if max(abs(a.numerator), a.denominator).bit_length() * abs(int(b)) > expr.MAX_BITS:
                raise ValueError("too large")
            result = a ** int(b)
        else:
            result = _BINARY[type(node.op)](a, b)
        result = Fraction(result)
        if result.numerator.bit_length() > expr.MAX_BITS or result.denominator.bit_length() > expr.MAX_BITS:
            raise ValueError("too large")
        return result
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_eval(arg, values) for arg in node.args]
        return Fraction(_CALLS[node.func.id](*args))
    raise ValueError(f"{type(node).__name__} in a step")


def _round(x: Fraction) -> Fraction:
    return round_step(x, 1)  # half away from zero, the ledger's one rule


def _constant(node: ast.Constant) -> Fraction:
    """A number typed into a step (expr.parse allows ints and finite floats only)."""
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{value!r} in a step")
    return Fraction(value) if isinstance(value, int) else expr.exact(node, value)  # as written, not the float


def _whole_exponent(node: ast.expr) -> int:
    """The exponent of ``**`` on the modular path: a whole number, or one negated (see ``_plain``)."""
    sign = 1
    if isinstance(node, ast.UnaryOp):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool) or not isinstance(node.value, int):
        raise ValueError("exponent")
    return sign * node.value


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv}
_CALLS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "floor": math.floor, "ceil": math.ceil, "round": _round, "abs": abs}


def classify(*, label: str, kinds: dict, dependent: frozenset, restated, upstream: dict, cites=(),
             measured: bool = False) -> Dependence:
    """The basis of a value that depends on ``dependent`` among the inputs.

    ``kinds`` maps each input name to literal | source | claim; ``upstream`` maps a claim input's
    name to that claim's basis; ``restated(name)`` says whether the value is that input itself;
    ``cites`` are Citations."""
    sourced, assumed = [], []
    for name in sorted(dependent):
        kind = kinds.get(name)
        if kind == "source" or (kind == "claim" and upstream.get(name) in SOURCED):
            sourced.append(name)
        else:
            assumed.append(name)
    unused = tuple(sorted(set(kinds) - set(dependent)))
    stating = tuple(f"{c.source}#{c.passage_id}" for c in cites if getattr(c, "states", False))
    if sourced:
        basis = "recomputed"
        if len(sourced) == 1 and not assumed and restated(sourced[0]):
            # the value is that one value: a source's is restated; a claim's has that claim's basis
            basis = "restated" if kinds[sourced[0]] == "source" else upstream[sourced[0]]
    elif stating:
        basis = "restated"
    elif measured:
        basis = "measured"
    elif assumed:
        basis = "assumptions-only"
    else:
        basis = "typed-only"
    return Dependence(basis=basis, sourced=tuple(sourced), assumed=tuple(assumed), unused=unused, stating=stating)


def backed(dependence: Dependence, label: str | None) -> bool:
    """Whether a figure of this basis and label may be ``verified``."""
    if dependence.basis in SOURCED:
        return True
    return dependence.basis == "assumptions-only" and label in ASSUMED_LABELS


def why_unbacked(dependence: Dependence, label: str | None, cites=()) -> str:
    """Why a figure of this basis is ``unchecked``, in one sentence for the editor."""
    silent = [f"{c.source}#{c.passage_id}" for c in cites if not getattr(c, "states", False)]
    cited = (f"; {'the cited passage' if len(silent) == 1 else 'the cited passages'} {', '.join(silent)} "
             "not state the figure" if silent else "")
    cited = cited.replace(" not state", " does not state" if len(silent) == 1 else " do not state")
    if dependence.basis == "assumptions-only":
        return (f"nothing sourced backs it: its value rests only on assumptions ({', '.join(dependence.assumed)})"
                f"{cited}; a {label} figure needs a source, a claim or a measurement (only an estimate or a "
                "bound may rest on stated assumptions alone)")
    return ("nothing backs it: its value depends only on numbers written in the record"
            + (f", not on {', '.join(dependence.unused)} (doubling it does not move the value)"
               if dependence.unused else "") + cited
            + "; give it inputs with a source or a claim, or cite a passage that states the figure")


# A number as a passage prints it: digits with optional grouping, a decimal part or a fraction. Each
# part is optional, so the pattern also matches nothing wherever no number starts; the lookahead
# first skips, in C, every place where none can start (a number starts with a digit, "." or "/"),
# which was a Python iteration per character of every cited passage. The numbers found are the same.
_PASSAGE_NUMBER = re.compile(r"(?=[\d./])(?<![\d.,/])(?:\d{1,3}(?:[,\u202f\u2009\u00a0]\d{3})+|\d+)?(?:\.\d+)?(?:/\d+)?"
                             r"(?!\d|[.,/]\d)")


_DECIMAL_OR_RATIO = re.compile(r"\s*+[+-]?+\d*+(?:\.\d*+)?+\s*+(?:/\s*+[+-]?+\d++\s*+)?+")  # as Fraction reads it, no exponent


def states(passage: str | None, figure_number: str) -> bool:
    """Whether ``passage`` states the number ``figure_number`` (as printed in a figure), in any
    printed form: with or without thousands separators, and a fraction or a decimal of equal value."""
    if not passage:
        return False
    wanted = _value(figure_number)
    if wanted is None:
        return False
    for match in _PASSAGE_NUMBER.finditer(passage):
        text = match.group(0)
        if not text or not any(ch.isdigit() for ch in text):
            continue
        if text.endswith((".", ",")):
            continue
        if _value(text) == wanted:
            return True
    return False


def _value(text: str) -> Fraction | None:
    """The number a figure or a passage prints, exact; None for none. Digits, a point and a slash only:
    ``Fraction`` would also read "1e999999999" (building ten to that power: a record could stall the run)
    and "1_000", which no figure prints."""
    text = re.sub(r"[,\u202f\u2009\u00a0]", "", text.lstrip("+-−"))
    if not _DECIMAL_OR_RATIO.fullmatch(text):
        return None
    try:
        if "/" in text:
            num, den = text.split("/", 1)
            return Fraction(int(num), int(den)) if int(den) else None
        if text.isascii() and text.isdigit():  # most numbers: the same value, without parsing the text
            return Fraction(int(text))
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def analyse(claim, env: dict, values: dict, *, upstream: dict, cites=(), measurements=(), steps=(),
            known: dict | None = None) -> Dependence:
    """The dependence of ``claim``'s value (its last step, or the sides of its check) on its inputs.

    ``env`` holds the inputs' values (before the steps), ``values`` the inputs' and steps' values as
    evaluated, ``upstream`` each claim input's basis, ``measurements`` the ledger's measurements of
    this claim and ``steps`` its StepResults. ``known``: a run's memory of ``depends_on`` (``held``)."""
    pairs = [(step.name, step.tree) for step in claim.compute]
    inputs = {item.name: item.kind for item in claim.inputs}
    bases = {i.name: upstream.get(i.claim) for i in claim.inputs if i.kind == "claim"}
    measured = _measured(measurements, pairs, steps)
    if known is not None and pairs and claim.check_tree is None:  # its output: the last step
        # the whole answer, once per run for the very trees and values (as ``held``) and what
        # ``classify`` reads beside them: the inputs' kinds, the upstream bases, the citations
        # (which of them state the figure) and whether a measurement agrees
        trees = tuple(tree for _, tree in pairs)
        objects = trees + tuple(env.values())
        key = ("analyse", claim.label, claim.check is None, tuple(inputs.items()), tuple(bases.items()),
               tuple((c.source, c.passage_id, bool(getattr(c, "states", False))) for c in cites), measured,
               tuple(name for name, _ in pairs), tuple(env), *map(id, objects))
        got = known.get(key)
        if got is not None:  # its entry holds the objects of the ids in its key: no other object has them
            found: Dependence = got[2]
            return found
        found = _analysed(claim, pairs, env, values, inputs, bases, cites, measured,
                          held(known, pairs, env, list(inputs), pairs[-1][0]), [pairs[-1][0]])
        if len(known) >= 65536:
            known.clear()
        known[key] = (None, objects, found)
        return found
    if claim.check_tree is not None:
        outputs = [expr.parse(text) for text in check_sides(claim.check_tree)]
    else:
        outputs = [pairs[-1][0]] if pairs else []
    return _analysed(claim, pairs, env, values, inputs, bases, cites, measured,
                     depends_on(pairs, env, list(inputs), outputs), outputs)


def _analysed(claim, pairs, env: dict, values: dict, inputs: dict, bases: dict, cites, measured: bool,
              dependent: frozenset, outputs: list) -> Dependence:
    last = values.get(pairs[-1][0]) if pairs else None
    return classify(label=claim.label, kinds=inputs, dependent=dependent,
                    restated=lambda name: claim.check is None and restates(pairs, env, name, outputs[0], last),
                    upstream=bases, cites=cites, measured=measured)


def check_sides(tree) -> list[str]:
    """The sides of a parsed ``check:`` comparison, as text."""
    import ast

    body = tree.body
    return [ast.unparse(n) for n in (body.left, *body.comparators)]


def _measured(measurements, pairs, steps) -> bool:
    """A probe measured the claim's own result (an ``equal`` relation on its last step) and agrees."""
    if not measurements or not pairs:
        return False
    from types import SimpleNamespace

    from .measurements import beside  # no torch: the record and its comparison only

    partial = SimpleNamespace(steps=tuple(steps))  # as much of a ClaimResult as beside() reads
    return any(m.relation == "equal" and m.measures == pairs[-1][0] and beside(m, partial).holds  # type: ignore[arg-type]
               for m in measurements)
