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

``--ndcg [ROOT]`` also measures what auto's pick costs in retrieval quality, with the project's
own CLI: for torch fp32 and for auto's pick, ``import-beir`` of the whole SciFact folder into
``ROOT/<runtime-precision>`` (a persistent home per runtime: a rerun finds its documents
unchanged and embeds nothing, so it takes seconds), then ``eval --set retrieval.mode=dense`` and
``hybrid``. It prints nDCG@10 and the difference to torch fp32 (target: within 0.002), and the
single-query latency through the query path a collection uses (``Workbench.embed_query`` on the
collection's own embedder key). A first torch fp32 import takes 10+ minutes on 2 cores; copy a
home that already holds a SciFact collection built with torch fp32 to ``ROOT/torch-fp32`` to
skip it. The numbers are recorded for the app (``workbench.embedding.quality``): in
``ROOT/encoder_quality.json``, in each runtime's home, and in every ``--record-in HOME``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import numpy as np

from bench.data import DEMO_GOLDEN, SCIFACT, abstracts, claims, described, scifact_here
from bench.printing import table

if TYPE_CHECKING:
    from workbench.embedding.base import Embedder

MAX_CHARS = 1000
REPO = Path(__file__).resolve().parents[1]
NDCG_ROOT = Path.home() / ".cache" / "rag-workbench" / "bench-homes"
NDCG_TOLERANCE = 0.002
MODES = ("dense", "hybrid")


def scifact_texts(count: int, demo: bool = False) -> list[str]:
    return [abstract.joined(MAX_CHARS) for abstract in abstracts(count, demo)]


@dataclass(frozen=True)
class Slice:
    """A SciFact retrieval slice: texts (each abstract as ``scifact_texts`` cuts it), their ids,
    and claims with their relevant ids, so dense nDCG@10 is computed on the vectors timed."""

    texts: list[str]
    ids: list[str]
    queries: list[str]
    relevant: list[dict[Hashable, int]]


def scifact_slice(texts: int, queries: int, demo: bool = False) -> Slice:
    """The first ``queries`` test claims with relevant abstracts, every abstract they judge, and the
    corpus's first abstracts up to ``texts`` in all (the demo's claims and abstracts with --smoke)."""
    judged: dict[str, dict[Hashable, int]] = {}
    if scifact_here(demo):
        qrels = (SCIFACT / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]
        for qrel in qrels:
            query, doc, grade = qrel.split("\t")
            judged.setdefault(query, {})[doc] = int(grade)
        with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
            text_of = {str(row["_id"]): row["text"] for row in map(json.loads, handle)}
        chosen = [q for q in judged if q in text_of][:queries]
        claims_, relevant = [text_of[q] for q in chosen], [judged[q] for q in chosen]
        every = abstracts(10**6, demo)
    else:
        rows = [json.loads(line) for line in DEMO_GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [row for row in rows if str(row["id"]).startswith("scifact-")][:queries]
        claims_ = [str(row["query"]) for row in rows]
        relevant = [
            {r["doc"].removeprefix("scifact-").removesuffix(".md"): int(r.get("grade", 1)) for r in row["relevant"]}
            for row in rows
        ]
        every = abstracts(10**6, demo)
    needed = {doc for judgements in relevant for doc in judgements}
    picked = [a for a in every if a.doc_id in needed]
    picked += [a for a in every if a.doc_id not in needed][: max(0, texts - len(picked))]
    return Slice([a.joined(MAX_CHARS) for a in picked], [a.doc_id for a in picked], claims_, relevant)


def dense_ndcg(found: Slice, doc_vectors: np.ndarray, query_vectors: np.ndarray) -> list[float]:
    """Each claim's nDCG@10 ranking the slice's abstracts by cosine (dense retrieval, exact)."""
    from workbench.evaluation.metrics import ndcg_at

    scores = query_vectors @ doc_vectors.T
    top = np.argsort(-scores, axis=1, kind="stable")[:, :10]
    return [ndcg_at([found.ids[i] for i in row], judged, 10) for row, judged in zip(top, found.relevant, strict=True)]


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """``bf16 no, amx no, avx512_vnni no, avx_vnni no``: what decides int8's and bf16's speed."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown (no /proc/cpuinfo)"
    flags = {w for line in text.splitlines() if line.lower().startswith(("flags", "features")) for w in line.split()}
    wanted = {
        "bf16": {"avx512_bf16", "amx_bf16", "bf16"},
        "amx": {"amx_tile", "amx_int8", "amx_bf16"},
        "avx512_vnni": {"avx512_vnni"},
        "avx_vnni": {"avx_vnni"},
    }
    return ", ".join(f"{name} {'yes' if flags & names else 'no'}" for name, names in wanted.items())


def scifact_queries(count: int, demo: bool = False) -> list[str]:
    return claims(count, demo)


def smoke_model(folder: Path) -> str:
    """A tiny random-weight sentence model (the tests' own), so a smoke run exports in seconds."""
    from tests.conftest import save_tiny_sentence_model

    return str(save_tiny_sentence_model(folder / "tiny-encoder"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=400, help="abstracts encoded (the judged ones first)")
    parser.add_argument("--claims", type=int, default=100, help="SciFact test claims for the slice's nDCG@10")
    parser.add_argument("--full", action="store_true", help="all of SciFact: 5,183 abstracts, the 300 test claims")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=20, help="single-query encodes per runtime and round")
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument(
        "--ndcg",
        nargs="?",
        const=NDCG_ROOT,
        type=Path,
        metavar="ROOT",
        help=f"also SciFact nDCG@10 of torch fp32 and auto's pick, in homes under ROOT (default {NDCG_ROOT})",
    )
    parser.add_argument(
        "--record-in",
        action="append",
        default=[],
        type=Path,
        metavar="HOME",
        help="with --ndcg: also record the nDCG numbers in this home (repeatable)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="the whole path in seconds: a tiny random model, 8 of the demo's abstracts, 2 queries, 1 round",
    )
    args = parser.parse_args()
    scratch = tempfile.TemporaryDirectory(prefix="bench-encode-")
    if args.smoke:
        args.texts, args.rounds, args.queries, args.ndcg, args.claims = 8, 1, 2, None, 4
        args.model = smoke_model(Path(scratch.name))
        os.environ["WORKBENCH_EXPORT_CACHE"] = str(Path(scratch.name) / "exports")  # the user's cache untouched
    elif args.full:
        args.texts, args.claims = 10**6, 10**6

    from workbench.embedding.calibration import calibrate, machine_id
    from workbench.embedding.runtimes import NO_BF16_ENV, RUNTIMES, TORCH_FP32, open_runtime, runtime_key

    found = scifact_slice(args.texts, args.claims, args.smoke)
    texts, queries = found.texts, scifact_queries(args.queries, args.smoke)
    args.described = described(args.smoke)
    embedders: dict[str, Embedder] = {}
    skipped: list[str] = []
    for runtime in RUNTIMES if args.rounds > 0 else ():  # --rounds 0: only auto's pick (and --ndcg)
        for precision in runtime.precisions:
            opened = open_runtime(args.model, runtime.name, precision)
            key = runtime_key(runtime.name, precision)
            if opened.note and (runtime.name, precision) != TORCH_FP32:
                skipped.append(f"{key}: {opened.note}")
                continue
            embedders[key] = opened.embedder
    baseline = runtime_key(*TORCH_FP32)
    rates: dict[str, list[float]] = {key: [] for key in embedders}
    query_ms: dict[str, list[float]] = {key: [] for key in embedders}
    loads: dict[str, list[float]] = {key: [] for key in embedders}
    vectors: dict[str, np.ndarray] = {}
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

    ndcg = {
        key: dense_ndcg(found, vectors[key], embedder.embed_queries(found.queries))
        for key, embedder in embedders.items()
    }

    with tempfile.TemporaryDirectory() as home:
        started = time.perf_counter()
        record = calibrate(Path(home), args.model)
        calibration_seconds = time.perf_counter() - started
    # the laptop case on any machine: bf16 refused whatever the flags, and OpenVINO compiled with
    # INFERENCE_PRECISION_HINT=f32 (what its fp32 and int8 always use), then auto chooses again
    os.environ[NO_BF16_ENV] = "1"
    with tempfile.TemporaryDirectory() as home:
        without_bf16 = calibrate(Path(home), args.model)
    del os.environ[NO_BF16_ENV]

    print(f"CPU: {machine_id()}; {cpu_flags()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    if args.rounds > 0:
        speed_table(args, found, queries, embedders, baseline, rates, query_ms, loads, vectors, ndcg, record["chosen"])
        emulated_table(without_bf16, baseline, rates, vectors, ndcg, found)
    print(
        f"\nauto picks {record['chosen']}: the fastest with min cosine >= {record['min_cosine']} to fp32 "
        f"(int8: >= {record['min_cosine_int8']}) on its own "
        f"{record['sample_texts']}-text sample ({record['seconds']} s measuring and {record['export_seconds']} s "
        f"loading, the exports already cached; {calibration_seconds:.1f} s in all, at load {record['load_average']})"
    )
    for line in skipped:
        print(f"not measured: {line}")
    if args.ndcg:
        ndcg_table(args.ndcg, args.model, record["chosen"], args.record_in)
    scratch.cleanup()


def speed_table(
    args: argparse.Namespace,
    found: Slice,
    queries: list[str],
    embedders: dict[str, Embedder],
    baseline: str,
    rates: dict[str, list[float]],
    query_ms: dict[str, list[float]],
    loads: dict[str, list[float]],
    vectors: dict[str, np.ndarray],
    ndcg: dict[str, list[float]],
    chosen: str,
) -> None:
    from workbench.evaluation.intervals import mean_interval

    fp32_rate = statistics.median(rates[baseline])
    rows = []
    for key in embedders:
        rate = statistics.median(rates[key])
        cosines = np.sum(vectors[key] * vectors[baseline], axis=1)
        own = mean_interval(ndcg[key])
        change = mean_interval([a - b for a, b in zip(ndcg[key], ndcg[baseline], strict=True)])
        rows.append(
            [
                key + ("  <- auto" if key == chosen else ""),
                f"{rate:.1f}",
                f"{rate / fp32_rate:.2f}",
                f"{statistics.median(query_ms[key]):.1f}",
                f"{float(cosines.min()):.5f}",
                f"{float(cosines.mean()):.5f}",
                f"{own.mean:.4f} {own.interval.describe_mean()}",
                f"{change.mean:+.4f} {change.interval.describe()}",
                f"{statistics.median(loads[key]):.1f}",
            ]
        )
    table(
        f"encoder runtimes ({args.model}; {len(found.texts)} texts of {args.described}, title + text cut to "
        f"{MAX_CHARS} chars, the {len(found.queries)} claims' judged abstracts first; {args.rounds} alternating "
        f"round(s); {len(queries)} single queries per runtime and round; dense nDCG@10 over the "
        f"{len(found.queries)} claims on these texts, 95% bootstrap intervals, the change paired per claim)",
        [
            "runtime-precision",
            "texts/s",
            "vs torch fp32",
            "query ms p50",
            "min cosine to fp32",
            "mean cosine",
            f"nDCG@10 (n={len(found.queries)})",
            "Δ nDCG@10 vs fp32",
            "load (1m)",
        ],
        rows,
    )
    if chosen in query_ms:
        print(
            f"\nqueries on a collection built with auto are encoded by {chosen} too (Workbench.embed_query -> "
            f"the collection's embedder key): {statistics.median(query_ms[chosen]):.1f} ms p50 here, against "
            f"{statistics.median(query_ms[baseline]):.1f} ms with torch fp32"
        )


def emulated_table(
    record: dict,
    baseline: str,
    rates: dict[str, list[float]],
    vectors: dict[str, np.ndarray],
    ndcg: dict[str, list[float]],
    found: Slice,
) -> None:
    """What auto picks on a CPU without bf16 or AMX, emulated here, and each refusal's reason."""
    from workbench.evaluation.intervals import mean_interval

    chosen = record["chosen"]
    rows = []
    for key, numbers in record["runtimes"].items():
        why = numbers.get("error") or numbers.get("refused") or ""
        measured = key in rates
        rate = statistics.median(rates[key]) if measured else None
        change = mean_interval([a - b for a, b in zip(ndcg[key], ndcg[baseline], strict=True)]) if measured else None
        rows.append(
            [
                key + ("  <- auto without bf16" if key == chosen else ""),
                "" if rate is None else f"{rate:.1f}",
                "" if rate is None else f"{rate / statistics.median(rates[baseline]):.2f}",
                "" if not measured else f"{float(np.min(np.sum(vectors[key] * vectors[baseline], axis=1))):.5f}",
                "" if change is None else f"{change.mean:+.4f} {change.interval.describe()}",
                f"{numbers.get('min_cosine', '')}",
                why.splitlines()[0][:90] if why else "accepted",
            ]
        )
    table(
        f"emulated CPU without bf16 or AMX ({NO_BF16_ENV_TEXT}): auto's calibration again; texts/s, cosine and "
        f"nDCG@10 change from the table above ({len(found.queries)} claims)",
        [
            "runtime-precision",
            "texts/s",
            "vs torch fp32",
            "min cosine",
            "Δ nDCG@10 vs fp32",
            "calibration cosine",
            "auto",
        ],
        rows,
    )


NO_BF16_ENV_TEXT = "WORKBENCH_NO_BF16=1: bf16 refused, OpenVINO compiled with INFERENCE_PRECISION_HINT=f32"


def cli(home: Path, *arguments: str) -> str:
    """Run ``python -m workbench`` in ``home``; its stdout (progress goes to ``home``/bench.log)."""
    command = [sys.executable, "-m", "workbench", *arguments, "--home", str(home)]
    with (home / "bench.log").open("a", encoding="utf-8") as log:
        log.write(f"\n$ {' '.join(command)}\n")
        log.flush()
        done = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, stderr=log, text=True)
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(arguments[:1])} failed in {home} (exit {done.returncode}); see {home / 'bench.log'}"
        )
    return done.stdout


def scifact_quality(root: Path, key: str) -> dict:
    """import-beir (incremental) + eval per mode in ``root/key``; the numbers and the query latency."""
    from workbench.service import Workbench

    runtime, _, precision = key.partition("-")
    home = root / key
    home.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    cli(
        home,
        "import-beir",
        str(SCIFACT),
        "--collection",
        "scifact",
        "--set",
        f"embedding.runtime={runtime}",
        "--set",
        f"embedding.precision={precision}",
    )
    import_s = time.perf_counter() - started
    ndcg = {}
    for mode in MODES:
        run = json.loads(
            cli(home, "eval", "--collection", "scifact", "--set", f"retrieval.mode={mode}", "--no-store", "--json")
        )
        ndcg[mode] = run["metrics"]["ndcg@10"]
    bench = Workbench(home)
    config = bench.config_for("scifact")
    chunks = next(info.chunks for info in bench.collections() if info.name == "scifact")
    queries = scifact_queries(41)
    bench.embed_query(config.embedding.key, queries[0])  # the model loads here, outside the timing
    milliseconds = []
    for query in queries[1:]:
        began = time.perf_counter()
        bench.embed_query(config.embedding.key, query)
        milliseconds.append((time.perf_counter() - began) * 1000)
    return {
        "home": home,
        "chunks": chunks,
        "ndcg": ndcg,
        "import_s": import_s,
        "query_key": config.embedding.key,
        "query_ms": statistics.median(milliseconds),
    }


def ndcg_table(root: Path, model: str, chosen: str, record_in: list[Path]) -> None:
    from workbench.embedding.quality import QUALITY_FILE, record_quality
    from workbench.embedding.runtimes import TORCH_FP32, runtime_key

    if not scifact_here():
        raise SystemExit(f"--ndcg imports SciFact, which is not at {SCIFACT} ($WORKBENCH_SCIFACT names another folder)")
    baseline = runtime_key(*TORCH_FP32)
    results = {key: scifact_quality(root, key) for key in dict.fromkeys([baseline, chosen])}
    rows = []
    for key, found in results.items():
        difference = {mode: found["ndcg"][mode] - results[baseline]["ndcg"][mode] for mode in MODES}
        within = all(abs(d) <= NDCG_TOLERANCE for d in difference.values())
        rows.append(
            [
                key + ("  <- auto" if key == chosen else ""),
                found["chunks"],
                *(f"{found['ndcg'][mode]:.4f} ({difference[mode]:+.4f})" for mode in MODES),
                "yes" if within else "NO",
                found["query_key"],
                f"{found['query_ms']:.1f}",
                f"{found['import_s']:.0f}",
            ]
        )
        record = {
            "dataset": "scifact",
            "chunks": found["chunks"],
            "ndcg@10": {mode: round(found["ndcg"][mode], 4) for mode in MODES},
            "vs_torch_fp32": {mode: round(difference[mode], 4) for mode in MODES},
            "measured": time.strftime("%Y-%m-%d %H:%M"),
        }
        for home in [root, *(r["home"] for r in results.values()), *record_in]:
            record_quality(home, model, key, record)
    table(
        f"SciFact nDCG@10 (doc level, 300 claims) from import-beir + eval, homes under {root}; in brackets the "
        f"difference to {baseline}",
        [
            "runtime-precision",
            "chunks",
            *(f"{mode} nDCG@10" for mode in MODES),
            f"within {NDCG_TOLERANCE}",
            "query path embedder",
            "Workbench.embed_query ms p50",
            "import-beir s",
        ],
        rows,
    )
    print(f"\n1-minute load average at the end: {os.getloadavg()[0]:.1f} (it matters for the query ms, not for nDCG)")
    print(
        f"recorded in {root / QUALITY_FILE}, in each runtime's home"
        f"{''.join(', ' + str(h / QUALITY_FILE) for h in record_in)}; import-beir s is a rerun's when the home "
        "was there already (nothing to embed)"
    )


if __name__ == "__main__":
    main()
