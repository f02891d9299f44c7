"""Rows of one region into blocks: heading candidates, list items, paragraphs and tables.

Consecutive rows belong to one block while they share a style (size and weight), follow at the
usual line pitch and start where the block's lines start. A row that starts with a bullet or a
number followed by a gap starts a list item; rows indented to the item's text continue it (or,
when its number is drawn inside its text, rows back under the number). A line ends its paragraph
when the next line's first word would have fit after it (ragged or justified, the writer broke
there on purpose), before the region's right edge, which lines of code do not set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from workbench.ingestion.parsers.pdf.bidi import rtl_share
from workbench.ingestion.parsers.pdf.code import code_lines, goes_on, is_code
from workbench.ingestion.parsers.pdf.columns import Item, Region
from workbench.ingestion.parsers.pdf.glyphs import BLACK, Colour, is_cjk
from workbench.ingestion.parsers.pdf.lists import items_in_company, list_marker
from workbench.ingestion.parsers.pdf.paragraphs import ends_in_leader, join_lines
from workbench.ingestion.parsers.pdf.rows import Row, glyph_run_text, needs_space
from workbench.ingestion.parsers.pdf.tables import TableBlock, unruled_table, unruled_table_runs

#: a paragraph ends when the next row is further than this many of its usual pitches below
PARAGRAPH_GAP = 1.3
#: rows whose sizes differ by more than this (points) are set in another type
SAME_SIZE_PT = 0.3
#: a short line at least this much larger than the body (points) is set apart from it
LARGER_PT = 0.4
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？", ".\u201d", "。\u201d", "\u3002\u300d")
#: kinsoku (CSS ``line-break: strict``, JIS X 4051): marks that may not start a line (closing
#: punctuation and brackets, iteration marks, small kana) and marks that may not end one (opening brackets)
NO_LINE_START = frozenset(
    "，。、．：；？！）］｝〕〉》」』】〗〙〛・ーゝゞヽヾ々〻ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
    ",.:;?!)]}%\u2019\u201d\u2026\u2030\u2103"
)
NO_LINE_END = frozenset("（［｛〔〈《「『【〖〘〚([{\u2018\u201c")
#: a region's lines of Chinese break after punctuation only (CSS ``word-break: keep-all``) when at
#: least this many of them do and none breaks between two ideographs
PHRASE_BREAKS = 4


@dataclass(frozen=True)
class TextBlock:
    """A run of rows read as one: ``kind`` is paragraph, item (with its ``marker``) or code (its
    lines joined by line breaks)."""

    kind: str
    text: str
    size: float
    bold: bool
    rows: int
    marker: str = ""  # "-" or "3." for items
    #: the block's first and last rows (where it starts, and whether it ran on to the edge)
    first: Row | None = field(default=None, compare=False)
    last: Row | None = field(default=None, compare=False)
    colour: Colour = BLACK
    italic: bool = False

    @property
    def x0(self) -> float:
        """Where the block starts: for an item, where its marker is."""
        return self.first.x0 if self.first is not None else 0.0


Block = TextBlock | TableBlock


@dataclass(frozen=True)
class Style:
    """The document's body text: font size, line pitch (baseline to baseline), colour and weight."""

    body_size: float
    body_pitch: float
    body_colour: Colour = BLACK
    body_bold: bool = False  # a document set in bold throughout (or painted with an outline)
    body_mono: bool = False  # a document set in a monospaced font throughout: no code blocks then
    body_italic: bool = False

    def is_body(self, row: Row) -> bool:
        """Whether ``row`` is set like the body text."""
        return (
            abs(row.size - self.body_size) <= 0.6
            and row.bold == self.body_bold
            and row.colour == self.body_colour
            and row.italic == self.body_italic
        )

    def set_apart(self, row: Row) -> bool:
        """Whether ``row`` stands out from the body text: larger, or bold, or in another colour."""
        return row.size >= self.body_size + LARGER_PT or row.bold != self.body_bold or row.colour != self.body_colour


def _pitch(style: Style, size: float) -> float:
    return style.body_pitch * size / style.body_size if style.body_size else size * 1.2


def region_blocks(region: Region, style: Style) -> list[Block]:
    items = list(region.items)
    rows = [item for item in items if isinstance(item, Row)]
    # the prose's right edge: a line of code (unwrapped, often in a smaller type) may run past the
    # measure the paragraphs are set in, and every full line would then look short of it
    prose = [row for row in rows if style.body_mono or not is_code(row)] or rows
    right_edge = max((row.x1 for row in prose), default=0.0)
    phrases = breaks_after_punctuation(rows)
    left_edge = min((row.x0 for row in rows), default=0.0)
    blocks: list[Block] = []
    position = 0
    while position < len(items):
        item = items[position]
        if isinstance(item, TableBlock):
            blocks.append(item)
            position += 1
            continue
        run = _row_run(items, position)
        blocks.extend(_blocks_of_rows(run, style, right_edge, left_edge, phrases))
        position += len(run)
    return blocks


def breaks_after_punctuation(rows: Sequence[Row]) -> bool:
    """Whether the producer broke these lines of Chinese only after punctuation or at a space,
    never inside a run of ideographs (as ``word-break: keep-all`` does): then the first "word" of
    a line is its run up to the next such break, not one character."""
    after_marks = inside_runs = 0
    for above, below in zip(rows, rows[1:], strict=False):
        last, first = above.text[-1:], below.text[:1]
        if not (last and first and is_cjk(first) and is_cjk(last)) or first in NO_LINE_START:
            continue
        if not same_type(above, below):
            continue  # a heading over its paragraph
        if last in NO_LINE_START:
            after_marks += 1
        else:
            inside_runs += 1
    return inside_runs == 0 and after_marks >= PHRASE_BREAKS


def _row_run(items: Sequence[Item], start: int) -> list[Row]:
    run: list[Row] = []
    for item in items[start:]:
        if not isinstance(item, Row):
            break
        run.append(item)
    return run


def _blocks_of_rows(
    rows: Sequence[Row], style: Style, right_edge: float, left_edge: float = 0.0, phrases: bool = False
) -> list[Block]:
    blocks: list[Block] = []
    in_company = items_in_company(rows)
    code = set() if style.body_mono else {index for index, row in enumerate(rows) if is_code(row)}
    tables = unruled_table_runs(rows, in_company | code)
    position = 0
    for start, end in tables + [(len(rows), len(rows))]:
        items = {index - position for index in in_company if position <= index < start}
        lines_of_code = {index - position for index in code if position <= index < start}
        blocks.extend(_text_blocks(rows[position:start], style, right_edge, items, lines_of_code, left_edge, phrases))
        if start < end:
            blocks.append(unruled_table(rows[start:end]))
        position = end
    return blocks


def _text_blocks(
    rows: Sequence[Row],
    style: Style,
    right_edge: float,
    in_company: set[int],
    code: set[int],
    left_edge: float = 0.0,
    phrases: bool = False,
) -> list[Block]:
    """``in_company``: the rows that start list items only because others like them do; ``code``:
    the rows set in a monospaced font; ``phrases``: Chinese lines break after punctuation only."""
    blocks: list[Block] = []
    lines: list[str] = []
    current: Row | None = None  # the block's first row
    previous: Row | None = None
    marker = ""
    indent = 0.0  # where an item's text starts
    inline = False  # the item's marker is drawn inside its text: its lines wrap back under it
    listing: list[Row] = []  # the rows of the code block being read

    def close() -> None:
        if listing:
            text = "\n".join(code_lines(listing))
            first, last = listing[0], listing[-1]
            blocks.append(TextBlock("code", text, first.size, first.bold, len(listing), "", first, last, first.colour))
            listing.clear()
        elif current is not None and lines:
            text = join_lines(lines)
            if text:
                kind = "item" if marker else "paragraph"
                size, bold, colour, italic = current.size, current.bold, current.colour, current.italic
                blocks.append(TextBlock(kind, text, size, bold, len(lines), marker, current, previous, colour, italic))

    for index, row in enumerate(rows):
        if index in code:
            if not (listing and goes_on(listing[-1], row)):
                close()
                marker, current, previous, lines = "", None, None, []
            listing.append(row)
            continue
        if listing:
            close()
            marker, current, previous, lines = "", None, None, []
        found = list_marker(row, index in in_company)
        if found is not None and found[0][:1].isdigit() and _numbered_heading(rows, index, style):
            found = None  # "1. Introduction": a heading's number, read with its text
        if found is not None:
            close()
            marker, rest = found
            current, previous, lines, indent = row, row, [rest.text], rest.x0
            inline = len(row.pieces) == 1
            continue
        start = indent if marker else None
        if (
            current is not None
            and previous is not None
            and _continues(previous, row, current, style, right_edge, start, left_edge, phrases)
        ):
            if not marker or row.x0 >= indent - 0.5 * row.size or inline and row.x0 <= current.x0 + 0.5 * row.size:
                lines.append(glyph_run_text(row.glyphs))
                previous = row
                continue
        close()
        marker, current, previous, lines = "", row, row, [row.text]
    close()
    return blocks


def _numbered_heading(rows: Sequence[Row], index: int, style: Style) -> bool:
    """Whether the numbered row ``rows[index]`` is a heading's first line: set apart from the body
    (larger, bold throughout or in colour) and no list item, which it is when another numbered row
    in its type starts at its place just before or after it (with only its own type's lines
    between)."""
    row = rows[index]
    if not style.set_apart(row):
        return False
    found = list_marker(row)
    if (
        found is not None
        and row.size < style.body_size + LARGER_PT
        and row.colour == style.body_colour
        and not all(glyph.bold for glyph in found[1].glyphs)
    ):
        return False  # "1. **enhanced-search** - 增强检索工具": an item led by a bold term, not a heading
    for step in (-1, 1):
        other = index + step
        while 0 <= other < len(rows) and same_type(rows[other], row):
            found = list_marker(rows[other])
            if found is not None and found[0][:1].isdigit():
                return abs(rows[other].x0 - row.x0) > 0.5 * row.size
            other += step
    return True


def same_type(row: Row, other: Row) -> bool:
    """Set in one size (within ``SAME_SIZE_PT``), weight and colour."""
    return abs(row.size - other.size) <= SAME_SIZE_PT and row.bold == other.bold and row.colour == other.colour


def _continues(
    previous: Row,
    row: Row,
    first: Row,
    style: Style,
    right_edge: float,
    text_start: float | None = None,
    left_edge: float = 0.0,
    phrases: bool = False,
) -> bool:
    """Whether ``row`` goes on with the block that ``previous`` (and ``first``) are in; an item's
    lines go on from ``text_start``, where the text after its marker starts."""
    if abs(row.size - first.size) > SAME_SIZE_PT or row.bold != first.bold or row.colour != first.colour:
        return False  # another type: a heading even half a point larger ends the paragraph
    if row.italic != first.italic and (row.italic or first.italic) and style.is_body(_upright(row, style)):
        return False  # an italic line at the body's size above or below upright body text
    if ends_in_leader(previous.text):
        return False  # a contents entry, however full its line
    pitch = row.top - previous.top
    if pitch <= 0 or pitch > PARAGRAPH_GAP * _pitch(style, row.size):
        return False
    if not style.is_body(row):
        return True  # a heading wrapped onto another line, centred or not
    if rtl_share(previous.text) > 0.5 and rtl_share(row.text) > 0.5:
        # right-to-left lines stand at the right edge: the same checks, mirrored. The next
        # line's first word is its rightmost
        if previous.x0 - _last_word_width(row) - 0.3 * row.size > left_edge:
            return False
        return row.x1 >= previous.x1 - 0.5 * row.size and row.x1 >= first.x1 - 1.5 * row.size
    hyphenated = previous.text[-1:] in "-\u2010\u00ad" and row.text[:1].islower()
    if not hyphenated and previous.x1 + first_word_width(row, previous, phrases) + 0.3 * row.size < right_edge:
        return False  # the next line's first word would have fit: the paragraph ended on purpose
    if previous is not first and row.x0 > previous.x0 + 0.5 * row.size:
        return False  # indented under a line that was not: a new paragraph's first-line indent
    start = first.x0 if text_start is None else text_start
    return row.x0 <= start + 1.5 * row.size or row.x0 <= previous.x0 + 0.5 * row.size


def _upright(row: Row, style: Style) -> Row:
    """``row`` as if it were set in the body's slant (to ask whether it is otherwise body text)."""
    if row.italic == style.body_italic:
        return row
    return Row(tuple(replace(glyph, italic=style.body_italic) for glyph in row.glyphs))


def _last_word_width(row: Row) -> float:
    """How wide the rightmost word of ``row`` is (a right-to-left line's first)."""
    glyphs = row.glyphs
    start = len(glyphs) - 1
    while start > 0 and not needs_space(glyphs[start - 1], glyphs[start]):
        start -= 1
    return glyphs[-1].x1 - glyphs[start].x0


def first_word_width(row: Row, previous: Row | None = None, phrases: bool = False) -> float:
    """How wide the start of ``row`` is that would have had to fit after ``previous`` for the writer
    to have broken the line on purpose.

    After a sentence's end, or between two CJK characters (where every producer may break), it is
    the row's first word (a CJK character is a word). Where the break has Latin text on either
    side, the producer broke at a space, and it may break nowhere else: reportlab, without
    ``wordWrap="CJK"``, keeps ``GPT-4、Claude、LLaMA`` or a run of Chinese up to the next space
    together. Then it is everything up to the row's first space.

    Either way, a character moves up only with the marks that may not start a line after it, and
    an opening bracket only with what follows it (kinsoku): a producer that keeps ``上。`` together
    ends the line before it a character short, and the break is no paragraph's end. Where the
    producer breaks Chinese only after punctuation (``phrases``), it is the run of ideographs up to
    the next mark or space."""
    glyphs = row.glyphs
    end = 0
    last = previous.text[-1:] if previous is not None else ""
    at_space = bool(last) and not previous_ends_sentence(previous) and not (is_cjk(last) and is_cjk(glyphs[0].text))
    while end + 1 < len(glyphs) and glyphs[end].text in NO_LINE_END and not needs_space(glyphs[end], glyphs[end + 1]):
        end += 1  # "（OpenTelemetry": the bracket moves down with the word it opens
    while end + 1 < len(glyphs) and not needs_space(glyphs[end], glyphs[end + 1]):
        if not at_space and is_cjk(glyphs[end].text) and not (phrases and glyphs[end].text not in NO_LINE_START):
            break
        end += 1
    while (
        end + 1 < len(glyphs)
        and glyphs[end + 1].text in NO_LINE_START
        and not needs_space(glyphs[end], glyphs[end + 1])
    ):
        end += 1  # "上。": the mark moves down with the character before it
    return glyphs[end].x1 - glyphs[0].x0


def previous_ends_sentence(row: Row | None) -> bool:
    return row is not None and row.text.endswith(_SENTENCE_ENDS)


def page_blocks(regions: Sequence[Region], style: Style) -> list[Block]:
    """The blocks of a page's regions in reading order; a paragraph that runs on from the foot
    of one column to the head of the next is one paragraph."""
    blocks: list[Block] = []
    previous: Region | None = None
    for region in regions:
        found = region_blocks(region, style)
        if found and blocks and previous is not None and previous.column and region.column:
            last, first = blocks[-1], found[0]
            if isinstance(last, TextBlock) and isinstance(first, TextBlock) and _runs_on(last, first, previous, region):
                blocks[-1] = TextBlock(
                    "paragraph",
                    join_lines([last.text, first.text]),
                    last.size,
                    last.bold,
                    last.rows + first.rows,
                    first=last.first,
                    last=first.last,
                    colour=last.colour,
                )
                found = found[1:]
        blocks.extend(found)
        previous = region
    return blocks


def _runs_on(last: TextBlock, first: TextBlock, column: Region, next_column: Region) -> bool:
    """Whether ``first`` (at the head of ``next_column``) goes on with ``last`` (at the foot of
    ``column``): both plain paragraphs in one type, the last line full (the next line's first word
    would not have fit after it) and not ending a sentence (a paragraph's last line that happens
    to fill the column is as likely), and the next line not indented."""
    if last.kind != "paragraph" or first.kind != "paragraph" or last.last is None or first.first is None:
        return False
    if last.text.endswith(_SENTENCE_ENDS):
        return False
    if abs(last.size - first.size) > 0.6 or last.bold != first.bold or last.bold or last.colour != first.colour:
        return False
    right_edge = max(row.x1 for row in column.items if isinstance(row, Row))
    left_edge = min(row.x0 for row in next_column.items if isinstance(row, Row))
    size = last.size
    if last.last.x1 + first_word_width(first.first, last.last) + 0.3 * size < right_edge:
        return False
    return first.first.x0 <= left_edge + 0.5 * size
