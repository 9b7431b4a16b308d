"""A draft number whose digits mix two scripts ("196,6٠8": an Arabic-Indic zero among ASCII digits)
is read by Python as 196,608, but a reader sees a stray character. check-draft must never call it
backed: it is ``ambiguous`` (exit 1) naming the odd character, in the equation and in the figure alike,
on a copy of this repository's own ledger. A number wholly in one script is read as before. (verify
refuses such a number in a record's ``said``: tests/test_said_prints.py.)"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workings.draft.digits import mixed_scripts

REPO = Path(__file__).resolve().parents[1]
SENTENCE = "2. Multiply. 2 × 48 × 8 × 128 × 2 = {n} bytes per token. That is 192 KiB.\n"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("repo")
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, copy / part)
    return copy


def _check(root: Path, number: str, tmp_path: Path) -> tuple[int, list[dict]]:
    draft = tmp_path / "draft.md"
    draft.write_text(SENTENCE.format(n=number), encoding="utf-8")
    out = tmp_path / "out.json"
    run = subprocess.run([sys.executable, "-m", "workings", "check-draft", str(draft), "--root", str(root),
                          "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, json.loads(out.read_text(encoding="utf-8"))["figures"]


def test_a_mixed_digit_is_never_backed(root: Path, tmp_path: Path) -> None:
    code, figures = _check(root, "196,6\u06608", tmp_path)
    assert code == 1
    by_text = {f["text"]: f for f in figures}
    figure = by_text["196,6\u06608 bytes per token"]
    equation = next(f for f in figures if f["kind"] == "equation")
    for f in (figure, equation):
        assert f["status"] == "ambiguous"
        assert "U+0660 ARABIC-INDIC DIGIT ZERO" in f["reason"]
    assert by_text["192 KiB"]["status"] == "backed"  # the rest of the sentence is judged as before


def test_the_same_sentence_in_ascii_is_backed(root: Path, tmp_path: Path) -> None:
    code, figures = _check(root, "196,608", tmp_path)
    assert code == 0
    assert {f["status"] for f in figures} == {"backed", "holds"}  # the sentence and its equation


@pytest.mark.parametrize("text, mixed", [
    ("196,608", []),
    ("\u0661\u0669\u0666\u066c\u0666\u0660\u0668 bytes", []),          # wholly Arabic-Indic
    ("\uff11\uff19\uff16,\uff16\uff10\uff18", []),                       # wholly full-width
    ("196,6\u06608", ["196,6\u06608"]),
    ("1\uff196,608 and 12", ["1\uff196,608"]),                           # one full-width digit
    ("\u0967\u0968 then 3", []),                                         # Devanagari 12, then ASCII 3
])
def test_mixed_scripts_lists_only_numbers_that_mix(text: str, mixed: list[str]) -> None:
    assert mixed_scripts(text) == mixed
