from pathlib import Path

from workbench.chunking.headings import Heading, HeadingIndex, find_code_blocks, find_headings

FIXTURE = Path(__file__).parent / "data" / "field_guide.md"

GUIDE = "Field Guide to the Workbench"


def test_fixture_headings_are_found_in_order_without_code_comments():
    markdown = FIXTURE.read_text(encoding="utf-8")
    found = [(heading.level, heading.text) for heading in find_headings(markdown)]
    assert found == [
        (1, GUIDE),
        (2, "Install"),
        (3, "Requirements"),
        (2, "Usage"),
        (3, "中文文档"),
        (3, "Advanced Settings"),
        (2, "Troubleshooting"),  # the closing "##" is not part of the text
        (1, "Appendix"),
    ]
    for heading in find_headings(markdown):
        assert markdown.startswith("#" * heading.level + " ", heading.offset)


def test_heading_paths_on_fixture():
    markdown = FIXTURE.read_text(encoding="utf-8")
    index = HeadingIndex(markdown)

    def path_of(snippet: str) -> tuple[str, ...]:
        return index.path_at(markdown.index(snippet))

    assert path_of("The workbench turns a folder") == (GUIDE,)
    assert path_of("## Install") == (GUIDE, "Install")  # a heading line encloses itself
    assert path_of("# not a heading: this is a shell comment") == (GUIDE, "Install")
    assert path_of("# also not a heading") == (GUIDE, "Install")
    assert path_of("| Memory") == (GUIDE, "Install", "Requirements")
    assert path_of("Retrieval mixes two routes") == (GUIDE, "Usage")
    assert path_of("工作台同样支持中文文档") == (GUIDE, "Usage", "中文文档")
    assert path_of("# a tilde fence") == (GUIDE, "Usage", "Advanced Settings")
    assert path_of("Chunk size matters") == (GUIDE, "Usage", "Advanced Settings")
    assert path_of("- Search is slow") == (GUIDE, "Troubleshooting")
    assert path_of("Version 2.1") == ("Appendix",)
    assert index.path_at(len(markdown)) == ("Appendix",)


def test_path_before_first_heading_is_empty():
    index = HeadingIndex("Preamble text.\n\n# Title\n\nBody.")
    assert index.path_at(0) == ()
    assert index.path_at(15) == ()
    assert index.path_at(16) == ("Title",)


def test_sibling_and_skipped_levels_pop_the_stack():
    markdown = "# A\n### A.deep\n## B\ntext\n# C\n"
    index = HeadingIndex(markdown)
    assert index.path_at(markdown.index("### A.deep")) == ("A", "A.deep")
    assert index.path_at(markdown.index("text")) == ("A", "B")
    assert index.path_at(markdown.index("# C")) == ("C",)


def test_lines_that_only_look_like_headings():
    markdown = (
        "#hashtag is not a heading\n"
        "####### seven hashes is not a heading\n"
        "    # indented four spaces is code\n"
        "   ### three spaces is fine ###\n"
        "```\n# inside backticks\n```\n"
        "~~~~\n# inside tildes\n~~~\n# still inside: a shorter fence does not close\n~~~~\n"
        "##\n"
    )
    assert find_headings(markdown) == [
        Heading(level=3, text="three spaces is fine", offset=markdown.index("   ###")),
        Heading(level=2, text="", offset=markdown.rindex("##\n")),
    ]


def test_code_blocks_span_fence_lines_and_unclosed_fence_runs_to_end():
    markdown = "a\n```py\nx = 1\n```\nb\n~~~\nopen"
    opening = markdown.index("```py")
    closing_end = markdown.index("```\nb") + 3
    assert find_code_blocks(markdown) == [(opening, closing_end), (markdown.index("~~~"), len(markdown))]
    assert find_headings("```\n# never closed\n") == []


def test_heading_offsets_between_is_strict_and_filters_level():
    markdown = "# A\n## B\n## C\n# D\n"
    index = HeadingIndex(markdown)
    b, c, d = markdown.index("## B"), markdown.index("## C"), markdown.index("# D")
    assert index.heading_offsets_between(0, len(markdown)) == [b, c, d]
    assert index.heading_offsets_between(0, len(markdown), level=2) == [b, c]
    assert index.heading_offsets_between(b, d) == [c]
