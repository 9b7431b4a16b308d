"""A restricted evaluator for the arithmetic in claim steps.

Steps are parsed with ``ast`` and walked here; nothing is ever passed to ``eval``. The walker
accepts numbers, names, ``+ - * / // **``, unary signs, comparisons (for ``check:``) and calls to
a short allow-list. Everything else is refused with the construct named. Limits keep a hostile
record from hanging the run: source length, nesting depth, exponent size and the size of every
intermediate number.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import unicodedata
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any
from fractions import Fraction

from . import quick, units
from .errors import ExpressionError, UnitError
from .figures import round_step

MAX_SOURCE = 1000
MAX_DEPTH = 50
MAX_EXPONENT = 64
MAX_BITS = 4096

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Eq: operator.eq}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Pow: "**"}


def _floor(x):
    return _apply_whole(x, math.floor)


def _ceil(x):
    return _apply_whole(x, math.ceil)


def _round(x):
    return _apply_whole(x, lambda m: round_step(m, 1))  # half away from zero, as figures round


def _apply_whole(x, fn):
    if units.is_quantity(x):
        # round in the reduced unit: floor(GiB*token/B) must round a count of tokens
        x = x.to_reduced_units()
        return units.registry().Quantity(Fraction(fn(Fraction(x.magnitude))), x.units)
    return Fraction(fn(Fraction(x)))


CALLS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "floor": _floor, "ceil": _ceil, "round": _round, "abs": abs}
# How many arguments each call takes: (fewest, most)
ARITY = {"min": (2, 16), "max": (2, 16), "floor": (1, 1), "ceil": (1, 1), "round": (1, 1), "abs": (1, 1)}
MAX_UNIT_POWER = units.MAX_UNIT_POWER  # the same cap as unit text in records


def parse(source: str, *, allow_compare: bool = False) -> ast.Expression:
    """Parse one step; raise ExpressionError for anything the walker would not accept."""
    if not isinstance(source, str):
        raise ExpressionError(f"expected an arithmetic expression as text; got {type(source).__name__}")
    if len(source) > MAX_SOURCE:
        raise ExpressionError(f"expression is longer than {MAX_SOURCE} characters")
    text = source.strip().replace("×", "*").replace("÷", "/").replace("−", "-")
    if not text:
        raise ExpressionError("empty expression")
    other = next((ch for ch in text if ch.isalnum() and not ch.isascii()), None)
    if other is not None:  # Python would read 'x１' as the name x1 and refuses '٤٨': say why, at once
        raise ExpressionError(f"{other!r} ({unicodedata.name(other, 'a character')}) is not an ASCII letter or digit: "
                              "names and numbers in steps are written in ASCII")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ExpressionError(f"not an arithmetic expression: {source!r}") from exc
    found: set[str] = set()
    _check(tree.body, allow_compare, 0, found)
    _exact_decimals(tree, text)
    # collected while checking: no second walk of the tree (names() reads it back)
    setattr(tree, "workings_names", frozenset(found))
    return tree


def _exact_decimals(tree: ast.Expression, text: str) -> None:
    """Each decimal literal's exact value, read from its digits as written ("1.00000000000000001",
    "123456789012345678901.0", "1e-30"), not from the binary float Python parsed it to; one finer than
    1e-100 is refused as one past 1e100 is (a float would have made "1e-400" zero)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            written = ast.get_source_segment(text, node) or repr(node.value)
            try:
                digits = Decimal(written)
            except ArithmeticError:  # decimal.InvalidOperation: not digits as Decimal reads them
                digits = Decimal(repr(node.value))
            if digits and not -100 <= digits.adjusted() <= 100:
                raise ExpressionError(f"the number {written} is out of range (between 1e-100 and 1e100)")
            setattr(node, "workings_exact", Fraction(digits))


@functools.lru_cache(maxsize=16384)
def parse_shared(source: str) -> ast.Expression:
    """``parse(source)`` once per distinct text: a ledger writes the same steps (``hidden / heads``)
    in thousands of records, and each parsed tree held ~6 KB. The tree is shared between records,
    so nothing may change it after parsing (the evaluator only reads it). Errors are not cached."""
    return parse(source)


def names(tree: ast.Expression) -> frozenset[str]:
    """The names an expression uses (inputs, steps and units alike)."""
    found = getattr(tree, "workings_names", None)
    if found is None:
        found = frozenset(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))
    return found


def _check(node: ast.AST, allow_compare: bool, depth: int, found: set) -> None:
    if depth > MAX_DEPTH:
        raise ExpressionError(f"expression is nested deeper than {MAX_DEPTH} levels")
    match node:
        case ast.Constant(value=value):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ExpressionError(f"only numbers are allowed, not {value!r}")
            if isinstance(value, float) and not math.isfinite(value) or abs(value) > 10**100:
                raise ExpressionError(f"the number {source_text(node)} is out of range (at most 1e100)")
        case ast.Name():
            if node.id.startswith("_"):
                raise ExpressionError(f"name {node.id!r} is not allowed")
            found.add(node.id)
        case ast.BinOp(left=left, op=op, right=right):
            if type(op) not in _BINARY:
                raise ExpressionError(f"operator {type(op).__name__} is not allowed")
            _check(left, allow_compare, depth + 1, found)
            _check(right, allow_compare, depth + 1, found)
        case ast.UnaryOp(op=op, operand=operand):
            if not isinstance(op, (ast.UAdd, ast.USub)):
                raise ExpressionError(f"operator {type(op).__name__} is not allowed")
            _check(operand, allow_compare, depth + 1, found)
        case ast.Call(func=func, args=args, keywords=keywords):
            if not isinstance(func, ast.Name) or func.id not in CALLS:
                raise ExpressionError(f"only these calls are allowed: {', '.join(sorted(CALLS))}")
            fewest, most = ARITY[func.id]
            if keywords or any(isinstance(a, ast.Starred) for a in args):
                raise ExpressionError(f"{func.id}() takes plain arguments")
            if not fewest <= len(args) <= most:
                wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
                raise ExpressionError(f"{func.id}() takes {wanted} argument{'s' if most > 1 else ''}, got {len(args)}")
            for arg in args:
                _check(arg, allow_compare, depth + 1, found)
        case ast.Compare(left=left, ops=ops, comparators=comparators):
            if not allow_compare:
                raise ExpressionError("comparisons belong in check:, not in a step")
            if any(type(op) not in _COMPARE for op in ops):
                raise ExpressionError("only <, <=, >, >= and == comparisons are allowed")
            for sub in (left, *comparators):
                _check(sub, False, depth + 1, found)
        case _:
            raise ExpressionError(f"{type(node).__name__} is not allowed in an expression")


def evaluate(tree: ast.Expression, env: Mapping[str, object]):
    """Evaluate a parsed expression over ``env`` (names to quantities or Fractions).

    Names not in ``env`` are looked up as unit names (``token``, ``GiB``)."""
    try:
        return _compiled(tree.body)(env)
    except units.pint.errors.DimensionalityError as exc:
        raise UnitError(f"units do not agree: {_dims(exc)}") from exc
    except ZeroDivisionError as exc:
        raise ExpressionError("division by zero") from exc
    except (OverflowError, MemoryError, RecursionError) as exc:
        raise ExpressionError("the numbers grow too large") from exc


def exact(node: ast.AST, value: object) -> Fraction:
    """A float literal's exact value as written (``_exact_decimals``), for every reader of a step."""
    written = getattr(node, "workings_exact", None)
    return written if written is not None else Fraction(str(value))


def _dims(exc: units.pint.errors.DimensionalityError) -> str:
    return (f"{units.describe_dimension(exc.dim1)} and {units.describe_dimension(exc.dim2)}"
            if exc.dim1 or exc.dim2 else f"{exc.units1} and {exc.units2}")


def _eval(node: ast.AST, env: Mapping[str, object]):
    match node:
        case ast.Constant(value=value):  # _check: int or float; a float's exact value was read from its digits
            return Fraction(value) if isinstance(value, int) else exact(node, value)
        case ast.Name(id=name):
            if name in env:
                return env[name]
            try:
                return units.quantity(1, name)
            except UnitError:
                raise ExpressionError(f"unknown name {name!r}: not an input, an earlier step or a unit") from None
        case ast.UnaryOp(op=op, operand=operand):
            value = _eval(operand, env)
            return -value if isinstance(op, ast.USub) else value
        case ast.BinOp(left=left, op=op, right=right):
            a, b = _eval(left, env), _eval(right, env)
            if isinstance(op, ast.Pow):
                return _bounded(_power(a, b))
            if isinstance(op, (ast.Add, ast.Sub)) and units.is_quantity(a) != units.is_quantity(b):
                a, b = _as_quantity(a), _as_quantity(b)
            return _bounded(quick.binary(type(op), a, b))  # pint's result, without pint's overhead
        case ast.Call(func=ast.Name(id=name), args=args):
            return CALLS[name](*(_eval(arg, env) for arg in args))
        case ast.Compare(left=left, ops=ops, comparators=comparators):
            values = [_eval(left, env), *(_eval(c, env) for c in comparators)]
            for cmp, a, b in zip(ops, values, values[1:]):
                a, b = _as_quantity(a), _as_quantity(b)
                if not units.same_dimension(a, b):
                    raise UnitError(f"cannot compare {units.describe_dimension(a.dimensionality)} "
                                    f"with {units.describe_dimension(b.dimensionality)}")
                if not _COMPARE[type(cmp)](a, b):
                    return False
            return True
    raise ExpressionError(f"{type(node).__name__} is not allowed in an expression")  # pragma: no cover


def _compiled(node: ast.AST) -> Callable[[Mapping[str, object]], Any]:
    """``node`` compiled once into nested closures that do what ``_eval`` does, in the same order,
    raising the same errors at the same points (nothing is raised while compiling: what ``_eval``
    would refuse is refused when the closure runs). Steps are shared between records
    (``parse_shared``), so each is compiled once and the match over node types is not paid again for
    every claim."""
    compiled = getattr(node, "workings_eval", None)
    if compiled is None:
        compiled = _compile(node)
        setattr(node, "workings_eval", compiled)
    return compiled


def _compile(node: ast.AST) -> Callable[[Mapping[str, object]], Any]:
    def walk(env: Mapping[str, object]):  # anything not compiled below: evaluated as before
        return _eval(node, env)

    if isinstance(node, ast.Constant):
        try:
            fixed = _eval(node, {})
        except Exception:  # noqa: BLE001 - raised again when evaluated, where _eval raised it
            return walk
        return lambda env: fixed
    if isinstance(node, ast.Name):
        name = node.id

        def lookup(env: Mapping[str, object]):
            return env[name] if name in env else _unit(name)
        return lookup
    if isinstance(node, ast.UnaryOp):
        operand = _compile(node.operand)
        if isinstance(node.op, ast.USub):
            return lambda env: -operand(env)
        return operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right, op = _compile(node.left), _compile(node.right), type(node.op)
        if op is ast.Pow:
            return lambda env: _bounded(_power(left(env), right(env)))
        if op is ast.Add or op is ast.Sub:
            def add(env: Mapping[str, object]):
                a, b = left(env), right(env)
                if units.is_quantity(a) != units.is_quantity(b):
                    a, b = _as_quantity(a), _as_quantity(b)
                return _bounded(quick.binary(op, a, b))
            return add
        return lambda env: _bounded(quick.binary(op, left(env), right(env)))
    return walk


def _unit(name: str):
    try:
        return units.quantity(1, name)
    except UnitError:
        raise ExpressionError(f"unknown name {name!r}: not an input, an earlier step or a unit") from None


def _as_quantity(value):
    return value if units.is_quantity(value) else units.dimensionless(value)


def _power(base, exponent):
    if units.is_quantity(exponent):
        if not exponent.dimensionless:
            raise UnitError("an exponent must be a pure number")
        exponent = Fraction(exponent.to(units.registry().dimensionless).magnitude)
    if Fraction(exponent).denominator != 1 or abs(exponent) > MAX_EXPONENT:
        raise ExpressionError(f"exponents must be whole numbers between -{MAX_EXPONENT} and {MAX_EXPONENT}")
    magnitude = Fraction(base.magnitude) if units.is_quantity(base) else Fraction(base)
    if magnitude == 0 and exponent < 0:
        raise ZeroDivisionError
    if max(abs(magnitude.numerator), magnitude.denominator).bit_length() * abs(int(exponent)) > MAX_BITS:
        raise ExpressionError(f"the numbers grow beyond {MAX_BITS} bits")
    return base ** int(exponent)


def source_text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - only used in a message
        return "?"


def _bounded(value):
    if units.is_quantity(value):
        container = value._units
        if _BOUNDED.get(id(container)) is not container:  # pint's hash of a container is Python code
            if not _powers_bounded(container):
                raise ExpressionError(f"a unit is raised beyond the power {MAX_UNIT_POWER}")
            if len(_BOUNDED) >= 4096:
                _BOUNDED.clear()
            _BOUNDED[id(container)] = container  # held: its id stays its own while it is here
        magnitude = value._magnitude
    else:
        magnitude = value
    if type(magnitude) is not Fraction:
        magnitude = Fraction(magnitude)
    if magnitude.numerator.bit_length() > MAX_BITS or magnitude.denominator.bit_length() > MAX_BITS:
        raise ExpressionError(f"the numbers grow beyond {MAX_BITS} bits")
    return value


@functools.lru_cache(maxsize=4096)
def _powers_bounded(container) -> bool:
    """Whether every power of a unit (a pint UnitsContainer) is within MAX_UNIT_POWER; once per unit."""
    return all(abs(p) <= MAX_UNIT_POWER for p in container.values())


_BOUNDED: dict[int, object] = {}  # id -> a container found within bounds, by identity
