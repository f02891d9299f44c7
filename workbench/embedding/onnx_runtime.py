"""ONNX Runtime: the model exported with ``torch.onnx.export``; int8 is ONNX Runtime's dynamic
quantization of the MatMul weights, made once from the fp32 export.

How int8 is quantized, as measured on all-MiniLM-L6-v2 and 400 SciFact texts on an AMD EPYC
without VNNI (min cosine to torch fp32, texts/s on two lanes against torch fp32's 11.5):

- one scale per weight tensor: min cosine 0.63 to 0.87, refused;
- one scale per output channel, full 8-bit range: 0.983, 26.6 texts/s. Without VNNI, AVX2 adds two
  u8 x s8 products in 16 bits (``vpmaddubsw``), which saturates; ``reduce_range`` keeps weights to
  7 bits so it cannot: 0.987;
- that, with each layer's feed-forward output projection (the one whose input, after GELU, spreads
  widest) left in fp32: **0.995**, 24.0 texts/s (2.1x). That is ``QUANTIZATION_FORMAT`` 3.

The attention's score products (activation x activation) are never quantized: dynamic quantization
quantizes a MatMul only when one side is a weight.

(optimum's exporter does not work with transformers 5, so the graph is traced here.)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from workbench.embedding.exported import ExportedEmbedder, Lane

#: bump when int8's quantization changes, so older int8 exports are not reused
QUANTIZATION_FORMAT = 3  # 3: per channel, 7-bit weights, feed-forward outputs kept in fp32
#: each transformer layer's feed-forward output projection, as ``torch.onnx.export`` names it
#: (``/encoder/layer.3/output/dense/MatMul``; the attention's is ``layer.3/attention/output/dense``)
FEED_FORWARD_OUTPUT = re.compile(r"layer\.\d+/output/dense/")


def onnx_variant(precision: str, prefix: str = "onnx") -> str:
    """The export-cache folder's name; int8's carries its quantization format."""
    return f"{prefix}-int8-q{QUANTIZATION_FORMAT}" if precision == "int8" else f"{prefix}-{precision}"


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
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        kept_float = [
            node.name
            for node in onnx.load(str(exported)).graph.node
            if node.op_type == "MatMul" and FEED_FORWARD_OUTPUT.search(node.name)
        ]
        quantize_dynamic(
            str(exported),
            str(folder / "model.onnx"),
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=True,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=kept_float,
        )
        exported.unlink()
    else:
        shutil.move(exported, folder / "model.onnx")


def open_onnx(folder: Path, precision: str, lanes: int = 1) -> list[Lane]:
    """The export in ``folder`` in one ONNX Runtime session: one callable (from int64 arrays to the
    output) per lane. One lane runs on all cores; with more, each call runs on one thread, and the
    lanes share the session (``run`` is safe to call from several threads at once)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    if lanes > 1:
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]

    def run(arrays):
        return session.run(None, dict(zip(names, arrays, strict=False)))[0]

    return [run] * lanes


class OnnxEmbedder(ExportedEmbedder):
    runtime = "onnx"

    @property
    def variant(self) -> str:
        return onnx_variant(self.precision)

    def _build(self, folder: Path, graph, example: tuple, names: tuple[str, ...]) -> None:
        export_onnx(folder, graph, example, names, self.precision)

    def _open(self, folder: Path, lanes: int) -> list[Lane]:
        return open_onnx(folder, self.precision, lanes)
