"""check-draft reads the draft's neighbourhood only, and says what a whole-ledger check says.

Every test holds the neighbourhood's result (``draft.near``) to the whole ledger's (``verify`` then
``check_text``), figure by figure, hint by hint, on this repository's texts, on outside texts
(tests/corpus/), on generated ledgers, and on records written in every YAML form the quick reading
of bytes must either read exactly or leave to the parser. Work is counted (records parsed), never timed.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from workings import verify
from workings.cli import main
from workings.draft import near
from workings.draft.check import check_file, check_text
from workings.draft.claims import Claims
from workings.draft.near import Neighbourhood

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402

CORPUS = sorted(p for p in (REPO / "tests" / "corpus").glob("*.md") if p.name != "README.md")


def _copy_repo(root: Path) -> Path:
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, root / part)
    return root


def _same(path: Path, root: Path, report, issue: str | None = None) -> near.Neighbourhood:
    whole = check_file(path, report, issue=issue)
    neighbourhood = Neighbourhood(root)
    part = check_file(path, neighbourhood, issue=issue)
    assert part.to_dict() == whole.to_dict(), path
    assert part.exit_code == whole.exit_code
    return neighbourhood


def test_this_repository_s_texts_and_the_outside_texts_check_as_against_the_whole_ledger(tmp_path):
    root = _copy_repo(tmp_path)
    report = verify(root)
    articles = sorted(root.glob("claims/*/article.md"))
    assert len(articles) == 3
    for article in articles:
        _same(article, root, report, issue=article.parent.name)  # as --published runs them
        _same(article, root, report)
    hinted = 0
    for text in CORPUS:
        result = check_file(text, report)
        hinted += sum(bool(f.same_value) for f in result.figures)
        _same(text, root, report)
    assert hinted > 0  # the hint is exercised, not only the verdicts


def test_every_claim_s_own_sentence_as_a_draft(tmp_path):
    """A draft of every claim's sentence (and each with its figure changed): each sentence finds its
    claim (or the drift) in the neighbourhood exactly as in the whole ledger."""
    root = _copy_repo(tmp_path)
    report = verify(root)
    said = [c.said for c in report.claims if c.said]
    assert len(said) > 50
    changed = [s.replace("1", "7").replace("2", "9") for s in said]
    draft = tmp_path / "draft.md"
    draft.write_text("\n\n".join(said + changed) + "\n", encoding="utf-8")
    result = check_file(draft, report)
    assert sum(f.status == "backed" for f in result.figures) > 50
    assert any(f.status == "drift" for f in result.figures)
    _same(draft, root, report)


@pytest.mark.parametrize("n", [200, 2000])
def test_generated_ledger_parses_the_same_few_records_whatever_its_size(tmp_path, n):
    root = _copy_repo(tmp_path)
    bench.make_ledger(root, n, "b", group_prefix="bench-g")
    article = root / bench.ARTICLE
    neighbourhood = _same(article, root, verify(root))
    # the article's claims, what they rest on and their sources: not the generated claims
    assert neighbourhood.parsed == _parsed_without_generated(tmp_path)


def _parsed_without_generated(tmp_path: Path) -> int:
    root = _copy_repo(tmp_path / "bare")
    neighbourhood = Neighbourhood(root)
    check_file(root / bench.ARTICLE, neighbourhood)
    return neighbourhood.parsed


def test_a_generated_claim_s_sentence_and_a_shared_value_among_a_thousand(tmp_path):
    root = tmp_path
    bench.make_ledger(root, 1000, "b")
    draft = root / "draft.md"
    # a generated sentence: every generated claim could be it (its figures are masked), so all are read
    draft.write_text("Synthetic claim 517 is 1,572,864 B/token.\n", encoding="utf-8")
    report = verify(root)
    _same(draft, root, report)
    # a value a hundred claims print, in a sentence none of them is: the hint names them all, and
    # only they are parsed (to confirm each is a valid claim)
    draft.write_text("Another text prints 1,572,864 bytes per token. The Corvid-22B keeps 7 GB.\n", encoding="utf-8")
    _same(draft, root, report)
    result = check_file(draft, neighbourhood := Neighbourhood(root))
    assert [f.status for f in result.figures] == ["unbacked", "unbacked"]
    assert result.figures[0].same_value[:2] == ("g0/c107", "g0/c117") and len(result.figures[0].same_value) == 100
    assert neighbourhood.parsed == 100


def _objects(value) -> int:
    """How many objects make up plain data: each string, number and container once."""
    if isinstance(value, dict):
        return 1 + sum(_objects(k) + _objects(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return 1 + sum(map(_objects, value))
    return 1


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="one process where fork is not used")
def test_the_hint_through_a_child_s_answer_is_the_whole_ledger_s(tmp_path, monkeypatch):
    """At thousands of records a child scans and chooses (``readahead.aside``); what it sends back is
    the records chosen and the others' paths by figure, a few strings: at 1,000 records it was 1,000
    entries (path, id, sentences, figure), whose encoding and decoding were a tenth of check-draft's
    wait at 10,000. The hint it gives is still the whole ledger's, every claim printing the value."""
    import threading

    from workings import readahead

    assert threading.active_count() == 1, f"threads left running by earlier tests: {threading.enumerate()}"
    bench.make_ledger(tmp_path, 1000, "b")
    draft = tmp_path / "draft.md"
    draft.write_text("Another text prints 1,572,864 bytes per token. The Corvid-22B keeps 7 GB.\n", encoding="utf-8")
    whole = check_file(draft, verify(tmp_path))
    monkeypatch.setattr(readahead, "MIN_RECORDS", 0)
    answers: list = []
    real = readahead.aside

    def noting(*args, **kwargs):
        got = real(*args, **kwargs)
        answers.append(got)
        return got

    monkeypatch.setattr(readahead, "aside", noting)
    for jobs in (1, 2):
        neighbourhood = Neighbourhood(tmp_path)
        neighbourhood.jobs = jobs
        part = check_file(draft, neighbourhood)
        assert part.to_dict() == whole.to_dict(), jobs
        assert len(part.figures[0].same_value) == 100 and neighbourhood.parsed == 100
    assert [by_child for _, by_child in answers] == [False, True]
    assert answers[0][0] == answers[1][0]  # one process's answer and the child's, the same
    wanted, rest = answers[1][0][:2]
    assert not wanted and len(rest) == 10  # nothing chosen; the ten figures the generated claims print
    assert sum(len(paths.split("\0")) for paths in rest.values()) == 1000
    assert _objects(answers[1][0]) < 40


ODD = {
    # the same kind of claim written in every form: the quick reading must read it exactly or parse it
    "odd/plain": 'said: Plain said, the Corvid cache holds 64 GB per card.\nfigure: 64 GB\n',
    "odd/single": "said: 'The Corvid''s second cache holds 32 GB per card.'\nfigure: '32 GB'\n",
    "odd/block": "said: >\n  Folded over lines, the Corvid third cache\n  holds 16 GB per card.\nfigure: 16 GB\n",
    "odd/escaped": 'said: "Escaped, the Corvid fourth cache holds 8 GB per \\x63ard."\nfigure: 8 GB\n',
    "odd/also": ('said: "The Corvid fifth cache holds 4 GB per card."\nfigure: 4 GB\nalso_said:\n'
                 '  - "Each card of the Corvid holds a fifth cache of 4 GB."\n  - Plain too, the Corvid 4 GB fifth cache.\n'),
    "odd/flow-also": ('said: "The Corvid sixth cache holds 2 GB per card."\nfigure: 2 GB\n'
                      'also_said: ["A Corvid card keeps its sixth cache at 2 GB."]\n'),
    "odd/comment": '# a comment first\nsaid: "The Corvid seventh cache holds 1 GB per card."  # trailing\nfigure: 1 GB\n',
    "odd/explicit": 'id: odd/named-elsewhere\nsaid: "The Corvid eighth cache holds 128 GB per card."\nfigure: 128 GB\n',
    "odd/twin": 'said: "The Corvid ninth cache holds 256 GB per card."\nfigure: 256 GB\n',
    "odd/multiline-plain": "said: The Corvid tenth cache\n  holds 512 GB per card.\nfigure: 512 GB\n",
    "odd/invalid": 'said: "The Corvid eleventh cache holds 48 GB per card."\nfigure: 48 GB\nlabel: nonsense\n',
    "odd/yes": 'said: yes\nfigure: 64 GB\n',
    "odd/fake-said": 'notes: "a note running on\nsaid: The Corvid twelfth cache holds 24 GB per card."\nfigure: 24 GB\n',
    "odd/bom": '\ufeffsaid: "The Corvid thirteenth cache holds 12 GB per card."\nfigure: 12 GB\n',
}
TAIL = "label: estimate\ninputs:\n  size: {value}\nassumptions:\n  size: As the card's sheet says.\ncompute:\n  total: 1 * size\n"


def test_records_in_every_yaml_form_are_read_exactly_or_parsed(tmp_ledger):
    root = tmp_ledger.root
    for claim_id, head in ODD.items():
        value = head.split("figure: ")[1].split("\n")[0].strip("'")
        text = head + (TAIL.format(value=value) if "label:" not in head else TAIL.replace("label: estimate\n", "").format(value=value))
        tmp_ledger.claim(claim_id, text.encode("utf-8"))
    (root / "claims" / "odd" / "twin.yml").write_text((root / "claims" / "odd" / "twin.yaml").read_text())
    tmp_ledger.claim("odd/uses-explicit", 'said: "Twice the eighth cache is 256 GB."\nfigure: 256 GB\nlabel: estimate\n'
                     'inputs:\n  eighth: claim:odd/named-elsewhere\ncompute:\n  total: 2 * eighth\n')
    sentences = [
        "Plain said, the Corvid cache holds 64 GB per card.",
        "The Corvid's second cache holds 32 GB per card.",
        "Folded over lines, the Corvid third cache holds 16 GB per card.",
        "Escaped, the Corvid fourth cache holds 8 GB per card.",
        "Each card of the Corvid holds a fifth cache of 4 GB.",
        "Plain too, the Corvid 4 GB fifth cache.",
        "A Corvid card keeps its sixth cache at 2 GB.",
        "The Corvid seventh cache holds 1 GB per card.",
        "The Corvid eighth cache holds 128 GB per card.",
        "The Corvid ninth cache holds 256 GB per card.",
        "The Corvid tenth cache holds 512 GB per card.",
        "The Corvid eleventh cache holds 48 GB per card.",
        "The Corvid twelfth cache holds 24 GB per card.",
        "The Corvid thirteenth cache holds 12 GB per card.",
        "Twice the eighth cache is 256 GB.",
        "Elsewhere the figure is 64 GB and then 16 GB.",  # unbacked: the hint names the claims printing them
        "A marker ties this 128 GB<!-- claim: odd/named-elsewhere --> and this 4 GB<!-- claim: odd/also -->.",
    ]
    draft = root / "draft.md"
    draft.write_text(" ".join(sentences) + "\n", encoding="utf-8")
    report = verify(root)
    whole = check_file(draft, report)
    statuses = {f.text: f.status for f in whole.figures}
    for text in ("64 GB per card", "32 GB per card", "16 GB per card", "8 GB per card", "512 GB per card",
                 "12 GB per card", "1 GB per card", "128 GB per card"):
        assert statuses[text] == "backed", text  # each form read as the loader reads it
    assert [f for f in whole.figures if f.status == "unbacked" and f.same_value]  # and the hint is exercised
    _same(draft, root, report)
    kinds = {e.id: e.said is None for e in near.scan(root)}  # True: left to the parser
    assert kinds["odd/plain"] is False and kinds["odd/single"] is False and kinds["odd/also"] is False
    assert all(kinds[i] for i in ("odd/block", "odd/escaped", "odd/flow-also", "odd/explicit", "odd/twin",
                                  "odd/multiline-plain", "odd/bom"))


def test_the_hint_names_claims_by_their_printed_figure_only(tmp_ledger):
    """A claim whose recomputed value alone equals the figure (its record prints it rounded) is not
    named: which claims recompute a value is known only once every claim is evaluated."""
    tmp_ledger.qwen()
    draft = tmp_ledger.root / "draft.md"
    draft.write_text("Some other text says 198,574,080,000 bytes. It also says 198.6 GB.\n", encoding="utf-8")
    report = tmp_ledger.verify()
    result = check_file(draft, report)
    exact, rounded = result.figures
    assert exact.status == rounded.status == "unbacked"
    assert exact.same_value == ()
    assert rounded.same_value == ("kv/full-window",)
    assert check_file(draft, Neighbourhood(tmp_ledger.root)).to_dict() == result.to_dict()


def test_render_indexes_the_ledger_once_for_every_text(tmp_path):
    root = _copy_repo(tmp_path)
    bench.make_ledger(root, 300, "b", group_prefix="bench-g")
    report = verify(root)
    claims = Claims(report.claims)
    for article in sorted(root.glob("claims/*/article.md")):
        text = article.read_text(encoding="utf-8")
        assert check_text(text, claims, issue=article.parent.name, front_matter=True).to_dict() == \
            check_text(text, report, issue=article.parent.name, front_matter=True).to_dict()
    # only claims a sentence or marker of the texts could be about were read in full (views built)
    assert claims.views_built < 150


def test_check_draft_cli_without_a_ledger_folder_is_exit_2(tmp_path):
    draft = tmp_path / "d.md"
    draft.write_text("It holds 5 GB.\n")
    result = CliRunner().invoke(main, ["check-draft", str(draft), "--root", str(tmp_path)])
    assert result.exit_code == 2 and "no claims/ or ledger/sources/ here" in result.output


_SEGMENT = st.sampled_from(["c1", "c10", "c1.x", "a", "a.b", "kv", "kv-x", "x_y", "c"])


@given(
    names=st.lists(
        st.tuples(
            st.lists(_SEGMENT, min_size=1, max_size=3),
            st.sampled_from([".yaml", ".yml", ".YAML", ".yaml.yml"])),
        max_size=30),
    shuffled=st.booleans())
def test_the_records_a_claim_id_names_are_those_a_map_of_every_path_gives(names, shuffled):
    """``near._records_of``: bisection in the walk's sorted paths finds, for any id, the paths a map of
    every path's id (``_path_id``) lists, in the walk's order; paths not in that order take the map."""
    top = os.path.join(os.sep, "ledger", "claims")
    paths = sorted({os.path.join(top, *folders[:-1], folders[-1] + suffix) for folders, suffix in names})
    if shuffled:
        paths.reverse()
    files = [(p, True) for p in paths]
    by_id: dict[str, list[str]] = {}
    for p in paths:
        by_id.setdefault(near._path_id(p, len(top) + 1), []).append(p)
    records_of = near._records_of(top, files)
    asked = set(by_id) | {"c1", "c1/c10", "a.b", "a/a.b", "kv/c1.x", "c"}
    for claim_id in sorted(asked):
        assert records_of(claim_id) == by_id.get(claim_id, []), claim_id
