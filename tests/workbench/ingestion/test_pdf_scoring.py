"""The PDF scorer's measures on small hand-made texts, with the counts worked out by hand."""

from __future__ import annotations

from tests.workbench.ingestion.pdf_scoring import Counts, Scores, count, ngrams, plain_text, squeezed

TRUTH = """# Title

First paragraph of the text.

## 1. Section

检索增强生成 RAG 把检索和生成结合在一起。

| Name | Qty |
| --- | --- |
| Apple | 3 |

1. One item
- A bullet
"""


def test_a_faithful_extraction_keeps_everything():
    counts = count(TRUTH, TRUTH)
    scores = Scores.of(counts)
    assert (counts.paragraphs, counts.headings_truth, counts.cells_truth, counts.items_truth) == (2, 2, 4, 2)
    assert scores == Scores(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, None)


def test_a_paragraph_broken_in_two_is_not_whole_and_a_lost_heading_is_counted():
    written = """# Title

First paragraph

of the text.

1. Section

检索增强生成RAG把检索和生成结合在一起。

| Name | Qty |
| --- | --- |
| Apple | 3 |
| 2. Section | the end |

1) One item

A bullet
"""
    counts = count(written, TRUTH)
    # the Chinese paragraph is whole (spaces next to CJK are not compared); the English one is cut
    assert (counts.paragraphs, counts.paragraphs_whole) == (2, 1)
    # the numbered heading became an item: 1 of 2 headings found, and the 1 written is right
    assert (counts.headings_truth, counts.headings_written, counts.headings_found) == (2, 1, 1)
    # two cells of prose in the table: 4 of 6 written cells are the truth's
    assert (counts.cells_truth, counts.cells_written, counts.cells_found) == (4, 6, 4)
    # "1)" is numbered like "1."; the bullet lost its marker
    assert (counts.items_truth, counts.items_kept) == (2, 1)
    scores = Scores.of(counts)
    assert scores.paragraphs_whole == 0.5 and scores.cell_precision == 4 / 6 and scores.items_kept == 0.5


def test_text_recall_counts_character_trigrams():
    assert plain_text("# 检索 RAG\n\n| a | b |\n| --- | --- |\n- item  two") == "检索RAG a b item two"
    assert ngrams("abcab") == {"abc": 1, "bca": 1, "cab": 1}
    counts = count("abcd", "abcdef")  # 2 of the truth's 4 trigrams
    assert (counts.ngrams_truth, counts.ngrams_found) == (4, 2)


def test_image_text_counts_only_what_the_page_text_does_not_explain():
    truth = "Figure 1: notes\n"
    without_ocr = count(truth, truth, image_text="Figure notes")
    assert without_ocr.image_ngrams == len(squeezed("Figure notes")) - 2 and without_ocr.image_ngrams_found == 0
    with_ocr = count(truth + "\nFigure notes\n", truth, image_text="Figure notes")
    assert with_ocr.image_ngrams_found == with_ocr.image_ngrams


def test_counts_add_up_over_documents_before_dividing():
    total = Counts(paragraphs=3, paragraphs_whole=3) + Counts(paragraphs=1, paragraphs_whole=0)
    assert Scores.of(total).paragraphs_whole == 0.75
    assert Scores.of(Counts()).heading_recall is None and Scores.of(Counts(headings_written=2)).heading_precision == 0
