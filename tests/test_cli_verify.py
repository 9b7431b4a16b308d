"""workings verify and show through the CLI: exit codes, whole output, the JSON contract."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

from click.testing import CliRunner

from tests.conftest import PER_TOKEN
from workings.cli import main


def run(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


def test_verify_all_good(tmp_ledger):
    tmp_ledger.qwen()
    result = run("verify", "--root", tmp_ledger.root)
    assert result.exit_code == 0
    assert result.stdout == (
        "ok                      198.6 GB  198.57408 GB               recomputed       kv/full-window\n"
        "ok               196,608 B/token  196,608 B/token            recomputed       kv/per-token\n"
        "basis: 2 recomputed\n"
        "2 claims: 2 verified\n")
    assert result.stderr.startswith("cache: recomputed 2 of 2 claims (cache: ")  # workings.cache: stderr only
    again = run("verify", "--root", tmp_ledger.root)
    assert again.stdout == result.stdout and again.stderr.startswith("cache: recomputed 0 of 2 claims")


def test_drift_exits_1_and_propagates_to_claims_built_on_it(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("196,608", "196,680"))
    result = run("verify", "--root", tmp_ledger.root)
    assert result.exit_code == 1
    assert result.stdout == (
        "DRIFT                   198.6 GB  198.57408 GB               recomputed       kv/full-window\n"
        "          claims/kv/full-window.yaml:5: inputs.per_token: input claim 'kv/per-token' drifted: printed 196,680 B/token, "
        "recomputed 196,608 B/token (exact)\n"
        "DRIFT            196,680 B/token  196,608 B/token            recomputed       kv/per-token\n"
        "          claims/kv/per-token.yaml:2: figure: printed 196,680 B/token, recomputed 196,608 B/token (exact)\n"
        "basis: 2 recomputed\n"
        "2 claims: 0 verified, 2 drift\n")


def test_invalid_input_exits_2_even_with_drift(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("196,608", "196,680"))
    tmp_ledger.claim("kv/broken", "said: x\n")
    result = run("verify", "--root", tmp_ledger.root)
    assert result.exit_code == 2
    assert ("ERROR                                                                         kv/broken\n"
            "          claims/kv/broken.yaml:1: missing required key 'label'\n"
            "          claims/kv/broken.yaml:1: expected exactly one of 'figure' (a number as printed) and 'check' "
            "(a relation)\n") in result.output


def test_json_contract(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    out = tmp_path / "out" / "ledger.json"
    assert run("verify", "--root", tmp_ledger.root, "--json", out).exit_code == 0
    data = json.loads(out.read_text())
    assert data["format"] == 2
    assert data["summary"] == {"verified": 2, "erratum": 0, "drift": 0, "unchecked": 0, "error": 0, "total": 2,
                               "problems": 0, "basis": {"recomputed": 2, "restated": 0, "measured": 0,
                                                        "assumptions-only": 0, "typed-only": 0, "none": 0}}
    claim = next(c for c in data["claims"] if c["id"] == "kv/full-window")
    assert {k: claim[k] for k in ("id", "status", "figure", "value", "unit", "file", "line", "messages")} == {
        "id": "kv/full-window", "status": "verified", "figure": "198.6 GB", "value": 198574080000, "unit": "B",
        "file": "claims/kv/full-window.yaml", "line": 1, "messages": []}
    assert claim["uses"] == ["kv/per-token"] and claim["grade"] == "copy"
    assert claim["basis"] == "recomputed" and claim["dependence"] == {
        "basis": "recomputed", "sourced": ["per_token", "window"], "assumed": [], "unused": [], "stating": []}
    junit = ET.parse(out.with_name("junit.xml")).getroot()
    assert junit.get("tests") == "2" and junit.get("failures") == "0"


def test_same_input_gives_the_same_bytes(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    run("verify", "--root", tmp_ledger.root, "--json", tmp_path / "a.json")
    run("verify", "--root", tmp_ledger.root, "--json", tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_github_annotations_point_at_file_and_line(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("196,608", "196,680"))
    summary = tmp_path / "summary.md"
    result = run("verify", "--root", tmp_ledger.root, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert ("::error file=claims/kv/per-token.yaml,line=2::kv/per-token: figure: printed 196,680 B/token, "
            "recomputed 196,608 B/token (exact)\n") in result.output
    assert "| drift | 2 |" in summary.read_text()


def test_show_prints_the_derivation(tmp_ledger):
    tmp_ledger.qwen()
    result = run("show", "kv/per-token", "--root", tmp_ledger.root)
    assert result.exit_code == 0
    assert "  head_dim       = hidden / heads\n                 = 128\n" in result.output
    assert "  value_bytes    = 2 B                      assumed\n" in result.output
    assert "compare: printed 196,608 B/token; recomputed 196,608 B/token (exact): holds" in result.output
    assert "  layers         = 48                       qwen#num_hidden_layers [copy]" in result.output


def test_show_unknown_claim(tmp_ledger):
    tmp_ledger.qwen()
    result = CliRunner().invoke(main, ["show", "per-token", "--root", str(tmp_ledger.root)])
    assert result.exit_code == 2
    assert "no claim 'per-token'; did you mean: kv/per-token" in result.output


def test_schema_is_json_and_names_every_key():
    data = json.loads(run("schema").output)
    assert set(data["properties"]) >= {"said", "figure", "check", "inputs", "compute", "erratum"}
    assert data["properties"]["label"]["enum"][0] == "derived"


def test_not_a_ledger_root(tmp_path):
    result = CliRunner().invoke(main, ["verify", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "no claims/ or ledger/sources/ here" in result.output


def test_python_dash_m_and_the_verify_path_imports_nothing_heavy(tmp_ledger):
    tmp_ledger.qwen()
    code = ("import sys, runpy; sys.argv=['workings','verify','--root',sys.argv[1]];\n"
            "import workings.ending as ending\n"
            "ending.end = lambda exit: None  # ends as always: looked at after\n"
            "try:\n runpy.run_module('workings', run_name='__main__')\n"
            "except SystemExit as e:\n"
            " heavy=[m for m in ('torch','huggingface_hub','requests','jinja2') if m in sys.modules]\n"
            " print('HEAVY', heavy, 'EXIT', e.code)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_ledger.root)], capture_output=True, text=True, check=True)
    assert "HEAVY [] EXIT 0" in out.stdout


def test_verify_exits_with_the_report_frozen_out_of_the_last_collection(tmp_ledger):
    """At exit, what verify built is frozen before the interpreter's last collection (it would only
    rescan it): a handler registered before verify runs after verify's, and sees the frozen objects."""
    tmp_ledger.qwen()
    probe = ("import atexit, gc, sys\n"
             "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 10_000, file=sys.stderr))\n"
             "from workings.cli import main\n"
             "main()\n")
    done = subprocess.run([sys.executable, "-c", probe, "verify", "--no-cache", "--root", str(tmp_ledger.root)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "frozen at exit: True" in done.stderr
    plain = subprocess.run([sys.executable, "-c", probe, "schema", "claim"], capture_output=True, text=True, timeout=60)
    assert "frozen at exit: False" in plain.stderr  # only verify asks for it
