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
