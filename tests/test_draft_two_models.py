"""A draft about two models the ledger lacks (tests/corpus/two-models/): on this repository's ledger
nothing in it is backed or drift; after `new --from-draft` and completing the records from real
(third-party) sources, its correct figures are backed and planted errors drift. The H200 figure has
no source kept: its record stays unchecked, and so does the figure."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from workings.cli import main

REPO = Path(__file__).resolve().parent.parent
HERE = REPO / "tests" / "corpus" / "two-models"
DRAFT = (HERE / "draft.md").read_text(encoding="utf-8")
LLAMA_URL = ("https://github.com/vulkomilev/oumi/blob/4d8296fb70dac07a8489398080fd740dab7b3814/"
             "configs/recipes/llama3_1/README.md")
MISTRAL_URL = ("https://github.com/sumitdotml/transformers/blob/09e7dab0b912560ca225ce17c4de657ff89c1899/"
               "mistral-7b-v0.1/README.md")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def figures(root: Path, draft: Path, *extra) -> dict:
    result = run("check-draft", draft, "--root", root, "--format", "json", *extra)
    return [(f["line"], f["text"], f["status"], f["claim"]) for f in json.loads(result.output)["figures"]
            if f["kind"] != "equation"]


@pytest.fixture
def ledger(tmp_path):
    root = tmp_path / "repo"
    for name in ("claims", "ledger"):
        shutil.copytree(REPO / name, root / name)
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    return root, draft


def source(root: Path, source_id: str, file: str, url: str, values: dict) -> None:
    raw = (HERE / file).read_bytes()
    name = f"{hashlib.sha256(raw).hexdigest()}.txt"
    (root / "ledger" / "snapshots" / name).write_bytes(raw)
    lines = [f"title: {json.dumps(source_id)}", "publisher: a third party's table of the model's configuration",
             f"url: {url}", "grade: transcription",
             'retrieved: {"on": 2026-11-30, how: "the file as a public code search index returned it, byte for byte"}',
             f"snapshot: {name}", "format: text", "values:"]
    lines += [f"  {key}: {{value: {json.dumps(value)}, passage: {json.dumps(passage)}}}"
              for key, (value, passage) in values.items()]
    (root / "ledger" / "sources" / f"{source_id}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


LLAMA = {"layers": ("32", "| Num layers | 32 |"), "kv_heads": ("8", "| Num KV heads | 8 |"),
         "hidden": ("4096", "| Hidden size | 4096 |"), "heads": ("32", "| Num attention heads | 32 |")}
MISTRAL = {"layers": ("32", "| n_layers | 32 |"), "kv_heads": ("8", "| n_kv_heads | 8 |"),
           "head_dim": ("128", "| head_dim | 128 |")}
BF16 = "  value_bytes: 2 B\nassumptions:\n  value_bytes: The cache is kept in BF16, 2 bytes a value (the draft says so).\n"


def working(said: str, figure: str, issue: str) -> tuple[str, str] | None:
    """The inputs and steps that complete a starting record (figure possibly restated), by its sentence."""
    llama, mistral = said.startswith("Llama-3.1-8B has"), said.startswith("Mistral-7B has")
    src = "llama31-8b-oumi" if llama or "Llama" in said else "mistral-7b-sumitdotml"
    if llama or mistral:
        key = {"32": "layers", "8": "kv_heads", "128": "head_dim"}[figure]
        if key == "head_dim" and llama:
            return figure, (f"inputs:\n  hidden: {src}#hidden\n  heads: {src}#heads\ncompute:\n  head_dim: hidden / heads\n")
        return figure, f"inputs:\n  n: {src}#{key}\ncompute:\n  value: n\n"
    if figure == "131,072 B/token":
        head = ("  hidden: llama31-8b-oumi#hidden\n  heads: llama31-8b-oumi#heads\n" if "Llama" in said
                else "  head_dim: mistral-7b-sumitdotml#head_dim\n")
        step = "hidden / heads" if "Llama" in said else "head_dim"
        return figure, (f"inputs:\n  layers: {src}#layers\n  kv_heads: {src}#kv_heads\n{head}{BF16}"
                        f"compute:\n  hd: {step}\n  per_token: 2 * layers * kv_heads * hd * value_bytes / token\n")
    if figure == "128 KiB":
        return "128 KiB/token", f"inputs:\n  per_token: claim:{issue}/131-072-bytes-per-token\ncompute:\n  same: per_token\n"
    return None  # the H200: no source kept


def test_a_draft_about_two_other_models(ledger):
    root, draft = ledger
    before = figures(root, draft)
    assert {s for _, _, s, _ in before} == {"unbacked"}, before  # never backed or drift by Qwen's claims
    assert len(before) == 10

    written = run("new", "--from-draft", draft, "--issue", "two-models", "--root", root)
    assert written.exit_code == 0, written.output
    assert written.output.splitlines()[-1] == "10 starting records written"
    folder = root / "claims" / "two-models"
    # The 8 KV heads agree in value with Qwen's: the record offers that claim in a comment.
    assert "#   same: claim:kv-bytes-per-token/qwen25-14b-kv-heads" in (folder / "8.yaml").read_text(encoding="utf-8")
    assert {s for _, _, s, _ in figures(root, draft)} == {"unchecked"}

    source(root, "llama31-8b-oumi", "oumi-llama3_1-README.md.txt", LLAMA_URL, LLAMA)
    source(root, "mistral-7b-sumitdotml", "sumitdotml-mistral-7b-v0.1-README.md.txt", MISTRAL_URL, MISTRAL)
    unchecked = []
    for path in sorted(folder.glob("*.yaml")):
        record = yaml.safe_load(path.read_text(encoding="utf-8"))
        done = working(record["said"], record["figure"], "two-models")
        if done is None:
            unchecked.append(record["figure"])
            continue
        figure, steps = done
        path.write_text(f"said: {json.dumps(record['said'])}\nfigure: {json.dumps(figure)}\nlabel: derived\n" + steps,
                        encoding="utf-8")
    assert unchecked == ["141 GB"]
    verified = run("verify", "--root", root)
    assert "two-models" in verified.output and verified.exit_code == 0, verified.output

    after = figures(root, draft, "--issue", "two-models")
    assert [(line, text, status) for line, text, status, _ in after] == [
        (3, "32", "backed"), (3, "8", "backed"), (3, "128", "backed"),
        (4, "32", "backed"), (4, "8", "backed"), (4, "128", "backed"),
        (6, "131,072 bytes per token", "backed"), (6, "128 KiB", "backed"),
        (7, "131,072 bytes per token", "backed"),
        (9, "141 GB", "unchecked")]  # no source kept for the H200: it stays unchecked
    assert all(claim.startswith("two-models/") for _, _, _, claim in after)

    planted = [("Llama-3.1-8B has 32 layers", "Llama-3.1-8B has 36 layers", (3, "36")),
               ("of size 128.", "of size 256.", (3, "256")),
               ("That is 128 KiB.", "That is 192 KiB.", (6, "192 KiB")),
               ("keeps the same 131,072 bytes", "keeps the same 131,702 bytes", (7, "131,702 bytes per token"))]
    for old, new, (line, text) in planted:
        draft.write_text(DRAFT.replace(old, new), encoding="utf-8")
        flagged = [(li, t, s, c) for li, t, s, c in figures(root, draft, "--issue", "two-models") if s not in ("backed", "holds")]
        assert (line, text, "drift") in [(li, t, s) for li, t, s, _ in flagged], (new, flagged)
        assert all(c is None or c.startswith("two-models/") for _, _, _, c in flagged)
