"""The Evaluation page's first tab: score a golden set with the sidebar's configuration, show the
run (metrics, per stage, per query, answers), keep it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.analysis.side_config import describe as describe_config
from workbench.evaluation import charts
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.intervals import metric_intervals
from workbench.evaluation.runner import EvaluationResult, evaluate_collection
from workbench.evaluation.runs import describe, load_run, save_run
from workbench.evaluation.stages import POOL_RECALL, POOL_SIZE
from workbench.retrieval.llm_cost import llm_calls_for_run
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.evaluation_widgets import (
    SHOWN_RUN_KEY,
    download_buttons,
    golden_picker,
    level_and_metrics,
)
from workbench.ui.llm_panels import answers_frame, llm_option
from workbench.ui.text import md_escape

#: metrics side by side: the interval and query count under each must fit on its one line (seven
#: in a row cut "[0.5123, 0.6789] · 40 queries" to "[0.5123, 0.67…" in a 1400 px window)
METRICS_PER_ROW = 4


def show_run(result: EvaluationResult) -> None:
    st.markdown(
        f"**{md_escape(describe(result))}** — mode {md_escape(result.config['retrieval']['mode'])}, "
        f"{len(result.per_query)} queries evaluated, {len(result.skipped)} skipped, ranked to depth "
        f"{result.evaluated_top_k}, {result.elapsed_s:.1f} s"
    )
    intervals = metric_intervals([q.metrics for q in result.per_query], result.metrics)
    named = list(result.metrics.items())
    per_row = min(len(named), METRICS_PER_ROW) or 1
    columns = [column for start in range(0, len(named), per_row) for column in st.columns(per_row)]
    for column, (name, value) in zip(columns, named, strict=False):  # the last row may have room to spare
        shown = intervals.get(name)
        column.metric(
            name,
            f"{value:.4f}",
            # the interval beside the mean, not under a hover: a difference inside it is noise
            delta=f"{shown.interval.describe_mean()} · {shown.queries} queries" if shown else None,
            delta_color="off",
            delta_arrow="off",
            help="95% interval: percentile bootstrap over the queries (10,000 resamples, seed 0).",
        )
    if result.abstention is not None:
        report = result.abstention
        left, right, rest = st.columns([1, 1, 3])
        left.metric(
            "abstention precision",
            "n/a" if report.precision is None else f"{report.precision:.4f}",
            help="of the queries the confidence verdict called no_answer, the share that have no answer",
        )
        right.metric(
            "abstention recall",
            "n/a" if report.recall is None else f"{report.recall:.4f}",
            help="of the golden set's no-answer queries (empty relevant list), the share called no_answer",
        )
        rest.caption(md_escape(report.describe()))
    for note in result.notes:
        st.caption(md_escape(note))
    if result.stage_metrics:
        st.markdown(
            "**Per stage** — `recall@pool` is the recall of the stage's whole candidate list: the ceiling "
            "that fusion, MMR and rerank can only reorder within."
        )
        names = list(result.metrics)
        frame = pd.DataFrame(
            [
                {"stage": stage, **{n: row.get(n) for n in names + [POOL_RECALL, POOL_SIZE]}}
                for stage, row in result.stage_metrics.items()
            ]
        )
        st.dataframe(frame, hide_index=True, width="stretch")
        st.plotly_chart(
            charts.stage_chart(result.stage_metrics, names[:4] + [POOL_RECALL]), key=f"stage_chart_{result.run_id}"
        )
    answers = answers_frame(result.per_query)
    if answers is not None:
        with st.expander(f"Answers ({len(answers)}): what the LLM answered and how it was judged"):
            st.dataframe(answers, hide_index=True, width="stretch")
    with st.expander(f"Per query ({len(result.per_query)})"):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "query id": q.query_id,
                        "query": q.query,
                        **q.metrics,
                        "relevant": q.relevant,
                        **({"verdict": q.verdict} if q.verdict else {}),
                        "top documents": ", ".join(q.ranked_doc_ids[:5]),
                    }
                    for q in result.per_query
                ]
            ),
            hide_index=True,
            width="stretch",
        )
    download_buttons(result, f"run-{result.run_id}", f"export_run_{result.run_id}")


def render(collection: str) -> None:
    golden = golden_picker(collection, "evaluate_golden")
    if golden is None:
        return
    if golden_sets.unreviewed_note(golden):
        st.warning(md_escape(golden_sets.unreviewed_note(golden)) + ".", icon=":material/rate_review:")
    level, metric_names = level_and_metrics("evaluate", golden)
    preset = session.current_preset()
    shown_preset = session.preset_label(preset) if preset else "none"
    config = session.current_config()
    llm_calls = llm_calls_for_run([config], len(golden))
    st.caption(
        f"Configuration: preset “{md_escape(shown_preset)}” from the sidebar ({md_escape(describe_config(config))})"
        + (
            f"; {llm_calls.describe()} over {len(golden)} queries, cached replies cost nothing"
            if llm_calls.calls
            else ""
        )
        + "."
    )
    answers = llm_option(
        st.toggle,
        "Also generate and judge answers (LLM)",
        key="evaluate_answers",
        help="Per query: an answer from the assembled [S1]… context, then faithfulness, answer "
        "relevance and context precision judged by the LLM, plus citation and quote checks. "
        "Cost per query: 1 answer + 1 call per claim + 1 + 1 per context passage, cached.",
    )
    if hidden_in_read_only("Running an evaluation"):
        return
    label = st.text_input("Label (optional)", key="evaluate_label", placeholder="e.g. baseline")
    if st.button(f"Evaluate {len(golden)} queries", key="evaluate_run", type="primary", icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="Loading indexes and embedding the queries…")

        def on_progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"{done}/{total} queries")

        bench = session.workbench()
        bench.require_writable("Running an evaluation")  # it stores the run
        result = evaluate_collection(
            bench,
            collection,
            golden,
            config,
            level=level,
            metric_names=metric_names,
            progress=on_progress,
            answers=bool(answers),
        )
        run_id = save_run(bench.catalog, result, label=label or f"preset {preset}")
        bar.empty()
        st.session_state[SHOWN_RUN_KEY] = run_id
    shown = st.session_state.get(SHOWN_RUN_KEY)
    if shown is not None:
        try:
            show_run(load_run(session.workbench().catalog, shown))
        except LookupError:
            st.session_state.pop(SHOWN_RUN_KEY, None)
