"""Measurements appear beside estimates in the Report, computed once; a stray one is a problem."""

from __future__ import annotations

from tests.conftest import PER_TOKEN, PER_TOKEN_SHAPE

MEASUREMENT = """\
claim: {claim}
command: workings probe kv/per-token --device cpu
date: '2026-11-29'
details: {{shape: {shape}}}
device: {{allocator: storage, memory_bytes: 1000, name: test cpu, type: cpu}}
estimate: {{unit: B/token, value: '{estimate}'}}
format: 1
measures: per_token
probe: kv-bytes
relation: equal
result: {{unit: B/token, value: '196608'}}
samples: [{{tokens: 1, requested_bytes: 196608, measured_bytes: 196608, rounding_bytes: 0}}, {{tokens: 2, requested_bytes: 393216, measured_bytes: 393216, rounding_bytes: 0}}]
software: {{cuda: null, driver: null, python: 3.11.7, torch: 2.13.0+cpu}}
tolerance: '0'
"""

SHAPE = "{" + ", ".join(f"{k}: {v}" for k, v in PER_TOKEN_SHAPE.items()) + "}"


def write(tmp_ledger, claim="kv/per-token", estimate="196608"):
    folder = tmp_ledger.root / "ledger" / "measurements" / "kv"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{claim.split('/')[-1]}--cpu--2026-11-29.yaml").write_text(
        MEASUREMENT.format(claim=claim, estimate=estimate, shape=SHAPE))


def test_a_cpu_measurement_is_shown_beside_the_estimate_and_never_as_gpu(tmp_ledger):
    tmp_ledger.qwen()
    write(tmp_ledger)
    report = tmp_ledger.verify()
    (m,) = report.claim("kv/per-token").measurements
    assert (m.device, m.is_gpu, m.holds, m.agreement, m.stale) == (
        "CPU (not a GPU measurement)", False, True, "exactly as estimated", None)
    assert report.to_dict()["claims"][1]["measurements"][0]["device_type"] == "cpu"


def test_a_measurement_of_an_old_estimate_is_stale(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("value_bytes: 2 B", "value_bytes: 1 B").replace("196,608", "98,304"))
    write(tmp_ledger)
    (m,) = tmp_ledger.verify().claim("kv/per-token").measurements
    assert not m.holds and m.stale.startswith("the claim now computes 98,304 B/token")


def test_a_measurement_of_no_claim_is_a_problem(tmp_ledger):
    tmp_ledger.qwen()
    write(tmp_ledger, claim="kv/gone")
    report = tmp_ledger.verify()
    assert [str(p) for p in report.problems] == [
        "ledger/measurements/kv/gone--cpu--2026-11-29.yaml:1: claim: no claim 'kv/gone' in claims/ (renamed or removed?)"]
    assert report.exit_code == 2
