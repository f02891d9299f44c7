"""Which pictures are worth OCR, and what reading them costs a document's parse.

    python bench/bench_picture_text.py                 # the four pictures, then the file sets, 3 rounds
    python bench/bench_picture_text.py --write-mixed DIR   # write the mixed folder (to time an ingest of it)
    python bench/bench_picture_text.py --smoke         # two pictures (no full OCR), the mixed DOCX, one round

First table: for a screenshot of an 8 x 6 table (English, Chinese), a bar chart with a title and
axis labels, and a photo-like picture (``tests.workbench.ingestion.pictures``), the two candidate
text checks side by side -- the stroke-line check the parsers use (``parsers.picture_text``), and a
quick tesseract pass (English pack, the picture downscaled to 1000 pixels wide, automatic page
segmentation) counting the words of three letters or more it reads -- then what a full OCR costs
(the configured packs, as the parsers run it). The right check says "text" for both tables and "no"
for the chart and the photo, in far less time than the OCR it saves.

Second table: the parse of each file of the demo's documents and of a small mixed folder (a DOCX
and a PPTX with a table screenshot and a photo each, a PDF with a table screenshot at 15% of its
page, a chart and a photo), with the pictures read and skipped: the time the pictures add. The
best of ``--rounds`` passes counts. Times depend on the machine's load: the 1-minute load average
is printed with each table. Asserts nothing.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.printing import table

ROOT = Path(__file__).resolve().parents[1]
QUICK_WIDTH = 1000
QUICK_TIMEOUT_S = 30.0
_WORD = re.compile(r"[A-Za-z\u4e00-\u9fff]{3,}")


def pictures(smoke: bool) -> dict[str, bytes]:
    from tests.workbench.ingestion import pictures as drawn

    made = {"table screenshot (en)": drawn.table_screenshot(), "photo-like": drawn.photo_like()}
    if not smoke:
        made |= {"table screenshot (zh)": drawn.table_screenshot(drawn.TABLE_ZH), "bar chart": drawn.bar_chart()}
    return made


def quick_tesseract(picture) -> tuple[int | None, float]:
    """Words of three letters or more a quick English pass reads (None past ``QUICK_TIMEOUT_S``),
    and its seconds."""
    from workbench.ingestion.parsers.images import tesseract_path

    small = picture.convert("L")
    if small.width > QUICK_WIDTH:
        small = small.resize((QUICK_WIDTH, round(small.height * QUICK_WIDTH / small.width)))
    out = io.BytesIO()
    small.save(out, format="PNG")
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [tesseract_path() or "tesseract", "stdin", "stdout", "-l", "eng", "--psm", "3"],
            input=out.getvalue(),
            capture_output=True,
            timeout=QUICK_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:  # a loaded machine: the "quick" pass is not quick at all
        return None, time.perf_counter() - started
    return len(_WORD.findall(done.stdout.decode("utf-8", "replace"))), time.perf_counter() - started


def check_table(smoke: bool) -> None:
    from PIL import Image

    from workbench.config import IngestConfig
    from workbench.ingestion.parsers.images import ocr_languages
    from workbench.ingestion.parsers.pdf.image_text import ocr_characters
    from workbench.ingestion.parsers.picture_text import PictureReader, text_check

    languages = ocr_languages(IngestConfig().ocr_languages)
    rows = []
    load = os.getloadavg()[0]
    for name, png in pictures(smoke).items():
        picture = Image.open(io.BytesIO(png))
        picture.load()
        started = time.perf_counter()
        found = text_check(picture)
        check_ms = (time.perf_counter() - started) * 1000
        words, quick_s = quick_tesseract(picture) if languages else (0, float("nan"))
        full_s, characters = float("nan"), 0
        if languages and not smoke:  # the smoke run's OCR is the DOCX's, in the second table
            limits = IngestConfig(ocr_text_check=False, ocr_budget_s=120, parse_timeout_s=600)
            reader = PictureReader(limits, ocr_characters)
            started = time.perf_counter()
            _, note = reader.read(picture, 0, 0.0)
            full_s, characters = time.perf_counter() - started, note.characters
        rows.append(
            [
                name,
                f"{picture.width}x{picture.height}",
                found.lines,
                "text" if found.has_text else "no",
                f"{check_ms:.1f}",
                "timed out" if words is None else words,
                f"{quick_s * 1000:.0f}",
                f"{full_s:.2f}",
                characters,
            ]
        )
    table(
        f"The text check against a quick tesseract pass, and a full OCR (load {load:.1f})",
        [
            "picture",
            "pixels",
            "text lines",
            "check says",
            "check ms",
            "quick OCR words",
            "quick OCR ms",
            "full OCR s",
            "full OCR chars",
        ],
        rows,
    )


def write_mixed(folder: Path) -> list[Path]:
    """The mixed folder: a DOCX and a PPTX with a table screenshot and a photo each, a PDF with a
    table screenshot at 15% of its page, a chart and a photo, and a Markdown note."""
    import docx
    import pptx
    from docx.shared import Inches

    from tests.workbench.ingestion import pictures as drawn
    from tests.workbench.ingestion.pictures import picture_page

    folder.mkdir(parents=True, exist_ok=True)
    document = docx.Document()
    document.add_heading("Embedding models", level=1)
    document.add_paragraph("The models we compared, as the benchmark page showed them:")
    document.add_picture(io.BytesIO(drawn.table_screenshot()), width=Inches(6))
    document.add_paragraph("The team at the offsite:")
    document.add_picture(io.BytesIO(drawn.photo_like()), width=Inches(4))
    document.save(str(folder / "models.docx"))
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "模型对比"
    slide.shapes.add_picture(io.BytesIO(drawn.table_screenshot(drawn.TABLE_ZH)), Inches(0.5), Inches(2), Inches(9))
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "团队"
    slide.shapes.add_picture(io.BytesIO(drawn.photo_like()), Inches(2), Inches(2), Inches(6))
    deck.save(str(folder / "对比.pptx"))
    page = picture_page(
        [(72, 800, "Benchmarks."), (72, 560, "A chart and a photo."), (72, 100, "The end.")],
        [
            (drawn.table_screenshot(cell=(150, 60)), (72, 620, 500, 156)),
            (drawn.bar_chart(), (72, 330, 300, 200)),
            (drawn.photo_like(), (72, 120, 300, 200)),
        ],
    )
    (folder / "ocr_03.pdf").write_bytes(page)
    (folder / "notes.md").write_text("# Notes\n\nThe table screenshots hold the numbers.\n", encoding="utf-8")
    return sorted(folder.iterdir())


def parse_table(files: dict[str, list[Path]], rounds: int) -> None:
    from workbench.ingestion.parsers import parse_file

    rows = []
    load = os.getloadavg()[0]
    for set_name, paths in files.items():
        for path in paths:
            best = float("inf")
            for _ in range(rounds):
                started = time.perf_counter()
                parsed = parse_file(path)
                best = min(best, time.perf_counter() - started)
            read = sum(1 for note in parsed.images if note.read)
            rows.append([set_name, path.name, read, len(parsed.images) - read, f"{best:.2f}"])
    table(
        f"Parse of each file, best of {rounds} (load {load:.1f})",
        ["set", "file", "pictures read", "pictures skipped", "parse s"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="timed parses of each file (the best counts)")
    parser.add_argument("--write-mixed", type=Path, help="write the mixed folder there and stop")
    parser.add_argument("--smoke", action="store_true", help="two pictures, the mixed DOCX, one round")
    arguments = parser.parse_args()
    if arguments.write_mixed:
        for path in write_mixed(arguments.write_mixed):
            print(path)
        return
    import tempfile

    check_table(arguments.smoke)
    with tempfile.TemporaryDirectory() as scratch:
        mixed = write_mixed(Path(scratch) / "mixed")
        demo = sorted(path for path in (ROOT / "demo" / "documents").iterdir() if path.suffix in (".pdf", ".docx"))
        files = (
            {"mixed": [p for p in mixed if p.suffix == ".docx"]} if arguments.smoke else {"demo": demo, "mixed": mixed}
        )
        parse_table(files, 1 if arguments.smoke else arguments.rounds)


if __name__ == "__main__":
    main()
