"""``rerank.runtime = auto``: measure every cross-encoder runtime once per machine and model.

The sample is fixed query-passage pairs, English and Chinese. Each runtime scores them after
torch fp32; it counts as agreeing when, for every query, it orders the passages as fp32 does
(Kendall tau ≥ ``MIN_TAU``, fp32's near ties not counted: reranking is an order). The fastest
agreeing one is chosen. The record (pairs/s, max abs score difference, min tau, export and
measuring seconds apart, load average) goes to ``rerank_calibration.json`` in the machine's
calibration folder: the pipeline that reranks has no home, and the numbers belong to the CPU.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import replace
from typing import Any

import numpy as np

from workbench.config import AUTO_RUNTIME
from workbench.embedding.calibration import (
    QUERIES,
    calibration_sample,
    machine_calibration_dir,
    measure_candidates,
    read_calibrations,
    write_calibration,
)
from workbench.embedding.runtimes import TORCH_FP32, runtime_key
from workbench.retrieval.cross_encoder import OpenedCrossEncoder, Pairs, open_cross_encoder

log = logging.getLogger(__name__)

RERANK_CALIBRATION_FILE = "rerank_calibration.json"
MIN_TAU = 0.95
#: fp32 scores closer than this share of a query's score spread count as tied
TIE_SHARE = 0.01
#: pins what rerank.runtime=auto resolves to (``openvino-bf16``, ``torch-fp32``) without calibrating
RERANK_PIN_ENV = "WORKBENCH_RERANK_RUNTIME"
PASSAGES_PER_QUERY = 6  # 30 pairs: about one rerank call per runtime


def calibration_pairs() -> list[Pairs]:
    """The fixed sample: each query of ``QUERIES`` with the same passages of 1 to 8 sentences."""
    passages = calibration_sample(PASSAGES_PER_QUERY)
    return [[(query, passage) for passage in passages] for query in QUERIES]


def kendall_tau_a(a: np.ndarray, reference: np.ndarray, tie: float = 0.0) -> float:
    """Kendall's tau-a of scores ``a`` against ``reference`` over the same items (1 = the same
    order). Pairs the reference scores within ``tie`` of each other count as agreeing whichever
    way ``a`` orders them: a swap the reference itself barely separates is not a change of ranking."""
    n = len(a)
    if n < 2:
        return 1.0
    i, j = np.triu_indices(n, k=1)
    gap = reference[i] - reference[j]
    agree = np.where(np.abs(gap) <= tie, 1.0, np.sign(a[i] - a[j]) * np.sign(gap))
    return float(np.sum(agree) / len(i))


def query_tie(reference: np.ndarray) -> float:
    """What counts as a tie in one query's reference scores: ``TIE_SHARE`` of their spread."""
    return TIE_SHARE * float(np.ptp(reference)) if len(reference) else 0.0


def measure_scorer(
    opened: OpenedCrossEncoder, groups: list[Pairs], reference: list[np.ndarray] | None
) -> tuple[dict[str, float], list[np.ndarray]]:
    """pairs/s over every group, max abs score difference and min tau to ``reference``, and the scores."""
    opened.score_pairs(groups[0][:2])  # warm-up: first calls allocate and, for exported graphs, compile
    started = time.perf_counter()
    scores = [opened.score_pairs(group) for group in groups]
    seconds = time.perf_counter() - started
    pairs = sum(len(group) for group in groups)
    numbers = {"pairs_per_s": round(pairs / seconds, 2), "max_abs_diff": 0.0, "min_tau": 1.0}
    if reference is not None:
        numbers["max_abs_diff"] = round(
            max(float(np.max(np.abs(s - r))) for s, r in zip(scores, reference, strict=False)), 6
        )
        numbers["min_tau"] = round(
            min(kendall_tau_a(s, r, query_tie(r)) for s, r in zip(scores, reference, strict=False)), 4
        )
    return numbers, scores


def calibrate_cross_encoder(model: str) -> dict[str, Any]:
    """Measure every runtime and precision this machine can run on cross-encoder ``model``; record
    it in the machine's calibration folder and return it."""
    groups = calibration_pairs()
    loading = time.perf_counter()
    baseline = open_cross_encoder(model, *TORCH_FP32)
    export_seconds = time.perf_counter() - loading
    started = time.perf_counter()
    numbers, reference = measure_scorer(baseline, groups, None)
    measuring = time.perf_counter() - started
    results, candidates_measuring, candidates_loading = measure_candidates(
        lambda runtime, precision: open_cross_encoder(model, runtime, precision),
        lambda opened: measure_scorer(opened, groups, reference)[0],
        section="rerank",
    )
    results = {runtime_key(*TORCH_FP32): numbers, **results}
    measuring += candidates_measuring
    export_seconds += candidates_loading
    agreeing = {k: v for k, v in results.items() if v.get("min_tau", -1) >= MIN_TAU}
    chosen = max(agreeing, key=lambda k: agreeing[k]["pairs_per_s"])
    record = {
        "chosen": chosen,
        "min_tau": MIN_TAU,
        "sample_pairs": sum(len(g) for g in groups),
        "seconds": round(measuring, 1),
        "export_seconds": round(export_seconds, 1),
        "load_average": round(os.getloadavg()[0], 2),
        "measured": time.strftime("%Y-%m-%d %H:%M"),
        "runtimes": results,
    }
    try:
        write_calibration(machine_calibration_dir(), model, record, RERANK_CALIBRATION_FILE)
    except OSError as error:
        log.warning("could not record the cross-encoder calibration in %s: %s", machine_calibration_dir(), error)
    return record


def read_rerank_calibrations() -> dict[str, dict[str, Any]]:
    """This machine's cross-encoder calibration records, by model ({} when none)."""
    return read_calibrations(machine_calibration_dir(), RERANK_CALIBRATION_FILE)


_calibrating: dict[str, threading.Thread] = {}
_calibrating_lock = threading.Lock()


def calibrate_in_background(model: str) -> threading.Thread:
    """Start (once per process and model) the calibration in a daemon thread; returns the thread."""
    with _calibrating_lock:
        thread = _calibrating.get(model)
        if thread is None or not thread.is_alive():

            def run() -> None:
                try:
                    calibrate_cross_encoder(model)
                except Exception as error:  # the query path already runs torch fp32 and says so
                    log.warning("calibrating cross-encoder %r failed: %s", model, error)

            thread = _calibrating[model] = threading.Thread(target=run, name=f"calibrate-{model}", daemon=True)
            thread.start()
        return thread


def open_reranker_runtime(model: str, runtime: str, precision: str, wait: bool = True) -> OpenedCrossEncoder:
    """The cross-encoder on the runtime ``rerank.runtime``/``rerank.precision`` name: ``auto`` from
    this machine's calibration, or the one named; torch fp32 with a note naming the setting and
    the cause when it cannot run.

    With no calibration yet, ``auto`` calibrates now (``wait``), or, for a query that must not
    wait for it, starts it in the background and scores with torch fp32 meanwhile
    (``provisional``: the caller opens it again once the record exists)."""
    if runtime != AUTO_RUNTIME:
        return open_cross_encoder(model, runtime, precision)
    pinned = os.environ.get(RERANK_PIN_ENV, "").strip()
    if pinned:
        chosen, why = pinned, f"{RERANK_PIN_ENV}={pinned}"
    else:
        record = read_rerank_calibrations().get(model)
        if record is None and not wait:
            calibrate_in_background(model)
            opened = open_cross_encoder(model, *TORCH_FP32)
            note = (
                f"rerank.runtime=auto: measuring the cross-encoder runtimes for {model!r} on this machine (once, "
                "in the background); torch fp32 scores until then"
            )
            return replace(opened, note=note, provisional=True)
        record = record or calibrate_cross_encoder(model)
        chosen, why = record["chosen"], "this machine's calibration"
    runtime, _, precision = chosen.partition("-")
    opened = open_cross_encoder(model, runtime, precision)
    if opened.note:
        return replace(opened, note=f"rerank.runtime=auto chose {chosen} ({why}), but {opened.note}")
    return opened
