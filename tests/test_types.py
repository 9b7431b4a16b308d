"""src/workings stays clean under mypy, with the settings in pyproject.toml ([tool.mypy]): every module
at mypy's defaults, and the modules listed in its strict override with --strict's checks."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The core held to --strict: the records, units, the engine, the comparison and the report.
CORE = {"workings.models", "workings.sources", "workings.units", "workings.engine", "workings.compare",
        "workings.report"}


def _strict_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    strict = [o for o in config["overrides"] if o.get("disallow_untyped_defs")]
    assert len(strict) == 1, "one override carries --strict's flags"
    return set(strict[0]["module"])


def test_mypy_finds_no_error_in_src_workings():
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-color-output", "--no-error-summary"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


def test_the_core_stays_in_the_strict_override():
    assert CORE <= _strict_modules()


def test_the_strict_override_spells_out_all_of_stricts_flags():
    """`strict = true` is a global option only; per module, each of its flags must be named."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    override = next(o for o in config["overrides"] if o.get("disallow_untyped_defs"))
    assert override["module"]
    for flag in ("disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls",
                 "disallow_untyped_defs", "disallow_incomplete_defs", "check_untyped_defs",
                 "disallow_untyped_decorators", "warn_return_any", "no_implicit_reexport", "strict_equality",
                 "extra_checks"):
        assert override.get(flag) is True, flag
