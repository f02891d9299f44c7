"""The Evaluation page's Tune tab: "Tune this collection" first (``workbench.ui.tune_flow``, the
default path), then the expert form: choose a golden set, keys and a budget; run a study in the background
with progress and Stop; draw the Pareto chart; give the held-out verdict; save the winner by the CLI's rule.

The study runs in a ``workbench.tuning.job.TuneJob`` thread kept by ``workbench.ui.tune_jobs``, the
registry the flow above shares: one study per home and collection for the server process (so a
reload finds it), drawn only by the part that started it; a fragment redraws its progress every
second while it runs. Everything the tab decides comes from ``workbench.tuning``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.config import ConfigError
from workbench.evaluation.judged import LEVELS
from workbench.text import count
from workbench.tuning.charts import pareto_chart
from workbench.tuning.space import DEFAULT_KEYS, TUNABLE, default_space, models_on_this_machine
from workbench.tuning.study import StudyError
from workbench.tuning.tune import TuneReport, TuneRequest, save_winner
from workbench.ui import session, tune_flow, tune_jobs
from workbench.ui.access import hidden_in_read_only
from workbench.ui.evaluation_widgets import LEVEL_HELP, golden_picker, judged_index
from workbench.ui.text import md_escape

METRICS = ("ndcg@10", "ndcg@5", "mrr@10", "map@100", "recall@10", "recall@100", "hit@10")


def render(collection: str) -> None:
    if hidden_in_read_only("Tuning"):
        return
    tune_flow.render(collection)
    st.divider()
    st.subheader("Or choose everything yourself")
    st.markdown(
        "Search the configuration space on part of a golden set, then judge the winner on the queries it "
        "never saw: the gain over your current configuration comes with a 95% interval, and a preset is "
        "saved only when that interval lies above zero."
    )
    now = tune_jobs.current(collection)
    # the form stays drawn while a study runs (a widget left undrawn for a run loses its value)
    _form(collection, running=now is not None and now.running)
    job = tune_jobs.started_from(collection, tune_jobs.FORM)  # only its own: the flow above draws the flow's
    if job is not None:
        tune_jobs.job_panel(job, key="tune", results=lambda report: _results(report, collection), live_chart=True)


def _form(collection: str, running: bool) -> None:
    bench = session.workbench()
    left, middle, right = st.columns(3)
    with left:  # only the sets that judge this collection's documents (issue 36: the demo's scored 0)
        golden = golden_picker(collection, "tune_golden")
    if golden is None:
        return
    metric = middle.selectbox("Metric to maximise", METRICS, key="tune_metric")
    level = middle.radio(
        "Level", LEVELS, index=judged_index(golden), horizontal=True, key="tune_level", help=LEVEL_HELP
    )
    objectives = right.radio(
        "Objectives",
        ("metric", "metric and p95 latency"),
        horizontal=True,
        key="tune_objectives",
        help="Two objectives search the trade-off (the Pareto front); the winner is still the best metric.",
    )
    keys = st.multiselect(
        "Keys to tune",
        TUNABLE,
        default=list(DEFAULT_KEYS),
        key="tune_keys",
        help="Index-time keys (chunking.*, embedding.model) build each new layout once and embed only "
        "texts the cache lacks. Rerank is offered only with a downloaded cross-encoder.",
    )
    budget, minutes, split, seed = st.columns(4)
    trials = int(budget.number_input("Trials per study", 2, 2000, 30, key="tune_trials"))
    limit = float(minutes.number_input("Minutes (0: no limit)", 0.0, 1440.0, 0.0, key="tune_minutes"))
    folds = int(
        split.number_input("Folds (0: hold out 30%)", 0, 20, 0, key="tune_folds", help="Nested cross-validation")
    )
    seed_value = int(seed.number_input("Seed", 0, 1_000_000, 0, key="tune_seed"))
    max_p95 = float(st.number_input("Max p95 latency ms (0: none)", 0.0, 100_000.0, 0.0, key="tune_max_p95", width=250))
    try:
        base = session.current_config()
        space = default_space(base, models_on_this_machine(base), keys)
    except ConfigError as error:
        st.error(md_escape(error))
        return
    size = space.size(base)
    st.caption(
        f"{count(len(space.dimensions), 'key')}, "
        + (count(size, "configuration") if size is not None else "more configurations than can be listed")
        + f"; starting from preset “{md_escape(session.preset_label(session.current_preset() or 'default'))}”. "
        + " ".join(md_escape(note) for note in space.notes)
    )
    if folds == 1:
        st.error("Folds: 0 for one holdout, or 2 to 20 for nested cross-validation.")
        return
    now = tune_jobs.current(collection) if running else None
    if now is not None:
        where = "below" if now.origin == tune_jobs.FORM else f"under “{tune_jobs.FLOW}” above"
        st.caption(md_escape(f"{now.describe()} is running on this collection: stop it {where} to start another."))
    if st.button(
        "Start the study", key="tune_start", type="primary", icon=":material/play_arrow:", disabled=running or not keys
    ):
        preset = session.current_preset() or "default"
        request = TuneRequest(
            collection=collection,
            golden=golden,
            base=base,
            base_name=f"preset {preset}",
            base_overrides=bench.preset_overrides(preset),
            space=space,
            metric=metric,
            level=level,
            folds=folds or None,
            seed=seed_value,
            trials=trials,
            minutes=limit or None,
            max_p95_ms=max_p95 or None,
            pareto=objectives != "metric",
        )
        try:
            tune_jobs.start_job(collection, request, tune_jobs.FORM)
        except (StudyError, ValueError) as error:
            st.error(md_escape(error))
            return
        st.rerun()


def _results(report: TuneReport, collection: str) -> None:
    request = report.request
    if report.stopped:
        st.warning(
            f"Stopped after {report.trials} completed trials. Start the study again with the same settings "
            "to continue it: completed trials are kept, none is repeated."
        )
        return
    gain = report.gain
    if gain is None or report.winner is None:
        st.warning("No verdict: " + md_escape("; ".join(report.notes) or "the study found no winner"))
        return
    text = (
        f"Held-out {md_escape(gain.metric)}: {gain.base:.4f} → {gain.winner:.4f}, gain **{gain.mean:+.4f}**, "
        f"95% interval [{gain.interval.low:+.4f}, {gain.interval.high:+.4f}] over {gain.queries} queries "
        f"({md_escape(request.split_description())}): **{md_escape(gain.verdict())}**."
    )
    (st.success if gain.better else st.warning if gain.worse else st.info)(text)
    if gain.power_note():  # few held-out queries, or an interval that cannot tell: how many would
        st.warning(md_escape(gain.power_note()[0].upper() + gain.power_note()[1:]) + ".", icon=":material/query_stats:")
    changed = report.changed_keys()
    st.markdown(
        f"Winner (trial {report.winner.number}): "
        + (md_escape(", ".join(f"{k} = {_show(v)}" for k, v in changed.items())) or "the starting configuration")
    )
    st.dataframe(pd.DataFrame(part_rows(report)), hide_index=True, width="stretch")
    final = report.final
    if final is not None:
        st.plotly_chart(pareto_chart(final.trials, request.metric, report.winner), key="tune_pareto_final")
    _save(report, gain.better, collection)


def part_rows(report: TuneReport) -> list[dict[str, object]]:
    """One row per part, each column named for what it holds (a metric's name, or a count)."""
    metric = report.request.metric
    return [
        {
            "part": part.label,
            "winner trial": part.winner.number,
            f"winner's {metric} on its tuning queries": part.winner.metric,
            "held-out queries (count)": part.base.queries,
            f"{metric} held out, current": part.base.metric,
            f"{metric} held out, winner": part.tuned.metric,
            "p95 ms, current": part.base.p95_ms,
            "p95 ms, winner": part.tuned.p95_ms,
        }
        for part in report.parts
    ]


def _save(report: TuneReport, better: bool, collection: str) -> None:
    name_column, force_column, button_column = st.columns([3, 2, 1])
    name = name_column.text_input("Preset name", value=f"{collection}-tuned", key="tune_preset_name")
    force = force_column.checkbox(
        "Save anyway, marked as forced",
        key="tune_force",
        disabled=better,
        help="The interval does not lie above zero; a forced preset records that in its provenance.",
    )
    if button_column.button("Save as preset", key="tune_save", disabled=not (better or force) or not name.strip()):
        decision = save_winner(session.workbench(), report, name, force=force)
        session.flash("success" if decision.saved else "warning", md_escape(decision.message))
        st.rerun()
    if not better:
        st.caption(
            "Not saved by default: the winner is not distinguishable from your current configuration on the "
            "held-out queries (the same rule as `tune --save-preset`)."
        )


def _show(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)
