"""The record reader's shortcuts held to what they replace: the nesting checks' C pre-tests to the
plain searches, the resolver's cached tags to PyYAML's own, and a walked record's read (no second
``lstat``) to the refusals of a record that is not a plain file."""

from __future__ import annotations

import os
import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from workings import loader, yamlio
from workings.errors import LedgerError
from workings.yamlio import YamlError


def plain_check(text: str) -> None:
    """``_check_nesting``'s two line searches, as they ran before their pre-tests."""
    match = yamlio._BLOCK_NESTING.search(text)
    if match:
        raise YamlError(f"nested deeper than {yamlio.MAX_DEPTH} levels", text.count("\n", 0, match.start()) + 1)
    deep = yamlio._DEEP_INDENT.search(text)
    if deep:
        raise YamlError(f"indented deeper than {4 * yamlio.MAX_DEPTH} columns", text.count("\n", 0, deep.start()) + 1)


def outcome(check, text: str) -> tuple[str, int] | None:
    try:
        check(text)
    except YamlError as exc:
        return str(exc), exc.line
    return None


@pytest.mark.parametrize("text, line", [
    ("said: x\nlist:\n" + "- " * 60 + "x\n", 3),
    ("said: x\n" + "-\t" * 30 + "? " * 10 + ": " * 10 + "x\n", 2),
    ("said: x\n" + " " * 201 + "x: 1\n", 2),
])
def test_deep_block_nesting_and_indentation_are_refused_with_their_line(text, line):
    with pytest.raises(YamlError) as caught:
        yamlio.load(text.encode(), "r.yaml")
    assert caught.value.line == line and "deeper than" in str(caught.value)
    assert outcome(yamlio._check_nesting, text) == outcome(plain_check, text)


def test_below_the_limits_nothing_is_refused_by_them():
    for text in ("said: x\n" + "- " * 49 + "x\n", "said: x\n" + " " * 200 + "x\n",
                 "said: x\n" + "".join(f"k{i}: - x\n" for i in range(60))):  # many indicators, on many lines
        assert outcome(yamlio._check_nesting, text) is None and outcome(plain_check, text) is None


@given(st.lists(st.sampled_from(["- ", "-\t", "? ", ": ", ":\t", "?\t", " ", "  " * 30, "\n", "x", "-", ":", "\t"]),
                max_size=160).map("".join)
       | st.tuples(st.sampled_from(["", "  ", "x", "\n", "a:\n", "x "]),
                   st.lists(st.sampled_from(["- ", "-\t", "? ", ": ", ":\t", "?\t", "-  ", "\t- "]), min_size=45,
                            max_size=55).map("".join), st.sampled_from(["", "x", "\n- "])).map("".join))  # near the limit
def test_the_pre_tests_never_change_what_the_searches_decide(text):
    assert outcome(yamlio._check_nesting, text) == outcome(plain_check, text)  # no brackets: the searches decide


SCALARS = ["", "x", "yes", "No", "on", "OFF", "~", "null", "Null", "true", "1", "-1", "0x1F", "0o17", "017", "1_000",
           "1e3", "1.5e-3", ".inf", "-.Inf", ".nan", "2024-01-01", "2024-01-01 10:00:00", "2024-1-1", "<<", "=",
           "12:30:00", "190:20:30", "+12", "0b101", "1,000", "3 B", "é", "196,608 B/token"]


@given(st.sampled_from(SCALARS) | st.text(max_size=12), st.booleans(), st.booleans())
def test_the_cached_resolver_gives_pyyamls_tags(value, plain, quoted):
    reference = yaml.resolver.Resolver()
    for kind, text in ((yaml.ScalarNode, value), (yaml.SequenceNode, None), (yaml.MappingNode, None)):
        assert yamlio._Loader.resolve(kind, text, (plain, quoted)) == reference.resolve(kind, text, (plain, quoted))


def test_records_read_the_same_as_pyyamls_safe_loader():
    text = "".join(f"k{i}: {v}\n" for i, v in enumerate(SCALARS[1:]) if v not in ("<<", "=")) + "l: [1, a, ~]\n"
    expected = {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in yaml.safe_load(text).items()}
    assert yamlio.load(text.encode(), "r.yaml").data == expected


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs links and pipes")
def test_a_walked_record_swapped_for_a_link_or_a_pipe_is_refused_as_before(tmp_path):
    root = tmp_path / "ledger"
    (root / "claims").mkdir(parents=True)
    record = root / "claims" / "a.yaml"
    record.write_text("said: x\n")
    ledger = loader.Ledger(root=root)
    assert loader._yaml_files(ledger, "claims") == [record] and str(record) in ledger.plain  # no lstat asked
    assert loader.read_plain_file(record, 100, walked=True) == b"said: x\n"
    with pytest.raises(LedgerError, match="is larger than 4 bytes"):
        loader.read_plain_file(record, 4, walked=True)
    record.unlink()
    os.symlink(tmp_path / "elsewhere.yaml", record)  # after the walk, before the read
    (tmp_path / "elsewhere.yaml").write_text("said: secret\n")
    for walked in (True, False):
        with pytest.raises(LedgerError, match=re.escape(loader._LINK)):
            loader.read_plain_file(record, 100, walked=walked)
    record.unlink()
    os.mkfifo(record)
    for walked in (True, False):
        with pytest.raises(LedgerError, match="is not a plain file"):
            loader.read_plain_file(record, 100, walked=walked)
    record.unlink()
    for walked in (True, False):
        with pytest.raises(LedgerError, match="cannot read: No such file"):
            loader.read_plain_file(record, 100, walked=walked)


def _shaped(shape: str, items: int, unusual: bool) -> str:
    """A record of ``items`` entries in one of the shapes records take; ``unusual``: with a comment line,
    so that it is not in the plain form and PyYAML reads it."""
    head = "# a comment\n" if unusual else ""
    if shape == "top":
        return head + "".join(f"k{i}: v{i}\n" for i in range(items))
    if shape == "list":
        return head + "said: x\nalso_said:\n" + "".join(f"- s{i}\n" for i in range(items))
    if shape == "block":
        return head + "said: x\ninputs:\n" + "".join(f"  n{i}: v{i}\n" for i in range(items))
    return head + "said: x\nsteps:\n  a: b\nlist:\n" + "".join(f"- s{i}\n" for i in range(items)) + "last: y\n"


def _count(text: str) -> int:
    """The nodes of the record's tree, as PyYAML composes it: every mapping, list, key and value."""
    node = yaml.compose(text)
    pending, total = [node], 0
    while pending:
        here = pending.pop()
        total += 1
        if isinstance(here, yaml.MappingNode):
            pending += [part for pair in here.value for part in pair]
        elif isinstance(here, yaml.SequenceNode):
            pending += here.value
    return total


@pytest.mark.parametrize("unusual", [False, True])
@pytest.mark.parametrize("shape", ["top", "list", "block", "mixed"])
def test_a_record_read_is_one_whose_lines_can_be_found_and_every_node_counts(monkeypatch, shape, unusual):
    """The limit on a record's nodes counts every node (mappings, lists, keys, values) wherever a record
    is read (the plain form, the quick composer, PyYAML's loader) and where its lines are mapped: a
    record of more is refused when read, with the line where the count is passed, never read and then
    failing when a problem asks for a line (which stopped the whole run, naming no file)."""
    monkeypatch.setattr(yamlio, "MAX_NODES", 60)
    taken = refused = 0
    for items in range(10, 70):
        text = _shaped(shape, items, unusual)
        nodes = _count(text)
        assert (yamlio._plain_form(text) is not None) == (not unusual and nodes <= 60)
        try:
            doc = yamlio.load(text.encode(), "r.yaml")
        except YamlError as exc:
            assert nodes > 60 and str(exc) == "record has more than 60 YAML nodes"
            with pytest.raises(YamlError) as mapped:
                yamlio._node_lines(text)
            assert exc.line == mapped.value.line > 1  # the line where the count is passed, as the map says
            refused += 1
        else:
            assert nodes <= 60
            assert doc.lines and all(doc.line(*path) == line for path, line in doc.lines.items())
            taken += 1
    assert taken and refused


def test_the_data_path_counts_every_node_too(monkeypatch):
    """A record with a tag the quick composer leaves alone is read by PyYAML's own loader (``_plain``):
    its count is every node's too."""
    monkeypatch.setattr(yamlio, "MAX_NODES", 20)
    head = b"a: !!binary aGVsbG8=\n"
    assert yamlio.load(head + b"".join(b"k%d: v\n" % i for i in range(8)), "r.yaml").data["a"] == b"hello"
    with pytest.raises(YamlError, match="more than 20 YAML nodes"):
        yamlio.load(head + b"".join(b"k%d: v\n" % i for i in range(9)), "r.yaml")


def test_a_claim_of_too_many_nodes_is_its_own_error_and_the_run_goes_on(tmp_ledger):
    """At the real limit: a claim record of 20,001 nodes in the plain form (three keys and a list of
    sentences) is refused with its file and line; the other claims still verify."""
    from click.testing import CliRunner

    from workings.cli import main

    tmp_ledger.qwen()
    record = ['said: "It is 1 B."', "figure: 1 B", "label: estimate", "also_said:"]
    (tmp_ledger.root / "claims" / "t").mkdir(parents=True, exist_ok=True)
    for name, items in (("fits", 19_991), ("over", 19_992)):
        (tmp_ledger.root / "claims" / "t" / f"{name}.yaml").write_text("\n".join(record + [f"- s{i}" for i in range(items)]) + "\n")
    assert _count((tmp_ledger.root / "claims" / "t" / "over.yaml").read_text()) == 20_001
    done = CliRunner().invoke(main, ["verify", "--no-cache", "--root", str(tmp_ledger.root)], catch_exceptions=False)
    assert "claims/t/over.yaml:19996: record has more than 20,000 YAML nodes" in done.output, done.output
    assert "record has more than" not in done.output.split("claims/t/over.yaml")[0]
    assert "also_said.0" in done.output  # t/fits: read, and its problem (no figure in "s0") has its line
    assert done.exit_code == 2 and "verified" in done.output
