"""Ingest throughput against the floor: encoding the same texts with sentence-transformers alone.

    python bench/bench_ingest.py                 # 600 SciFact documents, one round
    python bench/bench_ingest.py --docs 600 --rounds 3

Each round imports the first ``--docs`` SciFact abstracts into a fresh home (cold embedding
cache) with the default settings -- parse workers, chunking, token counts, encoding, catalog
writes, index builds -- and then encodes exactly the chunk texts that import indexed with the
same model object, ``SentenceTransformer.encode(texts, batch_size=64)``, nothing else. Process
start and model load are measured once, separately, and belong to neither. Prints a table with
both times, their ratio, and the machine's load average (the machine may be shared: a ratio
measured under heavy load is noisy, run more rounds). Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

STARTED = time.perf_counter()
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.printing import table  # noqa: E402

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"
RAW_BATCH = 64


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f}/{five:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()

    from workbench.config import WorkbenchConfig
    from workbench.embedding import get_embedder
    from workbench.ingestion.beir import corpus_sources
    from workbench.service import Workbench

    config = WorkbenchConfig()
    embedder = get_embedder(config.embedding.model)
    model = embedder.model  # loads the weights: part of process start, not of either measurement
    model.encode(["warm up"], batch_size=RAW_BATCH)
    startup = time.perf_counter() - STARTED
    sources, _ = corpus_sources(SCIFACT)
    sources = sources[: args.docs]

    def raw_encode(texts: list[str]) -> float:
        began = time.perf_counter()
        model.encode(texts, batch_size=RAW_BATCH, normalize_embeddings=True, convert_to_numpy=True,
                     show_progress_bar=False)
        return time.perf_counter() - began

    def import_slice() -> tuple[float, list[str]]:
        bench = Workbench(Path(tempfile.mkdtemp(prefix="bench-ingest-")))
        began = time.perf_counter()
        report = bench.ingest("slice", sources, config)
        elapsed = time.perf_counter() - began
        assert not report.failures, report.failures
        indexed = bench.config_for("slice")
        # the distinct indexed texts of the collection's chunks: exactly what the import embedded
        texts = sorted({row[6] for doc in bench.documents("slice") for row in bench.chunks_of(doc.id, indexed)})
        assert len(texts) == report.embedded, (len(texts), report.embedded)
        return elapsed, texts

    rows, ratios, texts = [], [], None
    for round_number in range(1, args.rounds + 1):
        load_before = load()
        if texts is not None and round_number % 2 == 0:  # alternate the order, so drifting load hits both
            raw_s = raw_encode(texts)
            ingest_s, texts = import_slice()
        else:
            ingest_s, texts = import_slice()
            raw_s = raw_encode(texts)
        ratio = ingest_s / raw_s
        ratios.append(ratio)
        rows.append([round_number, len(sources), len(texts), f"{ingest_s:.1f}", f"{raw_s:.1f}", f"{ratio:.2f}",
                     f"{load_before} -> {load()}"])
    table(f"ingest vs raw encoding ({args.docs} SciFact documents, {config.embedding.model}; process start and "
          f"model load {startup:.1f} s, counted in neither)",
          ["round", "docs", "chunk texts", "ingest s", "raw encode s", "ratio", "load avg 1/5 min"], rows)
    if len(ratios) > 1:
        print(f"\nmedian ratio {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
