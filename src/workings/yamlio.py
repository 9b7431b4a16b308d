"""Reading YAML records safely, with the line of every key.

PyYAML's C safe loader composes the node tree; we keep each mapping key's line (1-based) by its
path (``("inputs", "layers")``) so that every later error can name its place. Anchors and aliases
are refused: a record has no use for them, and an alias bomb must not expand.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import yaml

from .errors import LedgerError

try:  # the C loader is much faster; fall back only where libyaml is missing
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

MAX_BYTES = 1_000_000
MAX_NODES = 20_000

Path = tuple


@dataclass
class Document:
    """A parsed record: ``data`` (plain dicts, lists, scalars) and the line of each key path."""

    file: str
    data: object
    lines: dict = field(default_factory=dict)

    def line(self, *path) -> int:
        """The line of ``path`` or of its nearest ancestor that has one (1 for the file)."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)


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
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise YamlError("empty file: expected a mapping of keys")
        lines: dict = {(): node.start_mark.line + 1}
        _walk(node, (), lines, set())
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise YamlError(f"invalid YAML: {exc.problem or exc.context}", line) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}") from None
    except RecursionError:
        raise YamlError("invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    return Document(file=file, data=_plain(data), lines=lines)


def _walk(node, path: Path, lines: dict, seen: set) -> None:
    if node.anchor if hasattr(node, "anchor") else False:
        raise YamlError("anchors and aliases (&, *) are not allowed in records", node.start_mark.line + 1)
    if id(node) in seen:
        raise YamlError("anchors and aliases (&, *) are not allowed in records", node.start_mark.line + 1)
    seen.add(id(node))
    if len(seen) > MAX_NODES:
        raise YamlError(f"record has more than {MAX_NODES:,} YAML nodes", node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        keys = set()
        for key_node, value_node in node.value:
            _walk(key_node, path, {}, seen)
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key is not None:
                if key in keys:
                    raise YamlError(f"key {key!r} appears twice", key_node.start_mark.line + 1)
                keys.add(key)
                lines[path + (key,)] = key_node.start_mark.line + 1
            _walk(value_node, path + (key,), lines, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[path + (index,)] = item.start_mark.line + 1
            _walk(item, path + (index,), lines, seen)


def _plain(value):
    """Dates become ISO strings: YAML 1.1 reads ``2025-01-27`` as a date, we keep text."""
    if isinstance(value, dict):
        return {(_plain(k) if isinstance(k, (dt.date, dt.datetime)) else k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value
