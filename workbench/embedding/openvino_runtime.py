"""OpenVINO: the model converted by OpenVINO's own converter from the PyTorch module.

bf16 is a compile-time hint (``INFERENCE_PRECISION_HINT``); the saved graph stays fp32, so one
export serves both precisions.
"""

from __future__ import annotations

from pathlib import Path

from workbench.embedding.exported import ExportedEmbedder

_HINTS = {"fp32": "f32", "bf16": "bf16"}


def export_openvino(folder: Path, graph, example: tuple, names: tuple[str, ...], precision: str) -> None:
    """Convert ``graph`` (traced on ``example``) into ``folder``; one fp32 graph serves every precision."""
    import openvino as ov

    dynamic = [(ov.PartialShape([-1, -1]), ov.Type.i64) for _ in names]
    converted = ov.convert_model(graph, example_input=example, input=dynamic)
    ov.save_model(converted, str(folder / "model.xml"), compress_to_fp16=False)


def open_openvino(folder: Path, precision: str):
    """The export in ``folder`` compiled at ``precision``: a callable from int64 arrays to the output."""
    import openvino as ov

    compiled = ov.Core().compile_model(
        str(folder / "model.xml"), "CPU", {"INFERENCE_PRECISION_HINT": _HINTS[precision]}
    )
    request = compiled.create_infer_request()  # one request: callers hold their model's lock

    def run(arrays):
        return request.infer(dict(enumerate(arrays)))[compiled.output(0)]

    return run


class OpenVinoEmbedder(ExportedEmbedder):
    runtime = "openvino"
    variant = "openvino"

    def _build(self, folder: Path, graph, example: tuple, names: tuple[str, ...]) -> None:
        export_openvino(folder, graph, example, names, self.precision)

    def _open(self, folder: Path):
        return open_openvino(folder, self.precision)
