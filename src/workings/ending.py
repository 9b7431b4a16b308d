"""How the program ends: once a command is done, the process exits without freeing what it built.

When ``workings`` runs as a program (``cli.run``: the ``workings`` command, ``python -m workings``),
the interpreter's teardown after a command frees, object by object, every module and everything they
still hold; and verify let go of the ledger it loaded (every record, its parsed data and its claim)
as soon as the report was made, freeing it while the user waited for the outputs. At 10,000 claims
the two were about 25 ms each (timestamps by hand, 2 Dec 2026), for memory the operating system
takes back at once when the process exits.

So a command's last ``SystemExit`` ends the process with ``os._exit`` (``end``), after everything
Python's own exit does that anyone could see: the ``atexit`` handlers run (once), then stdout and
stderr are flushed. Where any of that cannot be done as Python would (a flush that fails, as on a
closed pipe; another thread still running; an exit code that is not a number), the process exits as
it always did, and says what Python says. ``keep`` holds an object until then instead of letting it
go: only in the program; in a process that goes on (the tests' ``CliRunner``, a library caller)
nothing is kept and nothing ends early.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Any

_kept: list[Any] | None = None  # what ``keep`` holds: a list only while the program runs (``start``)


def start() -> None:
    """This process is the program: it ends with ``end``, and ``keep`` holds what it is given."""
    global _kept
    _kept = []


def keep(thing: Any) -> None:
    """Hold ``thing`` until the program ends, rather than free it now: it is never freed object by
    object. Outside the program (``start`` not called), nothing is held."""
    if _kept is not None:
        _kept.append(thing)


def end(exit: SystemExit) -> None:
    """End the program as ``exit`` says, without the interpreter's teardown: ``atexit`` handlers,
    then stdout and stderr flushed, then ``os._exit``. Returns (the caller raises ``exit``, and the
    interpreter ends the process as always) where that would not be what Python does: outside the
    program, another thread running, an exit code other than None or a number, or a flush that
    fails (which Python's exit then reports, exiting 120)."""
    code = 0 if exit.code is None else exit.code
    if _kept is None or type(code) is not int or threading.active_count() > 1:
        return
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:  # pragma: no cover - CPython has it; another Python exits as always
        return
    run_exit_handlers()  # each once: the registry is empty afterwards
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (or file): the interpreter's exit reports it
            return
    os._exit(code & 0xFF)
