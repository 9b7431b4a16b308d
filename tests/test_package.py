"""The public library API and the package as a user installs it: a wheel in a fresh virtual
environment verifies this repository's ledger, with its data files, type marker and licence."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import workings
from tests.conftest import PER_TOKEN

REPO = Path(__file__).resolve().parents[1]


def test_verify_is_the_library_call_and_its_types_are_public(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("196,608", "196,680"))
    report = workings.verify(tmp_ledger.root)
    assert isinstance(report, workings.Report)
    claim = report.claim("kv/per-token")
    assert isinstance(claim, workings.ClaimResult)
    assert (claim.status, claim.comparison.printed, report.exit_code) == ("drift", "196,680 B/token", 1)
    assert isinstance(claim.comparison, workings.Comparison) and isinstance(claim.result, workings.Quantity)
    assert str(tmp_ledger.root) != "." and workings.verify(str(tmp_ledger.root)).summary["drift"] == 2
    for name in workings.__all__:
        assert hasattr(workings, name), name


def test_importing_the_package_loads_no_units_registry_or_network_library():
    code = "import sys, workings; print(sorted(m for m in ('pint', 'requests', 'huggingface_hub', 'torch', " \
           "'jinja2') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(REPO)],
                   check=True, capture_output=True)
    (built,) = dist.glob("workings-*.whl")
    return built


def test_the_wheel_carries_its_data_licence_and_metadata(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("workings/units.txt", "workings/py.typed", "workings/templates/base.html",
                   "workings/static/style.css"):
        assert needed in names, needed
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata and "Classifier: Typing :: Typed" in metadata


def test_the_wheel_installs_in_a_fresh_venv_and_verifies_this_repository(wheel, tmp_path):
    venv = tmp_path / "venv"
    # the system's site-packages supply the dependencies (no download); the wheel itself is installed
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(wheel)], check=True,
                   capture_output=True)
    ledger = tmp_path / "ledger"
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO / folder, ledger / folder)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([str(python), "-c", "import workings; print(workings.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True, env=env).stdout
    assert where.startswith(str(venv)), f"the test must run the installed wheel, not {where}"
    done = subprocess.run([str(venv / "bin" / "workings"), "verify", "-q"], cwd=ledger, capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " claims: " in done.stdout.splitlines()[-1]
    assert (ledger / "reports" / "ledger.json").is_file()
