"""Collecting problems while reading a plain mapping, each with its file, line and key."""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from .errors import Problem
from .yamlio import Document

# where a value sits in a document: keys and list indexes from the top
KeyPath = tuple[str | int, ...]

_YAML11_HINT = " (YAML read it as {kind}; put the value in quotes)"


class Checker:
    """Reads keys from a Document's data and collects every problem with its place."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.problems: list[Problem] = []
        self.missing: set[KeyPath] = set()  # required keys already reported as missing

    def problem(self, path: KeyPath, message: str) -> None:
        key = ".".join(str(p) for p in path)
        self.problems.append(Problem(file=self.doc.file, line=self.doc.line(*path), key=key, message=message))

    def mapping(self, path: KeyPath, value: object, *, allowed: Set[str], required: Set[str] = frozenset()) -> dict[str, Any]:
        if not isinstance(value, dict):
            what = "an empty value" if value is None else f"a {type(value).__name__}"
            self.problem(path, f"expected a mapping of keys, got {what}")
            return {}
        keys = value.keys()
        if keys <= allowed and keys >= required:  # every key known (so text) and every required one there
            return dict(value)
        for key in value:
            if isinstance(key, bool):
                self.problem(path, f"a key was read by YAML as the boolean {key} (yes/no/on/off are booleans "
                             "in YAML 1.1); put the key in quotes")
            elif not isinstance(key, str):
                self.problem(path, f"keys must be text, got {key!r}")
            elif key not in allowed:
                self.problem(path + (key,), f"unknown key (expected one of: {', '.join(sorted(allowed))})")
        for key in sorted(required - set(value)):
            self.problem(path, f"missing required key {key!r}")
            self.missing.add(path + (key,))
        return {k: v for k, v in value.items() if isinstance(k, str) and k in allowed}

    def text(self, path: KeyPath, value: object, *, required: bool = True, max_len: int = 10_000) -> str | None:
        if value is None:
            if required and path not in self.missing:
                self.problem(path, "expected text, got nothing")
            return None
        if not isinstance(value, str):
            kind = "a boolean" if isinstance(value, bool) else f"the number {value!r}" if isinstance(value, (int, float)) else f"a {type(value).__name__}"
            self.problem(path, "expected text" + _YAML11_HINT.format(kind=kind))
            return None
        if len(value) > max_len:
            self.problem(path, f"text is longer than {max_len:,} characters")
            return None
        if not value.strip() and required:
            self.problem(path, "expected text, got an empty string")
            return None
        return value

    def choice(self, path: KeyPath, value: object, options: tuple[str, ...], *, required: bool = True) -> str | None:
        text = self.text(path, value, required=required)
        if text is not None and text not in options:
            self.problem(path, f"expected one of {', '.join(options)}; got {text!r}")
            return None
        return text

    def url(self, path: KeyPath, value: object, *, required: bool = False) -> str | None:
        text = self.text(path, value, required=required)
        if text is not None and not is_http_url(text):
            self.problem(path, f"expected an http(s) URL; got {text!r}")
            return None
        if text is not None and (why := _misleading_host(text)):
            self.problem(path, why)
            return None
        return text


def _misleading_host(text: str) -> str | None:
    """Why a reader would misread where an http(s) URL leads, or None: a user name or password before its
    host ("https://huggingface.co@evil.example/" leads to evil.example), or a host not written in ASCII
    (a look-alike letter: "hugginɡface.co"; an international name is written in its xn-- form)."""
    from urllib.parse import urlsplit

    netloc = urlsplit(text).netloc
    if "@" in netloc:
        return f"a URL with a user name or password before its host reads as another address; got {text!r}"
    if not netloc.isascii():
        return f"write the URL's host in ASCII (an international name in its xn-- form); got {text!r}"
    return None


def is_http_url(text: str) -> bool:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not any(c.isspace() for c in text)
