"""The nDCG cost of each encoder runtime, as bench_encode --ndcg records it for the app to read."""

from __future__ import annotations

import json

from workbench.embedding.calibration import machine_id
from workbench.embedding.quality import QUALITY_FILE, read_quality, record_quality


def test_records_are_kept_per_machine_model_and_runtime(tmp_path):
    assert read_quality(tmp_path) == {}
    fp32 = {"dataset": "scifact", "ndcg@10": {"dense": 0.673, "hybrid": 0.7188}}
    bf16 = {
        "dataset": "scifact",
        "ndcg@10": {"dense": 0.6725, "hybrid": 0.719},
        "vs_torch_fp32": {"dense": -0.0005, "hybrid": 0.0002},
    }
    record_quality(tmp_path, "all-MiniLM-L6-v2", "torch-fp32", fp32)
    record_quality(tmp_path, "all-MiniLM-L6-v2", "openvino-bf16", {"stale": True})
    record_quality(tmp_path, "all-MiniLM-L6-v2", "openvino-bf16", bf16)
    assert read_quality(tmp_path) == {"all-MiniLM-L6-v2": {"torch-fp32": fp32, "openvino-bf16": bf16}}
    assert list(json.loads((tmp_path / QUALITY_FILE).read_text(encoding="utf-8"))) == [machine_id()]


def test_another_machines_or_a_broken_file_reads_as_nothing(tmp_path):
    (tmp_path / QUALITY_FILE).write_text(json.dumps({"another CPU (64 cpus)": {"m": {"torch-fp32": {}}}}))
    assert read_quality(tmp_path) == {}
    (tmp_path / QUALITY_FILE).write_text("{not json")
    assert read_quality(tmp_path) == {}
    record_quality(tmp_path, "m", "onnx-int8", {"ndcg@10": {"dense": 0.66}})  # a broken file is replaced
    assert read_quality(tmp_path) == {"m": {"onnx-int8": {"ndcg@10": {"dense": 0.66}}}}
