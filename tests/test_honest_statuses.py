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


def test_a_source_cannot_have_been_read_after_today(tmp_path):
    """``retrieved.on: 2099-01-01`` was shown on the source's page as when it was read."""
    led = _ledger(tmp_path)
    led.source("later", (led.root / "ledger/sources/qwen.yaml").read_text()
               + 'retrieved:\n  "on": 2099-01-01\n  how: from a forum post\n')
    led.claim("rt/later", 'said: "It has 48 layers."\nfigure: "48"\nlabel: quoted\n'
                          "inputs:\n  n: later#num_hidden_layers\ncompute:\n  v: n\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert "ledger/sources/later.yaml:7: retrieved.on: '2099-01-01' is after today (" in done.stdout
    assert "UTC): a source cannot have been read in the future" in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/later" in line)


def test_a_primary_source_names_the_commit_its_bytes_were_read_at(tmp_path):
    """The grade table says primary is "the official bytes (a Hub file at a resolved commit, a file of the
    publisher's repository at a commit)"; a random mirror's URL with no commit was shown as primary."""
    led = _ledger(tmp_path)
    plain = (led.root / "ledger/sources/qwen.yaml").read_text()
    led.source("mirror", plain.replace("grade: copy", "grade: primary")
               .replace("https://example.org/qwen", "https://random-mirror.example/qwen/config.json"))
    led.source("pinned", plain.replace("grade: copy", "grade: primary")
               + "retrieved:\n  commit: 24544163a9013ea385ca43dc31aa23458ca2008b\n")
    for source in ("mirror", "pinned"):
        led.claim(f"rt/{source}", 'said: "It has 48 layers."\nfigure: "48"\nlabel: quoted\n'
                                  f"inputs:\n  n: {source}#num_hidden_layers\ncompute:\n  v: n\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("ledger/sources/mirror.yaml:2: grade: a primary source records the commit its bytes were read at "
            "(retrieved.commit, 40 or 64 hex digits); without one, grade it by what was seen (copy)") in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/mirror" in line)
    assert "ok " in next(line for line in done.stdout.splitlines() if "rt/pinned" in line)
    assert "pinned.yaml" not in done.stdout
