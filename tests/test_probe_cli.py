"""``workings probe`` end to end on ledgers the tests write, and the rule that verify never needs torch."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from workings.cli import main

FIT = """\
said: "That leaves room for about 286,000 tokens of BF16 cache."
figure: 286,000 token
label: bound
round: floor
inputs:
  per_token: claim:kv/per-token
  memory: 80 GiB
  weights: 27.5 GiB
assumptions:
  memory: An H100 SXM has 80 GB; the text counts it as 80 GiB.
  weights: The weights take 27.5 GiB.
compute:
  tokens: (memory - weights) / per_token
probe:
  kind: fit
  layers: claim:kv/per-token#layers
  kv_heads: claim:kv/per-token#kv_heads
  head_dim: claim:kv/per-token#head_dim
  weights: weights
  memory: memory
"""

QUANT = """\
said: "A 4-bit format with scales makes it about 3.6 times smaller."
figure: "3.6"
label: estimate
within: 5%
inputs:
  bf16: 2 B
  packed: 0.5 B
  scale: 2 B
  group: 32
assumptions:
  bf16: BF16 takes 2 bytes a value.
  packed: 4 bits a value.
  scale: One FP16 scale...
  group: ...for each 32 values.
compute:
  ratio: bf16 / (packed + scale / group)
probe: {kind: quant, format: int4, group: 32, scale_dtype: float16, layers: 2, kv_heads: 8, head_dim: 128}
"""

FP8 = """\
said: "FP8 halves the cache."
figure: "2"
label: derived
inputs:
  bf16: 2 B
  fp8: 1 B
assumptions:
  bf16: BF16 takes 2 bytes a value.
  fp8: FP8 takes 1 byte a value.
compute:
  ratio: bf16 / fp8
probe: {kind: quant, format: fp8, layers: 2, kv_heads: 8, head_dim: 128}
"""


def run(*args):
    return CliRunner().invoke(main, ["probe", *map(str, args)], catch_exceptions=False)


def test_verify_and_render_show_a_measurement_without_importing_torch(tmp_ledger):
    from fractions import Fraction

    from tests.conftest import PER_TOKEN_SHAPE
    from workings.measurements import Device, Measurement, Software, Value, write

    tmp_ledger.qwen()
    write(Measurement(
        claim="kv/per-token", probe="kv-bytes", measures="per_token", relation="equal", tolerance=Fraction(0),
        result=Value(value=Fraction(196_608), unit="B/token"), estimate=Value(value=Fraction(196_608), unit="B/token"),
        device=Device(type="cpu", name="test CPU", memory_bytes=2**30, allocator="storage"),
        software=Software(torch="2.13.0+cpu", python="3.11"), command="workings probe kv/per-token --device cpu",
        date="2026-11-29", samples=({"tokens": 1, "measured_bytes": 196_608}, {"tokens": 2, "measured_bytes": 393_216}),
        details={"shape": PER_TOKEN_SHAPE}), tmp_ledger.root)
    code = ("import sys; from pathlib import Path; from workings.engine import verify; "
            "from workings.render import render_site; import workings.cli; "
            f"root = Path({str(tmp_ledger.root)!r}); report = verify(root); "
            "render_site(report, root, root / 'site'); print(report.exit_code, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "0 False\n"
    page = (tmp_ledger.root / "site" / "claims" / "kv--per-token.html").read_text()
    assert "kv-bytes</b> on CPU (not a GPU measurement), 2026-11-29: measured" in page
    assert "against the estimate <span class=\"num\">196,608 B/token</span>" in page


@pytest.mark.torch
def test_probe_records_exactly_196608_bytes_per_token_on_cpu(tmp_ledger):
    pytest.importorskip("torch")
    tmp_ledger.qwen()
    result = run("kv/per-token", "--root", tmp_ledger.root, "--device", "cpu")
    assert result.exit_code == 0, result.output
    path = tmp_ledger.root / "ledger/measurements/kv/per-token--cpu--"
    files = list(path.parent.glob(path.name + "*.yaml"))
    assert len(files) == 1
    assert result.output.splitlines()[0] == (
        "kv/per-token: kv-bytes on CPU (not a GPU measurement): measured 196,608 B/token, "
        "estimate 196,608 B/token: exactly as estimated")
    text = files[0].read_text()
    assert f"command: workings probe kv/per-token --root {tmp_ledger.root} --device cpu\n" in text
    assert "  type: cpu\n" in text and "  cuda: null\n" in text and "result:\n  unit: B/token\n  value: '196608'\n" in text
    report = tmp_ledger.verify()
    assert report.exit_code == 0 and report.problems == ()
    (m,) = report.claim("kv/per-token").measurements
    assert m.result == "196,608 B/token" and not m.is_gpu and m.device_type == "cpu" and m.holds


@pytest.mark.torch
def test_fit_against_the_claims_memory_and_a_stated_budget(tmp_ledger):
    pytest.importorskip("torch")
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/h100-fit", FIT)
    result = run("kv/h100-fit", "--root", tmp_ledger.root)
    assert result.exit_code == 0, result.output
    assert "measured 286,720 token, estimate 286,720 token: at the bound" in result.output
    again = run("kv/h100-fit", "--root", tmp_ledger.root, "--budget", "40 GiB")
    assert again.exit_code == 2 and "exists with a different measurement" in again.output
    again = run("kv/h100-fit", "--root", tmp_ledger.root, "--budget", "40 GiB", "--replace")
    # the claim's own steps with memory = 40 GiB: (40 - 27.5) GiB / 196,608 B per token, rounded down
    assert "measured 68,266 token, estimate 68,266 token: at the bound" in again.output


@pytest.mark.torch
def test_quant_claims_measure_the_packing(tmp_ledger):
    pytest.importorskip("torch")
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/int4", QUANT)
    tmp_ledger.claim("kv/fp8", FP8)
    result = run("kv/int4", "kv/fp8", "--root", tmp_ledger.root)
    assert result.exit_code == 0, result.output
    assert "kv/int4: quant on CPU (not a GPU measurement): measured 32/9 (= 3.556), estimate 32/9 (= 3.556)" in result.output
    assert "kv/fp8: quant on CPU (not a GPU measurement): measured 2, estimate 2: exactly as estimated" in result.output


@pytest.mark.torch
def test_a_bad_probe_key_names_its_place_and_other_claims_still_run(tmp_ledger):
    pytest.importorskip("torch")
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/fp8", FP8.replace("format: fp8", "format: fp6"))
    result = run("kv/fp8", "kv/per-token", "--root", tmp_ledger.root)
    assert result.exit_code == 2
    assert ("error: claim 'kv/fp8': its record is invalid (claims/kv/fp8.yaml:12: probe.format: expected one of "
            "fp8, int4, fp4, got 'fp6')") in result.output
    assert "kv/per-token: kv-bytes on CPU" in result.output


@pytest.mark.torch
def test_a_claim_with_nothing_to_probe_is_refused(tmp_ledger):
    pytest.importorskip("torch")
    tmp_ledger.qwen()
    result = run("kv/full-window", "--root", tmp_ledger.root)
    assert result.exit_code == 2 and "has no probe: key" in result.output


@pytest.mark.torch
@pytest.mark.skipif(sys.platform != "linux", reason="checks the message of a CPU-only machine")
def test_cuda_without_a_gpu_says_so_and_writes_nothing(tmp_ledger):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: this checks the refusal on a machine without one")
    tmp_ledger.qwen()
    result = run("kv/per-token", "--root", tmp_ledger.root, "--device", "cuda")
    assert result.exit_code == 2 and "torch sees no CUDA GPU here" in result.output
    assert not (tmp_ledger.root / "ledger/measurements").exists()


@pytest.mark.torch
@pytest.mark.cuda
def test_probe_on_cuda_records_a_gpu_measurement(tmp_ledger):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU; torch sees none here")
    tmp_ledger.qwen()
    result = run("kv/per-token", "--root", tmp_ledger.root, "--device", "cuda")
    assert result.exit_code == 0, result.output
    assert "kv-bytes on GPU (" in result.output and "measured 196,608 B/token" in result.output
