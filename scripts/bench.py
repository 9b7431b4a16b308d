"""Benchmark: what each command costs on N generated claims, and on this repository's ledger.

    python scripts/bench.py                  # 1,000 and 10,000 claims, both variants, plus the floor
    python scripts/bench.py --n 50 --runs 1  # the small run CI does (it checks every command works)
    python scripts/bench.py --n 10000 --variant b --only verify

Two kinds of generated ledger, each claim a chain link (chains of 10) with three steps:

  a  inputs typed into the record (``48``, ``2 B``), each with its stated assumption (labelled
     estimates: a figure resting on stated assumptions alone is verified only as one);
  b  inputs read from a model's config snapshot through its source record (``cfg-7#num_hidden_layers``),
     as editors write them: 100 configs, each with its own record and archived bytes.

Each row is one whole process (the user's wait), the best of --runs wall-clock times, with the peak
resident memory of that process (``os.wait4``'s rusage of the child); CPU is user plus system time
(render's system time, creating and removing 10,000 files, swings with the disk's state). The commands:

  verify       ``workings verify --no-cache``: the cold run, every claim read and evaluated (from 2,000
               claims on, the records read by two processes; the note gives ``--jobs 1``, one)
  warm verify  ``workings verify`` after a first run filled the cache and one claim changed (only it
               and the claims built on it are recomputed: the note gives verify's own count, and the
               time of the first run, which evaluates everything and writes the cache)
  render       ``workings render`` of the whole site into a new folder, its claim pages made by as
               many processes as it may use (2,000 claims and more; the note gives a render over
               the site a previous run wrote, which links each unchanged page of it into the new
               site and vouches for every other file before swapping, and a render in one process,
               ``--jobs 1``); CPU and memory include its child processes (the larger one's peak)
  show         ``workings show`` of ONE claim (the last of a chain)
  check-draft  ``workings check-draft --no-cache`` of claims/kv-bytes-per-token/article.md: every claim
               record's bytes read to find the few the draft could be about
  warm check-draft  ``workings check-draft`` of the same, after a first run wrote its scan's memory
               (each record ``lstat``ed, none read: nothing changed; the note gives the first run)

Every generated ledger is this repository's ledger plus the N generated claims (so check-draft
holds a real article against it).

The floor is Python starting and importing yaml and pint's registry, which every verify that
evaluates a claim pays (one that finds every result in its cache does not import pint). This
repository's ledger is verified cold, again with nothing changed, and again after one claim's
record changed; then ``show`` of one claim and a warm ``check-draft`` of the KV article run on it
(``bench_repository``), each against the floor: what those two commands cost before 10,000 claims
are added, beside their rows at 10,000. Each of those three commands has a row of its imports
alone: a process that does what the floor does, imports every module the command imported, in its
order, runs nothing and ends as workings ends (``imports_alone``). The command cannot cost less than
that row without importing less, whatever its own work comes to.

Bytecode: by default each command runs as this Python is set up. Where PYTHONDONTWRITEBYTECODE=1
is set (as on the development machine), workings' own modules are compiled from source at every
start, which an installed package never does (pip compiles them at install). ``--bytecode`` times
every command with its modules compiled and cached beforehand (``cache_bytecode``); the first line
printed says which.

Instructions: ``--instructions`` counts what each command executes instead of timing it, under
valgrind's callgrind (one run each, bytecode cached as with ``--bytecode``, PYTHONHASHSEED=0, every
process a command forks summed, each instruction once: ``--dump-before=fork``). Seconds on a shared
machine move by a third between runs minutes apart; the count repeats to the million, so comparisons
between two versions of the code, or against the floor, are made in it. Peak memory is not measured
under valgrind.

Exits non-zero when a command fails (the generated ledgers hold no drift), so CI can run it small.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
ARTICLE = "claims/kv-bytes-per-token/article.md"
REPO_SHOWN = "kv-bytes-per-token/qwen25-14b-bytes-per-token"  # show's claim on this repository's ledger
CONFIGS = 100
COMMANDS = ("verify", "warm verify", "render", "show", "check-draft", "warm check-draft")


def config_bytes(index: int) -> bytes:
    return json.dumps({"hidden_size": 5120, "num_attention_heads": 40, "num_hidden_layers": 48,
                       "num_key_value_heads": 8, "model_index": index}, sort_keys=True).encode() + b"\n"


def make_ledger(root: Path, n: int, variant: str = "b", *, group_prefix: str = "g") -> None:
    """Write N claims (and, for variant b, CONFIGS sources with snapshots) under ``root``."""
    (root / "ledger" / "snapshots").mkdir(parents=True, exist_ok=True)
    (root / "ledger" / "sources").mkdir(parents=True, exist_ok=True)
    if variant == "b":
        for index in range(CONFIGS):
            raw = config_bytes(index)
            name = f"{hashlib.sha256(raw).hexdigest()}.json"
            (root / "ledger" / "snapshots" / name).write_bytes(raw)
            (root / "ledger" / "sources" / f"bench-cfg-{index}.yaml").write_text(
                f"title: config of generated model {index}\ngrade: copy\nurl: https://example.org/m{index}/config.json\n"
                f"snapshot: {name}\nformat: json\n")
    for i in range(n):
        group = root / "claims" / f"{group_prefix}{i // 500}"
        group.mkdir(parents=True, exist_ok=True)
        chained = i % 10 != 0
        figure = f"{196608 * (i % 10 + 1):,} B/token"
        if variant == "b":
            cfg = f"bench-cfg-{(i // 10) % CONFIGS}"
            inputs = (f"  layers: {cfg}#num_hidden_layers\n  kv: {cfg}#num_key_value_heads\n"
                      f"  hidden: {cfg}#hidden_size\n  heads: {cfg}#num_attention_heads\n  value_bytes: 2 B\n")
            assumptions = "  value_bytes: The cache is kept in BF16, two bytes a value.\n"
        else:
            inputs = "  layers: 48\n  kv: 8\n  hidden: 5120\n  heads: 40\n  value_bytes: 2 B\n"
            assumptions = "".join(f"  {name}: Read from the model's card.\n" for name in ("layers", "kv", "hidden", "heads")) + \
                "  value_bytes: The cache is kept in BF16, two bytes a value.\n"
        if chained:
            inputs += f"  prev: claim:{group_prefix}{(i - 1) // 500}/c{i - 1}\n"
        step = "prev + per_token" if chained else "per_token"
        # typed inputs rest on stated assumptions alone: verified only as estimates (README, the words)
        label = "estimate" if variant == "a" else "derived"
        (group / f"c{i}.yaml").write_text(
            f'said: "Synthetic claim {i} is {figure}."\nfigure: {figure}\nlabel: {label}\ninputs:\n{inputs}'
            f"assumptions:\n{assumptions}compute:\n  head_dim: hidden / heads\n"
            f"  per_token: 2 * layers * kv * head_dim * value_bytes / token\n  total: {step}\n")


class Run(NamedTuple):
    """One process, measured: wall seconds, peak resident bytes, its output, CPU seconds (user plus
    system); with ``--instructions``, the instructions it executed instead (seconds and memory under
    valgrind say nothing of the command's own, so they are not kept)."""

    seconds: float
    peak: int
    text: str
    cpu: float
    instructions: int | None = None


COUNTING: Path | None = None  # with --instructions: where callgrind writes, one file per process


def run_once(cmd: list[str], ok: tuple[int, ...] = (0,), *, count: bool = True) -> Run:
    """One process, measured (``count``: under callgrind when --instructions is on; an untimed run
    that only prepares the next passes False); exits when it fails."""
    counting = COUNTING if count else None
    if counting is not None:
        for old in counting.glob("callgrind.out.*"):
            old.unlink()
        # %p: a process that forks (render's page makers) writes one file per process, and all are summed;
        # a child starts with its parent's counts so far, so the parent writes those out (and starts
        # again from zero) just before each fork: every instruction is in exactly one file
        cmd = ["valgrind", "--tool=callgrind", "--quiet", "--dump-before=fork",
               f"--callgrind-out-file={counting}/callgrind.out.%p", *cmd]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
    if proc.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{text[-3000:]}")
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    if counting is not None:
        return Run(0.0, 0, text, 0.0, _instructions(counting, cmd))
    return Run(seconds, peak, text, usage.ru_utime + usage.ru_stime)


def _instructions(folder: Path, cmd: list[str]) -> int:
    """The instructions callgrind counted, over every process of the run and every part a process
    wrote (one ``totals:`` line each)."""
    total, files = 0, sorted(folder.glob("callgrind.out.*"))
    if not files:
        sys.exit(f"callgrind wrote nothing for {' '.join(cmd)}")
    for path in files:
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith(("totals:", "summary:")):
                total += int(line.split()[1])
                break
        else:
            sys.exit(f"{path}: no totals line from callgrind ({' '.join(cmd)})")
    return total


def best(cmd: list[str], runs: int, ok: tuple[int, ...] = (0,), before=None) -> Run:
    """The fastest of ``runs`` runs (one when counting instructions: the count does not move)."""
    results = []
    for _ in range(1 if COUNTING is not None else runs):
        if before:
            before()
        results.append(run_once(cmd, ok))
    return min(results, key=lambda r: r.seconds)


def workings(*args: str) -> list[str]:
    return [sys.executable, "-m", "workings", *args]


def bench_ledger(n: int, variant: str, runs: int, only: set[str]) -> dict[str, tuple[Run, str]]:
    """Each command's run (its best) and a note, on a fresh ledger of N claims."""
    rows: dict[str, tuple[Run, str]] = {}
    with tempfile.TemporaryDirectory(prefix="workings-bench-") as tmp:
        os.environ["WORKINGS_CACHE_DIR"] = f"{tmp}/cache"  # this run's own cache, never the user's
        os.environ.pop("WORKINGS_NO_CACHE", None)
        root = Path(tmp) / "ledger"
        root.mkdir()
        shutil.copytree(REPO / "claims", root / "claims")  # this repository's ledger, plus the generated claims
        shutil.copytree(REPO / "ledger", root / "ledger")
        make_ledger(root, n, variant, group_prefix="bench-g")
        written_at = time.time()

        def cold() -> None:
            shutil.rmtree(root / "reports", ignore_errors=True)

        last = n - 1
        if "verify" in only:
            # the records read and the claims evaluated by two processes from 2,000 claims on
            # (workings/readahead.py, engine._evaluate_split); the note gives the same run in one
            done = best(workings("verify", "--no-cache", "--quiet", "--root", str(root)), runs, before=cold)
            alone = best(workings("verify", "--no-cache", "--quiet", "--jobs", "1", "--root", str(root)), runs,
                         before=cold)
            rows["verify"] = _row(done, f"in one process (--jobs 1): {_cell(alone)}")
        if "warm verify" in only and n:
            shutil.rmtree(f"{tmp}/cache", ignore_errors=True)
            filling = run_once(workings("verify", "--quiet", "--root", str(root)))
            claim = root / "claims" / f"bench-g{(n // 2) // 500}" / f"c{n // 2}.yaml"
            original = claim.read_text()

            def touch() -> None:  # a different sentence each time: the claim's bytes change
                claim.write_text(original.replace("Synthetic claim", f"Synthetic claim (edited {time.time_ns()})"))

            done = best(workings("verify", "--quiet", "--root", str(root)), runs, before=touch)
            said = next((line for line in done.text.splitlines() if line.startswith("cache: recomputed")), "")
            rows["warm verify"] = _row(done, f"{said.split(' (cache:')[0]}; the first run, filling the cache: "
                                             f"{_cell(filling)}")
        if "render" in only:
            # each run into a new folder (a first render); then once more over a site render wrote,
            # which links its unchanged pages and vouches for every file of it before swapping the new one in
            made = [run_once(workings("render", "--root", str(root), "--out", f"{tmp}/site{i}"))
                    for i in range(1 if COUNTING is not None else runs)]
            again = run_once(workings("render", "--root", str(root), "--out", f"{tmp}/site0"))
            alone = run_once(workings("render", "--root", str(root), "--out", f"{tmp}/site-one", "--jobs", "1"))
            rows["render"] = _row(min(made, key=lambda r: r.seconds),
                                  f"into a new folder; rendering again over that site: {_cell(again)}; "
                                  f"into a new folder in one process (--jobs 1): {_cell(alone)}")
        if "show" in only and n:
            rows["show"] = _row(best(workings("show", f"bench-g{last // 500}/c{last}", "--root", str(root)), runs))
        if "check-draft" in only:
            # the published text's own figures: any status is a result, only 2 (unusable input) fails
            rows["check-draft"] = _row(best(workings("check-draft", "--no-cache", str(root / ARTICLE), "--root", str(root)),
                                            runs, ok=(0, 1)))
        if "warm check-draft" in only:
            time.sleep(max(0.0, written_at + 2.1 - time.time()))  # a record written in the last 2 s is not remembered
            check = workings("check-draft", str(root / ARTICLE), "--root", str(root))
            first = run_once(check, ok=(0, 1))
            if not list(Path(f"{tmp}/cache/ledgers").glob("*.scan")):
                sys.exit(f"check-draft wrote no memory of its scan:\n{first.text[-3000:]}")
            rows["warm check-draft"] = _row(best(check, runs, ok=(0, 1)),
                                            f"the first run, writing its scan's memory: {_cell(first)}")
    return rows


# Runs a command in this process as ``workings`` would (its end left out: ``ending``), then writes the
# names of the modules it imported, in the order they were imported, to the file named first.
_LIST_IMPORTS = """import sys
out, sys.argv = sys.argv[1], ["workings", *sys.argv[2:]]
from workings import cli, ending
ending.end = lambda exit: None
try:
    cli.run()
except SystemExit:
    pass
with open(out, "w", encoding="utf-8") as listed:
    listed.write("\\n".join(name for name, module in list(sys.modules.items()) if module is not None))
"""


def imports_of(args: list[str], listing: Path) -> list[str]:
    """The modules ``workings ARGS`` imports in its own process (not in those it forks), in order:
    the command run once, untimed, by a Python that then lists ``sys.modules``."""
    run_once([sys.executable, "-c", _LIST_IMPORTS, str(listing), *args], ok=(0, 1), count=False)
    return [name for name in listing.read_text(encoding="utf-8").split("\n") if name and name != "__main__"]


def imports_alone(names: list[str]) -> list[str]:
    """A process that does what the floor does, then imports ``names`` in their order, runs nothing and
    ends as workings ends (``os._exit``, no teardown): what a command costs before it reads a record.
    A command that imports those modules cannot cost less than this without importing less."""
    return [sys.executable, "-c", "import os, yaml\nfrom workings import units\nunits.registry()\n"
            f"for name in {names!r}:\n    __import__(name)\nos._exit(0)\n"]


def bench_repository(runs: int) -> list[tuple[str, Run]]:
    """verify on a copy of this repository's ledger: cold (``--no-cache``, as CI's first run on a
    clean clone costs about the same); with its cache filled and nothing changed (an editor's run
    again: no unit is parsed, pint is not imported); and after one claim's record changed. Then show
    of one claim and check-draft of the KV article (its scan's memory warm) on the same ledger: what
    the generated ledgers' rows of those two commands cost before any claim is added to it. After
    each command's rows, its imports alone (``imports_of``, ``imports_alone``)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="workings-bench-repo-") as tmp:
        os.environ["WORKINGS_CACHE_DIR"] = f"{tmp}/cache"
        os.environ.pop("WORKINGS_NO_CACHE", None)
        root = Path(tmp) / "ledger"
        shutil.copytree(REPO / "claims", root / "claims")
        shutil.copytree(REPO / "ledger", root / "ledger")
        listing = Path(tmp) / "imported.txt"
        verify = workings("verify", "--quiet", "--root", str(root), "--json", f"{tmp}/r.json")
        rows.append(("verify, this repository's ledger (cold):", best([*verify, "--no-cache"], runs)))
        run_once(verify, count=False)  # fills the cache
        rows.append(("  again, nothing changed (cache warm):", best(verify, runs)))
        claim = min(root.glob("claims/*/*.yaml"))
        original = claim.read_text()

        def touch() -> None:  # a comment added: the record's bytes change, its result does not
            claim.write_text(f"{original}\n# edited {time.time_ns()}\n")

        rows.append(("  again, one claim's record changed:", best(verify, runs, before=touch)))
        rows.append(("  its imports alone (cold), nothing run:",
                     best(imports_alone(imports_of([*verify[3:], "--no-cache"], listing)), runs)))
        written_at = time.time()  # the last change to a record
        show = workings("show", REPO_SHOWN, "--root", str(root))
        rows.append(("show one claim, this repository's ledger:", best(show, runs)))
        rows.append(("  its imports alone, nothing run:", best(imports_alone(imports_of(show[3:], listing)), runs)))
        time.sleep(max(0.0, written_at + 2.1 - time.time()))  # a record written in the last 2 s is not remembered
        check = workings("check-draft", str(root / ARTICLE), "--root", str(root))
        run_once(check, ok=(0, 1), count=False)  # writes its scan's memory
        rows.append(("check-draft, this repository's ledger (warm):", best(check, runs, ok=(0, 1))))
        rows.append(("  its imports alone, nothing run:", best(imports_alone(imports_of(check[3:], listing)), runs)))
    return rows


def cache_bytecode(tmp: str) -> None:
    """Let every command timed below find its modules compiled, as an installed package does (pip
    compiles them at install; Python caches them at first import): the bytecode goes to a folder of
    this run (PYTHONPYCACHEPREFIX), written by one untimed run of each command on a copy of this
    repository's ledger. Without it, a Python started with PYTHONDONTWRITEBYTECODE=1 compiles
    workings' own modules (about 400 KB of source) from source at every start."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = f"{tmp}/bytecode"
    os.environ["WORKINGS_CACHE_DIR"] = f"{tmp}/cache"
    root = Path(tmp) / "ledger"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    claim = min(root.glob("claims/*/*.yaml"))
    run_once([sys.executable, "-c", "import yaml; from workings import units; units.registry()"], count=False)
    for args in (("verify", "--no-cache", "--quiet"), ("verify", "--quiet"), ("render", "--out", f"{tmp}/site"),
                 ("show", f"{claim.parent.name}/{claim.stem}"), ("check-draft", str(root / ARTICLE))):
        run_once(workings(*args, "--root", str(root)), ok=(0, 1), count=False)


def _row(done: Run, note: str = "") -> tuple[Run, str]:
    return done, note


def _cell(done: Run) -> str:
    if done.instructions is not None:
        return f"{done.instructions / 1e9:.3f} G instructions"
    return f"{done.seconds:.2f} s ({done.cpu:.2f} s CPU), {done.peak / 2**20:.0f} MB"


def _against(done: Run, floor: Run) -> str:
    if done.instructions is not None and floor.instructions:
        return f"{done.instructions / floor.instructions:.2f}x the floor"
    return f"{done.seconds / floor.seconds:.2f}x the floor; {done.cpu / floor.cpu:.2f}x in CPU time"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, action="append", help="number of claims (repeatable)")
    parser.add_argument("--variant", choices=("a", "b"), action="append", help="ledger variant (repeatable)")
    parser.add_argument("--only", action="append", choices=COMMANDS, help="commands to time (repeatable)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bytecode", action="store_true",
                        help="time every command with its modules' bytecode compiled and cached beforehand, as an "
                             "installed package runs (see cache_bytecode); by default, as this Python is set up")
    parser.add_argument("--instructions", action="store_true",
                        help="count the instructions each command executes (valgrind's callgrind, one run each, "
                             "bytecode cached, PYTHONHASHSEED=0) instead of timing it: a count that does not move "
                             "with the machine's load")
    args = parser.parse_args()
    only = set(args.only or COMMANDS)
    sizes, variants = args.n or [1000, 10000], args.variant or ["a", "b"]
    counting_dir = tempfile.TemporaryDirectory(prefix="workings-callgrind-") if args.instructions else None
    if counting_dir is not None:
        if shutil.which("valgrind") is None:
            sys.exit("--instructions counts with valgrind, which is not installed (Debian: apt-get install valgrind)")
        os.environ["PYTHONHASHSEED"] = "0"  # sets and dicts of text iterate alike in every run: the count repeats
    bytecode_dir = tempfile.TemporaryDirectory(prefix="workings-bytecode-") if args.bytecode or args.instructions else None
    if bytecode_dir is not None:
        cache_bytecode(bytecode_dir.name)
        print("bytecode: compiled once beforehand and cached for every command (--bytecode)")
    if counting_dir is not None:
        global COUNTING
        COUNTING = Path(counting_dir.name)
        print("instructions: each command counted once under valgrind's callgrind, every process it forks included "
              "(--instructions)")
    elif os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("bytecode: none cached (PYTHONDONTWRITEBYTECODE is set): every command compiles workings' modules "
              "from source; --bytecode times them as an installed package runs")

    floor = best([sys.executable, "-c", "import yaml; from workings import units; units.registry()"], args.runs)
    print(f"floor (python + import yaml + pint's registry): {_cell(floor)}")
    for label, done in bench_repository(args.runs):
        print(f"{label:<48}{_cell(done)}  ({_against(done, floor)})")
    print()
    header = "| command | variant | " + " | ".join(f"{n:,} claims" for n in sizes) + " |"
    print(header)
    print("|---|---|" + "---|" * len(sizes))
    table: dict[tuple[str, str], list[str]] = {}
    notes = []
    for variant in variants:
        for n in sizes:
            rows = bench_ledger(n, variant, args.runs, only)
            for command in COMMANDS:
                if command in rows:
                    done, note = rows[command]
                    table.setdefault((command, variant), []).append(_cell(done))
                    if note:
                        notes.append(f"{command}, variant {variant}, {n:,} claims: {note.strip()}")
    for (command, variant), cells in table.items():
        print(f"| {command} | {variant} | " + " | ".join(cells) + " |")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
