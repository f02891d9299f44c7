"""OpenVINO: the model converted by OpenVINO's own converter from the PyTorch module.

bf16 is a compile-time hint (``INFERENCE_PRECISION_HINT``); the saved graph stays fp32, so one
export serves both precisions. int8 is a graph of its own: the fp32 conversion quantized
statically, per channel, by NNCF (``workbench.embedding.static_int8``), in its own export folder;
what it leaves in float runs in f32 (no bf16 hint: int8 is for CPUs without bf16, and on one with
it bf16 alone is already faster and closer to fp32).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from workbench.embedding.exported import ExportedEmbedder, Lane

_HINTS = {"fp32": "f32", "bf16": "bf16", "int8": "f32"}

#: tokenizes a batch of calibration texts into the graph's inputs (int8 only)
Features = Callable[[list[str]], list[np.ndarray]]


def export_openvino(
    folder: Path,
    graph,
    example: tuple,
    names: tuple[str, ...],
    precision: str,
    features: Features | None = None,
    calibration: list[str] | None = None,
) -> None:
    """Convert ``graph`` (traced on ``example``) into ``folder``; one fp32 graph serves fp32 and bf16,
    int8 quantizes it on ``calibration`` texts, tokenized by ``features``."""
    import openvino as ov

    dynamic = [(ov.PartialShape([-1, -1]), ov.Type.i64) for _ in names]
    converted = ov.convert_model(graph, example_input=example, input=dynamic)
    if precision == "int8":
        from workbench.embedding.static_int8 import calibration_texts, quantize_openvino

        if features is None:
            raise ValueError("openvino int8 needs a tokenizer to calibrate its quantization")
        converted = quantize_openvino(converted, calibration or calibration_texts(), features)
    ov.save_model(converted, str(folder / "model.xml"), compress_to_fp16=False)


def openvino_variant(precision: str, prefix: str = "openvino") -> str:
    """The export-cache folder's name: fp32 and bf16 share the fp32 graph, int8 has its own."""
    if precision == "int8":
        from workbench.embedding.static_int8 import VARIANT

        return f"{prefix}-{VARIANT}"
    return prefix


def open_openvino(folder: Path, precision: str, config: dict[str, str] | None = None, lanes: int = 1) -> list[Lane]:
    """The export in ``folder`` compiled at ``precision``: one callable (from int64 arrays to the
    output) per lane, each with its own inference request. One lane runs each request on all cores;
    with more, the model is compiled into that many single-core streams. ``config`` adds compile
    properties (the bench's no-bf16 emulation)."""
    import openvino as ov

    properties = {"INFERENCE_PRECISION_HINT": _HINTS[precision], **(config or {})}
    if lanes > 1:
        properties |= {"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": str(lanes)}
    compiled = ov.Core().compile_model(str(folder / "model.xml"), "CPU", properties)
    output = compiled.output(0)

    def lane() -> Lane:
        request = compiled.create_infer_request()  # a request is used by one thread at a time

        def run(arrays):
            return request.infer(dict(enumerate(arrays)))[output]

        return run

    return [lane() for _ in range(lanes)]


class OpenVinoEmbedder(ExportedEmbedder):
    runtime = "openvino"

    @property
    def variant(self) -> str:
        return openvino_variant(self.precision)

    def _build(self, folder: Path, graph, example: tuple, names: tuple[str, ...]) -> None:
        export_openvino(folder, graph, example, names, self.precision, self._features)

    def _features(self, texts: list[str]) -> list[np.ndarray]:
        return self._tokenized([self.passage_prefix + text for text in texts])

    def _open(self, folder: Path, lanes: int) -> list[Lane]:
        return open_openvino(folder, self.precision, lanes=lanes)
