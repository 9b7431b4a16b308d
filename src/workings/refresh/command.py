"""Glue between the `workings refresh` command and the library: limits, progress bar, output."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import click

from workings.refresh.fetch import Limits
from workings.refresh.refresh import refresh
from workings.refresh.text import render

PROGRESS_FROM = 5  # fetches: below this a progress bar only flickers


def run(root: Path, ids: Iterable[str], *, check: bool, timeout: float, jobs: int) -> int:
    """Refresh, print the report on stdout (a progress bar on stderr), and return the exit code."""
    limits = Limits(timeout=timeout, concurrency=jobs)
    with contextlib.ExitStack() as stack:

        def progress(total: int) -> Callable[[int], None]:
            if total < PROGRESS_FROM:
                return lambda done: None
            bar = stack.enter_context(click.progressbar(length=total, label="Fetching sources", file=sys.stderr))
            return bar.update

        result = refresh(root, ids, check=check, limits=limits, progress=progress)
    click.echo(render(result), nl=False)
    return result.exit_code
