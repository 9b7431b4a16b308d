"""Hostile records, second wave (issue 11, the records side): each case builds its hostile input here
and asserts the exact outcome: exit code, the message naming file, line and key, no traceback, work
bounded by the size of the input (counted, never timed), and nothing written outside the ledger."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TmpLedger

# literal inputs only: an estimate, the label that may rest on a stated assumption alone
OK = 'said: "It is 1 B."\nfigure: "1 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\ncompute:\n  a: b\n'


def run(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess (a hang would stop at the timeout and fail the test)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1] / "src"),
                                                        os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "workings", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=60, cwd=cwd or root, env=env)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    assert "this is a bug in workings" not in done.stdout
    return done


def ledger(tmp_path: Path, **claims: str) -> TmpLedger:
    led = TmpLedger(tmp_path / "root")
    led.claim("t/ok", OK)
    for name, text in claims.items():
        led.claim(f"t/{name}", text)
    return led


def files_under(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


# --- unit powers: one parser with the cap, wherever a record writes a unit ---------------------------

POWER = "unit {unit!r}: a unit may be raised only to a whole power between -8 and 8 (B^2, B**2), written once"

POWER_CASES = {
    # name: (record, line, key, unit)
    "figure": ('said: "x"\nfigure: "1 kB^100000000/B^100000000"\nlabel: estimate\ninputs:\n  b: 1 B\n'
               "assumptions: {b: y}\ncompute:\n  a: b / B\n", 2, "figure", "kB^100000000/B^100000000"),
    "figure-token-power": ('said: "x"\nfigure: "1 B/token**1000"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                           "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "B/token**1000"),
    "figure-power-of-power": ('said: "x"\nfigure: "1 B^(9^9^9)"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                              "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "B^(9^9^9)"),
    "figure-grouped-power": ('said: "x"\nfigure: "1 (B^8)^8"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                             "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "(B^8)^8"),
    "figure-fractional-power": ('said: "x"\nfigure: "1 B^0.5"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                                "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "B^0.5"),
    "literal-input": ('said: "x"\nfigure: "1"\nlabel: estimate\ninputs:\n  b: 1 kB^100000000/B^100000000\n'
                      "assumptions: {b: y}\ncompute:\n  a: b\n", 5, "inputs.b", "kB^100000000/B^100000000"),
    "source-key-unit": ('said: "x"\nfigure: "1"\nlabel: derived\ninputs:\n'
                        "  b: qwen#num_hidden_layers kB^100000000/B^100000000\ncompute:\n  a: b\n",
                        5, "inputs.b", "kB^100000000/B^100000000"),
    "reading": ('said: "x"\nfigure: "1 kB"\nlabel: derived\nreading: kB^100000000/B^99999999\ninputs:\n'
                "  b: 1 kB\nassumptions: {b: y}\ncompute:\n  a: b\n", 4, "reading", "kB^100000000/B^99999999"),
    "erratum-recomputed": ('said: "x"\nfigure: "2 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\n'
                           "compute:\n  a: b\nerratum:\n  reason: a slip\n  recomputed: 1 kB^100000000/B^99999999\n",
                           11, "erratum.recomputed", "kB^100000000/B^99999999"),
}


@pytest.mark.parametrize("case", sorted(POWER_CASES))
def test_a_huge_unit_power_is_one_error_at_its_key(tmp_path, case):
    record, line, key, unit = POWER_CASES[case]
    led = ledger(tmp_path, h=record)
    led.source("qwen")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"claims/t/h.yaml:{line}: {key}: {POWER.format(unit=unit)}" in done.stdout
    assert "1 claims" not in done.stdout and "verified" in done.stdout  # the good claim still verifies


def test_a_source_value_with_a_huge_unit_power_is_refused_at_its_key(tmp_path):
    led = ledger(tmp_path)
    name = led.snapshot(b"The cache takes 890 bytes per token in total.\n", "txt")
    led.source("prose", f"title: t\ngrade: transcription\nsnapshot: {name}\nvalues:\n"
                        "  v: {value: 890 B^99/token, passage: 890 bytes per token in total}\n")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"ledger/sources/prose.yaml:5: values.v.value: {POWER.format(unit='B^99/token')}" in done.stdout


def test_a_huge_unit_power_ends_show_render_and_check_draft_too(tmp_path):
    record = POWER_CASES["figure"][0]
    led = ledger(tmp_path, h=record)
    shown = run(led.root, "show", "t/h")
    assert shown.returncode == 2 and "(claims/t/h.yaml:2 figure)" in shown.stdout
    assert "error: unit 'kB^100000000/B^100000000': a unit may be raised" in shown.stdout
    site = tmp_path / "site"
    rendered = run(led.root, "render", "--out", str(site))
    assert rendered.returncode == 0 and (site / "index.html").is_file()
    assert "a unit may be raised only to a whole power" in (site / "claims" / "t--h.html").read_text()
    led.claim("t/two", 'said: "Each value takes 2 bytes."\nfigure: "2 B"\nlabel: estimate\ninputs:\n  b: 2 B\n'
                       "assumptions: {b: BF16}\ncompute:\n  a: b\n")
    draft = tmp_path / "draft.md"
    draft.write_text("Each value takes 2 bytes.<!-- claim: t/two -->\n")
    checked = run(led.root, "check-draft", str(draft))
    assert checked.returncode == 0 and "1 figures: 1 backed" in checked.stdout, checked.stdout


def test_a_squared_unit_against_a_plain_one_is_a_dimension_error_not_a_bug(tmp_path):
    """B^2 against B used to end in 'this is a bug in workings' (pint cannot format Fraction powers)."""
    led = ledger(tmp_path, h='said: "x"\nfigure: "1 B^2"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                             "assumptions: {b: y}\ncompute:\n  a: b\n")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert "claims/t/h.yaml:2: figure: B cannot be compared with B^2 (information vs information^2)" in done.stdout


def test_a_step_that_squares_a_unit_under_the_cap_still_works(tmp_path):
    led = ledger(tmp_path, h='said: "x"\nfigure: "4 B^2"\nlabel: estimate\ninputs:\n  b: 2 B\n'
                             "assumptions: {b: y}\ncompute:\n  a: b * b\n")
    done = run(led.root, "verify")
    assert done.returncode == 0, done.stdout
    assert "2 claims: 2 verified" in done.stdout


# --- a long chain of claims is linear work ---------------------------------------------------------

CONFIG = b'{"hidden_size": 5120, "num_attention_heads": 40}\n'


def chain(root: Path, n: int) -> None:
    """``n`` claims, each built on the one before, all resting on one source."""
    led = TmpLedger(root)
    led.source("cfg", raw=CONFIG)
    led.claim("c/c0", 'said: "128"\nfigure: "128"\nlabel: derived\ninputs:\n  h: cfg#hidden_size\n'
                      "  n: cfg#num_attention_heads\ncompute:\n  d: h / n\n")
    for i in range(1, n):
        led.claim(f"c/c{i}", f'said: "128"\nfigure: "128"\nlabel: derived\ninputs:\n  p: claim:c/c{i - 1}\n'
                             "compute:\n  d: p\n")


def calls(fn) -> int:
    """The function calls (Python and C) that ``fn()`` makes: work done, independent of the machine's load."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def _per_claim(work) -> tuple[float, float]:
    """Marginal calls per claim from 100 to 200 claims, and from 200 to 400: equal when linear (a first
    run of 50 fills the caches that every later run finds full)."""
    work(50)
    w100, w200, w400 = work(100), work(200), work(400)
    return (w200 - w100) / 100, (w400 - w200) / 200


def test_a_chain_of_claims_verifies_in_linear_work(tmp_path):
    """Each claim's upstream sources used to be walked again for every claim (5,000 claims: 96 s)."""
    from workings.engine import verify

    def work(n):
        root = tmp_path / f"chain{n}"
        chain(root, n)
        return calls(lambda: verify(root))

    first, second = _per_claim(work)
    assert second < 1.15 * first, (first, second)  # quadratic work gave 1.5 times more per claim
    report = verify(tmp_path / "chain400")
    assert report.summary["verified"] == 400 and report.exit_code == 0
    last = report.claim("c/c399")
    assert last.sources == ("cfg",) and last.grade == "copy"  # upstream sources still reach the last claim


def test_a_chain_of_claims_renders_and_shows_in_linear_work(tmp_path):
    from workings.engine import verify
    from workings.render import render_site
    from workings.show import derivation

    def render_work(n):
        root = tmp_path / f"chain{n}"
        chain(root, n)
        report = verify(root)
        return calls(lambda: render_site(report, root, tmp_path / f"site{n}"))

    first, second = _per_claim(render_work)
    assert second < 1.15 * first, (first, second)

    def show_work(n):
        report = verify(tmp_path / f"chain{n}")
        return calls(lambda: [derivation(report, c) for c in report.claims])

    first, second = _per_claim(show_work)
    assert second < 1.15 * first, (first, second)
