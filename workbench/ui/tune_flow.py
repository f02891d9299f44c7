"""The Tune tab's "Tune this collection": the default path, with no choice but the collection.

Golden set (the one that judges this collection, or one the LLM endpoint writes) -> the plan in
plain words (level, split, queries, the gain it can detect, estimated time; more questions
offered when the set is short) -> the study in the background with progress -> both means and
the gain, each with its interval and query count -> the preset saved only when the gain holds ->
the MCP client configuration that serves it (stdio and HTTP). Everything it decides comes from
``workbench.service.tune_flow`` and ``workbench.tuning.plan``; the study runs in the registry
``workbench.ui.tune_jobs`` shares with the form below (one study per home and collection), and the
flow draws only a study it started.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.config import ConfigError
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.golden import content_hash
from workbench.evaluation.power import REFERENCE_GAIN
from workbench.golden.build import read_summary
from workbench.ingestion.estimates import describe_duration
from workbench.llm.client import LlmUnavailable
from workbench.mcp_server.client_config import (
    CLAUDE_DESKTOP_CONFIG_FILES,
    McpLaunch,
    claude_desktop_config,
    to_json,
    vscode_config,
)
from workbench.service import tune_flow
from workbench.tuning.plan import ExperimentPlan, plan_tune
from workbench.tuning.study import StudyError
from workbench.tuning.tune import TuneReport, TuneRequest, save_winner
from workbench.ui import session, tune_jobs
from workbench.ui.mcp_snippets import http_panel
from workbench.ui.text import md_escape

PLAN_KEY = "tune_flow_plan"  # (signature, request, plan) of the plan shown
SAVED_KEY = "tune_flow_saved"  # study name -> the save decision's message (saved once per study)


def render(collection: str) -> None:
    st.subheader("Tune this collection")
    st.caption(
        "The default path: a golden set that judges this collection (or one the LLM endpoint writes), "
        "the experiment planned for it, the study, and a preset saved only when its gain holds on "
        "queries the study never tuned on."
    )
    now = tune_jobs.current(collection)
    running = now is not None and now.running
    golden = _golden_set(collection, disabled=running)
    if golden is None:
        return
    preset = session.current_preset() or "default"
    plan_state = _plan(collection, golden, preset)
    if plan_state is None:
        return
    request, plan = plan_state
    _show_plan(plan, request)
    if _grow_offer(collection, request, plan, disabled=running):
        return
    if running and now is not None and now.origin != tune_jobs.FLOW:
        st.caption(md_escape(f"{now.describe()} is running on this collection: this one can start when it is over."))
    if st.button(
        "Tune this collection",
        key="tune_flow_start",
        type="primary",
        icon=":material/auto_fix_high:",
        disabled=running or plan.queries == 0,
    ):
        try:
            tune_jobs.start_job(collection, request, tune_jobs.FLOW)
        except (StudyError, ValueError) as error:
            st.error(md_escape(error))
            return
        st.rerun()
    job = tune_jobs.started_from(collection, tune_jobs.FLOW)  # only its own: the form draws the form's
    if job is not None and job.request.golden.name == golden.name:
        tune_jobs.job_panel(job, key="tune_flow", results=lambda report: _verdict(report, collection))


# -- 1. the golden set ------------------------------------------------------------------------------


def _golden_set(collection: str, disabled: bool) -> golden_sets.GoldenSet | None:
    names = session.golden_sets_for(collection)
    if not names:
        _write_first_set(collection)
        return None
    written = tune_flow.written_set_name(collection)
    default = collection if collection in names else written if written in names else names[0]
    if st.session_state.get("tune_flow_golden") not in names:
        st.session_state["tune_flow_golden"] = default
    name = st.selectbox(
        "Golden set",
        names,
        key="tune_flow_golden",
        disabled=disabled,
        help="The golden sets that judge this collection's documents; the one named after the collection "
        "(or the one written for it here) comes first.",
    )
    return golden_sets.find(name, session.workbench().home)


def _write_first_set(collection: str) -> None:
    bench = session.workbench()
    client = bench.llm()
    if not client.available:
        st.info(
            f"No golden set judges the documents of {md_escape(collection)} yet, and no LLM endpoint is "
            "configured to write one: set `WORKBENCH_LLM_BASE_URL` and `WORKBENCH_LLM_MODEL` (see the "
            "LLM stages docs), or make a set in the **Golden sets** or **From your documents** tab.",
            icon=":material/info:",
        )
        return
    n = session.current_config().tuning.first_questions
    st.info(
        f"No golden set judges the documents of {md_escape(collection)} yet: the LLM endpoint "
        f"({md_escape(client.model)}) can write {n} questions from them (`tuning.first_questions`), each "
        "kept only when its quote is found in the document, spread over the documents and languages.",
        icon=":material/info:",
    )
    if st.button("Write a golden set", key="tune_flow_write", type="primary", icon=":material/edit_note:"):
        bar = st.progress(0.0, text="Writing questions…")

        def progress(done: int, total: int) -> None:
            bar.progress(done / total if total else 1.0, text=f"{done}/{total} questions")

        try:
            plan, report = tune_flow.write_golden_set(bench, collection, session.current_preset(), n, progress)
        except (LlmUnavailable, ConfigError, ValueError) as error:
            st.error(md_escape(error))
            return
        if report.stopped:
            session.flash(
                "warning",
                md_escape(f"The endpoint failed midway ({report.stopped}); press the button again to finish."),
            )
        else:
            session.flash("success", md_escape(f"Golden set {plan.out!r}: {report.describe()}."))
        st.rerun()


# -- 2. the plan ------------------------------------------------------------------------------------


def _plan(collection: str, golden: golden_sets.GoldenSet, preset: str) -> tuple[TuneRequest, ExperimentPlan] | None:
    """The request with the CLI's defaults and its plan, computed once per set content and preset."""
    bench = session.workbench()
    signature = (str(session.home_path()), collection, golden.name, content_hash(golden), preset)
    kept = st.session_state.get(PLAN_KEY)
    if kept is not None and kept[0] == signature:
        return kept[1], kept[2]
    try:
        with st.spinner("Evaluating the starting configuration to plan the experiment…"):
            request = tune_flow.default_request(bench, collection, golden.name, preset)
            plan = plan_tune(bench, request)
    except (ConfigError, ValueError, StudyError) as error:
        st.error(md_escape(error))
        return None
    st.session_state[PLAN_KEY] = (signature, request, plan)
    return request, plan


def plan_words(plan: ExperimentPlan, request: TuneRequest) -> list[str]:
    """The plan in plain words, one line per decision."""
    studies = (plan.split.folds + 1) if plan.split.folds else 1
    trials = f"{request.trials} trials per study, {studies} {'studies' if studies > 1 else 'study'}"
    lines = [
        f"**Level: {plan.level.level}.** {md_escape(plan.level.reason)}",
        f"**Split: {md_escape(plan.split.describe())}.** {md_escape(plan.split.reason)}",
        f"**Queries:** {plan.queries} scorable; the gain is measured on {plan.held_out} held-out queries. "
        f"The starting configuration scores {md_escape(plan.metric)} {plan.base_mean:.4f} on them.",
    ]
    gain = plan.detectable_gain
    if gain is not None:
        needed = plan.needed_for_reference
        lines.append(
            f"**The gain it can detect:** about {gain:.3f}"
            + (f"; a gain of {REFERENCE_GAIN:g} would need about {needed:,} queries." if needed else ".")
        )
    if plan.estimated_s is not None:
        lines.append(f"**Estimated time:** about {describe_duration(plan.estimated_s)} ({trials}).")
    else:
        lines.append(f"**Budget:** {trials}.")
    return lines


def _show_plan(plan: ExperimentPlan, request: TuneRequest) -> None:
    with st.container(key="tune_flow_plan"):
        st.markdown("\n".join(f"- {line}" for line in plan_words(plan, request)))
        if plan.saturation.saturated:
            st.warning(md_escape(plan.saturation.describe()), icon=":material/warning:")
        for note in plan.notes:
            st.caption(md_escape(note))


def _grow_offer(collection: str, request: TuneRequest, plan: ExperimentPlan, disabled: bool) -> bool:
    """Offer the questions the plan says the set lacks; True when they were just written (rerun)."""
    grow = plan.grow
    if grow is None:
        return False
    if not grow.endpoint:
        st.caption(md_escape(grow.describe()))
        return False
    grows = read_summary(session.home_path(), request.golden.name) is not None
    st.info(md_escape(grow.describe().split(" (tune --grow-golden")[0]) + ".", icon=":material/query_stats:")
    if not grows:
        st.caption("This set was not written by the LLM endpoint here, so it cannot be grown in place.")
        return False
    if st.button(
        f"Write about {grow.questions:,} more questions",
        key="tune_flow_grow",
        icon=":material/add_notes:",
        disabled=disabled,
    ):
        from workbench.service.commands import grow_golden

        with st.spinner(f"Writing about {grow.questions:,} more questions…"):
            try:
                message = grow_golden(session.workbench(), request, plan)
            except (ValueError, ConfigError) as error:
                st.error(md_escape(error))
                return False
        st.session_state.pop(PLAN_KEY, None)
        session.flash("success", md_escape(message))
        st.rerun()
    return False


# -- 3. the run, 4. the verdict, 5. the preset and its MCP configuration ------------------------------


def verdict_rows(verdict: tune_flow.Verdict) -> list[dict[str, object]]:
    metric = verdict.gain.metric
    gain = verdict.gain
    return [
        {
            "": "starting configuration",
            metric: round(verdict.base.mean, 4),
            "95% interval": verdict.base.interval.describe_mean(),
            "queries": verdict.base.queries,
        },
        {
            "": "tuned",
            metric: round(verdict.winner.mean, 4),
            "95% interval": verdict.winner.interval.describe_mean(),
            "queries": verdict.winner.queries,
        },
        {
            "": "gain (paired)",
            metric: round(gain.mean, 4),
            "95% interval": gain.interval.describe(),
            "queries": gain.queries,
        },
    ]


def _verdict(report: TuneReport, collection: str) -> None:
    if report.stopped:
        st.warning(
            f"Stopped after {report.trials} completed trials. Press **Tune this collection** again to continue "
            "the study: completed trials are kept."
        )
        return
    verdict = tune_flow.verdict_of(report)
    if verdict is None or report.winner is None:
        st.warning("No verdict: " + md_escape("; ".join(report.notes) or "the study found no winner"))
        return
    gain = verdict.gain
    with st.container(key="tune_flow_verdict"):
        text = (
            f"Held-out {md_escape(gain.metric)} at {verdict.level} level ({md_escape(verdict.split)}): "
            f"gain **{gain.mean:+.4f}**, 95% interval [{gain.interval.low:+.4f}, {gain.interval.high:+.4f}] "
            f"over {gain.queries} queries: **{md_escape(gain.verdict())}**."
        )
        (st.success if gain.better else st.warning if gain.worse else st.info)(text)
        st.dataframe(pd.DataFrame(verdict_rows(verdict)), hide_index=True, width="content")
        changed = report.changed_keys()
        st.markdown(
            "The winner changes: "
            + (md_escape(", ".join(f"{k} = {v}" for k, v in changed.items())) or "nothing (the starting one won)")
        )
        if gain.power_note():
            st.caption(md_escape(gain.power_note()[0].upper() + gain.power_note()[1:]) + ".")
    if not verdict.holds:
        st.caption(
            "Nothing saved: a preset is saved only when the whole interval of the gain lies above zero. "
            "More questions narrow the interval (the plan above says how many)."
        )
        return
    name = tune_flow.preset_name(collection)
    saved = st.session_state.setdefault(SAVED_KEY, {})
    if report.name not in saved:  # once per study: a rerun of the page must not save it again
        saved[report.name] = save_winner(session.workbench(), report, name).message
    st.success(md_escape(saved[report.name]), icon=":material/bookmark_added:")
    _mcp_configuration(collection, name)


def _mcp_configuration(collection: str, preset: str) -> None:
    launch = McpLaunch(session.home_path(), preset, collection)
    with st.container(key="tune_flow_mcp"):
        st.markdown(f"**Serve preset {md_escape(preset)} to your MCP client**")
        stdio, http = st.tabs(["stdio (Claude Desktop, VS Code)", "streamable HTTP"])
        with stdio:
            st.caption(
                "Claude Desktop: merge into "
                + md_escape(" or ".join(f"{where} ({system})" for system, where in CLAUDE_DESKTOP_CONFIG_FILES.items()))
            )
            st.code(to_json(claude_desktop_config(launch)), language="json")
            st.caption("VS Code: `.vscode/mcp.json`")
            st.code(to_json(vscode_config(launch)), language="json")
        with http:
            http_panel(launch, key="tune_flow_download_http")
