"""Measurement records without torch: validation, the CPU/GPU label, agreement, atomic writes."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from workings.loader import load_ledger
from workings.measurements import Device, Measurement, MeasurementError, Software, Value, beside, dump, write

CPU = Device(type="cpu", name="AMD EPYC", memory_bytes=25 * 2**30, allocator="storage")
GPU = Device(type="cuda", name="NVIDIA H100 80GB HBM3", memory_bytes=85_029_158_912, allocator="cuda-caching")


def load_measurements(root):
    """The measurements as verify reads them: the loader's walk of ledger/measurements."""
    (root / "claims").mkdir(exist_ok=True)
    ledger = load_ledger(root)
    return ledger.measurements, ledger.problems


def measurement(**changes) -> Measurement:
    base = Measurement(
        claim="kv/per-token", probe="kv-bytes", measures="per_token",
        result=Value(value=Fraction(196_608), unit="B/token"), estimate=Value(value=Fraction(196_608), unit="B/token"),
        relation="equal", tolerance=Fraction(0), device=CPU, software=Software(torch="2.13.0+cpu", python="3.11.7"),
        command="workings probe kv/per-token --device cpu", date="2026-11-29",
        samples=({"tokens": 16, "requested_bytes": 3_145_728, "measured_bytes": 3_145_728, "rounding_bytes": 0},
                 {"tokens": 32, "requested_bytes": 6_291_456, "measured_bytes": 6_291_456, "rounding_bytes": 0}),
        details={"fixed_bytes": "0"})
    return replace(base, **changes)


def test_round_trip_through_the_file_format(tmp_path):
    m = measurement()
    path = write(m, tmp_path)
    assert path == tmp_path / "ledger/measurements/kv/per-token--cpu--2026-11-29.yaml"
    found, problems = load_measurements(tmp_path)
    assert problems == [] and found == [m]
    assert path.read_bytes() == dump(m)  # deterministic bytes, sorted keys
    assert path.read_text().startswith("claim: kv/per-token\ncommand: ")


def test_a_cpu_run_cannot_read_as_a_gpu_measurement():
    m = measurement()
    assert not m.device.is_gpu and m.device.label == "CPU (not a GPU measurement)" and m.device.slug == "cpu"
    with pytest.raises(MeasurementError, match="must not read as a GPU measurement"):
        measurement(software=Software(torch="2.13.0", python="3.11.7", cuda="12.8", driver="570.1"))
    with pytest.raises(MeasurementError, match="a cpu measurement uses allocator storage or budget"):
        Device(type="cpu", name="H100", memory_bytes=1, allocator="cuda-caching")
    with pytest.raises(MeasurementError, match="must record the CUDA version"):
        measurement(device=GPU)
    gpu = measurement(device=GPU, software=Software(torch="2.13.0", python="3.11.7", cuda="12.8", driver="570.1"),
                      command="workings probe kv/per-token --device cuda")
    assert gpu.device.label == "GPU (NVIDIA H100 80GB HBM3)"
    assert gpu.filename == "kv/per-token--cuda-nvidia-h100-80gb-hbm3--2026-11-29.yaml"


def test_a_fit_against_a_stated_budget_says_nothing_was_allocated():
    """An outside audit: a CPU fit run against a stated budget (no tensor allocated, device meta) was shown as
    "measured ... on CPU", as if memory had been taken."""
    budget = Device(type="cpu", name="AMD EPYC", memory_bytes=1, allocator="budget")
    assert budget.label == "CPU against a stated budget, nothing allocated (not a GPU measurement)"
    assert Device(type="cpu", name="AMD EPYC", memory_bytes=1, allocator="storage").label == "CPU (not a GPU measurement)"


def test_a_file_whose_name_claims_another_device_is_refused_with_its_place(tmp_path):
    m = measurement()
    path = write(m, tmp_path)
    path.rename(path.with_name("per-token--cuda-nvidia-h100--2026-11-29.yaml"))
    found, problems = load_measurements(tmp_path)
    assert found == []
    assert [str(p) for p in problems] == [
        "ledger/measurements/kv/per-token--cuda-nvidia-h100--2026-11-29.yaml:1: file name must be "
        "'ledger/measurements/kv/per-token--cpu--2026-11-29.yaml': the claim, device and date it holds"]


def test_errors_name_the_file_line_and_key(tmp_path):
    path = write(measurement(), tmp_path)
    text = path.read_text().replace("  type: cpu", "  type: tpu").replace("tolerance: '0'", "tolerance: '0'\nextra: 1")
    path.write_text(text)
    _, problems = load_measurements(tmp_path)
    line = text.splitlines().index("extra: 1") + 1
    assert [str(p) for p in problems] == [
        f"ledger/measurements/kv/per-token--cpu--2026-11-29.yaml:{line}: extra: unknown key (expected one of: "
        "claim, command, date, details, device, estimate, format, measures, probe, relation, result, samples, "
        "software, tolerance)"]
    path.write_text(text.replace("extra: 1\n", ""))
    _, problems = load_measurements(tmp_path)
    line = text.splitlines().index("  type: tpu") + 1
    assert [str(p) for p in problems] == [
        f"ledger/measurements/kv/per-token--cpu--2026-11-29.yaml:{line}: device.type: expected one of cpu, cuda, "
        "got 'tpu'"]


def test_write_never_replaces_a_different_measurement_silently(tmp_path):
    write(measurement(), tmp_path)
    write(measurement(command="workings probe --device cpu"), tmp_path)  # same result, other spelling: kept
    with pytest.raises(MeasurementError, match="exists with a different measurement"):
        write(measurement(result=Value(value=Fraction(196_609), unit="B/token")), tmp_path)
    path = write(measurement(result=Value(value=Fraction(196_609), unit="B/token")), tmp_path, replace=True)
    assert "value: '196609'" in path.read_text()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left behind


def test_agreement_for_equal_and_bound_relations():
    assert measurement().agreement().text == "exactly as estimated"
    off = measurement(result=Value(value=Fraction(3, 1), unit=""), estimate=Value(value=Fraction(32, 9), unit=""))
    assert not off.agreement().holds and off.agreement().text == "15.62% below the estimate"
    near = replace(off, probe="quant", result=Value(value=Fraction(36, 10), unit=""), tolerance=Fraction(5, 100))
    assert near.agreement().holds and near.agreement().text == "1.25% above the estimate (within 5%)"
    fit = measurement(probe="fit", relation="at-most", result=Value(value=Fraction(250_000), unit="token"),
                      estimate=Value(value=Fraction(286_720), unit="token"))
    assert fit.agreement().holds and fit.agreement().text == "within the bound (12.81% below it)"
    over = replace(fit, result=Value(value=Fraction(300_000), unit="token"))
    assert not over.agreement().holds and over.agreement().text == "exceeds the bound by 4.63%"


def test_beside_shows_the_device_and_flags_a_stale_estimate():
    from workings.report import Quantity, StepResult

    def claim_result(value):
        step = StepResult(name="per_token", expression="...", result=Quantity(value=Fraction(value), unit="B/token",
                                                                              display=f"{value:,} B/token"))
        return type("ClaimResult", (), {"steps": (step,)})()

    view = beside(measurement(), claim_result(196_608))
    assert view.to_dict()["device"] == "CPU (not a GPU measurement)" and view.holds and view.stale is None
    stale = beside(measurement(), claim_result(98_304))
    assert not stale.holds and stale.stale.startswith("the claim now computes 98,304 B/token")


def test_a_record_cannot_loosen_its_probe_s_comparison():
    import pytest

    from workings.measurements import MeasurementError

    with pytest.raises(MeasurementError, match="a kv-bytes measurement must match exactly"):
        measurement(tolerance=Fraction(1))
    with pytest.raises(MeasurementError, match="compared as 'equal', not 'at-most'"):
        measurement(relation="at-most")
