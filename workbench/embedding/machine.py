"""Which machine a measurement belongs to: calibration records and quality records are keyed by it."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine_id() -> str:
    """The CPU the numbers belong to: a home moved to another machine calibrates again."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model} ({os.cpu_count()} cpus)"
