#!/usr/bin/env bash
# What a pull request moves: the base commit's ledger, verified by the base's own code in a separate
# virtual environment, held against this checkout's report (reports/ledger.json, written by the
# workflow's verify step). Fails on the moves --fail-on names (default verified->*).
#   bash scripts/pr-moves.sh BASE_SHA [--fail-on MOVES]
set -euo pipefail
cd "$(dirname "$0")/.."
base_sha=$1
shift
work=$(mktemp -d)
cleanup() { git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
git fetch --no-tags --depth=1 origin "$base_sha"
git worktree add --detach "$work/base" "$base_sha"
python -m venv --system-site-packages "$work/venv"  # reuse what is installed; pip adds what the base needs
"$work/venv/bin/python" -m pip install -q "$work/base"
set +e
"$work/venv/bin/workings" verify --root "$work/base" --json "$work/base.json" -q >/dev/null
code=$?
set -e
if [ "$code" -gt 1 ]; then
  echo "the base ledger could not be verified (exit $code): nothing to compare against" >&2
  exit 2
fi
workings diff "$work/base.json" reports/ledger.json "$@"
