"""A draft's neighbourhood: the claims that could be about its figures, read without loading the
whole ledger.

check-draft used to evaluate every claim and hold each draft sentence against every claim's
sentence; at 10,000 claims that was seconds for a one-page draft. A claim can matter to a draft in
four ways only, and each can be told from the record's bytes before anything is parsed:

- its sentence (``said``, or one of ``also_said``) shares at least ``backing.ALIGN`` of its words
  with a sentence of the draft (``match.align``: the first test any sentence match passes);
- a ``<!-- claim: id -->`` marker in the draft names it;
- it belongs to the draft's ``--issue`` group (its claims no figure uses are listed as stale);
- its printed figure states the value of a figure nothing backs (the hint naming it, asked after
  the verdicts, for those figures only).

Every claim record's bytes are read (a fast walk, no parsing) and, where a record is written in the
plain form nearly every record has (top-level ``key: value`` lines; ``said``, ``figure`` and each
``also_said`` item a one-line scalar, no ``id:``, no escapes), its sentences and figure are read off
the lines exactly as YAML would give them. Anything else (a record that is not plain, or two records
giving one id) is always parsed, so nothing is decided on a guess. The claims chosen are then
loaded, with every claim and source they rest on (so each result is the one a whole-ledger run
gives), and evaluated; the verdicts are check-draft's own over those claims (``draft.claims``).
``parsed`` counts the records parsed, for tests.
"""

from __future__ import annotations

import bisect
import operator
import os
import re
from collections import Counter
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple, Optional, Protocol

from .. import loader as records
from ..engine import evaluate_ledger
from ..errors import LedgerError
from ..loader import CLAIMS_DIR, MEASUREMENTS_DIR, SOURCES_DIR, Ledger
from ..neighbourhood import read_record, record_files
from ..models import Claim
from ..report import ClaimResult
from ..yamlio import one_line_scalar
from . import identity, match
from .backing import ALIGN, sentence_shapes
from .claims import Claims, printed_pair
from .finder import Figure, Found
from .identity import Marker

_TOP_LINE = re.compile(r"\n(?=[^ #\n])")
_READ = ("said", "also_said", "figure")
_ITEM_LINE = re.compile(r"( +)- (.*)")
# In UTF-8, line breaks to YAML 1.1 (U+0085, U+2028, U+2029) and a byte-order mark (U+FEFF)
_OTHER_BREAKS = tuple(c.encode() for c in ("\x85", "\u2028", "\u2029", "\ufeff"))
# Each top-level line (one that starts with none of space, "#", newline): its key when the line is
# "key:" or "key: value", else "".
_TOP_KEY = re.compile(r"\n(?:([a-z_]+):(?=[ \n]|\Z)|[^ #\n])")  # searched in "\n" and the text
_NOT_TOP = ("", " ", "#", "\n")
_SAID, _ALSO_SAID, _FIGURE = (re.compile(rf"\n{key}:(?: ([^\n]*))?(?:\n|\Z)") for key in _READ)
# The same key line followed at once by another top-level line or the end: nothing below it
_SAID_ALONE, _FIGURE_ALONE = (re.compile(rf"\n{key}:(?: ([^\n]*))?(?=\n[^ #\n]|\n?\Z)") for key in ("said", "figure"))


class Entry(NamedTuple):
    """A claim record as its bytes say, unparsed (a tuple: 10,000 are made in a scan)."""

    path: str                        # the record's path as the walk gives it (a Path only when loaded)
    id: str                          # the id its path gives
    said: tuple[str, ...] | None     # said and also_said; None: the record is not plain (always parsed)
    figure: str | None = None


Read = Optional[tuple[tuple[str, ...], Optional[str]]]  # what ``read`` gives: plain's answer, or None


def scan(root: Path, memo: Memo | None = None, files: list[tuple[str, bool]] | None = None) -> list[Entry]:
    """Every record under claims/, in the walk's order, read off its bytes (or, with ``memo``, off
    what an earlier scan read from the same file, unchanged since: ``draft.scanmemo``). ``files``:
    the walk's (``record_files``), where the caller has made it."""
    files = record_files(root) if files is None else files
    prefix = len(str(root / CLAIMS_DIR)) + 1
    ids = [_path_id(name, prefix) for name, _ in files]
    got = [read(name, regular) for name, regular in files] if memo is None else memo.read_all(files, prefix)
    make = tuple.__new__  # Entry(...) is a Python __new__: a quarter of a scan of 10,000 known records
    out = [make(Entry, (name, claim_id, None, None) if read_ is None else (name, claim_id, read_[0], read_[1]))
           for (name, _), claim_id, read_ in zip(files, ids, got)]
    if len(set(ids)) == len(ids):
        return out
    # x.yaml beside x.yml: both refused by the loader; parse both so the refusal is the loader's
    twice = {claim_id for claim_id, n in Counter(ids).items() if n > 1}
    return [Entry(e.path, e.id, None) if e.id in twice else e for e in out]


def _path_id(name: str, prefix: int) -> str:
    """The id a record's path gives (``prefix``: the length of the claims folder's path and its separator)."""
    return name[prefix:name.rindex(".")].replace(os.sep, "/")


def read(name: str, regular: bool) -> Read:
    """A record's sentences and figure off its bytes (``plain``); None: not plain, or not a file
    ``read_record`` reads (a link, a pipe, too large, unreadable): parsed, and the loader says why."""
    raw = read_record(name, regular)
    return plain(raw) if raw is not None else None


class Words:
    """``match.words`` of sentences by their text: ``known``, what a memory holds (read by
    ``_aligned``, never trusted beyond its type); ``found``, this scan's sentences with theirs, and
    ``made``, how many of them were worked out (set by ``_aligned``, for the memory to keep)."""

    def __init__(self, known: dict[str, Any]):
        self.known = known
        self.found: dict[str, frozenset[str]] | None = None
        self.made = 0  # sentences of this scan whose words were worked out, not remembered


class Memo(Protocol):
    """What a scan asks of a memory of earlier scans (``draft.scanmemo.ScanMemo``)."""

    reads: int  # records whose bytes the scan read

    @property
    def notes(self) -> list[str]: ...

    def read(self, name: str, rel: str, regular: bool) -> Read: ...

    def read_all(self, files: list[tuple[str, bool]], prefix: int) -> list[Read]: ...

    @property
    def words(self) -> Words: ...

    def save(self) -> None: ...


def plain(raw: bytes) -> tuple[tuple[str, ...], str | None] | None:
    """(said and also_said, figure) of a record in the plain form; None for any other form."""
    if b"\\" in raw or b"\r" in raw or b"\t" in raw:  # escapes, CR, tabs
        return None
    if not raw.isascii() and any(seq in raw for seq in _OTHER_BREAKS):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # top-level blocks: a "key: value" line, then its indented, comment and blank lines; each
    # top-level line gives its key, or "" when it is not "key: value"
    text = "\n" + text
    keys = _TOP_KEY.findall(text)
    if "" in keys or "id" in keys or len(set(keys)) != len(keys):
        return None  # not "key: value", a key twice, or an id the path does not give
    if text[1:2] in _NOT_TOP and any(line.strip(" ") and line[0] != "#" for line in _preamble(text).split("\n")):
        return None
    if "said" not in keys:
        return (), None  # no sentence: no draft sentence is this record's (if valid at all)
    said = _one_line(*_field(text, _SAID, _SAID_ALONE))
    if said is None:
        return None
    also: list[str] = []
    if "also_said" in keys:
        value, lines = _field(text, _ALSO_SAID)
        if value is not None and (value.strip(" ") != "[]" or lines):
            return None
        indent = None
        for line in lines:
            m = _ITEM_LINE.fullmatch(line)
            item = _scalar(m.group(2)) if m else None
            if m is None or item is None or indent not in (None, m.group(1)):
                return None
            indent = m.group(1)
            also.append(item)
    figure = None
    if "figure" in keys:
        figure = _one_line(*_field(text, _FIGURE, _FIGURE_ALONE))
        if figure is None:
            return None
    return (said, *also), figure


def _preamble(text: str) -> str:
    """The lines before the first top-level line (of ``text``: "\\n" and the record's)."""
    first = _TOP_LINE.search(text)
    return text if first is None else text[:first.start()]


def _field(text: str, key: re.Pattern, alone: re.Pattern | None = None) -> tuple[str | None, list[str]]:
    """A top-level key's value on its own line, and the lines of its block below that are neither
    blank nor comments (what YAML would read as more of the value); ``text`` is "\\n" and the record's."""
    if alone is not None and (m := alone.search(text)) is not None:
        return m.group(1), []
    m = key.search(text)
    if m is None:  # not seen: the caller saw the key among the top-level lines; parse the record
        return None, []
    end = m.end()
    following = _TOP_LINE.search(text, end - 1) if end and text[end - 1] == "\n" else None
    rest = text[end:following.start() if following is not None else len(text)]
    return m.group(1), [line for line in rest.split("\n") if line.strip(" ") and line[0] != "#"] if rest else []


def _one_line(value: str | None, following: list[str]) -> str | None:
    return _scalar(value) if value is not None and not following else None


def _scalar(value: str) -> str | None:
    """A one-line YAML scalar as the loader gives it: plain, or quoted without escapes; None for
    anything else (block scalars, anchors, tags, flow collections, comments after the value). A plain
    one is taken as text: a record whose sentence or figure YAML reads otherwise is refused when
    parsed, whatever the scan chose."""
    got = one_line_scalar(value)
    return None if got is None else got[0]


def _group(claim_id: str) -> str:
    return claim_id.split("/", 1)[0] if "/" in claim_id else ""


class Neighbourhood:
    """The ledger at ``root`` as one draft needs it (pass it to ``check_text`` for a Report)."""

    def __init__(self, root: str | os.PathLike, memo: Memo | None = None):
        self.root = Path(root)
        if not (self.root / CLAIMS_DIR).is_dir() and not (self.root / SOURCES_DIR).is_dir():
            raise LedgerError(f"{self.root}: no claims/ or ledger/sources/ here; is --root the ledger's folder?")
        self.parsed = 0     # records parsed, claims and sources (for tests)
        self.memo = memo    # what an earlier scan read (``draft.scanmemo.ScanMemo``), or None: read every record
        self.notes: list[str] = []  # for stderr: what became of the memo, when it was not simply used
        self.jobs: int | None = None  # the processes the scan may use (``readahead.aside``; None: as many as may run)

    def for_draft(self, found: Found, markers: list[Marker], issue: str | None) -> Claims:
        from .. import readahead, units

        files = record_files(self.root)

        def chosen() -> tuple[set[str], dict[str, str], list[str], tuple[int, int]]:
            entries = scan(self.root, self.memo, files)
            wanted = {e.path for e in entries if e.said is None}  # not plain: always parsed
            named = {m.claim for m in markers}
            wanted |= {e.path for e in entries if e.id in named or issue is not None and _group(e.id) == issue}
            wanted |= _aligned(entries, found, None if self.memo is None else self.memo.words)
            rest = _rest(entries, wanted)
            if self.memo is None:
                return wanted, rest, [], (0, 0)
            self.memo.save()  # what the scan read, and the words of each sentence it found
            return wanted, rest, list(self.memo.notes), (self.memo.reads, self.memo.words.made)

        def ready() -> None:  # what evaluating the chosen claims needs first, and the scan does not
            units.registry()  # pint's import and registry: about as long as the scan at 10,000 records
            from .. import said  # noqa: F401  # the check of each claim's sentence
            if (self.root / MEASUREMENTS_DIR).is_dir():
                from .. import measurements  # noqa: F401

        # At thousands of records a child scans and chooses while this process gets ready
        # (readahead.aside); below, or with one processor, this process scans, then loads as before.
        # Its answer is what this process reads of the scan, not the scan (10,000 entries were
        # about a megabyte, and a tenth of check-draft's wait to encode and decode): the records
        # chosen, and the others' paths by figure for the hint (``_rest``)
        (wanted, rest, notes, counts), by_child = readahead.aside(chosen, ready, self.jobs, size=len(files))
        if by_child and self.memo is not None:  # what the child's use of the memory did, told here
            self.memo.reads, self.memo.words.made = counts
        self.notes.extend(notes)
        report_claims = self._evaluate(files, wanted)
        return _NearClaims(report_claims, rest, self)

    def _evaluate(self, files: list[tuple[str, bool]], wanted: set[str]) -> list[ClaimResult]:
        """The claims at ``wanted``, with every claim and source they rest on, evaluated."""
        ledger = Ledger(root=self.root)
        loaded = self._load(ledger, files, wanted)
        records._keep_unique_claims(ledger, loaded)
        sources = {i.source for c in ledger.claims.values() for i in c.inputs if i.kind == "source"}
        sources |= {ref.split("#", 1)[0] for c in ledger.claims.values() for ref in c.cites}
        by_id: dict[str, list[Path]] = {}
        for path in records._yaml_files(ledger, SOURCES_DIR):
            by_id.setdefault(path.stem, []).append(path)
        for source_id in sorted(s for s in sources if s):
            paths = by_id.get(source_id, [])
            if len(paths) > 1:
                records._duplicate_sources(ledger, source_id, paths)
            elif paths:
                records._load_source(ledger, paths[0])
                self.parsed += 1
        records._load_measurements(ledger)
        return list(evaluate_ledger(ledger).claims)

    def _load(self, ledger: Ledger, files: list[tuple[str, bool]], wanted: set[str]) -> list[Claim]:
        records_of = _records_of(str(self.root / CLAIMS_DIR), files)
        pending, done, loaded = sorted(wanted, key=Path), set(), []  # in Path order, as before
        while pending:
            path = pending.pop()
            if path in done:
                continue
            done.add(path)
            claim = records._load_claim(ledger, Path(path))
            self.parsed += 1
            if claim is None:
                continue
            loaded.append(claim)
            # what it rests on; and, for an ``id:`` record, the record whose path gives that id
            # (the path's record keeps the id: see loader._keep_unique_claims)
            for other in [i.claim for i in claim.inputs if i.kind == "claim" and i.claim] + [claim.id]:
                pending.extend(p for p in records_of(other) if p not in done)
        wanted |= done
        return loaded


def _records_of(top: str, files: list[tuple[str, bool]]) -> Callable[[str], list[str]]:
    """The records whose path gives a claim id (``_path_id``), in the walk's order: found by
    bisection in the walk's sorted paths, so that loading a draft's few dozen claims costs what they
    do, not a map of every record (a hundredth of a second at 10,000 records). A path gives ``id``
    when it is ``top``, the separator, ``id`` with its folders, a dot and a suffix with no dot."""
    names = [name for name, _ in files]
    if not all(map(operator.lt, names, islice(names, 1, None))):  # not the walk's sorted order: a map, as before
        prefix = len(top) + 1
        by_id: dict[str, list[str]] = {}
        for name in names:
            by_id.setdefault(_path_id(name, prefix), []).append(name)
        return lambda claim_id: by_id.get(claim_id, [])

    def records_of(claim_id: str) -> list[str]:
        head = f"{top}{os.sep}{claim_id.replace('/', os.sep)}."
        found = []
        at = bisect.bisect_left(names, head)
        while at < len(names) and names[at].startswith(head):
            if "." not in names[at][len(head):]:
                found.append(names[at])
            at += 1
        return found

    return records_of


def _aligned(entries: list[Entry], found: Found, memory: Words | None = None) -> set[str]:
    """The plain records one of whose sentences could be one of the draft's: sharing at least ALIGN
    of its words (``match.align``) and passing ``identity.may_be_same``. ``memory``: a memory's
    ``match.words`` of each sentence, by its text (``draft.scanmemo``), given those of this scan."""
    groups: dict[frozenset[str], list[tuple[str, str]]] = {}
    if memory is None:
        for e in entries:
            for text in e.said or ():
                groups.setdefault(match.words(text), []).append((e.path, text))
    else:
        known = memory.known
        found_now: dict[str, frozenset[str]] = {}
        made = 0
        for e in entries:
            for text in e.said or ():
                got = known.get(text)
                if type(got) is not frozenset:  # the memory is authenticated and of this code: the last guard, kept cheap
                    got = found_now.get(text)  # a sentence said by several records: worked out once
                    if got is None:
                        got = match.words(text)
                        made += 1
                found_now[text] = got
                groups.setdefault(got, []).append((e.path, text))
        memory.found, memory.made = found_now, made
    posting: dict[str, list[frozenset[str]]] = {}
    for words in groups:
        for word in words:
            posting.setdefault(word, []).append(words)
    shapes = sentence_shapes(found)
    out: set[str] = set()
    for sentence in dict.fromkeys(found.sentences):
        counts: Counter[frozenset[str]] = Counter()
        for word in match.words(sentence):
            for words in posting.get(word, ()):
                counts[words] += 1
        could_be = identity.could_be(shapes(sentence))
        for words, n in counts.items():
            if n >= ALIGN * len(words) - 1e-9:
                out.update(path for path, text in groups[words] if could_be(text))
    return out


def _rest(entries: list[Entry], wanted: set[str]) -> dict[str, str]:
    """The plain records not chosen that print a figure in a sentence, by their figure's text: their
    paths in the walk's order, joined by NUL (which no path holds), for the hint (``_NearClaims``):
    a few strings, not 10,000 entries, where a child sends them."""
    texts: dict[str, list[str]] = {}
    for e in entries:
        if e.path not in wanted and e.figure is not None and e.said:
            texts.setdefault(e.figure, []).append(e.path)
    return {text: "\0".join(paths) for text, paths in texts.items()}


class _NearClaims(Claims):
    """The neighbourhood's claims; the hint also reads the records not loaded, by their figure."""

    def __init__(self, claims: list[ClaimResult], rest: dict[str, str], near: Neighbourhood):
        super().__init__(claims)
        self._rest, self._near = rest, near
        self._rest_by: dict[tuple, list[str]] | None = None
        self._hinted: dict[str, tuple[str, list[frozenset[str]]] | None] = {}

    def _same_scores(self, figure: Figure, words: frozenset[str]) -> dict[str, float]:
        same = super()._same_scores(figure, words)
        for printed, joined in self._rest_printing().items():
            if not figure.unit and printed[1] and figure.kind == "count":
                continue
            if not match.states(figure, printed):
                continue
            for path in (path for paths in joined for path in paths.split("\0")):
                confirmed = self._confirm(path)  # parsed: only a valid record is a claim
                if confirmed is not None:
                    claim_id, said = confirmed
                    same[claim_id] = max(len(w & words) / len(w) if w else 0.0 for w in said)
        return same

    def _rest_printing(self) -> dict[tuple, list[str]]:
        """The records not loaded, by their printed (value, unit), read once: NUL-joined paths (``_rest``)."""
        if self._rest_by is None:
            self._rest_by = {}
            for text, paths in self._rest.items():
                if (pair := printed_pair(text)) is not None:
                    self._rest_by.setdefault(pair, []).append(paths)
        return self._rest_by

    def _confirm(self, path: str) -> tuple[str, list[frozenset[str]]] | None:
        if path not in self._hinted:
            ledger = Ledger(root=self._near.root)
            claim = records._load_claim(ledger, Path(path))
            self._near.parsed += 1
            ok = (claim is not None and claim.figure is not None and claim.said
                  and printed_pair(claim.figure) is not None and claim.id not in {c.id for c in self.claims})
            self._hinted[path] = (claim.id, [match.words(s) for s in (claim.said, *claim.also_said)]) \
                if ok and claim is not None else None
        return self._hinted[path]
