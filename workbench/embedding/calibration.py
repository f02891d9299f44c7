"""``embedding.runtime = auto``: measure every runtime once per machine and model, keep the choice.

Calibration encodes a fixed sample with torch fp32 and with every other runtime and precision
this machine can run, and picks the fastest whose vectors keep a cosine of at least
``MIN_COSINE`` to fp32's on every text (``MIN_COSINE_INT8`` for int8, whose quantization was
calibrated on other texts) and, where ``bench_encode.py --ndcg`` recorded it for the home, lose
no more than ``MAX_NDCG_DROP`` of SciFact nDCG@10; each refused runtime's record says why. The
numbers (texts/s, single-query ms, min cosine, and the load average they ran at) go to
``encoder_calibration.json`` in the home, under this machine's CPU and the model, so the next
collection reads the choice instead of measuring.

The demo embeds on torch fp32 without calibrating (a newcomer should not wait for it), so once it
is loaded the app measures its model in the background (``calibrate_in_background``, at the
lowest CPU priority): the collection the user creates next reads that record instead of waiting
a minute, and one created while the measuring still runs waits for it rather than measuring again.
"""

from __future__ import annotations

import json
import logging
import os
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from workbench.config import AUTO_RUNTIME, EmbeddingConfig
from workbench.embedding.base import Embedder
from workbench.embedding.endpoint import is_endpoint_model
from workbench.embedding.machine import machine_id
from workbench.embedding.quality import read_quality
from workbench.embedding.registry import get_embedder, is_registered
from workbench.embedding.runtimes import RUNTIMES, TORCH_FP32, check_runtime, open_runtime, runtime_key

log = logging.getLogger(__name__)

CALIBRATION_FILE = "encoder_calibration.json"
MIN_COSINE = 0.999
#: int8's bar: a quantized encoder never reaches 0.999, and 0.99 keeps SciFact's nDCG@10; measured
#: on ``calibration_sample``, which shares no text with the quantization's own (``static_int8``)
MIN_COSINE_INT8 = 0.99
#: the most SciFact nDCG@10 (dense or hybrid) a runtime may lose against torch fp32, when
#: ``bench/bench_encode.py --ndcg`` recorded it for the home (``workbench.embedding.quality``)
MAX_NDCG_DROP = 0.005
#: pins what auto resolves to (``openvino-bf16``, ``torch-fp32``) without calibrating: for
#: reproducible runs, and for the test suite, which must not calibrate in every temporary home
PIN_ENV = "WORKBENCH_EMBEDDING_RUNTIME"
CALIBRATION_DIR_ENV = "WORKBENCH_CALIBRATION_DIR"
QUERIES = (
    "what causes anemia",
    "糖尿病的早期症状有哪些",
    "effect of vitamin D on bone density",
    "how does the retrieval pipeline fuse ranks",
    "一种新的检索方法",
)

_SENTENCES = (
    "Vitamin D deficiency is common in older adults and is associated with reduced bone mineral density.",
    "The trial randomised 1,204 patients to receive either the intervention or a placebo for twelve weeks.",
    "检索增强生成先从知识库中找到相关段落，再把它们交给语言模型作答。",
    "Hybrid retrieval fuses the ranks of a dense vector search and a BM25 keyword search.",
    "Mutations in the BRCA1 gene increase the lifetime risk of breast and ovarian cancer.",
    "研究人员在两千名志愿者中比较了两种治疗方案的长期效果。",
    "A cross-encoder reads the query and the passage together and scores their relevance.",
    "Regular aerobic exercise lowered systolic blood pressure by about five millimetres of mercury.",
    "The index stores one unit vector per chunk and answers a query with its nearest neighbours.",
    "该模型在中文和英文文本上都经过训练，能够处理混合语言的查询。",
    "Macrophages switch between pro-inflammatory and repair phenotypes in response to local signals.",
    "Sleep deprivation impairs working memory and slows reaction times in healthy young adults.",
)


def calibration_sample(count: int = 40) -> list[str]:
    """A fixed sample of ``count`` texts of 1 to 8 sentences, English and Chinese."""
    n = len(_SENTENCES)
    return [" ".join(_SENTENCES[(i + j) % n] for j in range(1 + (i * 5) % 8)) for i in range(count)]


@dataclass(frozen=True)
class RuntimeChoice:
    runtime: str
    precision: str
    #: why the choice is not what was asked for ("" when it is)
    note: str = ""


def machine_calibration_dir() -> Path:
    """Where what is measured once per machine for every home lives: the cross-encoder's
    calibration, which the query pipeline (that knows no home) reads (``$WORKBENCH_CALIBRATION_DIR``
    moves it; the test suite points it at a temporary folder)."""
    return Path(os.environ.get(CALIBRATION_DIR_ENV) or Path.home() / ".cache" / "rag-workbench" / "calibration")


def read_calibrations(home: Path, file: str = CALIBRATION_FILE) -> dict:
    """This machine's calibration records in ``home``/``file``, by model ({} when none)."""
    try:
        data = json.loads((home / file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get(machine_id(), {}) if isinstance(data, dict) else {}
    return found if isinstance(found, dict) else {}


def write_calibration(home: Path, model: str, record: dict, file: str = CALIBRATION_FILE) -> None:
    home.mkdir(parents=True, exist_ok=True)
    path = home / file
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        data = {}
    data.setdefault(machine_id(), {})[model] = record
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    os.replace(temporary, path)


def measure(embedder: Embedder, texts: list[str], reference: np.ndarray | None) -> tuple[dict[str, float], np.ndarray]:
    """texts/s over ``texts``, single-query ms (p50 of ``QUERIES``), min cosine to ``reference``."""
    embedder.embed(texts[:4])  # warm-up: first calls allocate and, for exported graphs, compile
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    seconds = time.perf_counter() - started
    query_ms = []
    for query in QUERIES:
        started = time.perf_counter()
        embedder.embed_queries([query])
        query_ms.append((time.perf_counter() - started) * 1000)
    cosine = 1.0 if reference is None else float(np.min(np.sum(vectors * reference, axis=1)))
    return {
        "texts_per_s": round(len(texts) / seconds, 2),
        "query_ms_p50": round(statistics.median(query_ms), 2),
        "min_cosine": round(cosine, 6),
    }, vectors


def measure_candidates(
    open_candidate: Callable[[str, str], Any], measure_candidate: Callable[[Any], dict], section: str = "embedding"
) -> tuple[dict[str, dict], float, float]:
    """Open and measure every runtime and precision but torch fp32 (the reference, measured first).

    Returns the numbers by runtime key (one that cannot run here gets ``{"error": cause}``), the
    seconds spent measuring and the seconds spent loading (exporting, the first time), apart.
    ``open_candidate(runtime, precision)`` returns something with a ``note`` (set when it fell back).
    """
    results: dict[str, dict] = {}
    measuring = loading = 0.0
    for runtime in RUNTIMES:
        for precision in runtime.precisions:
            key = runtime_key(runtime.name, precision)
            if (runtime.name, precision) == TORCH_FP32:
                continue
            try:
                check_runtime(runtime.name, precision, section=section)
            except Exception as error:
                results[key] = {"error": str(error)}
                continue
            began = time.perf_counter()
            opened = open_candidate(runtime.name, precision)
            export_s = time.perf_counter() - began
            loading += export_s
            if opened.note:
                results[key] = {"error": opened.note}
                continue
            began = time.perf_counter()
            results[key] = {**measure_candidate(opened), "export_s": round(export_s, 2)}
            measuring += time.perf_counter() - began
    return results, measuring, loading


def refusal(key: str, numbers: dict, quality: dict | None = None) -> str:
    """Why auto must not pick the runtime ``key`` (``openvino-int8``) with these calibration
    ``numbers`` and this SciFact ``quality`` record; "" when it may."""
    if "error" in numbers:
        return "cannot run here"
    bar = MIN_COSINE_INT8 if key.endswith("-int8") else MIN_COSINE
    cosine = numbers.get("min_cosine", 0.0)
    if cosine < bar:
        return f"min cosine {cosine:.4f} to torch fp32, below {bar}"
    lost = (quality or {}).get("vs_torch_fp32") or {}
    for mode, delta in sorted(lost.items()):
        if isinstance(delta, (int, float)) and delta < -MAX_NDCG_DROP:
            return f"SciFact nDCG@10 {mode} {delta:+.4f} against torch fp32, more than {MAX_NDCG_DROP} lost"
    return ""


def choose_measured(results: dict[str, dict], quality: dict[str, dict]) -> str:
    """The fastest runtime key that ``refusal`` lets through; each refused one gets its reason
    (``results[key]["refused"]``), which the Models page and ``models list`` show. Torch fp32, the
    reference, is never refused."""
    for key, numbers in results.items():
        why = refusal(key, numbers, quality.get(key))
        if why and "error" not in numbers:
            numbers["refused"] = why
    usable = {k: v for k, v in results.items() if k == runtime_key(*TORCH_FP32) or not refusal(k, v, quality.get(k))}
    return max(usable, key=lambda k: usable[k]["texts_per_s"])


def calibrate(home: Path, model: str, sample: int = 40) -> dict:
    """Measure every runtime and precision this machine can run on ``model``; record and return it.

    Loading a runtime (for an exported one, the first export) is timed apart from the measuring:
    ``export_s`` per runtime and ``export_seconds`` in all, against ``seconds`` of measuring, so
    a calibration that found its exports cached is not mistaken for a faster one."""
    texts = calibration_sample(sample)
    loading = time.perf_counter()
    baseline = open_runtime(model, *TORCH_FP32)
    export_seconds = time.perf_counter() - loading
    started = time.perf_counter()
    numbers, reference = measure(baseline.embedder, texts, None)
    measuring = time.perf_counter() - started
    results, candidates_measuring, candidates_loading = measure_candidates(
        lambda runtime, precision: open_runtime(model, runtime, precision),
        lambda opened: measure(opened.embedder, texts, reference)[0],
    )
    results = {runtime_key(*TORCH_FP32): numbers, **results}
    measuring += candidates_measuring
    export_seconds += candidates_loading
    chosen = choose_measured(results, read_quality(home).get(model, {}))
    record = {
        "chosen": chosen,
        "min_cosine": MIN_COSINE,
        "min_cosine_int8": MIN_COSINE_INT8,
        "sample_texts": len(texts),
        "seconds": round(measuring, 1),
        "export_seconds": round(export_seconds, 1),
        "load_average": round(os.getloadavg()[0], 2),
        "measured": time.strftime("%Y-%m-%d %H:%M"),
        "runtimes": results,
    }
    try:
        write_calibration(home, model, record)
    except OSError as error:
        log.warning("could not record the encoder calibration in %s: %s", home, error)
    return record


def will_calibrate(home: Path, embedding: EmbeddingConfig) -> bool:
    """True when a collection created with ``embedding`` would first calibrate (``choose_runtime``
    measures every runtime, a minute or more): ``auto``, a local model, nothing pinned and no record
    for the model in this home. The app says so while it waits."""
    if embedding.runtime != AUTO_RUNTIME or is_registered(embedding.model) or is_endpoint_model(embedding.model):
        return False
    if os.environ.get(PIN_ENV, "").strip():
        return False
    return embedding.model not in read_calibrations(home)


_background: dict[tuple[str, str], threading.Thread] = {}
_background_lock = threading.Lock()


def background_calibration(home: Path, model: str) -> threading.Thread | None:
    """The background calibration of ``model`` in ``home`` while it runs (None otherwise)."""
    with _background_lock:
        running = _background.get((str(Path(home).absolute()), model))
    return running if running is not None and running.is_alive() else None


def calibrate_in_background(home: Path, embedding: EmbeddingConfig) -> threading.Thread | None:
    """Start calibrating ``embedding``'s model for ``home`` in a daemon thread when a collection
    made with it would otherwise calibrate (``will_calibrate``); the running thread, or None."""
    if not will_calibrate(home, embedding):
        return None
    key = (str(Path(home).absolute()), embedding.model)
    with _background_lock:
        running = _background.get(key)
        if running is not None and running.is_alive():
            return running
        thread = threading.Thread(
            target=_calibrate_quietly, args=(Path(home), embedding.model), name="encoder-calibration", daemon=True
        )
        _background[key] = thread
        thread.start()
    return thread


def _calibrate_quietly(home: Path, model: str) -> None:
    # this thread only (Linux nices threads apart), and the runtimes' worker threads it starts
    # inherit it: a query the user asks meanwhile keeps the CPU
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):
        pass
    try:
        calibrate(home, model)
    except Exception as error:  # a collection made later calibrates itself and says why it fails
        log.warning("background calibration of %s failed: %s", model, error)


def choose_runtime(home: Path, embedding: EmbeddingConfig) -> RuntimeChoice:
    """The runtime and precision a new collection is built with: ``auto`` from this machine's
    calibration (made now if there is none), an explicit one if it runs here; otherwise torch
    fp32 and a note naming the setting and the cause."""
    model, runtime, precision = embedding.model, embedding.runtime, embedding.precision
    if is_registered(model) or is_endpoint_model(model):
        if runtime == AUTO_RUNTIME or (runtime, precision) == TORCH_FP32:
            return RuntimeChoice(*TORCH_FP32)
        return RuntimeChoice(
            *TORCH_FP32,
            note=f"embedding.runtime={runtime} applies to sentence-transformers "
            f"models; {model!r} is not one, so it runs as it is",
        )
    if runtime != AUTO_RUNTIME:
        opened = open_runtime(model, runtime, precision, embedder_for=get_embedder)
        return RuntimeChoice(opened.runtime, opened.precision, opened.note)
    pinned = os.environ.get(PIN_ENV, "").strip()
    if pinned:
        chosen, why = pinned, f"{PIN_ENV}={pinned}"
    else:
        running = background_calibration(home, model)
        if running is not None:  # the same measurement, already under way: wait for its record
            running.join()
        record = read_calibrations(home).get(model)
        try:
            record = record or calibrate(home, model)
        except Exception as error:  # the baseline itself failed: the model's own error says why
            cause = (str(error).strip().splitlines() or [type(error).__name__])[0]
            return RuntimeChoice(
                *TORCH_FP32, note=f"embedding.runtime=auto: calibration failed ({cause}); using torch fp32"
            )
        chosen, why = record["chosen"], "this machine's calibration"
    runtime, _, precision = chosen.partition("-")
    if (runtime, precision) == TORCH_FP32:
        return RuntimeChoice(*TORCH_FP32)
    opened = open_runtime(model, runtime, precision, embedder_for=get_embedder)
    note = opened.note and f"embedding.runtime=auto chose {chosen} ({why}), but {opened.note}"
    return RuntimeChoice(opened.runtime, opened.precision, note)
