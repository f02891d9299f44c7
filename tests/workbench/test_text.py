"""Names shown as text: invisible and direction-changing characters are written as escapes."""

from __future__ import annotations

import pytest

from workbench.text import count, error_message, first_line, shown_name


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


def test_first_line_keeps_the_cause_and_drops_the_advice():
    error = ValueError("bad value\n\nHere is a paragraph of advice\nover several lines")
    assert first_line(error) == "bad value"
    assert first_line(error, with_type=True) == "ValueError: bad value"


def test_first_line_of_an_error_without_a_message_is_its_type():
    assert first_line(TimeoutError()) == "TimeoutError"
    assert first_line(TimeoutError(), with_type=True) == "TimeoutError"


def test_count_says_one_and_many():
    assert count(1, "file") == "1 file"
    assert count(2, "file") == "2 files"
    assert count(1_234, "query", "queries") == "1,234 queries"


def test_error_message_is_the_message_as_written():
    assert error_message(KeyError("pool 'p' not found; known: q")) == "pool 'p' not found; known: q"
    assert str(KeyError("x")) == "'x'"  # what it mends
    assert error_message(ValueError("bad value")) == "bad value"
    assert error_message(LookupError()) == ""  # no argument: str() of it


def test_numbers_carry_a_true_minus_and_negative_operands_their_parentheses():
    from workbench.text import number, operand

    assert number(-0.08291) == "−0.0829" and number(0.5422) == "0.5422"
    assert number(-0.00001) == "0.0000"  # rounds to zero: no sign
    assert f"(0.5422 − {operand(-0.08291)})" == "(0.5422 − (−0.0829))"  # was "(0.5422 − -0.0829)"
    assert operand(0.0829) == "0.0829" and operand(-1 / 3, 6) == "(−0.333333)"
