"""What every command pays before and besides its work: the garbage collector's rescans.

verify, show and check-draft run with the cyclic collector paused (``gcpause.paused``), and give
it back as they found it. Asserted on the work done (collections counted), never on time; the
outputs are the other tests' (the collector cannot change them).
"""

from __future__ import annotations

import gc
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workings.cli import main
from workings.gcpause import paused

REPO = Path(__file__).resolve().parent.parent
ARTICLE = "claims/kv-bytes-per-token/article.md"


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    return tmp_path


def collections_during(args: list[str]) -> tuple[int, int, str]:
    """(collections while the command's code ran: one of workings' functions on the stack, its exit
    code, its output). click's runner may collect after the command has given the collector back."""
    seen: list[int] = []
    package = str(Path(main.callback.__code__.co_filename).parent) if main.callback else ""

    def count(phase: str, info: dict) -> None:
        frame = sys._getframe(1)
        while frame is not None and not frame.f_code.co_filename.startswith(package):
            frame = frame.f_back
        if phase == "start" and frame is not None:
            seen.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        done = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        gc.callbacks.remove(count)
    return len(seen), done.exit_code, done.output


@pytest.mark.parametrize("command", [
    ["verify", "--no-cache", "--quiet"],
    ["verify", "--quiet"],
    ["show", "kv-bytes-per-token/qwen25-14b-cache-full-window-gb"],
    ["check-draft", ARTICLE],
])
def test_the_short_commands_run_without_a_collection_and_give_the_collector_back(repo_copy, command):
    args = [*command, "--root", str(repo_copy)]
    if command[0] == "check-draft":
        args[1] = str(repo_copy / ARTICLE)
    assert gc.isenabled()
    collected, code, output = collections_during(args)
    assert code in (0, 1), output
    assert output.strip()
    assert collected == 0
    assert gc.isenabled()


def test_a_command_not_paused_still_collects(repo_copy):
    """The counting above can see a collection: where a command runs with the collector on (render
    reads the explainer and says what it wrote with it on; it pauses it only while it makes the site),
    a collection is counted. The threshold is lowered so that one surely falls there, whatever the
    heap the test process holds."""
    threshold = gc.get_threshold()
    gc.set_threshold(1)
    try:
        collected, code, output = collections_during(["render", "--root", str(repo_copy), "--out",
                                                      str(repo_copy / "site")])
    finally:
        gc.set_threshold(*threshold)
    assert code == 0, output
    assert collected > 0


def test_paused_gives_back_the_state_it_found_even_on_an_exception():
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()
    with pytest.raises(SystemExit), paused():
        raise SystemExit(1)
    assert gc.isenabled()


def test_check_draft_imports_the_atomic_writer_only_to_write(repo_copy, tmp_path):
    """check-draft writes nothing without --json but its scan's memory (``draft.scanmemo``), and that
    only when a record changed; loading measurements only reads them: none of these imports
    ``workings.atomic`` (compiled from source at every start otherwise)."""
    import subprocess

    probe = ("import runpy, sys\nimport workings.draft.scanmemo as memo\nmemo.RACY_NS = 0  # the copy's records count as settled\n"
             "sys.argv = ['workings', *sys.argv[1:]]\n"
             "import workings.ending as ending\n"
             "ending.end = lambda exit: None  # ends as always: looked at after\n"
             "try:\n    runpy.run_module('workings', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "print('atomic imported:', 'workings.atomic' in sys.modules, file=sys.stderr)\n")
    article = str(repo_copy / ARTICLE)
    # the first run writes the memory; the second finds every record as it left it
    for extra, imported in (([], True), ([], False), (["--no-cache"], False), (["--json", str(tmp_path / "out.json")], True)):
        done = subprocess.run([sys.executable, "-c", probe, "check-draft", article, "--root", str(repo_copy), *extra],
                              capture_output=True, text=True, timeout=300)
        assert f"atomic imported: {imported}" in done.stderr, done.stderr
    assert (tmp_path / "out.json").read_text().startswith("{")
