"""`workings source add`: one new source record, its snapshot archived by sha256, in one step.

Three kinds, as an editor meets them:

- a Hub file (`REPO FILE [--revision R]`): fetched with refresh's Hub code (`hub.fetch_hub`: the
  revision resolved to a commit, the bytes read from the URL pinned to it and checked against the
  Hub's ETag). The record is pinned to that commit and graded `primary` (the official bytes of that
  repository; `--grade copy` for a repository that only copies another's file). A
  `*.safetensors.index.json` also gets its parameter counts by dtype, read from the shards' headers;
- a web page (`URL`): fetched with refresh's manners (`fetch.http_get`); an HTML page is archived as
  its visible text (`pagetext.page_text`), anything else as sent. Graded `transcription` unless the
  editor says otherwise (see `WEB_GRADE`);
- a local file the editor holds (`--file PATH --url URL --how TEXT [--retrieved DATE] [--commit SHA]`):
  archived as it is (an HTML file as its visible text), graded `copy` unless the editor says otherwise,
  retrieved on the date given or `unknown`. `primary` needs `--commit`: the official bytes are a file
  of the publisher's repository at a commit, which the record names (`retrieved.commit`).

Every passage (`--passage`) and declared value (`--value`) must occur in the archived text, checked
by the loader's own rules before anything is written. Nothing is overwritten: an existing record is
refused, and a snapshot file of the same name whose bytes differ is refused, not replaced. The
snapshot is written first, then the record, each atomically.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from workings import atomic
from workings.refresh.cleanup import ledger_lock
from workings.errors import LedgerError
from workings.loader import CLAIMS_DIR, SNAPSHOTS_DIR, SOURCES_DIR
from workings.models import GRADE_MEANING, GRADES, SOURCE_ID
from workings.safetext import short
from workings.refresh import archive
from workings.refresh.fetch import Fetched, FetchError, Limits, check_url, http_get, hub_endpoint, make_session
from workings.refresh.pagetext import is_html, page_text
from workings.sources import COMMIT, Snapshot, Source
from workings.yamlio import load

# The highest grade each kind can honestly carry, and the one given when the editor states none.
# A web page defaults to `transcription`: its archived text is the page's own words, but not its bytes,
# and nothing at a URL says whether the page is the original or restates another source. An editor who
# knows says so (`--grade paraphrase` for a page that only restates the source it is recorded for). A
# local file defaults to `copy`: the editor holds bytes that came from somewhere else, which the record
# names. `primary` is a Hub file at its resolved commit, or a local file of the publisher's repository
# with the commit it was read at (`--commit`): a page fetched from a URL records no commit, and a file
# without one says nothing of which bytes, or whose, were kept.
HUB_GRADE, WEB_GRADE, FILE_GRADE = "primary", "transcription", "copy"
MAX_FILE = 64 * 2**20
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
# Hints for the unit of a key a claim reads (shown, never written).
_UNIT_HINTS = {"max_position_embeddings": "token", "total_size": "B"}


class AddError(LedgerError):
    """The source cannot be added as asked; nothing was written."""


class Unreachable(AddError):
    """The source could not be fetched (the network or the server, not the request)."""


@dataclass(frozen=True, kw_only=True)
class Request:
    """What the editor asked for."""

    id: str | None = None
    repo: str | None = None  # a Hub file
    filename: str | None = None
    revision: str = "main"
    url: str | None = None  # a web page, or where a local file came from
    file: Path | None = None  # a local file
    how: str | None = None
    retrieved: str | None = None
    commit: str | None = None  # a local file: the commit of the publisher's repository it was read at
    grade: str | None = None
    title: str | None = None
    publisher: str | None = None
    notes: str | None = None
    passages: tuple[str, ...] = ()
    values: tuple[tuple[str, str, str], ...] = ()  # (name, figure, passage)

    @property
    def kind(self) -> str:
        return "file" if self.file is not None else "hub" if self.repo else "web"


@dataclass(frozen=True, kw_only=True)
class Readable:
    """One input a claim can write, with the value it reads now."""

    input: str
    value: str


@dataclass(frozen=True, kw_only=True)
class Added:
    id: str
    record: str  # path relative to the root
    snapshot: str
    snapshot_new: bool
    grade: str
    kind: str
    commit: str | None = None
    readable: tuple[Readable, ...] = ()
    cites: tuple[str, ...] = ()
    text: str = field(default="", repr=False)  # the record as written


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def add_source(root: Path, request: Request, *, limits: Limits = Limits(),
               now: Callable[[], str] = _now) -> Added:
    """Fetch or read the source, archive it, and write its record; AddError says why not."""
    root = Path(root)
    if not (root / SOURCES_DIR).parent.is_dir() and not (root / CLAIMS_DIR).is_dir():
        raise AddError(f"{root}: no claims/ or ledger/ here; is --root the ledger's folder?")
    grade = _grade(request)
    source_id = request.id or _default_id(request)
    if not SOURCE_ID.match(source_id) or len(source_id) > 120:
        raise AddError(f"source id {source_id!r}: lower-case letters, digits, '.', '_' and '-' (give --id)")
    record_path = root / SOURCES_DIR / f"{source_id}.yaml"
    atomic.check_inside(root, record_path)  # never through a ledger/ or sources/ that links elsewhere
    if record_path.exists() or record_path.is_symlink():
        raise AddError(f"{SOURCES_DIR}/{source_id}.yaml already exists; it is left as it is (choose another --id)")

    fields, data, ext, fmt, commit, parameters = _obtain(request, limits, now)
    snapshot = Snapshot.read(archive.snapshot_name(data, ext), data, fmt) if _is_text(data) else None
    if snapshot is None:
        raise AddError("the bytes are not UTF-8 text, which is all a snapshot can hold (convert the file, say so in --how)")
    passages = _passages(request.passages, snapshot)
    record = _record(source_id, request, grade, fields, snapshot.name, fmt, passages, parameters)
    _validate(record, source_id, snapshot)

    name = snapshot.name
    path = root / SNAPSHOTS_DIR / name
    with ledger_lock(root):  # a refresh cleaning up after a crash must not take this write's temporary file
        existed = path.exists() or path.is_symlink()
        if existed:
            if path.is_symlink() or not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != name.split(".")[0]:
                raise AddError(f"{SNAPSHOTS_DIR}/{name} exists with other bytes (edited?); it is not replaced")
        else:
            archive.store_snapshot(root, data, ext)
        if not atomic.create_text(record_path, record):
            raise AddError(f"{SOURCES_DIR}/{source_id}.yaml appeared meanwhile; it is left as it is")
    return Added(id=source_id, record=f"{SOURCES_DIR}/{source_id}.yaml", snapshot=name, snapshot_new=not existed,
                 grade=grade, kind=request.kind, commit=commit,
                 readable=tuple(readable(source_id, snapshot, parameters, request.values)),
                 cites=tuple(f"{source_id}#{pid}" for pid in passages), text=record)


def _grade(request: Request) -> str:
    default = {"hub": HUB_GRADE, "web": WEB_GRADE, "file": FILE_GRADE}[request.kind]
    grade = request.grade or default
    allowed = [g for g in GRADES if g != "unarchived"]
    if grade not in allowed:
        raise AddError(f"--grade {grade!r}: one of {', '.join(allowed)} (an added source is archived)")
    if request.commit is not None and not COMMIT.fullmatch(request.commit):
        raise AddError(f"--commit {request.commit!r}: the commit's id, 40 or 64 lower-case hex digits")
    if grade == "primary" and request.kind == "web":
        raise AddError("--grade primary: a fetched page records no commit its bytes were read at, so nothing "
                       "says it is the official bytes; grade it transcription (or add the publisher's file at "
                       "its commit: --file PATH --commit SHA)")
    if grade == "primary" and request.kind == "file" and request.commit is None:
        raise AddError("--grade primary: a local file is the official bytes only as a file of the publisher's "
                       "repository at a commit; give --commit SHA (40 or 64 hex digits), or grade it copy")
    return grade


T = TypeVar("T")
# What a request yields: (record fields, snapshot bytes, extension, format, commit, parameters by dtype)
Obtained = tuple[dict[str, Any], bytes, str, str, str | None, dict[str, int] | None]


def _need(value: T | None, what: str) -> T:
    """A field the request's kind requires (the CLI always sets it; a library caller may not)."""
    if value is None:
        raise AddError(f"{what} is required for this kind of source")
    return value


def _default_id(request: Request) -> str:
    if request.kind == "hub":
        stem = f"{request.repo}-{_need(request.filename, 'the Hub file name').rsplit('.', 1)[0]}"
    else:
        from urllib.parse import urlsplit

        parts = urlsplit(request.url or "")
        stem = (parts.hostname or "") + "-" + parts.path.strip("/").rsplit(".", 1)[0]
    slug = re.sub(r"[^a-z0-9.]+", "-", stem.lower()).strip("-.")
    return re.sub(r"-{2,}", "-", slug)[:80].strip("-.") or "source"


def _ext(name: str) -> str:
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else "txt"
    return ext if ext.isalnum() and len(ext) <= 8 else "txt"


def _is_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _obtain(request: Request, limits: Limits, now: Callable[[], str]) -> Obtained:
    """(record fields, snapshot bytes, extension, format, commit, parameters) for the request."""
    if request.kind == "file":
        return _local(request)
    stamp = now()
    session = make_session()
    try:
        if request.kind == "hub":
            from workings.refresh.hub import fetch_hub

            endpoint = hub_endpoint()
            fetched = fetch_hub(session, _need(request.repo, "the Hub repository"),
                                _need(request.filename, "the Hub file name"), request.revision, limits, endpoint=endpoint)
            return _hub_fields(request, fetched, endpoint, stamp)
        url = _need(request.url, "the URL")
        check_url(url)
        fetched = http_get(session, url, limits)
    except FetchError as error:
        raise Unreachable(f"could not fetch it: {short(error)}") from None
    finally:
        session.close()
    return _web_fields(request, fetched, stamp)


def _hub_fields(request: Request, fetched: Fetched, endpoint: str, stamp: str) -> Obtained:
    ext = _ext(_need(request.filename, "the Hub file name"))
    fmt = "json" if ext == "json" else "text"
    if fmt == "json" and (why := archive.unreadable_json(fetched.data)):
        raise AddError(f"{request.repo}/{request.filename} is not valid JSON" if why == "not JSON" else
                       f"{request.repo}/{request.filename} is {why}, so nothing was written")
    commit = _need(fetched.commit, "the resolved commit")
    asked = "" if request.revision == commit else f"{request.revision} resolved to "
    fields = {
        "title": request.title or f"{request.filename} of {request.repo} at commit {commit[:12]}",
        "url": f"{endpoint}/{request.repo}/blob/{fetched.commit}/{request.filename}",
        "hub": {"repo": request.repo, "file": request.filename, "revision": fetched.commit},
        "retrieved": {"on": stamp, "how": f"huggingface_hub from {endpoint}: {request.repo}/{request.filename}, "
                      f"{asked}commit {fetched.commit}; the file's bytes as stored, checked against the Hub's ETag",
                      "commit": fetched.commit, "url": fetched.url},
    }
    return fields, fetched.data, ext, fmt, fetched.commit, dict(fetched.parameters or {}) or None


def _web_fields(request: Request, fetched: Fetched, stamp: str) -> Obtained:
    text = fetched.data.decode("utf-8", "replace")
    page = is_html(fetched.content_type, text)
    if page:
        data, ext, fmt = page_text(fetched.data, fetched.content_type), "txt", "text"
        how = "requests: the page's visible text (markup, scripts and styles dropped, one line per block)"
    else:
        data = page_text(fetched.data, fetched.content_type)  # kept as sent (re-encoded as UTF-8 if need be)
        json_like = ("json" in fetched.content_type.lower()
                     or _need(request.url, "the URL").lower().split("?")[0].endswith(".json"))
        fmt = "json" if json_like and _parses(data) else "text"
        ext = "json" if fmt == "json" else "txt"
        how = "requests: the file at the URL, as sent"
    match = _TITLE.search(text) if page else None
    title = request.title or (" ".join(html.unescape(match.group(1)).split())[:300] if match else "") or request.url
    fields = {"title": title, "url": request.url,
              "retrieved": {"on": stamp, "how": how, "url": fetched.url}}
    return fields, data, ext, fmt, None, None


def _local(request: Request) -> Obtained:
    if not request.url or not request.how:
        raise AddError("--file needs --url (where the file came from) and --how (how it was obtained)")
    try:
        check_url(request.url)
    except FetchError as error:
        raise AddError(f"--url: {error}") from None
    when = request.retrieved or "unknown"
    if when != "unknown" and not _DATE.fullmatch(when):
        raise AddError(f"--retrieved {when!r}: a date such as 2026-11-29 (or leave it out: recorded as unknown)")
    path = _need(request.file, "--file")
    if path.is_symlink() or not path.is_file():
        raise AddError(f"--file {path}: not a regular file")
    if path.stat().st_size > MAX_FILE:
        raise AddError(f"--file {path}: over the {MAX_FILE:,}-byte limit of a snapshot")
    data, ext = path.read_bytes(), _ext(path.name)
    how = request.how
    if ext in ("html", "htm"):
        data, ext = page_text(data, "text/html"), "txt"
        how += " (archived as the page's visible text: markup, scripts and styles dropped)"
    fmt = "json" if ext == "json" and _parses(data) else "text"
    retrieved = {"on": when, "how": how} | ({"commit": request.commit} if request.commit else {})
    fields = {"title": request.title or path.name, "url": request.url, "retrieved": retrieved}
    return fields, data, ext, fmt, request.commit, None


def _parses(data: bytes) -> bool:
    """Whether ``data`` is JSON to archive as such; valid JSON no reader can load is refused, not kept as text."""
    why = archive.unreadable_json(data)
    if why is not None and why != "not JSON":
        raise AddError(f"the file is {why}, so nothing was written")
    return why is None


def _passages(texts: Iterable[str], snapshot: Snapshot) -> dict[str, str]:
    out: dict[str, str] = {}
    for text in texts:
        if not snapshot.has_passage(text):
            raise AddError(f"passage not in the archived text, so nothing was written: {text!r}")
        words = re.findall(r"[a-z0-9]+", text.lower())[:4] or ["passage"]
        pid, n = "-".join(words), 1
        while pid in out:
            n += 1
            pid = f"{'-'.join(words)}-{n}"
        out[pid] = text
    return out


def _record(source_id: str, request: Request, grade: str, fields: dict[str, Any], snapshot: str, fmt: str,
            passages: dict[str, str], parameters: dict[str, int] | None) -> str:
    lines = [f"# Added by `workings source add` ({request.kind}).", f"title: {archive.dump_scalar(fields['title'])}"]
    if request.publisher:
        lines.append(f"publisher: {archive.dump_scalar(request.publisher)}")
    lines.append(f"url: {archive.dump_scalar(fields['url'])}")
    if "hub" in fields:
        lines.append(f"hub: {archive.dump_flow(fields['hub'])}")
    lines.append(f"grade: {grade}")
    lines.append("retrieved:")
    for key, value in fields["retrieved"].items():
        lines.append(f"  {json.dumps(key) if key == 'on' else key}: {archive.dump_scalar(value)}")  # YAML 1.1: on is true
    lines += [f"snapshot: {snapshot}", f"format: {fmt}"]
    if request.values:
        lines.append("values:")
        for name, figure, passage in request.values:
            lines.append(f"  {name}: {{value: {archive.dump_scalar(figure)}, passage: {archive.dump_scalar(passage)}}}")
    if passages:
        lines.append("passages:")
        lines += [f"  {pid}: {archive.dump_scalar(text)}" for pid, text in passages.items()]
    if parameters:
        lines.append(f"safetensors: {archive.dump_flow({'parameters': parameters})}")
    if request.notes:
        lines.append(f"notes: {archive.dump_scalar(request.notes)}")
    return "\n".join(lines) + "\n"


def _validate(record: str, source_id: str, snapshot: Snapshot) -> None:
    """The record as the loader will read it: every key valid, every passage in the archived text."""
    file = f"{SOURCES_DIR}/{source_id}.yaml"
    source, problems = Source.from_document(load(record.encode("utf-8"), file), source_id)
    if problems or source is None:
        raise AddError("; ".join(f"{p.key}: {p.message}" if p.key else p.message for p in problems))
    for name, value in source.values.items():
        if not snapshot.has_passage(value.passage):
            raise AddError(f"--value {name}: its passage is not in the archived text: {value.passage!r}")


def readable(source_id: str, snapshot: Snapshot, parameters: dict[str, int] | None,
             values: Iterable[tuple[str, str, str]] = ()) -> list[Readable]:
    """The inputs a claim can write against this snapshot, with the values they read now."""
    out = [Readable(input=f"{source_id}#{name}", value=figure) for name, figure, _ in values]
    if snapshot.parsed is not None:
        for path, value in _leaves(snapshot.parsed, ""):
            if isinstance(value, str) and _NUMBER.fullmatch(value):
                hint = _UNIT_HINTS.get(path.rsplit(".", 1)[-1])
                out.append(Readable(input=f"{source_id}#{path}" + (f" {hint}" if hint else ""), value=value))
            elif isinstance(value, str) and path.rsplit(".", 1)[-1] in ("torch_dtype", "dtype"):
                out.append(Readable(input=f"dtype:{source_id}#{path}", value=f"{value} (bytes per value)"))
    else:
        keys = dict.fromkeys(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*-?\d', snapshot.text))
        for key in keys:
            try:
                out.append(Readable(input=f"{source_id}#{key}", value=snapshot.lookup(key)))
            except LedgerError:
                continue  # a key with two values cannot be read
    for dtype, count in (parameters or {}).items():
        out.append(Readable(input=f"{source_id}#safetensors.parameters.{dtype} parameter", value=f"{count:,}"))
    return out


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _leaves(node: object, prefix: str, depth: int = 0) -> Iterator[tuple[str, object]]:
    if depth > 8:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and re.fullmatch(r"[A-Za-z0-9_\-]+", key):
                yield from _leaves(value, f"{prefix}.{key}" if prefix else key, depth + 1)
    elif not isinstance(node, list):
        yield prefix, node


def summary(added: Added) -> str:
    """What the command prints: what was written, and how a claim would read it."""
    lines = [f"wrote {added.record}", f"archived {SNAPSHOTS_DIR}/{added.snapshot}"
             + ("" if added.snapshot_new else " (already there, same bytes)"),
             f"grade: {added.grade} ({GRADE_MEANING[added.grade]})" + (f"; commit {added.commit}" if added.commit else "")]
    if added.readable:
        lines.append("A claim's inputs can read:")
        width = min(60, max(len(r.input) for r in added.readable))
        lines += [f"  {short(r.input):<{width}}  {short(r.value)}" for r in added.readable]
    if added.cites:
        lines.append("A claim can cite:")
        lines += [f"  {c}" for c in added.cites]
    if not added.readable:
        lines.append(f"Nothing to read by key: declare numbers under values: in {added.record} (or --value), "
                     "each with the passage that states it.")
    return "\n".join(lines) + "\n"
