"""The evaluation loop's tools on the MCP server: schemas, descriptions, read-only and tasks.

A tool that writes (``save_preset``, ``ingest``, ``tune``: it stores a study) is not registered
on a read-only server, so it is neither listed nor callable; ``evaluate`` and ``check`` store
no run there. ``tune``, ``evaluate``, ``check`` and ``ingest`` run as tasks for a client that
declares the Tasks extension (``tasks.py``); for any other client they answer when done, with
progress notifications on the way when the client sent a progress token.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from workbench.mcp_server.jobs import _PROGRESS, Jobs, Progress, with_progress
from workbench.mcp_server.loop_schemas import (
    CheckOut,
    ComparisonOut,
    EvaluationOut,
    GoldenSetList,
    IngestOut,
    PresetOut,
    RunList,
    SynthOut,
    TuneOut,
)
from workbench.mcp_server.loop_uris import RUN_URI, STUDY_URI

if TYPE_CHECKING:
    from workbench.mcp_server.loop import EvaluationLoop

TASK_TOOLS = frozenset({"tune", "evaluate", "check", "ingest", "synthesize_golden_set"})
LOOP_INSTRUCTIONS = """ The evaluation loop: list_golden_sets names the test sets; evaluate scores \
a configuration on one (metrics with 95% intervals, stored as a run); compare_runs pairs two runs; \
tune searches configurations and reports the winner's held-out gain; check gates a preset \
against a baseline like CI; save_preset keeps a tuned winner. tune, evaluate, check and ingest \
run as tasks (io.modelcontextprotocol/tasks) when the client supports them."""

READS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
RUNS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

Collection = Annotated[
    str | None, Field(description="collection; default: the server's --collection, else the home's only collection")
]
Golden = Annotated[str | None, Field(description="golden set name (list_golden_sets); default: the collection's name")]
Preset = Annotated[
    str | None,
    Field(description="preset to start from; default: the server's --preset, else the collection's default preset"),
]
Settings = Annotated[
    list[str],
    Field(description="config overrides on top of the preset (and the server's --set), each 'key=value'"),
]
INGEST_PATHS = "files or folders under the server's --ingest-root (a relative path is taken from there)"
Metric = Annotated[str, Field(description="ranking metric, e.g. ndcg@10, recall@10, mrr@10")]
Level = Annotated[
    str | None,
    Field(
        description="doc (relevant documents) or span (relevant passages); default: the level the golden set "
        "was judged at (span when judged by passage)"
    ),
]


@dataclass(frozen=True)
class LoopOptions:
    """What the HTTP server adds: the loop's tools, tasks, read-only and the ingest root."""

    read_only: bool = False
    ingest_root: Path | None = None
    jobs: Jobs = field(default_factory=lambda: Jobs(TASK_TOOLS))
    instructions: str = LOOP_INSTRUCTIONS


class _LoopProvider:
    """One ``EvaluationLoop`` over the hub's ``Workbench``, made on first use."""

    def __init__(self, provider: Any):  # the server module's HubProvider (it imports this module)
        self._provider = provider
        self._loop: EvaluationLoop | None = None
        self._lock = threading.Lock()

    def get(self) -> EvaluationLoop:
        with self._lock:
            if self._loop is None:
                from workbench.mcp_server.loop import EvaluationLoop

                hub = self._provider.get()
                self._loop = EvaluationLoop(hub.bench, hub.defaults)
            return self._loop


def _progress_for(ctx: Context | None) -> Progress | None:
    """Outside a task: progress notifications on the call's own stream (when it asked for them)."""
    if _PROGRESS.get() is not None or ctx is None:
        return None  # a task's job already reports into its status message

    def report(message: str, done: float | None, total: float | None) -> None:
        try:
            anyio.from_thread.run(ctx.report_progress, done or 0, total, message)
        except Exception:
            pass

    return Progress(report, threading.Event())


def _no_run(given: str) -> str:
    raise LookupError(f"run id {given!r} is not a number; list_runs names the stored runs")


def _caller_mistakes_named(work: Callable[[], Any]) -> Any:
    """The loop's own mistakes a caller can fix (an unknown golden set, run or metric; a write on
    a read-only server; a study that does not match its options) as ``isError`` results."""
    from workbench.llm.client import LlmUnavailable
    from workbench.mcp_server.arguments import ToolInputError
    from workbench.mcp_server.tools import CALLER_ERRORS
    from workbench.service.sharing import SharingError
    from workbench.text import error_message
    from workbench.tuning.study import StudyError

    try:
        return work()
    except CALLER_ERRORS:
        raise
    except (ValueError, LookupError, StudyError, PermissionError, SharingError, LlmUnavailable) as error:
        raise ToolInputError(error_message(error)) from None


def register_loop_tools(server: Any, provider: Any, options: LoopOptions) -> None:
    """Register the tools on ``server`` (a ``WorkbenchMCPServer``) over ``provider`` (its ``HubProvider``)."""
    from workbench.mcp_server.tasks import TasksExtension

    loop = _LoopProvider(provider)
    for extension in server._extensions:  # the SDK keeps its extensions there; test_mcp_http covers it
        if isinstance(extension, TasksExtension):
            extension.bind(server.call_tool)

    def call(produce: Callable[[EvaluationLoop], Any], ctx: Context | None = None) -> CallToolResult:
        progress = _progress_for(ctx)
        work = lambda: provider.call(lambda hub: _caller_mistakes_named(lambda: produce(loop.get())))  # noqa: E731
        return with_progress(progress, work) if progress is not None else work()

    def tool(title: str, writes: bool = False, annotations: ToolAnnotations = RUNS):
        def register(fn):
            if writes and options.read_only:
                return fn  # hidden, and so refused: an unknown tool
            server.add_tool(fn, title=title, description=inspect.cleandoc(fn.__doc__ or ""), annotations=annotations)
            return fn

        return register

    store_runs = not options.read_only

    @tool("List golden sets", annotations=READS)
    def list_golden_sets() -> Annotated[CallToolResult, GoldenSetList]:
        """The golden sets (questions with known relevant documents) this home holds, with their
        query counts. Use it first: evaluate, tune and check each score a configuration on one."""
        return call(lambda lp: lp.list_golden_sets())

    @tool("Evaluate a configuration")
    def evaluate(
        ctx: Context,
        collection: Collection = None,
        golden: Golden = None,
        preset: Preset = None,
        settings: Settings = [],  # noqa: B006 - the SDK copies defaults per call
        metrics: Annotated[str, Field(description="comma separated; default: the standard set")] = "",
        level: Level = None,
        label: Annotated[str, Field(description="a label stored with the run")] = "",
    ) -> Annotated[CallToolResult, EvaluationOut]:
        """Score one configuration (a preset plus settings) on a golden set, like `workbench eval`.
        Each metric comes with its 95% bootstrap interval and the number of queries: two
        configurations whose intervals overlap may not differ. The run is stored (run_id) for
        compare_runs and check; per_query_resource holds its per-query table. Long on big sets:
        a task for clients with the Tasks extension."""
        return call(
            lambda lp: lp.evaluate(collection, golden, preset, settings, metrics, level, store_runs, label), ctx
        )

    @tool("Compare two runs", annotations=READS)
    def compare_runs(
        run_a: Annotated[int, Field(description="the reference run id (list_runs)")],
        run_b: Annotated[int, Field(description="the run compared with it")],
        metric: Metric = "ndcg@10",
        permutations: Annotated[int, Field(description="randomization test permutations", ge=100)] = 10_000,
        seed: int = 0,
        top: Annotated[int, Field(description="most changed queries to list", ge=0, le=100)] = 5,
    ) -> Annotated[CallToolResult, ComparisonOut]:
        """Pair two stored runs query by query: per-metric deltas, wins and losses, and a paired
        randomization test on `metric`. p_value below 0.05 means b really differs from a on these
        queries; above it, the difference may be luck."""
        return call(lambda lp: lp.compare_runs(run_a, run_b, metric, permutations, seed, top))

    @tool("Tune a configuration", writes=True)
    def tune(
        ctx: Context,
        collection: Collection = None,
        golden: Golden = None,
        preset: Preset = None,
        settings: Settings = [],  # noqa: B006
        keys: Annotated[str | None, Field(description="comma separated keys to tune; default: all")] = None,
        metric: Metric = "ndcg@10",
        trials: Annotated[int | None, Field(description="completed trials per study (default 50)", ge=1)] = None,
        minutes: Annotated[float | None, Field(description="time budget in minutes", gt=0)] = None,
        level: Level = None,
        holdout: Annotated[
            float | None,
            Field(
                description="one split: share of queries held out (default: 5-fold nested cross-validation under "
                "tuning.folds_below 300 scorable queries, a holdout of 0.3 from there)",
                gt=0,
                lt=1,
            ),
        ] = None,
        folds: Annotated[int | None, Field(description="nested cross-validation folds instead", ge=2)] = None,
        seed: Annotated[int, Field(description="seeds the split, the sampler and the interval")] = 0,
        study: Annotated[str | None, Field(description="study name; default: derived from the options")] = None,
        resume: Annotated[bool, Field(description="continue a stopped or interrupted study")] = False,
        grow_golden: Annotated[
            bool,
            Field(
                description="when the plan finds the golden set too short to show a gain of 0.02, have the LLM "
                "endpoint write the questions it lacks first (a set written by synthesize_golden_set)"
            ),
        ] = False,
    ) -> Annotated[CallToolResult, TuneOut]:
        """Search configurations on part of a golden set and measure the winner on the held-out
        rest, like `workbench tune`. verdict: "better than your current configuration" (the 95%
        interval of the held-out gain lies above zero: worth saving with save_preset), "not
        distinguishable" (it covers zero: keep what you have) or "worse". Runs as a task for
        clients with the Tasks extension; cancelling keeps completed trials, and resume=true
        continues the study (also after a server restart)."""
        given: dict[str, Any] = {
            "collection": collection,
            "golden": golden,
            "keys": keys,
            "metric": metric,
            "trials": trials,
        }
        given |= {"minutes": minutes, "holdout": holdout, "folds": folds, "seed": seed, "study": study}
        given |= {"resume": resume, "preset": preset, "overrides": list(settings)}
        given |= {"level": level, "grow_golden": grow_golden}
        return call(lambda lp: lp.tune(**given), ctx)

    @tool("Check a preset against a baseline")
    def check(
        ctx: Context,
        baseline: Annotated[str, Field(description="a stored run id (12 or run:12) or a preset evaluated now")],
        preset: Annotated[
            str | None, Field(description="the preset under test; default: the server's --preset")
        ] = None,
        collection: Collection = None,
        golden: Golden = None,
        metric: Metric = "ndcg@10",
        max_drop: Annotated[float, Field(description="a smaller drop always passes", ge=0)] = 0.01,
        alpha: Annotated[float, Field(description="significance level", gt=0, lt=1)] = 0.05,
        permutations: Annotated[int, Field(ge=100)] = 10_000,
        held_out_only: Annotated[
            bool, Field(description="compare only on the queries the preset's tune study never saw")
        ] = False,
        level: Level = None,
    ) -> Annotated[CallToolResult, CheckOut]:
        """The CI regression gate (`workbench check`): is `preset` significantly worse than
        `baseline`? exit_code is what the command exits with: 0 passes, 1 a drop larger than
        max_drop that the paired test calls significant, 2 the comparison cannot be made (reason
        says why, e.g. the golden set or corpus changed since the baseline run). For a preset saved
        by tune, study_queries says how many compared queries its study tuned on; held_out_only
        compares on the others. power_note says when the queries are too few to show a gain."""
        return call(
            lambda lp: lp.check(
                preset,
                baseline,
                collection,
                golden,
                metric,
                max_drop,
                alpha,
                permutations,
                store_runs,
                held_out_only,
                level,
            ),
            ctx,
        )

    @tool("Save a preset", writes=True)
    def save_preset(
        name: Annotated[str, Field(description="preset name")],
        study: Annotated[str | None, Field(description="save this tuned study's winner")] = None,
        settings: Settings = [],  # noqa: B006
        force: Annotated[bool, Field(description="save a winner whose gain is not significant, marked")] = False,
    ) -> Annotated[CallToolResult, PresetOut]:
        """Keep a configuration as a named preset (query_knowledge_hub and evaluate take it). With
        study: the winner of a tune call on this server, refused (saved: false) unless its held-out
        interval lies above zero, as tune --save-preset refuses, or force is true. With settings:
        exactly those key=value settings."""
        return call(lambda lp: lp.save_preset(name, study, settings, force))

    @tool("List stored runs", annotations=READS)
    def list_runs(
        collection: Collection = None,
        golden: Annotated[str | None, Field(description="only runs on this golden set")] = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 20,
    ) -> Annotated[CallToolResult, RunList]:
        """Stored evaluation runs, newest first, with their main metrics: ids for compare_runs and
        check, and each run's per-query table as a resource."""
        return call(lambda lp: lp.list_runs(collection, golden, limit))

    @tool("Synthesize a golden set", writes=True)
    def synthesize_golden_set(
        ctx: Context,
        out: Annotated[str, Field(description="name of the golden set to write")],
        collection: Collection = None,
        n: Annotated[int, Field(description="questions to ask for", ge=1)] = 30,
        seed: Annotated[int, Field(description="seed of the chunk sample")] = 0,
        kinds: Annotated[
            str, Field(description="comma separated: specific, abstract, multi_hop, unanswerable")
        ] = "specific,abstract,multi_hop,unanswerable",
        preset: Preset = None,
        settings: Settings = [],  # noqa: B006
    ) -> Annotated[CallToolResult, SynthOut]:
        """Write a golden set from the collection's own chunks with the configured LLM endpoint
        (`workbench golden synth`): each question keeps the quote it was written from, and one
        whose quote is not found is dropped. Needs the OpenAI-compatible endpoint the workbench is
        configured with (WORKBENCH_LLM_BASE_URL, WORKBENCH_LLM_MODEL); without one the call fails
        saying so. Runs as a task for clients with the Tasks extension; after an endpoint failure,
        call it again with the same options to finish."""
        return call(lambda lp: lp.synthesize(collection, out, n, seed, kinds, preset, settings), ctx)

    def resource_text(produce: Callable[[EvaluationLoop], str]) -> str:
        from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

        from workbench.mcp_server.tools import CALLER_ERRORS, NotFoundError
        from workbench.mcp_server.vocabulary import in_tool_terms
        from workbench.text import error_message

        try:
            return produce(loop.get())
        except (NotFoundError, LookupError) as error:
            raise ResourceNotFoundError(in_tool_terms(error_message(error))) from None
        except CALLER_ERRORS as error:
            raise ResourceError(in_tool_terms(error_message(error))) from None
        except ValueError as error:  # a study that cannot be read, say
            raise ResourceError(in_tool_terms(error_message(error))) from None

    @server.resource(RUN_URI, name="run", title="An evaluation run's per-query table", mime_type="application/json")
    def run_queries(run_id: str) -> str:
        return resource_text(lambda lp: lp.run_table(int(run_id)) if run_id.isdigit() else _no_run(run_id))

    @server.resource(STUDY_URI, name="study", title="A tune study's completed trials", mime_type="application/json")
    def study_trials(study: str) -> str:
        return resource_text(lambda lp: lp.study_trials(study))

    root = options.ingest_root
    if root is not None:

        @tool("Ingest files", writes=True)
        def ingest(
            ctx: Context,
            paths: Annotated[list[str], Field(description=INGEST_PATHS, min_length=1)],
            collection: Annotated[
                str | None,
                Field(description="collection to ingest into (created if new); default: the server's --collection"),
            ] = None,
        ) -> Annotated[CallToolResult, IngestOut]:
            """Parse, chunk and embed files into a collection, like `workbench ingest`. Only paths
            under the folder the server was started with (--ingest-root) are accepted. Runs as a
            task for clients with the Tasks extension; run it again after an interruption (files
            already ingested are skipped)."""
            return call(lambda lp: lp.ingest(root, paths, collection), ctx)
