"""OpenVINO static int8 (NNCF, per channel) on the suite's tiny model: the quantized graph it
builds, the export cache that keeps it, and auto's acceptance of int8 at its own cosine bar on
texts the quantization never saw."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import numpy as np
import pytest

from workbench.embedding import calibration, static_int8
from workbench.embedding.runtimes import NO_BF16_ENV, cpu_has_bf16, open_runtime

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("nncf") is None or importlib.util.find_spec("openvino") is None,
    reason="openvino int8 needs the openvino and nncf packages",
)


@pytest.fixture(scope="module")
def quantized(tiny_chinese_model_dir, tmp_path_factory):
    """The tiny model opened on openvino int8 in a fresh export cache: (model, embedder, folder)."""
    os.environ["WORKBENCH_EXPORT_CACHE"] = str(tmp_path_factory.mktemp("int8-exports"))
    model = str(tiny_chinese_model_dir)
    opened = open_runtime(model, "openvino", "int8")
    assert opened.note == "" and (opened.runtime, opened.precision) == ("openvino", "int8")
    folders = list(Path(os.environ["WORKBENCH_EXPORT_CACHE"]).glob(f"*/openvino-{static_int8.VARIANT}-v*"))
    assert len(folders) == 1 and (folders[0] / "done").exists()
    return model, opened.embedder, folders[0]


def test_the_graph_is_quantized_per_channel_with_int8_weights(quantized):
    import openvino as ov

    graph = ov.Core().read_model(str(quantized[2] / "model.xml"))
    matmuls = [op for op in graph.get_ops() if op.get_type_name() == "MatMul"]
    kept = [op for op in matmuls if re.fullmatch(static_int8.FEED_FORWARD_OUTPUT, op.get_friendly_name())]
    assert len(kept) == 1  # the tiny model's one layer: its feed-forward output stays fp32
    assert kept[0].input_value(0).get_node().get_type_name() != "FakeQuantize"
    quantized_inputs = [op for op in matmuls if op.input_value(0).get_node().get_type_name() == "FakeQuantize"]
    assert len(quantized_inputs) == len(matmuls) - 1  # every other MatMul's activations are int8
    weights = [op for op in graph.get_ops() if op.get_type_name() == "Constant" and op.get_element_type() == ov.Type.i8]
    assert weights
    for weight in weights:
        (converted,) = [target.get_node() for target in weight.output(0).get_target_inputs()]
        (scaled,) = [target.get_node() for target in converted.output(0).get_target_inputs()]
        # one scale per output channel (row), not one per tensor
        assert list(scaled.input_value(1).get_shape()) == [weight.get_output_shape(0)[0], 1]


def test_int8_vectors_stay_close_to_fp32_on_texts_it_was_not_calibrated_on(quantized):
    model, embedder, _ = quantized
    texts = calibration.calibration_sample(12) + ["混合检索如何融合排名？", "short"]
    assert not set(texts) & set(static_int8.calibration_texts())
    reference = open_runtime(model, "torch", "fp32").embedder.embed(texts)
    vectors = embedder.embed(texts)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(vectors * reference, axis=1))) >= 0.999  # tiny model; seen 0.99999


def test_the_quantized_graph_is_built_once_and_read_from_the_cache(quantized, monkeypatch):
    model, embedder, folder = quantized

    def no_second_quantization(*_args, **_kwargs):
        raise AssertionError("quantized twice")

    monkeypatch.setattr(static_int8, "quantize_openvino", no_second_quantization)
    again = open_runtime(model, "openvino", "int8")
    assert again.note == ""
    texts = ["the export cache keeps the int8 graph", "量化模型只构建一次"]
    assert np.allclose(again.embedder.embed(texts), embedder.embed(texts), atol=1e-6)
    # fp32 and bf16 share the fp32 graph, in another folder: int8 never replaces it
    assert open_runtime(model, "openvino", "fp32").note == ""
    assert (folder.parent / f"openvino-v{folder.name.rsplit('-v', 1)[1]}" / "model.xml").exists()


def test_the_calibration_slice_is_fixed_mixed_and_apart_from_the_measured_sample():
    texts = static_int8.calibration_texts()
    assert texts == static_int8.calibration_texts() and len(texts) == static_int8.CALIBRATION_TEXTS
    assert min(t.count(". ") + t.count("。") for t in texts) == 0 and max(len(t) for t in texts) > 600
    assert any("检索" in t or "合同" in t for t in texts)
    measured = set(calibration._SENTENCES)
    assert not measured & set(static_int8.CALIBRATION_SENTENCES)


def _numbers(texts_per_s: float, cosine: float) -> dict:
    return {"texts_per_s": texts_per_s, "query_ms_p50": 10.0, "min_cosine": cosine}


def test_int8_is_accepted_at_its_own_bar_and_every_refusal_says_why():
    refusal = calibration.refusal
    assert refusal("openvino-int8", _numbers(25, 0.995)) == ""
    assert refusal("openvino-int8", _numbers(25, 0.9899)) == "min cosine 0.9899 to torch fp32, below 0.99"
    # the bar of every other precision stays 0.999
    assert refusal("openvino-bf16", _numbers(25, 0.995)) == "min cosine 0.9950 to torch fp32, below 0.999"
    assert refusal("openvino-fp32", _numbers(15, 0.99999)) == ""
    assert refusal("onnx-int8", {"error": "needs onnxruntime"}) == "cannot run here"
    # a recorded SciFact loss of more than 0.005 nDCG@10 refuses it, whatever the cosine
    assert refusal("openvino-int8", _numbers(25, 0.995), {"vs_torch_fp32": {"dense": -0.004, "hybrid": -0.001}}) == ""
    assert (
        refusal("openvino-int8", _numbers(25, 0.995), {"vs_torch_fp32": {"dense": -0.006, "hybrid": 0.001}})
        == "SciFact nDCG@10 dense -0.0060 against torch fp32, more than 0.005 lost"
    )


def test_auto_picks_int8_only_when_accepted_and_faster():
    def measured(int8_cosine: float, int8_rate: float = 25.0) -> dict:
        return {
            "torch-fp32": _numbers(13.4, 1.0),
            "openvino-fp32": _numbers(15.2, 0.99999),
            "openvino-int8": _numbers(int8_rate, int8_cosine),
            "onnx-int8": _numbers(17.5, 0.904),  # last round's dynamic int8 on this CPU
            "openvino-bf16": {"error": "no bf16"},
        }

    results = measured(0.995)
    assert calibration.choose_measured(results, {}) == "openvino-int8"
    assert results["onnx-int8"]["refused"] == "min cosine 0.9040 to torch fp32, below 0.99"
    assert "refused" not in results["openvino-int8"] and "refused" not in results["openvino-bf16"]
    results = measured(0.985)
    assert calibration.choose_measured(results, {}) == "openvino-fp32"
    assert results["openvino-int8"]["refused"] == "min cosine 0.9850 to torch fp32, below 0.99"
    assert calibration.choose_measured(measured(0.995, int8_rate=14.0), {}) == "openvino-fp32"  # accepted, slower
    lost = {"openvino-int8": {"vs_torch_fp32": {"hybrid": -0.01}}}
    assert calibration.choose_measured(measured(0.995), lost) == "openvino-fp32"
    # torch fp32, the reference, is always a choice
    only = {"torch-fp32": _numbers(13.4, 1.0), "onnx-int8": _numbers(17.5, 0.904)}
    assert calibration.choose_measured(only, {}) == "torch-fp32"


def test_the_no_bf16_emulation_refuses_bf16_whatever_the_cpu(monkeypatch, tmp_path):
    flags = tmp_path / "cpuinfo"
    flags.write_text("flags\t\t: fpu avx2 avx512_bf16 amx_bf16\n", encoding="utf-8")
    assert cpu_has_bf16(flags) is True
    monkeypatch.setenv(NO_BF16_ENV, "1")
    assert cpu_has_bf16(flags) is False


def test_the_runtime_table_shows_why_auto_refused_a_runtime_that_runs():
    from workbench.embedding.runtime_report import rows_from_record, table_cells

    results = {
        "torch-fp32": _numbers(13.4, 1.0),
        "openvino-int8": _numbers(25.0, 0.985),
        "onnx-int8": {"error": "embedding.runtime=onnx needs the 'onnxruntime' package"},
    }
    record = {"chosen": calibration.choose_measured(results, {}), "runtimes": results}
    rows = {row.runtime: row for row in rows_from_record("m", record, "texts_per_s")}
    assert rows["torch-fp32"].chosen and rows["torch-fp32"].refused == ""
    cells = table_cells(rows["openvino-int8"], "texts")
    assert cells["auto refuses it because"] == "min cosine 0.9850 to torch fp32, below 0.99"
    assert cells["texts/s"] == 25.0 and cells["vs torch fp32"] == round(25.0 / 13.4, 2) and cells["auto picks"] == ""
    assert rows["onnx-int8"].unavailable and rows["onnx-int8"].refused == ""
