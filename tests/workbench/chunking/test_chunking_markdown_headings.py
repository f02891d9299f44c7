from pathlib import Path

from workbench.chunking.markdown_headings import MarkdownHeadingsConfig, split

FIXTURE = Path(__file__).parent / "data" / "field_guide.md"
GUIDE = "Field Guide to the Workbench"


def test_one_chunk_per_section_with_heading_line_and_path():
    markdown = FIXTURE.read_text(encoding="utf-8")
    chunks = split(markdown, MarkdownHeadingsConfig(size=5000, overlap=0))
    assert [(c.text.splitlines()[0], c.heading_path) for c in chunks] == [
        ("# Field Guide to the Workbench", (GUIDE,)),
        ("## Install", (GUIDE, "Install")),
        ("### Requirements", (GUIDE, "Install", "Requirements")),
        ("## Usage", (GUIDE, "Usage")),
        ("### 中文文档", (GUIDE, "Usage", "中文文档")),
        ("### Advanced Settings", (GUIDE, "Usage", "Advanced Settings")),
        ("## Troubleshooting ##", (GUIDE, "Troubleshooting")),
        ("# Appendix", ("Appendix",)),
    ]
    install = chunks[1].text
    assert "# not a heading: this is a shell comment" in install and "# also not a heading" in install
    assert install.endswith("```")


def test_preamble_before_first_heading_is_its_own_chunk():
    markdown = "Front matter words.\n\n# One\nBody one.\n## Two\nBody two.\n"
    chunks = split(markdown, MarkdownHeadingsConfig(size=100, overlap=0))
    assert [(c.text, c.heading_path) for c in chunks] == [
        ("Front matter words.", ()),
        ("# One\nBody one.", ("One",)),
        ("## Two\nBody two.", ("One", "Two")),
    ]


def test_long_sections_are_split_within_the_section():
    markdown = FIXTURE.read_text(encoding="utf-8")
    chunks = split(markdown, MarkdownHeadingsConfig(size=200, overlap=40))
    usage_start, usage_end = markdown.index("## Usage"), markdown.index("### 中文文档")
    usage_chunks = [c for c in chunks if usage_start <= c.start < usage_end]
    assert len(usage_chunks) > 3
    assert all(c.end <= usage_end for c in usage_chunks)  # never spills into the next section
    assert all(c.heading_path == (GUIDE, "Usage") for c in usage_chunks)
    assert all(len(c.text) <= 200 for c in chunks)


def test_heading_without_text_of_its_own_opens_the_next_section():
    markdown = "# Title\n\n## Intro\n\nBody one.\n\n## Next\n\nBody two.\n"
    chunks = split(markdown, MarkdownHeadingsConfig(size=100, overlap=0))
    assert [(c.text, c.heading_path) for c in chunks] == [
        ("# Title\n\n## Intro\n\nBody one.", ("Title",)),
        ("## Next\n\nBody two.", ("Title", "Next")),
    ]


def test_section_heading_joins_the_start_of_its_long_paragraph():
    # "# Title" 0..7, then a paragraph of twenty 89-character sentences (9 + 90i .. 98 + 90i).
    sentence = "Finding {:02d} says the measured effect held in every cohort that was followed up for a year."
    markdown = "Front matter.\n\n# Title\n\n" + " ".join(sentence.format(i) for i in range(20)) + "\n"
    chunks = split(markdown, MarkdownHeadingsConfig(size=1000, overlap=100))
    offset = len("Front matter.\n\n")
    assert [(c.start - offset, c.end - offset) for c in chunks[1:]] == [(0, 908), (819, 1808)]
    assert chunks[0].text == "Front matter."
    assert chunks[1].text.startswith("# Title\n\nFinding 00")
