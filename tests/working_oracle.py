"""The tests' oracle: how ``workings.working`` expanded a claim's whole working before workings shared
their parts (``Expander``), kept as it was then: each claim built on its own, leaf by leaf, with a
first try at full depth, then the whole written-out expression evaluated again by the walker.
tests/test_working_line.py holds the shared expansion to it, claim by claim.

The original description follows.

A claim's whole working, expanded down to its leaves: one expression, numbers and units.

``expand(report, claim_id)`` takes the steps of a claim and writes every step name out as its
expression, every input claim as that claim's own working, until only leaves remain: a value read
from a source (a config key, a passage), a literal with its assumption, a claim that cannot be
expanded further (unchecked, or the expansion would grow too large), a number typed into a step, or
a unit (``token``). For the Qwen cache that is

    2 × 48 × 8 × 128 × 2 B ÷ token × 1,010,000 tokens = 198,574,080,000 B

Nothing here computes a result of its own: every leaf's value is the engine's (``InputResult``), and
the expanded expression is evaluated once more by the same restricted walker (``expr.evaluate``) and
held against the engine's result; ``Working.agrees`` says whether it came out the same, so a page
never shows an expansion whose numbers do not add up to the engine's. Plain frozen dataclasses: the
HTML ledger formats them (``render``), anything else may too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from workings import expr, units
from workings.errors import LedgerError
from workings.report import ClaimResult, InputResult, Quantity, Report

MAX_LEAVES = 60  # beyond this, input claims stay leaves (linked), so a page stays readable
MAX_CLAIM_DEPTH = 12
# Operators as a reader writes them, and how tightly each binds (for parentheses).
SYMBOL = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "÷", ast.FloorDiv: "div", ast.Pow: "^"}
_COMPARE = {ast.Lt: "<", ast.LtE: "≤", ast.Gt: ">", ast.GtE: "≥", ast.Eq: "="}
_PRECEDENCE = {"<": 0, "≤": 0, ">": 0, "≥": 0, "=": 0, "+": 1, "−": 1, "×": 2, "÷": 2, "div": 2, "neg": 3, "^": 4, "leaf": 5, "call": 5}


@dataclass(frozen=True, kw_only=True)
class Leaf:
    """A value the working rests on. ``kind``: source | literal | claim (an input of some claim,
    numbered in ``Working.leaves``), number (typed into a step) or unit (a unit name in a step)."""

    kind: str
    value: Quantity | None = None
    name: str = ""          # what it is called where it is used ("layers"), or the unit's name
    index: int = 0          # 1-based place in Working.leaves (0 for numbers and units)
    claim: str = ""         # the claim whose record holds this input
    input: str = ""         # the input's name in that record
    source: str | None = None
    key: str | None = None
    passage: str | None = None
    grade: str | None = None
    assumption: str | None = None
    upstream: str | None = None         # kind claim: the claim it names
    upstream_status: str | None = None


@dataclass(frozen=True, kw_only=True)
class Node:
    """``op`` is a symbol from SYMBOL, "neg", "call" (``call`` names the function) or "leaf"."""

    op: str
    children: tuple[Node, ...] = ()
    leaf: Leaf | None = None
    call: str = ""
    claim: str = ""         # the claim whose own working this part is, where one was written out inline
    caption: str = ""       # a leaf: the name it is used by at the outermost place it is reached
    paren: bool = False     # written in parentheses where its parent uses it


@dataclass(frozen=True, kw_only=True)
class Working:
    claim: str
    tree: Node
    leaves: tuple[Leaf, ...]        # the numbered leaves, in the order they first appear
    result: Quantity | None         # the engine's result (None for a relation: see ``holds``)
    claims: tuple[str, ...]         # the claims whose working was written out inside this one
    agrees: bool                    # the expansion, evaluated again, gives the engine's result
    complete: bool                  # every input claim was written out down to its own leaves
    holds: bool | None = None       # a relation (``check:``): whether it holds, as the engine found

    def text(self) -> str:
        """The expansion as one line of plain text (for tests and a terminal)."""
        if self.result is None:
            return f"{format_node(self.tree)}: {'holds' if self.holds else 'does not hold'}"
        return f"{format_node(self.tree)} = {self.result.display}"


class _TooLarge(Exception):
    pass


def expand(report: Report, claim_id: str) -> Working | None:
    """The whole working of a claim, or None where it has no steps or no result."""
    claim = report.claim(claim_id)
    if claim is None or claim.status == "error" or (claim.check is None and (not claim.steps or claim.result is None)):
        return None
    for depth in (MAX_CLAIM_DEPTH, 1, 0):
        builder = _Builder(report, depth)
        try:
            tree = builder.claim(claim, 0)
        except _TooLarge:
            continue
        except LedgerError:
            return None
        if claim.check is not None:  # a relation: the engine says whether it holds in a note
            holds = any(m.kind == "note" and m.text.startswith("holds:") for m in claim.messages)
            return Working(claim=claim.id, tree=tree, leaves=tuple(builder.leaves), result=None,
                           claims=tuple(builder.expanded), agrees=_holds(tree) is holds,
                           complete=builder.complete, holds=holds)
        return Working(claim=claim.id, tree=tree, leaves=tuple(builder.leaves), result=claim.result,
                       claims=tuple(builder.expanded), agrees=_agrees(tree, claim),
                       complete=builder.complete)
    return None


class _Builder:
    def __init__(self, report: Report, depth: int):
        self.report, self.depth = report, depth
        self.leaves: list[Leaf] = []
        self.numbered: dict[tuple[str, str], Leaf] = {}
        self.expanded: list[str] = []
        self.count = 0
        self.complete = True

    def claim(self, claim: ClaimResult, depth: int) -> Node:
        steps = {s.name: s.expression for s in claim.steps}
        inputs = {i.name: i for i in claim.inputs}
        if depth == 0 and claim.check is not None:
            tree = expr.parse(claim.check, allow_compare=True)
            return self.node(tree.body, claim, steps, inputs, depth, set())
        return self.name(claim, claim.steps[-1].name, steps, inputs, depth, set())

    def name(self, claim: ClaimResult, name: str, steps: dict[str, str], inputs: dict[str, InputResult],
             depth: int, open_steps: set[str]) -> Node:
        if name in steps and name not in open_steps:
            tree = expr.parse_shared(steps[name])  # read only, shared with the engine's
            return self.node(tree.body, claim, steps, inputs, depth, open_steps | {name})
        if name in inputs:
            node = self.input(claim, inputs[name], depth)
            if node.op == "leaf":  # a value reached through this name is called so here
                return Node(op="leaf", leaf=node.leaf, caption=name)
            return node
        return self.leaf(Leaf(kind="unit", name=name))

    def input(self, claim: ClaimResult, item: InputResult, depth: int) -> Node:
        if item.kind == "claim":
            other = self.report.claim(item.claim) if item.claim else None
            if (other is not None and other.steps and other.result is not None and item.result is not None
                    and other.result.value == item.result.value and other.result.unit == item.result.unit):
                if depth < self.depth:
                    self.expanded.append(other.id)
                    node = self.claim(other, depth + 1)
                    return node if node.op == "leaf" else _copy(node, claim=other.id)
                self.complete = False
        key = (claim.id, item.name)
        leaf = self.numbered.get(key)
        if leaf is None:
            leaf = Leaf(kind=item.kind, value=item.result, name=item.name, index=len(self.leaves) + 1,
                        claim=claim.id, input=item.name, source=item.source, key=item.key, passage=item.passage,
                        grade=item.grade, assumption=item.assumption,
                        upstream=item.claim, upstream_status=item.claim_status)
            self.leaves.append(leaf)
            self.numbered[key] = leaf
        return self.leaf(leaf)

    def leaf(self, leaf: Leaf) -> Node:
        self.count += 1
        if self.count > MAX_LEAVES:
            raise _TooLarge
        return Node(op="leaf", leaf=leaf)

    def node(self, node: ast.AST, claim: ClaimResult, steps: dict[str, str], inputs: dict[str, InputResult],
             depth: int, open_steps: set[str]) -> Node:
        def again(n: ast.AST) -> Node:
            return self.node(n, claim, steps, inputs, depth, open_steps)

        match node:
            case ast.Constant(value=value):
                number = Fraction(value) if isinstance(value, int) else Fraction(str(value))  # parse: int or float
                return self.leaf(Leaf(kind="number", value=Quantity(value=number, unit="", display=str(value))))
            case ast.Name(id=name):
                return self.name(claim, name, steps, inputs, depth, open_steps)
            case ast.UnaryOp(op=op, operand=operand):
                inner = again(operand)
                return inner if isinstance(op, ast.UAdd) else _with_parens(Node(op="neg", children=(inner,)))
            case ast.BinOp(left=left, op=op, right=right):
                return _with_parens(Node(op=SYMBOL[type(op)], children=(again(left), again(right))))
            case ast.Call(func=ast.Name(id=fn), args=args):
                return Node(op="call", call=fn, children=tuple(again(a) for a in args))
            case ast.Compare(left=left, ops=ops, comparators=comparators) if len(ops) == 1:
                return _with_parens(Node(op=_COMPARE[type(ops[0])], children=(again(left), again(comparators[0]))))
        raise LedgerError(f"cannot expand {type(node).__name__}")  # pragma: no cover - parse refuses it


def _with_parens(node: Node) -> Node:
    """Mark the children that need parentheses: a looser operator inside a tighter one, the right
    side of − ÷ div at the same level, and anything but a plain value around ^."""
    mine = _PRECEDENCE[node.op]
    children = []
    for place, child in enumerate(node.children):
        theirs = _PRECEDENCE[child.op]
        paren = (theirs < mine
                 or (theirs == mine and place == 1 and node.op in ("−", "÷", "div"))
                 or (node.op == "^" and child.op not in ("leaf", "call"))
                 or (bool(child.claim) and child.op not in ("leaf", "call")))  # another claim's working, as a group
        children.append(child if child.paren == paren else _copy(child, paren=paren))
    return _copy(node, children=tuple(children))


def _copy(node: Node, *, children: tuple[Node, ...] | None = None, claim: str | None = None,
          paren: bool | None = None) -> Node:
    """``replace(node, ...)`` without dataclasses' per-call field walk (a page's working makes tens
    of thousands of nodes)."""
    return Node(op=node.op, children=node.children if children is None else children, leaf=node.leaf,
                call=node.call, claim=node.claim if claim is None else claim, caption=node.caption,
                paren=node.paren if paren is None else paren)


def _agrees(tree: Node, claim: ClaimResult) -> bool:
    """Evaluate the expansion with the restricted walker over the leaves' own values; compare."""
    env: dict[str, object] = {}
    if claim.result is None:
        return False
    try:
        body = _as_ast(tree, env)
        value = expr.evaluate(ast.Expression(body=body), env)
        return units.convert(value, claim.result.unit) == claim.result.value
    except (LedgerError, ArithmeticError, ValueError, TypeError):
        return False


def _holds(tree: Node) -> bool | None:
    env: dict[str, object] = {}
    try:
        return bool(expr.evaluate(ast.Expression(body=_as_ast(tree, env)), env))
    except (LedgerError, ArithmeticError, ValueError, TypeError):
        return None


def _as_ast(node: Node, env: dict[str, object]) -> ast.expr:
    if node.op == "leaf":
        leaf = node.leaf
        if leaf is None:
            raise LedgerError("a leaf node without its leaf")
        if leaf.kind == "unit":
            return ast.Name(id=leaf.name, ctx=ast.Load())
        if leaf.value is None:
            raise LedgerError("a leaf has no value")
        name = f"leaf{len(env)}"
        env[name] = units.quantity(leaf.value.value, leaf.value.unit) if leaf.value.unit else leaf.value.value
        return ast.Name(id=name, ctx=ast.Load())
    parts = [_as_ast(c, env) for c in node.children]
    if node.op == "neg":
        return ast.UnaryOp(op=ast.USub(), operand=parts[0])
    if node.op == "call":
        return ast.Call(func=ast.Name(id=node.call, ctx=ast.Load()), args=parts, keywords=[])
    if node.op in _COMPARE.values():
        op = next(k for k, v in _COMPARE.items() if v == node.op)
        return ast.Compare(left=parts[0], ops=[op()], comparators=[parts[1]])
    binop = next(k for k, v in SYMBOL.items() if v == node.op)
    return ast.BinOp(left=parts[0], op=binop(), right=parts[1])


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
