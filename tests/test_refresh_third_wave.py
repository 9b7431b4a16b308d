"""workings refresh against what a reviewer attacking its servers found on 3 Dec 2026: answers that
stopped the whole run (exit 70), answers archived that are not the page, a change that breaks a claim
archived anyway, and a Hub's shard names and counts taken on trust. Real local servers (the stand-ins),
no mocks; each case fails on the code before it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml
from refresh_standins import (  # noqa: F401  (fixtures)
    StandInHub,
    StandInWeb,
    hf_env,
    hub,
    safetensors_header,
    web,
)

from workings.refresh.fetch import Limits
from workings.refresh.refresh import refresh

FAST = Limits(timeout=2.0, retries=1, backoff=0.0, max_bytes=1_000_000)
REPO = "Qwen/Qwen2.5-14B-Instruct-1M"
TEXT = b"The context window is 1,010,000 tokens.\n"


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def page_source(ledger, source_id: str, url: str, fmt: str = "text") -> None:
    body = TEXT if fmt == "text" else b'{"num_hidden_layers": 48}'
    ledger.source(source_id, textwrap.dedent(f"""\
        title: a page
        url: {url}
        grade: copy
        snapshot: {ledger.snapshot(body, "txt" if fmt == "text" else "json")}
        format: {fmt}
        """))


@pytest.mark.parametrize("status, body, headers, why", [
    (200, b"<p>The context window is 2,000,000 tokens.</p>", {"Content-Type": "text/html; charset=idna"}, None),
    (302, b"", {"Location": "http://[::1"}, "the answer could not be read (ValueError"),
])
def test_an_answer_a_library_cannot_read_is_that_source_s_failure_not_the_run_s(
        tmp_ledger, web: StandInWeb, status, body, headers, why) -> None:
    page_source(tmp_ledger, "bad", web.url + "/bad")
    web.pages["/bad"] = (status, body, headers)
    page_source(tmp_ledger, "good", web.page("/good", "<p>The context window is 1,048,576 tokens.</p>"))
    result = refresh(tmp_ledger.root, limits=FAST)
    by_id = {s.source: s for s in result.sources}
    assert by_id["good"].applied  # the run went on past the bad answer
    if why is None:  # "charset=idna" refuses errors="replace": read as UTF-8 instead
        assert by_id["bad"].status == "changed"
    else:
        assert by_id["bad"].status == "unreachable" and why in by_id["bad"].reason, by_id["bad"].reason


def test_a_json_page_nested_100000_deep_is_not_applied_and_stops_nothing(tmp_ledger, web: StandInWeb) -> None:
    page_source(tmp_ledger, "cfg", web.url + "/cfg.json", fmt="json")
    web.pages["/cfg.json"] = (200, b"[" * 100_000 + b"]" * 100_000, {"Content-Type": "application/json"})
    before = tree(tmp_ledger.root)
    (change,) = refresh(tmp_ledger.root, limits=FAST).sources
    assert not change.applied and tree(tmp_ledger.root) == before


@pytest.mark.parametrize("status, headers", [
    (206, {"Content-Range": "bytes 0-4/100", "Content-Type": "text/plain"}),
    (204, {}), (304, {}), (302, {"Content-Type": "text/plain"}),  # a 302 with no Location
])
def test_only_a_whole_answer_is_archived(tmp_ledger, web: StandInWeb, status, headers) -> None:
    page_source(tmp_ledger, "page", web.url + "/page")
    web.pages["/page"] = (status, b"hello" if status == 206 else b"", headers)
    before = tree(tmp_ledger.root)
    (change,) = refresh(tmp_ledger.root, limits=FAST).sources
    assert change.status == "unreachable" and f"HTTP {status}" in change.reason, change
    assert tree(tmp_ledger.root) == before


def test_a_change_that_removes_a_key_a_claim_reads_is_not_applied(tmp_ledger, web: StandInWeb) -> None:
    page_source(tmp_ledger, "cfg", web.url + "/cfg.json", fmt="json")
    web.pages["/cfg.json"] = (200, b'{"hidden_size": 5120}', {"Content-Type": "application/json"})
    tmp_ledger.claim("g/layers", 'said: "It has 48 layers."\nfigure: "48"\nlabel: derived\n'
                                 "inputs:\n  layers: cfg#num_hidden_layers\ncompute:\n  r: layers\n")
    before = tree(tmp_ledger.root)
    (change,) = refresh(tmp_ledger.root, limits=FAST).sources
    assert change.blocked and not change.applied, change
    assert "claim g/layers would fail" in change.reason
    assert tree(tmp_ledger.root) == before


def _weights(tmp_ledger, hub: StandInHub, weight_map: dict, shards: dict[str, bytes]) -> None:
    index = json.dumps({"metadata": {}, "weight_map": weight_map}).encode()
    hub.put(REPO, {"model.safetensors.index.json": index, **shards})
    tmp_ledger.source("weights", (
        f"title: weights index\nhub: {{repo: {REPO}, file: model.safetensors.index.json}}\n"
        f"grade: transcription\nsnapshot: {tmp_ledger.snapshot(b'total_size = 1', 'txt')}\n"))


@pytest.mark.parametrize("shard", ["../../../other/resolve/main/m.safetensors", "/abs.safetensors", "a%2F.safetensors"])
def test_a_shard_named_outside_the_repository_is_refused(tmp_ledger, hub: StandInHub, hf_env, shard) -> None:
    _weights(tmp_ledger, hub, {"a": shard}, {})
    before = tree(tmp_ledger.root)
    (change,) = refresh(tmp_ledger.root, limits=FAST).sources
    assert change.status == "unreachable" and "names a shard that is no file of the repository" in change.reason
    assert tree(tmp_ledger.root) == before


@pytest.mark.parametrize("shape", [[-5, 3], [10**10, 10**10]])
def test_a_shard_header_that_counts_no_plausible_parameters_is_refused(tmp_ledger, hub: StandInHub, hf_env,
                                                                       shape) -> None:
    header = json.dumps({"t": {"dtype": "BF16", "shape": shape, "data_offsets": [0, 2]}}).encode()
    shard = len(header).to_bytes(8, "little") + header
    _weights(tmp_ledger, hub, {"t": "model.safetensors"}, {"model.safetensors": shard})
    before = tree(tmp_ledger.root)
    (change,) = refresh(tmp_ledger.root, limits=FAST).sources
    assert change.status == "unreachable" and "not a count of a known dtype" in change.reason, change.reason
    assert tree(tmp_ledger.root) == before


def test_a_good_shard_index_still_counts(tmp_ledger, hub: StandInHub, hf_env) -> None:
    _weights(tmp_ledger, hub, {"a": "model-00001-of-00001.safetensors"},
             {"model-00001-of-00001.safetensors": safetensors_header({"a": ("BF16", [1000, 512])})})
    (change,) = refresh(tmp_ledger.root, limits=FAST).sources
    assert change.parameters == {"BF16": 512_000} and change.applied
    data = yaml.safe_load((tmp_ledger.root / "ledger/sources/weights.yaml").read_text())
    assert data["safetensors"] == {"parameters": {"BF16": 512_000}}


def test_an_etag_in_capitals_is_checked_as_the_hash_it_is() -> None:
    """An ETag of a wrong sha1 in capitals was taken for "not a content hash" and only the size was
    checked, so altered bytes of the right length were archived."""
    import hashlib

    from workings.refresh.fetch import FetchError
    from workings.refresh.hub import _check_integrity

    data = b'{"num_hidden_layers": 48}'
    right = hashlib.sha256(data).hexdigest().upper()
    _check_integrity(data, f'"{right}"', len(data), "cfg")  # the same hash in capitals holds
    with pytest.raises(FetchError, match="do not match the Hub's ETag"):
        _check_integrity(data, f'"{"A" * 40}"', len(data), "cfg")
    with pytest.raises(FetchError, match="do not match the Hub's ETag"):
        _check_integrity(data, f'"{"B" * 64}"', len(data), "cfg")


def test_a_host_that_answered_then_stopped_is_slow_not_offline(tmp_ledger, web: StandInWeb) -> None:
    """Its status line and headers came, then five bytes of the body and nothing: the report said
    "Nothing could be reached (is this machine offline?)", which the README keeps for no host answering."""
    from click.testing import CliRunner

    from workings.cli import main

    page_source(tmp_ledger, "page", web.page("/page", "<p>The context window is 1,010,000 tokens.</p>"))
    web.behaviour.fail("/page", "stall-body")
    before = tree(tmp_ledger.root)
    result = CliRunner().invoke(main, ["refresh", "--root", str(tmp_ledger.root), "--timeout", "1"])
    assert "is this machine offline" not in result.output, result.output
    assert f"page: unreachable: {web.url}/page: the body stopped after 5 bytes" in result.output
    assert tree(tmp_ledger.root) == before


# Fourth look (4 Dec 2026): what a server says is printed at a length a terminal and a CI log can hold.

def test_a_json_number_of_5000_digits_is_reported_as_what_it_is(tmp_ledger, web: StandInWeb) -> None:
    page_source(tmp_ledger, "cfg", web.url + "/cfg.json", fmt="json")
    web.pages["/cfg.json"] = (200, b'{"num_hidden_layers": ' + b"9" * 5000 + b"}", {"Content-Type": "application/json"})
    before = tree(tmp_ledger.root)
    (change,) = refresh(tmp_ledger.root, limits=FAST).sources
    assert change.blocked and not change.applied and tree(tmp_ledger.root) == before
    assert "did not serve JSON" not in change.reason and "4,300 digits" in change.reason, change.reason


@pytest.mark.parametrize("body", [
    b'{"' + b"k" * 500_000 + b'": 1, "num_hidden_layers": 48}',  # a key of half a million characters
    b'{"num_hidden_layers": 48, "name": "' + b"v" * 500_000 + b'"}',  # a value of half a million
], ids=["key", "value"])
def test_what_a_server_sent_is_printed_clipped(tmp_ledger, web: StandInWeb, body) -> None:
    from workings.refresh.text import render

    page_source(tmp_ledger, "cfg", web.url + "/cfg.json", fmt="json")
    web.pages["/cfg.json"] = (200, body, {"Content-Type": "application/json"})
    result = refresh(tmp_ledger.root, check=True, limits=FAST)
    printed = render(result)
    assert max(len(line) for line in printed.splitlines()) < 2_000, [len(line) for line in printed.splitlines()]
    assert "characters in all" in printed  # says it was clipped, and how long it was


def test_a_redirect_s_long_location_is_printed_clipped(tmp_ledger, web: StandInWeb) -> None:
    from workings.refresh.text import render

    page_source(tmp_ledger, "page", web.url + "/page")
    web.pages["/page"] = (302, b"", {"Location": "http://elsewhere.example/" + "a" * 60_000})
    result = refresh(tmp_ledger.root, limits=FAST)
    (change,) = result.sources
    assert change.status == "unreachable"
    printed = render(result)
    assert max(len(line) for line in printed.splitlines()) < 2_000 and "characters in all" in printed
