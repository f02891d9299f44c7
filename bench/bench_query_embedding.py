"""A query's embedding while other Python threads compute: torch's eager forward pass against the
traced graph the torch runtime runs (``workbench.embedding.sentence_graph``).

    python bench/bench_query_embedding.py                  # 40 queries, 0, 1 and 4 busy threads
    python bench/bench_query_embedding.py --busy 0,2 --queries 100
    python bench/bench_query_embedding.py --smoke          # 6 queries, 0 and 1 busy thread

In one process, as in the MCP server (a ``tune`` task beside the agents' queries) or the app (a
page drawing beside a lab query): ``--busy`` threads run plain Python loops while each forward
pass embeds ``--queries`` SciFact-like questions one at a time through ``embed_queries``, the
path every query takes (one torch thread for a query). Eager torch lets go of the GIL at every
operator and must take it back from a busy thread each time, after up to the interpreter's
switch interval (5 ms); the traced graph takes it back once. Prints p50, p95 and max ms per
query, the eager/traced ratio of the p50s, the load average and the cores. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench.printing import table  # noqa: E402  (after the checkout is on the path)

SUBJECTS = ("hybrid retrieval", "reciprocal rank fusion", "BM25 saturation", "MMR diversity", "a cross-encoder")


def questions(count: int) -> list[str]:
    """Distinct questions of the length users ask (each is new to the embedder: nothing cached)."""
    return [f"What does {SUBJECTS[n % len(SUBJECTS)]} change for question {n} about ranking?" for n in range(count)]


def busy_counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--busy takes thread counts separated by commas (0,1,4): {text!r}") from None
    if not counts or min(counts) < 0:
        raise argparse.ArgumentTypeError(f"--busy takes counts of 0 or more, got {text!r}")
    return counts


class BusyThreads:
    """``count`` threads running Python until stopped: what holds the GIL beside a query."""

    def __init__(self, count: int):
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._spin, daemon=True) for _ in range(count)]

    def _spin(self) -> None:
        total = 0
        while not self._stop.is_set():
            for number in range(2_000):
                total += number

    def __enter__(self) -> BusyThreads:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=40, help="queries per forward pass and busy count")
    parser.add_argument("--busy", type=busy_counts, default=[0, 1, 4], help="busy Python threads, e.g. 0,1,4")
    parser.add_argument("--smoke", action="store_true", help="6 queries, 0 and 1 busy thread")
    arguments = parser.parse_args()
    if arguments.smoke:
        arguments.queries, arguments.busy = 6, [0, 1]
    if arguments.queries < 1:
        parser.error(f"--queries must be at least 1, got {arguments.queries}")

    from workbench.embedding.sentence_transformer import BUNDLED_MODEL, SentenceTransformerEmbedder

    class EagerEmbedder(SentenceTransformerEmbedder):
        traces = False

    embedders = {"eager": EagerEmbedder(BUNDLED_MODEL), "traced": SentenceTransformerEmbedder(BUNDLED_MODEL)}
    for embedder in embedders.values():
        embedder.embed_queries(["a first query loads the model (and traces it)"])
    texts = iter(questions(len(embedders) * len(arguments.busy) * arguments.queries))
    load_before = os.getloadavg()
    rows = []
    for busy in arguments.busy:
        p50s = {}
        for name, embedder in embedders.items():
            times = []
            with BusyThreads(busy):
                for _ in range(arguments.queries):
                    started = time.perf_counter()
                    embedder.embed_queries([next(texts)])
                    times.append((time.perf_counter() - started) * 1000)
            p50s[name] = percentile(times, 0.5)
            rows.append(
                [name, busy, len(times), f"{p50s[name]:.1f}", f"{percentile(times, 0.95):.1f}", f"{max(times):.1f}"]
            )
        rows[-1].append(f"{p50s['eager'] / p50s['traced']:.1f}x")
        rows[-2].append("")
    load_after = os.getloadavg()
    table(
        f"one query's embedding ({BUNDLED_MODEL}, torch fp32) beside busy Python threads; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after, {os.cpu_count()} cores",
        ["forward", "busy threads", "queries", "p50 ms", "p95 ms", "max ms", "eager/traced p50"],
        rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
