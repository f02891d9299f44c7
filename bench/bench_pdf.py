"""PDF extraction against the Markdown each PDF was printed from: markitdown (the old route) and
the layout extractor, producer by producer.

    python bench/bench_pdf.py [--rounds 5] [--set NAME|all] [--smoke]

Builds the PDF test sets in a temporary folder, each from Markdown kept as the truth, and reads
every PDF with both extractors. The sets (docs/pdf.md says which shaped the extractor, and when):

* the users' set (``tests/workbench/ingestion/pdf_corpus_mixed.py``), printed by three
  producers: reportlab (``mixed-reportlab``), Chromium (``mixed-chromium``) and LibreOffice
  (``mixed-office``). Modelled on the real PDFs of issue 35: mixed Chinese and Latin, lines
  ending in Latin words, numbered and coloured headings, wrapped and overflowing table cells,
  numbered lists, pages of screenshots of text;
* the held-out set (``pdf_corpus_heldout.py``), written after issue 35's fixes and measured once,
  by the same three producers (``heldout-reportlab``, ``heldout-chromium``, ``heldout-office``);
* issue 49's seed-like set (``pdf_corpus_seed.py``, ``--set seed``): the users' four documents and
  a short English page, printed as the reporter's PDFs were (ragged right, Chinese broken after
  punctuation only or with kinsoku, bold sub-headings at the body's size, list numbers inside the
  text, a measure narrower than a line of code), by Chromium and reportlab;
* the earlier sets: ``reportlab`` (``pdf_corpus.py``), ``chromium`` (``pdf_corpus_chromium.py``),
  ``office`` (``pdf_corpus_office.py``) and ``book`` (``pdf_corpus_book.py``).

Issue 49's held-out set (``--set real``): the PDFs of ``bench/pdf_heldout/`` (made by
``bench/make_pdf_heldout.py`` with Chromium, reportlab, matplotlib and a scan, kept in the
repository) against their hand-checked reference Markdown, scored by the field's measures
(``bench/pdf_metrics.py``): Overall (the mean of a document's NID, TEDS and MHS, then over the
documents, with a 95% bootstrap interval over documents), NID, TEDS (documents with a table), MHS
(documents with a heading), NID of the right-to-left pages, and seconds per page without OCR
(best of ``--rounds``; the scan, which only OCR reads, is not timed); one table overall, one per
category, one per document.

A set whose producer is missing here (Chromium and Playwright, or LibreOffice's ``soffice``) is
left out with a line that says so. The measures (``tests/workbench/ingestion/pdf_scoring.py``):
paragraphs kept whole, heading recall and precision, table-cell recall and precision, list items
kept, text recall (character trigrams), and recall of the text inside images (which only OCR
reads), each summed over a language's documents before dividing; pages/s is the pages of those
documents over the best of ``--rounds`` timed passes, without OCR of pictures. One table per set, each
language's markitdown row beside the layout extractor's, with the load average; then one row per
document. ``--smoke`` reads the personal pages of the reportlab-printed users' set once. Asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench.printing import table  # noqa: E402
from tests.workbench.ingestion.pdf_scoring import Counts, Scores, count  # noqa: E402

HEADER = [
    "set", "lang", "extractor", "paragraphs whole", "heading R", "heading P", "cell R", "cell P",
    "list items", "text recall", "image-text R (OCR)", "pages/s",
]  # fmt: skip


def markitdown_pages(data: bytes) -> tuple[str, ...]:
    from workbench.ingestion.parsers.converter import convert

    return (convert(data, "bench.pdf", "pdf").markdown,)


def layout_pages(data: bytes, ocr: bool = True) -> tuple[str, ...]:
    """What ingestion stores for a PDF: the layout extractor's pages with the default limits (scanned
    pages and large pictures OCR'd); without ``ocr``, no picture is (``ingest.max_ocr_images`` 0),
    which is how its speed is timed."""
    from dataclasses import replace

    from workbench.config import IngestConfig
    from workbench.ingestion.parsers.pdf import extract_pdf

    limits = IngestConfig() if ocr else replace(IngestConfig(), max_ocr_images=0)
    return extract_pdf(data, "bench.pdf", limits).parts


def _layout_without_ocr(data: bytes) -> tuple[str, ...]:
    return layout_pages(data, ocr=False)


#: name -> (what is scored, what is timed)
EXTRACTORS: dict[str, tuple[Callable[[bytes], tuple[str, ...]], Callable[[bytes], tuple[str, ...]]]] = {
    "markitdown": (markitdown_pages, markitdown_pages),
    "layout": (layout_pages, _layout_without_ocr),
}


def _mixed(producer: str, held_out: bool = False) -> Callable[[Path], dict[str, Any]]:
    def build(folder: Path) -> dict[str, Any]:
        from tests.workbench.ingestion.pdf_corpus_heldout import write_heldout
        from tests.workbench.ingestion.pdf_corpus_mixed import available, write_corpus

        missing = available(producer)
        if missing:
            which = "held-out" if held_out else "users'"
            print(f"\n(the {which} set printed by {producer} is left out: it needs {missing})")
            return {}
        return write_heldout(folder, producer) if held_out else write_corpus(folder, producer)

    return build


def _seed(folder: Path) -> dict[str, Any]:
    from tests.workbench.ingestion.pdf_corpus_seed import write_seed

    written = write_seed(folder)
    if len(written) < 5:
        print(f"\n(the seed-like set is {len(written)} of its 5 PDFs: the rest need {_CHROMIUM})")
    return written


def _earlier(module: str, writer: str = "write_corpus", needs: str = "") -> Callable[[Path], dict[str, Any]]:
    def build(folder: Path) -> dict[str, Any]:
        import importlib

        corpus = importlib.import_module(f"tests.workbench.ingestion.{module}")
        if hasattr(corpus, "available") and not corpus.available():
            print(f"\n(the {module} set is left out: it needs {needs})")
            return {}
        written: dict[str, Any] = getattr(corpus, writer)(folder)
        return written

    return build


_CHROMIUM = "/usr/bin/chromium, playwright and fonts-wqy-microhei"
#: name -> (what the table's title says, the builder)
SETS: dict[str, tuple[str, Callable[[Path], dict[str, Any]]]] = {
    "mixed-reportlab": ("the users' set printed by reportlab (issue 35)", _mixed("reportlab")),
    "mixed-chromium": ("the users' set printed by Chromium (issue 35)", _mixed("chromium")),
    "mixed-office": ("the users' set printed by LibreOffice from DOCX (issue 35)", _mixed("office")),
    "heldout-reportlab": ("the held-out set printed by reportlab (after issue 35's fixes)", _mixed("reportlab", True)),
    "heldout-chromium": ("the held-out set printed by Chromium (after issue 35's fixes)", _mixed("chromium", True)),
    "heldout-office": ("the held-out set printed by LibreOffice (after issue 35's fixes)", _mixed("office", True)),
    "seed": ("issue 49's seed-like set, printed as the reporter's PDFs were", _seed),
    "reportlab": ("the first reportlab set", _earlier("pdf_corpus")),
    "chromium": ("the Chromium set", _earlier("pdf_corpus_chromium", needs=_CHROMIUM)),
    "office": ("the LibreOffice set", _earlier("pdf_corpus_office", needs="LibreOffice (soffice)")),
    "book": ("the book-style Chromium set", _earlier("pdf_corpus_book", "write_book_corpus", _CHROMIUM)),
}


@dataclass(frozen=True)
class Reading:
    """One extractor's reading of one document: what it kept, its pages and its best time."""

    counts: Counts
    pages: int
    seconds: float


def read(
    extract: Callable[[bytes], tuple[str, ...]],
    timed: Callable[[bytes], tuple[str, ...]],
    data: bytes,
    document: Any,
    rounds: int,
) -> Reading:
    """``extract``'s Markdown scored against ``document``'s truth; ``timed``'s best time of ``rounds``."""
    from workbench.ingestion.parsers.canonical import join_pages

    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        timed(data)
        best = min(best, time.perf_counter() - started)
    parts = extract(data) if extract is not timed or rounds < 1 else timed(data)
    markdown = join_pages(parts)[0]
    return Reading(count(markdown, document.truth, getattr(document, "image_text", "")), len(parts), best)


#: what --smoke reads: a page of text and a page of screenshots in each language
SMOKE_DOCUMENTS = ("en-profile.pdf", "zh-profile.pdf")


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _cells(scores: Scores) -> list[str]:
    return [
        _share(scores.paragraphs_whole), _share(scores.heading_recall), _share(scores.heading_precision),
        _share(scores.cell_recall), _share(scores.cell_precision), _share(scores.items_kept),
        _share(scores.text_recall), _share(scores.image_text_recall),
    ]  # fmt: skip


def measure_set(
    name: str, title: str, build: Callable[[Path], dict[str, Any]], rounds: int, only: Collection[str] = ()
) -> None:
    """One set's tables; ``only``: these documents of it (all when empty)."""
    with tempfile.TemporaryDirectory(prefix="pdf-corpus-") as folder:
        corpus = {name: pdf for name, pdf in build(Path(folder)).items() if not only or name in only}
        data = {document: path.read_bytes() for document, (path, _truth) in corpus.items()}
    if not corpus:
        return
    documents = {document: truth for document, (_path, truth) in corpus.items()}
    load_before = os.getloadavg()[0]
    readings = {
        (label, document): read(extract, timed, data[document], documents[document], rounds)
        for label, (extract, timed) in EXTRACTORS.items()
        for document in data
    }
    load_after = os.getloadavg()[0]
    rows = []
    for language in ("en", "zh"):
        for label in EXTRACTORS:
            chosen = [readings[(label, d)] for d in data if documents[d].language == language]
            if not chosen:
                continue
            total = sum((reading.counts for reading in chosen), Counts())
            pages = sum(reading.pages for reading in chosen)
            speed = pages / sum(reading.seconds for reading in chosen)
            rows.append([name, language, label, *_cells(Scores.of(total)), f"{speed:.1f}"])
    table(
        f"PDF extraction on {title}: {len(data)} PDFs; pages/s over a language's documents, best of {rounds} "
        f"passes each; load average {load_before:.2f} before, {load_after:.2f} after, {os.cpu_count()} cores",
        HEADER,
        rows,
    )
    per_document = [
        [document, documents[document].language, label, *_cells(Scores.of(reading.counts)),
         f"{reading.pages / reading.seconds:.1f}"]
        for (label, document), reading in sorted(readings.items(), key=lambda item: (item[0][1], item[0][0]))
    ]  # fmt: skip
    table(f"The same, document by document ({name})", ["document", *HEADER[1:]], per_document)


HELDOUT = REPO / "bench" / "pdf_heldout"
#: what --smoke reads of the held-out set: a right-to-left page and a table with spans
SMOKE_HELDOUT = ("ar-guide", "en-spans-table")
HELDOUT_HEADER = ["extractor", "docs", "pages", "Overall", "NID", "TEDS", "MHS", "RTL NID", "s/page"]


@dataclass(frozen=True)
class HeldOutReading:
    name: str
    category: str
    extractor: str
    scores: Any  # bench.pdf_metrics.DocumentScores
    pages: int
    seconds: float


def _mean(values: list[float]) -> str:
    """The mean with its 95% bootstrap interval over documents, and how many documents."""
    from workbench.evaluation.intervals import mean_interval

    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.3f} (1)"
    summary = mean_interval(values)
    return f"{summary.mean:.3f} [{summary.interval.low:.2f}, {summary.interval.high:.2f}] ({len(values)})"


def _heldout_row(label: str, readings: list[HeldOutReading]) -> list[str]:
    pages = sum(reading.pages for reading in readings)
    # a page without a text layer is OCR'd whatever the picture limit: not timed, so that s/page
    # is the extractor's without OCR
    timed = [reading for reading in readings if reading.category != "scan"]
    timed_pages = sum(reading.pages for reading in timed)
    seconds = sum(reading.seconds for reading in timed)
    return [
        label, str(len(readings)), str(pages),
        _mean([r.scores.overall for r in readings]),
        _mean([r.scores.nid for r in readings]),
        _mean([r.scores.teds for r in readings if r.scores.teds is not None]),
        _mean([r.scores.mhs for r in readings if r.scores.mhs is not None]),
        _mean([r.scores.nid for r in readings if r.category == "rtl"]),
        f"{seconds / timed_pages:.3f}" if timed_pages else "-",
    ]  # fmt: skip


def measure_heldout(rounds: int, only: Collection[str] = ()) -> None:
    """Issue 49's held-out set, scored by NID, TEDS and MHS, beside markitdown."""
    from bench.pdf_metrics import score
    from workbench.ingestion.parsers.canonical import join_pages

    index = [line.split("\t") for line in (HELDOUT / "index.tsv").read_text(encoding="utf-8").strip().split("\n")[1:]]
    chosen = [(name, category, int(pages)) for name, category, _producer, pages in index if not only or name in only]
    load_before = os.getloadavg()[0]
    readings: list[HeldOutReading] = []
    for name, category, pages in chosen:
        data = (HELDOUT / f"{name}.pdf").read_bytes()
        reference = (HELDOUT / f"{name}.md").read_text(encoding="utf-8")
        for label, (extract, timed) in EXTRACTORS.items():
            best = float("inf")
            for _ in range(max(rounds, 1)):
                started = time.perf_counter()
                timed(data)
                best = min(best, time.perf_counter() - started)
            markdown = join_pages(extract(data))[0]  # markitdown's is one part, whatever the pages
            readings.append(HeldOutReading(name, category, label, score(markdown, reference), pages, best))
    load_after = os.getloadavg()[0]
    pages = sum(r.pages for r in readings if r.extractor == "layout")
    table(
        f"PDF extraction on issue 49's held-out set ({HELDOUT.relative_to(REPO)}): {len(chosen)} PDFs, {pages} "
        f"pages; means with a 95% bootstrap interval over documents (and how many); s/page without OCR, best "
        f"of {max(rounds, 1)}; load average {load_before:.2f} before, {load_after:.2f} after, {os.cpu_count()} cores",
        HELDOUT_HEADER,
        [_heldout_row(label, [r for r in readings if r.extractor == label]) for label in EXTRACTORS],
    )
    categories = sorted({category for _name, category, _pages in chosen})
    table(
        "The same, category by category",
        ["category", *HELDOUT_HEADER],
        [
            [category, *_heldout_row(label, [r for r in readings if r.extractor == label and r.category == category])]
            for category in categories
            for label in EXTRACTORS
        ],
    )

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    table(
        "The same, document by document",
        ["document", "category", "extractor", "pages", "Overall", "NID", "TEDS", "MHS", "s/page"],
        [
            [
                r.name,
                r.category,
                r.extractor,
                str(r.pages),
                share(r.scores.overall),
                share(r.scores.nid),
                share(r.scores.teds),
                share(r.scores.mhs),
                f"{r.seconds / r.pages:.3f}",
            ]
            for r in sorted(readings, key=lambda r: (r.category, r.name, r.extractor))
        ],  # fmt: skip
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed passes over each PDF (the best counts)")
    parser.add_argument("--set", choices=[*SETS, "real", "all"], default="all", help="which PDF set (default: all)")
    parser.add_argument(
        "--smoke", action="store_true", help="the personal pages of the reportlab-printed users' set, one pass"
    )
    arguments = parser.parse_args()
    chosen, rounds = ("mixed-reportlab", 1) if arguments.smoke else (arguments.set, arguments.rounds)
    only = SMOKE_DOCUMENTS if arguments.smoke else ()
    for name, (title, build) in SETS.items():
        if chosen in (name, "all"):
            measure_set(name, title, build, rounds, only)
    if chosen in ("real", "all") or arguments.smoke:
        measure_heldout(rounds, SMOKE_HELDOUT if arguments.smoke else ())


if __name__ == "__main__":
    main()
