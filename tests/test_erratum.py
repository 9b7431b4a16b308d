"""Errata: a figure wrong as printed and already published stops failing CI only while the
recomputed value stays the one that was acknowledged."""

from __future__ import annotations

from tests.conftest import PER_TOKEN

WRONG = PER_TOKEN.replace("196,608", "196,680") + (
    "erratum:\n  reason: Digits swapped in print.\n  recomputed: 196,608 B/token\n")


def test_an_acknowledged_erratum_does_not_fail(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", WRONG)
    report = tmp_ledger.verify()
    claim = report.claim("kv/per-token")
    assert claim.status == "erratum"
    assert claim.reason == "wrong as printed (196,680 B/token; recomputed 196,608 B/token): Digits swapped in print."
    assert report.exit_code == 0
    # a claim built on it uses the recomputed value and verifies
    assert report.claim("kv/full-window").status == "verified"


def test_an_erratum_drifts_when_the_recomputed_value_moves(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", WRONG.replace("value_bytes: 2 B", "value_bytes: 1 B"))
    report = tmp_ledger.verify()
    claim = report.claim("kv/per-token")
    assert claim.status == "drift"
    assert "the erratum acknowledged 196,608 B/token, but the recomputed value is now 98,304 B/token" in claim.reason
    assert report.exit_code == 1


def test_an_erratum_on_a_figure_that_holds_is_a_note(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN + "erratum:\n  reason: x\n  recomputed: 196,608 B/token\n")
    claim = tmp_ledger.verify().claim("kv/per-token")
    assert claim.status == "verified"
    assert [m.text for m in claim.messages if m.kind == "note"] == [
        "an erratum is recorded, but the figure holds as printed"]


# Literal inputs only: labelled an estimate, the one label that may rest on stated assumptions alone
# (a derived figure resting on them is unchecked, whatever its comparison says).
CHECK = """\
said: "Fewer parameters are active."
check: active < before
label: estimate
inputs:
  active: 16 Gparameter
  before: 13 Gparameter
assumptions:
  active: decode
  before: the older model
compute:
  most: active
"""


def test_a_check_can_carry_an_erratum(tmp_ledger):
    tmp_ledger.claim("c/fewer", CHECK.replace("check: active < before", "check: most < before")
                     + "erratum:\n  reason: More in decode.\n  recomputed: 16 Gparameter\n")
    claim = tmp_ledger.verify().claim("c/fewer")
    assert claim.status == "erratum"
    tmp_ledger.claim("c/fewer", CHECK.replace("check: active < before", "check: most < before")
                     .replace("active: 16 Gparameter", "active: 17 Gparameter")
                     + "erratum:\n  reason: More in decode.\n  recomputed: 16 Gparameter\n")
    assert tmp_ledger.verify().claim("c/fewer").status == "drift"


def test_a_check_needs_no_compute(tmp_ledger):
    tmp_ledger.claim("c/fewer", CHECK.replace("compute:\n  most: active\n", "").replace("active < before", "before < active"))
    claim = tmp_ledger.verify().claim("c/fewer")
    assert claim.status == "verified" and claim.reason == "holds: 13 Gparameter vs 16 Gparameter"


def test_a_figure_copied_into_the_steps_backs_nothing(tmp_ledger):
    tmp_ledger.claim("c/copied", 'said: x is 196,608.\nfigure: 196,608 B/token\nlabel: derived\ncompute:\n  a: 196608 * B / token\n')
    tmp_ledger.claim("c/on-it", 'said: x is 393,216.\nfigure: 393,216 B/token\nlabel: derived\ninputs:\n  a: claim:c/copied\n'
                     "compute:\n  b: 2 * a\n")
    report = tmp_ledger.verify()
    assert report.claim("c/copied").status == "unchecked"
    assert report.claim("c/copied").reason.startswith("nothing backs it: its value depends only on numbers")
    assert report.claim("c/on-it").status == "unchecked"
