"""workings refresh on a copy of this repository's own ledger (every claim, every source), against
stand-in servers on 127.0.0.1: the case a one-source fixture cannot show.

The Hub serves Qwen/Qwen2.5-14B-Instruct-1M's config.json with `num_hidden_layers: 64` (the ledger's
copies say 48): the 196,608 B/token claim and every claim built on it must turn to drift, the output
must name the key, and nothing unrelated may move.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from refresh_standins import (  # noqa: F401  (fixtures)
    StandInHub,
    StandInWeb,
    hf_env,
    hub,
    serving,
    web,
)

from workings.cli import main
from workings.engine import verify
from workings.loader import load_ledger
from workings.refresh.fetch import Limits, http_get, make_session
from workings.refresh.hub import fetch_hub
from workings.refresh.refresh import refresh

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
REPO = "Qwen/Qwen2.5-14B-Instruct-1M"
MERGEKIT = "qwen25-14b-1m-config-mergekit"
FAST = Limits(timeout=2.0, retries=1, backoff=0.0)
# The 196,608 B/token claim and everything built on it, with the layer count it reads.
BUILT_ON_LAYERS = {
    "kv-bytes-per-token/qwen25-14b-layers",
    "kv-bytes-per-token/qwen25-14b-bytes-per-token",
    "kv-bytes-per-token/qwen25-14b-kib-per-token",
    "kv-bytes-per-token/qwen25-14b-cache-full-window-gb",
    "kv-bytes-per-token/qwen25-14b-cache-full-window-gib",
    "kv-bytes-per-token/qwen25-14b-cache-vs-weights",
    "kv-bytes-per-token/qwen25-14b-h100-tokens",
    "kv-bytes-per-token/qwen25-14b-weights-plus-cache",
    "kv-bytes-per-token/qwen25-14b-mha-factor",
    "kv-bytes-per-token/qwen25-14b-1m-vram-exceeds-weights-plus-cache",
    "hundred-messages/million-token-hundreds-of-gb",
}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def official_config(layers: int) -> bytes:
    """The config the ledger's copy transcribes (its `"key": value` lines, table separators dropped),
    with `num_hidden_layers` set: what the stand-in Hub serves as the official file."""
    ledger = load_ledger(ROOT)
    snapshot = ROOT / "ledger/snapshots" / ledger.sources[MERGEKIT].snapshot
    text = "\n".join(line.removesuffix(" | |") for line in snapshot.read_text(encoding="utf-8").splitlines())
    config = json.loads(text)
    assert config["num_hidden_layers"] == 48
    config["num_hidden_layers"] = layers
    return (json.dumps(config, indent=2) + "\n").encode()


def _path(url: str) -> str:
    return "/" + url.split("://", 1)[1].partition("/")[2]


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """This repository's claims and ledger, copied whole."""
    root = tmp_path / "repo"
    for folder in ("claims", "ledger"):
        shutil.copytree(ROOT / folder, root / folder)
    return root


def test_a_changed_layer_count_turns_the_claims_built_on_it_to_drift(repo_copy: Path, hub: StandInHub,
                                                                     web: StandInWeb) -> None:
    """Every source of the ledger is fetched: Hub files from the stand-in Hub, pages from a stand-in
    site that serves each page's archived text at the same path."""
    hub.put(REPO, {"config.json": official_config(64)})
    ledger = load_ledger(repo_copy)
    before_status = {c.id: c.status for c in verify(repo_copy).claims}
    assert before_status["kv-bytes-per-token/qwen25-14b-bytes-per-token"] == "verified"
    pages = [s for s in ledger.sources.values() if s.hub is None and s.url and s.grade != "unarchived"]
    shared = {s.url for s in pages if sum(t.url == s.url for t in pages) > 1}
    for source in pages:
        if source.url not in shared:  # two transcriptions of one page differ: that page is left out (404)
            raw = (repo_copy / "ledger/snapshots" / source.snapshot).read_bytes()
            web.pages[_path(source.url)] = (200, raw, {"Content-Type": "text/plain; charset=utf-8"})
    session = make_session()
    fetched: list[str] = []

    def to_standins(target: tuple):
        """The real fetch functions, pointed at the stand-ins: the Hub through HF_ENDPOINT, a page by
        its path on the stand-in site (the URL's host is the only thing changed)."""
        fetched.append(target[0])
        if target[0] == "hub":
            return fetch_hub(session, target[1], target[2], target[3], FAST)
        return http_get(session, web.url + _path(target[1]), FAST)

    result = refresh(repo_copy, limits=FAST, fetcher=to_standins)
    statuses = {s.source: s for s in result.sources}
    assert len(statuses) == len(ledger.sources) and "web" in fetched and "hub" in fetched
    mergekit = statuses[MERGEKIT]
    assert (mergekit.status, mergekit.applied, mergekit.blocked) == ("changed", True, False), mergekit.reason
    assert [(k.key, k.old, k.new, k.claims) for k in mergekit.diff.keys if k.claims] == [
        ("num_hidden_layers", "48", "64", ("kv-bytes-per-token/qwen25-14b-layers",))]
    assert not any(s.blocked for s in result.sources), [(s.source, s.reason) for s in result.sources if s.blocked]
    # Only the Qwen config is on the stand-in Hub: every other Hub file is a 404, as is a shared page.
    other_hub = {s.id for s in ledger.sources.values() if s.hub and (s.hub.repo, s.hub.file) != (REPO, "config.json")}
    assert {s.source for s in result.sources if s.status == "unreachable"} == other_hub | {
        s.id for s in pages if s.url in shared}
    assert {s.source for s in result.sources if s.status == "changed"} >= {MERGEKIT}
    moved = {m.claim: m for m in result.moved}
    assert set(moved) == BUILT_ON_LAYERS
    assert {m.status_after for m in moved.values()} == {"drift"}
    per_token = moved["kv-bytes-per-token/qwen25-14b-bytes-per-token"]
    assert (per_token.before, per_token.after) == ("verified 196,608 B/token", "drift 262,144 B/token")
    assert result.exit_code == 1
    # On disk: the ledger verifies with exactly those claims drifted, and nothing else changed status.
    after_status = {c.id: c.status for c in verify(repo_copy).claims}
    changed = {cid for cid in after_status if after_status[cid] != before_status[cid]}
    assert changed == BUILT_ON_LAYERS and {after_status[c] for c in changed} == {"drift"}


def test_check_on_the_whole_ledger_writes_nothing(repo_copy: Path, hub: StandInHub) -> None:
    hub.put(REPO, {"config.json": official_config(64)})
    hub_ids = sorted(s.id for s in load_ledger(repo_copy).sources.values() if s.hub is not None)
    assert len(hub_ids) == 13
    before = tree(repo_copy)
    result = CliRunner().invoke(main, ["refresh", "--check", "--root", str(repo_copy), "--timeout", "2", *hub_ids])
    assert result.exit_code == 1, result.output
    assert "  num_hidden_layers: 48 -> 64 (read by kv-bytes-per-token/qwen25-14b-layers)\n" in result.output
    assert ("  kv-bytes-per-token/qwen25-14b-bytes-per-token (printed 196,608 B/token): "
            "verified 196,608 B/token -> drift 262,144 B/token\n") in result.output
    assert "not applied" not in result.output and "-> error" not in result.output
    assert tree(repo_copy) == before


def _readme_example() -> tuple[list[str], str, int]:
    """The refresh example in the README: its command's arguments, the output shown under it, and
    the exit code it shows."""
    section = README[README.index("## Keeping sources true"):]
    block = re.search(r"```\n\$ workings refresh (.*?)\n(.*?)\$ echo \$\?\n(\d+)\n```", section, re.DOTALL)
    assert block, "the README's refresh section shows no example run"
    return block.group(1).split(), block.group(2), int(block.group(3))


def test_the_readme_example_is_what_a_real_run_prints(repo_copy: Path, hub: StandInHub) -> None:
    args, shown, code = _readme_example()
    hub.put(REPO, {"config.json": official_config(64)})
    before = tree(repo_copy)
    result = CliRunner().invoke(main, ["refresh", "--root", str(repo_copy), "--timeout", "2", *args])
    assert result.output == shown
    assert result.exit_code == code == 1
    assert tree(repo_copy) == before  # the example is a --check
