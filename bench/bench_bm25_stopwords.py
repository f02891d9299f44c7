"""Does leaving English question words out of BM25 help? ``bm25.stopwords`` en vs en_plus vs none.

``en`` is bm25s's 33 function words (the, of, and…), the default so far; ``en_plus`` is the 179
words of NLTK's list (adds what, how, which, you…), so a question matched only on "what" no longer
scores. Each setting is a new layout of the same collection (its BM25 index is rebuilt from the
catalog, its vectors come from the embedding cache), evaluated on the collection's golden set in
BM25-only and in the default hybrid mode. Prints nDCG@10 per setting, its difference from ``en``
with a 95% paired bootstrap interval over the queries, and the rule: ``en_plus`` may become the
default only if no nDCG@10 drops by more than 0.002. Runs on a copy of the home (the original is
never written).

    python bench/bench_bm25_stopwords.py                       # the demo, in a temporary home
    python bench/bench_bm25_stopwords.py --home ../homes/scifact --collection scifact --golden scifact
    python bench/bench_bm25_stopwords.py --home ../homes/cmrc --collection cmrc2018 --golden cmrc2018 --level span
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))

SETTINGS = ("en", "en_plus", "none")
BASELINE = "en"
METRIC = "ndcg@10"
#: the largest nDCG@10 drop a new default may cost on any dataset and mode
TOLERANCE = 0.002
BOOTSTRAP_SAMPLES = 2000


def bootstrap_interval(deltas: list[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = 7) -> tuple[float, float]:
    """95% interval of the mean of paired per-query differences (percentile bootstrap)."""
    if not deltas:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(deltas)
    means = sorted(sum(deltas[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples))
    return means[int(0.025 * samples)], means[int(0.975 * samples) - 1]


def per_query(bench, collection: str, golden, config, level: str) -> dict[str, float]:
    from workbench.evaluation.runner import evaluate_collection

    result = evaluate_collection(bench, collection, golden, config, level=level, metric_names=(METRIC,))
    return {q.query_id: q.metrics[METRIC] for q in result.per_query}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="a home to copy (default: a temporary home with the demo loaded)")
    parser.add_argument("--collection", default="demo")
    parser.add_argument("--golden", default="demo")
    parser.add_argument("--level", default="doc", choices=("doc", "span"))
    parser.add_argument("--modes", default="bm25,hybrid", help="retrieval modes to measure, comma separated")
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: BM25 only")
    args = parser.parse_args()
    if args.smoke:
        args.modes = "bm25"

    from bench.printing import table
    from workbench.evaluation import golden as golden_sets
    from workbench.service import Workbench

    scratch = Path(tempfile.mkdtemp(prefix="bench-stopwords-"))
    home = scratch / "home"
    if args.home:
        shutil.copytree(Path(args.home).expanduser(), home)
    else:
        from workbench.demo import load_demo

        load_demo(Workbench(home))
    load_start = os.getloadavg()[0]
    started = time.perf_counter()
    bench = Workbench(home)
    golden = golden_sets.find(args.golden, home)
    base = bench.config_for(args.collection)
    rows, worst_drop = [], 0.0
    for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
        scores = {
            setting: per_query(
                bench,
                args.collection,
                golden,
                base.with_overrides([f"bm25.stopwords={setting}", f"retrieval.mode={mode}"]),
                args.level,
            )
            for setting in SETTINGS
        }
        reference = scores[BASELINE]
        for setting in SETTINGS:
            shared = [qid for qid in reference if qid in scores[setting]]
            deltas = [scores[setting][qid] - reference[qid] for qid in shared]
            mean = sum(scores[setting].values()) / max(len(scores[setting]), 1)
            delta = sum(deltas) / max(len(deltas), 1)
            low, high = bootstrap_interval(deltas)
            if setting == "en_plus":
                worst_drop = max(worst_drop, -delta)
            rows.append(
                [
                    mode,
                    setting,
                    len(scores[setting]),
                    f"{mean:.4f}",
                    "" if setting == BASELINE else f"{delta:+.4f}",
                    "" if setting == BASELINE else f"[{low:+.4f}, {high:+.4f}]",
                ]
            )
    elapsed = time.perf_counter() - started
    table(
        f"{args.collection} / {args.golden}, {args.level} level: {METRIC} by bm25.stopwords "
        f"(load average {load_start:.2f} at start, {os.getloadavg()[0]:.2f} at end; {elapsed:.0f} s)",
        ["mode", "stopwords", "queries", METRIC, f"Δ vs {BASELINE}", "95% CI of Δ (paired bootstrap)"],
        rows,
    )
    verdict = "holds" if worst_drop <= TOLERANCE else "fails"
    print(f"\nrule for en_plus (no {METRIC} drop over {TOLERANCE}): {verdict} here (largest drop {worst_drop:+.4f})")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
