"""A sentence-transformers model as a graph from token ids to its sentence embedding.

The exported runtimes (OpenVINO, ONNX Runtime) trace it into their own formats. The torch
runtime traces it into TorchScript for query-sized batches, for one reason: the GIL. Eager
PyTorch releases and retakes the GIL at every operator, about a hundred for one forward pass
of MiniLM; while another Python thread computes (a ``tune`` trial in the MCP server, a page
drawing in the app), each retake waits up to the interpreter's switch interval (5 ms). Measured
on 2 cores: one query took 13.8 ms alone, 860 ms beside one busy Python thread and 4.6 s beside
four; traced, 10.8, 37 and 217 ms (``python bench/bench_query_embedding.py``). A TorchScript
graph runs its operators in C++ and takes the GIL back once, at the end.
"""

from __future__ import annotations

import logging
import threading
import warnings

import numpy as np

log = logging.getLogger(__name__)

#: inputs a BERT-style tokenizer may produce, in the order the graph takes them
GRAPH_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
#: texts the traced graph is checked on, once, against the model's own forward pass: a short one
#: and a longer one, so the check also covers padding
PROBE = ("an example sentence to trace", "and another, longer one: 混合检索如何融合排名，又为何要这样做？")
#: the largest difference from the eager forward pass a traced graph may show and still be used
#: (seen: 0; fp32 arithmetic reordered would be about 1e-7)
TRACE_TOLERANCE = 1e-5


def graph_inputs(model, probe=("probe",)) -> tuple[str, ...]:
    features = tokenize(model, list(probe))
    return tuple(name for name in GRAPH_INPUTS if name in features)


def tokenize(model, texts: list[str] | list[tuple[str, str]]) -> dict:
    """The model's own tokenization (padding, truncation at its max_seq_length), as tensors; a
    cross-encoder's texts are (query, passage) pairs."""
    prepare = getattr(model, "preprocess", None) or model.tokenize
    return {name: value for name, value in prepare(texts).items() if hasattr(value, "numpy")}


def sentence_graph(model, names: tuple[str, ...], output: str = "sentence_embedding"):
    """The model from token ids to ``output`` (a sentence-transformers model's sentence embedding,
    pooling and any dense layers included; a cross-encoder's ``scores``), as a module taking
    positional tensors: what every tracer traces."""
    import torch

    class SentenceGraph(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *tensors):
            return self.model(dict(zip(names, tensors, strict=False)))[output]

    return SentenceGraph().eval()


class TraceMismatchError(RuntimeError):
    """The traced graph's vectors differ from the model's own: it is not used."""


class TracedSentenceModel:
    """A sentence-transformers model's forward pass as one TorchScript graph, checked against
    the model on ``PROBE`` before it is used. Calls are not locked: callers serialise them."""

    def __init__(self, model):
        import torch

        self._model = model
        self._names = graph_inputs(model)
        example = self._arguments(list(PROBE))
        # the tracer warns about shape checks that are constant for this graph
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._graph = torch.jit.trace(sentence_graph(model, self._names), example, check_trace=False)
        texts = [PROBE[0]], list(PROBE)
        with torch.inference_mode():
            expected = [model.encode(batch, convert_to_tensor=True).numpy() for batch in texts]
        # twice: TorchScript optimises a graph on its first runs, so the check is also the warm-up
        for _ in range(2):
            for batch, reference in zip(texts, expected, strict=True):
                difference = float(np.abs(self._forward(batch) - reference).max())
                if difference > TRACE_TOLERANCE:
                    raise TraceMismatchError(
                        f"the traced graph's vectors differ from the model's by {difference:.2g} "
                        f"(more than {TRACE_TOLERANCE:g})"
                    )

    def _arguments(self, texts: list[str]) -> tuple:
        features = tokenize(self._model, texts)
        return tuple(features[name] for name in self._names)

    def _forward(self, texts: list[str]) -> np.ndarray:
        import torch

        with torch.inference_mode():
            return self._graph(*self._arguments(texts)).numpy()

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Unit-length vectors, as ``model.encode(texts, normalize_embeddings=True)`` gives them:
        texts of similar length batched together, as it does, so they pad alike."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors = np.empty((len(texts), 0), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            batch = self._forward([texts[i] for i in rows])
            if not vectors.shape[1]:
                vectors = np.empty((len(texts), batch.shape[1]), dtype=np.float32)
            vectors[rows] = batch
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)


class LazyTrace:
    """One model's traced graph, made on first use; ``None`` (and one log line saying why) where
    the model cannot be traced, so its caller runs the eager forward pass instead."""

    def __init__(self) -> None:
        self._traced: TracedSentenceModel | None = None
        self._failed = False
        self._lock = threading.Lock()

    def get(self, model, name: str) -> TracedSentenceModel | None:
        if self._traced is None and not self._failed:
            with self._lock:
                if self._traced is None and not self._failed:
                    try:
                        self._traced = TracedSentenceModel(model)
                    except Exception as error:  # any model the tracer cannot follow: eager is always right
                        self._failed = True
                        cause = (str(error).strip().splitlines() or [type(error).__name__])[0]
                        log.warning(
                            "embedding model %s could not be traced (%s); it runs the eager forward "
                            "pass, which is slower while other threads compute",
                            name,
                            cause,
                        )
        return self._traced
