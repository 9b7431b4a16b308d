"""Fetching sources: files on the Hugging Face Hub (huggingface_hub) and web pages (requests).

This package is the only part of workings that touches the network, and only `workings refresh`
imports it. Manners, the same for both kinds of source:

- http(s) only, checked on the first URL and on every redirect;
- a timeout on every request, and it bounds the whole request, not each wait: a server that sends its
  body one byte at a time is stopped once `Limits.timeout` has passed since the request began (the
  body is read as it arrives, and the clock checked after each read). Timeouts and refused
  connections are reported, not retried (a host that does not answer is usually down or offline,
  and retrying only makes the run slower);
- a deadline for the whole fetch of one source (`Limits.deadline`: every request, redirect, retry and
  wait), kept by `within_deadline`, which stops waiting for a fetch that has not ended in time,
  whatever it is stuck in (a server that drips its headers, a Hub call);
- bounded retries with exponential backoff on 429 and 5xx, honouring a numeric `Retry-After` (or the
  Hub's `RateLimit` header) up to `Limits.max_backoff`, and on a body cut short; no wait runs past the
  deadline. huggingface_hub's own `http_backoff` is not used for this: it sleeps as long as the
  server asks (plus 1 s, with no cap), inside the call, so no deadline could be kept around it;
- an answer that is not HTTP (a header line over 65,536 bytes, garbage instead of a status line) is
  reported as a bad answer from that host, not as a network failure;
- a size limit, checked on `Content-Length` and again while streaming;
- redirects followed up to `Limits.max_redirects`. A web page that redirects to another host is
  reported, not followed: the page moved, and the ledger's URL should say where. A Hub file may
  redirect to its CDN, as every large file on the Hub does.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urljoin, urlsplit

import requests

T = TypeVar("T")

DEFAULT_ENDPOINT = "https://huggingface.co"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CHUNK = 64 * 1024


@dataclass(frozen=True, kw_only=True)
class Limits:
    """How patient and how greedy a refresh is."""

    timeout: float = 20.0  # seconds, per request: connecting, each wait, and the whole request
    retries: int = 3  # further tries after the first, on 429, 5xx and cut-short bodies
    backoff: float = 1.0  # seconds before the first retry; doubles on each further one
    max_backoff: float = 30.0  # cap on one wait, `Retry-After` included
    max_bytes: int = 64 * 2**20  # the largest body archived (a config.json is a few kB)
    max_redirects: int = 5
    concurrency: int = 4  # requests in flight at once
    deadline: float | None = None  # seconds for the whole fetch of one source; None: see `whole`

    @property
    def whole(self) -> float:
        """The deadline for one source's whole fetch: `deadline`, or by default room for every try
        to take its full timeout twice (a Hub file is two requests) and for the backoff's own waits
        (a longer wait that a server asks for is not begun if it would pass the deadline)."""
        if self.deadline is not None:
            return self.deadline
        waits = sum(min(self.backoff * 2.0**attempt, self.max_backoff) for attempt in range(self.retries))
        return 2 * (self.retries + 1) * self.timeout + waits


@dataclass(frozen=True, kw_only=True)
class Fetched:
    """Bytes fetched for one source, and where they came from."""

    url: str  # the URL the bytes were read from, after redirects
    data: bytes
    content_type: str = ""
    commit: str | None = None  # Hub sources: the commit the revision resolved to
    parameters: Mapping[str, int] | None = None  # safetensors: parameter count by dtype

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


class FetchError(Exception):
    """A source could not be fetched. `kind` is a short slug; the message says what happened."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        # offline | refused | timeout | hf-offline | slow | deadline | bad-answer | http | too-large | truncated
        # | moved | scheme | integrity | format
        self.kind = kind

    @property
    def connection(self) -> bool:
        """True when nothing was heard from the host at all (the network, not the source)."""
        return self.kind in ("offline", "refused", "timeout")


class _Retry(Exception):
    def __init__(self, error: FetchError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


def check_url(url: str) -> str:
    """The URL, if its scheme is http or https and it names a host; FetchError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise FetchError("scheme", f"not an http(s) URL: {url!r}")
    return url


def same_origin(first: str, second: str) -> bool:
    """Same host and port, allowing http to become https on the default ports."""
    a, b = urlsplit(first), urlsplit(second)
    if (a.hostname or "").lower() != (b.hostname or "").lower():
        return False
    port_a = a.port or _DEFAULT_PORTS.get(a.scheme)
    port_b = b.port or _DEFAULT_PORTS.get(b.scheme)
    defaults = port_a == _DEFAULT_PORTS.get(a.scheme) and port_b == _DEFAULT_PORTS.get(b.scheme)
    return port_a == port_b or defaults


HF_OFFLINE_MESSAGE = ("HF_HUB_OFFLINE is set: huggingface_hub is in offline mode, so the Hub was not asked "
                      "(unset HF_HUB_OFFLINE to refresh this source)")


def connection_error(error: BaseException, url: str) -> FetchError:
    """Name a failure to reach a host: offline (name resolution or no route), refused, or timeout;
    or an answer that was not HTTP (`bad-answer`: the host did answer, so the machine is not offline)."""
    names = {cls.__name__ for cls in type(error).__mro__}
    text = str(error)
    if "OfflineModeIsEnabled" in names:
        return FetchError("hf-offline", HF_OFFLINE_MESSAGE)
    if re.search(r"got more than \d+ headers", text):  # http.client's limit on the number of headers
        return FetchError("bad-answer", f"{_host(url)} sent more headers than an HTTP client reads (over 100): "
                                        f"not a usable HTTP answer ({url})")
    if "LineTooLong" in text or "got more than" in text or "header" in text.lower() and "too" in text.lower():
        return FetchError("bad-answer", f"{_host(url)} sent a header line over 65,536 bytes: not a usable HTTP "
                                        f"answer ({url})")
    if "buffer too long" in text:  # h11, under httpx: the Hub's client
        return FetchError("bad-answer", f"{_host(url)} sent headers longer than the HTTP client accepts: not a "
                                        f"usable HTTP answer ({url})")
    if names & {"RemoteProtocolError", "BadStatusLine", "LocalProtocolError", "InvalidHeader", "ProtocolError",
                "ChunkedEncodingError", "ContentDecodingError", "InvalidChunkLength", "RemoteDisconnected"} \
            or "BadStatusLine" in text or "RemoteDisconnected" in text:  # the host answered, in no HTTP
        return FetchError("bad-answer", f"{_host(url)} did not answer in HTTP ({url}): {_first_line(text)}")
    if names & {"Timeout", "TimeoutException", "ReadTimeout", "ConnectTimeout", "TimeoutError"}:
        return FetchError("timeout", f"no answer from {_host(url)} in time ({url})")
    if any(hint in text for hint in ("resolve", "Name or service", "nodename", "getaddrinfo",
                                     "Network is unreachable", "No route to host")):  # fmt: skip
        return FetchError("offline", f"cannot reach {_host(url)}: no network or no such host")
    if "refused" in text.lower():
        return FetchError("refused", f"{_host(url)} refused the connection ({url})")
    return FetchError("offline", f"cannot reach {_host(url)}: {_first_line(text) if text else names}")


def _first_line(text: str, limit: int = 300) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[:limit] + "…"


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def within_deadline(call: Callable[[], T], seconds: float, what: str, *, error: FetchError | None = None) -> T:
    """`call()`, or `error` (by default FetchError("deadline")) if it has not returned within `seconds`.

    The call runs in a daemon thread: one stuck in a read that a slow server keeps alive is left
    behind (it ends when the server stops, or with the process), so the caller never waits longer
    than the deadline. What it was using (a connection of a requests.Session's pool, which is
    thread-safe) it keeps until then.
    """
    box: dict[str, object] = {}
    lock = threading.Lock()

    def run() -> None:
        try:
            value = call()
        except BaseException as failure:  # handed to the caller's thread below
            box["error"] = failure
            return
        with lock:
            late = box.get("abandoned")
            box["value"] = value
        if late and hasattr(value, "close"):
            value.close()  # a response nobody will read: give its connection back

    thread = threading.Thread(target=run, name=f"workings-fetch {what}"[:60], daemon=True)
    thread.start()
    thread.join(max(0.0, seconds))
    with lock:
        if thread.is_alive() and "value" not in box:
            box["abandoned"] = True
    if box.get("abandoned"):
        raise error or FetchError("deadline", f"{what}: not fetched within the {seconds:g}-second deadline for one "
                                              "source (the server is too slow, or keeps the answer coming)")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def with_retries(
    call: Callable[[], T], limits: Limits, sleep: Callable[[float], None], *, until: float | None = None
) -> T:
    """Run `call`, retrying on `_Retry` with exponential backoff, at most `limits.retries` times, and
    never waiting past `until` (a `time.monotonic()` time; by default `limits.whole` from now)."""
    until = time.monotonic() + limits.whole if until is None else until
    attempt = 0
    while True:
        try:
            return call()
        except _Retry as retry:
            tries = f"{attempt + 1} tries" if attempt else "1 try"
            if attempt >= limits.retries:
                raise FetchError(retry.error.kind, f"{retry.error} (gave up after {tries})") from None
            wait = limits.backoff * 2**attempt
            if retry.retry_after is not None:
                wait = max(wait, retry.retry_after)
            wait = min(wait, limits.max_backoff)
            if time.monotonic() + wait >= until:
                raise FetchError(retry.error.kind, f"{retry.error} (gave up after {tries}: waiting {wait:g} s more "
                                                   "would pass the deadline)") from None
            sleep(wait)
            attempt += 1


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def default_user_agent() -> str:
    """`workings/<version>`, then the HTTP library: who is asking, for a site's logs."""
    from workings import __version__

    return f"workings/{__version__} (refresh) python-requests/{requests.__version__}"


def make_session(user_agent: str | None = None) -> requests.Session:
    session = requests.Session()
    session.headers["User-Agent"] = user_agent or default_user_agent()
    return session


def http_get(
    session: requests.Session,
    url: str,
    limits: Limits,
    *,
    headers: Mapping[str, str] | None = None,
    other_hosts: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> Fetched:
    """GET a URL within the limits; FetchError says why it could not be read."""
    check_url(url)
    return with_retries(lambda: _get_once(session, url, limits, headers or {}, other_hosts), limits, sleep)


def _get_once(
    session: requests.Session, url: str, limits: Limits, headers: Mapping[str, str], other_hosts: bool
) -> Fetched:
    current, sent = url, dict(headers)
    until = time.monotonic() + limits.timeout  # the whole request, redirects and body included
    for _ in range(limits.max_redirects + 1):
        try:  # redirects are followed by hand below, to check each hop
            # The answer's status line and headers, within what is left of the request's time: a
            # server can keep them coming a byte at a time, which no read timeout notices. (Plus one
            # read's timeout, as for the body: a server that sends nothing is a timeout, seen first.)
            response = within_deadline(
                lambda: session.get(current, headers=sent, stream=True, timeout=limits.timeout, allow_redirects=False),
                until - time.monotonic() + limits.timeout, current,
                error=_slow(current, limits.timeout, "no complete answer"))
        except requests.exceptions.RequestException as error:
            raise connection_error(error, current) from None
        with response:
            if response.is_redirect:
                target = urljoin(current, response.headers["Location"])
                if urlsplit(target).scheme not in _DEFAULT_PORTS:
                    raise FetchError("moved", f"{current} redirects to a non-http(s) URL: {target}")
                if not same_origin(current, target):
                    if not other_hosts:
                        raise FetchError("moved", f"{url} redirects to another host: {target}")
                    sent = {k: v for k, v in sent.items() if k.lower() != "authorization"}
                current = target
                continue
            status = response.status_code
            if status in RETRY_STATUSES:
                raise _Retry(FetchError("http", f"HTTP {status} {response.reason} from {current}"),
                             _retry_after(response.headers))
            if status != 200:  # 206 (a part), 204 and 304 (no body), a 3xx without Location: not the page
                raise FetchError("http", f"HTTP {status} {response.reason} from {current}"
                                         + ("" if status >= 400 else ": only a whole answer (200) is archived"))
            data = read_capped(response, limits.max_bytes, current, until=until, timeout=limits.timeout)
            content_type = response.headers.get("Content-Type", "")
            return Fetched(url=current, data=data, content_type=content_type)
    raise FetchError("moved", f"{url}: more than {limits.max_redirects} redirects")


def read_capped(
    response: requests.Response, max_bytes: int, url: str, *, until: float | None = None, timeout: float = 0.0
) -> bytes:
    """The body, refused if it is over `max_bytes` (declared or read), retried if cut short, and
    stopped if it is still coming at `until` (a `time.monotonic()` time).

    The body is read as it arrives (`read1`: one read of the socket at a time, decoded), so a server
    that sends a byte a second is noticed at the next byte, not after a 64 KiB buffer fills."""
    import urllib3.exceptions

    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError("too-large", f"{url} is {int(declared):,} bytes, over the {max_bytes:,}-byte limit")
    raw = response.raw
    read = raw.read1 if hasattr(raw, "read1") else raw.read
    chunks, total = [], 0
    try:
        while True:
            if until is not None and time.monotonic() > until:
                raise _slow(url, timeout, "still sending")
            chunk = read(_CHUNK, decode_content=True)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:
                raise FetchError("too-large", f"{url} sent more than the {max_bytes:,}-byte limit")
            chunks.append(chunk)
    except (urllib3.exceptions.ReadTimeoutError, TimeoutError):
        # the host answered (its status line and headers came): a body that stops is a slow answer, not
        # an unreachable host, and never "is this machine offline?"
        raise FetchError("slow", f"{url}: the body stopped after {total:,} bytes, nothing more within "
                                 f"{timeout:g} s") from None
    except (urllib3.exceptions.HTTPError, OSError):
        # IncompleteRead, a reset connection, a broken chunked encoding: fewer bytes than promised.
        raise _Retry(FetchError("truncated", f"{url}: the body was cut short")) from None
    return b"".join(chunks)


def _slow(url: str, timeout: float, what: str) -> FetchError:
    return FetchError("slow", f"{url}: {what} after {timeout:g} s, the time allowed for a whole request (--timeout)")


def hub_endpoint() -> str:
    """The Hub to fetch from: `HF_ENDPOINT` as it is now (huggingface_hub reads it once, at import)."""
    endpoint = os.environ.get("HF_ENDPOINT", "").strip() or DEFAULT_ENDPOINT
    return check_url(endpoint.rstrip("/"))
