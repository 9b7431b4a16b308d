"""Benchmark: how long verify takes on N synthetic claims, and on this repo's ledger.

    python scripts/bench.py              # 1,000 and 10,000 claims, plus the repo and a baseline
    python scripts/bench.py --n 20000    # one size

Each synthetic claim reads a source snapshot, builds on another claim (chains of 10), and has three
steps, so the run exercises the loader, the graph and the evaluator as the real ledger does. Times
are wall-clock for a whole `workings verify` process (the user's wait), best of --runs.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = b'{"hidden_size": 5120, "num_attention_heads": 40, "num_hidden_layers": 48, "num_key_value_heads": 8}\n'


def make_ledger(root: Path, n: int) -> None:
    (root / "ledger" / "snapshots").mkdir(parents=True)
    (root / "ledger" / "sources").mkdir(parents=True)
    name = f"{hashlib.sha256(CONFIG).hexdigest()}.json"
    (root / "ledger" / "snapshots" / name).write_bytes(CONFIG)
    (root / "ledger" / "sources" / "cfg.yaml").write_text(
        f"title: config\ngrade: copy\nurl: https://example.org/c\nsnapshot: {name}\nformat: json\n")
    for i in range(n):
        group = root / "claims" / f"g{i // 500}"
        group.mkdir(parents=True, exist_ok=True)
        chained = i % 10 != 0
        inputs = (f"  prev: claim:g{(i - 1) // 500}/c{i - 1}\n" if chained else "")
        figure = "196,608 B/token" if not chained else f"{196608 * (i % 10 + 1):,} B/token"
        step = "prev + per_token" if chained else "per_token"
        (group / f"c{i}.yaml").write_text(
            f'said: "Synthetic claim {i}."\nfigure: {figure}\nlabel: derived\ninputs:\n'
            f"  layers: cfg#num_hidden_layers\n  kv: cfg#num_key_value_heads\n  hidden: cfg#hidden_size\n"
            f"  heads: cfg#num_attention_heads\n  value_bytes: 2 B\n{inputs}"
            f"assumptions:\n  value_bytes: BF16\ncompute:\n  head_dim: hidden / heads\n"
            f"  per_token: 2 * layers * kv * head_dim * value_bytes / token\n  total: {step}\n")


def timed(cmd: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True)
        best = min(best, time.perf_counter() - start)
        if done.returncode != 0:  # the generated ledgers hold no drift: anything else is a failure
            sys.exit(f"{' '.join(cmd)} failed:\n{done.stdout.decode()[-2000:]}{done.stderr.decode()[-2000:]}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, action="append", help="number of claims (repeatable)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    verify = [sys.executable, "-m", "workings", "verify", "--quiet"]
    repo = Path(__file__).resolve().parent.parent
    baseline = timed([sys.executable, "-c", "import yaml, pint"], args.runs)
    print(f"baseline (python + import yaml, pint): {baseline:6.2f} s")
    with tempfile.TemporaryDirectory() as out:
        repo_time = timed(verify + ["--root", str(repo), "--json", f"{out}/repo.json"], args.runs)
    print(f"verify on this repo's ledger:          {repo_time:6.2f} s  ({repo_time - baseline:+.2f} s over baseline)")
    for n in args.n or [1000, 10000]:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            make_ledger(root, n)
            seconds = timed(verify + ["--root", str(root)], args.runs)
        print(f"verify on {n:>6,} synthetic claims:     {seconds:6.2f} s  ({seconds / n * 1e3:.3f} ms/claim)")


if __name__ == "__main__":
    main()
