"""What changed between an archived snapshot and the bytes fetched now, and which claims care.

Keys are compared as the claims read them: a JSON snapshot by dotted path, a config excerpt kept as
text by its `"key": number` pairs (the loader's rule for `format: text`). When a copy kept as text is
replaced by the official JSON file, a key of the copy is matched to the JSON key of the same dotted
path, or else to the one JSON key with the same last name (an excerpt flattens nesting), and only keys
the copy had are compared: the copy never claimed to have the rest.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from workings.models import Claim
from workings.refresh.pagetext import occurs
from workings.sources import Source, excerpt_numbers

@dataclass(frozen=True, kw_only=True)
class KeyChange:
    """A key whose value differs: `old` None when it is new, `new` None when it is gone."""

    key: str
    old: str | None
    new: str | None
    claims: tuple[str, ...] = ()  # claims that read this key directly


@dataclass(frozen=True, kw_only=True)
class Vanished:
    """A passage relied on that no longer occurs in the fetched text."""

    where: str  # passages.<id> or values.<name>
    text: str
    claims: tuple[str, ...] = ()
    found_at: str = ""  # a value: the JSON key of the new file that holds the same number, if one does


@dataclass(frozen=True, kw_only=True)
class Diff:
    keys: tuple[KeyChange, ...] = ()
    vanished: tuple[Vanished, ...] = ()
    unused_changes: int = 0  # changed keys that no claim reads (listed in `keys` too)

    @property
    def empty(self) -> bool:
        return not self.keys and not self.vanished


def flatten(node: object, prefix: str = "") -> dict[str, str]:
    """Every scalar of a parsed JSON document by dotted path, printed as in the file."""
    out: dict[str, str] = {}
    if isinstance(node, Mapping):
        for key, value in node.items():
            out.update(flatten(value, f"{prefix}{key}."))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out.update(flatten(value, f"{prefix}{index}."))
    else:
        out[prefix[:-1]] = "null" if node is None else str(node).lower() if isinstance(node, bool) else str(node)
    return out


def text_pairs(text: str) -> dict[str, str]:
    """`"key": number` pairs of a text excerpt, read as verify reads them (`sources.excerpt_numbers`).
    A key printed with several values is kept as them all ("4096, 8192"), so that a copy that comes to
    disagree with itself is listed as a change, not dropped: verify refuses to read such a key."""
    return {key: ", ".join(numbers) for key, numbers in excerpt_numbers(text).items()}


def snapshot_keys(data: bytes, fmt: str) -> dict[str, str]:
    text = data.decode("utf-8", errors="replace")
    if fmt == "json":
        try:
            return flatten(json.loads(text, parse_float=str, parse_int=str))
        except (ValueError, RecursionError):  # not JSON, or nested past Python's recursion limit
            return {}
    return text_pairs(text)


def same_number(old: str | None, new: str | None) -> bool:
    """`1e-05` and `0.00001` are the same value; anything that is not a number compares as text."""
    if old is None or new is None:
        return old is new
    try:
        return Decimal(old) == Decimal(new)
    except InvalidOperation:
        return old == new


def key_changes(old: Mapping[str, str], new: Mapping[str, str], *,
                old_was_excerpt: bool) -> list[tuple[str, str | None, str | None]]:
    """(key, old value, new value) for keys that differ; see the module docstring for matching."""
    changes: list[tuple[str, str | None, str | None]] = []
    if old_was_excerpt:
        by_leaf: dict[str, list[str]] = {}
        for key in new:
            by_leaf.setdefault(key.rsplit(".", 1)[-1], []).append(key)
        for key, value in sorted(old.items()):
            match = key if key in new else (by_leaf.get(key, [None]) + [None])[0]
            if match is not None and len(by_leaf.get(key, [])) > 1 and key not in new:
                match = None  # ambiguous: the excerpt's key is nested in several places
            if match is None:
                changes.append((key, value, None))
            elif not same_number(value, new[match]):
                changes.append((match, value, new[match]))
        return changes
    for key in sorted(set(old) | set(new)):
        if not same_number(old.get(key), new.get(key)):
            changes.append((key, old.get(key), new.get(key)))
    return changes


def users(claims: Iterable[Claim], source_id: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """For one source: the claims reading each key (`src#key`), and citing each passage (`cites`)."""
    by_key: dict[str, list[str]] = {}
    by_passage: dict[str, list[str]] = {}
    for claim in claims:
        for item in claim.inputs:
            if item.kind == "source" and item.source == source_id and item.key is not None:
                by_key.setdefault(item.key, []).append(claim.id)
        for cite in claim.cites:
            source, _, passage = cite.partition("#")
            if source == source_id:
                by_passage.setdefault(passage, []).append(claim.id)
    return by_key, by_passage


def diff_source(source: Source, old: bytes | None, new: bytes, new_format: str, claims: Iterable[Claim]) -> Diff:
    """Keys and passages of `source` that differ between its old snapshot and `new`."""
    by_key, by_passage = users(claims, source.id)
    old_keys = snapshot_keys(old, source.format) if old is not None else {}
    new_keys = snapshot_keys(new, new_format)
    excerpt = source.format != "json"
    keys = []
    unused = 0
    for key, before, after in key_changes(old_keys, new_keys, old_was_excerpt=excerpt):
        readers = sorted(set(by_key.get(key, []) + by_key.get(key.rsplit(".", 1)[-1], [])))
        readers = [] if key in source.values else readers  # a declared value is read from its passage
        unused += not readers
        keys.append(KeyChange(key=key, old=before, new=after, claims=tuple(readers)))
    text = new.decode("utf-8", errors="replace")
    vanished = []
    for pid, passage in sorted(source.passages.items()):
        if not occurs(passage, text):
            vanished.append(Vanished(where=f"passages.{pid}", text=passage,
                                     claims=tuple(sorted(by_passage.get(pid, [])))))
    for name, value in sorted(source.values.items()):
        if not occurs(value.passage, text):
            readers = sorted(by_key.get(name, []))
            found_at = _same_value_at(new_keys, name, value.value) if new_format == "json" else ""
            vanished.append(Vanished(where=f"values.{name}", text=value.passage, claims=tuple(readers),
                                     found_at=found_at))
    return Diff(keys=tuple(keys), vanished=tuple(vanished), unused_changes=unused)


def _same_value_at(keys: Mapping[str, str], name: str, number: Fraction) -> str:
    """The one key of a JSON file named like a declared value and holding its number: where the
    value now reads from the official file (a transcription's `total_size` is `metadata.total_size`)."""
    matches = [key for key in keys if key.rsplit(".", 1)[-1] == name and same_number(keys[key], _decimal(number))]
    return matches[0] if len(matches) == 1 else ""


def _decimal(number: Fraction) -> str:
    return str(number.numerator) if number.denominator == 1 else str(Decimal(number.numerator) / number.denominator)
