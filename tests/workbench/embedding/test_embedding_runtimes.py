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
from workbench.config import ConfigError, EmbeddingConfig, WorkbenchConfig, embedding_settings
from workbench.embedding import calibration
from workbench.embedding.cache import embed_cached
from workbench.embedding.registry import get_embedder
from workbench.embedding.runtimes import RUNTIMES, Runtime, cpu_has_bf16, open_runtime, runtime_embedder
from workbench.layout import Layout
from workbench.collection_info import index_overrides

TEXTS = ["Hybrid retrieval fuses dense and BM25 ranks.", "混合检索把向量检索和关键词检索的排名融合起来。", "short",
         "A much longer passage about vitamin D, bone density and a randomised trial " * 4]

#: how close each runtime's vectors must stay to torch fp32's on the tiny model (min cosine)
CLOSE = {("torch", "bf16"): 0.99, ("openvino", "fp32"): 0.99999, ("openvino", "bf16"): 0.99,
         ("onnx", "fp32"): 0.99999, ("onnx", "int8"): 0.9}


@pytest.fixture(scope="session")
def tiny_model(tiny_chinese_model_dir, tmp_path_factory) -> str:
    """The suite's tiny model (its folder is its name), exported into a temporary export cache."""
    os.environ["WORKBENCH_EXPORT_CACHE"] = str(tmp_path_factory.mktemp("exports"))
    return str(tiny_chinese_model_dir)


def _installed(runtime: str, precision: str) -> bool:
    if precision == "bf16" and cpu_has_bf16() is False:
        return False
    return importlib.util.find_spec(RUNTIMES[runtime].package) is not None


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
    assert embedding_settings("m@openvino-bf16") == {"embedding.model": "m", "embedding.runtime": "openvino",
                                                     "embedding.precision": "bf16"}
    # an endpoint model's key has an @ of its own, which is not a runtime
    assert embedding_settings("openai:e5@localhost:11434/v1")["embedding.model"] == "openai:e5@localhost:11434/v1"
    config = WorkbenchConfig().with_overrides(["embedding.runtime=openvino", "embedding.precision=bf16"])
    assert Layout.of(config).embedding_model == "all-MiniLM-L6-v2@openvino-bf16"
    assert Layout.of(WorkbenchConfig()).chunkset_key == Layout.of(
        WorkbenchConfig().with_overrides(["embedding.runtime=torch"])).chunkset_key


def test_config_names_the_key_and_what_each_runtime_allows():
    with pytest.raises(ConfigError) as raised:
        WorkbenchConfig().with_overrides(["embedding.runtime=torch", "embedding.precision=int8"])
    assert str(raised.value).startswith("embedding.precision: 'int8' is not available with embedding.runtime=torch")
    assert "torch: fp32, bf16; openvino: fp32, bf16; onnx: fp32, int8" in str(raised.value)
    with pytest.raises(ConfigError, match=r"embedding.runtime: 'tensorrt' is not one of auto, torch, openvino, onnx"):
        WorkbenchConfig().with_overrides(["embedding.runtime=tensorrt"])
    # checked together, so the order of the two keys does not matter
    config = WorkbenchConfig().with_overrides(["embedding.precision=int8", "embedding.runtime=onnx"])
    assert (config.embedding.runtime, config.embedding.precision) == ("onnx", "int8")


@pytest.mark.parametrize("spec", [
    Runtime("missing", "workbench_no_such_runtime_package", ("fp32",), "workbench.embedding.torch_runtime:X"),
    Runtime("broken", "numpy", ("fp32",), "workbench.embedding.no_such_runtime_module:Embedder"),
])
def test_a_runtime_that_cannot_load_falls_back_to_torch_fp32_with_a_note(tiny_model, monkeypatch, spec):
    monkeypatch.setitem(RUNTIMES, spec.name, spec)
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
    assert set(record["runtimes"]) == {f"{r.name}-{p}" for r in RUNTIMES.values() for p in r.precisions}
    assert record["chosen"] == max(close, key=lambda k: close[k]["texts_per_s"])
    assert f"{choice.runtime}-{choice.precision}" == record["chosen"] and choice.note == ""
    assert all(v["query_ms_p50"] > 0 for v in measured.values())
    assert json.loads((home / calibration.CALIBRATION_FILE).read_text())[calibration.machine_id()][tiny_model]

    def no_second_calibration(*_args, **_kwargs):
        raise AssertionError("calibrated twice")

    monkeypatch.setattr(calibration, "calibrate", no_second_calibration)
    assert calibration.choose_runtime(home, EmbeddingConfig(model=tiny_model)) == choice


def test_a_collection_keeps_its_runtime_and_refuses_another(tiny_model, bench, tmp_path):
    if not _installed("onnx", "fp32"):
        pytest.skip("onnxruntime is not installed")
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nHybrid retrieval fuses dense and BM25 ranks.\n\n混合检索融合两种排名。\n", encoding="utf-8")
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
    assert str(refused.value).startswith("collection 'onnx' was embedded with embedding.runtime=onnx, "
                                         "embedding.precision=fp32; it cannot be used with embedding.runtime=torch")
    assert "set embedding.runtime=onnx embedding.precision=fp32" in str(refused.value)
    # a configuration made without the collection (auto, unresolved: torch fp32) is refused too,
    # rather than building a torch layout beside the onnx one
    with pytest.raises(ConfigError, match="cannot be used with embedding.runtime=torch, embedding.precision=fp32"):
        bench.query("dense and BM25", "onnx", built.with_overrides(["embedding.runtime=auto"]))


def test_a_collection_from_before_runtimes_reads_as_torch_fp32(bench, fake_embedder, fake_config):
    layout = Layout.of(fake_config)
    before_runtimes = {k: v for k, v in index_overrides(fake_config).items()
                       if k not in ("embedding.runtime", "embedding.precision")}
    stored_collections.create_collection(bench.catalog, "old", before_runtimes, layout.chunkset_key,
                                         layout.chunkset_config())
    config = bench.config_for("old")
    assert (config.embedding.runtime, config.embedding.precision) == ("torch", "fp32")
    assert config.embedding.key == fake_config.embedding.model and Layout.of(config) == layout


def test_an_explicit_runtime_that_cannot_run_makes_a_torch_collection_with_the_note(bench, fake_embedder,
                                                                                    fake_config, tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nsome text to index\n", encoding="utf-8")
    report = bench.ingest_paths("fake", [doc], fake_config.with_overrides(["embedding.runtime=openvino"]))
    config = bench.config_for("fake")
    assert (config.embedding.runtime, config.embedding.precision) == ("torch", "fp32")
    assert any(note.startswith("embedding.runtime=openvino applies to sentence-transformers models")
               for note in report.notes), report.notes


def test_runtime_embedder_routes_a_bare_name_to_torch_fp32(tiny_model):
    assert type(runtime_embedder(tiny_model)).__name__ == "SentenceTransformerEmbedder"


def test_models_list_prints_each_runtimes_measured_speed(tmp_path, capsys):
    from workbench.cli import main

    home = tmp_path / "home"
    home.mkdir()
    assert main(["models", "--home", str(home)]) == 0
    assert "not measured on this machine yet" in capsys.readouterr().out
    record = {"chosen": "openvino-bf16", "min_cosine": 0.999, "sample_texts": 40, "measured": "2026-11-25 13:35",
              "load_average": 0.5, "runtimes": {
                  "torch-fp32": {"texts_per_s": 25.0, "query_ms_p50": 20.0, "min_cosine": 1.0},
                  "openvino-bf16": {"texts_per_s": 50.0, "query_ms_p50": 8.0, "min_cosine": 0.99997},
                  "onnx-int8": {"error": "embedding.runtime=onnx needs the 'onnxruntime' package"}}}
    (home / calibration.CALIBRATION_FILE).write_text(json.dumps({calibration.machine_id(): {"m": record}}))
    assert main(["models", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "  m: 40 texts, 2026-11-25 13:35, load average 0.5" in out
    assert "    openvino-bf16*     50.0 texts/s  2.00x      8.0 ms/query  min cosine 0.99997" in out
    assert "    onnx-int8       unavailable: embedding.runtime=onnx needs the 'onnxruntime' package" in out


def test_the_cross_encoder_runs_in_bf16_close_to_fp32(tiny_cross_encoder_dir):
    from workbench.retrieval.rerank import load_reranker

    passages = ["dense retrieval with vectors", "BM25 keyword search", "混合检索"]
    fp32 = load_reranker(str(tiny_cross_encoder_dir)).score("hybrid search", passages)
    bf16 = load_reranker(str(tiny_cross_encoder_dir), "bf16").score("hybrid search", passages)
    assert fp32 != bf16  # autocast really ran
    assert np.allclose(fp32, bf16, atol=0.05)
    with pytest.raises(ConfigError, match="rerank.precision: 'int8' is not one of fp32, bf16"):
        WorkbenchConfig().with_overrides(["rerank.precision=int8"])


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
