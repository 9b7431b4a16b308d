"""workings refresh against servers that misbehave on purpose, and after a run that was killed.

No test here times anything: where a fetch must stop early, the server's drip lasts
DRIP_BYTES * DRIP_INTERVAL (30 s), far past the limits given, and the test checks the bytes the server
had sent when refresh answered (fewer than the drip: refresh did not wait for it to end).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from refresh_standins import (  # noqa: F401  (fixtures)
    BUSY_SECONDS,
    DRIP_BYTES,
    StandInHub,
    StandInWeb,
    hf_env,
    hub,
    web,
)

from workings.cli import main
from workings.refresh.cleanup import SCRATCH_MARKER, SCRATCH_PREFIX, scratch_folder

fcntl = pytest.importorskip("fcntl")
ROOT = Path(__file__).resolve().parent.parent
PAGE = "<html><body><p>The context window is 1,010,000 tokens.</p></body></html>"


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def page_ledger(tmp_ledger, web: StandInWeb):
    """One web source whose page is on the stand-in site, and a claim that reads its passage."""
    url = web.page("/qwen", PAGE)
    name = tmp_ledger.snapshot(b"The context window is 1,010,000 tokens.\n", "txt")
    tmp_ledger.source("page", textwrap.dedent(f"""\
        title: a page
        url: {url}
        grade: transcription
        snapshot: {name}
        format: text
        values:
          window: {{value: "1,010,000 token", passage: "The context window is 1,010,000 tokens."}}
        """))
    tmp_ledger.claim("g/window", textwrap.dedent("""\
        said: "The window is 1,010,000 tokens."
        figure: 1,010,000 token
        label: quoted
        inputs:
          window: page#window
        compute:
          result: window
        """))
    return tmp_ledger


REPO = "Qwen/Qwen2.5-14B-Instruct-1M"


@pytest.fixture
def hub_ledger(tmp_ledger, hub: StandInHub):
    """One Hub source, its file on the stand-in Hub."""
    hub.put(REPO, {"config.json": b'{"num_hidden_layers": 48}\n'})
    tmp_ledger.source("qwen", textwrap.dedent(f"""\
        title: config.json of {REPO}
        hub: {{repo: {REPO}, file: config.json, revision: main}}
        grade: copy
        snapshot: {tmp_ledger.snapshot(b'{"num_hidden_layers": 48}', "json")}
        format: json
        """))
    return tmp_ledger


def refresh_cli(root: Path, *args: str):
    return CliRunner().invoke(main, ["refresh", "--root", str(root), *args])


def test_a_body_sent_one_byte_at_a_time_is_stopped_at_the_timeout(page_ledger, web: StandInWeb) -> None:
    web.behaviour.fail("/qwen", "drip")
    before = tree(page_ledger.root)
    result = refresh_cli(page_ledger.root, "--timeout", "0.5")
    assert web.behaviour.dripped < DRIP_BYTES  # refresh answered before the drip ended
    assert result.exit_code == 3, result.output
    assert result.output.startswith(
        f"page: unreachable: {web.url}/qwen: still sending after 0.5 s, the time allowed for a whole "
        "request (--timeout)\n")
    assert "is this machine offline" not in result.output and "Traceback" not in result.output
    assert tree(page_ledger.root) == before


def test_headers_sent_one_byte_at_a_time_are_stopped_at_the_timeout(page_ledger, web: StandInWeb) -> None:
    web.behaviour.fail("/qwen", "drip-headers")
    before = tree(page_ledger.root)
    result = refresh_cli(page_ledger.root, "--timeout", "0.5")
    assert web.behaviour.dripped < DRIP_BYTES
    assert result.exit_code == 3, result.output
    assert result.output.startswith(
        f"page: unreachable: {web.url}/qwen: no complete answer after 0.5 s, the time allowed for a whole "
        "request (--timeout)\n")
    assert tree(page_ledger.root) == before


def test_a_hub_that_drips_its_headers_is_stopped_at_the_deadline(hub_ledger, hub: StandInHub) -> None:
    """huggingface_hub's own call (the HEAD that resolves the revision) is bounded by the deadline."""
    hub.behaviour.fail(f"/{REPO}/resolve/main/config.json", "drip-headers")
    before = tree(hub_ledger.root)
    result = refresh_cli(hub_ledger.root, "--timeout", "5", "--deadline", "1")  # the deadline comes first
    assert hub.behaviour.dripped < DRIP_BYTES
    assert result.exit_code == 3, result.output
    assert result.output.startswith(
        f"qwen: unreachable: hub {REPO}/config.json@main: not fetched within the 1-second deadline for one source "
        "(the server is too slow, or keeps the answer coming)\n")
    assert tree(hub_ledger.root) == before


def test_a_hub_that_drips_its_headers_is_stopped_at_the_timeout(hub_ledger, hub: StandInHub) -> None:
    hub.behaviour.fail(f"/{REPO}/resolve/main/config.json", "drip-headers")
    result = refresh_cli(hub_ledger.root, "--timeout", "0.5")
    assert hub.behaviour.dripped < DRIP_BYTES
    assert result.exit_code == 3, result.output
    assert result.output.startswith(
        f"qwen: unreachable: {REPO}/config.json@main: no complete answer from the Hub after 0.5 s, the time "
        "allowed for a whole request (--timeout)\n")


def test_a_wait_that_would_pass_the_deadline_is_not_begun(page_ledger, web: StandInWeb) -> None:
    web.behaviour.fail("/qwen", "busy")  # 503, Retry-After: 20
    result = refresh_cli(page_ledger.root, "--timeout", "2", "--deadline", "5")
    assert web.behaviour.log == [("GET", "/qwen")]  # asked once, and no second time
    assert result.exit_code == 3, result.output
    assert result.output.startswith(
        f"page: unreachable: HTTP 503 Service Unavailable from {web.url}/qwen (gave up after 1 try: waiting "
        f"{BUSY_SECONDS} s more would pass the deadline)\n")


def test_a_100_mb_header_line_is_a_bad_answer_not_an_offline_machine(page_ledger, web: StandInWeb) -> None:
    web.behaviour.fail("/qwen", "long-header")
    before = tree(page_ledger.root)
    result = refresh_cli(page_ledger.root, "--timeout", "2")
    assert result.exit_code == 3, result.output
    host = web.url.split("://")[1]
    assert result.output.startswith(
        f"page: unreachable: {host} sent a header line over 65,536 bytes: not a usable HTTP answer "
        f"({web.url}/qwen)")
    assert "is this machine offline" not in result.output
    assert tree(page_ledger.root) == before


def test_a_thousand_headers_are_a_bad_answer_not_an_offline_machine(page_ledger, web: StandInWeb) -> None:
    web.behaviour.fail("/qwen", "many-headers")
    result = refresh_cli(page_ledger.root, "--timeout", "2")
    assert result.exit_code == 3, result.output
    host = web.url.split("://")[1]
    assert result.output.startswith(
        f"page: unreachable: {host} sent more headers than an HTTP client reads (over 100): not a usable HTTP "
        f"answer ({web.url}/qwen)\n")
    assert "is this machine offline" not in result.output


KILLED = """\
import os, signal, sys
from pathlib import Path
from workings import atomic
from workings.refresh.cleanup import scratch_folder

root = Path(sys.argv[1])
# What a refresh killed mid-run leaves: its scratch folder in use, a snapshot and a record half written.
held = scratch_folder()  # kept referenced: the folder stays until the kill
scratch = held.__enter__()
(scratch / "trial0").mkdir()
atomic._temporary(root / "ledger/snapshots" / ("ab" * 32 + ".json"), b"{" * 1000)
atomic._temporary(root / "ledger/sources/page.yaml", b"title: half")
print(scratch, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_what_a_killed_refresh_left_is_removed_by_the_next_run(page_ledger, tmp_path, monkeypatch) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": os.pathsep.join(sys.path)}
    killed = subprocess.run([sys.executable, "-c", KILLED, str(page_ledger.root)], env=env, capture_output=True,
                            text=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    scratch = Path(killed.stdout.strip())
    snapshots, sources = page_ledger.root / "ledger/snapshots", page_ledger.root / "ledger/sources"
    left = sorted(p.relative_to(page_ledger.root).as_posix() for p in [*snapshots.iterdir(), *sources.iterdir()]
                  if p.name.endswith(".tmp"))
    assert len(left) == 2 and scratch.parent == temp and (scratch / SCRATCH_MARKER).is_file()
    # Look-alikes that are not ours, or not stale, stay.
    (snapshots / ".notes.txt.tmp").write_text("someone's")
    (temp / f"{SCRATCH_PREFIX}nomarker").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    with scratch_folder() as live:  # a refresh still running holds its folder's lock
        result = refresh_cli(page_ledger.root, "--timeout", "2")
        assert live.is_dir()
    assert result.exit_code == 0, result.output
    for path in left:
        assert f"Removed {path}, a temporary file an interrupted run left in the ledger.\n" in result.output
    assert f"Removed {scratch}, a scratch folder an interrupted refresh left behind.\n" in result.output
    assert not scratch.exists()
    assert sorted(p.name for p in snapshots.iterdir() if p.name.endswith(".tmp")) == [".notes.txt.tmp"]
    assert not any(p.name.endswith(".tmp") for p in sources.iterdir())
    assert (temp / f"{SCRATCH_PREFIX}nomarker").is_dir()
    assert sorted(p.name for p in temp.iterdir()) == [f"{SCRATCH_PREFIX}nomarker"]  # and the live one ended


def test_check_reports_a_stale_temporary_file_and_keeps_it(page_ledger) -> None:
    stale = page_ledger.root / "ledger/snapshots" / (".%s.json.abcd_123.tmp" % ("cd" * 32))
    stale.write_bytes(b"{")
    result = refresh_cli(page_ledger.root, "--check", "--timeout", "2")
    assert result.exit_code == 0, result.output
    assert (f"Found ledger/snapshots/{stale.name}, a temporary file an interrupted run left in the ledger "
            "(a run without --check removes it).\n") in result.output
    assert stale.exists()


def test_a_second_refresh_on_a_locked_ledger_is_refused(page_ledger) -> None:
    fd = os.open(page_ledger.root / "ledger/snapshots", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        before = tree(page_ledger.root)
        result = refresh_cli(page_ledger.root, "--timeout", "2")
    finally:
        os.close(fd)
    assert result.exit_code == 2
    assert result.output == ("error: another workings refresh is writing this ledger (it holds the lock on "
                             "ledger/snapshots/); run again when it has ended\n")
    assert tree(page_ledger.root) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_among_the_claims_does_not_stop_the_trial(page_ledger, web: StandInWeb) -> None:
    """The scratch copy leaves pipes out (copying one would wait for a writer); the loader reports it."""
    os.mkfifo(page_ledger.root / "claims/g/pipe.yaml")
    web.page("/qwen", PAGE.replace("</p>", " It was extended in 2025.</p>"))
    result = refresh_cli(page_ledger.root, "--timeout", "2")
    assert result.exit_code == 0, result.output
    assert "page: changed: " in result.output and "  archived\n" in result.output
