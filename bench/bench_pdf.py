"""PDF extraction against known Markdown: markitdown (the old route) and the layout extractor.

    python bench/bench_pdf.py [--rounds 5] [--set reportlab|chromium|office|book|all]

Builds four PDF test sets in a temporary folder, each from Markdown kept as the truth, and
extracts every PDF with both. One table per set, in the order the sets were made (docs/pdf.md
says which were used to develop the extractor, and when):

* reportlab (``tests/workbench/ingestion/pdf_corpus.py``). The extractor was developed on it, so
  its scores show what the extractor handles, not how it generalizes;
* Chromium (``pdf_corpus_chromium.py``): Chromium's print-to-PDF of HTML, other fonts, page
  sizes, margins and texts; held out until its first measurement;
* LibreOffice (``pdf_corpus_office.py``): python-docx documents converted by ``soffice``; left
  out where LibreOffice is not installed;
* book (``pdf_corpus_book.py``): Chromium again, in book style (first-line indents, ragged
  right, dashes as bullets).

The Chromium-made sets need /usr/bin/chromium and playwright; a set that cannot be built here is
left out with a note. All have English and Chinese, justified paragraphs, headings, bullet and
numbered lists, tables, two columns, running headers and footers and hyphenated line ends. Per
extractor and language it prints:

* **similarity**: 1 - edit distance / longer length, over the text without Markdown marks
  (heading hashes, list markers, table pipes and rules), whitespace runs as one space; summed
  over the documents before dividing;
* **heading R / P**: headings of the truth found with the same level and text, and headings
  written that the truth has;
* **ruled F1 / unruled F1**: table cells of each truth table against the written table that
  shares most cells with it (cell texts compared without whitespace);
* **fake rows**: table rows written that are no row of any truth table (a paragraph read as a
  table);
* **list R**: list items of the truth written as list items with the same text;
* **pages/s**: pages over the best of ``--rounds`` timed passes over the whole set.

The load average (1 minute) is printed before and after. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench.printing import table  # noqa: E402

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_RULE_ROW = re.compile(r"^\|?\s*:?-{3,}")


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row at a time (insertions via a running minimum)."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    target = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    columns = np.arange(len(b) + 1, dtype=np.int64)
    previous = columns.copy()
    for i, character in enumerate(a.encode("utf-32-le").decode("utf-32-le"), start=1):
        cost = (target != ord(character)).astype(np.int64)
        current = np.empty_like(previous)
        current[0] = i
        current[1:] = np.minimum(previous[1:] + 1, previous[:-1] + cost)
        current = np.minimum.accumulate(current - columns) + columns
        previous = current
    return int(previous[-1])


def plain_text(markdown: str) -> str:
    """The words of a Markdown text without its marks, whitespace runs as one space."""
    words = []
    for line in markdown.split("\n"):
        line = line.strip()
        if _RULE_ROW.match(line):
            continue
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            line = heading.group(2)
        elif item:
            line = item.group(1)
        elif line.startswith("|"):
            line = " ".join(cell.strip() for cell in line.strip("|").split("|"))
        words.append(line)
    return re.sub(r"\s+", " ", " ".join(words)).strip()


def headings(markdown: str) -> Counter[tuple[int, str]]:
    found: Counter[tuple[int, str]] = Counter()
    for line in markdown.split("\n"):
        match = _HEADING.match(line.strip())
        if match:
            found[(len(match.group(1)), re.sub(r"\s+", " ", match.group(2)).strip())] += 1
    return found


def list_items(markdown: str) -> Counter[str]:
    """Item texts, nested items included (their indentation is not compared)."""
    lines = (line.strip() for line in markdown.split("\n"))
    return Counter(re.sub(r"\s+", " ", m.group(1)).strip() for line in lines if (m := _ITEM.match(line)))


def tables(markdown: str) -> list[list[list[str]]]:
    """Every pipe table: its rows (separator rows left out) of cell texts without whitespace."""
    found: list[list[list[str]]] = []
    previous_was_row = False
    for line in markdown.split("\n"):
        line = line.strip()
        if line.startswith("|"):
            if not previous_was_row:
                found.append([])
            if not _RULE_ROW.match(line):
                found[-1].append([re.sub(r"\s+", "", cell) for cell in line.strip("|").split("|")])
            previous_was_row = True
        else:
            previous_was_row = False
    return found


def truth_tables(source: str) -> list[tuple[bool, list[list[str]]]]:
    """(ruled, rows) for every table of a corpus document's source (``<!-- unruled -->`` marks)."""
    marked = source.replace("<!-- unruled -->\n|", "|UNRULED|")
    result = []
    for rows in tables(marked):
        unruled = bool(rows) and rows[0][0] == "UNRULED"
        if unruled:
            rows[0] = rows[0][1:]
        result.append((not unruled, rows))
    return result


def cell_overlap(truth: list[list[str]], written: list[list[list[str]]]) -> tuple[int, int, int]:
    """(shared cells, truth cells, cells of the best-matching written table)."""
    wanted = Counter(cell for row in truth for cell in row if cell)
    best = (0, 0)
    for candidate in written:
        cells = Counter(cell for row in candidate for cell in row if cell)
        shared = sum((wanted & cells).values())
        if shared > best[0]:
            best = (shared, sum(cells.values()))
    return best[0], sum(wanted.values()), best[1]


def f1(shared: int, truth: int, written: int) -> float:
    precision = shared / written if written else 0.0
    recall = shared / truth if truth else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def scores(outputs: dict[str, str], documents: dict) -> dict[str, float]:
    distance = longest = 0
    heading_truth = heading_written = heading_hits = 0
    ruled = [0, 0, 0]
    unruled = [0, 0, 0]
    fake = 0
    items_truth = items_found = 0
    for name, markdown in outputs.items():
        document = documents[name]
        truth = document.truth
        a, b = plain_text(truth), plain_text(markdown)
        distance += edit_distance(a, b)
        longest += max(len(a), len(b))
        wanted, written = headings(truth), headings(markdown)
        heading_truth += sum(wanted.values())
        heading_written += sum(written.values())
        heading_hits += sum((wanted & written).values())
        written_tables = tables(markdown)
        for is_ruled, rows in truth_tables(document.source):
            counts = ruled if is_ruled else unruled
            for index, value in enumerate(cell_overlap(rows, written_tables)):
                counts[index] += value
        truth_rows = {"".join(row) for _, rows in truth_tables(document.source) for row in rows}
        fake += sum(1 for rows in written_tables for row in rows if "".join(row) not in truth_rows)
        expected, listed = list_items(truth), list_items(markdown)
        items_truth += sum(expected.values())
        items_found += sum((expected & listed).values())
    return {
        "similarity": 1 - distance / longest if longest else 1.0,
        "heading_recall": heading_hits / heading_truth if heading_truth else 1.0,
        "heading_precision": heading_hits / heading_written if heading_written else 0.0,
        "ruled_f1": f1(*ruled) if ruled[1] else float("nan"),  # nan: the set has no such table
        "unruled_f1": f1(*unruled) if unruled[1] else float("nan"),
        "fake_rows": fake,
        "list_recall": items_found / items_truth if items_truth else 1.0,
    }


def markitdown_pages(data: bytes) -> list[str]:
    from workbench.ingestion.parsers.converter import convert

    return [convert(data, "bench.pdf", "pdf").markdown]


def layout_pages(data: bytes) -> list[str]:
    from workbench.ingestion.parsers.pdf.layout import read_pages

    return list(read_pages(data).markdown)


def canonical(pages: list[str]) -> str:
    from workbench.ingestion.parsers.canonical import join_pages

    return join_pages(tuple(pages))[0]


HEADER = ["extractor", "lang", "similarity", "heading R/P", "ruled F1", "unruled F1", "fake rows", "list R", "pages/s"]


def _reportlab_set(folder: Path) -> dict:
    from tests.workbench.ingestion.pdf_corpus import write_corpus

    return write_corpus(folder)


def _chromium_set(folder: Path) -> dict:
    from tests.workbench.ingestion.pdf_corpus_chromium import available, write_corpus

    if not available():
        print("\n(the Chromium set is left out: it needs /usr/bin/chromium, playwright and fonts-wqy-microhei)")
        return {}
    return write_corpus(folder)


def _office_set(folder: Path) -> dict:
    from tests.workbench.ingestion.pdf_corpus_office import available, write_corpus

    if not available():
        print("\n(the LibreOffice set is left out: soffice is not installed)")
        return {}
    return write_corpus(folder)


def _book_set(folder: Path) -> dict:
    from tests.workbench.ingestion.pdf_corpus_book import available, write_book_corpus

    if not available():
        print("\n(the book set is left out: it needs /usr/bin/chromium, playwright and fonts-wqy-microhei)")
        return {}
    return write_book_corpus(folder)


#: name -> (what the table's title says, the builder)
SETS: dict[str, tuple[str, Callable[[Path], dict]]] = {
    "reportlab": ("the reportlab set (the extractor was developed on it)", _reportlab_set),
    "chromium": ("the Chromium set (held out at first; the second round of fixes used it)", _chromium_set),
    "office": ("the LibreOffice set (held out at first; the third round of fixes used it)", _office_set),
    "book": ("the book-style Chromium set (written last; one fix followed it: dash bullets)", _book_set),
}


def _share(value: float) -> str:
    return "-" if value != value else f"{value:.2f}"


def measure_set(title: str, build: Callable[[Path], dict], rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="pdf-corpus-") as folder:
        corpus = build(Path(folder))
        data = {name: path.read_bytes() for name, (path, _document) in corpus.items()}
    if not corpus:
        return
    documents = {name: document for name, (_path, document) in corpus.items()}
    page_count = sum(len(layout_pages(pdf)) for pdf in data.values())
    load_before = os.getloadavg()[0]

    extractors: dict[str, Callable[[bytes], list[str]]] = {
        "markitdown": markitdown_pages,
        "layout": layout_pages,
    }
    rows = []
    for label, extract in extractors.items():
        outputs = {name: canonical(extract(pdf)) for name, pdf in data.items()}
        best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            for pdf in data.values():
                extract(pdf)
            best = min(best, time.perf_counter() - started)
        for language in ("en", "zh"):
            chosen = {name: text for name, text in outputs.items() if documents[name].language == language}
            score = scores(chosen, documents)
            rows.append(
                [
                    label,
                    language,
                    f"{score['similarity']:.3f}",
                    f"{score['heading_recall']:.2f}/{score['heading_precision']:.2f}",
                    _share(score["ruled_f1"]),
                    _share(score["unruled_f1"]),
                    score["fake_rows"],
                    f"{score['list_recall']:.2f}",
                    f"{page_count / best:.1f}",
                ]
            )
    load_after = os.getloadavg()[0]
    table(
        f"PDF extraction on {title}: {len(data)} PDFs, {page_count} pages; pages/s over all of them, "
        f"best of {rounds}; load average {load_before:.2f} before, {load_after:.2f} after, {os.cpu_count()} cores",
        HEADER,
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed passes over the set (the best counts)")
    parser.add_argument("--set", choices=[*SETS, "all"], default="all", help="which PDF set (default: all)")
    arguments = parser.parse_args()
    for name, (title, build) in SETS.items():
        if arguments.set in (name, "all"):
            measure_set(title, build, arguments.rounds)


if __name__ == "__main__":
    main()
