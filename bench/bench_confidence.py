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
    combined = GoldenSet(f"{golden.name}+off-topic", golden.queries + off_topic.queries)
    config = bench.config_for(args.collection, None, args.overrides)
    started = time.perf_counter()
    result = evaluate_collection(bench, args.collection, combined, config, metric_names=["ndcg@10"])
    elapsed = time.perf_counter() - started
    report = result.abstention
    answerable_verdicts = [q.verdict for q in result.per_query]
    counts = {v: answerable_verdicts.count(v) for v in ("relevant", "ambiguous", "no_answer")}
    no_answer_counts = {v: report.verdicts[v] - counts[v] for v in counts}
    print(
        f"\n{args.collection} / {combined.name}, mode {config.retrieval.mode}, "
        f"language_guard {config.retrieval.language_guard}"
    )
    print(f"{'queries':<28}{'n':>5}{'relevant':>10}{'ambiguous':>11}{'no_answer':>11}{'rate':>9}")
    print(
        f"{'answerable (golden set)':<28}{report.answerable:>5}{counts['relevant']:>10}{counts['ambiguous']:>11}"
        f"{counts['no_answer']:>11}{report.answered_rate:>9.1%}   (relevant or ambiguous)"
    )
    print(
        f"{'no answer (off-topic + set)':<28}{report.no_answer:>5}{no_answer_counts['relevant']:>10}"
        f"{no_answer_counts['ambiguous']:>11}{no_answer_counts['no_answer']:>11}{report.recall:>9.1%}   (no_answer)"
    )
    print(report.describe())
    print(
        f"ndcg@10 of the answerable queries {result.metrics['ndcg@10']:.4f}; "
        f"{elapsed / (report.answerable + report.no_answer) * 1000:.1f} ms per query (embedding included)"
    )


if __name__ == "__main__":
    main()
