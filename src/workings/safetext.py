"""Record text made safe to print: on a terminal, in a CI log, in XML, JSON and Markdown.

Claims, sources and drafts come from strangers' pull requests, and their text reaches every output:
an id, a key, a passage or a file name can hold an escape sequence that erases a line and prints a
fake summary, a carriage return or newline that forges a line of its own, a bidi control that
reorders what a reviewer reads, a character XML 1.0 forbids (so a CI test reporter drops the whole
JUnit file), or a GitHub workflow command (``::error::``, ``##[add-mask]``) that the runner obeys.

Every text output goes through this module, and only this module decides what is unsafe:

``clean(text)``
    every control character (C0 including tab and newline, DEL, C1 including NEL), bidi and other
    invisible format controls, line and paragraph separators, lone surrogates and the non-characters
    U+FFFE/U+FFFF written as a visible escape (``\\x1b``, ``\\n``, ``\\u202e``). The result is one
    line of printable text, valid in XML 1.0.
``prose(text)``
    the same, for text that is wrapped as prose: its line breaks and tabs read as spaces.
``lines(parts)``
    the lines of a terminal report: each part cleaned (so a part is one line, whatever its text
    holds) and kept from reading as a GitHub workflow command, joined with newlines.
``block(text)``
    text already made of lines: each line treated as by ``lines`` (for reports built elsewhere).
``short(text)``
    text a server or a file sent, cut to its first ``SHORT`` characters with how long it was (a
    10 MB key or a 60 kB ``Location`` is not printed whole on a terminal or in a CI log).
``github_data`` / ``github_property``
    a workflow command's message and its ``file=``/``title=`` values (GitHub's own escaping: ``%``,
    CR, LF, and in properties ``:`` and ``,``), after ``clean``.
``markdown(text)`` / ``code(text)``
    text and a code span for a Markdown table cell (the GitHub step summary).
``json_text(dumped)``
    JSON from ``json.dumps(..., ensure_ascii=False)`` with the same characters (and the ``[`` of
    ``##[``) written as ``\\uXXXX`` escapes: still the same JSON, but nothing in it acts on a terminal.

What is escaped is shown, never dropped: a reviewer sees that a key holds ``\\x1b[2K``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# C0 (tab and newline too: a part is one line), DEL, C1 (NEL U+0085 included); the Arabic letter
# mark; zero-width space and the left-to-right / right-to-left marks; line and paragraph separators;
# bidi embeddings, overrides and isolates; word joiner and invisible operators; the byte-order mark;
# lone surrogates; and the non-characters XML 1.0 forbids.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064"
                    "\u2066-\u206f\ufeff\ud800-\udfff\ufffe\uffff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# A GitHub runner obeys "::command::" at the start of a line (after spaces) and the legacy
# "##[command]" anywhere in one.
_WORKFLOW_START = re.compile(r"^(\s*):(?=:)")
_WORKFLOW_LEGACY = "##["


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(text: object) -> str:
    """``text`` as one line of printable characters: every unsafe character a visible escape."""
    text = "" if text is None else str(text)
    return UNSAFE.sub(_escape, text) if UNSAFE.search(text) else text


_PROSE_BREAKS = re.compile("[\t\n\v\f\r\x85\u2028\u2029]")


def prose(text: object) -> str:
    """Text to be wrapped as prose (notes, a sentence, a passage): its line breaks and tabs read as
    spaces, as a reader of the record sees them; everything else as by ``clean``."""
    text = "" if text is None else str(text)
    return clean(_PROSE_BREAKS.sub(" ", text))


def _not_a_command(line: str) -> str:
    if _WORKFLOW_LEGACY in line:
        line = line.replace(_WORKFLOW_LEGACY, "##\\[")
    return _WORKFLOW_START.sub(r"\1\\:", line) if ":" in line[:1] or line[:1].isspace() else line


def line(text: object) -> str:
    """One line of terminal output: cleaned, and not read as a workflow command by a CI runner."""
    return _not_a_command(clean(text))


def lines(parts: Iterable[object]) -> str:
    """Terminal output from its lines: each one cleaned (whatever it holds stays one line), then
    joined with newlines, ending with one."""
    return "".join(line(part) + "\n" for part in parts)


def block(text: str) -> str:
    """Text that is already lines (a report formatted elsewhere): each line as by ``lines``."""
    body = text[:-1] if text.endswith("\n") else text
    return lines(body.split("\n")) if body or text else ""


SHORT = 300  # characters of server-sent text printed before "... (N characters in all)"


def short(text: object, most: int = SHORT) -> str:
    """``text`` cut to its first ``most`` characters, saying how many it had; shorter text as is."""
    text = "" if text is None else str(text)
    return text if len(text) <= most else f"{text[:most]}… ({len(text):,} characters in all)"


def github_data(text: object) -> str:
    """A workflow command's message: cleaned, then GitHub's data escaping (``%`` first)."""
    cleaned = clean(text).replace(_WORKFLOW_LEGACY, "##\\[")
    return cleaned.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: object) -> str:
    """A workflow command's property value (``file=``, ``title=``): also ``:`` and ``,`` escaped."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~!>])")


def markdown(text: object) -> str:
    """Text for a Markdown table cell: cleaned, Markdown punctuation backslash-escaped (no link,
    image, emphasis or cell break can come from record text), and ``<`` ``&`` as entities."""
    cleaned = clean(text).replace("&", "&amp;").replace("<", "&lt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", cleaned)


def code(text: object) -> str:
    """A Markdown code span holding ``text`` (cleaned) whatever backticks it holds; a ``|`` is
    written ``\\|`` (GitHub's tables split cells on it even inside a code span)."""
    cleaned = clean(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", cleaned)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if cleaned.startswith("`") or cleaned.endswith("`") or not cleaned.strip() else ""
    return f"{fence}{pad}{cleaned}{pad}{fence}"


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064"
                          "\u2066-\u206f\ufeff\ud800-\udfff\ufffe\uffff]")


def json_text(dumped: str) -> str:
    """JSON text (``json.dumps`` already escapes C0) with every other unsafe character written as
    a ``\\uXXXX`` escape, and the ``[`` of a legacy workflow command ``##[`` too: the same JSON
    value, valid UTF-8 even for a lone surrogate, and inert when printed in a CI log."""
    if _WORKFLOW_LEGACY in dumped:
        dumped = dumped.replace(_WORKFLOW_LEGACY, "##\\u005b")
    if dumped.isascii() and "\x7f" not in dumped:  # DEL is the only ASCII character the pattern holds
        return dumped
    if not _JSON_UNSAFE.search(dumped):
        return dumped
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
