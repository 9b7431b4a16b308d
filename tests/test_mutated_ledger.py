"""This repository's own ledger with one record broken at a time, as a stranger's pull request might.

The corpus in ``test_redteam.py`` holds each error to its exact words on small fixture ledgers. Here
hypothesis breaks the real, many-source ledger instead: one line of one claim record, source record,
measurement or snapshot deleted, repeated, swapped with another, cut short, given a tricky value, a
stray character, or a name taken from elsewhere in the file. Whatever comes of it, every command must
give an answer, never a crash (exit 70, a traceback); every ERROR that ``verify`` prints must name a
file and line, on its own line or on the line below (a claim's row, then its reason); and the rest of
the run goes on: the summary still counts the ledger's claims.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workings import cli

REPO = Path(__file__).resolve().parent.parent
SHOWN = "kv-bytes-per-token/qwen25-14b-bytes-per-token"
ARTICLE = "claims/kv-bytes-per-token/article.md"

# values a hand-written or hostile record might give a key
TRICKY = ["", "-1", "0", "-0", "1e999", "'1e-400'", "null", "~", "[]", "{}", "[1, 2]", "{a: 1}", "NaN", ".inf",
          "-.inf", "1/0", "2**99999", "9" * 400, "'1,234'", "true", "no", "0x10", "1_000", "'\u0663\u0660'",
          "'<script>alert(1)</script>'", "2026-13-45", "!!binary aGk=", "!!python/object:os.system x", "&a x",
          "*a", "'GB/s'", "'bytes**-1'", "'1 GiB'", "'%'", "'1.5 bytes'", "'claim:nope'", "'  '", "1.5",
          "'dimensionless'", "'a' * 5000", "'" + "a" * 5000 + "'", "'../../etc/passwd'", "'javascript:alert(1)'"]
OPS = ["delete", "repeat", "swap", "cut", "value", "stray", "rename"]
STRAY = [" ", "  ", "\t", "-", ":", "#", "'", '"', "{", "[", "*", "&", "!", "0", "9", "e", "\u00a0", "\u200b"]

# a claim's row (``ERROR  <figure>  <id>``) gives its reason on the next line; any other ERROR line is the
# reason itself
PLACE = re.compile(r"(?:^|\s)\S+\.(?:ya?ml|json|txt|md):\d+:")


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mutated") / "ledger"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    return root


def _records(root: Path) -> list[Path]:
    found = sorted(root.glob("claims/**/*.yaml")) + sorted(root.glob("ledger/sources/*.yaml"))
    found += sorted(root.glob("ledger/measurements/**/*.yaml")) + sorted(root.glob("ledger/snapshots/*.*"))
    return found


def _broken(lines: list[str], op: str, at: int, other: int, text: str) -> list[str]:
    """``lines`` with one thing done to the line at ``at`` (and ``other``, where two are involved)."""
    lines = list(lines)
    at, other = at % len(lines), other % len(lines)
    if op == "delete":
        del lines[at]
    elif op == "repeat":
        lines.insert(at, lines[other])
    elif op == "swap":
        lines[at], lines[other] = lines[other], lines[at]
    elif op == "cut":
        lines = lines[:at]
    elif op == "value":
        key, colon, _ = lines[at].partition(":")
        lines[at] = f"{key}: {text}" if colon else f"{lines[at]} {text}"
    elif op == "stray":
        line = lines[at]
        where = other % (len(line) + 1)
        lines[at] = line[:where] + text + line[where:]
    elif op == "rename":  # a name or number of this line replaced by one from another line
        here = re.findall(r"[A-Za-z_]+|\d+(?:\.\d+)?", lines[at])
        there = re.findall(r"[A-Za-z_]+|\d+(?:\.\d+)?", lines[other])
        if here and there:
            lines[at] = lines[at].replace(here[len(text) % len(here)], there[len(text) % len(there)], 1)
    return lines


def _run(*args: str):
    done = CliRunner().invoke(cli.main, list(args))
    crash = done.exception is not None and not isinstance(done.exception, SystemExit)
    assert done.exit_code != 70 and not crash and "Traceback" not in done.output, (args, done.output, done.exc_info)
    return done


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(which=st.integers(0, 10_000), op=st.sampled_from(OPS), at=st.integers(0, 10_000), other=st.integers(0, 10_000),
       text=st.sampled_from(TRICKY + STRAY), also=st.sampled_from(["", "show", "check-draft"]))
def test_one_broken_record_of_this_ledger_is_an_answer_naming_its_place_never_a_crash(
        ledger, monkeypatch, which, op, at, other, text, also):
    monkeypatch.setenv("WORKINGS_NO_CACHE", "1")
    records = _records(ledger)
    path = records[which % len(records)]
    original = path.read_bytes()
    lines = original.decode("utf-8").split("\n")
    try:
        path.write_text("\n".join(_broken(lines, op, at, other, text)), encoding="utf-8")
        done = _run("verify", "--quiet", "--root", str(ledger))
        assert done.exit_code in (0, 1, 2), done.output
        assert re.search(r"^\d+ claims: ", done.output, re.MULTILINE), done.output  # the run went on to its end
        shown = done.output.splitlines()
        for i, line in enumerate(shown):
            if line.startswith("ERROR"):
                below = shown[i + 1] if i + 1 < len(shown) else ""
                assert PLACE.search(line) or PLACE.match(below.lstrip()), (path.name, line, below)
        if also == "show":
            assert _run("show", SHOWN, "--root", str(ledger)).exit_code in (0, 1, 2)
        elif also == "check-draft":
            assert _run("check-draft", str(ledger / ARTICLE), "--root", str(ledger)).exit_code in (0, 1, 2)
    finally:
        path.write_bytes(original)


def test_the_breaking_reaches_every_kind_of_record_and_changes_it(ledger):
    """The test above breaks records of every kind, and each way of breaking changes a line."""
    kinds = {("claims" if str(p.relative_to(ledger)).startswith("claims") else p.relative_to(ledger).parts[1])
             for p in _records(ledger)}
    assert kinds == {"claims", "sources", "measurements", "snapshots"}
    snapshots = {p for p in (ledger / "ledger" / "snapshots").iterdir() if p.is_file()}
    assert snapshots and snapshots <= set(_records(ledger))  # every snapshot, JSON and text alike
    lines = ["said: x is 3 GB.", "figure: 3 GB", "label: derived"]
    for op in OPS:
        assert _broken(lines, op, 1, 2, "[") != lines, op
