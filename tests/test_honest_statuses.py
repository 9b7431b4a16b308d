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


def test_within_is_an_approximation_not_any_number(tmp_path):
    """``within: 100%`` accepted anything from 0 to twice the value: "1,000,000 layers" verified 48."""
    led = _ledger(tmp_path)
    led.claim("rt/within", 'said: "Qwen2.5-14B has 1,000,000 layers."\nfigure: "1,000,000"\nlabel: quoted\n'
                           "within: 100%\ninputs:\n  n: qwen#num_hidden_layers\ncompute:\n  v: n\n")
    led.claim("rt/about", 'said: "Qwen2.5-14B has about 50 layers."\nfigure: "50"\nlabel: quoted\n'
                          "within: 5%\ninputs:\n  n: qwen#num_hidden_layers\ncompute:\n  v: n\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("claims/rt/within.yaml:4: within: 100% is no approximation: at most 20% (100% holds for anything from "
            "0 to twice the figure); print the figure as the value rounds, or use bound:") in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/within" in line)
    assert "ok " in next(line for line in done.stdout.splitlines() if "rt/about" in line)


def test_a_bound_is_a_bound_the_sentence_prints(tmp_path):
    """``bound: at-most`` on "Qwen2.5-14B has 4,800 layers." verified 48: the reader is told 4,800,
    plainly. A bound needs its words beside the figure, in its direction."""
    led = _ledger(tmp_path)
    rest = "inputs:\n  n: qwen#num_hidden_layers\ncompute:\n  v: n\n"
    led.claim("rt/plain", f'said: "Qwen2.5-14B has 4,800 layers."\nfigure: "4,800"\nlabel: quoted\n'
                          f"bound: at-most\n{rest}")
    led.claim("rt/wrong-way", f'said: "It has more than 4,800 layers."\nfigure: "4,800"\nlabel: quoted\n'
                              f"bound: at-most\n{rest}")
    led.claim("rt/no-more", f'said: "It has no more than 4,800 layers."\nfigure: "4,800"\nlabel: quoted\n'
                            f"bound: at-least\n{rest}")
    led.claim("rt/up-to", f'said: "It has up to 4,800 layers."\nfigure: "4,800"\nlabel: quoted\nbound: at-most\n{rest}')
    led.claim("rt/or-more", f'said: "It has 40 layers or more."\nfigure: "40"\nlabel: quoted\nbound: at-least\n{rest}')
    led.claim("rt/also", f'said: "It has 40 layers."\nalso_said: ["At least 40 layers, that is."]\nfigure: "40"\n'
                         f"label: quoted\nbound: at-least\n{rest}")
    led.claim("rt/range", f'said: "It has 40 to 60 layers."\nfigure: "40"\nlabel: quoted\nbound: at-least\n{rest}')
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    upper = "(at most, up to, less than, under, ≤, 'or less')"
    lower = "(at least, more than, over, ≥, '90+', 'or more')"
    for claim, bound, side, words in (("plain", "at-most", "an upper", upper),
                                      ("wrong-way", "at-most", "an upper", upper),
                                      ("no-more", "at-least", "a lower", lower)):
        assert (f"claims/rt/{claim}.yaml:4: bound: {bound} compares the figure as {side} bound, but no sentence "
                f"prints 4,800 as one {words}: a figure stated plainly is compared as printed") in done.stdout
        assert "ok " not in next(line for line in done.stdout.splitlines() if f"rt/{claim}" in line)
    for claim in ("up-to", "or-more", "also", "range"):  # a range's low end, as `new --from-draft` writes it
        assert "ok " in next(line for line in done.stdout.splitlines() if f"rt/{claim}" in line), claim
