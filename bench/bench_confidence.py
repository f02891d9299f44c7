"""Confidence benchmark: how often the verdict answers answerable queries and abstains on off-topic ones.

    python bench/bench_confidence.py                                    # the demo, in a temp home
    python bench/bench_confidence.py --home HOME --collection scifact --golden scifact
    python bench/bench_confidence.py --home HOME --collection demo --set retrieval.mode=bm25

Answerable queries come from the golden set (its queries with relevant items); the no-answer
queries are the golden set's own (empty ``relevant``) plus the 30 off-topic queries of
``tests/workbench/retrieval/off_topic_queries.jsonl`` (English, Chinese, nonsense). Prints the
verdict counts per group, the two rates, abstention precision/recall and the time per query.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.printing import table
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.golden import GoldenSet
from workbench.evaluation.runner import evaluate_collection
from workbench.service import Workbench

OFF_TOPIC = Path(__file__).resolve().parents[1] / "tests" / "workbench" / "retrieval" / "off_topic_queries.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="an existing home (default: a temp home with the demo loaded)")
    parser.add_argument("--collection", default="demo")
    parser.add_argument("--golden", help="golden set name or path (default: the collection's name)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--smoke", action="store_true", help="the whole path in seconds: the golden set's first 5 queries, 5 off-topic"
    )
    args = parser.parse_args()
    if args.home:
        bench = Workbench(args.home)
    else:
        from workbench.demo import load_demo

        bench = Workbench(Path(tempfile.mkdtemp()) / "home")
        print(f"loading the demo into {bench.home} ...", file=sys.stderr)
        load_demo(bench)
    golden = golden_sets.find(args.golden or args.collection, bench.home)
    off_topic = golden_sets.load(OFF_TOPIC)
    mine, theirs = (golden.queries[:5], off_topic.queries[:5]) if args.smoke else (golden.queries, off_topic.queries)
    combined = GoldenSet(f"{golden.name}+off-topic", mine + theirs)
    config = bench.config_for(args.collection, None, args.overrides)
    started = time.perf_counter()
    result = evaluate_collection(bench, args.collection, combined, config, metric_names=["ndcg@10"])
    elapsed = time.perf_counter() - started
    report = result.abstention
    if report is None:
        raise SystemExit(f"evaluating {args.collection} gave no abstention report: is retrieval.verdict off?")
    answerable_verdicts = [q.verdict for q in result.per_query]
    counts = {v: answerable_verdicts.count(v) for v in ("relevant", "ambiguous", "no_answer")}
    no_answer_counts = {v: report.verdicts[v] - counts[v] for v in counts}
    table(
        f"{args.collection} / {combined.name}, mode {config.retrieval.mode}, "
        f"language_guard {config.retrieval.language_guard}",
        ["queries", "n", "relevant", "ambiguous", "no_answer", "rate", "rate of"],
        [
            [
                "answerable (golden set)",
                report.answerable,
                *(counts[v] for v in ("relevant", "ambiguous", "no_answer")),
                f"{report.answered_rate:.1%}",
                "relevant or ambiguous",
            ],
            [
                "no answer (off-topic + set)",
                report.no_answer,
                *(no_answer_counts[v] for v in ("relevant", "ambiguous", "no_answer")),
                f"{report.recall:.1%}",
                "no_answer",
            ],
        ],
    )
    print(report.describe())
    print(
        f"ndcg@10 of the answerable queries {result.metrics['ndcg@10']:.4f}; "
        f"{elapsed / (report.answerable + report.no_answer) * 1000:.1f} ms per query (embedding included)"
    )


if __name__ == "__main__":
    main()
