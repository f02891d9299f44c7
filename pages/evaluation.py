"""Evaluation: score a golden set (per query, per stage), keep every run, compare two runs with a
significance test, sweep a grid of settings and save the best as a preset, tune with a held-out
verdict (``workbench.ui.tune_tab``), export any of it.

The page only arranges widgets; the work is done by ``workbench.evaluation``."""

from __future__ import annotations

import itertools

import pandas as pd
import streamlit as st

from workbench.analysis.side_config import describe as describe_config
from workbench.config import ConfigError, known_keys
from workbench.evaluation import charts, export
from workbench.evaluation import golden as golden_sets
from workbench.evaluation import metrics as m
from workbench.evaluation.compare import compare_pickers, compare_runs
from workbench.evaluation.runner import evaluate_collection
from workbench.evaluation.runs import delete_run, describe, list_runs, load_run, save_run
from workbench.evaluation.stages import POOL_RECALL, POOL_SIZE
from workbench.evaluation.sweep import (
    default_sweep_keys,
    expand,
    parse_grid_argument,
    plan,
    run_sweep,
    save_best_as_preset,
)
from workbench.retrieval.llm_cost import llm_calls_for_run
from workbench.text import shown_name
from workbench.ui import golden_builder, session, tune_tab
from workbench.ui.access import hidden_in_read_only, read_only
from workbench.ui.llm_panels import answers_frame, llm_option
from workbench.ui.text import md_escape
from workbench.ui.widgets import require_collection

METRIC_CHOICES = (
    "ndcg@5",
    "ndcg@10",
    "map@100",
    "mrr@10",
    "recall@5",
    "recall@10",
    "recall@20",
    "recall@50",
    "recall@100",
    "precision@5",
    "precision@10",
    "hit@1",
    "hit@5",
    "hit@10",
)
LEVEL_HELP = (
    "**doc**: a document ranks where its best chunk ranks. **span**: the unit is the chunk; a chunk "
    "is relevant when it overlaps a judged span (or holds the quote), so the judgement survives "
    "re-chunking. Queries without spans are skipped at span level."
)
SHOWN_RUN_KEY = "evaluation_shown_run"
COMPARISON_KEY = "evaluation_comparison"
SWEEP_KEY = "evaluation_sweep"
#: query-time keys offered first in the sweep builder, with example values
SWEEP_SUGGESTIONS = {
    "fusion.method": "rrf,weighted",
    "fusion.k": "10,30,60",
    "fusion.weights": "0.3,0.7;0.5,0.5;0.7,0.3",
    "fusion.normalization": "minmax,zscore",
    "retrieval.mode": "bm25,dense,hybrid",
    "retrieval.candidates": "50,100,200",
    "mmr.enabled": "false,true",
    "mmr.lambda": "0.5,0.7,0.9",
    "chunking.size": "500,1000",
    "chunking.strategy": "recursive,markdown",
    "query.enhance": "none,keywords,multi,hyde",
    "rerank.method": "cross_encoder,llm",
}


# -- shared pickers -------------------------------------------------------------------------------


def follow_collection(key: str, collection: str, options: list[str], default: str) -> None:
    """Point ``key``'s picker at ``default`` when the sidebar's collection changes (another
    collection's golden set is not this one's) or its pick is no longer offered. Set through the
    session state, which the browser's widget follows, rather than forgotten, which it would not."""
    marker = f"{key}_collection"
    if st.session_state.get(marker) != collection or st.session_state.get(key) not in options:
        st.session_state[key] = default
        st.session_state[marker] = collection


def golden_picker(collection: str, key: str) -> golden_sets.GoldenSet | None:
    names = session.golden_sets_for(collection)
    if not names:
        st.info(
            f"No golden set judges the documents of {md_escape(collection)} yet. Create one in the **Golden "
            "sets** tab or the **From your documents** tab (or mark hits relevant in the Retrieval lab), or "
            "import a BEIR folder: `python -m workbench import-beir FOLDER`.",
            icon=":material/info:",
        )
        return None
    follow_collection(key, collection, names, collection if collection in names else names[0])
    name = st.selectbox(
        "Golden set",
        names,
        key=key,
        help="The golden sets that judge this collection's documents: JSONL files in the home's "
        "golden_sets/ folder and the project's golden_sets/.",
    )
    return golden_sets.find(name, session.workbench().home)


def level_and_metrics(key: str) -> tuple[str, tuple[str, ...]]:
    left, right = st.columns([1, 3])
    level = left.radio("Level", ("doc", "span"), horizontal=True, key=f"{key}_level", help=LEVEL_HELP)
    chosen = right.multiselect(
        "Metrics",
        METRIC_CHOICES,
        default=list(m.DEFAULT_METRICS),
        key=f"{key}_metrics",
        accept_new_options=True,
        help="Type any metric@k, e.g. recall@30.",
    )
    valid = []
    for name in chosen:
        try:
            valid.extend(m.validate([name]))
        except ValueError as error:  # a typed metric: say why it is left out, keep the others
            st.error(md_escape(error))
    return level, tuple(dict.fromkeys(valid)) or m.DEFAULT_METRICS


def download_buttons(what, stem: str, key: str) -> None:
    columns = st.columns(3)
    for column, fmt, mime in zip(columns, export.FORMATS, ("text/markdown", "text/html", "text/csv"), strict=False):
        column.download_button(
            f"Export {fmt.upper()}",
            export.render(what, fmt),
            file_name=f"{stem}.{fmt}",
            mime=mime,
            key=f"{key}_{fmt}",
            icon=":material/download:",
        )


# -- one run --------------------------------------------------------------------------------------


def show_run(result) -> None:
    st.markdown(
        f"**{md_escape(describe(result))}** — mode {md_escape(result.config['retrieval']['mode'])}, "
        f"{len(result.per_query)} queries evaluated, {len(result.skipped)} skipped, ranked to depth "
        f"{result.evaluated_top_k}, {result.elapsed_s:.1f} s"
    )
    columns = st.columns(min(len(result.metrics), 7))
    for column, (name, value) in zip(itertools.cycle(columns), result.metrics.items()):
        column.metric(name, f"{value:.4f}")
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


def evaluate_tab(collection: str) -> None:
    golden = golden_picker(collection, "evaluate_golden")
    if golden is None:
        return
    if golden_sets.unreviewed_note(golden):
        st.warning(md_escape(golden_sets.unreviewed_note(golden)) + ".", icon=":material/rate_review:")
    level, metric_names = level_and_metrics("evaluate")
    preset = session.current_preset()
    config = session.current_config()
    llm_calls = llm_calls_for_run([config], len(golden))
    st.caption(
        f"Configuration: preset “{md_escape(preset)}” from the sidebar ({md_escape(describe_config(config))})"
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


# -- runs and comparisons ---------------------------------------------------------------------------


def runs_tab(collection: str) -> None:
    catalog = session.workbench().catalog
    include_sweeps = st.toggle("Include sweep runs", value=False, key="runs_include_sweeps")
    rows = list_runs(catalog, collection=collection, include_sweeps=include_sweeps)
    if not rows:
        st.info(
            "No runs stored for this collection yet: evaluate in the first tab, or run `python -m workbench eval`.",
            icon=":material/info:",
        )
        return
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "run": r.id,
                    "created": r.created_at,
                    "golden": r.golden,
                    "level": r.level,
                    "label": r.label,
                    "mode": r.config.get("retrieval", {}).get("mode"),
                    "queries": r.queries,
                    **r.metrics,
                    "sweep": r.sweep_id,
                }
                for r in rows
            ]
        ),
        hide_index=True,
        width="stretch",
        column_config={"created": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm")},
    )
    by_id = {r.id: r for r in rows}
    ids = list(by_id)

    st.subheader("Compare two runs")
    _distinct_compare_defaults(ids)
    left, right = st.columns(2)
    run_a = left.selectbox("Run a (baseline)", ids, key="compare_a", format_func=lambda i: describe(by_id[i]))
    run_b = right.selectbox("Run b (new)", ids, key="compare_b", format_func=lambda i: describe(by_id[i]))
    shared = [n for n in by_id[run_a].metrics if n in by_id[run_b].metrics] or ["ndcg@10"]
    metric_col, perm_col = st.columns(2)
    metric = metric_col.selectbox("Metric", shared, key="compare_metric")
    permutations = int(
        perm_col.number_input(
            "Permutations", min_value=100, max_value=100_000, value=10_000, step=1000, key="compare_permutations"
        )
    )
    if st.button("Compare", key="compare_run", type="primary", disabled=run_a == run_b):
        comparison = compare_runs(load_run(catalog, run_a), load_run(catalog, run_b), metric, permutations)
        st.session_state[COMPARISON_KEY] = comparison
    comparison = st.session_state.get(COMPARISON_KEY)
    if comparison is not None and {comparison.run_a, comparison.run_b} <= set(ids):
        show_comparison(comparison)

    with st.expander("Show or delete a run"):
        chosen = st.selectbox("Run", ids, key="runs_show", format_func=lambda i: describe(by_id[i]))
        if st.button("Show", key="runs_show_button"):
            st.session_state[SHOWN_RUN_KEY] = chosen
            session.flash("info", f"Showing run {chosen} in the Evaluate tab.")
            st.rerun()
        if not read_only() and st.button("Delete", key="runs_delete_button", icon=":material/delete:"):
            session.workbench().require_writable("Deleting a run")
            delete_run(catalog, chosen)
            st.session_state.pop(COMPARISON_KEY, None)
            session.flash("success", f"Deleted run {chosen}.")
            st.rerun()


def _distinct_compare_defaults(ids: list[int]) -> None:
    """Baseline a = the older run, new b = the newest; a new run resets them to that (the user's
    pick holds otherwise)."""
    state = st.session_state
    state["compare_a"], state["compare_b"] = compare_pickers(
        ids, state.get("compare_a"), state.get("compare_b"), state.get("compare_known_runs")
    )
    state["compare_known_runs"] = frozenset(ids)


def show_comparison(comparison) -> None:
    test = comparison.test
    for warning in comparison.warnings:
        st.warning(md_escape(warning))
    columns = st.columns(4)
    columns[0].metric("Wins (b better)", comparison.wins)
    columns[1].metric("Losses", comparison.losses)
    columns[2].metric("Ties", comparison.ties)
    columns[3].metric(
        "p-value",
        f"{test.p_value:.4f}",
        help=f"{test.method} test, two-sided, {test.permutations} sign flips, seed {test.seed}",
    )
    verdict = "significant at 0.05" if test.p_value < 0.05 else "not significant at 0.05"
    st.markdown(f"Mean {md_escape(comparison.metric)} difference (b − a): **{test.mean_difference:+.4f}**, {verdict}.")
    st.dataframe(
        pd.DataFrame([{"metric": d.metric, "run a": d.a, "run b": d.b, "delta": d.delta} for d in comparison.deltas]),
        hide_index=True,
        width="stretch",
    )
    if comparison.config_changes:
        st.caption(
            "Configuration changes: " + md_escape(", ".join(f"{k}: {a} → {b}" for k, a, b in comparison.config_changes))
        )
    st.plotly_chart(charts.significance_chart(comparison), key="comparison_null")
    st.plotly_chart(charts.query_delta_chart(comparison), key="comparison_deltas")
    changed = comparison.most_changed(15)
    if changed:
        st.markdown("**Queries that changed most**")
        st.dataframe(
            pd.DataFrame(
                [
                    {"query id": c.query_id, "query": c.query, "run a": c.a, "run b": c.b, "delta": c.delta}
                    for c in changed
                ]
            ),
            hide_index=True,
            width="stretch",
        )
    download_buttons(comparison, f"compare-{comparison.run_a}-{comparison.run_b}", "export_comparison")


# -- sweeps -----------------------------------------------------------------------------------------


def sweep_tab(collection: str) -> None:
    if hidden_in_read_only("Running sweeps"):
        return
    golden = golden_picker(collection, "sweep_golden")
    if golden is None:
        return
    level, metric_names = level_and_metrics("sweep")
    rank_by = st.selectbox("Best by", metric_names, key="sweep_rank_by")
    base = session.current_config()
    offered = list(SWEEP_SUGGESTIONS) + [k for k in known_keys() if k not in SWEEP_SUGGESTIONS]
    keys = st.multiselect(
        "Keys to vary",
        offered,
        default=default_sweep_keys(base),
        key="sweep_keys",
        help="Any config key, chunking included. Query-time keys reuse the indexes; a new "
        "chunking is built once and embeds only texts not in the cache.",
    )
    grid: dict[str, list[str]] = {}
    for key in keys:
        typed = st.text_input(
            f"Values of {key}",
            value=SWEEP_SUGGESTIONS.get(key, str(base.get(key))),
            key=f"sweep_values_{key}",
            help="Comma separated; use ';' between values that hold commas (fusion.weights).",
        )
        grid[key] = parse_grid_argument(f"{key}={typed}")[1] if typed.strip() else []
    try:
        points = expand(base, grid) if grid else []
    except ConfigError as error:
        st.error(md_escape(error))
        return
    layouts = len(plan(points))
    llm_calls = llm_calls_for_run([point.config for point in points if point.same_as is None], len(golden))
    same = sum(1 for point in points if point.same_as is not None)
    st.caption(
        f"{len(points) - same} configurations × {len(golden)} queries, {layouts} layout(s)"
        + (
            f"; {same} more differ only in keys their configuration ignores and are reported as the same, not run"
            if same
            else ""
        )
        + (" — new chunkings are built on first use (only uncached texts are embedded)" if layouts > 1 else "")
        + (f"; {llm_calls.describe()}, cached replies cost nothing" if llm_calls.calls else "")
    )
    if st.button(
        f"Run sweep ({len(points)} configurations)",
        key="sweep_run",
        type="primary",
        disabled=not points,
        icon=":material/play_arrow:",
    ):
        bar = st.progress(0.0, text="Preparing…")
        result = run_sweep(
            session.workbench(),
            collection,
            golden,
            base,
            grid,
            level=level,
            metric_names=tuple(dict.fromkeys((*metric_names, rank_by))),
            progress=lambda event: bar.progress(event.fraction, text=event.describe()),
        )
        bar.empty()
        st.session_state[SWEEP_KEY] = result
    result = st.session_state.get(SWEEP_KEY)
    if result is not None and result.collection == collection:
        show_sweep(result, rank_by if rank_by in result.metric_names else result.metric_names[0])


def show_sweep(result, rank_by: str) -> None:
    best = result.best(rank_by)
    same = len(result.entries) - len(result.distinct)
    same_note = f" ({same} the same as another: they differ only in keys their configuration ignores)" if same else ""
    st.success(
        f"Sweep {result.sweep_id}: {len(result.entries)} configurations{same_note} in "
        f"{result.elapsed_s:.1f} s; "
        f"{md_escape(result.reuse_summary())}. Best {md_escape(rank_by)} = "
        f"**{best.result.metrics[rank_by]:.4f}** with {md_escape(best.point.label)}."
    )
    rows = result.table()
    st.dataframe(pd.DataFrame(rows).sort_values(rank_by, ascending=False), hide_index=True, width="stretch")
    st.plotly_chart(charts.sweep_chart(rows, list(result.grid), rank_by), key="sweep_chart")
    name_col, button_col = st.columns([3, 1])
    name = name_col.text_input("Preset name", value=f"{result.collection}-best", key="sweep_preset_name")
    if button_col.button("Save best as preset", key="sweep_save_best", icon=":material/save:"):
        saved = save_best_as_preset(session.workbench(), result, name, rank_by)
        shown = ", ".join(f"{k}={v}" for k, v in sorted(saved.items())) or "the defaults"
        session.flash("success", f"Saved preset **{md_escape(name)}**: {md_escape(shown)}. Pick it in the sidebar.")
        st.rerun()
    summary = (result.reuse_summary(),)
    columns = st.columns(3)
    for column, fmt, text in (
        (columns[0], "md", export.to_markdown(export.sweep_report(rows, rank_by, summary))),
        (columns[1], "html", export.to_html(export.sweep_report(rows, rank_by, summary))),
        (columns[2], "csv", export.sweep_csv(rows)),
    ):
        column.download_button(
            f"Export {fmt.upper()}",
            text,
            file_name=f"sweep-{result.sweep_id}.{fmt}",
            key=f"export_sweep_{fmt}",
            icon=":material/download:",
        )


# -- golden sets ------------------------------------------------------------------------------------


def golden_tab(collection: str) -> None:
    bench = session.workbench()
    names = golden_sets.available(bench.home)
    options = names + ["+ new golden set"]
    follow_collection("golden_edit_pick", collection, options, collection if collection in names else options[0])
    choice = st.selectbox("Golden set", options, key="golden_edit_pick")
    if choice == "+ new golden set":
        name = st.text_input("Name", value=collection, key="golden_new_name")
    else:
        name = choice
    try:
        path = golden_sets.path_for(name, bench.home)
    except golden_sets.GoldenSetError as error:
        st.error(md_escape(error))
        return
    if path.exists():
        golden = golden_sets.load(path)
        spans = sum(1 for q in golden.queries for item in q.relevant if item.is_span)
        st.caption(
            f"{md_escape(str(path))}: {len(golden)} queries, {spans} span judgements. A plain file: edit "
            "it, version it in git."
        )
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "id": q.id,
                        "query": q.query,
                        "documents": ", ".join(q.doc_grades()),
                        "span items": sum(1 for i in q.relevant if i.is_span),
                        "answer": q.answer or "",
                    }
                    for q in golden.queries
                ]
            ),
            hide_index=True,
            width="stretch",
        )
    else:
        st.caption(f"New file: {md_escape(str(path))}")
    if hidden_in_read_only("Changing golden sets"):
        return
    beir_import(bench, name)
    with st.form("golden_add", clear_on_submit=True):
        st.markdown("**Add a judgement** (the Retrieval lab does this when you mark a hit relevant)")
        query = st.text_input("Query id or text", key="golden_add_query")
        documents = [doc for doc in session.documents(collection) if doc.status == "success"]
        doc = st.selectbox(
            "Document", documents, key="golden_add_doc", format_func=lambda d: shown_name(d.external_id or d.source)
        )
        quote = st.text_area(
            "Quote (optional: the passage that answers; empty judges the whole document)", key="golden_add_quote"
        )
        grade = st.number_input(
            "Grade", min_value=0, max_value=3, value=1, key="golden_add_grade", help="0 removes the judgement"
        )
        if st.form_submit_button("Save judgement"):
            if not query.strip() or doc is None:
                st.error("Give a query and pick a document.")
            else:
                item = {"doc": doc.external_id or doc.source, "grade": int(grade)}
                if quote.strip():
                    item["quote"] = quote.strip()
                bench.require_writable("Changing a golden set")
                updated = golden_sets.mark_relevant(path, query, item)
                session.flash(
                    "success", f"Saved: query **{md_escape(updated.id)}** now has {len(updated.relevant)} judgements."
                )
                st.rerun()


def beir_import(bench, name: str) -> None:
    with st.expander("Import judgements from a BEIR folder"):
        st.caption(
            "Reads `queries.jsonl`, `qrels/test.tsv` and `qrels/test_spans.jsonl` (spans are shifted to point "
            "into each document's Markdown). The corpus itself is ingested with "
            "`python -m workbench import-beir FOLDER`."
        )
        folder = st.text_input("BEIR folder", key="golden_beir_folder", placeholder="../shared/datasets/scifact")
        if st.button("Import as this golden set", key="golden_beir_import", disabled=not folder.strip()):
            from pathlib import Path

            from workbench.ingestion.beir import BeirFormatError, import_golden

            try:
                bench.require_writable("Importing a golden set")
                path = import_golden(Path(folder.strip()).expanduser(), name, bench.home)
            except (BeirFormatError, OSError) as error:
                st.error(md_escape(error))
                return
            if path is None:
                st.error("That folder has no queries.jsonl and qrels/test.tsv to import.")
                return
            session.flash("success", f"Imported {len(golden_sets.load(path))} queries into **{md_escape(name)}**.")
            st.rerun()


st.title("Evaluation")
current = require_collection("evaluate")
# keyed and tracked: a rerun (a saved review, a message above the tabs) keeps the tab the user is on
evaluate, runs, sweep, tune, golden_edit, from_documents = st.tabs(
    ["Evaluate", "Runs & compare", "Sweep", "Tune", "Golden sets", "From your documents"],
    key="evaluation_tab",
    on_change="rerun",
)
with evaluate:
    evaluate_tab(current)
with runs:
    runs_tab(current)
with sweep:
    sweep_tab(current)
with tune:
    tune_tab.render(current)
with golden_edit:
    golden_tab(current)
with from_documents:
    golden_builder.render(current)
