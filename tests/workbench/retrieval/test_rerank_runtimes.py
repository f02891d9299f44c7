"""Cross-encoder runtimes (rerank.runtime / rerank.precision) on the suite's tiny random-weight
cross-encoder: each runtime's scores against torch fp32's, the trace naming the runtime that
scored, the fallback note, and auto's calibration with its score-agreement check."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from workbench.config import ConfigError, WorkbenchConfig
from workbench.embedding import calibration
from workbench.embedding.runtimes import RUNTIMES, Runtime, cpu_has_bf16
from workbench.retrieval import rerank as rerank_module
from workbench.retrieval import rerank_calibration
from workbench.retrieval.cross_encoder import open_cross_encoder
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.rerank import CrossEncoderReranker, rerank

QUERY = "where do cats sleep"
PASSAGES = [
    "cats sleep in warm sunny places",
    "BM25 keyword search",
    "猫喜欢睡在温暖的地方",
    "a recipe for lemon cake " * 6,
    "dense retrieval with vectors",
]
#: how far each runtime's scores (sigmoid probabilities) may stray from torch fp32's on the tiny model, whose
#: large random weights (initializer_range 0.5) magnify rounding far beyond a trained model's
ATOL = {
    ("torch", "bf16"): 0.1,
    ("openvino", "fp32"): 1e-4,
    ("openvino", "bf16"): 0.1,
    # static int8 quantizes activations too, with scales calibrated on real text: this model's
    # random activations fall outside them (seen: 0.40 off); auto's tau check refuses it then
    ("openvino", "int8"): 0.5,
    ("onnx", "fp32"): 1e-4,
    ("onnx", "int8"): 0.3,
}


@pytest.fixture(scope="module")
def cross_encoder(tiny_cross_encoder_dir, tmp_path_factory) -> str:
    import os

    os.environ["WORKBENCH_EXPORT_CACHE"] = str(tmp_path_factory.mktemp("rerank-exports"))
    return str(tiny_cross_encoder_dir)


def _installed(runtime: str, precision: str) -> bool:
    if precision == "bf16" and cpu_has_bf16() is False:
        return False
    return importlib.util.find_spec(RUNTIMES.get(runtime).package) is not None


def _pairs() -> list[tuple[str, str]]:
    return [(QUERY, passage) for passage in PASSAGES]


@pytest.mark.parametrize("runtime,precision", list(ATOL))
def test_each_installed_runtime_scores_close_to_torch_fp32_and_the_trace_names_it(cross_encoder, runtime, precision):
    if not _installed(runtime, precision):
        pytest.skip(f"{runtime} {precision} cannot run here")
    reference = open_cross_encoder(cross_encoder, "torch", "fp32").score_pairs(_pairs())
    opened = open_cross_encoder(cross_encoder, runtime, precision)
    assert opened.note == "" and opened.key == f"{runtime}-{precision}"
    scores = opened.score_pairs(_pairs())
    assert scores.shape == (len(PASSAGES),) and np.all((scores > 0) & (scores < 1))  # the model's sigmoid ran
    assert np.allclose(scores, reference, atol=ATOL[(runtime, precision)]), (scores, reference)
    if precision == "fp32":  # same arithmetic: the same order, and rows aligned although batches sort by length
        assert list(np.argsort(-scores)) == list(np.argsort(-reference))
    run = RankedList.from_ordered("rrf", [(i, i, 1.0 - i / 10) for i in range(len(PASSAGES))])
    outcome = rerank(
        QUERY,
        run,
        dict(enumerate(PASSAGES)),
        CrossEncoderReranker(cross_encoder, runtime, precision),
        top_m=5,
        timeout_s=60.0,
    )
    assert outcome.notes == (f"reranked the top 5 of 5 hits with {cross_encoder!r} on {runtime}-{precision}",)


def test_a_runtime_that_cannot_run_falls_back_to_torch_fp32_and_the_trace_says_why(
    cross_encoder, monkeypatch, register_runtime
):
    openvino = RUNTIMES.get("openvino")
    register_runtime(Runtime("openvino", "workbench_no_such_package", ("fp32", "bf16"), openvino.load_embedder))
    monkeypatch.setattr(rerank_module, "_loaded_models", {})  # not the working openvino another test loaded
    opened = open_cross_encoder(cross_encoder, "openvino", "fp32")
    assert (opened.runtime, opened.precision) == ("torch", "fp32")
    assert opened.note == (
        f"rerank.runtime=openvino, rerank.precision=fp32 could not run {cross_encoder!r} "
        "(rerank.runtime=openvino needs the 'workbench_no_such_package' package, which is not "
        "installed; pip install workbench_no_such_package); using torch fp32 instead"
    )
    run = RankedList.from_ordered("rrf", [(1, 1, 0.5), (2, 2, 0.4)])
    reranker = CrossEncoderReranker(cross_encoder, "openvino", "fp32")
    outcome = rerank(QUERY, run, {1: PASSAGES[0], 2: PASSAGES[1]}, reranker, top_m=2, timeout_s=60.0)
    assert not outcome.fell_back
    assert outcome.notes == (f"reranked the top 2 of 2 hits with {cross_encoder!r} on torch-fp32", opened.note)


def test_auto_calibrates_once_per_machine_in_the_background_and_picks_the_fastest_that_ranks_like_fp32(
    cross_encoder, tmp_path, monkeypatch
):
    monkeypatch.delenv(rerank_calibration.RERANK_PIN_ENV, raising=False)
    monkeypatch.setenv(calibration.CALIBRATION_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(rerank_module, "_loaded_models", {})
    # a query never waits for the calibration: torch fp32 scores, and says so, while it runs
    reranker = CrossEncoderReranker(cross_encoder, "auto", "bf16")
    meanwhile = reranker.load()
    assert (meanwhile.key, meanwhile.provisional) == ("torch-fp32", True)
    assert reranker.runtime_notes == (
        f"rerank.runtime=auto: measuring the cross-encoder runtimes for "
        f"{cross_encoder!r} on this machine (once, in the background); torch fp32 "
        "scores until then",
    )
    rerank_calibration._calibrating[cross_encoder].join(120)

    record = rerank_calibration.read_rerank_calibrations()[cross_encoder]
    assert set(record["runtimes"]) == {f"{r.name}-{p}" for r in RUNTIMES for p in r.precisions}
    measured = {k: v for k, v in record["runtimes"].items() if "error" not in v}
    agreeing = {k: v for k, v in measured.items() if v["min_tau"] >= rerank_calibration.MIN_TAU}
    assert record["chosen"] == max(agreeing, key=lambda k: agreeing[k]["pairs_per_s"])
    assert reranker.load().key == record["chosen"] and not reranker.load().provisional  # the next query's
    assert reranker.runtime_notes == ()
    assert record["runtimes"]["torch-fp32"] == {
        "pairs_per_s": record["runtimes"]["torch-fp32"]["pairs_per_s"],
        "max_abs_diff": 0.0,
        "min_tau": 1.0,
    }
    assert record["sample_pairs"] == len(calibration.QUERIES) * rerank_calibration.PASSAGES_PER_QUERY
    # loading and exporting is timed apart from measuring, per runtime and in all
    exported = [v["export_s"] for k, v in measured.items() if k != "torch-fp32"]
    assert exported and record["export_seconds"] >= sum(exported) - 0.1 and record["seconds"] > 0
    saved = json.loads((tmp_path / rerank_calibration.RERANK_CALIBRATION_FILE).read_text())
    assert saved[calibration.machine_id()][cross_encoder] == record

    def no_second_calibration(*_args, **_kwargs):
        raise AssertionError("calibrated twice")

    monkeypatch.setattr(rerank_calibration, "calibrate_cross_encoder", no_second_calibration)
    assert rerank_calibration.open_reranker_runtime(cross_encoder, "auto", "fp32").key == record["chosen"]


def test_kendall_tau_a_counts_agreeing_pairs():
    a = np.array([0.9, 0.5, 0.1])
    assert rerank_calibration.kendall_tau_a(a, a) == 1.0
    assert rerank_calibration.kendall_tau_a(a, -a) == -1.0
    # one swapped pair of three: (2 agreeing - 1 disagreeing) / 3
    assert rerank_calibration.kendall_tau_a(np.array([0.5, 0.9, 0.1]), a) == pytest.approx(1 / 3)
    # a swap of two reference scores 0.005 apart is no disagreement at a tie of 1% of the 0.8 spread
    near = np.array([0.9, 0.895, 0.1])
    assert rerank_calibration.query_tie(near) == pytest.approx(0.008)
    assert rerank_calibration.kendall_tau_a(np.array([0.89, 0.9, 0.1]), near, 0.008) == 1.0
    assert rerank_calibration.kendall_tau_a(np.array([0.89, 0.9, 0.1]), near) == pytest.approx(1 / 3)


def test_config_names_the_key_and_what_each_runtime_allows():
    with pytest.raises(ConfigError) as raised:
        WorkbenchConfig().with_overrides(["rerank.runtime=torch", "rerank.precision=int8"])
    assert str(raised.value).startswith("rerank.precision: 'int8' is not available with rerank.runtime=torch")
    with pytest.raises(ConfigError, match=r"rerank.runtime: 'tensorrt' is not one of auto, torch, openvino, onnx"):
        WorkbenchConfig().with_overrides(["rerank.runtime=tensorrt"])
    config = WorkbenchConfig().with_overrides(["rerank.precision=int8", "rerank.runtime=onnx"])
    assert (config.rerank.runtime, config.rerank.precision) == ("onnx", "int8")
    assert WorkbenchConfig().rerank.runtime == "auto"
