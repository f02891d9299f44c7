"""MCP over HTTP under load: concurrent ``query_knowledge_hub`` calls while a ``tune`` task runs.

    python bench/bench_mcp.py --home DIR [--collection demo] [--golden demo] [--clients 8] [--calls 400]
    python bench/bench_mcp.py --home DIR --clients 1,2,4,8   # how the p95 grows with concurrent clients
    python bench/bench_mcp.py --smoke            # builds the demo home in a temporary folder; 2 clients, 20 calls

For each count in ``--clients``, starts ``python -m workbench mcp --http`` on the home afresh,
starts ``tune`` on the golden set as a task (Tasks extension), and has that many SDK clients share ``--calls``
calls of ``query_knowledge_hub`` (the golden set's questions, in turn) while it runs. Then the
same number of calls, one at a time, over stdio (``python -m workbench mcp``, no tune running).
Every client, stdio's too, makes one untimed call first: a session's first call lists the tools
and compiles the output schema the client validates against, a cost of the session, not of a query.
Then the same calls to ``bench/mcp_floor_server.py``, a server that searches nothing and returns
a kept answer of the same shape: what the SDK, the transport and the machine cost before any
search runs ("no search" rows). Prints errors (goal 0), p50 and p95 latency of each, the ratio of
each p95 to stdio's (goal: HTTP within 3x) and the load average.

First, before any of that: the time from a server's start to its first answer on a BM25-only
preset (``--bm25-preset``, saved in the home as ``retrieval.mode=bm25`` when it is not there),
over stdio (the client spawns the server and hands it ``initialize``) and over HTTP (from
``Popen`` to the answer), each ``--starts`` times on a fresh process, split where the server is
ready (initialize answered; listening). Goal: at most 1 s from ready to the answer: a keyword
search must not wait for the embedding model, which loads in the background meanwhile.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}

from bench.printing import table  # noqa: E402  (after the checkout is on the path)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def first_asking(number: int, queries: list[str]) -> bool:
    """Call ``number`` asks its question for the first time (question 0 was asked to warm)."""
    return 0 < number < len(queries)


def split_by_first_asking(transport: str, latencies: list[float], first_asked: list[bool]) -> str:
    """The calls that embedded their question for the first time apart from the repeats (whose
    vector is kept): with few distinct questions, the first ones are what a p95 is made of."""
    first = [ms for ms, is_first in zip(latencies, first_asked, strict=True) if is_first]
    repeats = [ms for ms, is_first in zip(latencies, first_asked, strict=True) if not is_first]
    return (
        f"  {transport}: {len(first)} first askings of a question p50 {percentile(first, 0.5):.1f} ms; "
        f"{len(repeats)} repeats p50 {percentile(repeats, 0.5):.1f}, p95 {percentile(repeats, 0.95):.1f} ms"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def questions(home: Path, golden: str) -> list[str]:
    from workbench.evaluation import golden as golden_sets

    return [q.query for q in golden_sets.find(golden, home).queries]


async def ask(target, queries: list[str], clients: int, calls: int, collection: str) -> dict:
    """``clients`` sessions to ``target`` (a URL, or stdio server parameters) share ``calls`` calls
    of ``query_knowledge_hub``, the golden set's questions in turn, each client one call at a time."""
    from mcp.client.client import Client

    latencies: list[float] = []
    first_asked: list[bool] = []
    errors: list[str] = []
    counter = iter(range(calls))

    async def one_client() -> None:
        async with Client(target) as client:
            # warm, untimed: a session's first call lists the tools and compiles the output schema
            # it validates against, once, on the client's side
            await client.call_tool("query_knowledge_hub", {"query": queries[0], "collection": collection})
            for number in counter:
                started = time.perf_counter()
                try:
                    result = await client.call_tool(
                        "query_knowledge_hub", {"query": queries[number % len(queries)], "collection": collection}
                    )
                    if result.is_error:
                        errors.append(str(getattr(result.content[0], "text", result.content[0]))[:200])
                except Exception as error:
                    errors.append(repr(error)[:200])
                latencies.append((time.perf_counter() - started) * 1000)
                first_asked.append(first_asking(number, queries))

    async with anyio.create_task_group() as group:
        for _ in range(clients):
            group.start_soon(one_client)
    return {"latencies": latencies, "first_asked": first_asked, "errors": errors}


async def http_load(
    url: str, queries: list[str], clients: int, calls: int, collection: str, golden: str, trials: int
) -> dict:
    """``ask`` over HTTP while ``tune`` runs as a task; also returns an answer (for the floor server)."""
    from mcp.client.client import Client

    from workbench.mcp_server.task_client import TasksClient, get_task

    async with Client(url, extensions=[TasksClient()]) as starter:
        # warm, as the stdio run is: the model and the index snapshot load on the first query
        answer = await starter.call_tool("query_knowledge_hub", {"query": queries[0], "collection": collection})
        arguments = {
            "collection": collection,
            "golden": golden,  # the set the clients ask from, not whichever the collection names first
            "keys": "retrieval.mode,fusion.k,mmr.enabled",
            "trials": trials,
            "study": f"bench-mcp-{time.time_ns()}",  # a new study each run: the tune really runs
        }
        handle = await starter.session.call_tool("tune", arguments, allow_claimed=True)
        task_id = getattr(handle, "task_id", None)  # the Tasks extension's field on a claimed result
        if not isinstance(task_id, str):
            raise SystemExit(f"tune did not start as a task: {handle!r}"[:300])
        measured = await ask(url, queries, clients, calls, collection)
        state = await get_task(starter.session, task_id)
    return {
        **measured,
        "tune": f"{state.status}: {state.status_message}",
        "answer": answer.model_dump(mode="json", by_alias=True, exclude_none=True),
    }


def stdio_parameters(module_arguments: list[str]):
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", *module_arguments], cwd=str(ROOT), env=ENV)


BM25_PRESET = "bench-bm25"
FIRST_ANSWER_GOAL_S = 1.0


def bm25_preset(home: Path, name: str) -> str:
    """``name``, saved in ``home`` as a BM25-only preset when it is not there yet."""
    from workbench.service import Workbench

    bench = Workbench(home)
    if name not in {preset.name for preset in bench.presets()}:
        bench.save_preset(name, {"retrieval.mode": "bm25"}, "bench_mcp: BM25 only, no embedding model")
    mode = bench.config_for(None, name).retrieval.mode
    if mode != "bm25":
        raise SystemExit(f"--bm25-preset {name} searches in mode {mode}, not bm25; name a BM25-only preset")
    return name


async def first_answer(target, query: str, collection: str, started: float | None = None) -> tuple[float, float]:
    """(ready, answered): seconds from ``started`` (default: now) until ``target`` is ready (stdio:
    the client spawned the server and has its ``initialize`` answer) and until its first
    ``query_knowledge_hub`` answer."""
    from mcp.client.client import Client

    started = time.perf_counter() if started is None else started
    async with Client(target) as client:
        ready = time.perf_counter() - started
        result = await client.call_tool("query_knowledge_hub", {"query": query, "collection": collection})
        answered = time.perf_counter() - started
    if result.is_error:
        raise SystemExit(f"the first query failed: {getattr(result.content[0], 'text', result.content[0])}"[:300])
    return ready, answered


def http_first_answer(server_arguments: list[str], query: str, collection: str) -> tuple[float, float]:
    """(ready, answered): seconds from starting ``python -m workbench mcp --http ...`` until it
    accepts connections and until its first answer."""
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", *server_arguments, "--port", str(port)], cwd=ROOT, env=ENV, stderr=subprocess.DEVNULL
    )
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.perf_counter() - started > 120 or server.poll() is not None:
                    raise SystemExit(f"the HTTP server did not start: {' '.join(server_arguments)}") from None
                time.sleep(0.01)
        ready = time.perf_counter() - started
        _connected, answered = anyio.run(first_answer, f"http://127.0.0.1:{port}/mcp", query, collection, started)
        return ready, answered
    finally:
        server.terminate()
        server.wait(30)


def first_answer_rows(home: Path, preset: str, query: str, collection: str, starts: int) -> list[list]:
    server = ["workbench", "mcp", "--home", str(home), "--collection", collection, "--preset", preset]
    measured = {
        "stdio": [anyio.run(first_answer, stdio_parameters(server), query, collection) for _ in range(starts)],
        "HTTP": [http_first_answer([*server, "--http"], query, collection) for _ in range(starts)],
    }
    rows = []
    for transport, runs in measured.items():
        ready = sorted(r for r, _ in runs)
        after_ready = sorted(a - r for r, a in runs)
        total = sorted(a for _, a in runs)
        met = "yes" if after_ready[-1] <= FIRST_ANSWER_GOAL_S else "no"
        middle = len(runs) // 2
        rows.append(
            [transport, preset, len(runs), f"{ready[middle]:.2f}", f"{after_ready[middle]:.2f}"]
            + [f"{after_ready[-1]:.2f}", f"{total[middle]:.2f}", met]
        )
    return rows


def client_counts(text: str) -> list[int]:
    """``--clients``: one count (8) or several (1,2,4,8), each at least 1."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--clients takes counts separated by commas (1,2,4,8): {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"--clients takes counts of at least 1, got {text!r}")
    return counts


@contextlib.contextmanager
def serving(module_arguments: list[str]) -> Iterator[str]:
    """``python -m <module_arguments> --port P`` started and listening; yields its MCP URL."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", *module_arguments, "--port", str(port)], cwd=ROOT, env=ENV, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"the HTTP server did not start: {' '.join(module_arguments)}") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(30)


def http_run(
    home: Path, queries: list[str], clients: int, calls: int, collection: str, golden: str, trials: int
) -> dict:
    """One HTTP measurement on a server started for it, so each count starts with nothing cached."""
    with serving(["workbench", "mcp", "--http", "--home", str(home)]) as url:
        return anyio.run(http_load, url, queries, clients, calls, collection, golden, trials)


def floor_runs(
    answer: dict, queries: list[str], counts: list[int], calls: int, collection: str
) -> tuple[dict[int, dict], dict]:
    """The same calls to ``bench.mcp_floor_server``, which returns ``answer`` and searches nothing:
    HTTP's by client count, and stdio's; what the SDK, the transport and the machine cost."""
    with tempfile.TemporaryDirectory(prefix="bench-mcp-floor-") as folder:
        answer_file = Path(folder) / "answer.json"
        answer_file.write_text(json.dumps(answer), "utf-8")
        floor = ["bench.mcp_floor_server", "--answer", str(answer_file)]
        http = {}
        for clients in dict.fromkeys(counts):
            with serving(floor) as url:
                http[clients] = anyio.run(ask, url, queries, clients, calls, collection)
        stdio = anyio.run(ask, stdio_parameters(floor), queries, 1, calls, collection)
    return http, stdio


def latency_row(transport: str, clients: int, measured: dict, stdio_p95: float, goal: str = "") -> list:
    p95 = percentile(measured["latencies"], 0.95)
    return [
        transport,
        clients,
        len(measured["latencies"]),
        len(measured["errors"]),
        f"{percentile(measured['latencies'], 0.5):.1f}",
        f"{p95:.1f}",
        f"{p95 / stdio_p95:.2f}{goal}",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="a home with the collection (default with --smoke: the demo, built)")
    parser.add_argument("--collection", default="demo")
    parser.add_argument("--golden", default="demo")
    parser.add_argument(
        "--clients", type=client_counts, default=[8], help="concurrent HTTP clients; several counts, e.g. 1,2,4,8"
    )
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--trials", type=int, default=40, help="the tune task's trials")
    parser.add_argument(
        "--bm25-preset",
        default=BM25_PRESET,
        help=f"the BM25-only preset the first answers are timed on (default {BM25_PRESET}, saved if missing)",
    )
    parser.add_argument("--starts", type=int, default=5, help="server starts timed per transport (default 5)")
    parser.add_argument("--smoke", action="store_true", help="2 clients, 20 calls, 2 trials (builds a demo home)")
    arguments = parser.parse_args()
    if arguments.smoke:
        # the whole path once (a server per transport, clients at once, a tune task beside them), not its
        # figures: a second client count would only start every server again
        arguments.clients, arguments.calls, arguments.trials, arguments.starts = [2], 20, 2, 1
    home = arguments.home
    if home is None:
        if not arguments.smoke:
            parser.error("--home DIR is required without --smoke")
        from workbench.demo import load_demo
        from workbench.service import Workbench

        home = Path(tempfile.mkdtemp(prefix="bench-mcp-")) / "home"
        load_demo(Workbench(home))
    queries = questions(home, arguments.golden)
    calls, collection = arguments.calls, arguments.collection
    preset = bm25_preset(home, arguments.bm25_preset)
    load_first = os.getloadavg()
    first_rows = first_answer_rows(home, preset, queries[0], collection, arguments.starts)
    table(
        f"from server start to the first answer, {collection} on BM25-only preset {preset}, medians: ready (stdio: "
        "spawned and initialize answered; HTTP: listening), ready to the first answer (goal <= "
        f"{FIRST_ANSWER_GOAL_S:g} s at every start), start to the first answer; load average {load_first[0]:.2f} "
        f"before, {os.getloadavg()[0]:.2f} after, {os.cpu_count()} cores",
        ["transport", "preset", "starts", "ready s", "ready to answer s", "max", "start to answer s", "goal met"],
        first_rows,
    )
    load_before = os.getloadavg()
    # a list, not a dict: a count given twice (8,8,8) is measured each time
    runs = [
        (clients, http_run(home, queries, clients, calls, collection, arguments.golden, arguments.trials))
        for clients in arguments.clients
    ]
    stdio = anyio.run(ask, stdio_parameters(["workbench", "mcp", "--home", str(home)]), queries, 1, calls, collection)
    floor, floor_stdio = floor_runs(runs[0][1]["answer"], queries, arguments.clients, calls, collection)
    load_after = os.getloadavg()
    stdio_p95 = percentile(stdio["latencies"], 0.95)
    rows = [latency_row("HTTP", clients, http, stdio_p95, " (goal <= 3)") for clients, http in runs]
    rows.append(latency_row("stdio", 1, stdio, stdio_p95))
    rows += [
        latency_row("HTTP, no search", clients, floor[clients], stdio_p95)
        for clients in dict.fromkeys(arguments.clients)
    ]
    rows.append(latency_row("stdio, no search", 1, floor_stdio, stdio_p95))
    tunes = "; ".join(http["tune"] for _clients, http in runs)
    table(
        f"query_knowledge_hub over MCP, {collection}: HTTP while a {arguments.trials}-trial tune task ran "
        f"({tunes}), stdio alone; 'no search': the same calls to a server that returns a kept answer "
        f"(bench/mcp_floor_server.py); load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, "
        f"{os.cpu_count()} cores",
        ["transport", "clients", "calls", "errors", "p50 ms", "p95 ms", "p95 vs stdio"],
        rows,
    )
    for clients, http in runs:
        print(
            split_by_first_asking(
                f"HTTP, {clients} client{'s' * (clients != 1)}", http["latencies"], http["first_asked"]
            )
        )
    print(split_by_first_asking("stdio", stdio["latencies"], stdio["first_asked"]))
    measured = [http for _clients, http in runs] + [stdio, *floor.values(), floor_stdio]
    errors = [error for one in measured for error in one["errors"]]
    for error in errors[:5]:
        print(f"  error: {error}")
    return 0 if not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
