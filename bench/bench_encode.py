"""Encoder runtimes compared: each runtime and precision on the same SciFact texts, in one process.

    python bench/bench_encode.py                       # 2,000 texts, 3 rounds
    nice -n 10 python bench/bench_encode.py --texts 200 --rounds 1   # a shared machine

The texts are the first ``--texts`` SciFact abstracts, each its title, a blank line and its text,
cut to 1,000 characters (what the default chunker's 1,000-character chunks hold at most; no
chunker runs, so every runtime gets exactly the same strings). Every runtime is loaded (its
export made or found in the export cache) before any timing. Rounds alternate: each round
encodes all texts with every runtime in turn, then encodes ``--queries`` SciFact queries one at
a time with each, so a change in the machine's load hits all runtimes alike. Prints texts/s
(median over rounds), single-query encode ms p50, the ratio to torch fp32, the min cosine of
each text's vector to torch fp32's, the 1-minute load average while each ran, and what
``embedding.runtime = auto`` picks (a real calibration in a temporary home). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.printing import table  # noqa: E402

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"
MAX_CHARS = 1000


def scifact_texts(count: int) -> list[str]:
    texts = []
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            texts.append(f"{row['title']}\n\n{row['text']}"[:MAX_CHARS])
            if len(texts) == count:
                break
    return texts


def scifact_queries(count: int) -> list[str]:
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as lines:
        return [json.loads(line)["text"] for _, line in zip(range(count), lines)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=20, help="single-query encodes per runtime and round")
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    args = parser.parse_args()

    import numpy as np

    from workbench.embedding.calibration import calibrate
    from workbench.embedding.runtimes import RUNTIMES, TORCH_FP32, open_runtime, runtime_key

    texts, queries = scifact_texts(args.texts), scifact_queries(args.queries)
    embedders, skipped = {}, []
    for runtime in RUNTIMES.values():
        for precision in runtime.precisions:
            opened = open_runtime(args.model, runtime.name, precision)
            key = runtime_key(runtime.name, precision)
            if opened.note and (runtime.name, precision) != TORCH_FP32:
                skipped.append(f"{key}: {opened.note}")
                continue
            embedders[key] = opened.embedder
    baseline = runtime_key(*TORCH_FP32)
    rates = {key: [] for key in embedders}
    query_ms = {key: [] for key in embedders}
    loads = {key: [] for key in embedders}
    vectors = {}
    for round_number in range(args.rounds):
        for key, embedder in embedders.items():
            embedder.embed(texts[:8])  # warm-up outside the timing
            loads[key].append(os.getloadavg()[0])
            started = time.perf_counter()
            encoded = embedder.embed(texts)
            rates[key].append(len(texts) / (time.perf_counter() - started))
            vectors.setdefault(key, encoded)
            for query in queries:
                started = time.perf_counter()
                embedder.embed_queries([query])
                query_ms[key].append((time.perf_counter() - started) * 1000)
        print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr)

    with tempfile.TemporaryDirectory() as home:
        started = time.perf_counter()
        record = calibrate(Path(home), args.model)
        calibration_seconds = time.perf_counter() - started

    fp32_rate = statistics.median(rates[baseline])
    rows = []
    for key in embedders:
        rate = statistics.median(rates[key])
        cosine = float(np.min(np.sum(vectors[key] * vectors[baseline], axis=1)))
        rows.append([key + ("  <- auto" if key == record["chosen"] else ""), f"{rate:.1f}", f"{rate / fp32_rate:.2f}",
                     f"{statistics.median(query_ms[key]):.1f}", f"{cosine:.5f}",
                     f"{statistics.median(loads[key]):.1f}"])
    table(f"encoder runtimes ({args.model}; {len(texts)} SciFact texts of title + text cut to {MAX_CHARS} chars; "
          f"{args.rounds} alternating round(s); {len(queries)} single queries per runtime and round)",
          ["runtime-precision", "texts/s", "vs torch fp32", "query ms p50", "min cosine to fp32", "load (1m)"], rows)
    print(f"\nauto picks {record['chosen']}: the fastest with cosine >= {record['min_cosine']} to fp32 on its own "
          f"{record['sample_texts']}-text sample ({record['seconds']} s measuring and {record['export_seconds']} s "
          f"loading, the exports already cached; {calibration_seconds:.1f} s in all, at load {record['load_average']})")
    for line in skipped:
        print(f"not measured: {line}")


if __name__ == "__main__":
    main()
