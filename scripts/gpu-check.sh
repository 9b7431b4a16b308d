#!/usr/bin/env bash
# Run every probe on one CUDA GPU and leave the measurement files in ledger/measurements/.
#
#   bash scripts/gpu-check.sh            # the ledger in this repository
#   bash scripts/gpu-check.sh --replace  # extra options go to `workings probe`
#
# Needs a CUDA build of torch 2.13.0 (the probe extra pins the version; the CPU wheel cannot see a GPU):
#   pip install -e '.[probe]'
#   pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/<cuda tag, e.g. cu128>
# Takes well under 3 minutes on one H100/H200 (the whole script is capped at 170 s). Every command it
# runs is printed first, exactly, and each measurement file records its own command and versions.
set -euo pipefail
cd "$(dirname "$0")/.."
export CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-0}"  # one GPU: the measurements describe one device
deadline=$((SECONDS + 170))

run() {
  local left=$((deadline - SECONDS))
  if [ "$left" -le 0 ]; then echo "gpu-check: out of time before: $*" >&2; exit 124; fi
  printf '+'; printf ' %q' "$@"; printf '\n'  # exactly what runs, quoted for a shell
  timeout "$left" "$@"
}

# Refuse early, and say why, where torch sees no GPU: a CPU run must never stand in for a GPU check.
run python -c 'import sys, torch
if not torch.cuda.is_available():
    sys.exit(f"gpu-check: torch {torch.__version__} sees no CUDA GPU (CUDA build: {torch.version.cuda}); nothing was measured")
p = torch.cuda.get_device_properties(0)
print(f"gpu-check: {p.name}, {p.total_memory:,} bytes, torch {torch.__version__}, CUDA {torch.version.cuda}")'
command -v nvidia-smi >/dev/null && run nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv

# Every claim with a probe: key, and every per-token claim kv-bytes can measure.
run workings probe --device cuda "$@"
# The CUDA-only tests (skipped on CPU): allocator deltas, the fit search on the real device.
run python -m pytest -q -m cuda -p no:cacheprovider tests/test_probe_torch.py tests/test_probe_cli.py
run workings verify -q
echo "gpu-check: measurement files:"
git status --short --untracked-files=all -- ledger/measurements
