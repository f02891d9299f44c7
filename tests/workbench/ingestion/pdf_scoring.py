"""How faithful an extraction's Markdown is to the Markdown a PDF was printed from.

Every measure is a count of the truth's elements found in the output (and, for precision, of the
output's elements found in the truth), so documents and languages add up before dividing:

* **paragraphs kept whole**: truth paragraphs whose whole text stands inside one paragraph of the
  output (blocks between blank lines; compared without whitespace and hyphens, so a paragraph
  broken in two, or cut by a heading or a table, is not whole, and a wrong space is left to
  text recall);
* **headings**: (level, text) pairs of the truth found in the output (recall) and of the output
  found in the truth (precision);
* **table cells**: non-empty cells of every table, compared without whitespace; prose read as a
  table lowers precision, a cell cut in two lowers both;
* **list items kept**: truth items written as items of the same kind (numbered or not), with the
  same text;
* **text recall**: the truth's character trigrams (Markdown marks removed, whitespace runs as one
  space, and none next to a CJK character) found in the output;
* **image-text recall**: trigrams of the text inside the document's images (whitespace removed)
  found in the output beyond those its own text accounts for: near 0 without OCR.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, fields

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^\s*([-*+]|\d{1,3}[.)])\s+(.*)$")
_RULE_ROW = re.compile(r"^\|?\s*:?-{3,}")
_CJK = r"\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_SPACE_BY_CJK = re.compile(rf"(?<=[{_CJK}]) | (?=[{_CJK}])")
_NOT_COMPARED = re.compile("[\\s\u00ad\u2010-]")
NGRAM = 3


def squeezed(text: str) -> str:
    """The text without whitespace and hyphens: what "the same text" compares."""
    return _NOT_COMPARED.sub("", text)


def _line_text(line: str) -> str:
    """A Markdown line's words, without its heading hashes, list marker or table pipes."""
    line = line.strip()
    if _RULE_ROW.match(line):
        return ""
    if heading := _HEADING.match(line):
        return heading.group(2)
    if item := _ITEM.match(line):
        return item.group(2)
    if line.startswith("|"):
        return " ".join(cell.strip() for cell in line.strip("|").split("|"))
    return line


def plain_text(markdown: str) -> str:
    """The words of a Markdown text without its marks: whitespace runs as one space, and no space
    next to a CJK character (where a space is the writer's taste, not a word break)."""
    text = re.sub(r"\s+", " ", " ".join(_line_text(line) for line in markdown.split("\n"))).strip()
    return _SPACE_BY_CJK.sub("", text)


def ngrams(text: str, n: int = NGRAM) -> Counter[str]:
    return Counter(text[i : i + n] for i in range(len(text) - n + 1))


def paragraphs(markdown: str) -> list[str]:
    """The prose lines of a Markdown text (not headings, list items, table rows, code or blank lines)."""
    found = []
    fenced = False
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
        elif (
            stripped and not fenced and not (_HEADING.match(stripped) or _ITEM.match(line) or stripped.startswith("|"))
        ):
            found.append(stripped)
    return found


def blocks(markdown: str) -> list[str]:
    """The output's blocks (text between blank lines), each squeezed, marks removed."""
    return [squeezed("".join(_line_text(line) for line in part.split("\n"))) for part in re.split(r"\n\s*\n", markdown)]


def headings(markdown: str) -> Counter[tuple[int, str]]:
    lines = (_HEADING.match(line.strip()) for line in markdown.split("\n"))
    return Counter((len(match.group(1)), squeezed(match.group(2))) for match in lines if match)


def list_items(markdown: str) -> Counter[tuple[bool, str]]:
    """(numbered, text) of every list item, nested ones included."""
    lines = (_ITEM.match(line) for line in markdown.split("\n"))
    return Counter((match.group(1)[0].isdigit(), squeezed(match.group(2))) for match in lines if match)


def table_cells(markdown: str) -> Counter[str]:
    cells: Counter[str] = Counter()
    for line in markdown.split("\n"):
        line = line.strip()
        if line.startswith("|") and not _RULE_ROW.match(line):
            cells.update(cell for cell in (squeezed(part) for part in line.strip("|").split("|")) if cell)
    return cells


@dataclass(frozen=True)
class Counts:
    """What one extraction found of one truth; ``+`` adds documents up."""

    paragraphs: int = 0
    paragraphs_whole: int = 0
    headings_truth: int = 0
    headings_written: int = 0
    headings_found: int = 0
    cells_truth: int = 0
    cells_written: int = 0
    cells_found: int = 0
    items_truth: int = 0
    items_kept: int = 0
    ngrams_truth: int = 0
    ngrams_found: int = 0
    image_ngrams: int = 0
    image_ngrams_found: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def count(markdown: str, truth: str, image_text: str = "") -> Counts:
    """What ``markdown`` (an extraction) keeps of ``truth`` (the source's Markdown) and of the
    text inside its images."""
    written_blocks = blocks(markdown)
    truth_paragraphs = [squeezed(paragraph) for paragraph in paragraphs(truth)]
    whole = sum(1 for paragraph in truth_paragraphs if any(paragraph in block for block in written_blocks))
    wanted_headings, written_headings = headings(truth), headings(markdown)
    wanted_cells, written_cells = table_cells(truth), table_cells(markdown)
    wanted_items, written_items = list_items(truth), list_items(markdown)
    truth_grams, written_grams = ngrams(plain_text(truth)), ngrams(plain_text(markdown))
    image_grams = ngrams(squeezed(image_text))
    beyond_text = ngrams(squeezed(plain_text(markdown))) - ngrams(squeezed(plain_text(truth)))
    return Counts(
        paragraphs=len(truth_paragraphs),
        paragraphs_whole=whole,
        headings_truth=sum(wanted_headings.values()),
        headings_written=sum(written_headings.values()),
        headings_found=sum((wanted_headings & written_headings).values()),
        cells_truth=sum(wanted_cells.values()),
        cells_written=sum(written_cells.values()),
        cells_found=sum((wanted_cells & written_cells).values()),
        items_truth=sum(wanted_items.values()),
        items_kept=sum((wanted_items & written_items).values()),
        ngrams_truth=sum(truth_grams.values()),
        ngrams_found=sum((truth_grams & written_grams).values()),
        image_ngrams=sum(image_grams.values()),
        image_ngrams_found=sum((image_grams & beyond_text).values()),
    )


def share(part: int, whole: int) -> float | None:
    """``part / whole``, None when there is nothing to measure."""
    return part / whole if whole else None


@dataclass(frozen=True)
class Scores:
    paragraphs_whole: float | None
    heading_recall: float | None
    heading_precision: float | None
    cell_recall: float | None
    cell_precision: float | None
    items_kept: float | None
    text_recall: float | None
    image_text_recall: float | None

    @classmethod
    def of(cls, counts: Counts) -> Scores:
        return cls(
            share(counts.paragraphs_whole, counts.paragraphs),
            share(counts.headings_found, counts.headings_truth),
            share(counts.headings_found, counts.headings_written),
            share(counts.cells_found, counts.cells_truth),
            share(counts.cells_found, counts.cells_written),
            share(counts.items_kept, counts.items_truth),
            share(counts.ngrams_found, counts.ngrams_truth),
            share(counts.image_ngrams_found, counts.image_ngrams),
        )
