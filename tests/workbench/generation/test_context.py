from __future__ import annotations

import pytest

from workbench.generation.context import (
    MIN_PARTIAL_CHARS,
    TRUNCATION_MARK,
    assemble_context,
    build_prompt,
    check_citations,
    cited_labels,
    source_header,
)
from workbench.retrieval.trace import ChunkView


def _chunk(chunk_id: int, text: str, source="guide.md", heading=("Install", "Linux"), page=None) -> ChunkView:
    return ChunkView(chunk_id, 1, source, None, "md", "Guide", heading, page, 0, len(text), text)


def test_source_header_names_source_heading_path_and_page():
    assert source_header("S1", _chunk(1, "x", page=3)) == "[S1] guide.md › Install › Linux (p. 3)"
    assert source_header("S2", _chunk(2, "x", heading=())) == "[S2] guide.md"


def test_whole_chunks_are_numbered_in_rank_order():
    context = assemble_context([_chunk(7, "alpha"), _chunk(9, "beta", source="faq.md", heading=())])
    assert [s.label for s in context.sources] == ["S1", "S2"]
    assert [s.chunk_id for s in context.sources] == [7, 9]
    assert context.text == "[S1] guide.md › Install › Linux\nalpha\n\n[S2] faq.md\nbeta"
    assert context.omitted == ()


def test_budget_is_respected_exactly():
    first, second = _chunk(1, "a" * 100), _chunk(2, "b" * 100)
    one = len("[S1] guide.md › Install › Linux\n") + 100
    two = one + 2 + len("[S2] guide.md › Install › Linux\n") + 100
    assert len(assemble_context([first, second], budget_chars=two).text) == two
    tight = assemble_context([first, second], budget_chars=two - 1)
    # the second does not fit and too little room is left to cut it usefully
    assert [s.chunk_id for s in tight.sources] == [1]
    assert tight.omitted == (2,)
    assert len(tight.text) == one


def test_the_next_chunk_is_cut_when_enough_room_is_left():
    header = len("[S2] guide.md › Install › Linux\n")
    first, second, third = _chunk(1, "a" * 100), _chunk(2, "b" * 1000), _chunk(3, "c" * 10)
    one = len("[S1] guide.md › Install › Linux\n") + 100
    budget = one + 2 + header + MIN_PARTIAL_CHARS + len(TRUNCATION_MARK)
    context = assemble_context([first, second, third], budget_chars=budget)
    cut = context.sources[1]
    assert cut.truncated and cut.text == "b" * MIN_PARTIAL_CHARS + TRUNCATION_MARK
    assert context.omitted == (3,)
    assert len(context.text) == budget


def test_the_best_chunk_is_always_kept_even_if_cut():
    context = assemble_context([_chunk(1, "z" * 500)], budget_chars=60)
    assert len(context.sources) == 1 and context.sources[0].truncated
    assert len(context.text) <= 60


def test_budget_must_be_positive():
    with pytest.raises(ValueError, match="budget"):
        assemble_context([], budget_chars=0)


def test_prompt_asks_for_answers_from_the_sources_with_citations():
    context = assemble_context([_chunk(1, "Install with apt-get.")])
    prompt = build_prompt("  how to install? ", context)
    assert "only the numbered sources" in prompt.system
    assert "[S1]" in prompt.system
    assert prompt.user == (
        'Sources:\n\n<document name="S1">\n[S1] guide.md › Install › Linux\nInstall with apt-get.\n</document>\n\n'
        "Question: how to install?\n\nAnswer using only the sources above, citing them as [S1], [S2], ..."
    )
    assert prompt.messages() == [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}]
    assert "(no sources were retrieved)" in build_prompt("q", assemble_context([])).user
    with pytest.raises(ValueError, match="question is empty"):
        build_prompt(" ", context)


def test_citations_are_checked_against_the_context():
    context = assemble_context([_chunk(1, "a"), _chunk(2, "b")])
    answer = "Use apt [S2]. Also [S1][S2] and [S5]."
    assert cited_labels(answer) == ["S2", "S1", "S5"]
    cited, unknown = check_citations(answer, context)
    assert [s.chunk_id for s in cited] == [2, 1]
    assert unknown == ["S5"]


def test_a_two_section_chunk_across_a_page_break_is_cited_where_its_match_lies():
    from tests.workbench.generation.test_citing import PAGES, REPORT, chunk_of, terms
    from workbench.analysis.tables import context_rows
    from workbench.generation.citing import matched_place

    # starts with section 6's table rows on page 6, goes on into section 7 on page 7
    view = chunk_of(REPORT, REPORT.index("| small"), len(REPORT), PAGES)
    place = matched_place(view, terms("How are images processed in the vision pipeline?"), REPORT, PAGES)

    context = assemble_context([view], places={view.chunk_id: place})

    source = context.sources[0]
    assert source.header == "[S1] report.pdf › Technical Report › 7. Visual Components Analysis (p. 7)"
    assert (source.heading_path, source.page) == (("Technical Report", "7. Visual Components Analysis"), 7)
    assert source.text == view.text  # the whole chunk is still given: only where it is cited moves
    row = context_rows(context, {view.chunk_id: view})[0]
    assert (row["heading"], row["page"]) == ("Technical Report › 7. Visual Components Analysis", 7)
    # without a matched place (a dense-only hit, or no place computed) it is cited where it starts
    plain = assemble_context([view]).sources[0]
    assert plain.header == "[S1] report.pdf › Technical Report › 6. Performance Benchmarks (p. 6)"
    assert (plain.heading_path, plain.page) == (("Technical Report", "6. Performance Benchmarks"), 6)
