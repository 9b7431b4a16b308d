"""workings refresh against a stand-in Hugging Face Hub on 127.0.0.1.

Each case ends by comparing the whole ledger folder on disk with what it should be.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import FULL_WINDOW, PER_TOKEN
from refresh_standins import (  # noqa: F401  (fixtures)
    StandInHub,
    closed_port_url,
    hf_env,
    hub,
    safetensors_header,
)

from workings.cli import main
from workings.engine import verify
from workings.refresh.fetch import Limits
from workings.refresh.refresh import refresh

REPO = "Qwen/Qwen2.5-14B-Instruct-1M"
FAST = Limits(timeout=2.0, retries=2, backoff=0.0, max_bytes=1_000_000)  # roomy: the machine may be loaded

OFFICIAL = {
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_size": 5120,
    "max_position_embeddings": 1010000,
    "num_attention_heads": 40,
    "num_hidden_layers": 48,
    "num_key_value_heads": 8,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.48.1",
}
# The copy the ledger holds: page text of a derivative's config, as a person pasted it.
EXCERPT = (
    b'{ | |\n"_name_or_path": "Qwen/Qwen2.5-14B-Instruct-1M", | |\n"hidden_size": 5120, | |\n'
    b'"max_position_embeddings": 1010000, | |\n"num_attention_heads": 40, | |\n'
    b'"num_hidden_layers": 48, | |\n"num_key_value_heads": 8, | |\n"transformers_version": "4.49.0", | |\n} | |\n'
)
SOURCE = """\
# The official config of the 1M model, held as a derivative's copy until refresh can reach the Hub.
title: config.json of {repo}, via a fine-tune that inherits it
publisher: a derivative  # not Qwen
url: https://huggingface.co/someone/derivative/blob/main/config.json
hub: {{repo: {repo}, file: config.json, revision: main}}
grade: copy
retrieved:
  # read as the rendered page's text
  url: https://huggingface.co/someone/derivative/blob/main/config.json
  how: >-
    Stored copy of the rendered page,
    copied byte for byte.
snapshot: {snapshot}
format: text
notes: >-
  Derivative, not the official file.
"""


def official(**changes: object) -> bytes:
    return (json.dumps({**OFFICIAL, **changes}, indent=2) + "\n").encode()


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def ledger(tmp_ledger):
    """The conftest's two Qwen claims, reading a copy-grade excerpt whose official file is on the Hub."""
    name = tmp_ledger.snapshot(EXCERPT, "txt")
    tmp_ledger.source("qwen", SOURCE.format(repo=REPO, snapshot=name))
    tmp_ledger.claim("kv/per-token", PER_TOKEN)
    tmp_ledger.claim("kv/full-window", FULL_WINDOW)
    assert {c.id: c.status for c in verify(tmp_ledger.root).claims} == {
        "kv/full-window": "verified", "kv/per-token": "verified"}
    return tmp_ledger


def record(ledger) -> dict:
    return yaml.safe_load((ledger.root / "ledger/sources/qwen.yaml").read_text())


def test_the_official_file_replaces_the_copy_and_grades_it_primary(ledger, hub: StandInHub) -> None:
    commit = hub.put(REPO, {"config.json": official()})
    before = tree(ledger.root)
    result = refresh(ledger.root, limits=FAST, now=lambda: "2026-11-29T12:00:00Z")
    (change,) = result.sources
    assert (change.status, change.applied, change.grade_before, change.grade_after) == ("changed", True, "copy", "primary")
    assert change.diff.keys == ()  # every number the copy had is the official file's
    assert result.moved == () and result.exit_code == 0
    data = record(ledger)
    assert data["grade"] == "primary" and data["format"] == "json"
    assert data["retrieved"] == {"on": "2026-11-29T12:00:00Z", "commit": commit,
                                 "how": f"huggingface_hub from {hub.url}: {REPO}/config.json at main",
                                 "url": f"{hub.url}/{REPO}/resolve/{commit}/config.json"}
    # Only the lines refresh owns changed: comments, notes and key order are the person's.
    text = (ledger.root / "ledger/sources/qwen.yaml").read_text()
    assert text.startswith("# The official config of the 1M model")
    assert "publisher: a derivative  # not Qwen\n" in text and "# read as the rendered page's text\n" in text
    assert text.index("hub:") < text.index("grade:") < text.index("retrieved:") < text.index("notes:")
    after = tree(ledger.root)
    new_snapshot = f"ledger/snapshots/{data['snapshot']}"
    assert after[new_snapshot] == official()
    old_snapshot = next(k for k in before if k.startswith("ledger/snapshots/"))
    assert old_snapshot not in after  # no source refers to the copy any more
    assert set(after) == set(before) - {old_snapshot} | {new_snapshot}
    assert {k: v for k, v in after.items() if k.startswith("claims/")} == {
        k: v for k, v in before.items() if k.startswith("claims/")}
    assert {c.status for c in verify(ledger.root).claims} == {"verified"}


def test_unchanged_source_is_not_rewritten(ledger, hub: StandInHub) -> None:
    hub.put(REPO, {"config.json": official()})
    refresh(ledger.root, limits=FAST)
    before = tree(ledger.root)
    result = refresh(ledger.root, limits=FAST, now=lambda: "2099-01-01T00:00:00Z")
    assert [s.status for s in result.sources] == ["unchanged"] and result.exit_code == 0
    assert tree(ledger.root) == before


def test_a_changed_key_that_claims_use_turns_them_to_drift(ledger, hub: StandInHub) -> None:
    hub.put(REPO, {"config.json": official()})
    refresh(ledger.root, limits=FAST)
    hub.put(REPO, {"config.json": official(num_hidden_layers=64)})
    result = refresh(ledger.root, limits=FAST)
    (change,) = result.sources
    assert [(k.key, k.old, k.new, k.claims) for k in change.diff.keys] == [
        ("num_hidden_layers", "48", "64", ("kv/per-token",))]
    moved = {m.claim: (m.printed, m.before, m.after, m.sources) for m in result.moved}
    assert moved == {
        "kv/per-token": ("196,608 B/token", "verified 196,608 B/token", "drift 262,144 B/token", ("qwen",)),
        "kv/full-window": ("198.6 GB", "verified 198.57408 GB", "drift 264.76544 GB", ("qwen",)),
    }
    assert result.exit_code == 1
    assert json.loads((ledger.root / "ledger/snapshots" / record(ledger)["snapshot"]).read_bytes())["num_hidden_layers"] == 64
    assert {c.id: c.status for c in verify(ledger.root).claims} == {"kv/full-window": "drift", "kv/per-token": "drift"}


def test_a_changed_key_no_claim_uses_is_reported_and_archived(ledger, hub: StandInHub) -> None:
    hub.put(REPO, {"config.json": official()})
    refresh(ledger.root, limits=FAST)
    hub.put(REPO, {"config.json": official(transformers_version="4.50.0")})
    result = refresh(ledger.root, limits=FAST)
    (change,) = result.sources
    assert [(k.key, k.old, k.new, k.claims) for k in change.diff.keys] == [
        ("transformers_version", "4.48.1", "4.50.0", ())]
    assert change.applied and result.moved == () and result.exit_code == 0
    assert json.loads((ledger.root / "ledger/snapshots" / record(ledger)["snapshot"]).read_bytes())[
        "transformers_version"] == "4.50.0"


def test_check_reports_the_drift_and_writes_nothing(ledger, hub: StandInHub) -> None:
    hub.put(REPO, {"config.json": official(num_hidden_layers=64)})
    before = tree(ledger.root)
    result = refresh(ledger.root, check=True, limits=FAST)
    assert {m.claim for m in result.moved} == {"kv/per-token", "kv/full-window"}
    assert [s.applied for s in result.sources] == [False] and result.exit_code == 1
    assert tree(ledger.root) == before


@pytest.mark.parametrize(
    ("faults", "kind"),
    [
        ((404,), "http"),
        (("timeout",), "timeout"),
        ((500, 500, 500), "http"),  # more failures than FAST allows retries
    ],
)
def test_an_unreachable_file_leaves_the_ledger_as_it_was(ledger, hub: StandInHub, faults, kind) -> None:
    hub.put(REPO, {"config.json": official(num_hidden_layers=64)})
    hub.behaviour.fail(f"/{REPO}/resolve/main/config.json", *faults)
    before = tree(ledger.root)
    result = refresh(ledger.root, limits=FAST)
    (change,) = result.sources
    assert (change.status, change.error_kind) == ("unreachable", kind)
    assert result.exit_code == 3
    assert result.nothing_reached == (kind == "timeout")  # a 404 or a 500 is an answer: not offline
    assert tree(ledger.root) == before


def test_500_then_success_is_retried(ledger, hub: StandInHub) -> None:
    hub.put(REPO, {"config.json": official()})
    hub.behaviour.fail(f"/{REPO}/resolve/main/config.json", 500, 503)
    result = refresh(ledger.root, limits=FAST)
    assert [(s.status, s.applied) for s in result.sources] == [("changed", True)]
    heads = [entry for entry in hub.behaviour.log if entry[0] == "HEAD"]
    assert len(heads) == 3


@pytest.mark.parametrize(("fault", "kind"), [("truncate", "truncated"), ("oversize", "too-large")])
def test_a_bad_body_never_replaces_the_snapshot(ledger, hub: StandInHub, fault, kind) -> None:
    commit = hub.put(REPO, {"config.json": official(num_hidden_layers=64)})
    hub.behaviour.fail(f"/{REPO}/resolve/{commit}/config.json", *[fault] * 5)
    before = tree(ledger.root)
    result = refresh(ledger.root, limits=FAST)
    assert [(s.status, s.error_kind) for s in result.sources] == [("unreachable", kind)]
    assert tree(ledger.root) == before


def test_a_body_cut_short_once_is_fetched_again(ledger, hub: StandInHub) -> None:
    commit = hub.put(REPO, {"config.json": official()})
    hub.behaviour.fail(f"/{REPO}/resolve/{commit}/config.json", "truncate")
    result = refresh(ledger.root, limits=FAST)
    assert [(s.status, s.applied) for s in result.sources] == [("changed", True)]
    assert (ledger.root / "ledger/snapshots" / record(ledger)["snapshot"]).read_bytes() == official()


def test_safetensors_parameter_counts_are_kept(tmp_ledger, hub: StandInHub) -> None:
    shards = {
        "model-00001-of-00002.safetensors": safetensors_header({"a": ("BF16", [1000, 512]), "n": ("F32", [512])}),
        "model-00002-of-00002.safetensors": safetensors_header({"b": ("BF16", [3, 1000])}),
    }
    index = json.dumps({"metadata": {"total_size": 1_032_048},
                        "weight_map": {"a": "model-00001-of-00002.safetensors", "n": "model-00001-of-00002.safetensors",
                                       "b": "model-00002-of-00002.safetensors"}}, indent=2).encode()
    hub.put(REPO, {"model.safetensors.index.json": index, **shards})
    tmp_ledger.source("weights", (
        f"title: weights index\nhub: {{repo: {REPO}, file: model.safetensors.index.json}}\n"
        f"grade: transcription\nsnapshot: {tmp_ledger.snapshot(b'total_size = 1032048', 'txt')}\n"))
    result = refresh(tmp_ledger.root, limits=FAST)
    (change,) = result.sources
    assert change.parameters == {"BF16": 515_000, "F32": 512}
    data = yaml.safe_load((tmp_ledger.root / "ledger/sources/weights.yaml").read_text())
    assert data["safetensors"] == {"parameters": {"BF16": 515_000, "F32": 512}}
    assert (data["grade"], data["format"]) == ("primary", "json")
    before = tree(tmp_ledger.root)
    assert [s.status for s in refresh(tmp_ledger.root, limits=FAST).sources] == ["unchanged"]
    assert tree(tmp_ledger.root) == before


def test_cli_check_with_the_hub_out_of_reach(ledger, hf_env, monkeypatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", closed_port_url())
    before = tree(ledger.root)
    result = CliRunner().invoke(main, ["refresh", "--check", "--root", str(ledger.root), "--timeout", "1"])
    assert result.exit_code == 3, result.output
    assert result.output.startswith("qwen: unreachable: ")
    assert result.output.endswith(
        "Sources: 0 changed, 0 unchanged, 1 unreachable, 0 skipped.\n"
        "Unreachable sources keep their archived snapshots, untouched.\n"
        "Nothing could be reached (is this machine offline?): no source was changed.\n")
    assert tree(ledger.root) == before


def test_cli_names_the_key_and_the_claims_that_drift(ledger, hub: StandInHub) -> None:
    commit = hub.put(REPO, {"config.json": official(num_hidden_layers=64)})
    old = record(ledger)["snapshot"]
    result = CliRunner().invoke(main, ["refresh", "qwen", "--root", str(ledger.root), "--timeout", "2"])
    new = record(ledger)["snapshot"]
    assert result.exit_code == 1, result.output
    assert result.output == (
        f"qwen: changed: hub {REPO}/config.json@main (commit {commit[:12]})\n"
        "  grade: copy -> primary\n"
        f"  snapshot: {old[:12]}….txt -> {new[:12]}….json\n"
        "  num_hidden_layers: 48 -> 64 (read by kv/per-token)\n"
        "  archived\n"
        "\n"
        "Claims that move:\n"
        "  kv/full-window (printed 198.6 GB): verified 198.57408 GB -> drift 264.76544 GB\n"
        "  kv/per-token (printed 196,608 B/token): verified 196,608 B/token -> drift 262,144 B/token\n"
        "\n"
        "Sources: 1 changed, 0 unchanged, 0 unreachable, 0 skipped.\n"
        f"Removed the old snapshot {old}: no source refers to it any more.\n")


def test_cli_unknown_source_is_an_input_error(ledger) -> None:
    result = CliRunner().invoke(main, ["refresh", "nope", "--root", str(ledger.root)])
    assert result.exit_code == 2
    assert result.output == "error: no such source in ledger/sources/: nope\n"


def test_a_transcribed_value_points_to_its_key_in_the_official_file(tmp_ledger, hub: StandInHub) -> None:
    index = json.dumps({"metadata": {"total_size": 29540067328}, "weight_map": {}}).encode()
    hub.put(REPO, {"model.safetensors.index.json": index})
    tmp_ledger.source("weights", (
        f"title: weights index\nhub: {{repo: {REPO}, file: model.safetensors.index.json}}\n"
        f"grade: transcription\nsnapshot: {tmp_ledger.snapshot(b'total_size = 29540067328', 'txt')}\n"
        "values:\n  total_size: {value: 29540067328 B, passage: total_size = 29540067328}\n"))
    before = tree(tmp_ledger.root)
    result = CliRunner().invoke(main, ["refresh", "--root", str(tmp_ledger.root)])
    assert result.exit_code == 1, result.output
    assert (
        '  passage no longer found, values.total_size: "total_size = 29540067328"\n'
        "    the file has the same number at metadata.total_size: read it as weights#metadata.total_size instead\n"
        "  not applied: values.total_size.passage: passage does not occur in the snapshot;"
        " the source keeps its snapshot\n") in result.output
    assert tree(tmp_ledger.root) == before
