"""Static per-channel int8 for the OpenVINO runtime: NNCF post-training quantization of the
exported fp32 graph, calibrated once per model on a fixed slice of texts and kept in the export
cache (``openvino-int8-q<QUANTIZATION_FORMAT>``), so it is built once per machine.

Why static and per channel: ONNX Runtime's dynamic int8 (``onnx_runtime.py``) quantizes each
weight tensor with one scale and each activation at run time; on all-MiniLM-L6-v2 its vectors
kept a cosine of 0.904 to fp32's, and calibration refused it. Here every output channel of a
weight gets its own scale, activations get scales measured on real text, and NNCF's transformer
preset (``ModelType.TRANSFORMER``) leaves what int8 hurts most in fp32: softmax, layer norms,
GELU and the pooling stay float; SmoothQuant moves activation outliers into the weights first;
and each layer's feed-forward output projection, the one measured to lose most, stays fp32.

The calibration texts are ``CALIBRATION_SENTENCES`` put together into passages of one to ten
sentences, English and Chinese. They share no sentence with ``calibration.calibration_sample``,
the texts auto's calibration measures the cosine on: a quantization is accepted on texts it was
not calibrated on (``calibration.MIN_COSINE_INT8``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

#: bump when the quantization (texts, NNCF settings) changes, so older int8 exports are not reused
QUANTIZATION_FORMAT = 2  # 2: MIXED preset, the feed-forward output layers kept in fp32
VARIANT = f"int8-q{QUANTIZATION_FORMAT}"
CALIBRATION_TEXTS = 64
#: each transformer layer's feed-forward output projection (not the attention's, ``attention.output``)
FEED_FORWARD_OUTPUT = r".*layer\.\d+\.output\.dense.*"
CALIBRATION_BATCH = 8

CALIBRATION_SENTENCES = (
    "The tenant must give the landlord thirty days of written notice before moving out.",
    "Preheat the oven to 180 degrees and grease a round cake tin with butter.",
    "The central bank raised its policy rate by a quarter point to slow inflation.",
    "合同双方应当按照约定全面履行自己的义务，不得擅自变更或者解除合同。",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "The compiler reports an error when a variable is used before it is declared.",
    "这座城市的地铁网络在过去十年里扩展了一倍，每天运送近一千万名乘客。",
    "Patients with chronic kidney disease often develop anaemia as the disease progresses.",
    "The river flooded the lower town twice in the nineteenth century.",
    "如果服务器在三秒内没有响应，客户端会自动重试两次，然后报告超时错误。",
    "Shares of the chip maker fell eight percent after it cut its revenue forecast.",
    "A binary search halves the interval at every step, so it needs logarithmic time.",
    "研究表明，每天步行三十分钟可以显著降低心血管疾病的风险。",
    "The museum's new wing displays ceramics from the Song and Ming dynasties.",
    "Mix the flour, sugar and salt, then rub in the cold butter until it looks like breadcrumbs.",
    "请在提交报销申请时附上原始发票，并由部门负责人签字确认。",
    "The vaccine's efficacy against severe illness remained above ninety percent after six months.",
    "Each replica acknowledges a write only after it has been flushed to its local log.",
    "该算法先对文档进行分词，再根据词频和逆文档频率计算每个词的权重。",
    "Glaciers in the Alps have lost about half of their volume since 1900.",
    "The committee postponed its decision on the budget until the next quarterly meeting.",
    "在高温天气下，建议老人和儿童减少户外活动，并注意补充水分。",
    "Transformer models attend to every token of the input when computing each representation.",
    "Error 0x80070005: access is denied; run the installer as an administrator and try again.",
)


def calibration_texts(count: int = CALIBRATION_TEXTS) -> list[str]:
    """The fixed quantization slice: ``count`` passages of 1 to 10 sentences (up to about the
    encoder's 256-token window), so the activation ranges cover short and long inputs alike."""
    n = len(CALIBRATION_SENTENCES)
    return [" ".join(CALIBRATION_SENTENCES[(i * 7 + j) % n] for j in range(1 + (i * 3) % 10)) for i in range(count)]


def quantize_openvino(
    model,
    texts: Sequence[str],
    features: Callable[[list[str]], list[np.ndarray]],
):
    """``model`` (an ``openvino.Model`` taking int64 token-id arrays) with int8 weights (one scale
    per output channel) and int8 activations calibrated on ``texts``; ``features`` tokenizes a
    batch of texts into the model's inputs."""
    import nncf

    batches = [
        dict(enumerate(features(list(texts[start : start + CALIBRATION_BATCH]))))
        for start in range(0, len(texts), CALIBRATION_BATCH)
    ]
    return nncf.quantize(
        model,
        nncf.Dataset(batches),
        model_type=nncf.ModelType.TRANSFORMER,
        # asymmetric activations: GELU's outputs are nearly all on one side of zero
        preset=nncf.QuantizationPreset.MIXED,
        subset_size=len(batches),
        # the layer after GELU loses most: with it quantized all-MiniLM-L6-v2's min cosine to fp32 on
        # texts it was not calibrated on was 0.982 (MIXED 0.984), with it in fp32 0.993 (SciFact
        # abstracts: 0.973, 0.991); BERT-style names, absent from other models (validate=False)
        ignored_scope=nncf.IgnoredScope(patterns=[FEED_FORWARD_OUTPUT], validate=False),
    )


def save_quantized(folder: Path, model) -> None:
    import openvino as ov

    ov.save_model(model, str(folder / "model.xml"), compress_to_fp16=False)
