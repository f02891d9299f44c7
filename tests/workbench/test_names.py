"""Names shown as text: invisible and direction-changing characters are written as escapes."""

from __future__ import annotations

import pytest

from workbench.names import shown_name


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("report\u202etxt.md", "report\\u202etxt.md"),  # right-to-left override: would display "reportdm.txt"
        ("a\u200bb.pdf", "a\\u200bb.pdf"),  # zero-width space
        ("two\nlines.txt", "two\\nlines.txt"),
        ("tab\there\r.md", "tab\\there\\r.md"),
        ("\u2066isolate\u2069.md", "\\u2066isolate\\u2069.md"),
        ("\ufeffbom.md", "\\ufeffbom.md"),
        ("bell\x07.md", "bell\\u0007.md"),
    ],
)
def test_hidden_characters_are_escaped(name, shown):
    assert shown_name(name) == shown


@pytest.mark.parametrize("name", ["guide.md", "混合检索 说明.pdf", "Café — notes (v2).docx", "résumé.txt", ""])
def test_ordinary_names_including_chinese_and_spaces_are_unchanged(name):
    assert shown_name(name) == name


def test_none_is_empty():
    assert shown_name(None) == ""
