"""The Judging page's parts: who judges, building a pool, grading one chunk at a time, export, agreement.

Grades go through ``workbench.golden.judging`` (the same API an LLM judge uses). The grade
buttons carry Streamlit's native keyboard shortcuts (0-3, U for undo), so a judge keeps their
hands on the keyboard; the page always shows the first chunk the judge has not graded yet, which
makes a session resumable by just coming back.

The chunk and its keys are one ``st.fragment``: a key reruns only that part. The judge's
grades are held in memory between keys (``workbench.golden.judging_session``), which the next
chunk is drawn from, and stored behind them on a thread of their own: a commit costs the catalog
tens of milliseconds that a key does not wait for. The chunks' text is read a few ahead.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import streamlit as st

from workbench.evaluation import golden as golden_sets
from workbench.golden import judging, pools, query_sets, set_agreement
from workbench.golden.judging import GRADE_MEANINGS, GRADES, JudgingError, PoolItem, PoolRow
from workbench.golden.judging_session import JudgingSession, settle_grades
from workbench.service import Workbench
from workbench.text import count, error_message
from workbench.ui import session
from workbench.ui.chunk_text import show_chunk_text
from workbench.ui.evaluation_widgets import follow_collection
from workbench.ui.text import md_escape

JUDGE_KEY = "judging_judge"
JUDGE_INPUT_KEY = "judging_judge_input"
POOL_KEY = "judging_pool"
QUEUED_KEY = "_judging_queued"
#: the judging session held between keys (``workbench.golden.judging_session``)
SESSION_KEY = "_judging_session"
UNDO_SHORTCUT = "U"
GRADE, UNDO = "grade", "undo"


# -- the judge ----------------------------------------------------------------------------------


def _set_judge() -> None:
    try:
        st.session_state[JUDGE_KEY] = judging.person_judge(st.session_state.get(JUDGE_INPUT_KEY, ""))
    except JudgingError as error:
        session.flash("error", str(error))


def _change_judge() -> None:
    # the box comes back holding the name, to correct rather than type again
    st.session_state[JUDGE_INPUT_KEY] = st.session_state.pop(JUDGE_KEY, None) or ""


def judge_name() -> str | None:
    """The judge's name, asked once per session; None until it is given. It stays on the page with
    a button to change it: a name that vanished with its button looked like a lost click."""
    name = st.session_state.get(JUDGE_KEY)
    if name:
        with st.container(horizontal=True, vertical_alignment="center", key="judging_judge_line"):
            st.caption(
                f"Judging as **{md_escape(name)}**. Keys: **0**-**3** grade the chunk, **{UNDO_SHORTCUT}** "
                "undoes your last grade."
            )
            st.button("Change judge", key="judging_change_judge", on_click=_change_judge, type="tertiary")
        return name
    # The name and its button are one form: Enter and the button do the same one thing (start),
    # and leaving the box (a blur) starts nothing, where a bare text box's change would.
    with st.form("judging_judge_form", border=False, enter_to_submit=True):
        st.text_input(
            "Your name",
            key=JUDGE_INPUT_KEY,
            placeholder="recorded with every grade you give",
            help="Each grade is stored with its judge, so several people (and an LLM) can judge one pool. "
            "Enter starts judging, as the button does.",
        )
        st.form_submit_button("Start judging", key="judging_start", on_click=_set_judge, type="primary")
    return None


# -- building a pool ------------------------------------------------------------------------------


def render_pool_builder(collection: str, found: list[tuple[PoolRow, int, int]]) -> None:
    """A query set (saved, or typed here) pooled over presets and built-in configurations."""
    bench = session.workbench()
    with st.expander("New pool", expanded=not found):
        saved = query_sets.available(bench.home)
        # the selected collection's golden sets too (one the Evaluation page just wrote, say): pooling
        # their questions finds what else is relevant to them
        golden = [name for name in session.golden_sets_for(collection) if name not in saved]
        typed = st.text_area(
            "Questions, one per line",
            key="judging_new_questions",
            height=120,
            help="Or pick a saved query set below (python -m workbench golden queries FILE, or golden from-log).",
        )
        picked = st.selectbox(
            "…or a saved query set",
            saved + golden,
            index=None,
            key="judging_new_query_set",
            format_func=lambda name: f"{name} (golden set)" if name in golden else name,
            placeholder=f"{len(saved) + len(golden)} saved" if saved or golden else "none saved yet",
            help="Query sets saved in the home, and the golden sets that judge this collection's documents.",
        )
        presets = [name for name, _, _ in session.preset_list()]
        built_in = [name for name, _ in pools.BUILT_IN_CONFIGS]
        chosen = st.multiselect(
            "Configurations pooled",
            presets + built_in,
            default=built_in[:4],
            key="judging_new_configs",
            format_func=session.preset_label,
            help="Presets, and built-in configurations spanning the modes, fusion methods and "
            "MMR. More configurations find more of what is relevant.",
        )
        left, middle, right = st.columns(3)
        depth = left.number_input("Depth (top k each)", 1, 100, 5, key="judging_new_depth")
        seed = middle.number_input("Seed", 0, 1_000_000, 0, key="judging_new_seed")
        name = right.text_input("Pool name", key="judging_new_name", placeholder="e.g. my-questions")
        if st.button("Build pool", key="judging_build", type="primary"):
            try:
                if picked:
                    questions = query_sets.find(picked, bench.home)
                else:
                    questions = query_sets.from_texts(name or "typed", typed.splitlines())
                    if name:
                        query_sets.save(questions, bench.home)
                configs = _configs(bench, collection, chosen, built_in)
                with st.spinner(f"Pooling {len(questions)} queries over {len(configs)} configurations…"):
                    items = pools.build_pool(
                        lambda text, config: bench.query(text, collection, config),
                        questions,
                        configs,
                        int(depth),
                        int(seed),
                    )
                    row = pools.save(
                        bench.catalog,
                        name or questions.name,
                        collection,
                        questions,
                        configs,
                        int(depth),
                        int(seed),
                        items,
                    )
            except ValueError as error:
                st.error(md_escape(str(error)))
                return
            st.session_state[POOL_KEY] = row.name
            session.flash("success", f"Pool {row.name!r}: {len(items)} chunks to judge over {len(questions)} queries.")
            st.rerun()


def _configs(bench, collection: str, chosen: list[str], built_in: list[str]) -> list[pools.NamedConfig]:
    settings = bench.settings()

    def resolve(preset, overrides):
        return bench.config_for(collection, preset, overrides, settings=settings)

    named = [c for c in pools.built_in_configs(resolve) if c.name in chosen]
    presets = [c for c in chosen if c not in built_in]
    if presets:
        named += pools.resolve_configs(presets, resolve)
    if not named:
        raise ValueError("pick at least one configuration to pool")
    return named


# -- judging ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgingView:
    """What the judging fragment draws: the pool, the judge's grades and the next chunk."""

    session: JudgingSession | None
    item: PoolItem | None = None  # the next chunk to judge; None once the pool is done
    text: str | None = None
    problems: tuple[str, ...] = ()


def stored_pools() -> list[tuple[PoolRow, int, int]]:
    """The pools with their chunk and judged counts, once every grade given is stored. Read on a
    page run, which also lets go of the judging session so the next key reads others' grades."""
    bench = session.workbench()
    st.session_state.pop(SESSION_KEY, None)
    settle_grades(bench.catalog)
    return pools.list_pools(bench.catalog)


def render_pool_and_judging(found: list[tuple[PoolRow, int, int]], judge: str | None) -> None:
    """The pool picker, the next chunk with its grade keys, and the export.

    The chunk and its keys are a fragment: a grade (or undo) redraws only them, not the picker,
    the pool builder, the export or the agreement. The export reads the judge's grades when it is
    asked to."""
    if not found:
        st.info(
            "No pool yet. Build one above from a few questions: the page then shows each query's pooled "
            "chunks one at a time.",
            icon=":material/info:",
        )
        return
    names = [row.name for row, _, _ in found]
    # what a key does not change: the progress line below counts as the judge goes
    labels = {row.name: f"{row.name} · {row.collection} · {total} chunks" for row, total, _ in found}
    if st.session_state.get(POOL_KEY) not in names:
        st.session_state[POOL_KEY] = names[0]
    pool = st.selectbox("Pool", names, key=POOL_KEY, format_func=lambda name: labels[name])
    if judge and pool:
        _judging_fragment(pool, judge)
        st.subheader("Export", anchor=False)
        _render_export(pool, judge)


@st.fragment
def _judging_fragment(pool: str, judge: str) -> None:
    view = _read_view(pool, judge)
    for problem in view.problems:
        st.error(md_escape(problem))
    if view.session is not None:
        _render_judging(view)


def _queue(action: str, pool: str, judge: str, item: PoolItem | None = None, grade: int | None = None) -> None:
    """Button callback: the fragment applies it to the judging session as it runs."""
    st.session_state.setdefault(QUEUED_KEY, []).append((action, pool, judge, item, grade))


def _apply_queued(held: JudgingSession) -> list[str]:
    """The grades and undos queued since the last run, in order; returns what to tell the judge."""
    queued: list = st.session_state.get(QUEUED_KEY, [])
    told = []
    while queued:
        action, pool, judge, item, grade = queued.pop(0)
        if (pool, judge) != (held.pool, held.judge):  # a key from before the pool was switched
            told.append(f"A key for pool {pool!r} came after you left it; it was not applied.")
        elif action == GRADE:
            try:
                held.grade(item, grade)
            except JudgingError as error:
                told.append(str(error))
        elif held.undo() is None:
            told.append("Nothing to undo: you have not graded anything in this pool.")
    return told


def _read_view(pool: str, judge: str) -> JudgingView:
    """The judging session held between keys, with the keys queued since the last run applied.

    It is loaded again for another pool or judge, after a page run (others' grades), and when a
    grade could not be stored: the catalog is then the truth, and the chunk comes back."""
    bench = session.workbench()
    held: JudgingSession | None = st.session_state.get(SESSION_KEY)
    problems = held.failures() if held is not None and held.owner == (pool, judge) else []
    if held is None or held.owner != (pool, judge) or problems:
        st.session_state.pop(SESSION_KEY, None)
        try:
            held = st.session_state[SESSION_KEY] = JudgingSession.load(bench.catalog, pool, judge)
        except LookupError as error:  # the pool was deleted since the page listed it
            st.session_state.pop(QUEUED_KEY, None)
            return JudgingView(None, problems=(*problems, error_message(error)))
        problems += held.failures()  # of grades given before a page run let go of the session
    problems += _apply_queued(held)
    upcoming = held.upcoming(SPANS_READ_AHEAD + 1)
    item = upcoming[0] if upcoming else None
    text = _span_text(bench, held.row.collection, item.document, item.start, item.end) if item else None
    _read_ahead(bench, held.row.collection, upcoming[1:])
    return JudgingView(held, item, text, tuple(problems))


SPANS_READ_AHEAD = 3


@functools.lru_cache(maxsize=256)
def _span_text(bench: Workbench, collection: str, document: str, start: int, end: int) -> str | None:
    """The judged span from the document's canonical Markdown (it outlives any chunking); None
    when the document is no longer in the collection. Kept for the server's sessions, and read
    ahead for the next few chunks between keys."""
    try:
        markdown, _ = bench.markdown(bench.document(document, collection).id)
    except LookupError:
        return None
    return markdown[start:end]


def _read_ahead(bench: Workbench, collection: str, items: list[PoolItem]) -> None:
    """Read the next spans in the background, while the judge reads this one."""

    def read() -> None:
        for item in items:
            _span_text(bench, collection, item.document, item.start, item.end)

    if items:
        threading.Thread(target=read, name="judging-read-ahead", daemon=True).start()


def _render_judging(view: JudgingView) -> None:
    """Progress, the next unjudged chunk with its query, the grade buttons and undo."""
    held = view.session
    assert held is not None
    pool, judge, items, graded = held.pool, held.judge, held.items, bool(held.mine)
    done = held.progress()
    st.progress(
        done.fraction,
        text=f"{done.judged} of {done.total} chunks judged · {done.queries_done} of {done.queries} queries complete",
    )
    item = view.item
    # few elements: a key redraws all of them, and each costs the browser a few milliseconds
    if item is None:
        st.success(f"Every chunk of pool {md_escape(pool)} is judged. Export it as a golden set below.")
        _undo_button(pool, judge, graded)
        return
    position = sum(1 for other in items if other.query_id == item.query_id and other.position < item.position) + 1
    in_query = sum(1 for other in items if other.query_id == item.query_id)
    with st.container(border=True, key="judging_query"):
        st.markdown(
            f"**Query {item.query_position + 1} of {done.queries}** · chunk {position} of {in_query} · "
            f"{md_escape(item.document)}, characters {item.start}-{item.end}\n\n### {md_escape(item.query)}"
        )
    text = view.text if view.text is not None else f"(document {item.document} is no longer in {held.row.collection})"
    with st.container(border=True, height=260, key="judging_chunk"):
        show_chunk_text(text)  # its Markdown tables as tables, not raw pipes
    with st.container(horizontal=True, key="judging_keys"):
        for grade in GRADES:
            st.button(
                f"{grade} · {GRADE_MEANINGS[grade].split(':')[0]}",
                key=f"judging_grade_{grade}",
                shortcut=str(grade),
                on_click=_queue,
                args=(GRADE, pool, judge, item, grade),
                help=GRADE_MEANINGS[grade],
                width="stretch",
            )
        _undo_button(pool, judge, graded)


def _undo_button(pool: str, judge: str, graded: bool) -> None:
    st.button(
        "Undo",
        key="judging_undo",
        shortcut=UNDO_SHORTCUT,
        on_click=_queue,
        args=(UNDO, pool, judge),
        disabled=not graded,
        help="Take back your last grade in this pool",
        width="stretch",
    )


def _render_export(pool: str, judge: str) -> None:
    """Write this judge's judgements of the pool as a golden set in the home."""
    bench = session.workbench()
    left, right = st.columns([3, 1])
    name = left.text_input(
        "Golden set name", value=f"{pool}-{judge}".replace(" ", "-").lower(), key=f"judging_export_name_{pool}"
    )
    if right.button("Export as golden set", key="judging_export"):
        settle_grades(bench.catalog)
        with bench.catalog.connect():  # one transaction
            _, items = judging.load_pool(bench.catalog, pool)
            mine = judging.judgements(bench.catalog, pool, judge)
        if not mine:
            st.warning(f"You have not graded anything in pool {md_escape(pool)} yet: nothing to export.")
            return
        try:
            golden = judging.to_golden_set(name, list(items), mine)
            path = golden_sets.path_for(name, bench.home)
            if path.exists() and not path.is_relative_to(bench.home):
                raise ValueError(f"golden set {name!r} is a project file ({path}); export under another name")
            path = golden_sets.save(golden, path)
        except ValueError as error:
            st.error(md_escape(str(error)))
            return
        st.success(
            f"Golden set {md_escape(name)}: {len(golden)} queries, {len(mine)} judged chunks → "
            f"{md_escape(str(path))}. Evaluate it on the Evaluation page (level span)."
        )


# -- agreement ------------------------------------------------------------------------------------


def render_agreement(collection: str) -> None:
    """Two golden sets: kappa and the confusion table, and (on request) Kendall tau over configurations."""
    bench = session.workbench()
    names = session.golden_sets_for(collection)  # two sets of this collection, never the demo's by default
    if len(names) < 2:
        st.caption(
            f"Agreement needs two golden sets that judge {md_escape(collection)}'s documents (for example a "
            f"person's export and an LLM judge's); {count(len(names), 'set')} so far."
        )
        return
    left, right = st.columns(2)
    follow_collection("judging_agree_a", collection, names, names[0])
    follow_collection("judging_agree_b", collection, names, names[1])
    a = left.selectbox("A (trusted)", names, key="judging_agree_a")
    b = right.selectbox("B", names, key="judging_agree_b")
    rank = st.toggle("Also rank the built-in configurations under both (Kendall tau)", key="judging_agree_rank")
    if not st.button("Compare", key="judging_agree"):
        return
    set_a, set_b = golden_sets.find(a, bench.home), golden_sets.find(b, bench.home)
    if rank:

        def resolve(preset, overrides):
            return bench.config_for(collection, preset, overrides)

        with st.spinner("Evaluating the configurations under both sets…"):
            report = set_agreement.ranking_agreement(bench, collection, set_a, set_b, pools.built_in_configs(resolve))
    else:
        report = set_agreement.grade_agreement(set_a, set_b)
    kappa = "undefined" if report.kappa_linear is None else f"{report.kappa_linear:.3f}"
    st.metric("Weighted kappa (linear)", kappa, help="1 = the same grades, 0 = chance agreement", border=True)
    st.caption(f"{report.pairs} (query, chunk) pairs judged by both · {report.kappa_words}")
    st.dataframe(
        {f"B={j}": [row[j] for row in report.table] for j in range(len(report.table))},
        hide_index=False,
        key="judging_confusion",
    )
    if report.scores:
        tau = "undefined" if report.tau is None else f"{report.tau:.3f}"
        st.metric(f"Kendall tau over {len(report.scores)} configurations", tau, border=True)
        st.dataframe(
            [
                {
                    "configuration": s.name,
                    f"{report.metric} under A": round(s.under_a, 4),
                    f"{report.metric} under B": round(s.under_b, 4),
                }
                for s in report.scores
            ],
            hide_index=True,
            key="judging_agree_scores",
        )
    for note in report.notes:
        st.caption(md_escape(note))
