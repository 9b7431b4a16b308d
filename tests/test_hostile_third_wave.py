"""Hostile input, third wave: what a reviewer attacking the records, the reports, drafts and the page
found on 3 Dec 2026. Each case builds its input here and asserts the outcome: an error naming file,
line and key (or the report's field), exit 2 and not 70, the rest of the run going on, and exact
arithmetic where a float would have rounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TmpLedger
from tests.test_hostile_ledger import OK, ledger, run

# --- a tolerance past Python's limit on digits stopped the whole run (exit 70) ------------------------

def test_a_tolerance_of_4301_digits_is_one_error_and_the_run_goes_on(tmp_path):
    led = ledger(tmp_path, h=f'said: "x is 1."\nfigure: "1"\nlabel: derived\nwithin: "{"9" * 4301}%"\n'
                            "compute:\n  r: 1\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2, done.stdout[-2000:]
    assert "claims/t/h.yaml:4: within: text is longer than 40 characters" in done.stdout
    assert "2 claims: 1 verified, 1 error" in done.stdout  # t/ok still verified
    done = run(led.root, "show", "t/h")
    assert "error: text is longer than 40 characters (claims/t/h.yaml:4 within)" in done.stdout


# --- a decimal in a step is read from its digits, not through a binary float --------------------------

@pytest.mark.parametrize("step, figure, status", [
    ("k * 1.00000000000000001", "1.00000000000000001", "verified"),  # held exactly (a float made it 1)
    ("k * 123456789012345678901.0", "123456789012345678901", "verified"),
    ("k * 0.1 * 3", "0.3", "verified"),
])
def test_a_decimal_literal_is_exact(tmp_path, step, figure, status):
    led = ledger(tmp_path, d=f'said: "x is {figure}."\nfigure: "{figure}"\nlabel: estimate\ninputs:\n  k: 1\n'
                            f"assumptions: {{k: y}}\ncompute:\n  r: {step}\n")
    done = run(led.root, "verify", "--no-cache", "--json", str(tmp_path / "r.json"))
    claims = {c["id"]: c for c in json.loads((tmp_path / "r.json").read_text())["claims"]}
    assert claims["t/d"]["status"] == status and claims["t/d"]["comparison"]["holds"] is True, done.stdout


def test_a_value_that_depends_on_no_source_through_exact_decimals_is_typed_only(tmp_path):
    """999 + n × (1.00000000000000001 − 1 − 0.00000000000000001) is 999 whatever n: read through floats,
    the dependence check saw −1e-17 × n and called it recomputed from the source."""
    led = TmpLedger(tmp_path / "root")
    led.source("cfg", raw=b'{"n": 7}\n')
    led.claim("t/d", 'said: "x is 999."\nfigure: "999"\nlabel: derived\ninputs:\n  n: cfg#n\ncompute:\n'
                     "  r: 999 + n * (1.00000000000000001 - 1 - 0.00000000000000001)\n")
    run(led.root, "verify", "--no-cache", "--json", str(tmp_path / "r.json"))
    (claim,) = json.loads((tmp_path / "r.json").read_text())["claims"]
    assert claim["status"] == "unchecked" and claim["basis"] == "typed-only", claim


@pytest.mark.parametrize("literal", ["1e-400", "1e-101", "1e101"])
def test_a_decimal_literal_past_1e100_either_way_is_refused(tmp_path, literal):
    led = ledger(tmp_path, d='said: "x is 0."\nfigure: "0"\nlabel: estimate\ninputs:\n  k: 1\n'
                            f"assumptions: {{k: y}}\ncompute:\n  r: k * {literal}\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2
    assert f"claims/t/d.yaml:8: compute.r:" in done.stdout and "out of range" in done.stdout


# --- a step that names a later step read it as a unit ------------------------------------------------

def test_a_step_naming_a_later_step_is_refused_not_read_as_the_unit_bit(tmp_path):
    led = ledger(tmp_path, f='said: "x is 1 B."\nfigure: "1 B"\nlabel: estimate\ninputs:\n  k: 8\n'
                            "assumptions: {k: y}\ncompute:\n  a: k * b\n  b: 1\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2
    assert ("claims/t/f.yaml:8: compute.a: 'b' is a later step, not an input or an earlier step: steps run in "
            "order") in done.stdout


@pytest.mark.parametrize("name", ["Gb", "gigabyte", "kilobit", "kUSD", "ks", "Goctet"])
def test_a_prefixed_unit_is_the_name_of_a_unit(tmp_path, name):
    led = ledger(tmp_path, g=f'said: "x is 1."\nfigure: "1"\nlabel: estimate\ninputs:\n  {name}: 1\n'
                            f"assumptions: {{{name}: y}}\ncompute:\n  r: {name}\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert f"claims/t/g.yaml:5: inputs.{name}: '{name}' is the name of a unit; choose another name" in done.stdout


# --- diff: a report a pull request built may hold anything -------------------------------------------

def diff(base: Path, new: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    done = subprocess.run([sys.executable, "-m", "workings", "diff", str(base), str(new)], capture_output=True,
                          text=True, timeout=60, env=env)
    assert "Traceback" not in done.stderr + done.stdout and "this is a bug in workings" not in done.stdout
    return done


@pytest.mark.parametrize("change, field", [
    ({"comparison": [1]}, "comparison"), ({"comparison": {"recomputed": "x"}}, "comparison.recomputed"),
    ({"comparison": {"recomputed": {"display": 3}}}, "comparison.recomputed.display"),
    ({"exact": 3}, "exact"), ({"line": "7"}, "line"), ({"file": ["a"]}, "file"),
])
def test_diff_of_a_malformed_report_is_exit_2_naming_the_field(tmp_path, change, field):
    led = ledger(tmp_path)
    base = tmp_path / "base.json"
    run(led.root, "verify", "-q", "--no-cache", "--json", str(base))
    claim = json.loads(base.read_text())["claims"][0] | change
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"format": 1, "claims": [claim]}))
    done = diff(base, new)
    assert done.returncode == 2
    assert f"{new}: claims[0].{field}: not what verify writes there" in done.stdout + done.stderr


def test_diff_of_a_report_nested_100000_deep_is_exit_2(tmp_path):
    led = ledger(tmp_path)
    base = tmp_path / "base.json"
    run(led.root, "verify", "-q", "--no-cache", "--json", str(base))
    new = tmp_path / "new.json"
    new.write_text('{"format":1,"claims":[' + "[" * 100_000 + "]" * 100_000 + "]}")
    done = diff(base, new)
    assert done.returncode == 2 and "not a JSON report: nested too deep" in done.stdout + done.stderr


# --- a report is written to a file, never renamed over a link, a pipe or a device --------------------

def test_a_report_path_that_is_a_link_or_a_pipe_is_refused_and_left_alone(tmp_path):
    led = ledger(tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    done = run(led.root, "verify", "-q", "--json", str(link))
    assert done.returncode == 2
    assert f"refusing to write {link}: it is a symbolic link, not a file; name a file" in done.stdout + done.stderr
    assert link.is_symlink() and not (tmp_path / "elsewhere.json").exists()
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    done = run(led.root, "verify", "-q", "--json", str(pipe))
    assert done.returncode == 2 and "it is a pipe, device or socket, not a file" in done.stdout + done.stderr
    assert pipe.is_fifo()


# --- a snapshot's dotted key and a dotted path to the same name ---------------------------------------

def test_a_dotted_path_that_a_dotted_key_also_names_is_refused(tmp_path):
    led = TmpLedger(tmp_path / "root")
    led.source("cfg", raw=b'{"n.x": 48, "n": {"x": 47}}\n')
    led.claim("t/a", 'said: "It has 47 layers."\nfigure: "47"\nlabel: derived\ninputs:\n  n: cfg#n.x\n'
                     "compute:\n  r: n\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2
    assert "key 'n.x' is ambiguous in snapshot" in done.stdout and "neither is used" in done.stdout


# --- control characters never reach the page ----------------------------------------------------------

def test_control_characters_in_an_article_title_are_written_out_on_the_page(tmp_path):
    led = ledger(tmp_path)
    (led.root / "claims" / "t" / "article.md").write_text(
        '---\ntitle: "Cache\\x01 \\x0b\\uffff\\ufdd0\\U0010FFFF notes"\n---\n\nIt is 1 B.\n', encoding="utf-8")
    done = run(led.root, "render", "--out", str(tmp_path / "site"))
    assert done.returncode == 0, done.stdout[-2000:]
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html")]
    assert any("Cache[U+0001] [U+000B][U+FFFF][U+FDD0][U+10FFFF] notes" in page for page in pages)
    assert not any(ch in page for page in pages for ch in "\x01\x0b\uffff\ufdd0\U0010ffff")


# --- drafts: a Markdown link pattern that read "](](](" again from each "](" --------------------------

def test_a_draft_of_link_openings_is_read_in_one_pass():
    from workings.draft.identity import _LINK

    text = "](" * 100_000 + "x"
    started = time.process_time()
    assert _LINK.sub("]", text) == text  # no link target closes
    assert time.process_time() - started < 2  # it took minutes when each "](" was read to the end
    assert _LINK.sub("]", "see [the page](https://example.com/a_b) now") == "see [the page] now"
