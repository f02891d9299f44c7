import re
from pathlib import Path

import pytest

from workbench.chunking.sentences import sentence_spans

FIXTURE = Path(__file__).parent / "data" / "field_guide.md"


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def test_english_abbreviations_initials_and_decimals_do_not_end_sentences():
    text = (
        "Dr. Smith arrived at 9 a.m. on Monday. He used e.g. a pipette, as Li et al. showed "
        "with 1.5 mg. J. Doe disagreed! Why? Nobody knows."
    )
    assert sentences(text) == [
        "Dr. Smith arrived at 9 a.m. on Monday.",
        "He used e.g. a pipette, as Li et al. showed with 1.5 mg.",
        "J. Doe disagreed!",
        "Why?",
        "Nobody knows.",
    ]


def test_closing_quotes_and_brackets_stay_with_their_sentence():
    assert sentences('She said "stop." Then (after a pause.) He left.') == [
        'She said "stop."',
        "Then (after a pause.)",
        "He left.",
    ]


def test_lowercase_continuation_does_not_end_a_sentence():
    assert sentences("Sizes vary, cf. Table 2. see above. But not here.") == [
        "Sizes vary, cf. Table 2. see above.",
        "But not here.",
    ]


def test_chinese_sentences_need_no_space():
    assert sentences("今天天气很好。我们去公园吧！你来吗？好的") == [
        "今天天气很好。",
        "我们去公园吧！",
        "你来吗？",
        "好的",
    ]
    assert sentences("他说：“走吧。”然后离开了。") == ["他说：“走吧。”", "然后离开了。"]


def test_mixed_chinese_and_english():
    assert sentences("这是第一句。This is English. 这是第三句！") == [
        "这是第一句。",
        "This is English.",
        "这是第三句！",
    ]


def test_paragraph_breaks_end_sentences_but_wrapped_lines_do_not():
    text = "A title without a stop\n\nA sentence that\nwraps over lines. Another one\n\n\nLast"
    assert sentences(text) == ["A title without a stop", "A sentence that\nwraps over lines.", "Another one", "Last"]


def test_markdown_blocks_headings_lists_tables_and_code():
    text = (
        "# Title\nIntro text.\n"
        "1. First step\n2. Second step. Then more.\n"
        "| a | b. C |\n|---|---|\n"
        "```\nx = a.b. Not split\n\ny = 2\n```\n"
        "> Quote one. Quote two\n> continues."
    )
    assert sentences(text) == [
        "# Title",
        "Intro text.",
        "1. First step",
        "2. Second step.",
        "Then more.",
        "| a | b. C |\n|---|---|",
        "```\nx = a.b. Not split",
        "y = 2\n```",
        "> Quote one.",
        "Quote two\n> continues.",
    ]


def test_blank_text_has_no_sentences():
    assert sentence_spans("") == []
    assert sentence_spans(" \n\t\n ") == []


@pytest.mark.parametrize("text_name", ["fixture", "inline"])
def test_spans_tile_the_non_whitespace_text(text_name):
    text = FIXTURE.read_text(encoding="utf-8") if text_name == "fixture" else "  One. Two!  三。\n\n四？ five "
    spans = sentence_spans(text)
    assert spans, "expected at least one sentence"
    previous_end = 0
    for start, end in spans:
        assert previous_end <= start < end
        assert not text[previous_end:start].strip(), "a gap between sentences holds visible text"
        assert not text[start].isspace() and not text[end - 1].isspace()
        previous_end = end
    assert not text[previous_end:].strip()
    visible = re.sub(r"\s", "", text)
    assert re.sub(r"\s", "", "".join(text[s:e] for s, e in spans)) == visible
