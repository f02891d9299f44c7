"""ONNX Runtime: the model exported with ``torch.onnx.export``; int8 is ONNX Runtime's dynamic
quantization of the MatMul weights, one scale per weight tensor, made once from the fp32 export.

Per-channel quantization was dropped: on the suite's small cross-encoder its logits moved by up to
2.6 from fp32, against 0.5 per tensor (onnxruntime 1.23 and 1.32 alike).

(optimum's exporter does not work with transformers 5, so the graph is traced here.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from workbench.embedding.exported import ExportedEmbedder


def export_onnx(folder: Path, graph, example: tuple, names: tuple[str, ...], precision: str) -> None:
    """Export ``graph`` (traced on ``example``) into ``folder``/model.onnx, quantized for int8."""
    import onnxruntime  # noqa: F401 -- a missing runtime fails before the slow export
    import torch

    exported = folder / "fp32.onnx"
    torch.onnx.export(
        graph,
        example,
        str(exported),
        input_names=list(names),
        output_names=["output"],
        dynamic_axes={n: {0: "batch", 1: "tokens"} for n in names},
        dynamo=False,
        opset_version=17,
    )
    if precision == "int8":
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(
            str(exported),
            str(folder / "model.onnx"),
            weight_type=QuantType.QInt8,
            per_channel=False,
            op_types_to_quantize=["MatMul"],
        )
        exported.unlink()
    else:
        shutil.move(exported, folder / "model.onnx")


def open_onnx(folder: Path, precision: str):
    """The export in ``folder`` in an ONNX Runtime session: a callable from int64 arrays to the output."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]

    def run(arrays):
        return session.run(None, dict(zip(names, arrays, strict=False)))[0]

    return run


class OnnxEmbedder(ExportedEmbedder):
    runtime = "onnx"

    def _build(self, folder: Path, graph, example: tuple, names: tuple[str, ...]) -> None:
        export_onnx(folder, graph, example, names, self.precision)

    def _open(self, folder: Path):
        return open_onnx(folder, self.precision)
