"""Each runtime's measured speed and quality cost, as rows the Documents page and ``models list``
show: speed from a calibration record (the encoder's in the home, the cross-encoder's in the
machine's folder), SciFact nDCG@10 from the home's quality records (``workbench.embedding.quality``,
written by ``python bench/bench_encode.py --ndcg``). Nothing here measures or estimates: a runtime
without a record was not measured, and the table says how to measure it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.embedding.calibration import read_calibrations
from workbench.embedding.quality import read_quality
from workbench.embedding.runtimes import TORCH_FP32, runtime_key

NOT_MEASURED = "not measured"
MEASURE_COMMAND = "python bench/bench_encode.py --ndcg"
FP32 = runtime_key(*TORCH_FP32)


@dataclass(frozen=True)
class RuntimeQuality:
    """SciFact nDCG@10 of one model on one runtime, and the change from torch fp32's (None when
    torch fp32 was not measured)."""

    dense_ndcg10: float
    hybrid_ndcg10: float
    dense_delta: float | None
    hybrid_delta: float | None
    measured_at: str


def runtime_quality(home: Path, model: str) -> dict[str, RuntimeQuality]:
    """Each runtime key (``openvino-bf16``) of ``model`` with a SciFact nDCG@10 recorded in ``home``
    on this machine; a record without both numbers counts as not measured."""
    found = {}
    for key, record in (read_quality(home).get(model) or {}).items():
        ndcg = record.get("ndcg@10") if isinstance(record, dict) else None
        if not isinstance(ndcg, dict) or not all(isinstance(ndcg.get(m), (int, float)) for m in ("dense", "hybrid")):
            continue
        delta = record.get("vs_torch_fp32") if isinstance(record.get("vs_torch_fp32"), dict) else {}
        found[key] = RuntimeQuality(
            float(ndcg["dense"]),
            float(ndcg["hybrid"]),
            _number(delta.get("dense")),
            _number(delta.get("hybrid")),
            str(record.get("measured", "")),
        )
    return found


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


@dataclass(frozen=True)
class RuntimeRow:
    model: str
    runtime: str  # runtime-precision, e.g. openvino-bf16
    chosen: bool  # what auto picks
    speed: float | None  # texts/s (encoder) or pairs/s (cross-encoder)
    ratio: float | None  # speed against torch fp32's
    query_ms: float | None  # one query's encode (encoder only)
    agreement: str  # how close to torch fp32: "min cosine 0.99997", "min tau 1.0000"
    export_s: float | None  # the first export's seconds, apart from the measuring
    quality: RuntimeQuality | None = None
    unavailable: str = ""
    #: why auto would not pick it though it runs (``calibration.refusal``); "" when accepted
    refused: str = ""


def rows_from_record(
    model: str, record: dict, speed_key: str, quality: dict[str, RuntimeQuality] | None = None
) -> list[RuntimeRow]:
    runtimes = record.get("runtimes", {}) if isinstance(record.get("runtimes"), dict) else {}
    fp32 = runtimes.get(FP32, {}).get(speed_key) or 0
    rows = []
    for key, numbers in runtimes.items():
        chosen = key == record.get("chosen")
        if "error" in numbers:
            rows.append(RuntimeRow(model, key, chosen, None, None, None, "", None, unavailable=str(numbers["error"])))
            continue
        speed = numbers.get(speed_key)
        if "min_cosine" in numbers:
            agreement = f"min cosine {numbers['min_cosine']:.5f}"
        else:
            agreement = f"min tau {numbers.get('min_tau', 0):.4f}, max |Δscore| {numbers.get('max_abs_diff', 0):.4f}"
        rows.append(
            RuntimeRow(
                model,
                key,
                chosen,
                speed,
                round(speed / fp32, 2) if fp32 and speed else None,
                numbers.get("query_ms_p50"),
                agreement,
                numbers.get("export_s"),
                (quality or {}).get(key),
                refused=str(numbers.get("refused", "")),
            )
        )
    return rows


def encoder_runtime_rows(home: Path) -> list[RuntimeRow]:
    """Every encoder runtime measured on this machine, by model, with its SciFact nDCG@10 if measured."""
    return [
        row
        for model, record in sorted(read_calibrations(home).items())
        for row in rows_from_record(model, record, "texts_per_s", runtime_quality(home, model))
    ]


def calibration_summary(model: str, record: dict, sample_key: str, unit: str) -> str:
    """``m: 40 texts measured in 4.1 s (plus 12.0 s exporting), 2026-11-25 13:35, load average 0.5``."""
    exporting = record.get("export_seconds")
    exported = f" (plus {exporting} s loading and exporting)" if exporting is not None else ""
    return (
        f"{model}: {record.get(sample_key)} {unit} measured in {record.get('seconds')} s{exported}, "
        f"{record.get('measured')}, load average {record.get('load_average')}"
    )


def ndcg_text(quality: RuntimeQuality | None) -> str:
    """``dense 0.6731 (+0.0001) hybrid 0.7190 (+0.0002)``, or what to run to measure it."""
    if quality is None:
        return NOT_MEASURED
    if quality.dense_delta is None:
        return f"dense {quality.dense_ndcg10:.4f} hybrid {quality.hybrid_ndcg10:.4f} (torch-fp32 not measured)"
    return (
        f"dense {quality.dense_ndcg10:.4f} ({quality.dense_delta:+.4f}) "
        f"hybrid {quality.hybrid_ndcg10:.4f} ({quality.hybrid_delta:+.4f})"
    )


def table_cells(row: RuntimeRow, unit: str) -> dict:
    """One row of the runtime table as the pages show it."""

    def number(value, digits):
        return None if value is None else round(value, digits)

    quality = row.quality
    return {
        "model": row.model,
        "runtime": row.runtime,
        "auto picks": "✓" if row.chosen else "",
        f"{unit}/s": number(row.speed, 1),
        "vs torch fp32": number(row.ratio, 2),
        "ms/query": number(row.query_ms, 1),
        "agreement with fp32": row.unavailable and "" or row.agreement,
        "export s": number(row.export_s, 1),
        "SciFact nDCG@10 dense (Δ fp32)": _ndcg_cell(quality, "dense"),
        "SciFact nDCG@10 hybrid (Δ fp32)": _ndcg_cell(quality, "hybrid"),
        "unavailable": row.unavailable,
        "auto refuses it because": row.refused,
    }


def _ndcg_cell(quality: RuntimeQuality | None, route: str) -> str:
    if quality is None:
        return NOT_MEASURED
    value, delta = getattr(quality, f"{route}_ndcg10"), getattr(quality, f"{route}_delta")
    return f"{value:.4f}" + ("" if delta is None else f" ({delta:+.4f})")


def how_to_measure_quality(home: Path) -> str:
    return (
        f"SciFact nDCG@10 per runtime is not measured for this home yet; measure it with: {MEASURE_COMMAND} "
        f"--record-in {home}"
    )
