"""Does cutting chunks to the encoder's window help? ``chunking.fit_window`` true vs false, by corpus.

Issue 48: on a long Chinese handbook the cut to all-MiniLM-L6-v2's 256-token window took span
nDCG@10 from 0.938 to 0.763, though that model does not read Chinese (the language guard leaves
its route out of Chinese queries' ranking): BM25 got chunks a quarter the size and nothing gained.
Now only text the encoder reads is cut (``workbench/chunking/window.py``). For each corpus this
ingests the collection once (the default chunking, ``fit_window`` on), makes the
``fit_window=false`` chunking of it too (its texts embedded, the rest from the embedding cache),
and evaluates both in the default hybrid mode and BM25-only, with 95% bootstrap intervals
(``workbench/evaluation/intervals.py``) and the number of queries:

- ``handbook``: the Chinese handbook of ``bench/zh_handbook.py`` (the shared seeds), span level,
  on ``bench/golden/zh-handbook.jsonl`` (Chinese questions) and ``zh-handbook-mixed.jsonl``
  (Chinese questions carrying English terms); ``handbook-pdf``: the same printed to PDF by
  Chromium and parsed like a user's file (named in ``--corpora``);
- ``cmrc``: CMRC 2018 (Chinese Wikipedia paragraphs), span level;
- ``scifact``: SciFact (English abstracts), document level.

Then the confidence verdicts on the mixed questions: how many get ``no_answer`` though BM25's
top 3 holds the answer (the user's "No answer" under MMR in issue 48), default and with MMR.

    python bench/bench_chunk_window.py --home ../homes/window            # all three (SciFact: ~15 min of encoding)
    python bench/bench_chunk_window.py --home ../homes/window --corpora handbook,cmrc --cmrc-queries 1000
    python bench/bench_chunk_window.py --smoke                            # seconds: two chapters, the demo

``--home`` keeps the collections and the embedding cache between runs (a temporary home otherwise).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))

from bench import zh_handbook  # noqa: E402
from bench.data import SCIFACT  # noqa: E402
from bench.printing import table  # noqa: E402

CMRC = SCIFACT.parent / "cmrc2018"
METRICS = ("ndcg@10", "recall@10", "hit@3")
SETTINGS = (True, False)
MODES = ("hybrid", "bm25")
#: the smoke run's slice: the handbook's first chapters, and that many questions of each set
SMOKE_CHAPTERS, SMOKE_QUERIES = 2, 6


@dataclass(frozen=True)
class Corpus:
    name: str  # the collection's name
    level: str
    golden: tuple  # GoldenSet, one or more


def handbook(bench, smoke: bool, pdf: bool = False) -> Corpus | None:
    """The handbook as Markdown, or (``pdf``) printed to PDF by Chromium and parsed as a user's
    file is: the same questions, judged on the PDF's name."""
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.golden import GoldenSet
    from workbench.ingestion.sources import Source

    if not zh_handbook.available():
        print(f"(no handbook: the seeds are not in {zh_handbook.SEEDS})", file=sys.stderr)
        return None
    markdown = zh_handbook.handbook_markdown(chapters=SMOKE_CHAPTERS if smoke else None)
    sets = [golden_sets.load(zh_handbook.GOLDEN), golden_sets.load(zh_handbook.GOLDEN_MIXED)]
    if smoke:  # the questions whose quotes the first chapters hold
        held = [tuple(q for q in s.queries if all((i.quote or "") in markdown for i in q.relevant)) for s in sets]
        sets = [GoldenSet(s.name, queries[:SMOKE_QUERIES]) for s, queries in zip(sets, held, strict=True)]
    name = ("handbook-smoke" if smoke else "handbook") + ("-pdf" if pdf else "")
    if pdf:
        document = Path(bench.home) / "rag-handbook.pdf"
        sets = [_judged_on(s, document.name) for s in sets]
    if not any(c.name == name for c in bench.collections()):
        if pdf:
            bench.ingest(name, [Source.from_path(zh_handbook.write_pdf(document, markdown))])
        else:
            bench.ingest(name, [Source.from_markdown(zh_handbook.HANDBOOK, markdown, "rag-handbook")])
    return Corpus(name, "span", tuple(sets))


def _judged_on(golden, document: str):
    """``golden`` with every judgement moved from the Markdown handbook to ``document``, its
    quotes without inline markup (a printed page keeps the words of `code` and **bold**, not the
    marks: 5 of the 18 Chinese questions' quotes hold some, and 25 of the 50 mixed ones)."""
    from dataclasses import replace

    def printed(quote: str | None) -> str | None:
        return None if quote is None else _INLINE_MARKUP.sub("", quote)

    return replace(
        golden,
        queries=tuple(
            replace(q, relevant=tuple(replace(item, doc=document, quote=printed(item.quote)) for item in q.relevant))
            for q in golden.queries
        ),
    )


_INLINE_MARKUP = re.compile(r"\*\*|`")


def beir(bench, folder: Path, name: str, level: str, queries: int | None, documents: int | None) -> Corpus | None:
    from workbench.evaluation.golden import GoldenSet
    from workbench.ingestion.beir import corpus_sources, golden_set

    if not (folder / "corpus.jsonl").exists():
        print(f"(no {name}: {folder} has no corpus.jsonl)", file=sys.stderr)
        return None
    sources, offsets = corpus_sources(folder)
    golden = golden_set(folder, name, offsets)
    assert golden is not None, f"{folder} has no qrels"
    kept = golden.queries[:queries] if queries else golden.queries
    if documents:  # the documents the kept queries judge, then the corpus's first ones up to the number
        judged = {item.doc for query in kept for item in query.relevant}
        chosen = [s for s in sources if s.external_id in judged]
        chosen += [s for s in sources if s.external_id not in judged][: max(0, documents - len(chosen))]
        sources = chosen
    collection = f"{name}-{len(sources)}"
    if not any(c.name == collection for c in bench.collections()):
        bench.ingest(collection, sources)
    return Corpus(collection, level, (GoldenSet(name, tuple(kept)),))


def demo_corpus(bench) -> Corpus:
    """The smoke run's stand-in for SciFact: the demo's abstracts and golden set."""
    from workbench.demo import load_demo
    from workbench.evaluation import golden as golden_sets

    if not any(c.name == "demo" for c in bench.collections()):
        load_demo(bench)
    return Corpus("demo", "doc", (golden_sets.find("demo", bench.home),))


def interval(values: Sequence[float]) -> str:
    from workbench.evaluation.intervals import mean_interval

    found = mean_interval(list(values))
    return f"{found.mean:.4f} {found.interval.describe_mean()}"


def measure(bench, corpus: Corpus, rows: list[list], per_query: dict) -> None:
    from workbench.evaluation.runner import evaluate_collection

    base = bench.config_for(corpus.name)
    for fit in SETTINGS:
        config = base.with_overrides([f"chunking.fit_window={str(fit).lower()}"])
        bench.sync(corpus.name, config, reparse=False)
        chunks = len(bench.snapshot(corpus.name, config).chunks)
        for golden in corpus.golden:
            for mode in MODES:
                result = evaluate_collection(
                    bench,
                    corpus.name,
                    golden,
                    config.with_overrides([f"retrieval.mode={mode}"]),
                    level=corpus.level,
                    metric_names=METRICS,
                )
                scores = {q.query_id: q.metrics for q in result.per_query}
                per_query[(corpus.name, golden.name, fit, mode)] = scores
                values = [metrics["ndcg@10"] for metrics in scores.values()]
                recall = sum(metrics["recall@10"] for metrics in scores.values()) / max(len(scores), 1)
                rows.append(
                    [
                        corpus.name,
                        golden.name,
                        corpus.level,
                        str(fit).lower(),
                        mode,
                        chunks,
                        len(values),
                        interval(values) if values else "-",
                        f"{recall:.4f}",
                    ]
                )


def verdicts(bench, corpus: Corpus, golden, per_query: dict) -> list[list]:
    """Per configuration: the mixed questions' verdicts, and the no_answer ones whose answer BM25
    ranks in its top 3 (hit@3 of the BM25-only run at the same chunking)."""
    base = bench.config_for(corpus.name)
    bm25_top3 = {qid for qid, m in per_query[(corpus.name, golden.name, True, "bm25")].items() if m["hit@3"] > 0}
    rows = []
    for label, overrides in (("default (hybrid)", []), ("hybrid + MMR", ["mmr.enabled=true"])):
        config = base.with_overrides(overrides)
        found = {q.id: bench.query(q.query, corpus.name, config).confidence for q in golden.queries}
        said = {qid: (c.verdict if c is not None else "none") for qid, c in found.items()}
        wrong = sorted(qid for qid, verdict in said.items() if verdict == "no_answer" and qid in bm25_top3)
        counts = {v: list(said.values()).count(v) for v in ("relevant", "ambiguous", "no_answer")}
        rows.append(
            [
                label,
                len(said),
                counts["relevant"],
                counts["ambiguous"],
                counts["no_answer"],
                len(bm25_top3),
                len(wrong),
                ", ".join(wrong) or "-",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="a home to keep the collections in (default: a temporary one)")
    parser.add_argument(
        "--corpora",
        default="handbook,cmrc,scifact",
        help="comma separated: handbook, handbook-pdf (printed by Chromium), cmrc, scifact",
    )
    parser.add_argument("--cmrc-queries", type=int, help="CMRC's first N questions (default: all 3,219)")
    parser.add_argument("--scifact-documents", type=int, help="SciFact's judged abstracts and others up to N")
    parser.add_argument("--smoke", action="store_true", help="seconds: two chapters of the handbook, the demo")
    args = parser.parse_args()

    from workbench.service import Workbench

    scratch = None if args.home else Path(tempfile.mkdtemp(prefix="bench-window-"))
    home = Path(args.home).expanduser() if args.home else scratch / "home"  # type: ignore[operator]
    bench = Workbench(home)
    load_start, started = os.getloadavg()[0], time.perf_counter()
    wanted = [name.strip() for name in args.corpora.split(",") if name.strip()]
    corpora: list[Corpus | None] = []
    if args.smoke:  # the handbook's first chapters when the seeds are there, else the demo
        corpora = [handbook(bench, smoke=True)]
        corpora = corpora if corpora[0] is not None else [demo_corpus(bench)]
    else:
        for name in wanted:
            if name in ("handbook", "handbook-pdf"):
                corpora.append(handbook(bench, smoke=False, pdf=name == "handbook-pdf"))
            elif name == "cmrc":
                corpora.append(beir(bench, CMRC, "cmrc2018", "span", args.cmrc_queries, None))
            elif name == "scifact":
                corpora.append(beir(bench, SCIFACT, "scifact", "doc", None, args.scifact_documents))
            else:
                sys.exit(f"unknown corpus {name!r}; use handbook, handbook-pdf, cmrc or scifact")
    rows: list[list] = []
    per_query: dict = {}
    for corpus in corpora:
        if corpus is not None:
            measure(bench, corpus, rows, per_query)
    elapsed = time.perf_counter() - started
    table(
        f"chunking.fit_window by corpus: nDCG@10 with its 95% bootstrap interval over the queries "
        f"(load average {load_start:.2f} at start, {os.getloadavg()[0]:.2f} at end; {elapsed:.0f} s)",
        ["collection", "golden set", "level", "fit_window", "mode", "chunks", "queries", "nDCG@10 [95%]", "recall@10"],
        rows,
    )
    book = next((c for c in corpora if c is not None and c.name.startswith("handbook")), None)
    if book is not None:
        mixed = book.golden[-1]
        table(
            f"confidence verdicts on {mixed.name} (Chinese questions carrying English terms), fit_window=true: "
            "'wrong' = no_answer though BM25's top 3 holds the answer",
            ["configuration", "queries", "relevant", "ambiguous", "no_answer", "BM25 top 3 has it", "wrong", "which"],
            verdicts(bench, book, mixed, per_query),
        )
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
