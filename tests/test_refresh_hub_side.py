"""The Hugging Face side of refresh, as its users expect it: offline mode named as such, a user agent
that says who asks, the commit recorded, the missing web extra named, and near names for a key typo."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import FULL_WINDOW, PER_TOKEN
from refresh_standins import (  # noqa: F401  (fixtures)
    StandInHub,
    StandInWeb,
    hf_env,
    hub,
    web,
)

from workings import __version__
from workings.cli import main
from workings.refresh.fetch import Limits
from workings.refresh.refresh import refresh

ROOT = Path(__file__).resolve().parent.parent
REPO = "Qwen/Qwen2.5-14B-Instruct-1M"
FAST = Limits(timeout=2.0, retries=1, backoff=0.0)
CONFIG = {"hidden_size": 5120, "max_position_embeddings": 1010000, "num_attention_heads": 40,
          "num_hidden_layers": 48, "num_key_value_heads": 8, "torch_dtype": "bfloat16"}


def config(**changes) -> bytes:
    return (json.dumps({**CONFIG, **changes}, indent=2) + "\n").encode()


@pytest.fixture
def ledger(tmp_ledger):
    tmp_ledger.source("qwen", textwrap.dedent(f"""\
        title: config.json of {REPO}
        hub: {{repo: {REPO}, file: config.json, revision: main}}
        grade: copy
        snapshot: {tmp_ledger.snapshot(config(), "json")}
        format: json
        """))
    tmp_ledger.claim("kv/per-token", PER_TOKEN)
    tmp_ledger.claim("kv/full-window", FULL_WINDOW)
    return tmp_ledger


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """`python -m workings` in a process of its own: huggingface_hub reads HF_HUB_OFFLINE at import."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
    return subprocess.run([sys.executable, "-m", "workings", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def test_hf_hub_offline_is_reported_as_offline_mode(ledger, hub: StandInHub) -> None:
    hub.put(REPO, {"config.json": config(num_hidden_layers=64)})
    before = tree(ledger.root)
    done = run_cli(["refresh", "--root", str(ledger.root)],
                   {"HF_HUB_OFFLINE": "1", "HF_ENDPOINT": hub.url, "HF_HOME": str(ledger.root.parent / "hf")})
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout == (
        "qwen: unreachable: HF_HUB_OFFLINE is set: huggingface_hub is in offline mode, so the Hub was not "
        "asked (unset HF_HUB_OFFLINE to refresh this source)\n"
        "\n"
        "Sources: 0 changed, 0 unchanged, 1 unreachable, 0 skipped.\n"
        "Unreachable sources keep their archived snapshots, untouched.\n"
        "HF_HUB_OFFLINE is set (huggingface_hub's offline mode): 1 Hub source was not fetched; unset it to "
        "refresh them.\n")
    assert "no network" not in done.stdout and done.stderr == ""
    assert hub.behaviour.log == []  # the Hub was not asked
    assert tree(ledger.root) == before


def test_every_request_says_it_comes_from_workings(ledger, hub: StandInHub, web: StandInWeb) -> None:
    commit = hub.put(REPO, {"config.json": config()})
    ledger.source("page", textwrap.dedent(f"""\
        title: a page
        url: {web.page("/p", "<p>Hello.</p>")}
        grade: transcription
        snapshot: {ledger.snapshot(b"Hello.", "txt")}
        format: text
        """))
    refresh(ledger.root, limits=FAST)
    agents = hub.behaviour.agents + web.behaviour.agents
    assert [(m, p) for m, p, _ in agents] == [
        ("HEAD", f"/{REPO}/resolve/main/config.json"), ("GET", f"/{REPO}/resolve/{commit}/config.json"), ("GET", "/p")]
    for method, path, agent in agents:
        assert agent.startswith(f"workings/{__version__}"), (method, path, agent)
    assert "hf_hub/" in agents[0][2] and "hf_hub/" in agents[1][2]


def test_the_resolved_commit_is_recorded_and_the_revision_kept(ledger, hub: StandInHub) -> None:
    commit = hub.put(REPO, {"config.json": config(num_hidden_layers=64)})
    refresh(ledger.root, limits=FAST, now=lambda: "2026-11-30T12:00:00Z")
    data = yaml.safe_load((ledger.root / "ledger/sources/qwen.yaml").read_text())
    assert data["hub"] == {"repo": REPO, "file": "config.json", "revision": "main"}  # what to follow
    assert data["retrieved"]["commit"] == commit  # what was read
    assert data["retrieved"]["url"] == f"{hub.url}/{REPO}/resolve/{commit}/config.json"


def test_bytes_that_do_not_match_the_hubs_etag_are_refused(ledger, hub: StandInHub) -> None:
    """The git blob hash is huggingface_hub's own (utils.sha.git_hash): a file whose bytes are not
    the ones the ETag names is not archived."""
    hub.put(REPO, {"config.json": config(num_hidden_layers=64)})
    served = hub.route

    def wrong_etag(handler, path):
        status, body, headers = served(handler, path)
        return status, body, {**headers, "ETag": '"' + "0" * 40 + '"'} if status == 200 else headers

    hub.route = wrong_etag
    before = tree(ledger.root)
    result = refresh(ledger.root, limits=FAST)
    assert [(s.status, s.error_kind) for s in result.sources] == [("unreachable", "integrity")]
    assert tree(ledger.root) == before


def test_refresh_without_the_web_extra_says_which_extra_to_install(ledger) -> None:
    # requests made unimportable, as on a machine where `pip install workings` left out the extra
    script = ("import sys; sys.modules['requests'] = None\n"
              "from workings.cli import main\n"
              f"main(['refresh', '--root', {str(ledger.root)!r}])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 2
    assert done.stderr == ("error: workings refresh needs the web extra, which is not installed (no requests): "
                           "pip install 'workings[web]'\n")
    assert "Traceback" not in done.stdout + done.stderr


TYPO_CLAIM = "claims/kv-bytes-per-token/qwen25-14b-layers.yaml"


def test_a_key_typo_lists_the_near_names(tmp_path: Path) -> None:
    """On a copy of this repository's ledger: the layer count read as `num_layers`."""
    root = tmp_path / "repo"
    for folder in ("claims", "ledger"):
        shutil.copytree(ROOT / folder, root / folder)
    record = root / TYPO_CLAIM
    text = record.read_text(encoding="utf-8")
    assert "#num_hidden_layers" in text
    record.write_text(text.replace("#num_hidden_layers", "#num_layers", 1), encoding="utf-8")
    line = next(i for i, row in enumerate(record.read_text().splitlines(), 1) if "#num_layers" in row)
    result = CliRunner().invoke(main, ["verify", "--root", str(root), "-q"])
    assert result.exit_code == 2
    message = re.search(rf"{re.escape(TYPO_CLAIM)}:{line}: inputs\.\w+: key 'num_layers' is not in snapshot "
                        r"\w+\.txt; near names: num_hidden_layers\b", result.output)
    assert message, result.output
