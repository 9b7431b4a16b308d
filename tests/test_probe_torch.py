"""The probes on real torch tensors (the probe extra); CUDA paths run only where a GPU is."""

from __future__ import annotations

from fractions import Fraction

import pytest

torch = pytest.importorskip("torch")

from workings.probe.fit import bisect_max, probe_fit  # noqa: E402
from workings.probe.kv import decode_step, probe_kv_bytes  # noqa: E402
from workings.probe.quant import pack_int4, probe_quant, to_fp8, unpack_int4  # noqa: E402
from workings.probe.shapes import KVShape  # noqa: E402
from workings.probespec import ProbeError  # noqa: E402

pytestmark = pytest.mark.torch
CPU = torch.device("cpu")
# Qwen2.5-14B-Instruct-1M: 48 layers, 8 KV heads, head size 5,120 / 40 = 128, BF16 cache.
QWEN14B = KVShape(layers=48, kv_heads=8, head_dim=128, heads=40, dtype="bfloat16")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU; torch sees none here")


def test_kv_bytes_measures_the_formula_for_qwen25_14b():
    result = probe_kv_bytes(QWEN14B, CPU, tokens=(1, 2, 3, 8))
    assert result.per_token == 196_608
    assert result.fit.fixed == 0 and result.fit.exact
    assert [s.measured for s in result.samples] == [196_608 * n for n in (1, 2, 3, 8)]
    assert all(s.rounding == 0 for s in result.samples)  # CPU storage has no allocator rounding
    assert result.decode_heads == 40  # the decode step ran as grouped-query attention


def test_kv_bytes_for_standard_multi_head_attention_in_float32():
    shape = KVShape(layers=3, kv_heads=4, head_dim=16, dtype="float32")
    result = probe_kv_bytes(shape, CPU, tokens=(5, 7))
    assert result.per_token == 2 * 3 * 4 * 16 * 4 == shape.formula_bytes_per_token()
    assert result.decode_heads == 4


def test_decode_step_reads_the_cache_in_place():
    shape = KVShape(layers=2, kv_heads=2, head_dim=8, heads=6)
    cache = [torch.randn(1, 2, 9, 8, dtype=torch.bfloat16) for _ in range(4)]
    decode_step(cache, shape)  # raises if attention cannot read the layout or gives non-finite values
    with pytest.raises(RuntimeError):
        decode_step([t.transpose(1, 2) for t in cache], shape)


@pytest.mark.parametrize("start", [1, 3, 1000, 5000])
@pytest.mark.parametrize("budget", [4096, 65_536, 1 << 20])
def test_fit_finds_the_most_tokens_under_a_budget(budget, start):
    shape = KVShape(layers=2, kv_heads=2, head_dim=16)  # 256 B per token
    weights = 1000
    result = probe_fit(shape, CPU, weights_bytes=weights, budget=budget, start=start)
    assert result.max_tokens == (budget - weights) // 256
    assert result.tensor_device == "cpu"  # small budgets are allocated for real
    fits = {t.tokens: t.fits for t in result.trials}
    assert fits[result.max_tokens] and not fits[result.max_tokens + 1]


def test_fit_on_an_80_gib_budget_counts_on_meta_and_gives_the_h100_bound():
    gib = 1 << 30
    result = probe_fit(QWEN14B, CPU, weights_bytes=55 * gib // 2, budget=80 * gib)
    assert result.tensor_device == "meta"
    assert result.max_tokens == 286_720  # (80 - 27.5) GiB / 196,608 B per token: "about 286,000 tokens"


def test_fit_refuses_weights_that_do_not_fit():
    with pytest.raises(ProbeError, match="weights alone"):
        probe_fit(KVShape(layers=1, kv_heads=1, head_dim=2), CPU, weights_bytes=2000, budget=1000)


@pytest.mark.parametrize("threshold", [0, 1, 2, 17, 1023, 1024, 99_999])
@pytest.mark.parametrize("start", [1, 2, 1024, 50_000])
def test_bisect_max_finds_the_threshold(threshold, start):
    found, trials = bisect_max(lambda n: n <= threshold, start)
    assert found == threshold
    assert len(trials) <= 2 * max(threshold, start).bit_length() + 3


def test_quant_ratios_match_the_packing():
    result = probe_quant(QWEN14B, CPU, tokens=16)
    assert result.fp8_ratio == 2  # "FP8 halves the cache"
    # 32 nibbles = 16 bytes plus one FP16 scale = 18 bytes per 32 values, against 64 bytes in BF16
    assert result.int4_ratio == Fraction(64, 18)
    assert result.int4_data_bytes == result.baseline_bytes // 4
    assert result.int4_scale_bytes == result.baseline_bytes // 32
    assert result.fp8_error < 0.07 and result.int4_error < 0.15  # the values survive, roughly


def test_quant_ratio_follows_group_and_scale_dtype():
    shape = KVShape(layers=1, kv_heads=2, head_dim=64)
    assert probe_quant(shape, CPU, tokens=4, group=16).int4_ratio == Fraction(2, Fraction(1, 2) + Fraction(2, 16))
    assert probe_quant(shape, CPU, tokens=4, group=64, scale_dtype="float32").int4_ratio == Fraction(2, Fraction(1, 2) + Fraction(4, 64))


def test_int4_packing_is_real_nibbles_and_round_trips():
    x = torch.tensor([[-7.0, -1.0, 0.0, 1.0, 2.0, 3.0, 7.0, -4.0]], dtype=torch.bfloat16)
    packed = pack_int4(x, group=8)
    assert packed.data.dtype == torch.uint8 and packed.data.shape == (1, 4)
    assert packed.scales.dtype == torch.float16 and packed.scales.shape == (1, 1)
    assert float(packed.scales[0, 0]) == 1.0  # absmax 7 / 7
    assert packed.data[0, 0].item() == (-7 + 8) | ((-1 + 8) << 4)
    assert torch.equal(unpack_int4(packed), x)


def test_fp8_is_one_byte_e4m3():
    y = to_fp8(torch.tensor([1.0, 1000.0, -0.5]))
    assert y.dtype == torch.float8_e4m3fn and y.element_size() == 1
    assert y.float().tolist() == [1.0, 448.0, -0.5]  # clamped to the format's range


@needs_cuda
@pytest.mark.cuda
def test_kv_bytes_on_cuda_reports_allocator_deltas():
    result = probe_kv_bytes(QWEN14B, torch.device("cuda"))
    assert result.requested_fit.per_token == 196_608
    assert all(s.measured >= s.requested for s in result.samples)


@needs_cuda
@pytest.mark.cuda
def test_fit_on_cuda_stays_under_the_formula_bound():
    dev = torch.device("cuda")
    total = torch.cuda.get_device_properties(0).total_memory
    shape = KVShape(layers=4, kv_heads=8, head_dim=128)
    result = probe_fit(shape, dev, weights_bytes=total // 2)
    assert 0 < result.max_tokens <= (total - total // 2) // shape.formula_bytes_per_token()


def test_fp4_e2m1_codes_with_fp8_scales_round_trip_and_give_the_nvfp4_ratio():
    x = torch.tensor([[6.0, -3.0, 0.5, -1.0, 1.5, 4.0, -6.0, 2.0]])
    packed = pack_int4(x, group=8, scale_dtype=torch.float8_e4m3fn, element="e2m1")
    assert packed.scales.dtype == torch.float8_e4m3fn and float(packed.scales.float()[0, 0]) == 1.0
    assert packed.data[0, 0].item() == 0b0111 | (0b1101 << 4)  # +6 is index 7; -3 is sign 1, index 5
    assert torch.equal(unpack_int4(packed, torch.float32), x)
    # E2M1 values (4 bits) with one E4M3 scale (8 bits) per 16 values: 4.5 bits against BF16's 16
    result = probe_quant(QWEN14B, CPU, tokens=8, group=16, scale_dtype="float8_e4m3fn", element="e2m1")
    assert result.int4_ratio == Fraction(16, Fraction(9, 2)) == Fraction(32, 9)
    assert result.int4_error < 0.2
