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


LANES_ENV = "WORKBENCH_ENCODER_LANES"


def encoder_lanes() -> int:
    """How many texts an exported encoder runs at once, each on one core (``$WORKBENCH_ENCODER_LANES``,
    default one per core this process may use).

    One single-threaded forward pass per core beats one pass split across the cores: on a 2-core
    AMD EPYC without VNNI, all-MiniLM-L6-v2 in ONNX Runtime fp32 encoded 20.2 SciFact texts/s on two
    one-text lanes against 11.4 on one two-thread session of 32-text batches (one run): each core keeps one
    text's activations in its own cache and no operator waits for the other core.
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    asked = os.environ.get(LANES_ENV, "").strip()
    if not asked:
        return max(1, usable)
    if not asked.isdigit() or int(asked) < 1:
        raise ValueError(
            f"{LANES_ENV}={asked!r} is not a whole number of lanes >= 1; unset it for the default, "
            f"one lane per usable core ({usable} here)"
        )
    return int(asked)
