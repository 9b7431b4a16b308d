"""`workings source add` against the stand-in Hub and website on 127.0.0.1, and with a local file.

Each kind ends with a claim built on the new source verifying; every refusal leaves the ledger on
disk exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from refresh_standins import (  # noqa: F401  (fixtures)
    StandInHub,
    StandInWeb,
    closed_port_url,
    hf_env,
    hub,
    safetensors_header,
    web,
)

from workings.cli import main
from workings.engine import verify

REPO = "Qwen/Qwen2.5-14B-Instruct-1M"
REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_size": 5120,
    "max_position_embeddings": 1010000,
    "num_attention_heads": 40,
    "num_hidden_layers": 48,
    "num_key_value_heads": 8,
    "rope_theta": 10000000.0,
    "torch_dtype": "bfloat16",
}
PER_TOKEN = """\
said: "2 x 48 x 8 x 128 x 2 = 196,608 bytes per token."
figure: 196,608 B/token
label: derived
inputs:
  layers: {src}#num_hidden_layers
  kv_heads: {src}#num_key_value_heads
  hidden: {src}#hidden_size
  heads: {src}#num_attention_heads
  value_bytes: 2 B
assumptions:
  value_bytes: BF16, the format of the weights.
compute:
  head_dim: hidden / heads
  per_token: 2 * layers * kv_heads * head_dim * value_bytes / token
"""
PAGE = """<!doctype html><html><head><title>Qwen2.5-1M: Deploy Your Own Qwen</title>
<style>p {{ color: red }}</style><script>var x = "At least 999GB";</script></head>
<body><nav>Home</nav><article><h1>Qwen2.5-1M</h1>
<p>Qwen2.5-14B-Instruct-1M: At least <em>320GB</em> VRAM (total across GPUs).</p>
<p>Directly processing sequences of 1M tokens consumes 71GB of VRAM in Qwen2.5-7B.</p></article></body></html>
"""


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def add(root: Path, *args: str):
    return CliRunner().invoke(main, ["source", "add", "--root", str(root), "--timeout", "2", *args])


def record(root: Path, source_id: str) -> dict:
    return yaml.safe_load((root / f"ledger/sources/{source_id}.yaml").read_text(encoding="utf-8"))


def test_a_hub_config_is_pinned_to_its_commit_graded_primary_and_lists_what_claims_can_read(tmp_ledger, hub: StandInHub):
    data = (json.dumps(CONFIG, indent=2) + "\n").encode()
    commit = hub.put(REPO, {"config.json": data})
    result = add(tmp_ledger.root, REPO, "config.json")
    assert result.exit_code == 0, result.output
    source_id = "qwen-qwen2.5-14b-instruct-1m-config"
    rec = record(tmp_ledger.root, source_id)
    assert rec["grade"] == "primary" and rec["format"] == "json"
    assert rec["hub"] == {"repo": REPO, "file": "config.json", "revision": commit}
    assert rec["retrieved"]["commit"] == commit and rec["retrieved"]["url"] == f"{hub.url}/{REPO}/resolve/{commit}/config.json"
    assert f"main resolved to commit {commit}" in rec["retrieved"]["how"]
    assert (tmp_ledger.root / "ledger/snapshots" / rec["snapshot"]).read_bytes() == data
    assert rec["snapshot"] == hashlib.sha256(data).hexdigest() + ".json"
    out = result.output
    assert f"wrote ledger/sources/{source_id}.yaml" in out and f"commit {commit}" in out
    assert f"{source_id}#num_hidden_layers" in out and f"{source_id}#max_position_embeddings token" in out
    lines = {line.split()[0]: line.split()[-1] for line in out.splitlines() if line.startswith(f"  {source_id}#")}
    assert lines[f"{source_id}#num_key_value_heads"] == "8" and lines[f"{source_id}#rope_theta"] == "10000000.0"
    assert "architectures" not in out  # a list is nothing a claim reads

    tmp_ledger.claim("kv/per-token", PER_TOKEN.format(src=source_id))
    report = verify(tmp_ledger.root)
    claim = report.claim("kv/per-token")
    assert (claim.status, claim.grade, report.problems) == ("verified", "primary", ())


def test_a_safetensors_index_records_the_header_parameter_counts(tmp_ledger, hub: StandInHub):
    shard1 = safetensors_header({"a": ("BF16", [1000, 10]), "b": ("F32", [7])})
    shard2 = safetensors_header({"c": ("BF16", [5, 5])})
    index = json.dumps({"metadata": {"total_size": 20078},
                        "weight_map": {"a": "model-1.safetensors", "b": "model-1.safetensors",
                                       "c": "model-2.safetensors"}}).encode()
    hub.put(REPO, {"model.safetensors.index.json": index, "model-1.safetensors": shard1,
                   "model-2.safetensors": shard2})
    result = add(tmp_ledger.root, REPO, "model.safetensors.index.json", "--id", "qwen-index")
    assert result.exit_code == 0, result.output
    assert record(tmp_ledger.root, "qwen-index")["safetensors"] == {"parameters": {"BF16": 10025, "F32": 7}}
    assert "qwen-index#safetensors.parameters.BF16 parameter  10,025" in result.output
    assert "qwen-index#metadata.total_size B" in result.output
    tmp_ledger.claim("w/params", 'said: "10,032 parameters"\nfigure: "10,032 parameter"\nlabel: derived\n'
                     "inputs:\n  bf16: qwen-index#safetensors.parameters.BF16 parameter\n"
                     "  f32: qwen-index#safetensors.parameters.F32 parameter\ncompute:\n  total: bf16 + f32\n")
    assert verify(tmp_ledger.root).claim("w/params").status == "verified"


def test_a_web_page_is_archived_as_its_text_and_its_passages_must_occur(tmp_ledger, web: StandInWeb):
    url = web.page("/blog/qwen2.5-1m/", PAGE)
    before = tree(tmp_ledger.root)
    missing = add(tmp_ledger.root, url, "--passage", "At least 999GB VRAM")  # only in a <script>
    assert missing.exit_code == 2 and "passage not in the archived text" in missing.output
    assert tree(tmp_ledger.root) == before  # nothing written, not even the snapshot

    result = add(tmp_ledger.root, url, "--id", "qwen-blog", "--passage", "At least 320GB VRAM (total across GPUs).",
                 "--value", "vram", "320 GB", "Qwen2.5-14B-Instruct-1M: At least 320GB VRAM")
    assert result.exit_code == 0, result.output
    rec = record(tmp_ledger.root, "qwen-blog")
    assert rec["grade"] == "transcription" and rec["format"] == "text" and rec["url"] == url
    assert rec["title"] == "Qwen2.5-1M: Deploy Your Own Qwen"
    assert rec["retrieved"]["how"].startswith("requests: the page's visible text")
    text = (tmp_ledger.root / "ledger/snapshots" / rec["snapshot"]).read_text(encoding="utf-8")
    assert "320GB VRAM" in text and "999GB" not in text and "<p>" not in text and "color" not in text
    assert rec["passages"] == {"at-least-320gb-vram": "At least 320GB VRAM (total across GPUs)."}
    assert "qwen-blog#vram  320 GB" in result.output and "qwen-blog#at-least-320gb-vram" in result.output
    tmp_ledger.claim("b/vram", 'said: "at least 320 GB of VRAM"\nfigure: 320 GB\nlabel: quoted\n'
                     "inputs:\n  vram: qwen-blog#vram\ncompute:\n  v: vram\ncites: [qwen-blog#at-least-320gb-vram]\n")
    claim = verify(tmp_ledger.root).claim("b/vram")
    assert (claim.status, claim.grade) == ("verified", "transcription")


def test_a_web_page_graded_primary_is_refused_and_an_unreachable_one_is_exit_3(tmp_ledger, web: StandInWeb):
    url = web.page("/p", PAGE)
    before = tree(tmp_ledger.root)
    assert add(tmp_ledger.root, url, "--grade", "primary").exit_code == 2
    gone = add(tmp_ledger.root, closed_port_url() + "/page")
    assert gone.exit_code == 3 and "could not fetch it" in gone.output
    assert add(tmp_ledger.root, web.url + "/nothing-here").exit_code == 3
    assert tree(tmp_ledger.root) == before


def test_a_local_file_is_a_copy_retrieved_on_an_unknown_date_unless_stated(tmp_ledger, tmp_path):
    held = tmp_path / "config.json"
    held.write_bytes((json.dumps(CONFIG, indent=2) + "\n").encode())
    result = add(tmp_ledger.root, "--file", str(held), "--id", "qwen-held",
                 "--url", f"https://huggingface.co/{REPO}/blob/main/config.json",
                 "--how", "saved from the browser by an editor")
    assert result.exit_code == 0, result.output
    rec = record(tmp_ledger.root, "qwen-held")
    assert rec["grade"] == "copy" and rec["format"] == "json"
    assert rec["retrieved"] == {"on": "unknown", "how": "saved from the browser by an editor"}
    assert "grade: copy" in result.output and "qwen-held#hidden_size" in result.output
    tmp_ledger.claim("kv/per-token", PER_TOKEN.format(src="qwen-held"))
    claim = verify(tmp_ledger.root).claim("kv/per-token")
    assert (claim.status, claim.grade) == ("verified", "copy")

    # primary is the official bytes: a file of the publisher's repository at a commit, which the record
    # names; a file sent without one is refused as primary (nothing written) and is a copy
    before = tree(tmp_ledger.root)
    sent = ["--file", str(held), "--id", "qwen-held-2", "--retrieved", "2026-11-29",
            "--url", "https://example.org/config.json", "--how", "sent by the publisher", "--grade", "primary"]
    refused = add(tmp_ledger.root, *sent)
    assert refused.exit_code == 2 and "give --commit SHA" in refused.output and "or grade it copy" in refused.output
    assert tree(tmp_ledger.root) == before
    commit = "24544163a9013ea385ca43dc31aa23458ca2008b"
    dated = add(tmp_ledger.root, *sent, "--commit", commit)
    assert dated.exit_code == 0, dated.output
    rec2 = record(tmp_ledger.root, "qwen-held-2")
    assert rec2["retrieved"]["on"] == "2026-11-29" and rec2["grade"] == "primary"
    assert rec2["retrieved"]["commit"] == commit and f"commit {commit}" in dated.output
    assert "already there, same bytes" in dated.output  # one snapshot for both records


@pytest.mark.parametrize("args, message", [
    (["--file", "FILE", "--how", "x"], "--file needs --url"),
    (["--file", "FILE", "--url", "ftp://example.org/x", "--how", "x"], "not an http(s) URL"),
    (["--file", "FILE", "--url", "https://example.org/x", "--how", "x", "--retrieved", "last week"], "a date"),
    (["--file", "FILE", "--url", "https://example.org/x", "--how", "x", "--id", "Bad/Id"], "source id"),
    (["--file", "FILE", "--url", "https://example.org/x", "--how", "x", "--value", "n", "48", "not in the file"],
     "passage"),
    ([], "give REPO FILE"),
    (["https://example.org/x", "--how", "typed"], "go with --file"),
    (["https://example.org/x", "--commit", "24544163a9013ea385ca43dc31aa23458ca2008b"], "go with --file"),
    (["--file", "FILE", "--url", "https://example.org/x", "--how", "x", "--commit", "abc123"], "40 or 64"),
    (["--file", "FILE", "--url", "https://example.org/x", "--how", "x", "--retrieved", "2099-01-01"], "after today"),
])
def test_bad_requests_are_refused_with_a_reason_and_write_nothing(tmp_ledger, tmp_path, args, message):
    held = tmp_path / "held.txt"
    held.write_text('"num_hidden_layers": 48\n', encoding="utf-8")
    before = tree(tmp_ledger.root)
    result = add(tmp_ledger.root, *[str(held) if a == "FILE" else a for a in args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output
    assert tree(tmp_ledger.root) == before


def test_nothing_is_overwritten_neither_a_record_nor_a_snapshot_with_other_bytes(tmp_ledger, tmp_path):
    held = tmp_path / "held.txt"
    held.write_bytes(b'"num_hidden_layers": 48\n')
    args = ["--file", str(held), "--url", "https://example.org/x", "--how", "x", "--id", "held"]
    assert add(tmp_ledger.root, *args).exit_code == 0
    before = tree(tmp_ledger.root)
    again = add(tmp_ledger.root, *args)
    assert again.exit_code == 2 and "already exists" in again.output
    assert tree(tmp_ledger.root) == before

    name = record(tmp_ledger.root, "held")["snapshot"]
    (tmp_ledger.root / "ledger/snapshots" / name).write_bytes(b'"num_hidden_layers": 64\n')  # edited by hand
    before = tree(tmp_ledger.root)
    other = add(tmp_ledger.root, *args[:-1], "held-again")
    assert other.exit_code == 2 and "exists with other bytes" in other.output
    assert tree(tmp_ledger.root) == before


def test_a_snapshot_whose_bytes_were_edited_is_refused_by_verify(tmp_ledger, tmp_path):
    held = tmp_path / "config.json"
    held.write_bytes((json.dumps(CONFIG, indent=2) + "\n").encode())
    assert add(tmp_ledger.root, "--file", str(held), "--id", "qwen", "--url", "https://example.org/c.json",
               "--how", "x").exit_code == 0
    tmp_ledger.claim("kv/per-token", PER_TOKEN.format(src="qwen"))
    assert verify(tmp_ledger.root).claim("kv/per-token").status == "verified"
    name = record(tmp_ledger.root, "qwen")["snapshot"]
    path = tmp_ledger.root / "ledger/snapshots" / name
    path.write_bytes(path.read_bytes().replace(b'"num_hidden_layers": 48', b'"num_hidden_layers": 50'))
    report = verify(tmp_ledger.root)
    (problem,) = [p for p in report.problems if p.file == "ledger/sources/qwen.yaml"]
    assert "does not match its sha256" in problem.message and problem.key == "snapshot"
    assert report.claim("kv/per-token").status == "error"  # never recomputed from the edited bytes


def test_on_a_copy_of_this_repository_a_new_hub_source_backs_a_new_claim_and_moves_nothing(tmp_path, hub: StandInHub):
    root = tmp_path / "repo"
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO_ROOT / folder, root / folder)
    before = {c.id: (c.status, c.result.value if c.result else None) for c in verify(root).claims}
    hub.put(REPO, {"config.json": (json.dumps(CONFIG, indent=2) + "\n").encode()})
    result = add(root, REPO, "config.json", "--id", "qwen25-14b-1m-config-official")
    assert result.exit_code == 0, result.output
    (root / "claims/new").mkdir()
    (root / "claims/new/per-token.yaml").write_text(PER_TOKEN.format(src="qwen25-14b-1m-config-official"))
    report = verify(root)
    after = {c.id: (c.status, c.result.value if c.result else None) for c in report.claims}
    assert after.pop("new/per-token")[0] == "verified"
    assert after == before and report.problems == ()


# An outside config nobody here wrote: Qwen/Qwen2.5-7B-Instruct-1M's config.json as a third-party
# project's test quotes it ("Verbatim config.json ... fetched 2026-08-18 from
# https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-1M/raw/main/config.json"), served here by the stand-in
# Hub. The truth, worked by hand: 2 (K+V) x 28 layers x 4 KV heads x (3584 / 28 = 128) x 2 B (bfloat16)
# = 57,344 B per token; x 1,010,000 tokens = 57,917,440,000 B = 57.9 GB.
OUTSIDE = Path(__file__).parent / "data" / "qwen25-7b-instruct-1m-config.json"
SEVEN_B = """\
said: "{said}"
figure: {figure}
label: derived
inputs:
  layers: q7#num_hidden_layers
  kv_heads: q7#num_key_value_heads
  hidden: q7#hidden_size
  heads: q7#num_attention_heads
  value_bytes: dtype:q7#torch_dtype{window}
assumptions:
  value_bytes: The cache is kept in the weights' dtype, which the config names.
compute:
  head_dim: hidden / heads
  per_token: 2 * layers * kv_heads * head_dim * value_bytes / token
  {last}
"""


WINDOW = "\n  window: q7#max_position_embeddings token"


@pytest.mark.parametrize("figure, window, last, status", [
    ("57,344 B/token", "", "", "verified"),
    ("57.9 GB", WINDOW, "cache: per_token * window", "verified"),
    ("57,000 B/token", "", "", "drift"),
])
def test_an_outside_config_added_from_the_hub_backs_its_per_token_figure(tmp_ledger, hub: StandInHub, figure, window,
                                                                          last, status):
    hub.put("Qwen/Qwen2.5-7B-Instruct-1M", {"config.json": OUTSIDE.read_bytes()})
    result = add(tmp_ledger.root, "Qwen/Qwen2.5-7B-Instruct-1M", "config.json", "--id", "q7")
    assert result.exit_code == 0, result.output
    assert "dtype:q7#torch_dtype" in result.output and "q7#num_key_value_heads" in result.output
    tmp_ledger.claim("q7/figure", SEVEN_B.format(said=figure, figure=figure, window=window, last=last))
    claim = verify(tmp_ledger.root).claim("q7/figure")
    assert (claim.status, claim.grade) == (status, "primary"), claim.reason


def test_a_source_is_not_added_while_a_refresh_holds_the_ledger(tmp_ledger, tmp_path):
    """source add takes refresh's lock on ledger/snapshots/: a refresh cleaning up after a crash
    never removes the temporary file of an add under way, and the add writes nothing meanwhile."""
    from workings.refresh.cleanup import ledger_lock

    held = tmp_path / "config.json"
    held.write_bytes((json.dumps(CONFIG, indent=2) + "\n").encode())
    before = sorted(p.name for p in (tmp_ledger.root / "ledger").rglob("*"))
    with ledger_lock(tmp_ledger.root) as locked:
        assert locked
        result = add(tmp_ledger.root, "--file", str(held), "--id", "qwen-held",
                     "--url", "https://example.org/config.json", "--how", "saved by an editor")
    assert result.exit_code == 2 and "holds the lock on ledger/snapshots/" in result.output
    assert sorted(p.name for p in (tmp_ledger.root / "ledger").rglob("*")) == before
    again = add(tmp_ledger.root, "--file", str(held), "--id", "qwen-held",
                "--url", "https://example.org/config.json", "--how", "saved by an editor")
    assert again.exit_code == 0, again.output


def test_a_long_value_of_the_added_file_is_listed_clipped(tmp_ledger, tmp_path):
    held = tmp_path / "config.json"
    held.write_bytes(json.dumps({**CONFIG, "k" * 50_000: 1}).encode())  # a key of 50,000 characters
    result = add(tmp_ledger.root, "--file", str(held), "--id", "qwen-long",
                 "--url", f"https://huggingface.co/{REPO}/blob/main/config.json", "--how", "saved by an editor")
    assert result.exit_code == 0, result.output[:500]
    assert max(len(line) for line in result.output.splitlines()) < 2_000
    assert "qwen-long#hidden_size" in result.output and "(50,010 characters in all)" in result.output


@pytest.mark.parametrize("body, why", [
    (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deep to read"),     # stopped the command, exit 70
    (b'{"num_hidden_layers": ' + b"9" * 5000 + b"}", "more than 4,300 digits"),  # was archived as text
])
def test_json_no_reader_can_load_is_refused_and_nothing_is_written(tmp_ledger, tmp_path, body, why):
    held = tmp_path / "config.json"
    held.write_bytes(body)
    before = tree(tmp_ledger.root)
    result = add(tmp_ledger.root, "--file", str(held), "--id", "odd", "--url", "https://example.org/config.json",
                 "--how", "saved by an editor")
    assert result.exit_code == 2 and why in result.output, result.output[-500:]
    assert tree(tmp_ledger.root) == before
