"""What a probe ran on: the device, its memory, and the versions of torch, CUDA and the driver."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess

import torch

from ..measurements import Device, Software
from ..probespec import ProbeError


def resolve(device: str) -> torch.device:
    """``cpu`` or ``cuda`` (``cuda:N``); refuses cuda where torch sees no GPU, rather than falling back."""
    try:
        dev = torch.device(device)
    except RuntimeError as exc:
        raise ProbeError(f"device must be cpu or cuda, got {device!r}") from exc
    if dev.type not in ("cpu", "cuda"):
        raise ProbeError(f"device must be cpu or cuda, got {device!r}")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ProbeError("--device cuda: torch sees no CUDA GPU here "
                           f"(torch {torch.__version__}, CUDA {torch.version.cuda})")
    return dev


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _cpu_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux
        return 1


def driver_version() -> str | None:
    """The NVIDIA driver version, from nvidia-smi; None where it cannot be read."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().splitlines()[0].strip() if out.strip() else None


def describe(dev: torch.device, *, allocator: str | None = None,
             memory_bytes: int | None = None) -> tuple[Device, Software]:
    """The Device and Software records for ``dev``.

    A CPU run records no CUDA or driver version even where torch was built with CUDA: those
    describe a GPU, and this measurement did not use one.
    """
    python = platform.python_version()
    if dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        device = Device(type="cuda", name=str(props.name), memory_bytes=int(props.total_memory),
                        allocator="cuda-caching")
        software = Software(torch=str(torch.__version__), python=python, cuda=str(torch.version.cuda),
                            driver=driver_version())
        return device, software
    device = Device(type="cpu", name=_cpu_name(), memory_bytes=memory_bytes or _cpu_memory(),
                    allocator=allocator or "storage")
    return device, Software(torch=str(torch.__version__), python=python)
