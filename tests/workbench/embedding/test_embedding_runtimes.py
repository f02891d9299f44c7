"""Encoder runtimes (embedding.runtime / embedding.precision) on a tiny random-weight BERT model:
their vectors against torch fp32's, the cache key each carries, the fallback, auto's calibration,
and a collection keeping the runtime it was built with."""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

from store import collections as stored_collections
from store.catalog import Catalog
from store.embedding_cache import embedding_counts
from workbench.config import ConfigError, EmbeddingConfig, WorkbenchConfig, embedding_settings, index_settings
from workbench.embedding import calibration
from workbench.embedding.cache import embed_cached
from workbench.embedding.registry import get_embedder
from workbench.embedding.runtimes import RUNTIMES, Runtime, cpu_has_bf16, open_runtime, runtime_embedder
from workbench.layout import Layout

TEXTS = [
    "Hybrid retrieval fuses dense and BM25 ranks.",
    "混合检索把向量检索和关键词检索的排名融合起来。",
    "short",
    "A much longer passage about vitamin D, bone density and a randomised trial " * 4,
]

#: how close each runtime's vectors must stay to torch fp32's on the tiny model (min cosine)
CLOSE = {
    ("torch", "bf16"): 0.99,
    ("openvino", "fp32"): 0.99999,
    ("openvino", "bf16"): 0.99,
    ("openvino", "int8"): 0.999,  # static, per channel (seen: 0.99999 on 40 texts)
    ("onnx", "fp32"): 0.99999,
    ("onnx", "int8"): 0.9,
}


@pytest.fixture(scope="session")
def tiny_model(tiny_chinese_model_dir, tmp_path_factory) -> str:
    """The suite's tiny model (its folder is its name), exported into a temporary export cache."""
    os.environ["WORKBENCH_EXPORT_CACHE"] = str(tmp_path_factory.mktemp("exports"))
    return str(tiny_chinese_model_dir)


def _installed(runtime: str, precision: str) -> bool:
    if precision == "bf16" and cpu_has_bf16() is False:
        return False
    return importlib.util.find_spec(RUNTIMES.get(runtime).package) is not None


def _reference(model: str) -> np.ndarray:
    return open_runtime(model, "torch", "fp32").embedder.embed(TEXTS)


@pytest.mark.parametrize("runtime,precision", list(CLOSE))
def test_each_installed_runtime_gives_vectors_close_to_torch_fp32(tiny_model, runtime, precision):
    if not _installed(runtime, precision):
        pytest.skip(f"{runtime} {precision} cannot run here")
    opened = open_runtime(tiny_model, runtime, precision)
    assert opened.note == "" and (opened.runtime, opened.precision) == (runtime, precision)
    assert opened.embedder.name == f"{tiny_model}@{runtime}-{precision}"
    vectors = opened.embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(vectors * _reference(tiny_model), axis=1)
    assert cosines.min() >= CLOSE[(runtime, precision)], cosines
    # rows stay aligned with their texts although batches are sorted by length
    assert np.allclose(opened.embedder.embed(TEXTS[2:3])[0], vectors[2], atol=1e-3)


def test_the_cache_keeps_each_runtimes_vectors_apart(tiny_model, tmp_path):
    if not _installed("onnx", "fp32"):
        pytest.skip("onnxruntime is not installed")
    catalog = Catalog(tmp_path / "catalog.duckdb")
    torch_fp32 = get_embedder(tiny_model)
    onnx_fp32 = get_embedder(f"{tiny_model}@onnx-fp32")
    assert torch_fp32.name == tiny_model  # torch fp32 keeps the bare name: existing caches stay valid
    embed_cached(catalog, torch_fp32, TEXTS)
    _, stats = embed_cached(catalog, onnx_fp32, TEXTS)
    assert stats.embedded == len(TEXTS)  # nothing borrowed from torch's rows
    assert embedding_counts(catalog, [tiny_model, onnx_fp32.name]) == {tiny_model: 4, onnx_fp32.name: 4}


def test_keys_name_the_runtime_except_torch_fp32():
    def key(**values):
        return EmbeddingConfig(**values).key

    assert key(model="m") == "m"  # auto, unresolved: torch fp32
    assert key(model="m", runtime="torch", precision="fp32") == "m"
    assert key(model="m", runtime="torch", precision="bf16") == "m@torch-bf16"
    assert key(model="m", runtime="onnx", precision="int8") == "m@onnx-int8"
    assert embedding_settings("m@openvino-bf16") == {
        "embedding.model": "m",
        "embedding.runtime": "openvino",
        "embedding.precision": "bf16",
    }
    # an endpoint model's key has an @ of its own, which is not a runtime
    assert embedding_settings("openai:e5@localhost:11434/v1")["embedding.model"] == "openai:e5@localhost:11434/v1"
    config = WorkbenchConfig().with_overrides(["embedding.runtime=openvino", "embedding.precision=bf16"])
    assert Layout.of(config).embedding_model == "all-MiniLM-L6-v2@openvino-bf16"
    assert (
        Layout.of(WorkbenchConfig()).chunkset_key
        == Layout.of(WorkbenchConfig().with_overrides(["embedding.runtime=torch"])).chunkset_key
    )


def test_config_names_the_key_and_what_each_runtime_allows():
    with pytest.raises(ConfigError) as raised:
        WorkbenchConfig().with_overrides(["embedding.runtime=torch", "embedding.precision=int8"])
    assert str(raised.value).startswith("embedding.precision: 'int8' is not available with embedding.runtime=torch")
    assert "torch: fp32, bf16; openvino: fp32, bf16, int8; onnx: fp32, int8" in str(raised.value)
    with pytest.raises(ConfigError, match=r"embedding.runtime: 'tensorrt' is not one of auto, torch, openvino, onnx"):
        WorkbenchConfig().with_overrides(["embedding.runtime=tensorrt"])
    # checked together, so the order of the two keys does not matter
    config = WorkbenchConfig().with_overrides(["embedding.precision=int8", "embedding.runtime=onnx"])
    assert (config.embedding.runtime, config.embedding.precision) == ("onnx", "int8")


def _import(module: str):
    return importlib.import_module(f"workbench.embedding.{module}").Embedder


@pytest.mark.parametrize(
    "spec",
    [
        Runtime("missing", "workbench_no_such_runtime_package", ("fp32",), lambda: _import("torch_runtime")),
        Runtime("broken", "numpy", ("fp32",), lambda: _import("no_such_runtime_module")),
    ],
)
def test_a_runtime_that_cannot_load_falls_back_to_torch_fp32_with_a_note(tiny_model, register_runtime, spec):
    register_runtime(spec)
    opened = open_runtime(tiny_model, spec.name, "fp32")
    assert (opened.runtime, opened.precision) == ("torch", "fp32")
    assert opened.note.startswith(f"embedding.runtime={spec.name}, embedding.precision=fp32 could not run")
    assert ("workbench_no_such_runtime_package" if spec.name == "missing" else "no_such_runtime_module") in opened.note
    assert opened.note.endswith("using torch fp32 instead")
    assert np.allclose(opened.embedder.embed(TEXTS[:1]), _reference(tiny_model)[:1])


def test_auto_calibrates_once_and_picks_the_fastest_close_runtime(tiny_model, tmp_path, monkeypatch):
    monkeypatch.delenv(calibration.PIN_ENV, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    choice = calibration.choose_runtime(home, EmbeddingConfig(model=tiny_model))
    record = calibration.read_calibrations(home)[tiny_model]
    measured = {k: v for k, v in record["runtimes"].items() if "error" not in v}
    close = {k: v for k, v in measured.items() if v["min_cosine"] >= calibration.MIN_COSINE}
    assert set(record["runtimes"]) == {f"{r.name}-{p}" for r in RUNTIMES for p in r.precisions}
    assert record["chosen"] == max(close, key=lambda k: close[k]["texts_per_s"])
    assert f"{choice.runtime}-{choice.precision}" == record["chosen"] and choice.note == ""
    assert all(v["query_ms_p50"] > 0 for v in measured.values())
    # loading and exporting each runtime is timed apart from measuring it
    exported = [v["export_s"] for k, v in measured.items() if k != "torch-fp32"]
    assert exported and "export_s" not in record["runtimes"]["torch-fp32"]
    assert record["export_seconds"] >= sum(exported) - 0.1 and record["seconds"] > 0
    assert json.loads((home / calibration.CALIBRATION_FILE).read_text())[calibration.machine_id()][tiny_model]

    def no_second_calibration(*_args, **_kwargs):
        raise AssertionError("calibrated twice")

    monkeypatch.setattr(calibration, "calibrate", no_second_calibration)
    assert calibration.choose_runtime(home, EmbeddingConfig(model=tiny_model)) == choice


def test_a_collection_keeps_its_runtime_and_refuses_another(tiny_model, bench, tmp_path):
    if not _installed("onnx", "fp32"):
        pytest.skip("onnxruntime is not installed")
    doc = tmp_path / "notes.md"
    doc.write_text(
        "# Notes\n\nHybrid retrieval fuses dense and BM25 ranks.\n\n混合检索融合两种排名。\n", encoding="utf-8"
    )
    built = WorkbenchConfig().with_overrides([f"embedding.model={tiny_model}", "embedding.runtime=onnx"])
    report = bench.ingest_paths("onnx", [doc], built)
    assert not report.failures
    stored = bench.config_for("onnx")
    assert (stored.embedding.runtime, stored.embedding.precision) == ("onnx", "fp32")
    assert embedding_counts(bench.catalog, [f"{tiny_model}@onnx-fp32"])[f"{tiny_model}@onnx-fp32"] > 0
    assert bench.config_for("onnx", overrides=["embedding.runtime=auto"]).embedding.key == f"{tiny_model}@onnx-fp32"
    assert bench.query("dense and BM25", "onnx", stored).final.chunk_ids
    with pytest.raises(ConfigError) as refused:
        bench.config_for("onnx", overrides=["embedding.runtime=torch"])
    assert str(refused.value).startswith(
        "collection 'onnx' was embedded with embedding.runtime=onnx, "
        "embedding.precision=fp32; it cannot be used with embedding.runtime=torch"
    )
    assert "set embedding.runtime=onnx embedding.precision=fp32" in str(refused.value)
    # a configuration made without the collection (auto, unresolved: torch fp32) is refused too,
    # rather than building a torch layout beside the onnx one
    with pytest.raises(ConfigError, match="cannot be used with embedding.runtime=torch, embedding.precision=fp32"):
        bench.query("dense and BM25", "onnx", built.with_overrides(["embedding.runtime=auto"]))


def test_an_existing_collection_keeps_its_runtime_when_auto_would_now_pick_another(
    tiny_model, bench, tmp_path, monkeypatch
):
    if not _installed("onnx", "fp32"):
        pytest.skip("onnxruntime is not installed")
    first, second = tmp_path / "first.md", tmp_path / "second.md"
    first.write_text("# First\n\nHybrid retrieval fuses dense and BM25 ranks.\n", encoding="utf-8")
    second.write_text("# Second\n\n混合检索融合两种排名。\n", encoding="utf-8")
    auto = WorkbenchConfig().with_overrides([f"embedding.model={tiny_model}"])
    monkeypatch.setenv(calibration.PIN_ENV, "onnx-fp32")
    assert not bench.ingest_paths("kept", [first], auto).failures
    monkeypatch.setenv(calibration.PIN_ENV, "torch-fp32")  # a new calibration, another machine: auto moves on
    assert not bench.ingest_paths("kept", [second], auto).failures
    kept = bench.config_for("kept")
    assert (kept.embedding.runtime, kept.embedding.precision) == ("onnx", "fp32")
    onnx_key = f"{tiny_model}@onnx-fp32"
    counts = embedding_counts(bench.catalog, [onnx_key, tiny_model])
    assert counts[onnx_key] == sum(d.chunk_count for d in bench.documents("kept")) and not counts.get(tiny_model)
    assert bench.query("混合检索", "kept", kept).final.chunk_ids
    assert bench.ingest_paths("new", [first], auto) and bench.config_for("new").embedding.runtime == "torch"


def test_a_collection_from_before_runtimes_reads_as_torch_fp32(bench, fake_embedder, fake_config):
    layout = Layout.of(fake_config)
    before_runtimes = {
        k: v for k, v in index_settings(fake_config).items() if k not in ("embedding.runtime", "embedding.precision")
    }
    stored_collections.create_collection(
        bench.catalog, "old", before_runtimes, layout.chunkset_key, layout.chunkset_config()
    )
    config = bench.config_for("old")
    assert (config.embedding.runtime, config.embedding.precision) == ("torch", "fp32")
    assert config.embedding.key == fake_config.embedding.model and Layout.of(config) == layout


def test_an_explicit_runtime_that_cannot_run_makes_a_torch_collection_with_the_note(
    bench, fake_embedder, fake_config, tmp_path
):
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nsome text to index\n", encoding="utf-8")
    report = bench.ingest_paths("fake", [doc], fake_config.with_overrides(["embedding.runtime=openvino"]))
    config = bench.config_for("fake")
    assert (config.embedding.runtime, config.embedding.precision) == ("torch", "fp32")
    assert any(
        note.startswith("embedding.runtime=openvino applies to sentence-transformers models") for note in report.notes
    ), report.notes


def test_runtime_embedder_routes_a_bare_name_to_torch_fp32(tiny_model):
    assert type(runtime_embedder(tiny_model)).__name__ == "SentenceTransformerEmbedder"


def test_models_list_prints_each_runtimes_measured_speed_and_ndcg_cost(tmp_path, capsys, monkeypatch):
    from workbench.cli import main
    from workbench.embedding.quality import record_quality
    from workbench.retrieval.rerank_calibration import RERANK_CALIBRATION_FILE

    def scifact(dense, hybrid, vs_fp32=None):
        return {
            "dataset": "scifact",
            "chunks": 11177,
            "ndcg@10": {"dense": dense, "hybrid": hybrid},
            "measured": "2026-11-25 17:10",
            **({"vs_torch_fp32": vs_fp32} if vs_fp32 else {}),
        }

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv(calibration.CALIBRATION_DIR_ENV, str(tmp_path / "machine"))
    assert main(["models", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "encoder runtimes (embedding.runtime): not measured on this machine yet" in out
    assert "cross-encoder runtimes (rerank.runtime): not measured on this machine yet" in out
    record = {
        "chosen": "openvino-bf16",
        "min_cosine": 0.999,
        "sample_texts": 40,
        "measured": "2026-11-25 13:35",
        "seconds": 4.2,
        "export_seconds": 11.5,
        "load_average": 0.5,
        "runtimes": {
            "torch-fp32": {"texts_per_s": 25.0, "query_ms_p50": 20.0, "min_cosine": 1.0},
            "openvino-bf16": {"texts_per_s": 50.0, "query_ms_p50": 8.0, "min_cosine": 0.99997, "export_s": 6.5},
            "onnx-int8": {"error": "embedding.runtime=onnx needs the 'onnxruntime' package"},
        },
    }
    (home / calibration.CALIBRATION_FILE).write_text(json.dumps({calibration.machine_id(): {"m": record}}))
    assert main(["models", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert (
        "  m: 40 texts measured in 4.2 s (plus 11.5 s loading and exporting), 2026-11-25 13:35, load average 0.5" in out
    )
    assert (
        "    openvino-bf16*     50.0 texts/s  2.00x      8.0 ms/query  min cosine 0.99997  export 6.5 s  "
        "SciFact nDCG@10 not measured"
    ) in out
    assert "    onnx-int8       unavailable: embedding.runtime=onnx needs the 'onnxruntime' package" in out
    assert f"measure it with: python bench/bench_encode.py --ndcg --record-in {home}" in out

    record_quality(home, "m", "torch-fp32", scifact(0.6730, 0.7188, {"dense": 0.0, "hybrid": 0.0}))
    record_quality(home, "m", "openvino-bf16", scifact(0.6732, 0.7180, {"dense": 0.0002, "hybrid": -0.0008}))
    reranked = {
        "chosen": "onnx-fp32",
        "min_tau": 0.95,
        "sample_pairs": 40,
        "measured": "2026-11-25 14:00",
        "seconds": 2.0,
        "export_seconds": 3.0,
        "load_average": 0.7,
        "runtimes": {
            "torch-fp32": {"pairs_per_s": 100.0, "max_abs_diff": 0.0, "min_tau": 1.0},
            "onnx-fp32": {"pairs_per_s": 150.0, "max_abs_diff": 0.00001, "min_tau": 1.0, "export_s": 3.0},
        },
    }
    (tmp_path / "machine").mkdir()
    (tmp_path / "machine" / RERANK_CALIBRATION_FILE).write_text(
        json.dumps({calibration.machine_id(): {"ce": reranked}})
    )
    assert main(["models", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "min cosine 0.99997  export 6.5 s  SciFact nDCG@10 dense 0.6732 (+0.0002) hybrid 0.7180 (-0.0008)" in out
    assert "measure it with" not in out
    assert "  ce: 40 pairs measured in 2.0 s (plus 3.0 s loading and exporting), 2026-11-25 14:00" in out
    assert "    onnx-fp32*        150.0 pairs/s  1.50x  min tau 1.0000, max |Δscore| 0.0000  export 3.0 s" in out


def test_runtime_quality_reads_the_benchs_records_and_invents_nothing(tmp_path):
    from workbench.embedding.quality import record_quality
    from workbench.embedding.runtime_report import runtime_quality

    assert runtime_quality(tmp_path, "m") == {}
    record_quality(
        tmp_path, "m", "openvino-bf16", {"ndcg@10": {"dense": 0.6731, "hybrid": 0.7190}, "measured": "2026-11-25 17:10"}
    )
    record_quality(tmp_path, "m", "onnx-int8", {"ndcg@10": {"dense": "n/a"}})
    found = runtime_quality(tmp_path, "m")
    assert set(found) == {"openvino-bf16"}  # a record without both numbers is not shown as measured
    assert (found["openvino-bf16"].dense_ndcg10, found["openvino-bf16"].dense_delta) == (0.6731, None)
    record_quality(
        tmp_path,
        "m",
        "openvino-bf16",
        {"ndcg@10": {"dense": 0.6731, "hybrid": 0.7190}, "vs_torch_fp32": {"dense": 0.0001, "hybrid": 0.0002}},
    )
    assert runtime_quality(tmp_path, "m")["openvino-bf16"].hybrid_delta == 0.0002
    assert runtime_quality(tmp_path, "other") == {}


def test_bf16_is_native_only_with_the_cpu_flags(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n")
    assert cpu_has_bf16(cpuinfo) is False
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu avx512f avx512_bf16\n")
    assert cpu_has_bf16(cpuinfo) is True
    assert cpu_has_bf16(tmp_path / "missing") is None


def test_a_new_collections_runtime_is_opened_on_the_shared_embedder(tiny_model, tmp_path, monkeypatch):
    """The ingest and the queries use the registry's instance: choosing the runtime must not load a second one."""
    if not _installed("onnx", "fp32"):
        pytest.skip("onnxruntime is not installed")
    import workbench.embedding.runtimes as runtimes

    private = []
    monkeypatch.setattr(runtimes, "runtime_embedder", lambda key: private.append(key) or runtime_embedder(key))
    choice = calibration.choose_runtime(tmp_path, EmbeddingConfig(model=tiny_model, runtime="onnx"))
    assert (choice.runtime, choice.precision, choice.note) == ("onnx", "fp32", "")
    assert private == [] and get_embedder(f"{tiny_model}@onnx-fp32").loaded
    assert open_runtime(tiny_model, "onnx", "fp32").embedder is not get_embedder(f"{tiny_model}@onnx-fp32")
    assert private == [f"{tiny_model}@onnx-fp32"]  # calibration's own instances are not kept


def test_will_calibrate_says_when_a_new_collection_waits_for_calibration(tmp_path, monkeypatch):
    monkeypatch.delenv(calibration.PIN_ENV, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    model = "all-MiniLM-L6-v2"
    assert calibration.will_calibrate(home, EmbeddingConfig(model=model))
    # an explicit runtime, a pinned auto, or a recorded calibration means no wait
    assert not calibration.will_calibrate(home, EmbeddingConfig(model=model, runtime="torch", precision="fp32"))
    monkeypatch.setenv(calibration.PIN_ENV, "torch-fp32")
    assert not calibration.will_calibrate(home, EmbeddingConfig(model=model))
    monkeypatch.delenv(calibration.PIN_ENV)
    calibration.write_calibration(home, model, {"chosen": "torch-fp32", "runtimes": {}})
    assert not calibration.will_calibrate(home, EmbeddingConfig(model=model))


def test_the_measuring_started_after_the_demo_is_the_one_a_new_collection_reads(tiny_model, tmp_path, monkeypatch):
    """The demo embeds on torch fp32 without measuring; the app then measures its model in the
    background, and a collection created meanwhile waits for that record instead of measuring again
    (issue 36: creating a collection after the demo took 41 s)."""
    monkeypatch.delenv(calibration.PIN_ENV, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    measured: list[str] = []
    real = calibration.calibrate

    def counted(at, model, sample=40):
        measured.append(model)
        return real(at, model, sample=8)

    monkeypatch.setattr(calibration, "calibrate", counted)
    config = EmbeddingConfig(model=tiny_model)
    thread = calibration.calibrate_in_background(home, config)
    assert thread is not None and calibration.calibrate_in_background(home, config) in (thread, None)
    choice = calibration.choose_runtime(home, config)  # waits for the running measurement
    assert measured == [tiny_model]
    assert f"{choice.runtime}-{choice.precision}" == calibration.read_calibrations(home)[tiny_model]["chosen"]
    assert calibration.calibrate_in_background(home, config) is None  # recorded: nothing left to measure
    assert calibration.background_calibration(home, tiny_model) is None


@pytest.mark.parametrize("runtime", ["onnx", "openvino"])
def test_two_lanes_give_the_vectors_one_lane_gives(tiny_model, monkeypatch, runtime):
    if not _installed(runtime, "fp32"):
        pytest.skip(f"{runtime} cannot run here")
    from workbench.embedding.machine import LANES_ENV

    embedder_class = RUNTIMES.get(runtime).load_embedder()
    vectors = {}
    for lanes in ("1", "2"):
        monkeypatch.setenv(LANES_ENV, lanes)
        embedder = embedder_class(f"{tiny_model}@{runtime}-fp32", tiny_model, "fp32")
        vectors[lanes] = embedder.embed(TEXTS)
        assert len(embedder._runner()) == int(lanes)
    # two lanes run each text alone, cut to its own tokens: the same vectors as padded batches
    assert np.allclose(vectors["1"], vectors["2"], atol=1e-5)


def test_onnx_int8_quantizes_per_channel_and_keeps_each_feed_forward_output_in_fp32(tiny_model):
    if not _installed("onnx", "int8"):
        pytest.skip("onnx cannot run here")
    import onnx

    from workbench.embedding.exported import export_root
    from workbench.embedding.onnx_runtime import FEED_FORWARD_OUTPUT, onnx_variant

    open_runtime(tiny_model, "onnx", "int8").embedder.embed(TEXTS[:1])
    (exported,) = export_root().glob(f"tiny-zh-*/{onnx_variant('int8')}-v*/model.onnx")
    graph = onnx.load(str(exported)).graph
    float_outputs = [n.name for n in graph.node if n.op_type == "MatMul" and FEED_FORWARD_OUTPUT.search(n.name)]
    quantized = [n.name for n in graph.node if n.op_type == "MatMulInteger"]
    feed_forward_inputs = [name for name in quantized if "/intermediate/dense/" in name]  # one per layer
    assert len(float_outputs) == len(feed_forward_inputs) >= 1
    assert not any(FEED_FORWARD_OUTPUT.search(name) for name in quantized)
    # per channel: each quantized weight's scale has one entry per output column
    scales = {i.name: onnx.numpy_helper.to_array(i) for i in graph.initializer if i.name.endswith("_scale")}
    assert any(scale.ndim == 1 and scale.size > 1 for scale in scales.values())
