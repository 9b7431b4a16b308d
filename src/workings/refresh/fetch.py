"""Fetching sources: files on the Hugging Face Hub (huggingface_hub) and web pages (requests).

This package is the only part of workings that touches the network, and only `workings refresh`
imports it. Manners, the same for both kinds of source:

- http(s) only, checked on the first URL and on every redirect;
- a timeout on every request; timeouts and refused connections are reported, not retried (a host that
  does not answer is usually down or offline, and retrying only makes the run slower);
- bounded retries with exponential backoff on 429 and 5xx, honouring a numeric `Retry-After` up to
  `Limits.max_backoff`, and on a body cut short;
- a size limit, checked on `Content-Length` and again while streaming;
- redirects followed up to `Limits.max_redirects`. A web page that redirects to another host is
  reported, not followed: the page moved, and the ledger's URL should say where. A Hub file may
  redirect to its CDN, as every large file on the Hub does.
"""

from __future__ import annotations

import hashlib
import os
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

    timeout: float = 20.0  # seconds, per request (connect, and each read)
    retries: int = 3  # further tries after the first, on 429, 5xx and cut-short bodies
    backoff: float = 1.0  # seconds before the first retry; doubles on each further one
    max_backoff: float = 30.0  # cap on one wait, `Retry-After` included
    max_bytes: int = 64 * 2**20  # the largest body archived (a config.json is a few kB)
    max_redirects: int = 5
    concurrency: int = 4  # requests in flight at once


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
        self.kind = kind  # offline | refused | timeout | http | too-large | truncated | moved | ...

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


def connection_error(error: BaseException, url: str) -> FetchError:
    """Name a failure to reach a host: offline (name resolution or no route), refused, or timeout."""
    names = {cls.__name__ for cls in type(error).__mro__}
    text = str(error)
    if names & {"Timeout", "TimeoutException", "ReadTimeout", "ConnectTimeout", "TimeoutError"}:
        return FetchError("timeout", f"no answer from {_host(url)} in time ({url})")
    if any(hint in text for hint in ("resolve", "Name or service", "nodename", "getaddrinfo",
                                     "Network is unreachable", "No route to host")):  # fmt: skip
        return FetchError("offline", f"cannot reach {_host(url)}: no network or no such host")
    if "refused" in text.lower():
        return FetchError("refused", f"{_host(url)} refused the connection ({url})")
    return FetchError("offline", f"cannot reach {_host(url)}: {text.splitlines()[0] if text else names}")


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def with_retries(call: Callable[[], T], limits: Limits, sleep: Callable[[float], None]) -> T:
    """Run `call`, retrying on `_Retry` with exponential backoff, at most `limits.retries` times."""
    attempt = 0
    while True:
        try:
            return call()
        except _Retry as retry:
            if attempt >= limits.retries:
                tries = f"{attempt + 1} tries" if attempt else "1 try"
                raise FetchError(retry.error.kind, f"{retry.error} (gave up after {tries})") from None
            wait = limits.backoff * 2**attempt
            if retry.retry_after is not None:
                wait = max(wait, retry.retry_after)
            sleep(min(wait, limits.max_backoff))
            attempt += 1


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def make_session(user_agent: str = "workings-refresh") -> requests.Session:
    session = requests.Session()
    session.headers["User-Agent"] = user_agent
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
    for _ in range(limits.max_redirects + 1):
        try:  # redirects are followed by hand below, to check each hop
            response = session.get(
                current, headers=sent, stream=True, timeout=limits.timeout, allow_redirects=False
            )
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
                error = FetchError("http", f"HTTP {status} {response.reason} from {current}")
                raise _Retry(error, _retry_after(response.headers))
            if status >= 400:
                raise FetchError("http", f"HTTP {status} {response.reason} from {current}")
            data = read_capped(response, limits.max_bytes, current)
            content_type = response.headers.get("Content-Type", "")
            return Fetched(url=current, data=data, content_type=content_type)
    raise FetchError("moved", f"{url}: more than {limits.max_redirects} redirects")


def read_capped(response: requests.Response, max_bytes: int, url: str) -> bytes:
    """The body, refused if it is over `max_bytes` (declared or read), retried if cut short."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError("too-large", f"{url} is {int(declared):,} bytes, over the {max_bytes:,}-byte limit")
    chunks, total = [], 0
    try:
        for chunk in response.iter_content(_CHUNK):
            total += len(chunk)
            if total > max_bytes:
                raise FetchError("too-large", f"{url} sent more than the {max_bytes:,}-byte limit")
            chunks.append(chunk)
    except requests.exceptions.ConnectionError as error:
        # requests wraps a read timeout mid-body as a ConnectionError: tell the two apart.
        failure = connection_error(error, url)
        if failure.kind == "timeout":
            raise failure from None
        raise _Retry(FetchError("truncated", f"{url}: the body was cut short")) from None
    except requests.exceptions.RequestException:
        # ChunkedEncodingError: urllib3 saw fewer bytes than Content-Length promised.
        raise _Retry(FetchError("truncated", f"{url}: the body was cut short")) from None
    return b"".join(chunks)


def hub_endpoint() -> str:
    """The Hub to fetch from: `HF_ENDPOINT` as it is now (huggingface_hub reads it once, at import)."""
    endpoint = os.environ.get("HF_ENDPOINT", "").strip() or DEFAULT_ENDPOINT
    return check_url(endpoint.rstrip("/"))
