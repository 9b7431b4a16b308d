"""GitHub annotations and the step summary on a drift that spreads: the claim whose own figure or
inputs went wrong comes first (GitHub shows the first 10 error annotations of a step), and the
summary points at the same line as each claim's first annotation."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.conftest import PER_TOKEN
from workings import outputs

REPO = Path(__file__).resolve().parents[1]
ANNOTATION = re.compile(r"^::(error|notice) file=([^,]+),line=(\d+)::(.*)$")


def test_the_root_cause_comes_first_and_the_summary_agrees_on_lines(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("196,608", "196,680"))
    report = tmp_ledger.verify()
    lines = outputs.github_annotations(report).splitlines()
    parsed = [ANNOTATION.match(line).groups() for line in lines]
    assert parsed[0][1:3] == ("claims/kv/per-token.yaml", "2") and parsed[0][3].startswith("kv/per-token: figure:")
    assert parsed[1][1] == "claims/kv/full-window.yaml" and "input claim 'kv/per-token' drifted" in parsed[1][3]
    summary = outputs.markdown_summary(report)
    rows = [line for line in summary.splitlines() if line.startswith("| `kv/")]
    assert rows[0].startswith("| `kv/per-token` | drift | `claims/kv/per-token.yaml:2` |")
    assert rows[1].startswith("| `kv/full-window` | drift | `claims/kv/full-window.yaml:5` |")
    first_line = {f"{file}:{line}" for _, file, line, _ in parsed}
    for row in rows:
        assert row.split("|")[3].strip().strip("`") in first_line


def test_on_this_repository_one_changed_input_puts_its_claim_first_of_many(tmp_path):
    root = tmp_path / "repo"
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO / folder, root / folder)
    layers = root / "claims" / "kv-bytes-per-token" / "qwen25-14b-layers.yaml"
    layers.write_text(layers.read_text().replace('figure: "48"', 'figure: "46"').replace("gives 48 layers", "gives 46 layers"))
    from workings import verify

    report = verify(root)
    drifted = [c.id for c in report.claims if c.status == "drift"]
    assert "kv-bytes-per-token/qwen25-14b-layers" in drifted and len(drifted) > 5
    lines = outputs.github_annotations(report).splitlines()
    assert len(lines) > 10  # more than GitHub shows for one step
    assert "kv-bytes-per-token/qwen25-14b-layers: figure:" in lines[0]
    order = [c.id for c in outputs.root_first(report)]
    assert order[0] == "kv-bytes-per-token/qwen25-14b-layers"
    assert order.index("kv-bytes-per-token/qwen25-14b-bytes-per-token") < order.index(
        "kv-bytes-per-token/qwen25-14b-cache-full-window-gb")


def test_a_long_drifting_chain_is_ordered_without_recursion(tmp_ledger):
    """5,000 claims, each built on the one before: ordered in linear work, no RecursionError."""
    from workings.report import ClaimResult, Report

    claims = tuple(ClaimResult(id=f"c/{i:05d}", group="c", file=f"claims/c/{i:05d}.yaml", line=1, said="x",
                               label="derived", figure="1", check=None, status="drift", reason="r",
                               uses=(f"c/{i - 1:05d}",) if i else ()) for i in range(5000))
    order = outputs.root_first(Report(claims=tuple(reversed(claims)), sources=()))
    assert [c.id for c in order[:3]] == ["c/00000", "c/00001", "c/00002"] and len(order) == 5000


def test_junit_has_times_and_failure_types_and_keeps_file_and_line(tmp_ledger):
    import xml.etree.ElementTree as ET

    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("196,608", "196,680"))
    tmp_ledger.claim("kv/broken", "said: x\n")
    root = ET.fromstring(outputs.junit(tmp_ledger.verify()))
    suite = root.find("testsuite")
    assert root.get("time") == "0" and suite.get("time") == "0"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert all(case.get("time") == "0" and case.get("file") and case.get("line") for case in cases.values())
    assert cases["kv/per-token"].find("failure").get("type") == "drift"
    assert cases["kv/broken"].find("error").get("type") == "invalid-record"
