"""The README tells the truth about the commands: every `workings ...` it shows exists with the
options it shows, and CI runs the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from workings.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SHOWN = sorted({m.group(1) for m in re.finditer(r"^\$?\s*workings ([a-z-]+)", README, re.MULTILINE)})


def test_the_readme_shows_commands():
    assert {"verify", "show", "render", "check-draft", "refresh", "probe", "schema", "new"} <= set(SHOWN)


@pytest.mark.parametrize("command", SHOWN)
def test_every_command_the_readme_shows_exists_with_its_options(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, result.output
    for line in re.findall(rf"^\$?\s*workings {command} (.*)$", README, re.MULTILINE):
        helped, words = result, line.split()
        if words and isinstance(main.commands[command], click.Group) and words[0] in main.commands[command].commands:
            helped = CliRunner().invoke(main, [command, words[0], "--help"])  # `workings source add ...`
            assert helped.exit_code == 0, helped.output
        for option in re.findall(r"(--[a-z][a-z-]*)", line):
            assert option in helped.output, f"workings {command} has no {option}"


def test_ci_runs_the_readme_test_command():
    assert "bash scripts/test.sh" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash scripts/test.sh" in ci and "workings verify" in ci
    assert "pytest" in (ROOT / "scripts" / "test.sh").read_text()
