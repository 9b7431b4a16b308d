"""Sources: what a figure rests on, its grade, and the archived bytes that back it.

A source record names an archived snapshot by the sha256 of its bytes. On load the hash is checked
and every quoted passage must occur in the snapshot, so a passage can never drift from the bytes
that are kept. Values are read from the snapshot: declared ``values`` (a number with the passage
that states it), a dotted path into JSON, or a ``"key": number`` pair in a config excerpt.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import re
import unicodedata
from dataclasses import field
from fractions import Fraction
from typing import Any
from urllib.parse import urlsplit

from .frozen import frozen
from . import units
from .errors import LedgerError, Problem
from .models import GRADES, SNAPSHOT
from .validate import Checker
from .yamlio import Document

SOURCE_KEYS = {"title", "publisher", "date", "url", "hub", "grade", "retrieved", "snapshot", "format",
               "values", "passages", "notes", "safetensors"}
FORMATS = ("json", "text")
# retrieved.on: a date, or a time as refresh and source add write it, or "unknown" (said, never guessed).
_WHEN = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
# retrieved.commit: a git commit's id (SHA-1 or SHA-256), as the Hub and git print it.
COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _not_past(on: str) -> str | None:
    """Why ``retrieved.on`` (a date or a UTC time, as ``_WHEN`` reads it) cannot be when the source was
    read: no such day, or a day after today. Today is UTC's, with a day's slack for the time zones."""
    try:
        day = dt.date.fromisoformat(on[:10])
    except ValueError:
        return f"{on!r} is no day of the calendar"
    today = dt.datetime.now(dt.timezone.utc).date()
    if day > today + dt.timedelta(days=1):
        return f"{on!r} is after today ({today.isoformat()}, UTC): a source cannot have been read in the future"
    return None


@frozen(kw_only=True)
class Value:
    name: str
    text: str
    value: Fraction
    unit: str
    passage: str


@frozen(kw_only=True)
class Hub:
    repo: str
    file: str
    revision: str = "main"


@frozen(kw_only=True)
class Source:
    id: str
    file: str
    line: int
    title: str
    grade: str
    publisher: str | None = None
    date: str | None = None
    url: str | None = None
    hub: Hub | None = None
    retrieved: dict[str, Any] = field(default_factory=dict)
    snapshot: str | None = None
    format: str = "text"
    values: dict[str, Value] = field(default_factory=dict)
    passages: dict[str, str] = field(default_factory=dict)
    notes: str | None = None
    safetensors: dict[str, Any] | None = None
    doc: Document | None = field(default=None, compare=False, repr=False)  # for the line of any key

    @property
    def sha256(self) -> str | None:
        return self.snapshot.split(".", 1)[0] if self.snapshot else None

    def line_of(self, *path: str | int) -> int:
        return self.doc.line(*path) if self.doc is not None else self.line

    @classmethod
    def from_document(cls, doc: Document, source_id: str) -> tuple[Source | None, list[Problem]]:
        c = Checker(doc)
        data = c.mapping((), doc.data, allowed=SOURCE_KEYS, required={"title", "grade"})
        if not isinstance(doc.data, dict):
            return None, c.problems
        title = c.text(("title",), data.get("title"), max_len=500)
        grade = c.choice(("grade",), data.get("grade"), GRADES)
        publisher = c.text(("publisher",), data.get("publisher"), required=False, max_len=500)
        date = c.text(("date",), data.get("date"), required=False, max_len=40)
        url = c.url(("url",), data.get("url"))
        hub = None
        if "hub" in data:
            raw = c.mapping(("hub",), data["hub"], allowed={"repo", "file", "revision"}, required={"repo", "file"})
            repo, file = c.text(("hub", "repo"), raw.get("repo")), c.text(("hub", "file"), raw.get("file"))
            revision = c.text(("hub", "revision"), raw.get("revision", "main"))
            if repo and file and revision:
                hub = Hub(repo=repo, file=file, revision=revision)
        retrieved = {}
        if "retrieved" in data:
            raw = c.mapping(("retrieved",), data["retrieved"], allowed={"on", "how", "commit", "url"})
            retrieved = {k: c.text(("retrieved", k), v, max_len=2000) for k, v in raw.items()}
            if raw.get("url") is not None:
                c.url(("retrieved", "url"), raw.get("url"))
            on = retrieved.get("on")
            if on is not None and on != "unknown" and not _WHEN.fullmatch(on):
                c.problem(("retrieved", "on"), f"expected a date (2026-11-29), a UTC time or 'unknown'; got {on!r}")
            elif on is not None and on != "unknown" and (why := _not_past(on)):
                c.problem(("retrieved", "on"), why)
            commit = retrieved.get("commit")
            if commit is not None and not COMMIT.fullmatch(commit):
                c.problem(("retrieved", "commit"), f"expected the commit's id, 40 or 64 hex digits; got {commit!r}")
        if grade == "primary" and not retrieved.get("commit"):
            # "the official bytes" is a Hub file at a resolved commit or a file of the publisher's repository at
            # a commit: a URL alone says nothing of which bytes, or whose, were read
            c.problem(("grade",), "a primary source records the commit its bytes were read at (retrieved.commit, "
                                  "40 or 64 hex digits); without one, grade it by what was seen (copy)")
        if grade == "primary" and retrieved.get("commit"):
            _primary_where(c, hub, retrieved)
        snapshot = c.text(("snapshot",), data.get("snapshot"), required=False, max_len=100)
        if snapshot is not None and not SNAPSHOT.fullmatch(snapshot):
            c.problem(("snapshot",), "expected <sha256 of the bytes>.<ext>, a file in ledger/snapshots/")
            snapshot = None
        if grade == "unarchived" and snapshot:
            c.problem(("snapshot",), "an unarchived source has no snapshot; grade it by what was archived")
        if grade and grade != "unarchived" and "snapshot" not in data:
            c.problem(("grade",), f"a {grade} source needs a snapshot (or grade: unarchived)")
        fmt = c.choice(("format",), data.get("format", "text"), FORMATS) or "text"
        passages = {}
        if "passages" in data:
            raw = c.mapping(("passages",), data["passages"], allowed=set(data["passages"]) if isinstance(data["passages"], dict) else set())
            for pid, text in raw.items():
                if not isinstance(pid, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", pid):
                    c.problem(("passages", pid), "passage ids are letters, digits, '-', '_' and '.'")
                    continue
                text = c.text(("passages", pid), text, max_len=5000)
                if text:
                    passages[pid] = text
            if passages and grade == "unarchived":  # it would back a figure on its author's word alone
                c.problem(("passages",), "an unarchived source cannot hold passages: no archived text checks "
                                         "them (say what it said in notes:)")
        values = {}
        if "values" in data:
            raw = c.mapping(("values",), data["values"], allowed=set(data["values"]) if isinstance(data["values"], dict) else set())
            for name, spec in raw.items():
                value = _value(c, name, spec)
                if value:
                    values[name] = value
            if values and grade == "unarchived":
                c.problem(("values",), "an unarchived source cannot supply values: nothing checks them")
        notes = c.text(("notes",), data.get("notes"), required=False, max_len=5000)
        safetensors = data.get("safetensors")
        if safetensors is not None and not isinstance(safetensors, dict):
            c.problem(("safetensors",), "expected a mapping")
        if c.problems:
            return None, c.problems
        assert title is not None and grade is not None  # required keys: a missing one is a problem, above
        return cls(id=source_id, file=doc.file, line=doc.line(), title=title, grade=grade, publisher=publisher,
                   date=date, url=url, hub=hub, retrieved=retrieved, snapshot=snapshot, format=fmt,
                   values=values, passages=passages, notes=notes, safetensors=safetensors,
                   doc=doc), []


def _primary_where(c: Checker, hub: Hub | None, retrieved: dict[str, Any]) -> None:
    """Where a primary source's bytes were read (``retrieved.url``) must be the official file: a Hub file's
    own repository (not a derivative's, such as a merge that inherits the config: that is a copy), and
    any other file's address at the commit the record names. A record claiming a commit for bytes its
    own address says came from elsewhere is refused. (``url``, the address a reader is sent to, may stay
    the one first cited.)"""
    commit, address, path = str(retrieved.get("commit")), retrieved.get("url"), ("retrieved", "url")
    if not isinstance(address, str) or not address:
        return
    if hub is not None:
        parts = urlsplit(address)
        repo = "/".join(parts.path.strip("/").split("/")[:2]).lower()
        if parts.hostname in ("huggingface.co", "hf.co") and repo != hub.repo.lower() \
                and not repo.startswith(("datasets/", "spaces/")):
            c.problem(path, f"a primary source is the Hub file of {hub.repo} itself; this address is in "
                            f"{repo}: grade it by what was seen (copy)")
    elif commit[:7].lower() not in address.lower():
        c.problem(path, f"a primary source's bytes are read at its commit ({commit[:12]}); this address "
                        "does not name it: give the address at that commit, or grade it by what was seen (copy)")


def _value(c: Checker, name: str, spec: object) -> Value | None:
    path = ("values", name)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        c.problem(path, "value names are letters, digits, '-', '_' and '.'")
        return None
    data = c.mapping(path, spec, allowed={"value", "passage"}, required={"value", "passage"})
    raw = data.get("value")
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        raw = str(raw)
    text = c.text(path + ("value",), raw, max_len=200)
    passage = c.text(path + ("passage",), data.get("passage"), max_len=5000)
    if text is None or passage is None:
        return None
    try:
        figure = units.read_quantity(text)
    except LedgerError as exc:
        c.problem(path + ("value",), str(exc))
        return None
    if not _number_in(figure.number, passage):
        c.problem(path + ("passage",), f"the passage does not state the number {figure.number}")
        return None
    if len(re.sub(r"\s", "", passage.replace(figure.number, "", 1))) < 5:
        c.problem(path + ("passage",), "quote the words around the number too, so a reader can see what it counts")
        return None
    if figure.unit and (other := _other_unit(figure.number, figure.unit, passage)):
        c.problem(path + ("value",), other)
        return None
    return Value(name=name, text=text, value=figure.value, unit=figure.unit, passage=passage)


def _number_in(number: str, passage: str) -> bool:
    plain = number.replace(",", "").lstrip("+")
    if "/" in plain:  # a fraction such as 1/4 must appear as written
        return re.search(r"(?<![\d/])" + re.escape(plain) + r"(?![\d/])", normalise(passage), re.ASCII) is not None
    for candidate in re.findall(r"\d[\d,]*(?:\.\d+)?", normalise(passage), re.ASCII):
        if candidate.replace(",", "") == plain:
            return True
    return False


# The unit words a passage prints right after a number ("1,010,000 tokens", "320GB", "890 bytes per
# token", "1-byte"), and the counted things that are no unit ("48 layers"): what the number is of.
_AFTER_NUMBER = re.compile(r"[ -]?([A-Za-z%]+(?:/[A-Za-z]+)?)(?: per ([A-Za-z]+)\b)?")
_COUNTED = re.compile(r"(?i:layers?|heads?|experts?|GPUs?|channels?)")


def _other_unit(number: str, unit: str, passage: str) -> str | None:
    """Why a declared value in ``unit`` is not what its passage states, or None: each place the passage
    prints ``number``, the word right after it is a known unit of another dimension than ``unit``
    ("1,010,000 tokens" for a value in GB), or a counted thing ("48 layers") for a value with a unit.
    Conservative: an unknown word, none, or one place that agrees lets the value stand; "67B" (a model's
    billions, not bytes) and a fraction as printed are never read."""
    plain = number.replace(",", "").lstrip("+")
    if "/" in plain:
        return None
    text = normalise(passage)
    wanted = units.quantity(1, unit).dimensionality
    numerator = units.quantity(1, unit.split("/")[0]).dimensionality
    found = None
    for match in re.finditer(r"\d[\d,]*(?:\.\d+)?", text, re.ASCII):
        if match.group().replace(",", "") != plain:
            continue
        after = _AFTER_NUMBER.match(text, match.end())
        if after is None or after.group(1) in ("B", "b") and not text[match.end()].isspace():
            return None  # no word, or a model's billions ("67B")
        word = after.group(1) + (f"/{after.group(2)}" if after.group(2) else "")
        if _COUNTED.fullmatch(after.group(1)):
            dims, what = None, f"a count of {after.group(1)}"
        else:
            try:
                dims = units.quantity(1, word).dimensionality
            except LedgerError:
                try:  # "890 bytes of cache per token": the word alone
                    word = after.group(1)
                    dims = units.quantity(1, word).dimensionality
                except LedgerError:
                    return None
            if dims == wanted or (after.group(2) is None and dims == numerator):
                return None  # the unit, or its numerator ("890 bytes" for 890 B/token)
            what = units.describe_dimension(dims)
        found = found or f"the passage prints {match.group()} {after.group(0).strip(' -')} ({what}), not {unit} " \
                         f"({units.describe_dimension(wanted)}): a value is in the unit its passage states it in"
    return found


_TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                             "\u2014": "-", "\u2212": "-", "\u00a0": " ", "\u2026": "..."})


def normalise(text: str) -> str:
    """Text as compared for passages: NFKC, plain quotes and dashes, single spaces."""
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    return re.sub(r"\s+", " ", text).strip()


@frozen(kw_only=True)
class Snapshot:
    """An archived copy's bytes, checked against its name, with the text used for passages."""

    name: str
    raw: bytes
    text: str
    normalised: str
    parsed: object = None

    @classmethod
    def read(cls, name: str, raw: bytes, fmt: str) -> Snapshot:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != name.split(".", 1)[0]:
            raise LedgerError(f"snapshot {name} does not match its sha256 (the bytes hash to {digest})")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise LedgerError(f"snapshot {name} is not UTF-8 text") from None
        parsed = None
        if fmt == "json":
            try:
                parsed = json.loads(text, parse_float=str, parse_int=str, object_pairs_hook=_unique_keys)
            except _DuplicateKey as exc:
                raise LedgerError(f"snapshot {name}: key {exc.key!r} appears twice in one object"
                                  f"{_lines_of(text, exc.key)}; JSON readers disagree on which value counts, "
                                  "so neither is used") from None
            except (ValueError, RecursionError) as exc:
                raise LedgerError(f"snapshot {name} is not valid JSON: {exc}") from None
        return cls(name=name, raw=raw, text=text, normalised=normalise(text), parsed=parsed)

    def has_passage(self, passage: str) -> bool:
        return normalise(passage) in self.normalised

    def lookup(self, key: str) -> str:
        """The value of ``key`` as printed in the snapshot (dotted path for JSON)."""
        if self.parsed is not None:
            node = self.parsed
            parts = key.split(".")
            for index, part in enumerate(parts):
                if isinstance(node, dict) and part in node:
                    self._one_way(node, key, parts, index)
                    node = node[part]
                elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                    node = node[int(part)]
                else:
                    names = _leaf_paths(self.parsed)
                    raise LedgerError(f"key {key!r} is not in snapshot {self.name}{_near(key, names)}")
            if isinstance(node, (dict, list)) or node is None or isinstance(node, bool):
                raise LedgerError(f"key {key!r} in snapshot {self.name} is not a number")
            return str(node)
        pairs = excerpt_numbers(self.text)
        found = pairs.get(key)
        if not found:
            raise LedgerError(f"key {key!r} is not in snapshot {self.name}{_near(key, list(pairs))}")
        if len(found) > 1:
            raise LedgerError(f"key {key!r} has several values in snapshot {self.name}: {', '.join(sorted(found))}")
        return found[0]

    def _one_way(self, node: dict[str, Any], key: str, parts: list[str], index: int) -> None:
        """Refuse a dotted path that an object's own dotted key would read too: {"n.x": 48, "n": {"x": 47}}
        gives n.x two values, and which one counts is no reader's to guess."""
        for end in range(index + 2, len(parts) + 1):  # a dict lookup or two: no scan of the object's keys
            if (dotted := ".".join(parts[index:end])) in node:
                raise LedgerError(f"key {key!r} is ambiguous in snapshot {self.name}: an object holds the key "
                                  f"{dotted!r} and the path goes on through {parts[index]!r}; neither is used")

    def lookup_text(self, key: str) -> str:
        """The text value of ``key`` (a dtype name, say): a JSON string at a dotted path, or in an excerpt a
        ``"key": "text"`` pair that occurs with one value only."""
        if self.parsed is not None:
            node = self.parsed
            parts = key.split(".")
            for index, part in enumerate(parts):
                if not isinstance(node, dict) or part not in node:
                    raise LedgerError(f"key {key!r} is not in snapshot {self.name}")
                self._one_way(node, key, parts, index)
                node = node[part]
            if not isinstance(node, str) or node.startswith(("-", ".")) or node[:1].isdigit():
                raise LedgerError(f"key {key!r} in snapshot {self.name} is not a text value")
            return node
        found: set[str] = set(re.findall(r'"' + re.escape(key) + r'"\s*:\s*"([^"\\\n]{1,64})"', self.text))
        if not found:
            raise LedgerError(f"key {key!r} is not in snapshot {self.name} as a quoted text value")
        if len(found) > 1:
            raise LedgerError(f"key {key!r} has several values in snapshot {self.name}: {', '.join(sorted(found))}")
        return found.pop()


def _leaf_paths(node: object, prefix: str = "", out: list[str] | None = None, limit: int = 5000) -> list[str]:
    """The dotted paths of a parsed JSON document's values (at most `limit` of them)."""
    out = [] if out is None else out
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for name, child in items:
        if len(out) >= limit:
            break
        if isinstance(child, (dict, list)):
            _leaf_paths(child, f"{prefix}{name}.", out, limit)
        else:
            out.append(f"{prefix}{name}")
    return out


def _near(key: str, names: list[str]) -> str:
    """"; near names: ..." for a key that looks like a typo of names the snapshot has (difflib): the
    whole path compared, and its last part against each name's last part (a typo in a nested key)."""
    import difflib

    names = list(dict.fromkeys(names))
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
    by_last: dict[str, list[str]] = {}
    for name in names:
        by_last.setdefault(name.rsplit(".", 1)[-1], []).append(name)
    for last in difflib.get_close_matches(key.rsplit(".", 1)[-1], list(by_last), n=3, cutoff=0.6):
        close += [name for name in by_last[last] if name not in close]
    return f"; near names: {', '.join(close[:5])}" if close else ""


_EXCERPT_PAIR = re.compile(r'"([^"\\\n]{1,200})"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)', re.ASCII)  # ASCII digits only, as the loader reads figures


@functools.lru_cache(maxsize=64)
def excerpt_numbers(text: str) -> dict[str, tuple[str, ...]]:
    """The ``"key": number`` pairs of a config excerpt kept as text (``format: text``): each key's
    distinct numbers as printed, in order. A key with more than one is ambiguous: ``lookup`` refuses
    it, and refresh lists it as changed. The one reader of this format (verify and refresh alike)."""
    found: dict[str, dict[str, None]] = {}
    for key, number in _EXCERPT_PAIR.findall(text):
        found.setdefault(key, {})[number] = None
    return {key: tuple(numbers) for key, numbers in found.items()}


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key that appears twice (``json`` would keep the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _lines_of(text: str, key: str) -> str:
    """`` (lines 3, 9)``: where ``"key":`` stands in the snapshot, for the message."""
    pattern = re.compile(re.escape(json.dumps(key)) + r"\s*:")
    lines = [text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)][:10]
    return f" (lines {', '.join(map(str, lines))})" if len(lines) > 1 else ""


_PLAIN_NUMBER = re.compile(r"-?\d{1,100}(?:\.\d{1,100})?(?:[eE](?P<exp>[-+]?\d{1,4}))?", re.ASCII)


@functools.lru_cache(maxsize=65536)
def number_value(printed: str) -> Fraction:
    """A number as a snapshot prints it, exactly; absurd sizes (1e999999999) are refused, not built.
    Once per distinct text (a Fraction is immutable; errors are raised again, never cached)."""
    match = _PLAIN_NUMBER.fullmatch(printed.strip())
    if not match:
        raise LedgerError(f"{printed!r} is not a number")
    if match.group("exp") and abs(int(match.group("exp"))) > 100:
        raise LedgerError(f"{printed!r} is out of range (exponents up to 100)")
    return Fraction(printed.strip())
