"""Sections, chunk overlap and excerpts computed from a document's Markdown."""

from __future__ import annotations

from workbench.mcp_server.outline import (
    PREAMBLE_TITLE,
    ChunkSpan,
    SectionSpan,
    chunk_ids_overlapping,
    excerpt,
    sections_of,
)

DOC = "Lead text.\n# Guide\nIntro.\n## Install\n```sh\n# not a heading\n```\n## Use\nRun it.\n"
# "Lead text.\n" is 11 characters, so "# Guide" starts at 11; "# Guide\nIntro.\n" is 15 more (26);
# "## Install\n```sh\n# not a heading\n```\n" is 11 + 6 + 16 + 4 = 37 more (63); the text ends at 78.


def test_sections_run_from_each_heading_to_the_next_and_keep_a_preamble():
    assert DOC.index("# Guide") == 11 and DOC.index("## Install") == 26 and DOC.index("## Use") == 63 and len(DOC) == 78
    assert sections_of(DOC) == [
        SectionSpan(0, PREAMBLE_TITLE, (), 0, 11),
        SectionSpan(1, "Guide", ("Guide",), 11, 26),
        SectionSpan(2, "Install", ("Guide", "Install"), 26, 63),
        SectionSpan(2, "Use", ("Guide", "Use"), 63, 78),
    ]


def test_no_preamble_when_the_document_opens_with_a_heading_and_none_for_empty_text():
    assert [s.title for s in sections_of("# Only\ntext")] == ["Only"]
    assert sections_of("") == []
    assert sections_of("just text") == [SectionSpan(0, PREAMBLE_TITLE, (), 0, 9)]


def test_a_chunk_crossing_a_heading_belongs_to_both_sections():
    install = SectionSpan(2, "Install", ("Guide", "Install"), 26, 63)
    chunks = [ChunkSpan(1, 0, 26), ChunkSpan(2, 20, 40), ChunkSpan(3, 40, 63), ChunkSpan(4, 63, 78)]
    # chunk 1 ends exactly where the section starts and chunk 4 starts where it ends: no overlap
    assert chunk_ids_overlapping(install, chunks) == [2, 3]


def test_excerpt_cuts_at_a_word_boundary_near_the_limit():
    text = "word " * 30  # 150 characters
    assert excerpt("  short text \n") == "short text"
    cut = excerpt(text, limit=52)
    assert cut == ("word " * 10).rstrip() + "…"  # the last space before 52 is at 49 (>= 0.8 * 52)
    assert excerpt("x" * 60, limit=50) == "x" * 50 + "…"  # no space to cut at
