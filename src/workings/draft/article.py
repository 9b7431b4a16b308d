"""A published text kept beside its claims: ``claims/<slug>/article.md``.

The file starts with a YAML front-matter block between two ``---`` lines, then the text as
published::

    ---
    title: KV bytes per token
    published: null          # ISO date, or null where unknown
    url: null                # where it was published (http or https), or null where unknown
    format: plain            # optional: "markdown" (the default) or "plain"
    ---
    The hook
    ...

``format: plain`` says the body is the text as a publishing tool exports it (one paragraph a line,
headings on lines of their own) rather than Markdown, and is read as such. The front matter is
never read as prose; line numbers stay those of the file. The ledger's loader reads only
``.yaml``/``.yml`` files, so an article beside the records is not a record.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from ..frozen import frozen
from .. import yamlio
from ..errors import LedgerError

FORMATS = ("markdown", "plain")
_URL = re.compile(r"https?://\S+\Z")


@frozen(kw_only=True)
class FrontMatter:
    data: dict[str, Any] = field(default_factory=dict)
    lines: int = 0                  # how many lines of the file the block takes (0: none)

    @property
    def format(self) -> str | None:
        return self.data.get("format")


def front_matter(text: str, *, file: str = "draft") -> FrontMatter:
    """The front-matter block at the top of ``text`` (none: an empty FrontMatter). A block that is
    not a YAML mapping, or that names an unknown format or a non-http(s) url, is a LedgerError
    naming the file and line."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return FrontMatter()
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise LedgerError(f"{file}:1: front matter opened with --- is never closed")
    block = "\n".join(lines[1:end])
    if not block.strip():
        return FrontMatter(lines=end + 1)
    try:
        document = yamlio.load(block.encode("utf-8"), file)
    except yamlio.YamlError as exc:
        raise LedgerError(f"{file}:{exc.line + 1}: front matter: {exc}") from None
    data = document.data
    if not isinstance(data, dict):
        raise LedgerError(f"{file}:2: front matter must be a mapping of keys")
    if data.get("format") is not None and data["format"] not in FORMATS:
        raise LedgerError(f"{file}:{document.line('format') + 1}: front matter: format must be one of "
                          f"{', '.join(FORMATS)}, not {data['format']!r}")
    url = data.get("url")
    if url is not None and not (isinstance(url, str) and _URL.match(url)):
        raise LedgerError(f"{file}:{document.line('url') + 1}: front matter: url must be an http(s) address or null")
    return FrontMatter(data=data, lines=end + 1)
