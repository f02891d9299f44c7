"""What the commands compute, shared by the CLI and the MCP server: the same code path for both.

The ``args`` these take are the CLI's parsed options (an ``argparse.Namespace``); the MCP server
builds the same namespace from a tool's arguments. Printing and exit statuses stay in the CLI.
"""

from __future__ import annotations

import re
import sys

_RUN_ID = re.compile(r"^(?:run:|#)?(\d+)$")


def workbench_from(args):
    from workbench.service import Workbench

    return Workbench(args.home)


def collection_of(bench, named: str | None) -> str:
    """``named``, or the home's only collection when none is named."""
    from workbench.service import NotFoundError

    if named:
        return named
    names = bench.collection_names()
    if len(names) == 1:
        return names[0]
    if not names:
        raise NotFoundError(
            "this home has no collections yet; create one with: python -m workbench ingest FILES --collection NAME"
        )
    raise NotFoundError(f"this home has {len(names)} collections ({', '.join(names)}); pick one with --collection NAME")


def checked_config(bench, collection, args):
    """The effective configuration, with its models checked: a model that is not on this machine
    stops the command here, with the command that downloads it, before anything is written."""
    config = bench.config_for(collection, args.preset, args.overrides)
    bench.check_models(config)
    return config


def config_for_new_or_existing(bench, collection, args):
    """The collection's own settings when it exists, the defaults when it does not (with the preset
    and ``--set`` on top), its models checked. Both come from one read of the catalog: a collection
    another writer makes meanwhile cannot turn the look into an error, and ``Workbench.ingest``
    then joins it (with the same settings) or names both sets of settings."""
    settings = bench.settings()
    existing = collection if collection in settings.collections else None
    config = bench.config_for(existing, args.preset, args.overrides, settings=settings)
    bench.check_models(config)
    return config


def golden_for(bench, collection: str, name: str | None):
    """The golden set ``name`` (default: the collection's name), refused when it judges another
    collection's documents (``workbench.evaluation.golden_fit.require_fit``): exit status 2."""
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.golden_fit import collection_names, require_fit

    golden = golden_sets.find(name or collection, bench.home)
    names = collection_names((doc.source, doc.external_id) for doc in bench.documents(collection))
    require_fit(golden, collection, names, bench.home)
    return golden


def golden_and_config(bench, args):
    config = checked_config(bench, args.collection, args)
    return golden_for(bench, args.collection, args.golden), config


def evaluate_and_store(bench, args, metric_names, progress=None):
    """What ``eval`` does before it reports (the MCP ``evaluate`` tool runs this too): evaluate
    the golden set with the effective configuration and store the run unless ``args.no_store``."""
    from workbench.evaluation.judged import choose_level
    from workbench.evaluation.runner import evaluate_collection
    from workbench.evaluation.runs import save_run

    args.collection = collection_of(bench, args.collection)
    golden, config = golden_and_config(bench, args)
    choice = choose_level(golden, getattr(args, "level", None))
    announce_llm_calls([config], len(golden), args.json)
    result = evaluate_collection(
        bench,
        args.collection,
        golden,
        config,
        level=choice.level,
        metric_names=metric_names,
        progress=progress,
        answers=args.answers,
    )
    if not choice.given:
        result.notes.insert(0, choice.reason)
    saturation = saturation_of(result, golden, config)
    if saturation is not None and saturation.saturated:
        result.notes.insert(0, saturation.describe())
    if args.label:
        result.label = args.label
    if not args.no_store:
        save_run(bench.catalog, result, label=args.label)
    return result


def saturation_of(result, golden, config):
    """How saturated ``golden`` is at ``result``'s level, from the run's per-query recall@10
    (``workbench.tuning.plan.Saturation``); None when the run has no recall@10."""
    from workbench.evaluation.judged import choose_level
    from workbench.tuning.plan import SATURATION_METRIC, saturation_from

    recall = result.per_query_values(SATURATION_METRIC)
    if not recall:
        return None
    metric = "ndcg@10"
    scores = result.per_query_values(metric)
    share = config.tuning.saturated_share
    return saturation_from(result.level, recall, scores, share, choose_level(golden).with_spans, metric)


def announce_llm_calls(configs, queries: int, quiet: bool) -> None:
    """Say up front what a run may ask of the LLM endpoint (on stderr: stdout may be JSON)."""
    from workbench.retrieval.llm_cost import llm_calls_for_run

    bound = llm_calls_for_run(configs, queries)
    if bound.calls and not quiet:
        print(
            f"LLM: {bound.describe()} over {queries} queries; replies already cached cost nothing",
            file=sys.stderr,
            flush=True,
        )


def build_request(bench, args):
    """The request the options describe (validated before anything runs)."""
    from pathlib import Path

    from workbench.config import DEFAULT_PRESET, ConfigError, WorkbenchConfig
    from workbench.evaluation.metrics import validate
    from workbench.tuning.plan import choose_design
    from workbench.tuning.space import default_space, models_on_this_machine, space_from_file
    from workbench.tuning.tune import TuneRequest

    if args.trials is not None and args.trials < 1:
        raise ConfigError(f"--trials must be at least 1, got {args.trials}")
    if args.minutes is not None and args.minutes <= 0:
        raise ConfigError(f"--minutes must be above 0, got {args.minutes:g}")
    if args.force and not args.save_preset:
        raise ConfigError("--force only applies with --save-preset NAME")
    if args.keys and args.space:
        raise ConfigError("give --keys or --space, not both (a space file names its own keys)")
    metric = validate([args.metric])[0]
    collection = collection_of(bench, args.collection)
    golden = golden_for(bench, collection, args.golden)
    base = checked_config(bench, collection, args)
    preset = args.preset or bench.settings().collection(collection).default_preset or DEFAULT_PRESET
    given = WorkbenchConfig().with_overrides(args.overrides).flat()
    base_overrides = {**bench.preset_overrides(preset), **{key: given[key] for key in _set_keys(args)}}
    if args.space:
        space = space_from_file(Path(args.space), base)
    else:
        space = default_space(base, models_on_this_machine(base), args.keys.split(",") if args.keys else None)
    # the level follows the set's judging and the split its size, unless given (one decision for CLI, MCP, app)
    level_choice, split_choice = choose_design(
        golden, base, level=getattr(args, "level", None), folds=args.folds, holdout=getattr(args, "holdout", None)
    )
    return TuneRequest(
        collection=collection,
        golden=golden,
        base=base,
        base_name=f"preset {preset}" + (f" with {' '.join(args.overrides)}" if args.overrides else ""),
        base_overrides=base_overrides,
        space=space,
        metric=metric,
        level=level_choice.level,
        holdout=split_choice.holdout,
        folds=split_choice.folds,
        seed=args.seed,
        trials=args.trials if args.trials is not None else (None if args.minutes else base.tuning.trials),
        minutes=args.minutes,
        max_p95_ms=args.max_p95_ms,
        pareto=args.pareto,
        study=args.study,
        resume=args.resume,
        level_choice=level_choice,
        split_choice=split_choice,
    )


def _set_keys(args) -> set[str]:
    return {assignment.partition("=")[0].strip() for assignment in args.overrides}


def report_dict(report, decision, plan=None) -> dict:
    """The tune report as JSON (CLI ``tune --json``, MCP ``tune``), with the plan made before it when given."""
    from workbench.tuning.study import pareto_front

    request = report.request
    final = report.final
    return {
        "plan": plan.to_dict() if plan is not None else None,
        "level": request.level,
        "study": report.name,
        "storage": report.storage,
        "collection": request.collection,
        "golden": request.golden.name,
        "metric": request.metric,
        "split": request.split_description(),
        "space": request.space.describe(),
        "cost": report.cost.to_dict() if report.cost else None,
        "stopped": report.stopped,
        "studies": [
            {
                "part": label,
                "trials": len(outcome.trials),
                "exhaustive": outcome.exhaustive,
                "resumed": outcome.resumed,
                "rerun": outcome.rerun,
                "duplicates": outcome.duplicates,
            }
            for label, outcome in report.outcomes
        ],
        "parts": [
            {
                "part": part.label,
                "winner": part.winner.params,
                "tuning_metric": part.winner.metric,
                "held_out_queries": part.base.queries,
                "held_out_base": part.base.metric,
                "held_out_winner": part.tuned.metric,
                "base_p95_ms": part.base.p95_ms,
                "winner_p95_ms": part.tuned.p95_ms,
            }
            for part in report.parts
        ],
        "winner": report.winner.params if report.winner else None,
        "changes": report.changed_keys(),
        "held_out": report.gain.to_dict() if report.gain else None,
        "pareto": [
            {"trial": t.number, "metric": t.metric, "p95_ms": t.p95_ms, "params": t.params}
            for t in (pareto_front(final.trials) if final else [])
        ],
        "embedded_texts": report.embedded_texts,
        "elapsed_s": report.elapsed_s,
        "notes": report.notes,
        "preset": {"name": decision.name, "saved": decision.saved, "message": decision.message} if decision else None,
    }


class InputProblem(ValueError):
    """The comparison cannot be made as asked; the message names what to change."""


def run_check(args, properties: dict, bench=None):
    """The comparison ``check`` makes (the MCP ``check`` tool runs this too); ``bench`` defaults to
    the one ``args.home`` names. Raises ``InputProblem`` (or a lookup/value error) for exit status 2."""
    from store.corpus import corpus_fingerprint
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.judged import choose_level
    from workbench.evaluation.metrics import validate
    from workbench.evaluation.runner import evaluate_collection
    from workbench.evaluation.runs import load_run, save_run
    from workbench.tuning.gate import baseline_problems, gate
    from workbench.tuning.second_opinion import SecondOpinion, starting_preset, study_claim
    from workbench.tuning.seen import study_queries

    if not args.preset:
        raise InputProblem("check needs --preset NAME: the configuration to test against the baseline")
    metric = validate([args.metric])[0]
    bench = bench or workbench_from(args)
    collection = collection_of(bench, args.collection)
    golden = golden_for(bench, collection, args.golden)
    candidate_config = checked_config(bench, collection, args)
    given_level = getattr(args, "level", None)
    claim = None
    if not (args.baseline or "").strip():  # a second opinion: the preset against where its study started
        claim = study_claim(args.preset, _provenance(bench, args.preset))
        given_level = given_level or claim.level  # like for like with the interval the study reported
    level = choose_level(golden, given_level).level  # the set's judging unless --level (or the study's)
    properties |= {"collection": collection, "golden": golden.name, "golden_hash": golden_sets.content_hash(golden)}
    properties["level"] = level
    found = _RUN_ID.match(args.baseline.strip()) if claim is None else None
    if claim is not None:
        from workbench.config import DEFAULT_PRESET

        if claim.base_overrides is not None:
            baseline_config = bench.config_for(collection, DEFAULT_PRESET, claim.base_overrides)
        else:
            baseline_config = bench.config_for(collection, starting_preset(claim))
        bench.check_models(baseline_config)
        baseline = evaluate_collection(bench, collection, golden, baseline_config, level=level, metric_names=(metric,))
        if not args.no_store:
            save_run(bench.catalog, baseline, label=f"check baseline: the start of study {claim.study}")
        properties["baseline_shown"] = f"its study's starting configuration ({claim.based_on or 'recorded keys'})"
    elif found:
        baseline = load_run(bench.catalog, int(found.group(1)))
        corpus = corpus_fingerprint(bench.catalog, collection).to_dict()
        problems = baseline_problems(
            baseline,
            collection=collection,
            golden_name=golden.name,
            golden_hash=golden_sets.content_hash(golden),
            golden_queries=len(golden),
            level=level,
            metric=metric,
            corpus=corpus,
        )
        if problems:
            raise InputProblem(
                f"cannot compare with run {baseline.run_id}: " + "; ".join(problems) + "; evaluate the baseline again "
                "(python -m workbench eval ...) and pass the new run, or pass a preset as --baseline"
            )
        properties["baseline_shown"] = f"run {baseline.run_id}" + (f" ({baseline.label})" if baseline.label else "")
    else:
        preset = args.baseline.strip()
        bench.preset_overrides(preset)  # an unknown preset fails here, listing the known ones
        baseline_config = bench.config_for(collection, preset)
        bench.check_models(baseline_config)
        baseline = evaluate_collection(bench, collection, golden, baseline_config, level=level, metric_names=(metric,))
        if not args.no_store:
            save_run(bench.catalog, baseline, label=f"check baseline: preset {preset}")
        properties["baseline_shown"] = f"preset {preset!r} (evaluated now)"
    candidate = evaluate_collection(bench, collection, golden, candidate_config, level=level, metric_names=(metric,))
    if not args.no_store:
        save_run(bench.catalog, candidate, label=f"check candidate: preset {args.preset}")
    before, after = baseline.per_query_values(metric), candidate.per_query_values(metric)
    seen = study_queries(_provenance(bench, args.preset), golden)
    compared = frozenset(before) & frozenset(after)
    if args.held_out_only:
        if seen is None:
            raise InputProblem(
                f"--held-out-only needs a preset saved by tune (its provenance names the study); preset "
                f"{args.preset!r} records no study"
            )
        unseen = compared - seen.tuned_on
        if not unseen:
            raise InputProblem(
                f"study {seen.study} tuned on all {len(compared)} queries compared (nested cross-validation "
                "tunes the configuration it saves on every query): none is left for --held-out-only"
            )
        before = {qid: value for qid, value in before.items() if qid in unseen}
        after = {qid: value for qid, value in after.items() if qid in unseen}
        properties["study_queries"] = (
            f"compared only on the {len(unseen)} queries study {seen.study} never saw "
            f"({len(compared) - len(unseen)} it tuned on left out)" + (f"; {seen.caveat}" if seen.caveat else "")
        )
    elif seen is not None:
        properties["study_queries"] = seen.describe(compared)
    result = gate(
        metric,
        before,
        after,
        max_drop=args.max_drop,
        alpha=args.alpha,
        permutations=args.permutations,
    )
    properties |= {"baseline_run": baseline.run_id or "", "candidate_run": candidate.run_id or ""}
    if claim is not None:
        opinion = SecondOpinion(claim, golden.name, level, result.queries, result.difference, result.interval)
        properties["second_opinion"] = opinion.describe()
        properties["second_opinion_inside"] = opinion.inside
    return result, properties


def _provenance(bench, preset: str):
    """The provenance recorded with ``preset`` (None for a preset saved by hand)."""
    return next((stored.provenance for stored in bench.presets() if stored.name == preset), None)


def grow_golden(bench, request, plan, progress=None) -> str:
    """``tune --grow-golden`` (MCP ``tune`` with ``grow_golden``): have the LLM endpoint write the
    questions ``plan`` says the set lacks, into the set itself, before the study starts.

    A set written by ``golden synth`` grows by running it again with more questions, the same
    seed and kinds: its plan for more is the plan for fewer and then some (``plan_tasks``), so the
    questions written before are read back from the journal and only the new ones are asked for.
    Returns what was done, in a sentence; raises naming the fix when it cannot."""
    from workbench.golden.build import plan_synth, read_summary, run_synth

    grow = plan.grow
    if grow is None:
        return f"golden set {request.golden.name!r} is long enough for this plan; nothing written"
    client = bench.llm()
    if not client.available:
        raise InputProblem(client.unavailable_reason("--grow-golden"))
    summary = read_summary(bench.home, request.golden.name)
    if summary is None:
        raise InputProblem(
            f"golden set {request.golden.name!r} was not written by golden synth, so --grow-golden cannot add to it; "
            f"write {grow.questions} questions into a new set (python -m workbench golden synth -c "
            f"{request.collection} --n {grow.questions} --out NAME) and tune on it"
        )
    asked = int(summary.get("n", 0)) + grow.questions
    synth = plan_synth(
        bench,
        request.collection,
        request.base,
        n=asked,
        seed=int(summary.get("seed", 0)),
        out=request.golden.name,
        kinds=tuple(summary.get("kinds") or ()),  # none recorded: parse_kinds gives every kind
    )
    report = run_synth(bench, synth, progress)
    if report.stopped:
        raise InputProblem(
            f"the LLM endpoint failed while growing {request.golden.name!r} ({report.stopped}); what it wrote is "
            "kept: run the same command again to finish"
        )
    return f"golden set {request.golden.name!r}: {report.describe()}"
