"""Writing what refresh learned: snapshots by sha256, and source records edited in place.

Every write is atomic: a temporary file in the same folder, fsync, then `os.replace`, so a reader (or
a crash) sees the old file or the new one, never half of one. A snapshot is content-addressed, so an
existing snapshot is never overwritten with other bytes, and one that is already there is not
rewritten.

A source record is a file a person wrote, with comments, key order and folded prose. It is not
re-dumped: only the values refresh owns (`snapshot`, `grade`, `format`, `retrieved`, `safetensors`)
are replaced, at the character span PyYAML reports for each value node; everything else, comments
included, stays byte for byte. The edited text is parsed again and must give exactly the intended
data, or nothing is written.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import yaml

from workings import atomic
from workings.errors import LedgerError
from workings.loader import MAX_RECORD_BYTES, SNAPSHOTS_DIR, SOURCES_DIR, read_plain_file

_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./+-]*")
_NOT_PLAIN = re.compile(r"(?i)(y|n|yes|no|on|off|true|false|null|~|[-+]?[\d._]+([eE][-+]?\d+)?|\d{4}-.*)")
# Top-level keys refresh may add, each placed after the first of its anchors the record has.
_INSERT_AFTER = {
    "format": ("snapshot", "grade"),
    "retrieved": ("grade", "hub", "url"),
    "snapshot": ("retrieved", "grade"),
    "safetensors": ("values", "format", "snapshot"),
}


class ArchiveError(LedgerError):
    """A record that refresh cannot edit safely; it is left as it was."""


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that no reader ever sees a partial file."""
    atomic.write_bytes(path, data)


def unreadable_json(data: bytes) -> str | None:
    """Why JSON ``data`` cannot be read (nested too deep, a number past Python's digit limit: valid JSON
    that no reader of this ledger can load), "not JSON" when it is none, or None when it reads."""
    try:
        json.loads(data)
    except RecursionError:
        return "JSON nested too deep to read"
    except ValueError as error:
        if "integer string conversion" in str(error):  # Python's limit on a number's digits
            return f"JSON with a number of more than {sys.get_int_max_str_digits():,} digits, which cannot be read"
        return "not JSON"
    return None


def snapshot_name(data: bytes, ext: str) -> str:
    return f"{hashlib.sha256(data).hexdigest()}.{ext}"


def store_snapshot(root: Path, data: bytes, ext: str) -> str:
    """Archive `data` as `ledger/snapshots/<sha256>.<ext>`; an intact copy already there is kept."""
    name = snapshot_name(data, ext)
    path = root / SNAPSHOTS_DIR / name
    atomic.check_inside(root, path)  # never through a ledger/ or snapshots/ that links elsewhere
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == name.split(".")[0]:
        return name
    write_atomic(path, data)
    return name


def referenced_snapshots(root: Path) -> set[str]:
    """Every snapshot name that any source record mentions (read as text, so that a record that
    does not even parse still keeps its snapshot)."""
    names: set[str] = set()
    folder = root / SOURCES_DIR
    if folder.is_dir():
        for path in folder.rglob("*.y*ml"):
            try:  # a link or a pipe named like a record is refused by the loader; reading it could hang here
                raw = read_plain_file(path, MAX_RECORD_BYTES)
            except LedgerError:
                continue
            names.update(re.findall(r"[0-9a-f]{64}\.[a-z0-9]{1,8}", raw.decode("utf-8", "replace")))
    return names


def prune(root: Path, candidates: Iterable[str]) -> list[str]:
    """Remove those of `candidates` (snapshots a refresh stopped using) that no source refers to."""
    still_used = referenced_snapshots(root)
    removed = []
    for name in sorted(set(candidates) - still_used):
        path = root / SNAPSHOTS_DIR / name
        if re.fullmatch(r"[0-9a-f]{64}\.[a-z0-9]{1,8}", name) and path.is_file():
            path.unlink()
            removed.append(name)
    return removed


def dump_scalar(value: object) -> str:
    """One YAML scalar, in flow style: plain when it reads back as the same string, else quoted."""
    if isinstance(value, bool) or value is None:
        raise ArchiveError(f"refresh writes no {value!r} values")
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and not _NOT_PLAIN.fullmatch(text):
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def dump_flow(value: object) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{dump_scalar(k)}: {dump_flow(v)}" for k, v in value.items()) + "}"
    return dump_scalar(value)


def edit_record(text: str, changes: Mapping[str, object]) -> str:
    """`text` with each top-level key of `changes` set to its value (a scalar or a flat mapping).

    A scalar is replaced where it stands; a mapping value replaces the old one as a one-line flow
    mapping, and full-line comments that were inside the old block are kept, just above the key.
    A missing key is added on its own line. The result must parse to the intended data.
    """
    for key, value in changes.items():
        text = _set_top_level(text, key, value)
    _check(text, changes)
    return text


def _compose(text: str) -> yaml.MappingNode:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise ArchiveError(f"the record is not valid YAML: {error}") from None
    if not isinstance(node, yaml.MappingNode):
        raise ArchiveError("the record is not a mapping")
    return node


def _set_top_level(text: str, key: str, value: object) -> str:
    root = _compose(text)
    entries = {k.value: (k, v) for k, v in root.value if isinstance(k, yaml.ScalarNode)}
    if key not in entries:
        return _insert(text, entries, key, value)
    key_node, value_node = entries[key]
    start, end = value_node.start_mark.index, _content_end(text, value_node.end_mark.index)
    if isinstance(value_node, yaml.ScalarNode) or value_node.flow_style:
        return text[:start] + dump_flow(value) + text[end:]
    # A block mapping or sequence runs from the key's line to the end of its last value.
    last = value_node.value[-1] if value_node.value else None
    if last is not None:
        end = _content_end(text, (last[1] if isinstance(last, tuple) else last).end_mark.index)
    line_start = text.rfind("\n", 0, key_node.start_mark.index) + 1
    key_line_end = text.find("\n", key_node.end_mark.index)
    _, hash_, key_comment = text[key_node.end_mark.index : key_line_end].partition("#")
    inner = text[key_line_end + 1 : end].splitlines()
    comments = "".join(f"{line.strip()}\n" for line in inner if line.strip().startswith("#"))
    indent = text[line_start : key_node.start_mark.index]
    line = f"{indent}{key}: {dump_flow(value)}" + (f"  #{key_comment.rstrip()}" if hash_ else "")
    return text[:line_start] + comments + line + text[end:]


def _content_end(text: str, end: int) -> int:
    """Back from a node's end mark to the end of its last line of content.

    PyYAML ends a block scalar, and a block mapping, after the line breaks that follow it.
    """
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def _insert(text: str, entries: Mapping[str, tuple[yaml.Node, yaml.Node]], key: str, value: object) -> str:
    line = f"{key}: {dump_flow(value)}\n"
    for anchor in _INSERT_AFTER.get(key, ()):
        if anchor in entries:
            anchor_value = entries[anchor][1]
            end = _content_end(text, anchor_value.end_mark.index)
            newline = text.find("\n", end)
            if newline == -1:
                return text + "\n" + line
            return text[: newline + 1] + line + text[newline + 1 :]
    return text + ("" if text.endswith("\n") or not text else "\n") + line


def _check(text: str, changes: Mapping[str, object]) -> None:
    try:
        data = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise ArchiveError(f"editing the record would break it: {error}") from None
    for key, value in changes.items():
        if _plain(data.get(key)) != _plain(value):
            raise ArchiveError(f"editing the record would not set {key} as intended")


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value if isinstance(value, int) and not isinstance(value, bool) else str(value)
