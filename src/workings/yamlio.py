"""Reading YAML records safely, with the line of every key.

PyYAML's C safe loader composes the node tree; we keep each mapping key's line (1-based) by its
path (``("inputs", "layers")``) so that every later error can name its place. Anchors and aliases
are refused: a record has no use for them, and an alias bomb must not expand.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import re
from typing import TYPE_CHECKING, Any

import yaml

from .errors import LedgerError

if TYPE_CHECKING:  # the C loader has the pure-Python one's interface; one base for the type checker
    _Base = yaml.SafeLoader
else:
    try:  # the C loader is much faster; fall back only where libyaml is missing
        _Base = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover
        _Base = yaml.SafeLoader


MERGE_TAG = "tag:yaml.org,2002:merge"
MERGE_MESSAGE = "merge keys (<<) are not allowed in records: write each key out"


@functools.lru_cache(maxsize=20_000)
def _resolve(kind, value, implicit):
    """PyYAML's resolve for ``_Loader``. It reads only the class's tables when no path resolver is
    registered (``yaml_path_resolvers`` empty), so the class stands in for an instance."""
    assert not _Loader.yaml_path_resolvers
    return _Base.resolve(_Loader, kind, value, implicit)


class _Loader(_Base):
    """The safe loader, refusing a key that appears twice (YAML would keep the last silently) and a
    merge key ``<<``, which would bring in keys the duplicate check never sees."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            _refuse_repeats(node)
        return super().construct_mapping(node, deep)

    # The C composer asks these of every node, in Python. No path resolver is registered on this
    # loader (yaml.add_path_resolver copies the table into the class it is given, never this one), so
    # descending and ascending track nothing, and the tag PyYAML's resolver gives depends only on the
    # node's kind, its text and whether it was plain: each distinct answer is worked out once, by
    # PyYAML's own resolve (``_resolve``), and looked up after in C (records repeat their keys and
    # most of their values), without a Python frame per node.
    resolve = staticmethod(_resolve)

    # Descending and ascending track nothing here, so each is a builtin that does nothing with its
    # arguments, not a Python method: the C composer calls both for every node.
    descend_resolver = slice  # type: ignore[assignment]  # (current_node, current_index) -> a discarded slice
    ascend_resolver = tuple  # type: ignore[assignment]  # () -> a discarded empty tuple


def _refuse_repeats(node: yaml.MappingNode) -> None:
    """A merge key, or a key written twice in one mapping, as a YamlError with its line: the rule for
    the constructor above and for the line walk (the quick path's loop in ``_build`` applies it inline)."""
    seen = set()
    for key_node, _ in node.value:
        if key_node.tag == MERGE_TAG:
            raise YamlError(MERGE_MESSAGE, key_node.start_mark.line + 1)
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key is not None:
            if key in seen:
                raise YamlError(f"key {key!r} appears twice", key_node.start_mark.line + 1)
            seen.add(key)


MAX_BYTES = 1_000_000
MAX_NODES = 20_000
# Something that may be an anchor or alias (&name, *name): such files take the exact, slower path.
# At the start or after one of ``\s[{,:?-``; written with the & or * first, so the regex engine skips
# to those characters (an alternation first was tried at every position: a fifth of loading a record).
_ANCHORISH = re.compile(r"[&*](?<![^\s\[{,:?-][&*])[^\s\]},]")
_TOP_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:", re.MULTILINE)

Path = tuple


class Document:
    """A parsed record: ``data`` (plain dicts, lists, scalars) and the line of each key path.

    Lines are found lazily: top-level keys by a scan of the text, nested keys by composing the
    YAML node tree on first need (an error, or the page). Verifying a valid ledger never pays for it."""

    def __init__(self, file: str, data, text: str = "", lines: dict | None = None):
        self.file, self.data, self.text = file, data, text
        self._lines = lines
        self._top: dict[str, int] | None = None
        # what the process that read the record worked out of its data for the checks (plain data,
        # a function of ``data`` alone), by question: see ``said.answers``; None: nothing
        self.known: dict[tuple[str, str, bool], str | None] | None = None

    @property
    def lines(self) -> dict:
        if self._lines is None:
            self._lines = _node_lines(self.text)
        return self._lines

    def line(self, *path) -> int:
        """The line of ``path`` or of its nearest ancestor that has one (1 for the file)."""
        path = tuple(path)
        if not path and self._lines is None and self._top is None:
            # the record's own line (every claim asks): the first top-level key, without scanning them all
            first = _TOP_KEY.search(self.text)
            return self.text.count("\n", 0, first.start()) + 1 if first else 1
        if len(path) <= 1 and self._lines is None:
            if self._top is None:
                self._top = {}
                for match in _TOP_KEY.finditer(self.text):
                    self._top.setdefault(match.group(1), self.text.count("\n", 0, match.start()) + 1)
            if not path:
                return min(self._top.values(), default=1)
            if path[0] in self._top:
                return self._top[path[0]]
        lines = self.lines
        while path:
            if path in lines:
                return lines[path]
            path = path[:-1]
        return lines.get((), 1)


class YamlError(LedgerError):
    def __init__(self, message: str, line: int = 1):
        super().__init__(message)
        self.line = line


def load(raw: bytes, file: str) -> Document:
    """Parse ``raw`` bytes as one YAML document; YamlError names the line of the trouble."""
    if len(raw) > MAX_BYTES:
        raise YamlError(f"file is larger than {MAX_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise YamlError(f"not UTF-8 (byte {exc.start}: {raw[exc.start]:#04x})", line) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    _check_nesting(text)
    with _yaml_errors():
        data = _plain_form(text)  # most claim records; None: anything else, composed by PyYAML
    if data is not None:  # no anchor or alias can stand in the form (each value starts with no indicator)
        return Document(file, data, text, None)
    lines = _node_lines(text) if _ANCHORISH.search(text) else None  # refuses anchors, with their line
    with _yaml_errors():
        try:
            data = _quick_load(text)
        except _Unusual:  # a tag, merge key or shared node the quick path leaves to PyYAML's constructor
            data = yaml.load(text, Loader=_Loader)
            data = None if data is None else _plain(data, [0])
        if data is None:
            raise YamlError("empty file: expected a mapping of keys")
        return Document(file, data, text, lines)


class _Unusual(Exception):
    """The node tree holds something only PyYAML's own constructor should build."""


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_SCALARS = frozenset("tag:yaml.org,2002:" + t for t in ("int", "float", "bool", "null", "timestamp"))


def _quick_load(text: str):
    """Compose with the C parser, then build plain data straight from the node tree.

    PyYAML's constructor (Python, generators per mapping) was a third of loading a record. This
    builds the same plain data ``_plain`` would give for the tags records use (text, numbers,
    booleans, null, dates as ISO text, mappings, lists), refuses a repeated key as ``_Loader`` does,
    and hands anything else (another tag, a merge key, a node seen twice) back as ``_Unusual``."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        return None if node is None else _build(loader, node, [0], set())
    finally:
        loader.dispose()


def _build(loader, node, count: list, seen: set):
    if id(node) in seen:
        raise _Unusual
    seen.add(id(node))
    _count(count, node)
    kind, tag = type(node), node.tag
    if kind is yaml.ScalarNode:
        if tag == _STR:
            return node.value
        if tag not in _SCALARS:
            raise _Unusual
        value = loader.construct_object(node)
        return value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else value
    if kind is yaml.SequenceNode and tag == _SEQ:
        return [_build(loader, item, count, seen) for item in node.value]
    if kind is not yaml.MappingNode or tag != _MAP:
        raise _Unusual
    out, keys = {}, set()
    for key_node, value_node in node.value:
        if type(key_node) is not yaml.ScalarNode or key_node.tag not in _SCALARS and key_node.tag != _STR:
            raise _Unusual
        if key_node.value in keys:
            raise YamlError(f"key {key_node.value!r} appears twice", key_node.start_mark.line + 1)
        keys.add(key_node.value)
        if key_node.tag == _STR:  # most keys: _build's first lines, inline
            if id(key_node) in seen:
                raise _Unusual
            seen.add(id(key_node))
            _count(count, key_node)
            key = key_node.value
        else:
            key = _build(loader, key_node, count, seen)
        if type(value_node) is yaml.ScalarNode and value_node.tag == _STR:  # most values: _build's first lines
            if id(value_node) in seen:
                raise _Unusual
            seen.add(id(value_node))
            _count(count, value_node)
            out[key] = value_node.value
        else:
            out[key] = _build(loader, value_node, count, seen)
    return out


def _count(count: list, node) -> None:
    """One more node of the record: every node counts (mappings, lists, keys, values), as the map of
    its lines counts them (``_walk``), so that a record read is a record whose lines can be found."""
    count[0] += 1
    if count[0] > MAX_NODES:
        raise YamlError(f"record has more than {MAX_NODES:,} YAML nodes", node.start_mark.line + 1)


# The plain form (``_plain_form``): what may stand in a record so read; anything else is PyYAML's.
# Characters: line feed and YAML's printable ones, less its other line breaks (U+0085, U+2028,
# U+2029) and the byte-order mark; no tab, no carriage return. Written as what is left out (the
# class of what is let in, with its ranges above U+FFFF, took 10 ms to compile, in every command),
# and compiled when a record is first found in the form (still about 5 M instructions: a verify
# whose results all come from the cache reads only the sources, most not in the form, and does without).
_FORM_OUTSIDE_TEXT = r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
_FORM_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORM_KEYS: dict[str, bool] = {}  # each key's answer, once: records repeat their keys
# A plain scalar starting with one of these is an indicator (or may be): left to PyYAML.
PLAIN_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# The first characters PyYAML's resolver has a rule for (a number, a boolean, null, a date...): a
# plain scalar starting with another is text; with one of these, the resolver is asked. None: a rule
# for any first character is registered, and every plain scalar is asked.
_RESOLVED_FIRST = None if None in _Loader.yaml_implicit_resolvers else frozenset(_Loader.yaml_implicit_resolvers)
_PLAIN_IMPLICIT = (True, False)
_INT = "tag:yaml.org,2002:int"
_FORM_DECIMAL = re.compile(r"0|[1-9][0-9]{0,17}")  # as PyYAML reads it: int(text) (no sign, _, octal or base)


def _plain_form(text: str) -> dict | None:
    """A record in the plain form, read as PyYAML reads it (the data ``_quick_load`` gives); None
    for any other text, which is then composed by PyYAML as before.

    At 10,000 claims, composing each record's node tree (libyaml's parser, then a Python object per
    node) was a third of loading the ledger, for records nearly all written one way::

        said: "The cache holds 196,608 bytes per token."
        figure: 196,608 B/token
        inputs:
          layers: some-model-config#num_hidden_layers
        also_said:
        - Another sentence printing 196,608 bytes.

    The plain form is exactly that: every line is a top-level ``key: value`` or ``key:``, or, below
    a ``key:``, one of a block of ``key: value`` lines indented alike (a mapping) or of ``- value``
    lines indented alike (a list); keys are ASCII names PyYAML reads as text, none twice in one
    mapping; each value is on its line: double-quoted with no backslash or inner quote,
    single-quoted (``''`` for a quote), or plain (starting with none of YAML's indicators, holding
    no ``: `` or `` #``, not ending with ``:``) and read by PyYAML's own resolver as text or as a
    whole number in decimals (``48``; ``yes``, ``1.5``, ``0x1F``, ``null`` or a date are left to
    PyYAML). No comments, blank lines, block scalars, flow collections, tabs or other line breaks:
    any of those, or anything else, gives None. ``tests/test_yaml_plain_form.py`` holds it to PyYAML
    on every record of this repository, on generated ledgers and on generated text."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    out: dict = {}
    open_key: str | None = None  # the "key:" whose block the lines below belong to
    block: dict | list | None = None  # that block, once its first line says which it is
    indent = 0
    known = _FORM_LINES
    for line in lines:
        got = known.get(line, _UNSEEN)  # what the line says: records repeat most of their lines
        if got is _UNSEEN:
            got = _form_line(line)
            if len(known) >= _FORM_LINES_HELD:
                known.clear()
            known[line] = got
        if got is None:
            return None
        kind = got[0]
        if kind is _TOP or kind is _OPEN:  # a top-level key
            if open_key is not None and block is None or got[1] in out:
                return None  # "key:" with nothing below it (null), or a key written twice
            if kind is _TOP:
                out[got[1]] = got[2]
                open_key = None
            else:
                open_key, block = got[1], None
            continue
        if open_key is None:
            return None  # indented, or a list item, below a value
        at = got[1]
        if kind is _ITEM:
            if block is None:
                block = out[open_key] = []
                indent = at
            elif type(block) is not list or at != indent:
                return None
            block.append(got[2])
            continue
        if block is None:
            block = out[open_key] = {}
            indent = at
        elif type(block) is not dict or at != indent or got[2] in block:
            return None
        block[got[2]] = got[3]
    if open_key is not None and block is None or not out:
        return None
    # every node counts, as _build and the map of lines count them: the record, each key and value, each
    # item and each key and value of a block; a line adds at most two (a "key:" line: its key and block)
    if 2 * len(lines) + 1 > MAX_NODES and 1 + sum(
            2 + (len(v) if type(v) is list else 2 * len(v) if type(v) is dict else 0) for v in out.values()) > MAX_NODES:
        return None  # PyYAML's reading refuses it, with the line where the count is passed
    # last: a record not in the form (most sources) never needs the pattern compiled. In ASCII text the
    # pattern finds only a control character other than the line feed, which is what isprintable()
    # refuses there (the line feeds made spaces): asked in C, the pattern not run
    if text.isascii() and text.replace("\n", " ").isprintable():
        return out
    return None if _form_outside().search(text) else out


_TOP, _OPEN, _ITEM, _PAIR = "top", "open", "item", "pair"
_UNSEEN: Any = object()  # what the memory gives for a line not read yet (one not in the form reads as None)
# Each line's reading (``_form_line``), by its text: a function of the text alone, and records repeat
# most of their lines (``label: derived``, ``  layers: cfg#num_hidden_layers``, ``compute:``). Bounded:
# emptied when full, where a ledger's own sentences and figures, each on one record's line, fill it.
_FORM_LINES: dict[str, tuple | None] = {}
_FORM_LINES_HELD = 4096


def _form_line(line: str) -> tuple | None:
    """What one line of the plain form says, by its text alone: ``(_TOP, key, value)`` a top-level
    ``key: value``; ``(_OPEN, key)`` a top-level ``key:`` opening a block; ``(_ITEM, indent, value)``
    a ``- value`` line; ``(_PAIR, indent, key, value)`` an indented ``key: value``; None a line not in
    the form (an empty one included). Where it stands among the others is ``_plain_form``'s to judge."""
    if not line:
        return None
    first = line[0]
    if first != " " and first != "-":  # a top-level key
        key, colon, rest = line.partition(":")
        if not colon or not _form_key(key):
            return None
        if rest.strip(" "):
            value = _form_value(rest) if rest[0] == " " else None
            return None if value is None else (_TOP, key, value)
        return (_OPEN, key)
    body = line.lstrip(" ")
    at = len(line) - len(body)
    if body[:2] == "- ":
        value = _form_value(body[2:])
        return None if value is None else (_ITEM, at, value)
    key, colon, rest = body.partition(":")
    if not colon or rest[:1] != " " or not _form_key(key):  # (a key starts with a letter or _: never "-")
        return None
    value = _form_value(rest)
    return None if value is None else (_PAIR, at, key, value)


@functools.cache
def _form_outside() -> re.Pattern[str]:
    return re.compile(_FORM_OUTSIDE_TEXT)


def _form_key(key: str) -> bool:
    known = _FORM_KEYS.get(key)
    if known is None:
        if len(_FORM_KEYS) >= 4096:  # bounded: a ledger names a few dozen keys
            _FORM_KEYS.clear()
        known = _FORM_KEYS[key] = (bool(_FORM_KEY.fullmatch(key))
                                   and _resolve(yaml.ScalarNode, key, _PLAIN_IMPLICIT) == _STR)
    return known


def one_line_scalar(text: str) -> tuple[str, bool] | None:
    """A scalar written whole on one line (``text``: what follows ``key:`` or ``- ``), as YAML reads
    its text: (the text, whether it was written plain, so that PyYAML's resolver may read it as a
    number, a boolean, null or a date); None for anything else: empty, a block scalar, a flow
    collection, an anchor, alias or tag, a comment after it, an escape or quote inside quotes. Shared
    by the plain form here and check-draft's scan (``draft.near``)."""
    value = text.strip(" ")
    if not value:
        return None
    first = value[0]
    if first == '"':
        inner = value[1:-1]
        return (inner, False) if len(value) > 1 and value[-1] == '"' and '"' not in inner and "\\" not in inner \
            else None
    if first == "'":
        inner = value[1:-1]
        return (inner.replace("''", "'"), False) if len(value) > 1 and value[-1] == "'" \
            and "'" not in inner.replace("''", "") else None
    if first in PLAIN_INDICATORS or ": " in value or " #" in value or value[-1] == ":":
        return None
    return value, True


def _form_value(text: str) -> str | int | None:
    """A scalar on one line, as PyYAML reads it, if it is one the plain form holds; else None."""
    got = one_line_scalar(text)
    if got is None:
        return None
    value, plain = got
    if plain and (_RESOLVED_FIRST is None or value[0] in _RESOLVED_FIRST):
        tag = _resolve(yaml.ScalarNode, value, _PLAIN_IMPLICIT)
        if tag != _STR:  # a whole number written plainly (48) is PyYAML's int; anything else is left to it
            return int(value) if tag == _INT and _FORM_DECIMAL.fullmatch(value) else None
    return value


MAX_DEPTH = 50
_BLOCK_NESTING = re.compile(r"^[ \t]*(?:[-?:][ \t]+){%d}" % MAX_DEPTH, re.MULTILINE)
_DEEP_INDENT = re.compile(r"^ {%d}" % (4 * MAX_DEPTH + 1), re.MULTILINE)
_INDICATED = tuple(mark + blank for mark in "-?:" for blank in " \t")  # what _BLOCK_NESTING repeats
_DEEP_SPACES = " " * (4 * MAX_DEPTH + 1)


def _check_nesting(text: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before the parser sees it: libyaml recurses per level
    and a few kilobytes of brackets would crash the process, not just the record."""
    if text.count("[") + text.count("{") > MAX_DEPTH:
        depth = deepest = 0
        quote = None
        for index, char in enumerate(text):
            if quote:
                if char == quote:
                    quote = None
            elif char in "\"'":
                quote = char
            elif char in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    line = text.count("\n", 0, index) + 1
                    raise YamlError(f"nested deeper than {MAX_DEPTH} levels", line)
                deepest = max(deepest, depth)
            elif char in "]}":
                depth = max(depth - 1, 0)
            elif char == "\n":
                quote = None  # a quote left open here is the parser's to report
    # Each search scans every line; what it looks for cannot be there without MAX_DEPTH indicators
    # followed by a blank (counted in C), or a run of that many spaces (found in C): most records skip both.
    # Each pair starts with its indicator, counted alone first (a third of the time): fewer of those,
    # fewer pairs.
    if text.count("-") + text.count("?") + text.count(":") >= MAX_DEPTH \
            and sum(map(text.count, _INDICATED)) >= MAX_DEPTH:
        match = _BLOCK_NESTING.search(text)
        if match:
            raise YamlError(f"nested deeper than {MAX_DEPTH} levels", text.count("\n", 0, match.start()) + 1)
    if _DEEP_SPACES in text:
        deep = _DEEP_INDENT.search(text)
        if deep:
            raise YamlError(f"indented deeper than {4 * MAX_DEPTH} columns", text.count("\n", 0, deep.start()) + 1)


def _node_lines(text: str) -> dict:
    """Compose the node tree and map every key path to its line; refuse anchors and aliases."""
    loader = _Loader(text)
    try:
        with _yaml_errors():
            node = loader.get_single_node()
            if node is None:
                return {(): 1}
            lines: dict = {(): node.start_mark.line + 1}
            _walk(node, (), lines, set())
            return lines
    finally:
        loader.dispose()


@contextlib.contextmanager
def _yaml_errors():
    """PyYAML's errors as a YamlError with the line of the trouble."""
    try:
        yield
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlError(f"invalid YAML: {exc.problem or exc.context}", mark.line + 1 if mark else 1) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}") from None
    except RecursionError:
        raise YamlError("invalid YAML: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits (Python's int() limit)
        raise YamlError(f"invalid YAML: a value could not be read ({exc})") from None


def _walk(node, path: Path, lines: dict, seen: set) -> None:
    if node.anchor if hasattr(node, "anchor") else False:
        raise YamlError("anchors and aliases (&, *) are not allowed in records", node.start_mark.line + 1)
    if id(node) in seen:
        raise YamlError("anchors and aliases (&, *) are not allowed in records", node.start_mark.line + 1)
    seen.add(id(node))
    if len(seen) > MAX_NODES:
        raise YamlError(f"record has more than {MAX_NODES:,} YAML nodes", node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        _refuse_repeats(node)
        for key_node, value_node in node.value:
            _walk(key_node, path, {}, seen)
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key is not None:
                lines[path + (key,)] = key_node.start_mark.line + 1
            _walk(value_node, path + (key,), lines, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[path + (index,)] = item.start_mark.line + 1
            _walk(item, path + (index,), lines, seen)


def _plain(value, count: list):
    """Dates become ISO strings: YAML 1.1 reads ``2025-01-27`` as a date, we keep text.

    Counts every node (each key and value, as ``_count``) so that a huge record is refused rather
    than walked."""
    count[0] += 1
    if count[0] > MAX_NODES:
        raise YamlError(f"record has more than {MAX_NODES:,} YAML nodes")
    if isinstance(value, dict):
        return {_plain(k, count): _plain(v, count) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, count) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value
