"""Chunk boundaries as coloured bands: the segmentation, and HTML that only ever shows text."""

from __future__ import annotations

import re

from workbench.ui.chunk_bands import PALETTE, Segment, band_segments, bands_html


def test_segments_split_at_every_boundary_and_record_overlaps():
    assert band_segments(10, [(0, 6), (4, 10)]) == [Segment(0, 4, (0,)), Segment(4, 6, (0, 1)), Segment(6, 10, (1,))]


def test_gaps_and_touching_chunks():
    assert band_segments(12, [(2, 5), (5, 9)]) == [
        Segment(0, 2, ()),
        Segment(2, 5, (0,)),
        Segment(5, 9, (1,)),
        Segment(9, 12, ()),
    ]


def test_spans_are_clipped_and_empty_ones_cover_nothing():
    assert band_segments(5, [(3, 3), (-2, 9)]) == [Segment(0, 3, (1,)), Segment(3, 5, (1,))]
    assert band_segments(0, []) == []


def test_html_escapes_document_text_and_marks_chunk_starts():
    markdown = "<b>bold</b> & <script>x()</script>"
    html = bands_html(markdown, [(0, 12), (8, len(markdown))])
    assert "<script" not in html and "<b>" not in html
    # with the numbered start markers and the tags removed, what is left is the escaped document
    without_markers = re.sub(r'<span[^>]*starts here">\d+</span>', "", html)
    assert re.sub(r"<[^>]+>", "", without_markers) == "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;x()&lt;/script&gt;"
    assert html.count('title="chunk 1 starts here"') == 1 and html.count('title="chunk 2 starts here"') == 1
    # the overlap is striped in both chunks' colours
    assert f"repeating-linear-gradient(135deg,{PALETTE[0]} 0 6px,{PALETTE[1]} 6px 12px)" in html
    assert 'title="chunk 1 + chunk 2 (overlap)"' in html


def test_text_outside_every_chunk_is_grey():
    html = bands_html("ab", [(1, 2)])
    assert '<span style="color:#9aa0a6;" title="not in any chunk">a</span>' in html
