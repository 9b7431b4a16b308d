"""The explainer's data (ledger/explainer.yaml resolved against the Report) and its page, without a browser.

Runs on a copy of this repository's own ledger and on small fixture ledgers written here; the
browser side is tests/test_explainer_browser.py.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from workings import explainer as E
from workings.cli import main
from workings.models import GRADES

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory) -> Path:
    """A copy of this repository's ledger: claims/, ledger/ (records, snapshots, the explainer's data)."""
    root = tmp_path_factory.mktemp("repo") / "ledger-root"
    for part in ("claims", "ledger"):
        shutil.copytree(ROOT / part, root / part)
    return root


@pytest.fixture(scope="module")
def repo(repo_copy):
    from workings.engine import verify

    report = verify(repo_copy)
    return report, E.build(report, repo_copy)


def test_the_repository_ledger_names_every_model_machine_and_format_without_a_problem(repo):
    report, ex = repo
    assert ex.problems == ()
    names = {m.name for m in ex.models}
    assert {"Qwen2.5-14B-Instruct-1M", "Qwen3-8B", "OPT-13B", "DeepSeek LLM 67B", "DeepSeek-V2",
            "DeepSeek-V4-Flash", "DeepSeek-V4.1-Flash"} <= names
    assert {m.id for m in ex.machines} >= {"h100", "h200"}
    assert [f.id for f in ex.formats] == ["bf16", "fp8", "fp4"]


def test_each_figure_is_its_claims_own_value_exactly(repo):
    report, ex = repo
    claims = {c.id: c for c in report.claims}
    for model in ex.models:
        fig = model.per_token
        claim = claims[fig.claim]
        quantity = next(s.result for s in claim.steps if s.name == fig.step) if fig.step else claim.result
        assert quantity.unit == "B/token" and fig.value == quantity.value, model.id
        assert fig.status == claim.status and fig.grade == claim.grade
    by_id = {m.id: m for m in ex.models}
    assert by_id["qwen25-14b-1m"].per_token.value == 196_608
    assert by_id["deepseek-llm-67b"].per_token.value == 389_120  # a step of the 437-fold claim
    assert by_id["deepseek-llm-67b"].per_token.step == "v1_per_token"
    assert by_id["deepseek-v41-flash"].per_token.value == 890
    weights = by_id["deepseek-llm-67b"].weights  # an estimate from the rounded "67B", and labelled so
    assert weights.value == 134 * 10**9 and weights.label == "estimate"
    machines = {m.id: m for m in ex.machines}
    assert machines["h100"].memory.value == 80 * 2**30  # the reading, as its claim says
    assert machines["h200"].memory.value == 141 * 10**9
    formats = {f.id: f for f in ex.formats}
    assert formats["fp8"].smaller_by.value == 2 and formats["fp4"].smaller_by.value == Fraction(32, 9)


def test_what_the_ledger_lacks_is_missing_or_unchecked_not_hidden(repo):
    _, ex = repo
    by_id = {m.id: m for m in ex.models}
    assert by_id["qwen3-8b"].weights.status == "missing" and by_id["qwen3-8b"].weights.value is None
    v41 = by_id["deepseek-v41-flash"]
    assert v41.window.status == "unchecked" and v41.window.printed_only and v41.window.value == 10**6
    assert [part.bytes.status for part in v41.fixed] == ["missing"]
    assert {c.claim for c in v41.fixed[0].context} == {"kv-bytes-per-token/deepseek-v41-flash-swa-window",
                                                       "kv-bytes-per-token/deepseek-v41-flash-swa-layers"}
    graded = [f.grade for f in (v41.per_token, v41.window) if f.grade]
    assert E.weakest([v41.per_token, v41.window, v41.weights]) == {
        "grade": max(graded, key=GRADES.index), "unchecked": 1, "missing": 1}
    assert {m.attention for m in ex.models} == {"standard", "mla", "compressed"}
    assert {m.id for m in ex.models if m.cache_format == "as-built"} == {"deepseek-v4-flash", "deepseek-v41-flash"}


def test_qwen_on_an_h100_in_bf16_agrees_with_the_ledgers_about_286000(repo):
    report, ex = repo
    model, machine, bf16 = ex.models[0], ex.machines[0], ex.formats[0]
    fit = E.tokens_that_fit(model, machine, bf16, 1)
    assert fit == 286_658
    claim = next(c for c in report.claims if c.id == "kv-bytes-per-token/qwen25-14b-h100-tokens")
    assert claim.status == "verified" and claim.figure == "286,000 token"
    assert fit == math.floor(claim.result.value)  # the claim's own recomputed capacity, (memory - weights) / per token
    assert fit // 1000 * 1000 == 286_000  # and as printed, rounded down to thousands
    # one token more no longer fits: the bar turns red exactly past it
    assert E.total_bytes(model, bf16, fit, 1) <= machine.memory.value < E.total_bytes(model, bf16, fit + 1, 1)


def test_chats_formats_and_fixed_parts_scale_as_the_formula_says():
    per_token = E.Figure(ref="claim:x", claim="x", value=Fraction(196_608), unit="B/token", status="verified")
    fixed = E.Fixed(name="window", bytes=E.Figure(ref="claim:w", claim="w", value=Fraction(1000), unit="B"))
    model = E.Model(id="m", name="M", attention="hybrid", cache_format="16-bit", per_token=per_token,
                    window=E.Figure(ref=None), weights=E.Figure(ref=None), fixed=(fixed,))
    machine = E.Machine(id="h", name="H", memory=E.Figure(ref="claim:h", value=Fraction(10**9), unit="B"))
    base = E.Format(id="bf16", name="BF16", smaller_by=None)
    fp4 = E.Format(id="fp4", name="4-bit", smaller_by=E.Figure(ref="claim:r", value=Fraction(32, 9)))
    assert E.per_token_bytes(model, fp4) == 55_296
    assert E.cache_bytes(model, fp4, 10, 3) == 3 * (55_296 * 10 + 1000)
    assert E.tokens_that_fit(model, machine, base, 2) == (10**9 - 2000) // (2 * 196_608)
    built = E.Model(**{**model.__dict__, "cache_format": "as-built"})
    assert E.per_token_bytes(built, fp4) == 196_608  # a model built in its own formats is not rescaled
    tiny = E.Machine(id="t", name="T", memory=E.Figure(ref="claim:t", value=Fraction(1500), unit="B"))
    assert E.tokens_that_fit(model, tiny, base, 2) is None  # the parts that do not grow already exceed it


def _explainer_ledger(tmp_ledger, text: str):
    from render_ledger import write_ledger

    write_ledger(tmp_ledger)
    (tmp_ledger.root / "ledger" / "explainer.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    report = tmp_ledger.verify()
    return report, E.build(report, tmp_ledger.root)


GOOD = """\
models:
  - id: qwen
    name: Qwen
    attention: standard
    cache_format: 16-bit
    per_token: claim:kv/per-token
    window: null
    weights: null
machines:
  - id: vendor
    name: The vendor's machine
    memory: claim:kv/vendor-hbm
formats:
  - {id: bf16, name: BF16, smaller_by: null}
"""


def test_no_explainer_file_means_no_page_and_no_link(tmp_ledger, tmp_path):
    from render_ledger import write_ledger

    from workings.render import render_site

    write_ledger(tmp_ledger)
    report = tmp_ledger.verify()
    assert E.build(report, tmp_ledger.root) is None
    site = render_site(report, tmp_ledger.root, tmp_path / "site")
    assert not (site / "explainer.html").exists()
    assert "explainer" not in (site / "index.html").read_text(encoding="utf-8")


def test_an_unchecked_machine_is_shown_with_its_printed_figure_and_status(tmp_ledger):
    _, ex = _explainer_ledger(tmp_ledger, GOOD)
    assert ex.problems == ()
    memory = ex.machines[0].memory
    assert memory.status == "unchecked" and memory.printed_only and memory.value == 141 * 10**9


@pytest.mark.parametrize(("change", "line", "key", "words"), [
    ("per_token: claim:kv/per-token", 6, "models.0.per_token", "no claim 'kv/nowhere'"),
    ("per_token: claim:kv/per-token", 6, "models.0.per_token", "expected bytes per token"),
    ("per_token: claim:kv/per-token", 6, "models.0.per_token", "has no step 'nope'"),
    ("attention: standard", 4, "models.0.attention", "expected one of standard, mla"),
    ("memory: claim:kv/vendor-hbm", 12, "machines.0.memory", "expected bytes"),
    ("name: Qwen", 4, "models.0.colour", "unknown key"),
])
def test_a_bad_entry_names_file_line_and_key_and_the_rest_is_built(tmp_ledger, change, line, key, words):
    replacement = {
        "no claim 'kv/nowhere'": "per_token: claim:kv/nowhere",
        "expected bytes per token": "per_token: claim:kv/full-window",
        "has no step 'nope'": "per_token: claim:kv/per-token#nope",
        "expected one of standard, mla": "attention: linear",
        "expected bytes": "memory: claim:kv/per-token",
        "unknown key": "name: Qwen\n    colour: red",
    }[words]
    _, ex = _explainer_ledger(tmp_ledger, GOOD.replace(change, replacement))
    assert len(ex.problems) == 1, ex.problems
    problem = ex.problems[0]
    assert (problem.file, problem.line, problem.key) == ("ledger/explainer.yaml", line, key)
    assert words in problem.message
    assert len(ex.formats) == 1  # the other entries are still there
    assert len(ex.models) + len(ex.machines) == 1


def test_a_step_reference_reads_that_step(tmp_ledger):
    text = GOOD.replace("per_token: claim:kv/per-token", "per_token: claim:kv/per-token#per_token")
    _, ex = _explainer_ledger(tmp_ledger, text)
    assert ex.problems == () and ex.models[0].per_token.step == "per_token"
    assert ex.models[0].per_token.value == 196_608


def test_broken_yaml_and_bad_defaults_are_problems_not_tracebacks(tmp_ledger):
    _, ex = _explainer_ledger(tmp_ledger, "models: [\n")
    assert len(ex.problems) == 1 and ex.problems[0].line >= 1 and "invalid YAML" in ex.problems[0].message
    _, ex = _explainer_ledger(tmp_ledger, GOOD + "defaults: {model: nobody, chats: 0}\n")
    assert sorted(p.key for p in ex.problems) == ["defaults.chats", "defaults.model"]
    assert ex.defaults["model"] == "qwen" and ex.defaults["chats"] == 1


def test_cli_render_lists_explainer_problems_writes_the_site_and_exits_2(tmp_ledger, tmp_path):
    _explainer_ledger(tmp_ledger, GOOD.replace("attention: standard", "attention: linear"))
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["render", "--root", str(tmp_ledger.root), "--out", str(out)])
    assert result.exit_code == 2
    assert "ledger/explainer.yaml:4: models.0.attention: expected one of" in result.output
    assert "Traceback" not in result.output
    page = (out / "explainer.html").read_text(encoding="utf-8")
    assert "Problems in the explainer" in page and "models.0.attention" in page


def test_hostile_text_cannot_leave_the_json_script(tmp_ledger, tmp_path):
    from workings.render import render_site

    hostile = "</script><script>alert(1)</script><!-- \u2028 & \"q\""
    text = GOOD.replace("name: Qwen", f"name: {json.dumps(hostile)}")
    report, ex = _explainer_ledger(tmp_ledger, text)
    assert ex.problems == () and ex.models[0].name == hostile
    site = render_site(report, tmp_ledger.root, tmp_path / "site")
    page = (site / "explainer.html").read_text(encoding="utf-8")
    start = page.index('<script type="application/json" id="explainer-data">') + len(
        '<script type="application/json" id="explainer-data">')
    blob = page[start:page.index("</script>", start)]
    assert "<" not in blob and ">" not in blob and "&" not in blob and "\u2028" not in blob
    assert json.loads(blob)["models"][0]["name"] == hostile
    assert "<script>alert(1)" not in page  # the table cell is escaped too
    assert page.count("<script") == 2  # the page's own script tag and the JSON, nothing else


def test_the_page_links_every_figure_to_its_claim_and_renders_the_same_bytes(repo_copy, tmp_path):
    from workings.engine import verify
    from workings.render import render_site

    first = render_site(verify(repo_copy), repo_copy, tmp_path / "one")
    second = render_site(verify(repo_copy), repo_copy, tmp_path / "two")
    page = (first / "explainer.html").read_bytes()
    assert page == (second / "explainer.html").read_bytes()
    text = page.decode("utf-8")
    for href in set(re.findall(r'href="(claims/[^"]+)"', text)):
        assert (first / href).is_file(), href
    data = json.loads(re.search(r'id="explainer-data">(.*?)</script>', text).group(1))
    for model in data["models"]:
        assert model["per_token"]["href"].startswith("claims/") and model["per_token"]["n"]
    assert 'href="explainer.html"' in (first / "index.html").read_text(encoding="utf-8")
    assert "static/explainer.js" in text and "<script src" in text
    assert not re.search(r"<script>(?!\s*</script>)", text)  # no inline script: the CSP allows none
