"""The extractor's passes over a PDF: each page read once, then the document's style, then Markdown.

1. every page: glyphs and rules (``glyphs``), bullets drawn as shapes (``marks``), ruled tables
   cut out (``tables``), rows (``rows``);
   the page's objects are released straight after;
2. running headers, footers and page numbers dropped across pages (``furniture``);
3. the body text's size and pitch (``headings.body_style``);
4. every page: reading order (``columns``), blocks (``blocks``); a table's rows left at the foot
   of a page join the table heading the next (``page_breaks``); then heading levels over the
   whole document (``headings``) and the Markdown of each page (``markdown``).

Pictures on pages with text are OCR'd between 1 and 4 and their text placed among the page's
blocks (``image_text``), when ``limits`` are given.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from workbench.config import IngestConfig
from workbench.ingestion.parsers.image_notes import ImageNote
from workbench.ingestion.parsers.pdf.blocks import Block, page_blocks
from workbench.ingestion.parsers.pdf.columns import Item, reading_order
from workbench.ingestion.parsers.pdf.furniture import without_furniture
from workbench.ingestion.parsers.pdf.glyphs import page_glyphs
from workbench.ingestion.parsers.pdf.headings import body_style, heading_levels
from workbench.ingestion.parsers.pdf.image_text import PageImage, page_images, read_image_texts, with_image_text
from workbench.ingestion.parsers.pdf.markdown import page_markdown
from workbench.ingestion.parsers.pdf.marks import drawn_bullets
from workbench.ingestion.parsers.pdf.page_breaks import tables_across_pages
from workbench.ingestion.parsers.pdf.render_modes import interpret_page
from workbench.ingestion.parsers.pdf.rows import Row, rows_of
from workbench.ingestion.parsers.pdf.tables import TableBlock, ruled_tables


@dataclass(frozen=True)
class _Page:
    width: float
    height: float
    rows: list[Row]
    tables: list[TableBlock]
    glyphs: int
    images: list[PageImage]


@dataclass(frozen=True)
class PdfPages:
    """Each page's Markdown, and which pages have no text layer at all (scans)."""

    markdown: tuple[str, ...]
    textless: tuple[int, ...]  # 0-based
    #: the pictures on pages with text: read by OCR, or skipped and why
    images: tuple[ImageNote, ...] = ()


def read_pages(data: bytes, limits: IngestConfig | None = None) -> PdfPages:
    """The PDF as Markdown, page by page; ``PdfReadError`` when pdfplumber cannot read it. With
    ``limits``, the pictures on pages with text are OCR'd within them."""
    import pdfplumber

    from workbench.ingestion.parsers.pdf import PdfReadError

    pages: list[_Page] = []
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for page in pdf.pages:
                interpret_page(page)
                content = page_glyphs(page)
                tables, outside = ruled_tables(page, drawn_bullets(content.glyphs, content.marks))
                images = page_images(page, len(pages), content.glyphs) if limits is not None else []
                pages.append(
                    _Page(content.width, content.height, rows_of(outside), tables, len(content.glyphs), images)
                )
                page.close()  # pdfplumber keeps every page's objects otherwise
    except (MemoryError, RecursionError):
        raise
    except Exception as error:  # pdfminer's many exception types, and its asserts on broken files
        raise PdfReadError(error) from error
    pictures = None if limits is None else read_image_texts(data, [i for read in pages for i in read.images], limits)
    rows = without_furniture([read.rows for read in pages], [read.height for read in pages])
    style = body_style(rows)
    blocks_of_pages: list[list[Block]] = []
    for read, kept in zip(pages, rows, strict=True):
        items: list[Item] = sorted([*kept, *read.tables], key=lambda item: item.top)
        regions = reading_order(items, read.width)
        blocks = page_blocks(regions, style)
        texts = pictures.on(len(blocks_of_pages)) if pictures is not None else []
        blocks_of_pages.append(with_image_text(blocks, texts, style) if texts else blocks)
    tables_across_pages(blocks_of_pages)
    levels = heading_levels((block for blocks in blocks_of_pages for block in blocks), style)
    return PdfPages(
        tuple(page_markdown(blocks, style, levels) for blocks in blocks_of_pages),
        tuple(number for number, read in enumerate(pages) if read.glyphs == 0),
        tuple(pictures.notes) if pictures is not None else (),
    )
