"""The check-draft and new commands, driven through click's CliRunner on a ledger of the tests."""

from __future__ import annotations

import json

from click.testing import CliRunner

from test_draft_check import CLAIMS, CORVID, DRAFT
from workings.cli import main


def ledger(tmp_ledger):
    tmp_ledger.source("corvid", raw=CORVID)
    for claim_id, text in CLAIMS.items():
        tmp_ledger.claim(claim_id, text)
    return tmp_ledger.root


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_check_draft_table_and_exit_code(tmp_ledger, tmp_path):
    root = ledger(tmp_ledger)
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT.replace("about 2.3 times", "about 3.2 times"), encoding="utf-8")
    result = run("check-draft", draft, "--root", root, "--issue", "sizing")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].split() == ["line", "status", "figure", "claim"]
    drift = next(i for i, line in enumerate(lines) if "DRIFT" in line)
    assert lines[drift].split()[:2] == ["8", "DRIFT"]
    assert "the draft prints about 3.2 times; the ledger has 2.3" in lines[drift + 1]
    assert lines[drift + 2].strip() == '"At the full window the cache is about 3.2 times the weights."'
    assert lines[-1] == (f"{draft}: 13 figures: 9 backed, 1 holds, 1 drift, 1 erratum, 1 unchecked; 5 set aside")


def test_check_draft_json_and_github(tmp_ledger, tmp_path):
    root = ledger(tmp_ledger)
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT.replace("(28.0 GiB)", "(28.0 GB)"), encoding="utf-8")
    out = tmp_path / "reports" / "draft.json"
    result = run("check-draft", draft, "--root", root, "--json", out, "--format", "github")
    assert result.exit_code == 1
    data = json.loads(out.read_text(encoding="utf-8"))
    ambiguous = [f for f in data["figures"] if f["status"] == "ambiguous"]
    assert [(f["line"], f["text"], f["claim"]) for f in ambiguous] == [(7, "28.0 GB", "sizing/window-gib")]
    annotations = [line for line in result.output.splitlines() if line.startswith("::")]
    assert annotations[0].startswith(f"::warning file={draft},line=7,col=")
    assert "title=check-draft%3A ambiguous::28.0 GB: it holds only if GB is read as GiB" in annotations[0]
    assert any(a.startswith(f"::error file={draft},line=11,") for a in annotations)  # the erratum


def test_check_draft_passes_a_clean_draft_and_lists_set_asides(tmp_ledger, tmp_path):
    root = ledger(tmp_ledger)
    draft = tmp_path / "clean.txt"
    draft.write_text("Corvid-22B has 56 layers and 4 KV heads. It shipped on May 2, 2025.\n", encoding="utf-8")
    result = run("check-draft", draft, "--root", root, "--set-aside")
    assert result.exit_code == 0, result.output
    assert "model-name     Corvid-22B" in result.output
    assert "date           May 2, 2025" in result.output


def test_new_from_draft_writes_starting_records_once(tmp_ledger, tmp_path):
    root = ledger(tmp_ledger)
    draft = tmp_path / "next.md"
    draft.write_text("Corvid-22B has 56 layers and 4 KV heads.\n\n"
                     "Its cache is about 0.44 GiB at 4,096 tokens, more than 90% of it in the decoder, "
                     "and an eighth of V1's.\n", encoding="utf-8")
    result = run("new", "--from-draft", draft, "--issue", "next", "--root", root)
    assert result.exit_code == 0, result.output
    folder = root / "claims" / "next"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["4-096-tokens.yaml", "about-0-44-gib.yaml", "an-eighth.yaml", "more-than-90.yaml"]
    record = (folder / "more-than-90.yaml").read_text(encoding="utf-8")
    assert 'figure: "90 percent"' in record and "bound: at-least" in record and "label: bound" in record
    assert 'figure: "1/8"' in (folder / "an-eighth.yaml").read_text(encoding="utf-8")
    assert result.output.splitlines()[-1] == "4 starting records written"
    # The records load, and check-draft now says each figure is ledgered but has no working yet.
    check = run("check-draft", draft, "--root", root, "--issue", "next", "--format", "json")
    statuses = {f["text"]: f["status"] for f in json.loads(check.output)["figures"]}
    assert statuses == {"56": "backed", "4": "backed", "about 0.44 GiB": "unchecked", "4,096 tokens": "unchecked",
                        "more than 90%": "unchecked", "an eighth": "unchecked"}
    # A second run finds nothing unbacked and touches nothing.
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    again = run("new", "--from-draft", draft, "--issue", "next", "--root", root)
    assert again.output.splitlines()[-1] == "0 starting records written: every figure is already in the ledger"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_new_never_overwrites_a_file(tmp_ledger, tmp_path):
    root = ledger(tmp_ledger)
    draft = tmp_path / "next.md"
    draft.write_text("It needs 7 GB.\n", encoding="utf-8")
    mine = root / "claims" / "next" / "7-gb.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("# someone's work in progress\n", encoding="utf-8")
    result = run("new", "--from-draft", draft, "--issue", "next", "--root", root)
    assert "exists, left as it is:" in result.output
    assert mine.read_text(encoding="utf-8") == "# someone's work in progress\n"
    assert not [p for p in mine.parent.iterdir() if p.name.endswith(".tmp")]


def test_new_from_draft_offers_the_claim_holding_the_same_value(tmp_ledger, tmp_path):
    """A figure that only agrees in value with a claim elsewhere gets its own starting record, with
    that claim offered (in a comment) as an input or as the marker to tie it."""
    root = ledger(tmp_ledger)
    draft = tmp_path / "next.md"
    draft.write_text("Falcon-X also has 56 layers, and 112 KiB per token.\n", encoding="utf-8")
    result = run("new", "--from-draft", draft, "--issue", "next", "--root", root)
    assert result.exit_code == 0, result.output
    record = (root / "claims" / "next" / "56.yaml").read_text(encoding="utf-8")
    assert "#   same: claim:sizing/layers" in record and "<!-- claim: ID -->" in record
    kib = (root / "claims" / "next" / "112-kib-per-token.yaml").read_text(encoding="utf-8")
    assert "#   same: claim:sizing/kib" in kib
    check = run("check-draft", draft, "--root", root, "--issue", "next", "--format", "json")
    assert {f["text"]: (f["status"], f["claim"]) for f in json.loads(check.output)["figures"]} == {
        "56": ("unchecked", "next/56"), "112 KiB per token": ("unchecked", "next/112-kib-per-token")}
