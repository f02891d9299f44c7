"""What each encoder runtime costs in retrieval quality: SciFact nDCG@10, measured by
``python bench/bench_encode.py --ndcg`` (an ``import-beir`` and an ``eval`` per runtime).

The bench writes ``scifact_ndcg.json`` in the machine's calibration folder
(``workbench.embedding.calibration.machine_calibration_dir``)::

    {"<model>": {"<runtime>-<precision>": {"dense": 0.6730, "hybrid": 0.7188,
                                            "measured_at": "2026-11-25T17:05:00+00:00"}}}

Nothing here measures or estimates: a runtime without an entry was not measured, and the
reader says how to measure it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from workbench.embedding.calibration import machine_calibration_dir
from workbench.embedding.runtimes import TORCH_FP32, runtime_key

QUALITY_FILE = "scifact_ndcg.json"
MEASURE_COMMAND = "python bench/bench_encode.py --ndcg"
FP32 = runtime_key(*TORCH_FP32)


@dataclass(frozen=True)
class RuntimeQuality:
    """SciFact nDCG@10 of one model on one runtime, and the change from torch fp32's (None when
    torch fp32 was not measured)."""

    dense_ndcg10: float
    hybrid_ndcg10: float
    dense_delta: float | None
    hybrid_delta: float | None
    measured_at: str


def quality_path(folder: Path | None = None) -> Path:
    return (folder or machine_calibration_dir()) / QUALITY_FILE


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def runtime_quality(model: str, folder: Path | None = None) -> dict[str, RuntimeQuality]:
    """Each measured runtime key (``openvino-bf16``) of ``model`` and its SciFact nDCG@10."""
    entries = _read(quality_path(folder)).get(model)
    if not isinstance(entries, dict):
        return {}
    valid = {key: entry for key, entry in entries.items()
             if isinstance(entry, dict) and all(isinstance(entry.get(k), (int, float)) for k in ("dense", "hybrid"))}
    base = valid.get(FP32)
    return {key: RuntimeQuality(
        float(entry["dense"]), float(entry["hybrid"]),
        None if base is None else round(float(entry["dense"]) - float(base["dense"]), 4),
        None if base is None else round(float(entry["hybrid"]) - float(base["hybrid"]), 4),
        str(entry.get("measured_at", ""))) for key, entry in valid.items()}


def record_quality(model: str, runtime: str, dense: float, hybrid: float, folder: Path | None = None) -> Path:
    """Write one measured runtime's SciFact nDCG@10 (what the bench calls); returns the file."""
    path = quality_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _read(path)
    data.setdefault(model, {})[runtime] = {"dense": round(float(dense), 4), "hybrid": round(float(hybrid), 4),
                                           "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    os.replace(temporary, path)
    return path
