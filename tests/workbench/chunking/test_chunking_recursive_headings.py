"""The recursive splitter keeps headings with the text they introduce.

Each small case is one a rule decides: without that rule the expected chunks differ (most often a
chunk ends on a heading). Offsets are counted by hand in the comments.
"""

import os
from pathlib import Path

import pytest

from workbench.chunking import chunk_markdown
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.recursive import RecursiveConfig, split
from workbench.chunking.tokens import HuggingFaceTokenSpans, TokenMeasure
from workbench.config import ChunkingConfig

os.environ.setdefault("HF_HUB_OFFLINE", "1")
FIXTURE = Path(__file__).parent / "data" / "field_guide.md"


def texts(markdown: str, size: int, overlap: int = 0) -> list[str]:
    return [chunk.text for chunk in split(markdown, RecursiveConfig(size=size, overlap=overlap))]


def sentence(number: int) -> str:
    """An 89-character sentence, so a paragraph of them has hand-countable offsets."""
    text = f"Finding {number:02d} says the measured effect held in every cohort that was followed up for a year."
    assert len(text) == 89
    return text


# "# Title" is 0..7, the paragraph starts at 9; sentence i spans 9 + 90i .. 98 + 90i; 1808 in all.
TITLE_AND_LONG_PARAGRAPH = "# Title\n\n" + " ".join(sentence(i) for i in range(20)) + "\n"


def test_heading_opens_the_first_chunk_of_a_long_paragraph_with_default_settings():
    chunks = chunk_markdown(TITLE_AND_LONG_PARAGRAPH, ChunkingConfig())  # recursive, 1000 chars, overlap 100
    # Two chunks either way; the even split gives the first sentences 0-9 (ending at 98 + 810),
    # the second repeats sentence 9 as overlap (819..908) and runs to the end.
    assert [(c.start, c.end) for c in chunks] == [(0, 908), (819, 1808)]
    assert chunks[0].text.startswith("# Title\n\nFinding 00")
    for chunk in chunks:
        assert TITLE_AND_LONG_PARAGRAPH[chunk.start : chunk.end] == chunk.text
        assert chunk.heading_path == ("Title",)


def test_heading_and_short_paragraph_stay_one_chunk():
    assert texts("# Title\n\nA short paragraph.", size=40) == ["# Title\n\nA short paragraph."]


def test_heading_carried_into_an_oversized_paragraph():
    # "# T" 0..3; sentences at 5..15, 16..26, 27..37, 38..48. The paragraph (43) is over 30, so
    # it is split; the heading joins its first sentences instead of standing alone.
    markdown = "# T\n\nAaaa aaaa. Bbbb bbbb. Cccc cccc. Dddd dddd."
    assert texts(markdown, size=30) == ["# T\n\nAaaa aaaa. Bbbb bbbb.", "Cccc cccc. Dddd dddd."]


def test_paragraph_that_fits_only_without_its_heading_is_split_to_join_it():
    # The paragraph (27) fits in 30, heading plus paragraph (38) does not.
    markdown = "# Heading\n\nAaaa aaaa. Bbbb bbbb. Cccc."
    assert texts(markdown, size=30) == ["# Heading\n\nAaaa aaaa.", "Bbbb bbbb. Cccc."]
    # A heading taking more than half of `size` (23 of 30) is left alone rather than cut the text
    # into slivers.
    assert texts("# A heading of nineteen\n\nAaaa aaaa.", size=30) == ["# A heading of nineteen", "Aaaa aaaa."]


def test_consecutive_headings_open_the_first_chunk_together():
    markdown = "# Title\n\n## Intro\n\nAaaa aaaa. Bbbb bbbb. Cccc cccc. Dddd dddd."
    chunks = split(markdown, RecursiveConfig(size=40, overlap=0))
    assert [(c.text, c.heading_path) for c in chunks] == [
        ("# Title\n\n## Intro\n\nAaaa aaaa.", ("Title",)),
        ("Bbbb bbbb. Cccc cccc. Dddd dddd.", ("Title", "Intro")),
    ]


def test_closing_a_chunk_moves_its_trailing_heading_to_the_next():
    # "Cats purr." + "# Pets" fill 18 exactly; rather than end on the heading, the chunk closes
    # before it and the heading opens the next one with the first word it has room for.
    markdown = "Cats purr.\n\n# Pets\n\nDogs bark loudly."
    assert texts(markdown, size=18) == ["Cats purr.", "# Pets\n\nDogs", "bark loudly."]


def test_empty_subsection_heading_goes_with_the_next_section():
    # "## Dogs" ends the first level-1 piece; it is detached and joins "# Pets" and its text.
    markdown = "Dogs bark loudly.\n\n## Dogs\n\n# Pets\n\nCats purr."
    assert texts(markdown, size=30) == ["Dogs bark loudly.", "## Dogs\n\n# Pets\n\nCats purr."]


def test_heading_run_moves_as_one_piece():
    markdown = "Birds sing at dawn.\n\n### Care\n\n## Cats\n\nDogs bark loudly."
    assert texts(markdown, size=35) == ["Birds sing at dawn.", "### Care\n\n## Cats\n\nDogs", "bark loudly."]


def test_even_chunk_lengths_give_way_to_a_heading():
    # Even halves of 18 would be 9 and 9, i.e. "# Pets" alone; the heading keeps its first word.
    assert texts("# Pets\n\nCats purr.", size=16) == ["# Pets\n\nCats", "purr."]


def test_overlap_gives_way_to_a_heading():
    # An 8-character overlap "purr." would leave a chunk of overlap plus "## Dogs" only.
    markdown = "Cats purr.\n\n## Dogs\n\nDogs bark loudly."
    assert texts(markdown, size=15, overlap=8) == ["Cats purr.", "## Dogs\n\nDogs", "Dogs bark", "bark loudly."]


def test_a_run_of_headings_without_text_packs_normally():
    # A table of contents: no heading pulls the others forward, so chunks do not shrink to one each.
    markdown = "# A\n\n# B\n\n# C\n\n# D\n\n# E\n\n# F"
    assert texts(markdown, size=12) == ["# A\n\n# B", "# C\n\n# D", "# E\n\n# F"]


def test_heading_joins_its_text_when_counting_tokens():
    tokens = HuggingFaceTokenSpans("all-MiniLM-L6-v2")
    chunks = split(TITLE_AND_LONG_PARAGRAPH, RecursiveConfig(size=64, overlap=8, unit="tokens"), tokens=tokens)
    measure = TokenMeasure(tokens.spans(TITLE_AND_LONG_PARAGRAPH))
    assert chunks[0].start == 0 and chunks[0].text.startswith("# Title\n\nFinding 00")
    assert all(measure.length(c.start, c.end) <= 64 for c in chunks)
    assert all("\n" in c.text or not c.text.startswith("#") for c in chunks)  # no heading-only chunk


@pytest.mark.parametrize("size", [120, 400])
def test_no_chunk_of_the_fixture_ends_on_a_heading_line(size):
    markdown = FIXTURE.read_text(encoding="utf-8")
    heading_line_ends = {markdown.index("\n", heading.offset) for heading in HeadingIndex(markdown).headings}
    chunks = split(markdown, RecursiveConfig(size=size, overlap=20))
    assert len(heading_line_ends) == 8  # the fixture's headings, not the "# ..." lines in its code blocks
    assert [chunk.text for chunk in chunks[:-1] if chunk.end in heading_line_ends] == []
