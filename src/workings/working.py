"""A claim's whole working, expanded down to its leaves: one expression, numbers and units.

``expand(report, claim_id)`` takes the steps of a claim and writes every step name out as its
expression, every input claim as that claim's own working, until only leaves remain: a value read
from a source (a config key, a passage), a literal with its assumption, a claim that cannot be
expanded further (unchecked, or the expansion would grow too large), a number typed into a step, or
a unit (``token``). For the Qwen cache that is

    2 × 48 × 8 × 128 × 2 B ÷ token × 1,010,000 tokens = 198,574,080,000 B

Nothing here computes a result of its own: every leaf's value is the engine's (``InputResult``), and
the expanded expression is evaluated once more by the same restricted walker (``expr.evaluate``, one
operation at a time over the leaves' values) and held against the engine's result;
``Working.agrees`` says whether it came out the same, so a page never shows an expansion whose
numbers do not add up to the engine's. Plain frozen dataclasses: the HTML ledger formats them
(``render``), anything else may too.

An ``Expander`` builds the workings of one Report sharing what they share: an input claim's working
at a given depth is built, counted and evaluated once however many workings hold it (a chain of ten
claims holds its first claim's working in each of the nine after it), and each working numbers its
leaves where they first appear. The workings are the ones a claim-by-claim walk gives
(tests/test_working_line.py holds them to it).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import fields, replace
from fractions import Fraction

from .frozen import frozen
from . import expr, units
from .errors import LedgerError
from .report import ClaimResult, InputResult, Quantity, Report

MAX_LEAVES = 60  # beyond this, input claims stay leaves (linked), so a page stays readable
MAX_CLAIM_DEPTH = 12
# Operators as a reader writes them, and how tightly each binds (for parentheses).
SYMBOL = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "÷", ast.FloorDiv: "div", ast.Pow: "^"}
_COMPARE = {ast.Lt: "<", ast.LtE: "≤", ast.Gt: ">", ast.GtE: "≥", ast.Eq: "="}
_PRECEDENCE = {"<": 0, "≤": 0, ">": 0, "≥": 0, "=": 0, "+": 1, "−": 1, "×": 2, "÷": 2, "div": 2, "neg": 3, "^": 4, "leaf": 5, "call": 5}


@frozen(kw_only=True)
class Leaf:
    """A value the working rests on. ``kind``: source | literal | claim (an input of some claim,
    numbered in ``Working.leaves``), number (typed into a step) or unit (a unit name in a step)."""

    kind: str
    value: Quantity | None = None
    name: str = ""          # what it is called where it is used ("layers"), or the unit's name
    index: int = 0          # 1-based place in Working.leaves (0 in a tree, and for numbers and units)
    claim: str = ""         # the claim whose record holds this input
    input: str = ""         # the input's name in that record
    source: str | None = None
    key: str | None = None
    passage: str | None = None
    grade: str | None = None
    assumption: str | None = None
    upstream: str | None = None         # kind claim: the claim it names
    upstream_status: str | None = None


@frozen(kw_only=True)
class Node:
    """``op`` is a symbol from SYMBOL, "neg", "call" (``call`` names the function) or "leaf"."""

    op: str
    children: tuple[Node, ...] = ()
    leaf: Leaf | None = None
    call: str = ""
    claim: str = ""         # the claim whose own working this part is, where one was written out inline
    caption: str = ""       # a leaf: the name it is used by at the outermost place it is reached
    paren: bool = False     # written in parentheses where its parent uses it


@frozen(kw_only=True)
class Working:
    """``tree`` holds its leaves unnumbered (shared between workings); ``leaves`` numbers them."""

    claim: str
    tree: Node
    order: tuple[Leaf, ...]         # the leaves to number, in the order they first appear
    result: Quantity | None         # the engine's result (None for a relation: see ``holds``)
    claims: tuple[str, ...]         # the claims whose working was written out inside this one
    agrees: bool                    # the expansion, evaluated again, gives the engine's result
    complete: bool                  # every input claim was written out down to its own leaves
    holds: bool | None = None       # a relation (``check:``): whether it holds, as the engine found

    @functools.cached_property
    def leaves(self) -> tuple[Leaf, ...]:
        """The numbered leaves, in the order they first appear (``index`` from 1)."""
        return tuple(replace(leaf, index=number) for number, leaf in enumerate(self.order, start=1))

    @functools.cached_property
    def numbers(self) -> dict[tuple[str, str], int]:
        """Each numbered leaf's place in ``leaves``, by (claim, input): what a tree's leaf is numbered."""
        return {(leaf.claim, leaf.input): number for number, leaf in enumerate(self.order, start=1)}

    def text(self) -> str:
        """The expansion as one line of plain text (for tests and a terminal)."""
        if self.result is None:
            return f"{format_node(self.tree)}: {'holds' if self.holds else 'does not hold'}"
        return f"{format_node(self.tree)} = {self.result.display}"


_NODE_FIELDS = ("op", "children", "leaf", "call", "claim", "caption", "paren")
_LEAF_FIELDS = ("kind", "value", "name", "index", "claim", "input", "source", "key", "passage", "grade", "assumption",
                "upstream", "upstream_status")
if tuple(f.name for f in fields(Node)) != _NODE_FIELDS or tuple(f.name for f in fields(Leaf)) != _LEAF_FIELDS:
    raise RuntimeError("Node or Leaf gained a field: add it to _node and _leaf")  # pragma: no cover


def _node(op: str, children: tuple[Node, ...] = (), leaf: Leaf | None = None, call: str = "", claim: str = "",
          caption: str = "", paren: bool = False) -> Node:
    """``Node(...)``, the same object (its fields set in order, as ``__init__`` sets them), without the
    frozen dataclass's ``__init__``: one ``object.__setattr__`` call per field made each node cost
    about three times as much, and a site's workings make hundreds of thousands (the check above
    keeps this in step with Node's fields)."""
    node = _new(Node)
    node.__dict__.update(op=op, children=children, leaf=leaf, call=call, claim=claim, caption=caption, paren=paren)
    return node


def _leaf(kind: str, value: Quantity | None, name: str, claim: str, input: str, source: str | None, key: str | None,
          passage: str | None, grade: str | None, assumption: str | None, upstream: str | None,
          upstream_status: str | None) -> Leaf:
    """``Leaf(...)`` with ``index`` 0, built as ``_node`` builds a Node."""
    leaf = _new(Leaf)
    leaf.__dict__.update(kind=kind, value=value, name=name, index=0, claim=claim, input=input, source=source, key=key,
                         passage=passage, grade=grade, assumption=assumption, upstream=upstream,
                         upstream_status=upstream_status)
    return leaf


_new = object.__new__


class _TooLarge(Exception):
    pass


_FAILED = object()   # a part's value where the walker fails on it
_MISSING = object()  # a part's value not yet asked for


@frozen
class _Failed:
    """Why a claim's working could not be written out at some depth: too many leaves, or a
    LedgerError (``error``) met after ``counted`` leaves (a working holding it at an offset may
    reach too many leaves first, and then it is too large, as a leaf-by-leaf walk would find)."""

    error: LedgerError | None = None
    counted: int = 0


@frozen(eq=False)
class _Part:
    """An input claim's working written out with ``depth`` levels of claims below it: built once
    and shared by every working that holds it (its leaves unnumbered; each working numbers them)."""

    tree: Node              # as its own page shows it
    grouped: Node           # as a working holding it shows it: ``claim`` set, unless it is one leaf
    count: int              # leaf nodes, counted as MAX_LEAVES counts them
    reach: int              # the levels of claims written out below it
    keys: tuple[tuple[str, str], ...]       # its numbered leaves' keys in order of first appearance
    leaves: dict[tuple[str, str], Leaf]     # those leaves, unnumbered
    expanded: tuple[str, ...]
    complete: bool
    builder: _Builder | None  # what built it, until its value is found
    value: object = _MISSING  # the tree evaluated again by the walker (_FAILED where it fails), when asked


def expand(report: Report, claim_id: str) -> Working | None:
    """The whole working of a claim, or None where it has no steps or no result."""
    return Expander(report).working(claim_id)


class Expander:
    """Every claim's whole working from one Report, sharing the work claims share: an input claim's
    working at a given depth is built and evaluated once, however many workings hold it (a chain of
    ten claims writes the first one out ten times). The workings are exactly ``expand``'s."""

    def __init__(self, report: Report):
        self.report = report
        self._parts: dict[tuple[str, int], _Part | _Failed] = {}
        self._whole: dict[str, tuple[int, _Part]] = {}  # claim id -> (depth, a complete part at it)
        self._depths: dict[str, list[int]] = {}  # claim id -> the depths it has parts at
        # What evaluating workings again repeats, worked out once: the walker's value of an engine
        # value (by its identity), and of an operator over two values (by theirs). The engine shares a
        # value between the records holding it, so claims reading the same configs evaluate the same
        # products. The walker is a pure function of its arguments and nothing changes a value, so a
        # value kept here is the one evaluating gives; an entry holds its arguments, so an identity is
        # never taken for another's; each is cleared when it holds _KEPT entries.
        self.leaf_values: dict[int, tuple[Quantity, object]] = {}
        self.results: dict[tuple[str, int, int], tuple[object, object, object]] = {}

    def forget(self, claim_id: str) -> None:
        """Drop ``claim_id``'s parts (when no working still to be built holds them; asked again, they
        are built again, the same)."""
        for depth in self._depths.pop(claim_id, ()):
            self._parts.pop((claim_id, depth), None)
        self._whole.pop(claim_id, None)

    def working(self, claim_id: str) -> Working | None:
        claim = self.report.claim(claim_id)
        if claim is None or claim.status == "error" or (claim.check is None and (not claim.steps or claim.result is None)):
            return None
        for depth in (MAX_CLAIM_DEPTH, 1, 0):
            if claim.check is None:  # its working is the part any other working would hold
                part = self.part(claim, depth)
                if isinstance(part, _Failed):
                    if part.error is None:
                        continue
                    return None
                return Working(claim=claim.id, tree=part.tree, order=tuple(part.leaves[key] for key in part.keys),
                               result=claim.result, claims=part.expanded, agrees=_agrees(self.value(part), claim),
                               complete=part.complete)
            builder = _Builder(self, depth)
            try:
                tree = builder.top(claim)
            except _TooLarge:
                continue
            except LedgerError:
                return None
            # a relation: the engine says whether it holds in a note
            holds = any(m.kind == "note" and m.text.startswith("holds:") for m in claim.messages)
            value = builder.evaluate(tree)
            found = None if value is _FAILED else bool(value)
            return Working(claim=claim.id, tree=tree, order=tuple(builder.leaves[key] for key in dict.fromkeys(builder.keys)),
                           result=None, claims=tuple(builder.expanded), agrees=found is holds,
                           complete=builder.complete, holds=holds)
        return None

    def value(self, part: _Part) -> object:
        """A part's tree evaluated again (once: every working holding it uses the same value)."""
        if part.value is _MISSING:
            assert part.builder is not None  # kept until the value is found
            object.__setattr__(part, "value", part.builder.evaluate(part.tree))
            object.__setattr__(part, "builder", None)
        return part.value

    def part(self, claim: ClaimResult, depth: int) -> _Part | _Failed:
        """``claim``'s working with ``depth`` levels of input claims written out below it."""
        key = (claim.id, depth)
        found = self._parts.get(key)
        if found is not None:
            return found
        whole = self._whole.get(claim.id)
        if whole is not None and whole[0] <= depth:  # complete within fewer levels: more change nothing
            return whole[1]
        builder = _Builder(self, depth)
        try:
            tree = builder.claim(claim)
        except _TooLarge:
            found = _Failed()
        except LedgerError as exc:
            found = _Failed(error=exc, counted=builder.count)
        else:
            grouped = tree if tree.op == "leaf" else _copy(tree, claim=claim.id)
            found = _Part(tree=tree, grouped=grouped, count=builder.count, reach=builder.reach, keys=tuple(dict.fromkeys(builder.keys)),
                          leaves=builder.leaves, expanded=tuple(builder.expanded), complete=builder.complete,
                          builder=builder)
            if found.complete and claim.id not in self._whole:
                self._whole[claim.id] = (builder.reach, found)
        self._parts[key] = found
        self._depths.setdefault(claim.id, []).append(depth)
        return found


class _Builder:
    """One working (or one part of one), walked as a reader reads it: leaves counted and keyed in
    order; an input claim's own working is the Expander's shared part."""

    def __init__(self, expander: Expander, depth: int):
        self.expander, self.report, self.depth = expander, expander.report, depth
        self.leaves: dict[tuple[str, str], Leaf] = {}
        self.keys: list[tuple[str, str]] = []
        self.expanded: list[str] = []
        self.count = 0
        self.complete = True
        self.values: dict[int, _Part] = {}  # id(children) of each part held -> that part
        self.reach = 0  # the levels of claims written out below this one

    def top(self, claim: ClaimResult) -> Node:
        if claim.check is not None:
            steps = {s.name: s.expression for s in claim.steps}
            inputs = {i.name: i for i in claim.inputs}
            tree = expr.parse(claim.check, allow_compare=True)
            return self.node(tree.body, claim, steps, inputs, set())
        return self.claim(claim)

    def claim(self, claim: ClaimResult) -> Node:
        steps = {s.name: s.expression for s in claim.steps}
        inputs = {i.name: i for i in claim.inputs}
        return self.name(claim, claim.steps[-1].name, steps, inputs, set())

    def name(self, claim: ClaimResult, name: str, steps: dict[str, str], inputs: dict[str, InputResult],
             open_steps: set[str]) -> Node:
        if name in steps and name not in open_steps:
            tree = expr.parse_shared(steps[name])  # read only, shared with the engine's
            return self.node(tree.body, claim, steps, inputs, open_steps | {name})
        item = inputs.get(name)
        if item is not None:
            found = self.input(claim, item)
            if isinstance(found, Leaf):  # a value reached through this name is called so here
                return self.counted(_node("leaf", (), found, "", "", name))
            if found.op == "leaf":  # an input claim's working that is one value: called so here too
                return _node("leaf", (), found.leaf, "", "", name)
            return found
        unit = _UNITS.get(name)
        if unit is None:
            unit = _UNITS[name] = Node(op="leaf", leaf=Leaf(kind="unit", name=name))
        return self.counted(unit)

    def input(self, claim: ClaimResult, item: InputResult) -> Leaf | Node:
        """The input's leaf (numbered, not yet counted), or the input claim's part written out."""
        if item.kind == "claim":
            other = self.report.claim(item.claim) if item.claim else None
            if (other is not None and other.steps and other.result is not None and item.result is not None
                    and (other.result is item.result  # the engine hands the input its claim's own result
                         or (other.result.value == item.result.value and other.result.unit == item.result.unit))):
                if self.depth > 0:
                    return self.held(self.expander.part(other, self.depth - 1), other.id)
                self.complete = False
        key = (claim.id, item.name)
        leaf = self.leaves.get(key)
        if leaf is None:
            leaf = _leaf(item.kind, item.result, item.name, claim.id, item.name, item.source, item.key, item.passage,
                         item.grade, item.assumption, item.claim, item.claim_status)
            self.leaves[key] = leaf
        self.keys.append(key)
        return leaf

    def held(self, part: _Part | _Failed, claim_id: str) -> Node:
        """An input claim's shared working, as if its leaves had been walked here one by one."""
        if isinstance(part, _Failed):
            if part.error is None or self.count + part.counted > MAX_LEAVES:
                raise _TooLarge
            raise part.error
        self.expanded.append(claim_id)
        self.reach = max(self.reach, part.reach + 1)
        self.count += part.count
        if self.count > MAX_LEAVES:
            raise _TooLarge
        self.expanded.extend(part.expanded)
        self.keys.extend(part.keys)
        for key in part.keys:
            self.leaves.setdefault(key, part.leaves[key])
        self.complete = self.complete and part.complete
        if part.grouped.op != "leaf":  # a leaf is evaluated as itself (and captioned anew where it is used)
            self.values[id(part.grouped.children)] = part
        return part.grouped

    def counted(self, node: Node) -> Node:
        """A leaf node, counted: a working of more than MAX_LEAVES leaves is too large."""
        self.count += 1
        if self.count > MAX_LEAVES:
            raise _TooLarge
        return node

    def node(self, node: ast.AST, claim: ClaimResult, steps: dict[str, str], inputs: dict[str, InputResult],
             open_steps: set[str]) -> Node:
        kind = node.__class__  # the parser's own classes: a step's tree is parse()'s, never a subclass
        if kind is ast.Name:
            return self.name(claim, node.id, steps, inputs, open_steps)  # type: ignore[attr-defined]
        if kind is ast.BinOp:
            left = self.node(node.left, claim, steps, inputs, open_steps)  # type: ignore[attr-defined]
            right = self.node(node.right, claim, steps, inputs, open_steps)  # type: ignore[attr-defined]
            return _parent(SYMBOL[type(node.op)], (left, right))  # type: ignore[attr-defined]
        if kind is ast.Constant:
            number = getattr(node, "workings_number", None)  # steps' trees are shared: found once a tree
            if number is None:
                value = node.value  # type: ignore[attr-defined]
                exact = Fraction(value) if isinstance(value, int) else expr.exact(node, value)  # as written
                key = (type(value), str(value), exact)  # "1.00000000000000001" prints as the float 1.0 does
                number = _NUMBERS.get(key)
                if number is None:  # parse lets only an int or a float through
                    number = _NUMBERS[key] = Node(op="leaf", leaf=Leaf(kind="number", value=Quantity(
                        value=exact, unit="", display=str(value))))
                setattr(node, "workings_number", number)
            return self.counted(number)
        if isinstance(node, ast.UnaryOp):
            inner = self.node(node.operand, claim, steps, inputs, open_steps)
            return inner if isinstance(node.op, ast.UAdd) else _parent("neg", (inner,))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return _node("call", tuple(self.node(a, claim, steps, inputs, open_steps) for a in node.args), None,
                         node.func.id)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left = self.node(node.left, claim, steps, inputs, open_steps)
            right = self.node(node.comparators[0], claim, steps, inputs, open_steps)
            return _parent(_COMPARE[type(node.ops[0])], (left, right))
        raise LedgerError(f"cannot expand {type(node).__name__}")  # pragma: no cover - parse refuses it

    def evaluate(self, node: Node) -> object:
        """The tree evaluated again by the restricted walker, one operation at a time over the leaves'
        own values, an input claim's part by the value found for it once (``_FAILED`` where the
        walker fails: the same cases as evaluating the whole written-out expression at once)."""
        try:
            return self._value(node)
        except (LedgerError, ArithmeticError, ValueError, TypeError):
            return _FAILED

    def _value(self, node: Node) -> object:
        if node.claim:  # an input claim's part (or its copy in parentheses: the same children)
            part = self.values.get(id(node.children))
            if part is not None:
                held = self.expander.value(part)
                if held is _FAILED:
                    raise LedgerError("an input claim's working does not evaluate")
                return held
        if node.op == "leaf":
            leaf = node.leaf
            if leaf is None:
                raise LedgerError("a leaf node without its leaf")
            if leaf.kind == "unit":
                return expr.evaluate(_operation("unit", leaf.name), {})
            value = leaf.value
            if value is None:
                raise LedgerError("a leaf has no value")
            if not value.unit:
                return value.value
            kept = self.expander.leaf_values  # the engine shares a value between the records holding it
            found = kept.get(id(value))
            if found is None or found[0] is not value:
                if len(kept) >= _KEPT:
                    kept.clear()
                found = kept[id(value)] = (value, units.quantity(value.value, value.unit))
            return found[1]
        children = node.children
        if len(children) == 2 and node.op != "call":  # most of a working: an operator over two parts
            a, b = self._value(children[0]), self._value(children[1])
            key = (node.op, id(a), id(b))
            results = self.expander.results
            done = results.get(key)
            if done is not None and done[0] is a and done[1] is b:
                return done[2]
            shape = _OPERATIONS.get((node.op, "", 0)) or _operation(node.op)
            result = expr.evaluate(shape, {"_0": a, "_1": b})
            if len(results) >= _KEPT:
                results.clear()
            results[key] = (a, b, result)
            return result
        values = [self._value(c) for c in children]
        if node.op == "call":
            shape = _operation("call", node.call, len(values))
        else:
            shape = _operation(node.op)
        return expr.evaluate(shape, dict(zip(_ARGUMENTS, values)))


_OPERATIONS: dict[tuple[str, str, int], ast.Expression] = {}
_KEPT = 1 << 14  # entries of an Expander's leaf_values and results, before they are cleared
_ARGUMENTS = tuple(f"_{i}" for i in range(expr.ARITY["max"][1]))
_UNITS: dict[str, Node] = {}  # a unit's leaf node (the same in every working)
_NUMBERS: dict[tuple[type, str, Fraction], Node] = {}  # a number's leaf node, by how the step writes it


def _operation(op: str, name: str = "", arity: int = 0) -> ast.Expression:
    """One operation of a written-out working as the walker's own tree over the names ``_0``,
    ``_1``... (built once: the walker compiles and keeps each)."""
    key = (op, name, arity)
    found = _OPERATIONS.get(key)
    if found is None:
        def arg(i: int) -> ast.expr:
            return ast.Name(id=f"_{i}", ctx=ast.Load())

        if op == "unit":
            body: ast.expr = ast.Name(id=name, ctx=ast.Load())
        elif op == "neg":
            body = ast.UnaryOp(op=ast.USub(), operand=arg(0))
        elif op == "call":
            body = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[arg(i) for i in range(arity)], keywords=[])
        elif op in _COMPARE.values():
            compare = next(k for k, v in _COMPARE.items() if v == op)
            body = ast.Compare(left=arg(0), ops=[compare()], comparators=[arg(1)])
        else:
            binop = next(k for k, v in SYMBOL.items() if v == op)
            body = ast.BinOp(left=arg(0), op=binop(), right=arg(1))
        found = _OPERATIONS[key] = ast.Expression(body=body)
    return found


def _parent(op: str, children: tuple[Node, ...]) -> Node:
    """The node ``op`` over ``children``, marking the children that need parentheses: a looser
    operator inside a tighter one, the right side of − ÷ div at the same level, anything but a plain
    value around ^, and another claim's working (a group)."""
    mine = _PRECEDENCE[op]
    if len(children) == 2 and op != "^":  # most parents: as the loop below decides it, for two children
        left, right = children
        theirs = _PRECEDENCE[left.op]
        paren = theirs < mine or (bool(left.claim) and left.op != "leaf" and left.op != "call")
        if left.paren != paren:
            left = _copy(left, paren=paren)
        theirs = _PRECEDENCE[right.op]
        paren = (theirs < mine or (theirs == mine and op in ("−", "÷", "div"))
                 or (bool(right.claim) and right.op != "leaf" and right.op != "call"))
        if right.paren != paren:
            right = _copy(right, paren=paren)
        return _node(op, (left, right))
    marked = []
    for place, child in enumerate(children):
        theirs = _PRECEDENCE[child.op]
        paren = (theirs < mine
                 or (theirs == mine and place == 1 and op in ("−", "÷", "div"))
                 or (op == "^" and child.op not in ("leaf", "call"))
                 or (bool(child.claim) and child.op not in ("leaf", "call")))  # another claim's working, as a group
        marked.append(child if child.paren == paren else _copy(child, paren=paren))
    return _node(op, tuple(marked))


def _copy(node: Node, *, children: tuple[Node, ...] | None = None, claim: str | None = None,
          paren: bool | None = None) -> Node:
    """``replace(node, ...)`` without dataclasses' per-call field walk (a page's working makes tens
    of thousands of nodes)."""
    return _node(node.op, node.children if children is None else children, node.leaf, node.call,
                 node.claim if claim is None else claim, node.caption, node.paren if paren is None else paren)


def _agrees(value: object, claim: ClaimResult) -> bool:
    """Whether the written-out working's value is the engine's result, in the result's unit."""
    if claim.result is None or value is _FAILED:
        return False
    try:
        return units.convert(value, claim.result.unit) == claim.result.value
    except (LedgerError, ArithmeticError, ValueError, TypeError):
        return False


def _shown(leaf: Leaf) -> str:
    return leaf.value.display if leaf.value else leaf.name


def format_node(node: Node, shown: Callable[[Leaf], str] = _shown) -> str:
    """Plain text of an expansion (the page lays the same tree out with links)."""
    if node.op == "leaf" and node.leaf is not None:
        text = shown(node.leaf) if node.leaf.kind != "unit" else node.leaf.name
    elif node.op == "neg":
        text = "−" + format_node(node.children[0], shown)
    elif node.op == "call":
        text = f"{node.call}({', '.join(format_node(c, shown) for c in node.children)})"
    else:
        text = f" {node.op} ".join(format_node(c, shown) for c in node.children)
    return f"({text})" if node.paren else text
