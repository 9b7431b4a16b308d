"""What a reviewer attacking the ledger's honesty found on 3 Dec 2026: records a stranger's pull request
could write so that verify, show, the page or check-draft said something stronger than what backs it.
Each case fails on the code before its fix; each is run through the real CLI or the library, no mocks."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TmpLedger
from tests.test_hostile_ledger import run


def _ledger(tmp_path: Path) -> TmpLedger:
    return TmpLedger(tmp_path / "root").qwen()


def test_an_unarchived_source_cannot_hold_a_passage_that_backs_a_figure(tmp_path):
    """The grade table says an unarchived source 'can back no value'; its passage backed "12,345 GB"
    (restated, verified) on nothing but its author's word."""
    led = _ledger(tmp_path)
    led.source("talk", "title: A talk nobody recorded\nurl: https://example.com/talk\ngrade: unarchived\n"
                       'passages:\n  says: "The model needs 12,345 GB of memory."\n')
    led.claim("rt/unarch", 'said: "The model needs 12,345 GB of memory."\nfigure: 12,345 GB\nlabel: quoted\n'
                           "compute:\n  v: 12345 * GB\ncites: [talk#says]\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("ledger/sources/talk.yaml:4: passages: an unarchived source cannot hold passages: no archived text "
            "checks them (say what it said in notes:)") in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/unarch" in line)


def test_a_record_cannot_name_itself_into_another_group(tmp_path):
    """``claims/rt/sneak.yaml`` with ``id: kv/sneak`` was a claim of the group kv, whose articles
    check-draft and the page back from their own group's claims, from a folder a reviewer of kv never reads."""
    led = _ledger(tmp_path)
    led.claim("rt/sneak", 'id: kv/sneak\nsaid: "x is 3."\nfigure: "3"\nlabel: estimate\ninputs: {a: 3}\n'
                          "assumptions: {a: y}\ncompute:\n  r: a\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("claims/rt/sneak.yaml:1: id: 'kv/sneak' is of the group 'kv', but the record is in 'rt': a claim's "
            "group is its folder") in done.stdout
    assert "kv/sneak" not in done.stdout.replace("id: 'kv/sneak'", "")
