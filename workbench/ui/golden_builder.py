"""The Evaluation page's "From your documents" tab: write a golden set with the LLM endpoint
(the call and token estimate shown before it runs, a progress bar while it does), then review
the items: accept, edit or reject each, with its quote highlighted in its document.

Document text is shown through ``md_escape`` (never as HTML)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.config import ConfigError
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.power import TYPICAL_SPREAD, queries_needed, synthesis_size
from workbench.golden import review
from workbench.golden.build import SYNTH_FOLDER, plan_synth, read_summary, run_synth
from workbench.golden.prompts import KINDS
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.text import md_escape

REPORT_KEY = "synth_report"
SAVED_KEY = "synth_review_saved"
PLAN_KEY = "synth_plan"


#: the gain a set written with the default number of questions can show on a typical collection
SYNTH_GAIN = 0.05


def render(collection: str) -> None:
    if hidden_in_read_only("Writing and reviewing golden sets with the LLM"):
        return
    st.markdown(
        "Questions written by the LLM endpoint from sampled chunks. An item is kept only when the quote "
        "that answers it is found in its document; the span found becomes its judgement."
    )
    build(collection)
    st.divider()
    review_section(collection)


def build(collection: str) -> None:
    bench = session.workbench()
    client = bench.llm()
    config = session.current_config(collection)
    left, middle, right = st.columns([2, 1, 1])
    out = left.text_input("Golden set name", value=f"{collection}-synth", key="synth_out")
    size = min(synthesis_size(SYNTH_GAIN), config.synth.max_items)
    n = middle.number_input(
        "Questions",
        min_value=1,
        max_value=config.synth.max_items,
        value=size,
        key="synth_n",
        help=f"at most synth.max_items ({config.synth.max_items})",
    )
    seed = right.number_input(
        "Seed", min_value=0, value=1, key="synth_seed", help="the same seed samples the same chunks"
    )
    st.caption(
        f"{size} questions by default: about {queries_needed(TYPICAL_SPREAD, SYNTH_GAIN)} kept queries can show a "
        f"gain of {SYNTH_GAIN:.2f} when the per-query differences spread as they typically do (sd "
        f"{TYPICAL_SPREAD:.2f}), and about 1 question in 10 is dropped when its quote is not found. Fewer "
        "questions can tell only larger gains apart (docs/evaluation.md, *How many queries*)."
    )
    kinds = st.multiselect(
        "Kinds",
        KINDS,
        default=list(KINDS),
        key="synth_kinds",
        help="specific and abstract questions, multi-hop (two chunks), unanswerable (on topic, "
        "not answered: they measure abstention)",
    )
    if not client.available:
        st.info(md_escape(client.unavailable_reason("Writing questions")), icon=":material/info:")
        st.button("Write questions", key="synth_run", disabled=True)
        return
    # every tab renders on every rerun: sample once per choice of parameters (and catalog version)
    wanted = (collection, config, int(n), int(seed), out, tuple(kinds), session.catalog_version())
    cached = st.session_state.get(PLAN_KEY)
    if cached is None or cached[0] != wanted:
        try:
            cached = (
                wanted,
                plan_synth(bench, collection, config, n=int(n), seed=int(seed), out=out, kinds=kinds or KINDS),
            )
        except (ConfigError, ValueError, golden_sets.GoldenSetError) as error:
            st.error(md_escape(error))
            return
        st.session_state[PLAN_KEY] = cached
    plan = cached[1]
    st.caption(f"LLM ({md_escape(plan.model)}): {md_escape(plan.estimate().describe())}")
    if st.button("Write questions", key="synth_run", type="primary"):
        bar = st.progress(0.0, text="asking the endpoint")

        def progress(done: int, total: int) -> None:
            bar.progress(done / max(total, 1), text=f"{done} of {total} questions")

        st.session_state[REPORT_KEY] = (plan.out, run_synth(bench, plan, progress).summary())
        st.session_state["synth_review_set"] = plan.out
    shown = st.session_state.get(REPORT_KEY)
    if shown:
        show_summary(*shown)


def show_summary(name: str, summary: dict) -> None:
    columns = st.columns(4)
    columns[0].metric("kept", f"{summary['kept']} of {summary['planned']}")
    columns[1].metric("rejected", sum(summary["rejected"].values()))
    overlap = summary.get("mean_overlap")
    columns[2].metric(
        "question/quote overlap",
        "n/a" if overlap is None else f"{overlap:.3f}",
        help="mean share of a question's BM25 tokens found in its quote: high values flatter BM25",
    )
    columns[3].metric("endpoint calls", summary["endpoint_calls"], help=f"{summary['cached_calls']} from the cache")
    st.dataframe(
        pd.DataFrame([{"rejected because": reason, "items": count} for reason, count in summary["rejected"].items()]),
        hide_index=True,
    )
    spread = [
        {"language or document": name, "planned": counts["planned"], "kept": counts["kept"]}
        for part in ("languages", "documents")
        for name, counts in summary.get(part, {}).items()
    ]
    if spread:  # summaries written before the plan was spread have none
        st.dataframe(pd.DataFrame(spread), hide_index=True)
    if summary.get("repeated_quotes"):
        st.caption(
            f"{summary['repeated_quotes']} kept questions quote a sentence found in several places: "
            "each is judged relevant at every place."
        )
    if summary.get("stopped"):
        st.error(
            f"The endpoint failed midway ({md_escape(summary['stopped'])}); finished questions are kept. "
            "Press the button again to finish without paying for them twice."
        )
    else:
        st.success(f"Wrote {summary['kept']} questions to golden set **{md_escape(name)}**.")


def review_section(collection: str) -> None:
    bench = session.workbench()
    folder = bench.home / "golden_sets" / SYNTH_FOLDER
    names = (
        sorted(p.name.removesuffix(".summary.json") for p in folder.glob("*.summary.json")) if folder.is_dir() else []
    )
    located = {
        name: path
        for name in names
        if (path := golden_sets.locate(name, bench.home)) is not None
        and (read_summary(bench.home, name) or {}).get("collection", collection) == collection
    }
    if not located:
        st.caption(f"Sets generated from {md_escape(collection)} appear here for review.")
        return
    session.forget_stale_choice("synth_review_set", list(located))
    name = st.selectbox("Review generated set", list(located), key="synth_review_set")
    path = located[name]
    golden = golden_sets.load(path)
    summary = read_summary(bench.home, name) or {}
    if summary.get("mean_overlap") is not None:
        st.caption(
            f"{len(golden)} items; mean question/quote overlap {summary['mean_overlap']:.3f} "
            f"(model {md_escape(summary.get('model', '?'))}, seed {summary.get('seed')})"
        )
    frame = pd.DataFrame(
        [
            {
                "id": r.id,
                "kind": r.kind,
                "question": r.question,
                "quote": r.quote,
                "documents": r.documents,
                "overlap": r.overlap,
                "decision": r.decision,
            }
            for r in review.rows(golden)
        ]
    )
    edited = st.data_editor(
        frame,
        hide_index=True,
        width="stretch",
        key=f"synth_review_table_{name}",
        disabled=["id", "kind", "quote", "documents", "overlap"],
        # what a person edits first, then what they read to decide: in view without scrolling sideways
        column_order=("decision", "question", "quote", "documents", "kind", "overlap", "id"),
        column_config={
            "decision": st.column_config.SelectboxColumn(
                "decision", options=list(review.DECISIONS), required=True, width="small"
            ),
            "question": st.column_config.TextColumn("question", help="edit to rephrase", width="large"),
            "quote": st.column_config.TextColumn("quote", width="medium"),
        },
    )
    if st.button("Save review", key="synth_review_save"):
        decisions = {row["id"]: (row["decision"], row["question"]) for row in edited.to_dict("records")}
        try:
            counts = review.apply_review(path, decisions, bench.home)
        except (ValueError, golden_sets.GoldenSetError) as error:
            st.error(md_escape(error))
        else:
            pending = review.unreviewed(golden_sets.load(path))
            # said here, beside the button, on the rerun that shows the saved file: a message at the
            # top of the page would be out of sight of this tab
            st.session_state[SAVED_KEY] = (
                f"Review of {name} saved: "
                + ", ".join(f"{v} {k}" for k, v in counts.items())
                + f"; {pending} still pending."
            )
            st.session_state.pop(f"synth_review_table_{name}", None)  # its edits are in the file now
            st.rerun()
    saved = st.session_state.pop(SAVED_KEY, None)
    if saved:
        st.success(md_escape(saved), icon=":material/check:")
    show_quote(bench, collection, golden)


def show_quote(bench, collection: str, golden) -> None:
    spans = {q.id: q for q in golden.queries if any(i.start is not None for i in q.relevant)}
    if not spans:
        return
    chosen = st.selectbox(
        "Show the quote in its document",
        list(spans),
        key="synth_review_item",
        format_func=lambda qid: f"{qid}: {spans[qid].query[:80]}",
    )
    for item in (i for i in spans[chosen].relevant if i.start is not None):
        try:
            document = bench.document(item.doc, collection)
        except LookupError as error:
            st.error(md_escape(error.args[0] if error.args else error))
            continue
        markdown = session.document_markdown(document.id)[0]
        before, quote, after = review.quote_in_context(markdown, item.start, item.end)
        st.markdown(f"**{md_escape(item.doc)}** [{item.start}:{item.end}]")
        st.markdown(f"{md_escape(before)} :orange-background[{md_escape(quote)}] {md_escape(after)}")
