"""Fetching a file from the Hugging Face Hub, pinned to the commit its revision resolves to.

huggingface_hub does the Hub's part: it builds the `/resolve/` URL, sends the HEAD that resolves a
branch or tag to a commit (`X-Repo-Commit`) and names the file's version (`ETag`: the git blob sha1,
or the sha256 of an LFS file), and reads safetensors headers with range requests (`HfApi`). The bytes
themselves are then read with `fetch.http_get` from the URL pinned to that commit, rather than with
`hf_hub_download`, because refresh needs what `hf_hub_download` does not give: a size limit before and
while downloading, a timeout that is not retried five times, and no second copy in the HF cache.
The bytes are checked against the ETag with huggingface_hub's own hashes (`utils.sha.git_hash` for
the git blob sha1), so a truncated or altered body is never archived.

Every request says who asks: `library_name="workings"` and its version go into the user agent that
huggingface_hub builds (`workings/0.1.0; hf_hub/...; python/...`). With `HF_HUB_OFFLINE=1`
huggingface_hub is in offline mode: the Hub is not asked, and the source is reported as such (kind
`hf-offline`), not as a network failure.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import requests

from workings import __version__
from workings.refresh.fetch import (
    HF_OFFLINE_MESSAGE,
    RETRY_STATUSES,
    Fetched,
    FetchError,
    Limits,
    _Retry,
    connection_error,
    http_get,
    hub_endpoint,
    with_retries,
    within_deadline,
)

LIBRARY_NAME = "workings"  # the user agent's first part, with __version__

_SHA256 = re.compile(r"[0-9a-f]{64}")
_SHARD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}\.safetensors")  # "model-00001-of-00004.safetensors"
_DTYPE = re.compile(r"[A-Z][A-Z0-9_]{0,15}")  # safetensors' dtypes: BF16, F32, I8, F8_E4M3, ...
_MOST_PARAMETERS = 10**15  # a thousand times the largest model: a header past it is not a count
_SHA1 = re.compile(r"[0-9a-f]{40}")
SAFETENSORS_INDEX = ".safetensors.index.json"


def _hub_call(call: Callable[[], Any], what: str, url: str, *, requests_: int = 1, timeout: float = 0.0) -> Any:
    """Run one huggingface_hub call, turning its errors into FetchError (or _Retry on 429/5xx).

    With a `timeout`, the call (`requests_` HTTP requests) is given what many whole requests may take
    (one more read's timeout each, as `fetch.http_get` allows): huggingface_hub's client times each
    read, not the whole answer, so a Hub that drips its headers would otherwise hold it."""
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled, SafetensorsParsingError

    if timeout:
        bound = 2 * timeout * requests_
        slow = FetchError("slow", f"{what}: no complete answer from the Hub after {timeout * requests_:g} s, the "
                                  "time allowed for "
                                  f"{'a whole request' if requests_ == 1 else f'{requests_} whole requests'} "
                                  "(--timeout)")
        plain = call
        call = lambda: within_deadline(plain, bound, what, error=slow)  # noqa: E731
    try:
        return call()
    except OfflineModeIsEnabled:
        raise FetchError("hf-offline", HF_OFFLINE_MESSAGE) from None
    except SafetensorsParsingError as error:
        raise FetchError("format", f"{what}: {error}") from None
    except HfHubHTTPError as error:
        status = error.response.status_code if error.response is not None else 0
        failure = FetchError("http", f"HTTP {status} from the Hub for {what}")
        if status == 404:
            failure = FetchError("http", f"HTTP 404: {what} is not on the Hub (repo, file or revision)")
        if status in RETRY_STATUSES:
            raise _Retry(failure, _hub_wait(error.response.headers if error.response is not None else {})) from None
        raise failure from None
    except FetchError:
        raise
    except Exception as error:  # httpx (huggingface_hub >= 1) or requests (older): named by class
        names = {cls.__name__ for cls in type(error).__mro__}
        if names & {"TransportError", "ConnectionError", "RequestException", "Timeout", "TimeoutException",
                    "HTTPException"}:
            raise connection_error(error, url) from None
        raise


def _hub_wait(headers) -> float | None:
    """How long the Hub asks a client to wait: its `RateLimit` header, read by huggingface_hub's own
    parser where this version has it, else a numeric `Retry-After`."""
    parse: Callable[[Mapping[str, str]], Any] | None
    try:
        from huggingface_hub.utils import parse_ratelimit_headers as parse
    except ImportError:  # older huggingface_hub
        parse = None
    if parse is not None:
        info = parse(headers)
        if info is not None and info.remaining == 0:
            return float(info.reset_in_seconds)
    value = headers.get("Retry-After", "")
    return float(value) if value.isascii() and value.isdigit() else None  # "²" is a digit to str.isdigit


def fetch_hub(
    session: requests.Session,
    repo: str,
    filename: str,
    revision: str,
    limits: Limits,
    *,
    endpoint: str | None = None,
    token: bool | str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Fetched:
    """The file's bytes at the commit `revision` resolves to now, checked against the Hub's ETag."""
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    if getattr(constants, "is_offline_mode", lambda: constants.HF_HUB_OFFLINE)():  # older: the constant only
        raise FetchError("hf-offline", HF_OFFLINE_MESSAGE)
    endpoint = endpoint or hub_endpoint()
    what = f"{repo}/{filename}@{revision}"
    url = hf_hub_url(repo, filename, revision=revision, endpoint=endpoint)
    metadata = with_retries(
        lambda: _hub_call(
            lambda: get_hf_file_metadata(url, token=token, timeout=limits.timeout, endpoint=endpoint,
                                           library_name=LIBRARY_NAME, library_version=__version__),
            what,
            url,
            timeout=limits.timeout,
        ),
        limits,
        sleep,
    )
    commit = metadata.commit_hash
    if not commit or not _SHA1.fullmatch(commit):
        raise FetchError("http", f"{endpoint} did not name the commit of {what} (X-Repo-Commit)")
    if metadata.size is not None and metadata.size > limits.max_bytes:
        raise FetchError(
            "too-large", f"{what} is {metadata.size:,} bytes, over the {limits.max_bytes:,}-byte limit"
        )
    pinned = hf_hub_url(repo, filename, revision=commit, endpoint=endpoint)
    headers = build_hf_headers(token=token, library_name=LIBRARY_NAME, library_version=__version__)
    headers["Accept-Encoding"] = "identity"  # the ETag is of the bytes as stored
    fetched = http_get(session, pinned, limits, headers=headers, other_hosts=True, sleep=sleep)
    _check_integrity(fetched.data, metadata.etag, metadata.size, what)
    parameters = None
    if filename.endswith(SAFETENSORS_INDEX):
        parameters = safetensors_parameters(
            repo, fetched.data, commit, limits, endpoint, token=token, sleep=sleep
        )
    return Fetched(
        url=fetched.url,
        data=fetched.data,
        content_type=fetched.content_type,
        commit=commit,
        parameters=parameters,
    )


def _check_integrity(data: bytes, etag: str | None, size: int | None, what: str) -> None:
    if size is not None and len(data) != size:
        raise FetchError("truncated", f"{what}: got {len(data):,} bytes, the Hub said {size:,}")
    tag = (etag or "").strip('"').removeprefix("W/").strip('"').lower()  # "ABC…" is the same hash as "abc…"
    if _SHA256.fullmatch(tag):
        actual = hashlib.sha256(data).hexdigest()
    elif _SHA1.fullmatch(tag):
        from huggingface_hub.utils.sha import git_hash  # the id git gives the bytes: a small file's ETag

        actual = git_hash(data)
    else:
        return  # an ETag that is not a content hash: the size check above is all there is
    if actual != tag:
        raise FetchError("integrity", f"{what}: the bytes do not match the Hub's ETag {tag}")


def safetensors_parameters(
    repo: str,
    index_bytes: bytes,
    commit: str,
    limits: Limits,
    endpoint: str,
    *,
    token: bool | str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, int]:
    """Parameter count by dtype, summed over the headers of every shard the index names."""
    from huggingface_hub import HfApi

    try:
        weight_map = json.loads(index_bytes)["weight_map"]
        shards = sorted(set(weight_map.values()))
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise FetchError("format", f"{repo}: the safetensors index has no weight_map") from None
    for shard in shards:  # a file of this repository at this commit: no "..", no other path, no quoting
        if not isinstance(shard, str) or not _SHARD.fullmatch(shard) or ".." in shard.split("/"):
            raise FetchError("format", f"{repo}: the safetensors index names a shard that is no file of the "
                                       f"repository: {str(shard)[:200]!r}")
    api = HfApi(endpoint=endpoint, token=token, library_name=LIBRARY_NAME, library_version=__version__)
    counts: dict[str, int] = {}
    for shard in shards:
        what = f"{repo}/{shard}@{commit[:12]}"
        header = with_retries(
            partial(  # binds this shard now
                _hub_call,
                partial(api.parse_safetensors_file_metadata, repo, shard, revision=commit, timeout=limits.timeout),
                what,
                endpoint,
                requests_=2,  # the first 100 kB of the shard, then the rest of a longer header
                timeout=limits.timeout,
            ),
            limits,
            sleep,
        )
        for dtype, count in header.parameter_count.items():
            if not (isinstance(dtype, str) and _DTYPE.fullmatch(dtype) and type(count) is int
                    and 0 <= count <= _MOST_PARAMETERS):
                raise FetchError("format", f"{what}: the header counts {str(count)[:40]!r} parameters of "
                                           f"dtype {str(dtype)[:40]!r}: not a count of a known dtype")
            counts[dtype] = counts.get(dtype, 0) + count
    return dict(sorted(counts.items()))
