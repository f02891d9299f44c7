"""Markdown escaping for user text in Streamlit labels, captions and alerts."""

from __future__ import annotations

import re

from workbench.ui.text import md_escape, shorten


def test_every_markdown_special_is_backslash_escaped():
    assert md_escape("__init__.py") == "\\_\\_init\\_\\_\\.py"
    assert md_escape("[draft](http://x).md") == "\\[draft\\]\\(http\\:\\/\\/x\\)\\.md".replace("\\/", "/")
    assert md_escape("<b>$5 :red[x]</b>") == "\\<b\\>\\$5 \\:red\\[x\\]\\</b\\>"


def test_removing_the_escapes_gives_the_text_back_on_one_line():
    text = "a *b* `c`\n#d | e ~f~ & g!"
    assert re.sub(r"\\(.)", r"\1", md_escape(text)) == "a *b* `c` #d | e ~f~ & g!"


def test_shorten():
    assert shorten("  a   b  ") == "a b"
    assert shorten("abcdefghij", 5) == "abcd…"
