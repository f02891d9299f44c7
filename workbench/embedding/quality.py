"""What an encoder runtime costs in retrieval quality: SciFact nDCG@10 per model and runtime.

``python bench/bench_encode.py --ndcg`` measures it with the project's own ``import-beir`` and
``eval`` (one SciFact collection per runtime) and records it here, beside the speed calibration
(``encoder_calibration.json``) and under the same machine key, because bf16 arithmetic may
round differently on another CPU. The file is ``<home>/encoder_quality.json``::

    {"<machine_id()>": {"<model>": {"<runtime>-<precision>": {
        "dataset": "scifact", "chunks": 11177,
        "ndcg@10": {"dense": 0.6730, "hybrid": 0.7188},
        "vs_torch_fp32": {"dense": 0.0, "hybrid": 0.0},
        "measured": "2026-11-25 17:10"}}}}

``vs_torch_fp32`` is this runtime's nDCG@10 minus torch fp32's on the same data (absent when
fp32 was not measured). Readers (the Documents page, ``models list``) call ``read_quality``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from workbench.embedding.machine import machine_id

QUALITY_FILE = "encoder_quality.json"


def read_quality(home: Path) -> dict:
    """This machine's quality records: model -> runtime key -> record ({} when none)."""
    try:
        data = json.loads((Path(home) / QUALITY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get(machine_id(), {}) if isinstance(data, dict) else {}
    return found if isinstance(found, dict) else {}


def record_quality(home: Path, model: str, runtime_key: str, record: dict) -> Path:
    """Keep ``record`` for ``model`` on ``runtime_key`` (``openvino-bf16``), replacing an older one."""
    path = Path(home) / QUALITY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data.setdefault(machine_id(), {}).setdefault(model, {})[runtime_key] = record
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    os.replace(temporary, path)
    return path
