"""Hostile input, fourth wave: what a reviewer posing as a stranger's pull request found on 4 Dec 2026
(102 cases, 10 failures from six defects). Each case builds its input here and asserts the outcome:
an error naming file, line and key, exit 2 and not 70, the rest of the run going on; a typed number
never "recomputed"; a measurement's result its own samples give."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TmpLedger
from tests.test_hostile_ledger import _measured, ledger, run


# --- a typed number behind a division that fails when the input is doubled ---------------------------

@pytest.mark.parametrize("step", ["4800 + 0 / (n - 97)", "4800 + 0 * 2 ** (n - 20)"])
def test_a_typed_number_behind_a_pole_is_not_recomputed(tmp_path, step):
    """At 48 layers the doubled run (97) divided by zero, and a failed run counted as the input mattering:
    "Its config.json gives 4,800 layers." was verified as recomputed from the config."""
    led = TmpLedger(tmp_path / "root").qwen()
    led.claim("pr/evil", 'said: "Its config.json gives 4,800 layers."\nfigure: "4,800"\nlabel: derived\n'
                         f"inputs:\n  n: qwen#num_hidden_layers\ncompute:\n  count: {step}\n")
    done = run(led.root, "verify", "--no-cache", "--json", str(tmp_path / "r.json"))
    claim = next(c for c in json.loads((tmp_path / "r.json").read_text())["claims"] if c["id"] == "pr/evil")
    assert claim["status"] == "unchecked" and claim["basis"] == "typed-only", claim
    assert "pr/evil" in done.stdout


# --- a probe's dtype, or a source's passages and values, of the wrong type stopped every command -----

@pytest.mark.parametrize("dtype", ["[bfloat16]", "{a: 1}"])
def test_a_probe_dtype_that_is_no_text_is_one_error(tmp_path, dtype):
    led = ledger(tmp_path, p='said: "It is 1 B."\nfigure: "1 B"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                             f"assumptions: {{b: y}}\ncompute:\n  a: b\nprobe: {{kind: kv-bytes, layers: 1, "
                             f"kv_heads: 1, head_dim: 1, dtype: {dtype}}}\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2, done.stdout[-2000:]
    assert "claims/t/p.yaml:" in done.stdout and "probe.dtype: expected one of" in done.stdout
    assert "2 claims: 1 verified, 1 error" in done.stdout


@pytest.mark.parametrize("key, value", [("passages", "3"), ("passages", "true"), ("values", "3"),
                                        ("passages", "{3: some text}"), ("values", "{7: {value: '1', passage: '1'}}")])
def test_a_sources_passages_or_values_of_the_wrong_type_is_one_error(tmp_path, key, value):
    led = TmpLedger(tmp_path / "root").qwen()
    path = led.root / "ledger" / "sources" / "qwen.yaml"
    path.write_text(path.read_text() + f"{key}: {value}\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2, done.stdout[-2000:]
    assert f"ledger/sources/qwen.yaml:" in done.stdout and key in done.stdout
    site = run(led.root, "render", "--out", str(tmp_path / "site"))
    assert site.returncode in (0, 2) and (tmp_path / "site" / "index.html").is_file()


# --- a copy graded primary, with a commit, read from another repository ------------------------------

def test_a_primary_source_read_from_a_derivatives_repository_is_refused(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    path = led.root / "ledger" / "sources" / "qwen.yaml"
    path.write_text(path.read_text().replace("grade: copy", "grade: primary") + (
        "hub: {repo: Qwen/Qwen2.5-14B-Instruct-1M, file: config.json, revision: main}\n"
        "retrieved:\n  commit: 0123456789abcdef0123456789abcdef01234567\n"
        "  url: https://huggingface.co/mergekit-community/mergekit-model_stock-nvgaatl/blob/main/config.json\n"))
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2
    assert ("retrieved.url: a primary source is the Hub file of Qwen/Qwen2.5-14B-Instruct-1M itself; this "
            "address is in mergekit-community/mergekit-model_stock-nvgaatl: grade it by what was seen (copy)") in done.stdout


@pytest.mark.parametrize("address, refused", [
    ("https://blog.example/qwen-config", True),
    ("https://github.com/acme/model/blob/0123456789abcdef0123456789abcdef01234567/config.json", False),
])
def test_a_primary_sources_address_names_its_commit(tmp_path, address, refused):
    led = TmpLedger(tmp_path / "root").qwen()
    path = led.root / "ledger" / "sources" / "qwen.yaml"
    path.write_text(path.read_text().replace("grade: copy", "grade: primary") + (
        f"retrieved:\n  commit: 0123456789abcdef0123456789abcdef01234567\n  url: {address}\n"))
    done = run(led.root, "verify", "-q", "--no-cache")
    assert ("does not name it: give the address at that commit, or grade it by what was seen (copy)"
            in done.stdout) is refused


# --- a measurement whose result its own samples contradict ------------------------------------------

def test_a_kv_measurement_whose_samples_give_another_result_is_refused(tmp_path):
    """A hand-written GPU file said 19,660,800 B/token beside samples of 100,000 B/token and was shown as
    "measured ... agrees"."""
    led = TmpLedger(tmp_path / "root").qwen()
    _measured(led, result="196608")
    path = next((led.root / "ledger" / "measurements" / "kv").glob("*.yaml"))
    path.write_text(path.read_text().replace("measured_bytes: 393216,", "measured_bytes: 400000,"))
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2, done.stdout
    assert ("result.value: the samples give 203392 bytes per token (their exact fit), not 196608"
            in done.stdout)
    assert "agrees" not in done.stdout


def test_a_measurement_format_of_true_is_refused(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    _measured(led, result="196608")
    path = next((led.root / "ledger" / "measurements" / "kv").glob("*.yaml"))
    path.write_text(path.read_text().replace("format: 1\n", "format: true\n"))
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2 and "format: expected 1, got True" in done.stdout


# --- the command line, and errors that follow from another -------------------------------------------

def test_show_given_an_id_too_long_for_a_file_name_says_no_claim(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    done = run(led.root, "show", "a" * 5000)
    assert done.returncode == 2 and "no claim" in done.stdout + done.stderr


def test_an_assumption_of_a_refused_input_is_not_a_second_error(tmp_path):
    led = ledger(tmp_path, e='said: "x is 2."\nfigure: "2"\nlabel: estimate\ninputs:\n  k: 2 QQQunits\n'
                             "assumptions:\n  k: because\ncompute:\n  r: k\n")
    done = run(led.root, "verify", "-q", "--no-cache")
    assert "claims/t/e.yaml:5: inputs.k: unknown unit 'QQQunits'" in done.stdout
    assert "names no input of this claim" not in done.stdout


# --- an address that reads as another ------------------------------------------------------------------

@pytest.mark.parametrize("url, message", [
    ("https://huggingface.co@evil.example/x", "a URL with a user name or password before its host reads as another"),
    ("http://user:secret@evil.example/x", "a URL with a user name or password before its host reads as another"),
    ("https://hugginɡface.co/Qwen/x", "write the URL's host in ASCII (an international name in its xn-- form)"),
])
def test_a_source_address_that_reads_as_another_is_refused_and_never_linked(tmp_path, url, message):
    from workings.render.views import safe_url

    led = TmpLedger(tmp_path / "root").qwen()
    path = led.root / "ledger" / "sources" / "qwen.yaml"
    path.write_text(path.read_text().replace("url: https://example.org/qwen", f"url: {url}"))
    done = run(led.root, "verify", "-q", "--no-cache")
    assert done.returncode == 2 and f"ledger/sources/qwen.yaml:3: url: {message}" in done.stdout, done.stdout
    assert safe_url(url) is None and safe_url("https://xn--hugginface-4rb.co/x") is not None


# --- diff's reports: what a pull request's report may hide ---------------------------------------------

def _diff(base, new) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1] / "src"),
                                                        os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "workings", "diff", str(base), str(new)], capture_output=True,
                          text=True, timeout=60, env=env)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    return done


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('"total":2', '"total":NaN', 1), "NaN is no number verify writes"),
    (lambda t: t.replace('"claims":[', '"claims":[],"claims":[', 1), "the key 'claims' appears twice"),
    (lambda t: re.sub(r'"erratum":null,"exact":"[^"]*"', '"erratum":null,"exact":"1/0"', t, count=1),
     ".exact: not what verify writes there"),
])
def test_diff_refuses_a_report_with_nan_a_key_twice_or_an_impossible_value(tmp_path, edit, message):
    led = TmpLedger(tmp_path / "root").qwen()
    run(led.root, "verify", "-q", "--no-cache", "--json", str(tmp_path / "base.json"))
    text = (tmp_path / "base.json").read_text()
    (tmp_path / "new.json").write_text(edit(text))
    assert (tmp_path / "new.json").read_text() != text
    done = _diff(tmp_path / "base.json", tmp_path / "new.json")
    assert done.returncode == 2 and message in done.stdout + done.stderr, done.stdout + done.stderr


def test_diff_refuses_a_claim_listed_twice(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    run(led.root, "verify", "-q", "--no-cache", "--json", str(tmp_path / "base.json"))
    data = json.loads((tmp_path / "base.json").read_text())
    data["claims"].append(dict(data["claims"][0], status="drift"))
    (tmp_path / "new.json").write_text(json.dumps(data))
    done = _diff(tmp_path / "base.json", tmp_path / "new.json")
    assert done.returncode == 2 and "is listed twice" in done.stdout + done.stderr


def test_an_id_differing_only_in_case_does_not_take_the_plain_page_name():
    """A stranger's refused ``GQA-paper.yaml`` beside ``gqa-paper.yaml`` moved the real page to
    ``sources/gqa-paper-2.html``, breaking every link to it."""
    from workings.render.views import page_names

    names = page_names(["gqa-paper", "GQA-paper", "a"], "sources")
    assert names["gqa-paper"] == "sources/gqa-paper.html" and names["GQA-paper"] == "sources/GQA-paper-2.html"
