"""What the exported runtimes (OpenVINO, ONNX Runtime) share: a sentence-transformers model
traced once into a graph that returns its sentence embedding, kept in an export cache, and fed
by the model's own tokenizer.

The export cache is per user, not beside the weights: the bundled model lives in site-packages
and downloaded ones in the shared Hugging Face cache, both of which may be read-only, and one
export serves every home on the machine. ``$WORKBENCH_EXPORT_CACHE`` moves it (tests use a
temporary folder). A folder is keyed by the weights' path, sizes and times, so new weights
export again; it is written under a temporary name and renamed, so a crash leaves no half export.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
import warnings
from abc import abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, TypeAlias

import numpy as np

from workbench.embedding.machine import encoder_lanes
from workbench.embedding.sentence_graph import graph_inputs, sentence_graph, tokenize
from workbench.embedding.sentence_transformer import SentenceTransformerEmbedder
from workbench.embedding.token_ids import CountedIds
from workbench.threads import on_threads

EXPORT_CACHE_ENV = "WORKBENCH_EXPORT_CACHE"
#: bump when the exported graph changes, so older exports are not reused
EXPORT_FORMAT = 2  # 2: int8 quantized per tensor, not per channel
BATCH_SIZE = 32
#: one opened export's forward pass: batch features (int64 arrays in the graph's input order) to
#: its output; each lane is called by one thread at a time, and lanes run at once
Lane: TypeAlias = Callable[[list[np.ndarray]], np.ndarray]


def export_root() -> Path:
    return Path(os.environ.get(EXPORT_CACHE_ENV) or Path.home() / ".cache" / "rag-workbench" / "exports")


def weights_fingerprint(folder: Path) -> str:
    digest = hashlib.sha256(str(folder.resolve()).encode())
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        stat = path.stat()
        digest.update(f"{path.relative_to(folder)}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:12]


def cached_export(folder: Path, variant: str, build: Callable[[Path], None]) -> Path:
    """The export folder for these weights and ``variant``, built by ``build(tmp_folder)`` once."""
    target = export_root() / f"{folder.name}-{weights_fingerprint(folder)}" / f"{variant}-v{EXPORT_FORMAT}"
    if (target / "done").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{variant}-", dir=target.parent))
    try:
        build(scratch)
        (scratch / "done").write_text("ok", encoding="utf-8")
        if not (target / "done").exists():  # else another process finished first: keep its export
            shutil.rmtree(target, ignore_errors=True)  # a half export left by a crash
            os.replace(scratch, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


class ExportedEmbedder(SentenceTransformerEmbedder):
    """Tokenizes with the sentence-transformers model and runs the exported graph.

    The graph is built (or found in the export cache) on first use; a failure there raises, and
    the runtime choice (``workbench.embedding.runtimes``) turns it into a fallback note.
    """

    #: the runtime's name (``embedding.runtime``), set by each subclass
    runtime: ClassVar[str]

    def __init__(self, name: str, model: str, precision: str):
        super().__init__(name, model)
        self.precision = precision
        self._graph: list[Lane] | None = None
        self._names: tuple[str, ...] = ()
        self._graph_lock = threading.Lock()
        self._counted: CountedIds | None = None

    @abstractmethod
    def _build(self, folder: Path, graph, example: tuple, names: tuple[str, ...]) -> None:
        """Write this runtime's export of ``graph`` into ``folder``."""

    @abstractmethod
    def _open(self, folder: Path, lanes: int) -> list[Lane]:
        """Load the export in ``folder`` as ``lanes`` lanes (one runs on every core, more run one
        core each)."""

    def _runner(self) -> list[Lane]:
        if self._graph is None:
            with self._graph_lock:
                if self._graph is None:
                    from workbench.models.availability import require_available
                    from workbench.models.catalogue import EMBEDDING

                    model = self.model
                    self._graph_inputs()
                    weights = require_available(self.model_name, EMBEDDING)

                    def build(folder: Path) -> None:
                        import torch

                        example = tuple(
                            tokenize(model, ["an example sentence to trace", "and another"])[n] for n in self._names
                        )
                        # the tracers warn about shape checks that are constant for this graph
                        with torch.no_grad(), warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            self._build(folder, sentence_graph(model, self._names), example, self._names)

                    self._graph = self._open(cached_export(weights, self.variant, build), encoder_lanes())
        return self._graph

    @property
    def variant(self) -> str:
        """The export-cache folder's name: precisions that share one graph share one folder."""
        return f"{type(self).runtime}-{self.precision}"

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        lanes = self._runner()
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # similar lengths pad less
        with self._use_lock:
            counted = self._counted_ids()
            batches = []
            for start in range(0, len(order), BATCH_SIZE):
                batch = [texts[i] for i in order[start : start + BATCH_SIZE]]
                batches.append(counted.features(batch) or self._tokenized(batch))
            if len(lanes) > 1 and len(texts) > 1:
                batches = [one for features in batches for one in self._one_by_one(features)]
            vectors = np.vstack(on_lanes(lanes, batches))
        out = np.empty_like(vectors)
        out[order] = vectors
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def _one_by_one(self, features: list[np.ndarray]) -> list[list[np.ndarray]]:
        """A batch's features as one text each, cut to its own tokens: a lane runs one text, so no
        text pays for another's length. Only right padding is cut (the model's tokenizer pads on
        the right; otherwise each keeps the batch's width)."""
        names = self._graph_inputs()
        rows = len(features[0])
        if "attention_mask" not in names or getattr(self.model.tokenizer, "padding_side", "right") != "right":
            return [[array[row : row + 1] for array in features] for row in range(rows)]
        lengths = features[names.index("attention_mask")].sum(axis=1)
        return [[array[row : row + 1, : int(lengths[row])] for array in features] for row in range(rows)]

    def token_counts(self, texts: list[str]) -> list[int] | None:
        prefixed = [self.passage_prefix + text for text in texts]
        with self._use_lock:
            ids = self._untruncated_ids(prefixed)
            self._counted_ids().remember(prefixed, ids)  # an import encodes most of them next
        return [len(row) for row in ids]

    def _tokenized(self, texts: list[str]) -> list[np.ndarray]:
        features = tokenize(self.model, texts)
        return [features[name].numpy().astype(np.int64) for name in self._graph_inputs()]

    def _graph_inputs(self) -> tuple[str, ...]:
        if not self._names:
            self._names = graph_inputs(self.model)
        return self._names

    def _counted_ids(self) -> CountedIds:
        """Made on first use, with the check that decides whether counted ids are reused (callers
        hold the lock)."""
        if self._counted is None:
            model = self.model
            self._counted = CountedIds(
                self._graph_inputs(),
                model.max_seq_length,
                model.tokenizer.pad_token_id,
                self._tokenized,
                self._untruncated_ids,
            )
        return self._counted


def on_lanes(lanes: list[Lane], batches: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Each batch's output, in order. With several lanes, each runs on a thread of its own (the
    runtimes release the GIL while they compute) and takes the next batch when it is free: a lane
    slowed by another process on its core holds back only the batch it is running."""
    return [np.asarray(output, dtype=np.float32) for output in on_threads(lanes, batches, "encoder-lane")]
