"""Cross-encoder runtimes: one ``CrossEncoder`` scored by PyTorch (fp32, or bf16 autocast) or by
its graph exported to OpenVINO or ONNX Runtime, with the encoder runtimes' machinery.

The export is made once from the local weights (never downloaded) into the export cache
(``workbench.embedding.exported``), traced from token ids to the model's raw ``scores``; the
model's own tokenizer and activation (a sigmoid for most one-logit models) run around it, so
every runtime returns what ``CrossEncoder.predict`` would. A runtime that cannot run here falls
back to torch fp32 with a note naming the setting and the cause.
"""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.embedding.exported import BATCH_SIZE, cached_export
from workbench.embedding.runtimes import TORCH_FP32, check_runtime, runtime_key
from workbench.embedding.sentence_graph import graph_inputs, sentence_graph, tokenize
from workbench.text import first_line

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

Pairs = list[tuple[str, str]]
#: a pair to trace the graph with and to probe a freshly opened runtime
PROBE = [("what does a cross-encoder read", "the query and the passage together"), ("短查询", "一段较长的中文段落")]


class RerankerLoadError(RuntimeError):
    """A cross-encoder model could not be loaded; the message names the model and the fix."""


@dataclass(frozen=True)
class OpenedCrossEncoder:
    """A cross-encoder ready to score, the runtime that scores it, and why not the one asked for."""

    model: CrossEncoder  # tokenizer, activation, and the torch weights
    runtime: str
    precision: str
    score_pairs: Callable[[Pairs], np.ndarray]
    note: str = ""
    #: a stand-in while ``auto`` calibrates: open it again once the calibration is recorded
    provisional: bool = False

    @property
    def key(self) -> str:
        return runtime_key(self.runtime, self.precision)


def load_cross_encoder(name: str) -> tuple[CrossEncoder, Path]:
    """The ``CrossEncoder`` for a ``rerank.model`` value, from local files only, and its folder."""
    # The workbench never downloads weights; the environment flag also covers code paths in the
    # Hugging Face libraries that do not see ``local_files_only``.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from workbench.models.availability import ModelNotAvailableError, require_available
    from workbench.models.catalogue import RERANK

    try:
        folder = require_available(name, RERANK)
    except ModelNotAvailableError as error:
        raise RerankerLoadError(str(error)) from None
    from sentence_transformers import CrossEncoder

    try:
        return CrossEncoder(str(folder), local_files_only=True), folder
    except Exception as error:
        raise RerankerLoadError(
            f"cannot load rerank model {name!r} from {folder}: {first_line(error, with_type=True)}"
        ) from error


def torch_scorer(model: CrossEncoder, precision: str) -> Callable[[Pairs], np.ndarray]:
    """``CrossEncoder.predict``, under bf16 autocast for bf16 (the same weights, shared)."""

    def score(pairs: Pairs) -> np.ndarray:
        import torch

        arithmetic = torch.autocast("cpu", dtype=torch.bfloat16) if precision == "bf16" else contextlib.nullcontext()
        with arithmetic:
            return np.asarray(model.predict(pairs, show_progress_bar=False, convert_to_numpy=True), dtype=np.float32)

    return score


def exported_scorer(model: CrossEncoder, folder: Path, runtime: str, precision: str) -> Callable[[Pairs], np.ndarray]:
    """The model's graph exported to ``runtime`` (made once, cached beside the encoder exports)."""
    names = graph_inputs(model, PROBE[:1])
    export: Callable[[Path, Any, tuple[Any, ...], tuple[str, ...], str], None]
    open_graph: Callable[[Path, str], list[Callable[[list[np.ndarray]], np.ndarray]]]
    if runtime == "openvino":
        from workbench.embedding.openvino_runtime import export_openvino, open_openvino, openvino_variant

        def features(texts: list[str]) -> list[np.ndarray]:
            # int8 calibrates on the calibration texts as (first sentence, whole passage) pairs:
            # a query-like line and a passage, the cross-encoder's two inputs
            found = tokenize(model, [(text.split(". ")[0], text) for text in texts])
            return [found[n].numpy().astype(np.int64) for n in names]

        def export_calibrated(
            target: Path, graph: Any, example: tuple[Any, ...], inputs: tuple[str, ...], at: str
        ) -> None:
            export_openvino(target, graph, example, inputs, at, features)

        export, open_graph = export_calibrated, open_openvino
        variant = openvino_variant(precision, "rerank-openvino")  # bf16 is a compile hint: fp32's graph
    else:
        from workbench.embedding.onnx_runtime import export_onnx, onnx_variant, open_onnx

        export, open_graph = export_onnx, open_onnx
        variant = onnx_variant(precision, "rerank-onnx")
    activation = model.activation_fn
    if activation is None:  # CrossEncoder always sets one (its default when given none)
        raise RerankerLoadError(f"cross-encoder at {folder} has no activation function to apply to its raw scores")

    def build(target: Path) -> None:
        import torch

        example = tuple(tokenize(model, PROBE)[name] for name in names)
        with torch.no_grad(), warnings.catch_warnings():  # tracer warnings about constant shape checks
            warnings.simplefilter("ignore")
            export(target, sentence_graph(model, names, output="scores"), example, names, precision)

    (run,) = open_graph(cached_export(folder, variant, build), precision)  # one lane, on every core
    lock = threading.Lock()  # one inference request per graph

    def score(pairs: Pairs) -> np.ndarray:
        import torch

        order = sorted(range(len(pairs)), key=lambda i: -sum(map(len, pairs[i])))  # similar lengths pad less
        parts = []
        with lock:
            for start in range(0, len(order), BATCH_SIZE):
                features = tokenize(model, [pairs[i] for i in order[start : start + BATCH_SIZE]])
                logits = np.asarray(run([features[n].numpy().astype(np.int64) for n in names]), dtype=np.float32)
                parts.append(activation(torch.from_numpy(logits)).numpy().reshape(len(logits), -1)[:, 0])
        scores = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
        out = np.empty_like(scores)
        out[order] = scores
        return out

    return score


def open_cross_encoder(name: str, runtime: str, precision: str) -> OpenedCrossEncoder:
    """``name`` on ``runtime`` at ``precision``, tried on a probe pair; when that runtime cannot run
    it, torch fp32 and a note naming the setting and the cause. A model that does not load at all
    raises ``RerankerLoadError``."""
    model, folder = load_cross_encoder(name)
    if (runtime, precision) == TORCH_FP32:
        return OpenedCrossEncoder(model, runtime, precision, torch_scorer(model, precision))
    try:
        check_runtime(runtime, precision, section="rerank")
        score = (
            torch_scorer(model, precision) if runtime == "torch" else exported_scorer(model, folder, runtime, precision)
        )
        score(PROBE)
    except Exception as error:  # a missing package, an unsupported model, a failed export: all fall back
        note = (
            f"rerank.runtime={runtime}, rerank.precision={precision} could not run {name!r} "
            f"({first_line(error)}); using torch fp32 instead"
        )
        return OpenedCrossEncoder(model, *TORCH_FP32, torch_scorer(model, "fp32"), note)
    return OpenedCrossEncoder(model, runtime, precision, score)
