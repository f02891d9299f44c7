"""Does the query log slow MCP queries while another process ingests? p50 with the log on and off.

    python bench/bench_query_log.py                    # 3 rounds of 60 new SciFact abstracts each
    python bench/bench_query_log.py --rounds 5 --batch 100

Builds a temporary home with SciFact abstracts (the real bundled MiniLM model), then starts two
MCP servers on it over stdio, one as shipped (``log.queries`` on) and one with
``--set log.queries=off``. Each round another process ingests a batch of new abstracts into the
same collection; meanwhile the two servers are asked the same SciFact claims in alternation, so
both see the same ingest and the same machine load. Prints p50/p90 per server and the 1-minute
load average; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))

from anyio.from_thread import start_blocking_portal  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from bench import data  # noqa: E402
from bench.printing import table  # noqa: E402

SERVER_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "PYTHONPATH": str(PROJECT_DIR),
    "PATH": os.environ.get("PATH", ""),
}


#: questions each server answers per round in a --smoke run (alternating, as in a full run)
SMOKE_TURNS = 3


def abstracts(limit: int, demo: bool) -> list[tuple[str, str]]:
    return [(f"{a.doc_id}.md", f"# {a.title}\n\n{a.text}\n") for a in data.abstracts(limit, demo)]


def write_batch(folder: Path, docs: list[tuple[str, str]]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in docs:
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=300, help="abstracts in the home before the rounds")
    parser.add_argument("--batch", type=int, default=60, help="new abstracts the other process ingests per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--smoke", action="store_true", help="the whole path: 4 demo abstracts, 1 round of 2, 3 questions"
    )
    args = parser.parse_args()
    # --smoke asks a few questions per round and then waits for the ingest: the two servers
    # answering as fast as they can for as long as the ingest runs cost the test suite, whose
    # load stretches that ingest, more CPU than all the rest of the run
    turns = None
    if args.smoke:
        args.base, args.batch, args.rounds, turns = 4, 2, 1, SMOKE_TURNS

    docs = abstracts(args.base + args.batch * args.rounds, args.smoke)
    if len(docs) < args.base + args.batch * args.rounds:
        raise SystemExit(f"{data.described(args.smoke)}: {len(docs)} abstracts, fewer than --base + --batch x --rounds")
    questions = data.claims(300, args.smoke)
    with tempfile.TemporaryDirectory(prefix="bench-query-log-") as scratch:
        home = Path(scratch) / "home"
        base_files = write_batch(Path(scratch) / "base", docs[: args.base])
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "workbench",
                "ingest",
                *map(str, base_files),
                "--collection",
                "sci",
                "--home",
                str(home),
            ],
            cwd=PROJECT_DIR,
            check=True,
            capture_output=True,
        )
        print(f"home built: {args.base} abstracts in {time.perf_counter() - started:.0f} s")
        latencies: dict[str, list[float]] = {"log on": [], "log off": []}
        servers: dict[str, list[str]] = {"log on": [], "log off": ["--set", "log.queries=off"]}
        with start_blocking_portal() as portal:
            sessions = {}
            contexts = []
            for label, extra in servers.items():
                params = StdioServerParameters(
                    command=sys.executable,
                    cwd=str(PROJECT_DIR),
                    env=SERVER_ENV,
                    args=["-m", "workbench", "mcp", "--home", str(home), *extra],
                )
                stdio = portal.wrap_async_context_manager(stdio_client(params, errlog=open(os.devnull, "w")))
                read, write = stdio.__enter__()
                session_cm = portal.wrap_async_context_manager(ClientSession(read, write, read_timeout_seconds=300))
                session = session_cm.__enter__()
                portal.call(session.initialize)
                contexts.append((session_cm, stdio))
                sessions[label] = session
            for session in sessions.values():  # warm: model loaded, snapshot open
                portal.call(session.call_tool, "query_knowledge_hub", {"query": questions[0], "top_k": 5})
            asked = 0
            loads = []
            for round_number in range(args.rounds):
                batch = docs[args.base + round_number * args.batch : args.base + (round_number + 1) * args.batch]
                files = write_batch(Path(scratch) / f"round{round_number}", batch)
                ingest = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "workbench",
                        "ingest",
                        *map(str, files),
                        "--collection",
                        "sci",
                        "--home",
                        str(home),
                    ],
                    cwd=PROJECT_DIR,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                turn = 0
                while ingest.poll() is None and (turns is None or turn < turns):
                    order = list(sessions) if turn % 2 == 0 else list(reversed(sessions))
                    text = questions[asked % len(questions)]
                    for label in order:
                        began = time.perf_counter()
                        result = portal.call(
                            sessions[label].call_tool, "query_knowledge_hub", {"query": text, "top_k": 5}
                        )
                        latencies[label].append((time.perf_counter() - began) * 1000)
                        assert not result.is_error, result.content[0].text
                    asked += 1
                    turn += 1
                ingest.wait()
                loads.append(os.getloadavg()[0])
                if ingest.returncode != 0:
                    raise SystemExit(f"the ingest of round {round_number} failed ({ingest.returncode})")
            for session_cm, stdio in reversed(contexts):
                session_cm.__exit__(None, None, None)
                stdio.__exit__(None, None, None)
        logged = sum(1 for path in (home / "query_log").glob("*.jsonl") for _ in path.open(encoding="utf-8"))

    rows = []
    for label, values in latencies.items():
        ordered = sorted(values)
        rows.append(
            [label, len(values), f"{statistics.median(ordered):.1f}", f"{ordered[int(0.9 * (len(ordered) - 1))]:.1f}"]
        )
    on, off = (statistics.median(latencies[k]) for k in ("log on", "log off"))
    table(
        f"MCP query_knowledge_hub during another process's ingest ({args.rounds} rounds x {args.batch} "
        f"abstracts; load average {statistics.mean(loads):.2f})",
        ["server", "queries", "p50 ms", "p90 ms"],
        rows,
    )
    print(f"\nlog on vs off, p50: {100 * (on - off) / off:+.1f} %   (log lines written by the 'on' server: {logged})")


if __name__ == "__main__":
    main()
