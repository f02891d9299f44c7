"""The Retrieval lab and golden sets: finding the query's judgements, and marking hits relevant.

Lookups are cached by the golden-set files' signature (paths, times, sizes), so a set written by
marking, by the Evaluation page or by hand is read again on the next run. Relevance follows the
evaluation's rules (``workbench.analysis.golden_matches``), so what the lab highlights is what a run
would count.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from workbench.analysis.golden_matches import (
    DOCUMENT_LEVEL,
    MARK_LEVELS,
    SPAN_LEVEL,
    GoldenLookup,
    GoldenQueryIndex,
    describe_item,
    golden_queries_by_text,
    golden_query_key,
    judgement_for_hit,
    judgements_of_document,
    relevant_in_collection,
)
from workbench.evaluation import golden
from workbench.evaluation.golden import GoldenSetError
from workbench.retrieval.trace import Trace
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.text import md_escape

QUERY_KEY = "lab_query"
GOLDEN_PICK_KEY = "lab_golden_pick"
MARK_SET_KEY = "lab_mark_set"
MARK_NEW_NAME_KEY = "lab_mark_new_name"
MARK_LEVEL_KEY = "lab_mark_level"
MARK_GRADE_KEY = "lab_mark_grade"
MARK_MESSAGE_KEY = "lab_mark_message"
#: the golden-set choice that creates a new set rather than naming one
NEW_SET = "New golden set…"
GRADE_RANGE = (1, 10)


def golden_files_signature(home: Path) -> tuple:
    """Changes whenever a golden set file is added, removed or rewritten."""
    return session.golden_files_signature(home)


def golden_lookup(home: str, query: str, prefer: str | None, signature: tuple) -> GoldenLookup:
    """The golden query matching ``query`` (``prefer``'s first), and the sets that could not be read."""
    return _golden_index(home, prefer, signature).lookup(query)


@st.cache_resource(show_spinner=False, max_entries=16)  # shared, not copied per call: it is only read
def _golden_index(home: str, prefer: str | None, signature: tuple) -> GoldenQueryIndex:
    """Every golden query by text, read once per change of the golden-set files (``signature``):
    a new query is then looked up, not searched for through every set (7 ms a query)."""
    return golden_queries_by_text(Path(home), prefer)


@st.cache_data(show_spinner=False, max_entries=16)
def golden_queries(home: str, signature: tuple, sets: tuple[str, ...]) -> dict[str, str]:
    """Every query of the golden ``sets`` (the selected collection's): "set · id" -> query text."""
    found = {}
    for name in sets:
        try:
            found.update({f"{name} · {q.id}": q.query for q in golden.find(name, Path(home)).queries})
        except GoldenSetError:
            continue  # reported by the lookup when the query is run
    return found


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_relevance(folder: str, generation, query, _snapshot) -> dict[int, int]:
    return relevant_in_collection(query, _snapshot, markdown=lambda doc_id: session.document_markdown(doc_id)[0])


def relevant_chunks(query, snapshot) -> dict[int, int]:
    """The query's relevant chunks over the whole layout, judged once per query and index version."""
    return _cached_relevance(str(snapshot.folder), snapshot.generation, query, snapshot)


def pick_golden_query(queries: dict[str, str]) -> None:
    """Callback of the golden-query picker: put the picked query into the query box."""
    picked = st.session_state.get(GOLDEN_PICK_KEY)
    if picked in queries:
        st.session_state[QUERY_KEY] = queries[picked]


def preferred_set(collection: str) -> str:
    """The set whose judgements are shown when several hold the query: the one the user marks
    hits into, else the set named like the collection."""
    return st.session_state.get(MARK_SET_KEY) or collection


def render_summary(
    lookup: GoldenLookup, snapshot, traces: dict[str, Trace], relevant: dict[str, dict[int, int]]
) -> None:
    """Which golden query this is, how many chunks it judges relevant, and how many each side found."""
    for problem in lookup.problems:
        st.warning(f"A golden set could not be read: {md_escape(problem)}")
    if lookup.match is None:
        return
    in_collection = relevant_chunks(lookup.match.query, snapshot)
    in_final = {
        side: sum(1 for cid in trace.final.chunk_ids() if cid in relevant[side]) for side, trace in traces.items()
    }
    found = ", ".join(f"{side.upper()} has {count} in its final list" for side, count in in_final.items())
    st.success(
        f"This is query {md_escape(lookup.match.query.id)} of golden set {md_escape(lookup.match.set_name)}: "
        f"{len(in_collection)} relevant chunks in this collection; {found}. Relevant chunks are marked ✓ in "
        "every list, highlighted in the final lists, the diff and the context, and starred in the rank flow.",
        icon=":material/verified:",
    )


def chosen_set_name() -> str | None:
    """The golden set the marking widgets point at: an existing set, or the new name typed."""
    chosen = st.session_state.get(MARK_SET_KEY)
    if chosen == NEW_SET:
        return (st.session_state.get(MARK_NEW_NAME_KEY) or "").strip() or None
    return chosen


def mark_hit(chunk, query_text: str, lookup: GoldenLookup, mark: bool) -> None:
    """Button callback: runs before the rerun, so the rerun already highlights the new judgement."""
    name = chosen_set_name()
    if name is None:
        st.session_state[MARK_MESSAGE_KEY] = ("error", "Type a name for the new golden set first.")
        return
    try:
        session.workbench().require_writable("Changing a golden set")
        path = golden.path_for(name, session.home_path())
        item = judgement_for_hit(
            chunk, st.session_state.get(MARK_LEVEL_KEY, SPAN_LEVEL), int(st.session_state.get(MARK_GRADE_KEY, 1))
        )
        query_key = golden_query_key(name, lookup, query_text)
        if mark:
            recorded = golden.mark_relevant(path, query_key, item)
            message = ("success", f"Marked {describe_item(item)} relevant to query {recorded.id} in {path}.")
        elif golden.unmark_relevant(path, query_key, item) is None:
            message = ("warning", f"Golden set {name} has no such query, so there was nothing to unmark.")
        else:
            message = ("success", f"Removed {describe_item(item)} from golden set {name} ({path}).")
    except (GoldenSetError, OSError) as error:  # ReadOnlyError is an OSError: its message says why
        message = ("error", f"Could not change golden set {name}: {error}")
    else:
        # a new set now exists: point the choice at it, so the next mark goes to the same file
        st.session_state[MARK_SET_KEY] = name
    st.session_state[MARK_MESSAGE_KEY] = message


def render_marking(chunk, query_text: str, lookup: GoldenLookup) -> None:
    """Widgets that record the chosen hit as relevant (or not) in a golden set file."""
    if hidden_in_read_only("Marking hits relevant"):
        return
    if chunk is None:
        return
    with st.container(border=True):
        st.markdown(
            "**Mark this hit relevant** to the query, in a golden set (JSONL in the home's "
            "`golden_sets/`, or where an existing set lives)"
        )
        names = golden.available(session.home_path())
        options = names + [NEW_SET]
        session.forget_stale_choice(MARK_SET_KEY, options)
        preferred = lookup.match.set_name if lookup.match else None
        left, middle, right = st.columns([2, 2, 1])
        chosen = left.selectbox(
            "Golden set",
            options,
            key=MARK_SET_KEY,
            index=options.index(preferred) if preferred in options else len(options) - 1,
            help="Its judgements are the ones highlighted while it holds the query.",
        )
        if chosen == NEW_SET:
            left.text_input(
                "New set name",
                key=MARK_NEW_NAME_KEY,
                placeholder="letters, digits, - or _",
                help="Creates <home>/golden_sets/<name>.jsonl on the first mark.",
            )
        middle.radio(
            "Judge",
            MARK_LEVELS,
            key=MARK_LEVEL_KEY,
            index=MARK_LEVELS.index(SPAN_LEVEL),
            horizontal=True,
            format_func=lambda level: {DOCUMENT_LEVEL: "the whole document", SPAN_LEVEL: "this chunk's span"}[level],
            help="A span records the chunk's character range in its document, so it survives "
            "re-chunking; the whole document makes every chunk of it relevant.",
        )
        right.number_input(
            "Grade",
            *GRADE_RANGE,
            value=1,
            step=1,
            key=MARK_GRADE_KEY,
            help="Graded relevance: the gain nDCG gives this judgement.",
        )
        buttons = st.columns([1, 1, 3])
        buttons[0].button(
            "Mark relevant",
            key="lab_mark",
            icon=":material/check:",
            on_click=mark_hit,
            args=(chunk, query_text, lookup, True),
        )
        buttons[1].button(
            "Unmark",
            key="lab_unmark",
            icon=":material/close:",
            on_click=mark_hit,
            args=(chunk, query_text, lookup, False),
            help="Removes the judgement of the chosen kind (document or span) for this hit.",
        )
        name = chosen_set_name()
        if lookup.match is not None and name == lookup.match.set_name:
            recorded = judgements_of_document(lookup.match.query, chunk)
            st.caption(f"What {md_escape(name)} records about this document for the query:")
            st.text("\n".join(describe_item(item) for item in recorded) or "nothing")
        elif name:
            st.caption(f"Golden set {md_escape(name)} does not hold this query yet; marking adds it.")
        message = st.session_state.pop(MARK_MESSAGE_KEY, None)
        if message is not None:
            kind, text = message
            {"success": st.success, "warning": st.warning, "error": st.error}[kind](md_escape(text))
