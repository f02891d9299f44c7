"""A collection of N synthetic chunks: what it costs to build, keep on disk, hold in memory and query.

    python bench/bench_scale.py --chunks 100000                          # a temp home
    nice -n 10 python bench/bench_scale.py --chunks 1000000 --home /work/homes/scale-1m
    python bench/bench_scale.py --chunks 1000000 --home /work/homes/scale-1m --reuse   # query part only

The chunks are built through the workbench's own code: the collection, documents and chunks by
``store.documents`` (one catalog transaction per batch of documents), their vectors into the
embedding cache by ``store.embedding_cache``, the indexes (hnswlib + bm25s, the snapshot tables)
by the local backend's ``sync``, exactly as an import would after its encode. Texts are drawn
from a Zipf vocabulary (English stop words at the top ranks, as in real text, then made-up words
and some Chinese ones); vectors are random unit vectors (384 dimensions, all-MiniLM-L6-v2's), so
nothing is encoded and the dense results mean nothing: the numbers are about size and speed.

The query part runs in a fresh process that opens the home through ``workbench.service.Workbench``
as the app and the MCP server do, with a random query-vector embedder registered under the
collection's model (no encoder weights in memory). It reports that process's resident memory
from /proc/self/status, the per-mode latency of the whole pipeline, and the time to evaluate
1,000 queries through ``workbench.evaluation`` (a synthetic golden set: words of one chunk, its
document relevant). Prints tables with the load average; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import data
from bench.printing import table

COLLECTION = "scale"
DIMENSION = 384
CHUNKS_PER_DOCUMENT = 50
DOCUMENTS_PER_BATCH = 400  # 20,000 chunks per catalog transaction
VOCABULARY = 60_000
SEED = 17
#: the top Zipf ranks: what real English text is made of most (the BM25 tokenizer drops them)
STOP_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which but "
    "have an they you were her one all we can has there been if more when will would who so no"
).split()
MODES = {
    "bm25": ["retrieval.mode=bm25"],
    "dense": ["retrieval.mode=dense"],
    "hybrid": ["retrieval.mode=hybrid"],
    "hybrid+MMR": ["retrieval.mode=hybrid", "mmr.enabled=true"],
}


# -- the synthetic corpus ---------------------------------------------------------------------


def vocabulary(rng: np.random.Generator, size: int = VOCABULARY) -> np.ndarray:
    """Stop words, then made-up words of 2-4 syllables, about 3 % of them Chinese (2-3 characters)."""
    consonants, vowels = list("bcdfghjklmnprstvwz"), list("aeiou")
    words: list[str] = list(STOP_WORDS)
    seen = set(words)
    while len(words) < size:
        if rng.random() < 0.03:
            word = "".join(chr(int(c)) for c in rng.integers(0x4E00, 0x9FA5, size=rng.integers(2, 4)))
        else:
            word = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.integers(2, 5)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return np.array(words, dtype=object)


def zipf_probabilities(size: int) -> np.ndarray:
    weights = 1.0 / (np.arange(1, size + 1) + 2.7)  # Zipf-Mandelbrot, exponent 1
    return weights / weights.sum()


class Corpus:
    """Deterministic synthetic text: the same seed gives the same vocabulary, chunks and queries."""

    def __init__(self, seed: int = SEED, size: int = VOCABULARY) -> None:
        self.rng = np.random.default_rng(seed)
        self.words = vocabulary(np.random.default_rng(seed), size)
        self.cumulative = np.cumsum(zipf_probabilities(len(self.words)))

    def draw(self, count: int) -> np.ndarray:
        return np.minimum(np.searchsorted(self.cumulative, self.rng.random(count)), len(self.words) - 1)

    def chunk_texts(self, count: int) -> list[str]:
        """Chunks of 8-250 words (log-normal, about 90 on average: ~600 characters, like SciFact's)."""
        lengths = np.clip(self.rng.lognormal(np.log(80), 0.5, count).astype(np.int64), 8, 250)
        tokens = self.words[self.draw(int(lengths.sum()))]
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        return [" ".join(tokens[bounds[i] : bounds[i + 1]]) for i in range(count)]

    def query(self) -> str:
        return " ".join(self.words[self.draw(int(self.rng.integers(2, 6)))])


def unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    vectors = rng.standard_normal((count, DIMENSION), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


# -- the build --------------------------------------------------------------------------------


def build(home: Path, chunks: int, words: int) -> list[list]:
    """The collection through the workbench's own store and backend code; returns timing rows."""
    from store import documents as stored_documents
    from store.embedding_cache import store_vectors
    from store.repository import NewChunk
    from workbench.embedding import get_embedder
    from workbench.embedding.base import content_hash
    from workbench.layout import Layout
    from workbench.service import Workbench

    bench = Workbench(home)
    bench.create_collection(
        COLLECTION, bench.config_for(None, overrides=["embedding.runtime=torch", "embedding.precision=fp32"])
    )
    config = bench.config_for(COLLECTION)
    layout = Layout.of(config)
    model = get_embedder(layout.embedding_model).name  # the cache's key; the weights stay unloaded
    corpus, vector_rng = Corpus(size=words), np.random.default_rng(SEED + 1)
    documents = -(-chunks // CHUNKS_PER_DOCUMENT)
    start = stored_documents.start_ingest(
        bench.catalog, COLLECTION, [(layout.chunkset_key, layout.chunkset_config())], documents
    )
    spent = {"generate texts": 0.0, "catalog: documents + chunks": 0.0, "catalog: embedding cache": 0.0}
    written = 0
    for first in range(0, documents, DOCUMENTS_PER_BATCH):
        started = time.perf_counter()
        batch_docs = range(first, min(first + DOCUMENTS_PER_BATCH, documents))
        sizes = [min(CHUNKS_PER_DOCUMENT, chunks - d * CHUNKS_PER_DOCUMENT) for d in batch_docs]
        texts = corpus.chunk_texts(sum(sizes))
        hashes = [content_hash(text) for text in texts]
        versions, offset = [], 0
        for number, size in zip(batch_docs, sizes, strict=False):
            parts, position = [], 0
            for ordinal, text in enumerate(texts[offset : offset + size]):
                parts.append(
                    NewChunk(
                        ordinal=ordinal,
                        text=text,
                        indexed_text=text,
                        start=position,
                        end=position + len(text),
                        heading_path=(),
                        page=None,
                        content_hash=hashes[offset + ordinal],
                        token_count=None,
                        over_max_length=False,
                        metadata={},
                    )
                )
                position += len(text) + 2
            markdown = "\n\n".join(texts[offset : offset + size])
            versions.append(
                stored_documents.DocumentVersion(
                    source=f"doc-{number:07d}.md",
                    external_id=None,
                    sha256=hashlib.sha256(markdown.encode()).hexdigest(),
                    size_bytes=len(markdown.encode()),
                    doc_type="md",
                    title=f"Synthetic document {number}",
                    markdown=markdown,
                    page_starts=[],
                    chunks={layout.chunkset_key: parts},
                    replaces=False,
                )
            )
            offset += size
        vectors = unit_vectors(vector_rng, len(texts))
        spent["generate texts"] += time.perf_counter() - started

        started = time.perf_counter()
        stored_documents.commit_documents(bench.catalog, start.collection_id, start.run_id, versions)
        spent["catalog: documents + chunks"] += time.perf_counter() - started
        started = time.perf_counter()
        store_vectors(bench.catalog, model, hashes, vectors)
        spent["catalog: embedding cache"] += time.perf_counter() - started
        written += len(texts)
        print(f"  {written:,} chunks written ({sum(spent.values()):.0f} s)", file=sys.stderr, flush=True)
    stored_documents.finish_ingest(
        bench.catalog, start.run_id, status="finished", parsed=documents, skipped=0, failed=0, embedded=0
    )

    rows = [[phase, f"{seconds:.1f}", f"{seconds / chunks * 1e6:.0f}"] for phase, seconds in spent.items()]
    return rows + index_build(home)


def index_build(home: Path) -> list[list]:
    """The local backend's sync of the collection's layout (hnswlib, bm25s, the chunk store)."""
    from workbench.ingestion.indexing import sync_layout
    from workbench.layout import Layout
    from workbench.service import Workbench

    bench = Workbench(home)
    started = time.perf_counter()
    result = sync_layout(bench.catalog, home, COLLECTION, Layout.of(bench.config_for(COLLECTION)))
    seconds = time.perf_counter() - started
    print(f"  indexed {result.chunks:,} chunks", file=sys.stderr)
    return [
        [
            "index build (hnswlib + bm25s + snapshot tables)",
            f"{seconds:.1f}",
            f"{seconds / max(result.chunks, 1) * 1e6:.0f}",
        ],
        ["peak RSS of the build process", rss_mb()["VmHWM"], ""],
    ]


def has_snapshot(home: Path) -> bool:
    return any((home / "indexes" / COLLECTION).glob("*/CURRENT"))


def catalog_holds_collection(home: Path) -> bool:
    from store import collections as stored_collections
    from store.catalog import Catalog

    return (home / "catalog.duckdb").exists() and stored_collections.find_collection(
        Catalog.in_home(home), COLLECTION
    ) is not None


def resync(home: Path) -> None:
    """Publish the collection's snapshot again from the catalog with this checkout's code."""
    from workbench.ingestion.indexing import sync_layout
    from workbench.layout import Layout
    from workbench.service import Workbench

    bench, before = Workbench(home), load()
    started = time.perf_counter()
    result = sync_layout(bench.catalog, home, COLLECTION, Layout.of(bench.config_for(COLLECTION)), rebuild=True)
    print(
        f"snapshot written again: {result.chunks:,} chunks in {time.perf_counter() - started:.1f} s "
        f"(HNSW carried over, {result.added} vectors added; load average before {before}, after {load()}); "
        f"peak RSS {rss_mb()['VmHWM']}"
    )


# -- measuring --------------------------------------------------------------------------------


def rss_mb() -> dict[str, str]:
    """This process's resident memory now and at its peak, from /proc/self/status."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = f"{int(value.split()[0]) / 1024:.0f} MB"
    return found


def rss_bytes(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def folder_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def current_version(home: Path) -> Path:
    layouts = [p for p in (home / "indexes" / COLLECTION).iterdir() if (p / "CURRENT").exists()]
    pointer = json.loads((layouts[0] / "CURRENT").read_text())
    return layouts[0] / pointer["version"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# -- the fresh query process ------------------------------------------------------------------


def query_process(home: Path, queries: int, golden_path: Path, words: int) -> dict:
    """Runs in a child: open the home as the app does, query every mode, evaluate; report as JSON."""
    from workbench.embedding.base import Embedder
    from workbench.embedding.registry import register_embedder
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.runner import evaluate_collection
    from workbench.service import Workbench

    report: dict = {"rss_after_imports": rss_bytes("VmRSS")}
    bench = Workbench(home)
    config = bench.config_for(COLLECTION)

    class RandomQueryEmbedder(Embedder):
        """A random unit vector per query text (seeded by the text): no weights in memory."""

        name, dimension = config.embedding.key, DIMENSION

        def embed(self, texts: list[str]) -> np.ndarray:
            return np.stack(
                [
                    unit_vectors(np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:15], 16)), 1)[0]
                    for t in texts
                ]
            )

    register_embedder(config.embedding.key, lambda _name: RandomQueryEmbedder())
    started = time.perf_counter()
    snapshot = bench.snapshot(COLLECTION, config)
    report["open_s"] = time.perf_counter() - started
    report["rss_after_open"] = rss_bytes("VmRSS")
    corpus = Corpus(SEED + 2, words)
    texts = [corpus.query() for _ in range(queries)]
    report["latency"] = {}
    fetched = snapshot.chunks.record_fetches()  # every chunk whose text is read from now on
    returned: set[int] = set()
    for mode, overrides in MODES.items():
        mode_config = bench.config_for(COLLECTION, overrides=overrides)
        bench.embed_queries(mode_config.embedding.key, texts)
        returned.update(bench.query(texts[0], COLLECTION, mode_config).final.chunk_ids())
        timings = []
        for text in texts:
            started = time.perf_counter()
            trace = bench.query(text, COLLECTION, mode_config)
            timings.append((time.perf_counter() - started) * 1000)
            returned.update(trace.final.chunk_ids())
            sum(len(view.text) for view in trace.final_chunks())  # what the app and MCP show of each hit
        report["latency"][mode] = timings
    report["texts_read"], report["texts_read_not_returned"] = len(fetched), len(set(fetched) - returned)
    report["rss_after_queries"] = rss_bytes("VmRSS")
    report["rss_peak_queries"] = rss_bytes("VmHWM")
    # private memory against pages of mapped index files (shared between processes, reclaimable)
    report["rss_anon"], report["rss_file"] = rss_bytes("RssAnon"), rss_bytes("RssFile")
    report["chunks"] = int(snapshot.manifest["chunks"])

    golden = golden_sets.load(golden_path)
    started = time.perf_counter()
    result = evaluate_collection(bench, COLLECTION, golden, bench.config_for(COLLECTION))
    report["eval_s"] = time.perf_counter() - started
    report["eval_queries"] = len(golden.queries)
    report["eval_metrics"] = {name: round(value, 4) for name, value in result.metrics.items()}
    report["rss_after_eval"] = rss_bytes("VmRSS")
    report["rss_peak_eval"] = rss_bytes("VmHWM")
    return report


def write_golden(home: Path, count: int, path: Path) -> None:
    """``count`` queries of four words of one chunk each, that chunk's document relevant."""
    from store import documents as stored_documents
    from store.catalog import Catalog

    catalog = Catalog.in_home(home)
    rng = np.random.default_rng(SEED + 3)
    documents = stored_documents.documents_of(catalog, COLLECTION)
    lines = []
    for number, position in enumerate(rng.choice(len(documents), size=count, replace=True)):
        document = documents[int(position)]
        rows = stored_documents.chunks_of_document(catalog, document.id, None)
        words = str(rows[int(rng.integers(len(rows)))][5]).split()
        picked = [words[int(i)] for i in rng.choice(len(words), size=min(4, len(words)), replace=False)]
        lines.append(
            json.dumps(
                {"id": f"q{number}", "query": " ".join(picked), "relevant": [{"doc": document.source}]},
                ensure_ascii=False,
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def encode_rate(texts: int, demo: bool = False) -> tuple[str, str, float]:
    """Texts/s of the default encoder (torch fp32) on ``texts`` real chunk-sized texts: SciFact
    abstracts cut to the default chunk size when the shared datasets are there (synthetic words
    split into far more word pieces than real ones, so they would understate the rate), else
    the calibration sample."""
    from workbench.embedding import get_embedder
    from workbench.embedding.calibration import calibration_sample

    if data.scifact_here(demo):
        sample = [abstract.joined(1000) for abstract in data.abstracts(texts)]
        what = f"{len(sample)} SciFact abstracts, first 1,000 characters"
    else:
        sample = calibration_sample(texts)
        what = f"{len(sample)} calibration sentences"
    embedder = get_embedder("all-MiniLM-L6-v2")
    embedder.embed(sample[:8])  # loads the weights
    started = time.perf_counter()
    embedder.embed(sample)
    return embedder.name, what, len(sample) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--home", help="where to build (default: a new temp folder)")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="skip the build when --home holds the collection (only its indexes are built when "
        "the catalog holds it but an earlier run stopped before they were)",
    )
    parser.add_argument(
        "--resync",
        action="store_true",
        help="with --reuse: write the snapshot again with this version's code (BM25 and the chunk "
        "store rebuilt from the catalog, the HNSW graph carried over), timed",
    )
    parser.add_argument("--queries", type=int, default=200, help="queries per mode for the latency table")
    parser.add_argument("--eval-queries", type=int, default=1000)
    parser.add_argument("--encode-texts", type=int, default=200, help="texts for the encode-rate sample (0: skip)")
    parser.add_argument("--vocabulary", type=int, default=VOCABULARY, help="distinct words of the synthetic text")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="the whole path in seconds: 500 chunks of 2,000 distinct words, 3 queries, 5 evaluated, 4 encoded",
    )
    parser.add_argument("--query-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.chunks, args.queries, args.eval_queries, args.encode_texts, args.vocabulary = 500, 3, 5, 4, 2000

    if args.query_child:
        home, golden_path = args.query_child.split("::")
        print(json.dumps(query_process(Path(home), args.queries, Path(golden_path), args.vocabulary)))
        return

    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="bench-scale-"))
    print(f"home {home}; load average at start {load()}")
    reused = args.reuse and has_snapshot(home)
    if args.reuse and not reused and catalog_holds_collection(home):
        build_load = load()
        rows = index_build(home)
        table(
            f"index build only: the catalog holds the collection from an earlier run (load average before "
            f"{build_load}, after {load()})",
            ["phase", "seconds", "µs per chunk"],
            rows,
        )
        reused = True
    if not reused:
        if catalog_holds_collection(home):
            sys.exit(f"{home} already holds collection {COLLECTION!r}; pass --reuse to query it, or another --home")
        build_load = load()
        rows = build(home, args.chunks, args.vocabulary)
        table(
            f"build of {args.chunks:,} chunks (load average before {build_load}, after {load()})",
            ["phase", "seconds", "µs per chunk"],
            rows,
        )
    elif args.resync:
        resync(home)

    version = current_version(home)
    manifest = json.loads((version / "manifest.json").read_text())
    chunks = int(manifest["chunks"])
    catalog_bytes = sum(folder_bytes(p) for p in home.glob("catalog.duckdb*"))
    parts = {
        "catalog (DuckDB: documents, chunks, embedding cache)": catalog_bytes,
        "dense/vectors.npy": folder_bytes(version / "dense" / "vectors.npy"),
        "dense/hnsw.bin (graph + hnswlib's own copy of the vectors)": folder_bytes(version / "dense" / "hnsw.bin"),
        "sparse/ (bm25s)": folder_bytes(version / "sparse"),
        "chunk store + documents table": sum(
            folder_bytes(p) for p in version.iterdir() if p.name not in ("dense", "sparse")
        ),
    }
    parts["indexes total"] = folder_bytes(version)
    table(
        f"disk ({chunks:,} chunks)",
        ["part", "MB", "bytes per chunk"],
        [[name, f"{size / 1e6:,.0f}", f"{size / chunks:,.0f}"] for name, size in parts.items()],
    )

    golden_path = home / "bench-scale-golden.jsonl"
    if not golden_path.exists() or sum(1 for _ in golden_path.open()) != args.eval_queries:
        write_golden(home, args.eval_queries, golden_path)
    query_load = load()
    child = subprocess.run(
        [sys.executable, __file__, "--query-child", f"{home}::{golden_path}", "--queries", str(args.queries)]
        + ["--vocabulary", str(args.vocabulary)],
        capture_output=True,
        text=True,
        check=False,
    )
    if child.returncode:
        sys.exit(f"the query process failed:\n{child.stderr[-4000:]}")
    report = json.loads(child.stdout.strip().splitlines()[-1])

    # The vectors counted once: hnsw.bin holds them beside the links, and the query process keeps
    # that file in memory; vectors.npy is a second copy on disk that a query reads rows of.
    vector_bytes = chunks * DIMENSION * 4
    graph_bytes = parts["dense/hnsw.bin (graph + hnswlib's own copy of the vectors)"] - vector_bytes
    budget = vector_bytes + graph_bytes + 1024 * chunks
    peak = report["rss_peak_queries"]
    table(
        f"a fresh query process (Workbench over the home; load average before {query_load}, after {load()})",
        ["measure", "MB", "bytes per chunk"],
        [
            ["RSS after imports", f"{report['rss_after_imports'] / 1e6:,.0f}", ""],
            [
                f"RSS after opening the collection ({report['open_s']:.1f} s)",
                f"{report['rss_after_open'] / 1e6:,.0f}",
                f"{report['rss_after_open'] / chunks:,.0f}",
            ],
            [
                "RSS after the latency queries",
                f"{report['rss_after_queries'] / 1e6:,.0f}",
                f"{report['rss_after_queries'] / chunks:,.0f}",
            ],
            ["peak RSS until then", f"{peak / 1e6:,.0f}", f"{peak / chunks:,.0f}"],
            [
                "  of which private (RssAnon) / mapped files (RssFile), after the queries",
                f"{report['rss_anon'] / 1e6:,.0f} / {report['rss_file'] / 1e6:,.0f}",
                f"{report['rss_anon'] / chunks:,.0f} / {report['rss_file'] / chunks:,.0f}",
            ],
            [
                "peak RSS above the imports",
                f"{(peak - report['rss_after_imports']) / 1e6:,.0f}",
                f"{(peak - report['rss_after_imports']) / chunks:,.0f}",
            ],
            [
                "vector bytes (N x dim x 4) + graph bytes (the rest of hnsw.bin)",
                f"{vector_bytes / 1e6:,.0f} + {graph_bytes / 1e6:,.0f}",
                f"{(vector_bytes + graph_bytes) / chunks:,.0f}",
            ],
            ["budget: vector + graph bytes + 1 KB per chunk", f"{budget / 1e6:,.0f}", f"{budget / chunks:,.0f}"],
            [f"peak RSS within budget: {'PASS' if peak <= budget else 'FAIL'}", "", ""],
            [
                "peak RSS above the imports within budget: "
                f"{'PASS' if peak - report['rss_after_imports'] <= budget else 'FAIL'}",
                "",
                "",
            ],
            [
                f"after evaluating ({report['eval_queries']} queries): RSS / peak",
                f"{report['rss_after_eval'] / 1e6:,.0f} / {report['rss_peak_eval'] / 1e6:,.0f}",
                "",
            ],
        ],
    )
    table(
        f"query latency, ms, whole pipeline (Workbench.query), {args.queries} Zipf queries per mode, "
        "random query vectors",
        ["mode", "p50", "p95", "mean"],
        [
            [mode, f"{statistics.median(t):.1f}", f"{percentile(t, 0.95):.1f}", f"{statistics.fmean(t):.1f}"]
            for mode, t in report["latency"].items()
        ],
    )
    print(
        f"\nchunk texts read by those queries, their hits' texts shown after each: {report['texts_read']:,} "
        f"of {chunks:,} ({report['texts_read_not_returned']:,} of them not among the hits returned)"
    )
    metrics = ", ".join(f"{k} {v}" for k, v in report["eval_metrics"].items() if "@10" in k or k.startswith("mrr"))
    print(
        f"\nevaluation of {report['eval_queries']} queries (hybrid, evaluate_collection, judge included): "
        f"{report['eval_s']:.1f} s  ({metrics})"
    )

    if args.encode_texts:
        name, what, rate = encode_rate(args.encode_texts, args.smoke)
        rows = [[name, f"{rate:.1f}", f"{chunks / rate / 3600:.1f} h"]]
        from workbench.embedding.calibration import read_calibrations
        from workbench.service.home import resolve_home

        calibrations = {**read_calibrations(resolve_home(None)), **read_calibrations(home)}
        for model, record in calibrations.items():
            for runtime, numbers in (record.get("runtimes") or {}).items():
                if "texts_per_s" in numbers:
                    rows.append(
                        [
                            f"{model} {runtime} (calibration)",
                            f"{numbers['texts_per_s']:.1f}",
                            f"{chunks / numbers['texts_per_s'] / 3600:.1f} h",
                        ]
                    )
        table(
            f"a first import of {chunks:,} real chunks at a measured encode rate ({what}, one process; "
            f"load average {load()})",
            ["encoder", "texts/s", "encode time"],
            rows,
        )
    print(f"\nload average at the end {load()}")


if __name__ == "__main__":
    main()
