"""The evaluation loop as tools, without the protocol: evaluate, compare, tune, check, save.

Each method runs the CLI's own code path on the server's ``Workbench`` (``evaluate_and_store``
of ``eval``, ``compare_runs`` of ``compare``, ``build_request``/``run_tune``/``report_dict`` of
``tune``, ``run_check`` of ``check``, ``save_winner`` of ``tune --save-preset``), with the
options a command line would give, and returns a ``ToolOutput``: Markdown plus the structured
result. A long one reports through ``current_progress`` and stops when it is cancelled.

Every collection and preset a call leaves out is the server's (``--collection``, ``--preset``),
and the server's ``--set`` goes under the call's own settings: ``evaluate`` scores what
``query_knowledge_hub`` serves. The reasons and notes the CLI's code writes name its flags;
``in_tool_terms`` names the tool arguments instead.
"""

from __future__ import annotations

import threading
from argparse import Namespace
from pathlib import Path
from typing import Any

from workbench.mcp_server.arguments import check_level
from workbench.mcp_server.defaults import ServerDefaults
from workbench.mcp_server.jobs import current_progress
from workbench.mcp_server.loop_schemas import (
    CheckOut,
    ComparisonOut,
    EvaluationOut,
    GoldenSetEntry,
    GoldenSetList,
    IngestOut,
    IntervalOut,
    MetricDeltaOut,
    MetricOut,
    PresetOut,
    QueryChangeOut,
    RunEntry,
    RunList,
    SynthOut,
    TuneOut,
)
from workbench.mcp_server.loop_uris import run_uri, study_uri
from workbench.mcp_server.tools import ToolOutput
from workbench.mcp_server.vocabulary import in_tool_terms
from workbench.service import Workbench

#: what ``workbench check`` exits with: pass, a significant drop, a comparison that cannot be made
EXIT_OK, EXIT_BELOW_THRESHOLD, EXIT_USAGE = 0, 1, 2
#: the interval every mean carries: the one bootstrap eval, tune and check use, on per-query values
MEAN_INTERVAL_SEED = 0


def _interval(interval: Any) -> IntervalOut:
    return IntervalOut(low=interval.low, high=interval.high, confidence=interval.confidence)


def mean_interval(values: list[float]) -> IntervalOut:
    from workbench.evaluation.intervals import bootstrap_interval

    return _interval(bootstrap_interval(values, seed=MEAN_INTERVAL_SEED))


def _options(**given: Any) -> Namespace:
    """What the CLI's parser would hand a command: the common options plus ``given``."""
    return Namespace(**{"home": None, "preset": None, "overrides": [], "json": True, **given})


class EvaluationLoop:
    def __init__(self, bench: Workbench, defaults: ServerDefaults | None = None):
        self.bench = bench
        self.defaults = defaults or ServerDefaults()
        #: the last report of each study tuned by this server, for save_preset
        self._reports: dict[str, Any] = {}
        self._lock = threading.Lock()

    def run_table(self, run_id: int) -> str:
        """Resource: a stored run's per-query table (JSON), the rows compare_runs pairs."""
        import json

        from workbench.evaluation.runs import load_run

        run = load_run(self.bench.catalog, run_id)
        rows = [q.to_dict() for q in run.per_query]
        return json.dumps({"run_id": run_id, "golden": run.golden, "queries": rows}, ensure_ascii=False)

    def study_trials(self, study: str) -> str:
        """Resource: every completed trial of a study, per part (JSON), read from its stored journal."""
        import json
        from dataclasses import asdict

        import optuna

        from workbench.service import NotFoundError
        from workbench.tuning import study as studies

        path = studies.storage_path(self.bench.home, study)
        if not path.exists():
            known = ", ".join(studies.known_studies(self.bench.home)) or "none yet"
            raise NotFoundError(f"no study {study!r} in this home; known: {known}")
        storage = studies.open_storage(path)
        parts = []
        for summary in storage.get_all_studies():
            loaded = optuna.load_study(study_name=summary.study_name, storage=storage)
            parts.append({"part": summary.study_name, "trials": [asdict(t) for t in studies.completed_trials(loaded)]})
        return json.dumps({"study": study, "parts": parts}, ensure_ascii=False, default=str)

    def list_golden_sets(self) -> ToolOutput:
        from workbench.evaluation import golden as golden_sets

        entries = []
        for name in golden_sets.available(self.bench.home):
            golden = golden_sets.find(name, self.bench.home)
            answerable = sum(1 for q in golden.queries if q.relevant)
            path = golden_sets.locate(name, self.bench.home)
            entries.append(GoldenSetEntry(name=name, queries=len(golden), answerable=answerable, path=str(path)))
        lines = [f"- {e.name}: {e.queries} queries ({e.answerable} answerable)" for e in entries]
        return ToolOutput("\n".join(lines) or "no golden sets in this home", GoldenSetList(golden_sets=entries))

    def evaluate(
        self,
        collection: str | None,
        golden: str | None,
        preset: str | None,
        settings: list[str],
        metrics: str,
        level: str | None,
        store: bool,
        label: str,
    ) -> ToolOutput:
        from workbench.evaluation.metrics import parse_list
        from workbench.service.commands import evaluate_and_store

        progress = current_progress()
        given = self.defaults
        args = _options(
            collection=given.collection_or(collection), golden=golden, level=check_level(level), label=label
        )
        args.no_store, args.answers = not store, False
        args.preset, args.overrides = given.preset_or(preset), given.settings_with(settings)

        def each_query(done: int, total: int) -> None:
            progress(f"{done}/{total} queries", done, total)
            progress.pace()

        result = evaluate_and_store(self.bench, args, tuple(parse_list(metrics)), each_query)
        shown = []
        for name, value in result.metrics.items():
            values = list(result.per_query_values(name).values())
            if values:
                shown.append(MetricOut(name=name, mean=value, interval=mean_interval(values), queries=len(values)))
        out = EvaluationOut(
            run_id=result.run_id,
            collection=result.collection,
            golden=result.golden,
            level=result.level,
            mode=str(result.config["retrieval"]["mode"]),
            queries=len(result.per_query),
            skipped=len(result.skipped),
            metrics=shown,
            notes=[in_tool_terms(note) for note in result.notes],
            per_query_resource=run_uri(result.run_id) if result.run_id is not None else None,
        )
        lines = [
            f"{out.collection} / {out.golden}: {out.queries} queries ({out.skipped} skipped), mode {out.mode}"
            + (f", stored as run {out.run_id}" if out.run_id is not None else ", not stored")
        ]
        lines += [
            f"- {m.name}: {m.mean:.4f} (95% interval [{m.interval.low:.4f}, {m.interval.high:.4f}], "
            f"{m.queries} queries)"
            for m in shown
        ]
        if out.per_query_resource:
            lines.append(f"per-query table: {out.per_query_resource}")
        return ToolOutput("\n".join(lines + [f"note: {n}" for n in out.notes]), out)

    def compare_runs(self, run_a: int, run_b: int, metric: str, permutations: int, seed: int, top: int) -> ToolOutput:
        from workbench.evaluation.compare import compare_runs
        from workbench.evaluation.runs import load_run

        a, b = load_run(self.bench.catalog, run_a), load_run(self.bench.catalog, run_b)
        comparison = compare_runs(a, b, metric.strip().lower(), permutations, seed)
        test = comparison.test
        out = ComparisonOut(
            run_a=run_a,
            run_b=run_b,
            metric=comparison.metric,
            queries=len(comparison.changes),
            metrics=[MetricDeltaOut(metric=d.metric, a=d.a, b=d.b, delta=d.delta) for d in comparison.deltas],
            wins=comparison.wins,
            losses=comparison.losses,
            ties=comparison.ties,
            mean_difference=test.mean_difference,
            p_value=test.p_value,
            test=test.method,
            permutations=test.permutations,
            most_changed=[
                QueryChangeOut(query_id=c.query_id, query=c.query, a=c.a, b=c.b, delta=c.delta)
                for c in comparison.most_changed(top)
            ],
            config_changes=[{"key": k, "a": x, "b": y} for k, x, y in comparison.config_changes],
            warnings=list(comparison.warnings),
        )
        markdown = (
            f"run {run_b} against run {run_a} on {out.metric} over {out.queries} paired queries: b wins {out.wins}, "
            f"loses {out.losses}, ties {out.ties}; mean difference {out.mean_difference:+.4f}, p = {out.p_value:.4f} "
            f"({out.test}, {out.permutations} permutations)"
        )
        return ToolOutput("\n".join([markdown, *(f"warning: {w}" for w in out.warnings)]), out)

    def check(
        self,
        preset: str | None,
        baseline: str,
        collection: str | None,
        golden: str | None,
        metric: str,
        max_drop: float,
        alpha: float,
        permutations: int,
        store: bool,
        held_out_only: bool = False,
        level: str | None = None,
    ) -> ToolOutput:
        from workbench.service.commands import run_check
        from workbench.text import error_message

        given = self.defaults
        preset = given.preset_or(preset) or ""
        args = _options(
            collection=given.collection_or(collection),
            golden=golden,
            baseline=baseline,
            metric=metric,
            level=check_level(level),  # None: the level the golden set was judged at
            max_drop=max_drop,
            alpha=alpha,
            permutations=permutations,
            no_store=not store,
            held_out_only=held_out_only,
        )
        args.preset, args.overrides = preset, given.settings_with()
        properties: dict[str, Any] = {"baseline": baseline, "candidate": preset, "metric": metric}
        try:
            result, properties = run_check(args, properties, self.bench)
        except (ValueError, LookupError) as error:  # the CLI's exit status 2: the message names the fix
            message = in_tool_terms(error_message(error))
            out = CheckOut(exit_code=EXIT_USAGE, passed=False, status="error", reason=message, metric=metric)
            return ToolOutput(f"check could not compare (exit status 2): {message}", out)
        out = CheckOut(
            exit_code=EXIT_BELOW_THRESHOLD if result.failed else EXIT_OK,
            passed=not result.failed,
            status=result.status,
            reason=in_tool_terms(result.reason()),
            metric=result.metric,
            queries=result.queries,
            baseline=result.baseline,
            candidate=result.candidate,
            difference=result.difference,
            interval=_interval(result.interval),
            p_value=result.p_value,
            baseline_run=properties.get("baseline_run") or None,
            candidate_run=properties.get("candidate_run") or None,
            study_queries=in_tool_terms(properties.get("study_queries") or "") or None,
            power_note=in_tool_terms(result.power_note()) or None,
        )
        notes = "".join(f"\n{note}" for note in (out.study_queries, out.power_note) if note)
        return ToolOutput(f"{in_tool_terms(result.describe())}{notes}\n{out.reason} (exit status {out.exit_code})", out)

    def tune(self, **options: Any) -> ToolOutput:
        from workbench.service.commands import build_request, grow_golden, report_dict
        from workbench.service.tune_flow import tune_options
        from workbench.tuning.plan import plan_tune
        from workbench.tuning.tune import run_tune

        progress = current_progress()
        given = self.defaults
        options |= {
            "collection": given.collection_or(options.get("collection")),
            "preset": given.preset_or(options.get("preset")),
            "overrides": given.settings_with(options.get("overrides", [])),
        }
        # the options `tune -c C --golden G` leaves to the plan: one function for the CLI's defaults, MCP and the app
        args = tune_options(**options)
        grow = bool(args.grow_golden)
        request = build_request(self.bench, args)
        progress("evaluating the starting configuration to plan the experiment")
        plan = plan_tune(self.bench, request)
        grown = ""
        if grow and plan.grow is not None:
            progress(f"writing about {plan.grow.questions} more questions with the LLM endpoint")
            grown = grow_golden(self.bench, request, plan)
            request = build_request(self.bench, args)
            plan = plan_tune(self.bench, request)

        def report(event: Any) -> None:
            from workbench.ingestion.estimates import describe_duration

            study = event.study
            if study is None:
                progress(event.message or "working")
                return
            best = study.best
            shown = f"best {request.metric} {best.metric:.4f}" if best else "no trial yet"
            left = f", about {describe_duration(event.eta_s)} left" if event.eta_s is not None else ""
            target = f"/{study.target}" if study.target else ""
            progress(
                f"[{event.part}, study {event.index}/{event.studies}] trial {study.done}{target}: {shown}{left}",
                study.done,
                study.target,
            )

        tuned = run_tune(
            self.bench, request, progress=report, on_build=progress, cancel=progress.cancel, pace=progress.pace
        )
        if plan.saturation.saturated:
            tuned.notes.insert(0, plan.saturation.describe())
        with self._lock:
            self._reports[tuned.name] = tuned
        full = report_dict(tuned, None, plan)
        gain = tuned.gain
        out = TuneOut(
            study=tuned.name,
            stopped=tuned.stopped,
            verdict=gain.verdict() if gain and not tuned.stopped else None,
            gain=gain.mean if gain and not tuned.stopped else None,
            interval=_interval(gain.interval) if gain and not tuned.stopped else None,
            queries=gain.queries if gain and not tuned.stopped else None,
            winner=tuned.changed_keys() if not tuned.stopped else {},
            trials=tuned.trials,
            trials_resource=study_uri(tuned.name),
            report=full,
            plan=plan.to_dict(),
        )
        if tuned.stopped:
            markdown = (
                f"study {tuned.name} stopped after {tuned.trials} completed trials; call tune again with the same "
                "options and resume=true to continue (completed trials are kept)"
            )
        elif gain is None:
            markdown = f"study {tuned.name}: no verdict; " + "; ".join(in_tool_terms(note) for note in tuned.notes)
        else:
            markdown = f"study {tuned.name}: {gain.describe()}\nwinner changes: {out.winner or 'none'}"
        planned = "\n".join(f"plan: {line}" for line in plan.describe())
        grown = f"\n{grown}" if grown else ""
        return ToolOutput(f"{planned}{grown}\n{markdown}\ntrials: {out.trials_resource}", out)

    def save_preset(self, name: str, study: str | None, settings: list[str], force: bool) -> ToolOutput:
        from workbench.config import ConfigError, WorkbenchConfig, overrides_between
        from workbench.tuning.tune import save_winner

        if study:
            with self._lock:
                report = self._reports.get(study)
            if report is None:
                known = ", ".join(sorted(self._reports)) or "none yet"
                raise ConfigError(
                    f"study {study!r} has no report on this server (tuned here: {known}); run tune with "
                    "study set to it (resume=true continues a stored study) first"
                )
            decision = save_winner(self.bench, report, name, force)
            message = in_tool_terms(decision.message)
            out = PresetOut(name=decision.name, saved=decision.saved, message=message, settings=decision.overrides)
            return ToolOutput(message, out)
        if not settings:
            raise ConfigError("save_preset needs study (a tuned study's winner) or settings (key=value items)")
        chosen = overrides_between(WorkbenchConfig(), WorkbenchConfig().with_overrides(list(settings)))
        saved = self.bench.save_preset(name, chosen, "saved over MCP")
        message = f"saved preset {name!r}: " + (" ".join(f"{k}={v}" for k, v in saved.items()) or "(defaults)")
        return ToolOutput(message, PresetOut(name=name, saved=True, message=message, settings=dict(saved)))

    def list_runs(self, collection: str | None, golden: str | None, limit: int) -> ToolOutput:
        from workbench.evaluation.runs import list_runs

        collection = self.defaults.collection_or(collection)
        rows = list_runs(self.bench.catalog, collection=collection, golden=golden, include_sweeps=False, limit=limit)
        runs = [
            RunEntry(
                run_id=r.id,
                created_at=r.created_at.isoformat(timespec="seconds"),
                collection=r.collection,
                golden=r.golden,
                level=r.level,
                label=r.label,
                queries=r.queries,
                metrics=r.metrics,
                overrides=r.overrides,
                per_query_resource=run_uri(r.id),
            )
            for r in rows
        ]
        lines = [
            f"- run {r.run_id} ({r.created_at}) {r.collection}/{r.golden} {r.queries} queries: "
            + ", ".join(f"{k} {v:.4f}" for k, v in list(r.metrics.items())[:3])
            for r in runs
        ]
        return ToolOutput("\n".join(lines) or "no runs stored yet; call evaluate", RunList(runs=runs))

    def ingest(self, root: Path, paths: list[str], collection: str | None) -> ToolOutput:
        """``ingest PATHS --collection C``, for paths under ``root`` only (a relative path is taken from there)."""
        from workbench.mcp_server.arguments import ToolInputError
        from workbench.service.commands import config_for_new_or_existing

        name = self.defaults.collection_or(collection)
        if not name:
            raise ToolInputError("ingest needs `collection`: the collection to ingest into (created if new)")
        collection = name
        base = root.resolve()
        files: list[Path] = []
        for raw in paths:
            given = Path(raw)
            path = (given if given.is_absolute() else base / given).resolve()
            if not path.is_relative_to(base):
                raise ToolInputError(
                    f"{raw!r} is outside the ingest root {base}: this server ingests files under it only "
                    "(start it with another --ingest-root to allow another folder)"
                )
            if not path.exists():
                raise ToolInputError(f"no such file under the ingest root {base}: {raw!r}")
            found = sorted(x for x in path.rglob("*") if x.is_file()) if path.is_dir() else [path]
            # a link inside the root may point outside it: what is read must lie under the root too
            files += [f for f in found if f.resolve().is_relative_to(base)]
        progress = current_progress()
        config = config_for_new_or_existing(
            self.bench, collection, _options(preset=self.defaults.preset, overrides=self.defaults.settings_with())
        )
        report = self.bench.ingest_paths(
            collection,
            files,
            config,
            progress=lambda event: progress(str(getattr(event, "message", event))),
            cancel=progress.cancel,
        )
        failed = [f"{o.source}: {o.reason}" for o in report.failures]
        out = IngestOut(
            collection=collection, summary=report.summary(), files=len(files), failed=failed, cancelled=report.cancelled
        )
        return ToolOutput(f"{collection}: {out.summary}" + "".join(f"\nfailed: {f}" for f in failed), out)

    def synthesize(
        self, collection: str | None, out: str, n: int, seed: int, kinds: str, preset: str | None, settings: list[str]
    ) -> ToolOutput:
        """``golden synth``: questions written by the configured LLM endpoint from sampled chunks."""
        from workbench.golden.build import plan_synth, run_synth
        from workbench.service.commands import checked_config, collection_of

        progress = current_progress()
        given = self.defaults
        args = _options(collection=given.collection_or(collection))
        args.preset, args.overrides = given.preset_or(preset), given.settings_with(settings)
        name = collection_of(self.bench, args.collection)
        config = checked_config(self.bench, name, args)
        plan = plan_synth(self.bench, name, config, n=n, seed=seed, out=out, kinds=kinds)
        report = run_synth(self.bench, plan, lambda done, total: progress(f"{done}/{total} questions", done, total))
        result = SynthOut(
            golden=plan.out,
            path=str(plan.out_path),
            planned=report.planned,
            kept=len(report.kept),
            rejected={reason: count for reason, count in report.rejected.items() if count},
            endpoint_calls=report.endpoint_calls,
            cached_calls=report.cached_calls,
            complete=report.complete,
            stopped=report.stopped,
            **report.spread(),
            repeated_quotes=report.repeated_quotes(),
        )
        markdown = f"golden set {result.golden}: kept {result.kept} of {result.planned} questions ({result.path})"
        if report.stopped:
            markdown += f"; the endpoint failed ({report.stopped}): call again with the same options to finish"
        return ToolOutput(markdown, result)
