"""Right-to-left text in reading order (``parsers.pdf.bidi``), and on real pages of the held-out set.

The pages are Chromium's prints of Arabic and Hebrew (``bench/pdf_heldout``): Chromium maps Arabic
glyphs to presentation forms and draws every line left to right, so pdfplumber alone reads
"تﻼﻜﺸﻤﻟا ﻞﺣو" for "وحل المشكلات".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.ingestion.parsers.pdf.bidi import logical_order, rtl_share
from workbench.ingestion.parsers.pdf.layout import read_pages

HELDOUT = Path(__file__).resolve().parents[5] / "bench" / "pdf_heldout"


@pytest.mark.parametrize(
    ("visual", "logical"),
    [
        ("םולש", "שלום"),  # a Hebrew word, drawn right to left
        ("תולעמ 70", "70 מעלות"),  # a number keeps its own order inside a right-to-left line
        ("ת 1,284 א", "א 1,284 ת"),  # its comma too: a neutral between two digits
        ("(םולש)", "(שלום)"),  # brackets are mirrored back
        ("see םולש here", "see שלום here"),  # a Hebrew word in an English line: only it turns
        ("ﻞﺣو", "وحل"),  # Arabic presentation forms become letters, after the reordering
        ("تﻼﻜﺸﻤﻟا", "المشكلات"),  # a lam-alef ligature's letters in their own order
        ("plain English", "plain English"),
        ("中文 text", "中文 text"),
    ],
)
def test_logical_order(visual: str, logical: str) -> None:
    assert logical_order(visual) == logical


def test_rtl_share_counts_letters_not_digits() -> None:
    assert rtl_share("שלום 2025") == 1.0
    assert rtl_share("ab שלום") == pytest.approx(4 / 6)
    assert rtl_share("2025") == 0.0


def test_hebrew_page_reads_in_order_with_its_table_right_to_left() -> None:
    markdown = read_pages((HELDOUT / "he-dishwasher.pdf").read_bytes()).markdown[0]
    assert "# הוראות הפעלה למדיח הכלים" in markdown
    assert "| תוכנית | טמפרטורה | משך |" in markdown  # the first column is the rightmost
    assert "| אינטנסיבית | 70 מעלות | שעתיים |" in markdown


def test_right_to_left_paragraphs_are_kept_whole() -> None:
    # right-aligned lines: a line ends its paragraph when the next line's first (rightmost) word
    # would have fit at its left
    markdown = read_pages((HELDOUT / "he-dishwasher.pdf").read_bytes()).markdown[0]
    assert "כשפיהן כלפי מטה. אין להכניס למדיח" in markdown
    persian = read_pages((HELDOUT / "fa-library.pdf").read_bytes()).markdown[0]
    paragraphs = persian.split("\n\n")
    assert len(paragraphs) == 8  # a heading and a paragraph, four times
    assert "کتابخانهٔ دانشکده" in persian  # the hamza above stays on its letter


def test_arabic_page_reads_in_order() -> None:
    markdown = read_pages((HELDOUT / "ar-guide.pdf").read_bytes()).markdown[0]
    assert "# تحسين الإنتاجية وحل المشكلات" in markdown
    assert "## الخطوة الأولى: جمع البيانات" in markdown
    assert "| اجتماعات طويلة | 12 | جدول أعمال مكتوب |" in markdown
