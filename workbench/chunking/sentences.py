"""Sentence spans for English and Chinese Markdown.

A sentence ends at 。！？ (Chinese needs no space after them), at . ! ? followed by whitespace,
and at every block boundary: blank lines, headings, list items, table edges, block quotes and
code fences. Fenced code is split at blank lines only, since punctuation in code is not prose.
A full stop does not end a sentence after a common abbreviation ("e.g.", "et al."), an initial
("J. Smith"), a list number at the start of a line ("1. "), or before a lowercase word.

Spans tile the non-whitespace text: every non-space character is in exactly one span, and spans
start and end on non-space characters.
"""

from __future__ import annotations

import re

from workbench.chunking.headings import find_code_blocks

# Closing quotes and brackets that belong to the sentence they follow.
_CLOSERS = re.escape("\"'”’」』）》)]")
_CJK_END = re.compile(rf"[。！？]+[{_CLOSERS}]*")
_LATIN_END = re.compile(rf"[.!?]+[{_CLOSERS}]*(?=\s)")
_VISIBLE = re.compile(r"\S")

ABBREVIATIONS = frozenset(
    """
    e.g. i.e. al. cf. vs. approx. ca. resp. viz. fig. figs. eq. eqs. ref. refs. tab. vol.
    no. nos. pp. p. ch. sec. dr. mr. mrs. ms. prof. st. jr. sr. inc. ltd. co. corp. dept.
    jan. feb. mar. apr. jun. jul. aug. sep. sept. oct. nov. dec.
    """.split()
)
_DOTTED_ABBREVIATION = re.compile(r"(?:[a-z]\.){2,}")  # u.s., e.g., a.m.
_INITIAL = re.compile(r"[A-Z]\.")

_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_HEADING_LINE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_LIST_ITEM_LINE = re.compile(r" *(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE_LINE = re.compile(r" {0,3}>")
_TABLE_LINE = re.compile(r" {0,3}\|")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of each sentence of ``text``, in order."""
    spans: list[tuple[int, int]] = []
    position = 0
    for code_start, code_end in find_code_blocks(text):
        spans.extend(_prose_sentences(text, position, code_start))
        spans.extend(_trimmed_pieces(text, code_start, code_end, _blank_line_cuts(text, code_start, code_end)))
        position = code_end
    spans.extend(_prose_sentences(text, position, len(text)))
    return spans


def _prose_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for block_start, block_end, splits_on_punctuation in _prose_blocks(text, start, end):
        cuts = _punctuation_cuts(text, block_start, block_end) if splits_on_punctuation else []
        spans.extend(_trimmed_pieces(text, block_start, block_end, cuts))
    return spans


def _prose_blocks(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """Markdown blocks of a code-free region as ``(start, end, splits_on_punctuation)``.

    Headings are blocks of their own; consecutive table rows form one block (a table is read as a
    unit); list items start a new block; quote lines continue a quote; plain lines continue
    whatever block they follow, as wrapped paragraph lines do.
    """
    blocks: list[tuple[int, int, bool]] = []
    block_start, block_kind = start, None
    line_start = start
    while line_start < end:
        newline = text.find("\n", line_start, end)
        line_end = end if newline < 0 else newline
        kind = _line_kind(text, line_start, line_end)
        if kind == "blank" or _starts_block(kind, block_kind):
            if block_kind is not None:
                blocks.append((block_start, line_start, block_kind not in ("heading", "table")))
            block_start, block_kind = line_start, (None if kind == "blank" else kind)
        line_start = line_end + 1
    if block_kind is not None:
        blocks.append((block_start, end, block_kind not in ("heading", "table")))
    return blocks


def _starts_block(kind: str, current: str | None) -> bool:
    if current is None or "heading" in (kind, current) or kind == "item":
        return True
    if "table" in (kind, current) or kind == "quote":
        return kind != current
    return False  # plain text continues the paragraph, list item or quote above it


def _line_kind(text: str, start: int, end: int) -> str:
    if not text[start:end].strip():
        return "blank"
    if _HEADING_LINE.match(text, start, end):
        return "heading"
    if _TABLE_LINE.match(text, start, end):
        return "table"
    if _QUOTE_LINE.match(text, start, end):
        return "quote"
    if _LIST_ITEM_LINE.match(text, start, end):
        return "item"
    return "text"


def _punctuation_cuts(text: str, start: int, end: int) -> list[int]:
    cuts = [match.end() for match in _CJK_END.finditer(text, start, end)]
    cuts.extend(match.end() for match in _LATIN_END.finditer(text, start, end) if _ends_sentence(text, match))
    return sorted(set(cut for cut in cuts if start < cut < end))


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    marks = match.group()
    if not marks.startswith(".") or "..." in marks:
        return True  # "!" and "?" always end a sentence; so does an ellipsis followed by space
    word_start = match.start()
    while word_start > 0 and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start : match.start() + 1].lstrip("([{\"'“‘")
    if word.lower() in ABBREVIATIONS or _DOTTED_ABBREVIATION.fullmatch(word.lower()) or _INITIAL.fullmatch(word):
        return False
    if word[:-1].isdigit() and _starts_line(text, word_start):
        return False  # "1. First step" is a list number, not the end of a sentence
    following = _next_visible_char(text, match.end())
    return not (following and following.islower())


def _starts_line(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return not text[line_start:offset].strip()


def _next_visible_char(text: str, offset: int) -> str:
    match = _VISIBLE.search(text, offset)
    return match.group() if match else ""


def _blank_line_cuts(text: str, start: int, end: int) -> list[int]:
    return [match.end() for match in _BLANK_LINES.finditer(text, start, end)]


def _trimmed_pieces(text: str, start: int, end: int, cuts: list[int]) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    for piece_start, piece_end in zip([start, *cuts], [*cuts, end], strict=False):
        piece_start, piece_end = trim_whitespace(text, piece_start, piece_end)
        if piece_end > piece_start:
            pieces.append((piece_start, piece_end))
    return pieces


def trim_whitespace(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow ``(start, end)`` until it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
