"""Hostile record and draft text in every text output: the terminal table, show, check-draft (text,
GitHub annotations), the GitHub annotations and step summary of verify, JUnit XML and JSON.

Each output must stay what it claims to be, whatever a stranger's pull request puts in a key, an id,
a file name, a sentence or a draft: no escape sequence, control character (C0, DEL, C1) or bidi
control reaches the terminal raw; no record text starts a line of its own, forges the summary or a
GitHub workflow command; the JUnit file parses with an XML parser and still reports every claim;
the JSON still holds the exact text. Run through the real CLI in a subprocess, as CI runs it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workings import safetext

# literal inputs only: an estimate, the label that may rest on a stated assumption alone
OK = 'said: "ok"\nfigure: "1 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\ncompute:\n  a: b\n'
# An unknown key that, printed raw, erases the line, returns the cursor and prints a fake green
# summary, then starts a line with a workflow command and a legacy one mid-line.
FAKE = r'"\e[2K\r\e[32m97 claims: 97 verified\e[0m\n::error file=x.md::fake\r\n##[add-mask]secret\x01\x9b31m"'
HOSTILE_KEY = OK + f"{FAKE}: 1\n"
# Text fields that are not errors: a said with bidi overrides, NEL and a line separator, notes with C1.
HOSTILE_SAID = OK.replace('"ok"', r'"ok \u202e)evil( \N and \L done \x07"') + 'notes: "\\x9b2J \\x85 \\u2066x"\n'
DRIFTING = ('said: "\\e]0;title\\a drifted \\u202e"\nfigure: "2 B"\nlabel: estimate\ninputs:\n  b: 1 B\n'
            'assumptions: {b: "\\e[31m y"}\ncompute:\n  a: b\n')

# Raw characters no output may print: every C0 but the newline between lines, DEL, C1, bidi
# controls, line separators, lone surrogates.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
ANNOTATION = re.compile(r"::(error|warning|notice) file=[^:,]*(,line=\d+)(,col=\d+)?(,title=[^:,]*)?::")


def _ledger(tmp_path: Path) -> Path:
    root = tmp_path / "ledger"
    claims = root / "claims" / "t"
    claims.mkdir(parents=True)
    (claims / "ok.yaml").write_text(OK)
    (claims / "key.yaml").write_text(HOSTILE_KEY)
    (claims / "said.yaml").write_text(HOSTILE_SAID)
    (claims / "drift.yaml").write_text(DRIFTING)
    os.mkdir(os.fsencode(claims) + b"/n\x1b[31m\n::error::\xff")  # a folder name: not UTF-8, an escape, a line
    (Path(os.fsdecode(os.fsencode(claims) + b"/n\x1b[31m\n::error::\xff")) / "x.yaml").write_text(OK)
    return root


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "workings", *args], capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})})
    stdout, stderr = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")  # valid UTF-8, or this fails
    assert "Traceback" not in stderr, stderr[-800:]
    return subprocess.CompletedProcess(done.args, done.returncode, stdout, stderr)


def _assert_safe(text: str) -> None:
    assert not RAW.search(text), repr(RAW.search(text).group())
    for line in text.split("\n"):
        if line.lstrip().startswith("::"):
            assert ANNOTATION.match(line), line  # only annotations workings wrote start with ::
        assert "##[" not in line, line


def test_verify_outputs_keep_hostile_text_inert(tmp_path):
    root = _ledger(tmp_path)
    summary = tmp_path / "summary.md"
    done = _run("verify", "--root", str(root), env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 2
    _assert_safe(done.stdout)
    _assert_safe(done.stderr)
    table = [line for line in done.stdout.splitlines() if not line.startswith("::")]
    assert table[-1] == "5 claims: 2 verified, 1 drift, 2 error; 2 input problems"
    assert not any("97 claims" in line and not line.lstrip().startswith("claims/t/key.yaml") for line in table)
    assert r"\x1b[2K\r\x1b[32m97 claims: 97 verified\x1b[0m\n::error file=x.md::fake\r\n##\[add-mask]" in done.stdout
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 3 and all(ANNOTATION.match(a) for a in annotations)

    cases = ElementTree.parse(root / "reports" / "junit.xml").getroot().findall(".//testcase")
    assert len(cases) == 5  # every claim still reported
    names = sorted(c.get("name") for c in cases)
    assert names[0].startswith("t/drift") and any(r"\x1b[31m\n::error::" in n for n in names)
    reasons = " ".join(e.get("message") for e in ElementTree.parse(root / "reports" / "junit.xml").iter("error"))
    assert r"\x1b[2K\r\x1b[32m97 claims" in reasons

    report = json.loads((root / "reports" / "ledger.json").read_text(encoding="utf-8"))
    _assert_safe((root / "reports" / "ledger.json").read_text(encoding="utf-8"))
    said = {c["id"]: c["said"] for c in report["claims"]}
    assert said["t/said"] == "ok \u202e)evil( \x85 and \u2028 done \x07"  # the JSON keeps the exact text

    markdown = summary.read_text(encoding="utf-8")
    _assert_safe(markdown)
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and "claims/t/" in line]
    assert len(rows) == 3
    assert all(len(re.findall(r"(?<!\\)\|", row)) == 5 for row in rows)  # no cell break from record text


def test_show_keeps_hostile_text_inert(tmp_path):
    root = _ledger(tmp_path)
    for claim in ("t/said", "t/key", "t/drift"):
        done = _run("show", claim, "--root", str(root))
        _assert_safe(done.stdout)
        assert done.stdout.count("\n") == len(done.stdout.splitlines())
    said = _run("show", "t/said", "--root", str(root)).stdout
    assert r"ok \u202e)evil(   and   done \x07" in said and r"\x9b2J" in said  # breaks read as spaces


def test_check_draft_outputs_keep_a_hostile_draft_inert(tmp_path):
    root = _ledger(tmp_path)
    draft = tmp_path / "d\x1b[2K\n::error::x.md"  # the file name is printed too
    draft.write_text("The cache holds 3 B \x1b[2K\r\u202e::error::fake.\n\n::warning::x takes 4 B, ##[add-mask]y.\n"
                     "A \x85 line and 5 B\u2028more.\n", encoding="utf-8")
    for fmt in ("text", "github", "json"):
        done = _run("check-draft", str(draft), "--root", str(root), "--format", fmt)
        assert done.returncode == 1, done.stderr
        _assert_safe(done.stdout)
        _assert_safe(done.stderr)
    github = _run("check-draft", str(draft), "--root", str(root), "--format", "github").stdout.splitlines()
    assert sum(line.startswith("::") for line in github) == 4  # one per unbacked figure ("2K" of the escape too), none forged
    text = _run("check-draft", str(draft), "--root", str(root)).stdout
    assert text.splitlines()[-1].startswith(r"{}/d\x1b[2K\n::error::x.md: 4 figures".format(tmp_path))
    result = json.loads(_run("check-draft", str(draft), "--root", str(root), "--format", "json").stdout)
    assert result["figures"][0]["sentence"].startswith("The cache holds 3 B \x1b[2K \u202e::error::fake")  # CR ends a line


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40))
def test_any_text_is_one_safe_line_and_valid_xml(text):
    cleaned = safetext.clean(text)
    assert not safetext.UNSAFE.search(cleaned)
    assert safetext.lines([text]).count("\n") == 1
    assert not safetext.lines([text]).lstrip().startswith("::")  # no workflow command, whatever it holds
    element = ElementTree.fromstring(f"<a b={__import__('xml.sax.saxutils').sax.saxutils.quoteattr(cleaned)}/>")
    assert element.get("b") == cleaned
    assert json.loads(safetext.json_text(json.dumps(text, ensure_ascii=False))) == text
    data = safetext.github_data(text)
    assert "\n" not in data and "\r" not in data and "##[" not in data


@pytest.mark.parametrize("text, shown", [
    ("\x1b[2K\r\x1b[32m97 claims: 97 verified\x1b[0m", r"\x1b[2K\r\x1b[32m97 claims: 97 verified\x1b[0m"),
    ("a\nb\tc\x00d\x7f\x85\x9b", r"a\nb\tc\x00d\x7f\x85\x9b"),
    ("bidi \u202e\u2066\u200f\u061c x", r"bidi \u202e\u2066\u200f\u061c x"),
    ("lines \u2028 \u2029 \ufeff \ud800 \uffff", r"lines \u2028 \u2029 \ufeff \ud800 \uffff"),
    ("::error file=a::forged", r"\::error file=a::forged"),
    ("\u3000 ::warning::forged", "\u3000 \\::warning::forged"),
    ("text ##[add-mask]secret", r"text ##\[add-mask]secret"),
    ("café 196,608 B/token — “quoted”", "café 196,608 B/token — “quoted”"),  # printable text is untouched
])
def test_each_unsafe_character_is_shown_as_an_escape(text, shown):
    assert safetext.lines([text]) == shown + "\n"


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("&<>\"'\n\r\t a;#é\x00\u2028")) | st.characters(), max_size=40))
def test_the_junit_escapes_are_the_standard_librarys(text):
    """outputs writes XML with its own copies of xml.sax.saxutils's escape and quoteattr (importing
    that module imports urllib.request, a tenth of a small ledger's verify): the same text out."""
    from xml.sax.saxutils import escape, quoteattr

    from workings import outputs

    assert outputs.escape(text) == escape(text)
    assert outputs.quoteattr(text) == quoteattr(text)
