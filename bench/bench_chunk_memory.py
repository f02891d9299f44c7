"""What each part of an index snapshot keeps in a query process's memory, per chunk.

    python bench/bench_chunk_memory.py                        # 20,000 and 100,000 chunks
    python bench/bench_chunk_memory.py --chunks 20000 --chars 1000 --queries 100

Builds one snapshot version folder per size from synthetic chunks (texts drawn from a Zipf
vocabulary, random unit vectors, so nothing is encoded) with the project's own writers:
``store.chunk_store`` (the chunk table), ``SparseIndex`` (bm25s) and ``DenseIndex`` (hnswlib).
Beside it, the chunk table the way snapshots kept it before (``chunks.parquet`` read whole into
a dict of records) for comparison.

Each part is then opened in a fresh Python process, which runs ``--queries`` queries against
it, and reports its resident set size (RSS, /proc/self/status) after the imports, after
opening, and after the queries. The table shows, per chunk: the part's bytes on disk, the RSS
it added once open, and once queried (mapped pages a query touched count as resident; "of which
file pages" is the part that is mapped files, which the kernel can drop under pressure). The
"snapshot + pipeline" row opens the whole version as the app does (``store.index_set.Snapshot``)
and runs hybrid queries through ``run_pipeline`` reading every final hit's chunk view, and checks
that the chunk texts it read are those of the hits it returned. Prints the load average.
Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.printing import table  # noqa: E402

DIM = 384
VOCABULARY = 50_000
ZIPF_EXPONENT = 1.07
PARTS = (
    "chunk table, before (parquet -> dict)",
    "chunk store",
    "sparse (bm25s)",
    "dense (hnswlib)",
    "snapshot + pipeline",
)
SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]


def word(rank: int) -> str:
    """A pronounceable, distinct word for each vocabulary rank (so the tokenizer keeps it)."""
    parts = []
    rank += 1
    while rank:
        rank, digit = divmod(rank, len(SYLLABLES))
        parts.append(SYLLABLES[digit])
    return "".join(parts) + "x"


def synthetic_texts(count: int, chars: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
    words = [word(rank) for rank in range(VOCABULARY)]
    per_text = max(1, chars // 6)  # about 6 characters a word with its space
    drawn = rng.choice(VOCABULARY, size=(count, per_text), p=weights / weights.sum())
    return [" ".join(words[i] for i in row) for row in drawn]


def build(folder: Path, count: int, chars: int) -> dict:
    from store.chunk_store import write_chunk_store
    from store.dense_index import DenseIndex
    from store.index_set import CHUNK_COLUMNS, DOCUMENT_COLUMNS, write_table
    from store.retrieval_index import ChunkBatch
    from store.sparse_index import SparseIndex
    from store.text_tokenizer import Bm25Tokenizer

    started = time.perf_counter()
    texts = synthetic_texts(count, chars, seed=count)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((count, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunk_ids = np.arange(1, count + 1, dtype=np.int64)
    doc_ids = (chunk_ids - 1) // 10 + 1  # ten chunks a document
    columns: dict[str, Sequence[Any] | np.ndarray] = {
        "chunk_id": chunk_ids,
        "doc_id": doc_ids,
        "ordinal": (chunk_ids - 1) % 10,
        "start": np.zeros(count),
        "end": np.full(count, chars),
        "text": texts,
        "indexed_text": texts,
        "heading_path": [["Synthetic"]] * count,
        "page": [None] * count,
        "token_count": [None] * count,
        "over_max_length": np.zeros(count, dtype=bool),
    }
    write_chunk_store(folder / "chunks", columns)
    rows = list(zip(*(list(columns[name]) for name in CHUNK_COLUMNS), strict=False))
    write_table(
        folder / "chunks.parquet", [(int(r[0]), int(r[1]), int(r[2]), 0, chars, *r[5:]) for r in rows], CHUNK_COLUMNS
    )
    documents = sorted(set(doc_ids.tolist()))
    write_table(
        folder / "documents.parquet", [(d, f"doc{d}.md", None, "md", f"Doc {d}") for d in documents], DOCUMENT_COLUMNS
    )
    SparseIndex.from_chunks(ChunkBatch(chunk_ids, texts=texts), Bm25Tokenizer()).save(folder / "sparse")
    # a small ef_construction builds faster; the graph's size does not depend on it
    DenseIndex.from_chunks(ChunkBatch(chunk_ids, vectors=vectors), ef_construction=40).save(folder / "dense")
    (folder / "manifest.json").write_text(json.dumps({"generation": 1, "chunks": count}), encoding="utf-8")
    return {"build_s": time.perf_counter() - started}


def disk_bytes(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# -- the measuring child ---------------------------------------------------------------------


def rss() -> int:
    return resident()["VmRSS"]


def resident() -> dict[str, int]:
    """Resident bytes: all (VmRSS), anonymous (RssAnon: the heap) and file pages mapped in (RssFile)."""
    import gc

    gc.collect()
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "RssFile"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


def answer_with(vector: np.ndarray) -> Callable[[str], np.ndarray]:
    """A query embedder that answers every query with ``vector`` (the bench's random one)."""
    return lambda _query: vector


def measure(part: str, folder: Path, queries: int) -> dict:
    """Run in a fresh process: RSS after imports, after opening ``part``, after ``queries`` queries."""
    import bm25s  # noqa: F401  (every import before the first reading: only the part counts after it)
    import hnswlib  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    import scipy.sparse  # noqa: F401

    from store.dense_index import DenseIndex
    from store.index_set import CHUNK_COLUMNS, ChunkRecord, ChunkStore, Snapshot, read_table
    from store.sparse_index import SparseIndex
    from workbench.backends import open_snapshot_indexes
    from workbench.config import WorkbenchConfig
    from workbench.retrieval.pipeline import run_pipeline

    count = json.loads((folder / "manifest.json").read_text())["chunks"]
    rng = np.random.default_rng(11)
    query_ids = rng.integers(1, count + 1, size=queries)
    query_texts = [" ".join(t.split()[:6]) for t in synthetic_texts(queries, 200, seed=queries)]
    query_vectors = rng.standard_normal((queries, DIM)).astype(np.float32)
    result: dict = {"imported": rss(), "imported_file": resident()["RssFile"]}
    fetched: set[int] = set()
    shown: set[int] = set()
    if part == PARTS[0]:
        table_ = read_table(folder / "chunks.parquet")
        records = {}
        for values in zip(*(table_[name] for name in CHUNK_COLUMNS), strict=False):
            fields = dict(zip(CHUNK_COLUMNS, values, strict=True))
            fields["heading_path"] = tuple(fields["heading_path"] or ())
            records[values[0]] = ChunkRecord(**fields)
        doc_id_of = {cid: chunk.doc_id for cid, chunk in records.items()}
        del table_
        result["opened"] = rss()
        for cid in query_ids.tolist():
            _ = records[cid].text, doc_id_of[cid]
    elif part == PARTS[1]:
        store = ChunkStore(folder / "chunks")
        result["opened"] = rss()
        for start in range(0, queries, 10):  # a page of ten hits per query, as the app shows
            store.records(query_ids[start : start + 10].tolist())
    elif part == PARTS[2]:
        sparse = SparseIndex.load(folder / "sparse")
        result["opened"] = rss()
        for text in query_texts:
            sparse.search(text, 100)
    elif part == PARTS[3]:
        dense = DenseIndex.load(folder / "dense")
        result["opened"] = rss()
        for vector in query_vectors:
            dense.search(vector, 100)
    else:
        snapshot = Snapshot(folder, open_snapshot_indexes)
        result["opened"] = rss()
        fetched = snapshot.chunks.record_fetches()
        config = WorkbenchConfig().with_overrides(["retrieval.mode=hybrid"])
        for text, vector in zip(query_texts, query_vectors, strict=False):
            trace = run_pipeline(text, config, snapshot, answer_with(vector), "bench")
            shown |= {view.chunk_id for view in trace.final_chunks()}
    split = resident()
    result["queried"], result["queried_file"] = split["VmRSS"], split["RssFile"]
    result["texts_read"] = len(fetched)
    result["texts_beyond_hits"] = len(fetched - shown)
    return result


def child(part: str, folder: Path, queries: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", part, "--folder", str(folder), "--queries", str(queries)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--chars", type=int, default=1000, help="characters per synthetic chunk text")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--smoke", action="store_true", help="the whole path in seconds: 300 chunks of 100 characters, 5 queries"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.chunks, args.chars, args.queries = [300], 100, 5
    if args.child:
        print(json.dumps(measure(args.child, Path(args.folder), args.queries)))
        return

    print(f"load average before: {os.getloadavg()[0]:.2f}")
    measured: dict = {}
    for count in args.chunks:
        with tempfile.TemporaryDirectory(prefix="chunk-memory-") as tmp:
            folder = Path(tmp)
            built = build(folder, count, args.chars)
            disk = {
                PARTS[0]: disk_bytes(folder / "chunks.parquet"),
                PARTS[1]: disk_bytes(folder / "chunks"),
                PARTS[2]: disk_bytes(folder / "sparse"),
                PARTS[3]: disk_bytes(folder / "dense"),
            }
            disk[PARTS[4]] = disk[PARTS[1]] + disk[PARTS[2]] + disk[PARTS[3]] + disk_bytes(folder / "documents.parquet")
            rows = []
            for part in PARTS:
                found = measured[(count, part)] = child(part, folder, args.queries)
                rows.append(
                    [
                        part,
                        f"{disk[part] / count:,.0f}",
                        f"{(found['opened'] - found['imported']) / count:,.0f}",
                        f"{(found['queried'] - found['imported']) / count:,.0f}",
                        f"{(found['queried_file'] - found['imported_file']) / count:,.0f}",
                        f"{found['queried'] / 2**20:,.0f}",
                        f"{found['texts_read']} ({found['texts_beyond_hits']} beyond hits)" if part == PARTS[4] else "",
                    ]
                )
            table(
                f"{count:,} chunks of {args.chars} characters, {args.queries} queries "
                f"(built in {built['build_s']:.0f} s; load average {os.getloadavg()[0]:.2f})",
                [
                    "part",
                    "disk B/chunk",
                    "RSS open B/chunk",
                    "RSS queried B/chunk",
                    "of which file pages",
                    "process RSS MB",
                    "texts read",
                ],
                rows,
            )
    if len(args.chunks) > 1:
        # per-chunk cost net of what does not grow with the chunks (imports, the vocabulary)
        small, large = min(args.chunks), max(args.chunks)
        table(
            f"marginal RSS per chunk between {small:,} and {large:,} chunks (bytes)",
            ["part", "open", "queried", "of which file pages"],
            [
                [
                    part,
                    *(
                        f"{(measured[(large, part)][when] - measured[(small, part)][when]) / (large - small):,.0f}"
                        for when in ("opened", "queried", "queried_file")
                    ),
                ]
                for part in PARTS
            ],
        )
    # the largest terms at this dimension, for reading the dense row
    print(f"\nfor scale: a {DIM}-d float32 vector is {DIM * 4:,} B; hnswlib's level-0 links at M=16 are 132 B")


if __name__ == "__main__":
    main()
