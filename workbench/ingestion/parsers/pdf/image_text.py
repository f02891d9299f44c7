"""Text in the pictures of pages that have text of their own: OCR'd, and placed where the picture stands.

A page with no glyph at all is a scan and is OCR'd whole (``parsers.images.ocr_pdf_pages``). On a
page with glyphs (a caption, say), every picture is rendered by pdfium at 300 dpi and, when the
quick text check finds lines of text in it (``parsers.picture_text``: a screenshot of a table at
15% of the page, not a chart or a photo), read by tesseract. Its text goes into the page's
Markdown where the picture stands: after the last block that starts above the picture's middle
in its column, before the rest. It is a block quote headed "Text in the image (OCR):"
("图中文字（OCR）：" when it is mostly Chinese), its lines joined into paragraphs as the page's own are.

A picture with the page's own text drawn over it is not read: that text is already there (a scan
with a text layer, a slide over a background picture). At most ``ingest.max_ocr_images`` pictures
are read in one document, each for at most ``ingest.ocr_budget_s`` seconds, all of them for at
most half of ``ingest.parse_timeout_s`` (the parse worker's own limit); pictures under
``ingest.ocr_image_share`` of the page (none by default) are not looked at. Every picture is reported
(``ImageNote``): read, and how many characters, or skipped and why.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.config import IngestConfig
from workbench.ingestion.parsers.image_notes import ImageNote
from workbench.ingestion.parsers.pdf.blocks import Block, Style, TextBlock
from workbench.ingestion.parsers.pdf.glyphs import Glyph
from workbench.ingestion.parsers.pdf.paragraphs import join_lines
from workbench.ingestion.parsers.pdf.tables import TableBlock

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

#: pictures narrower or lower than this (points) are rules, bullets and spacers, not pictures
MIN_PICTURE_PT = 8.0
#: a picture with at least this many of the page's glyphs inside it has its text drawn over it
TEXT_OVER_GLYPHS = 20
#: rendering resolution for OCR: what tesseract is tuned for
OCR_DPI = 300
LABELS = {"en": "Text in the image (OCR):", "zh": "图中文字（OCR）："}
_LIST_LINE = re.compile(r"^(?:[-*•·●▪]|\d{1,3}[.)、]|[（(]\d{1,3}[）)])\s*")


@dataclass(frozen=True)
class PageImage:
    """A picture on a page, in the page's coordinates (points from its top-left corner)."""

    page: int  # 0-based
    x0: float
    top: float
    x1: float
    bottom: float
    share: float  # of the page's area
    text_over: int  # glyphs of the page's own text inside it
    #: points to cut from each side of the rendered page (left, bottom, right, top) to keep the picture
    crop: tuple[float, float, float, float]


@dataclass(frozen=True)
class ImageText:
    image: PageImage
    markdown: str


@dataclass
class ImageTexts:
    """What the pictures of a document said, by page, and a note on every picture."""

    by_page: dict[int, list[ImageText]] = field(default_factory=dict)
    notes: list[ImageNote] = field(default_factory=list)

    def on(self, page: int) -> list[ImageText]:
        return self.by_page.get(page, [])


def page_images(page: Any, number: int, glyphs: Sequence[Glyph]) -> list[PageImage]:
    """The pictures a pdfplumber ``page`` draws (each place once), largest share first within a
    place; none for a page without glyphs (a scan, OCR'd whole)."""
    if not glyphs:
        return []
    area = float(page.width) * float(page.height)
    crop_x0, crop_top, crop_x1, crop_bottom = (float(v) for v in page.cropbox)
    found: dict[tuple[int, int, int, int], PageImage] = {}
    for image in page.images:
        x0, top, x1, bottom = (float(image[key]) for key in ("x0", "top", "x1", "bottom"))
        x0, top, x1, bottom = max(x0, crop_x0), max(top, crop_top), min(x1, crop_x1), min(bottom, crop_bottom)
        if x1 - x0 < MIN_PICTURE_PT or bottom - top < MIN_PICTURE_PT:
            continue
        inside = sum(1 for g in glyphs if x0 <= (g.x0 + g.x1) / 2 <= x1 and top <= (g.top + g.bottom) / 2 <= bottom)
        crop = (x0 - crop_x0, crop_bottom - bottom, crop_x1 - x1, top - crop_top)
        place = (round(x0), round(top), round(x1), round(bottom))
        found[place] = PageImage(number, x0, top, x1, bottom, (x1 - x0) * (bottom - top) / area, inside, crop)
    return sorted(found.values(), key=lambda image: (image.top, image.x0))


def read_image_texts(data: bytes, images: Iterable[PageImage], limits: IngestConfig) -> ImageTexts:
    """OCR of the pictures that hold text (``picture_text``), within the settings' limits."""
    from workbench.ingestion.parsers.images import ImageError
    from workbench.ingestion.parsers.picture_text import PictureReader

    result = ImageTexts()
    reader = PictureReader(limits, ocr_characters)
    renderer = _Renderer(data, limits)
    try:
        for image in images:
            skipped = _too_small_or_covered(image, limits)
            retryable = False
            if not skipped:
                skipped, retryable = reader.skip_reason()
            if skipped:
                result.notes.append(ImageNote(image.page + 1, image.share, skipped=skipped, retryable=retryable))
                continue
            started = time.perf_counter()
            try:
                picture = renderer.render(image)
            except ImageError as error:
                result.notes.append(ImageNote(image.page + 1, image.share, skipped=f"OCR failed: {error}"))
                continue
            finally:  # a page of many small pictures spends its time rendering them: it counts
                reader.spent += time.perf_counter() - started
            text, note = reader.read(picture, image.page + 1, image.share)
            result.notes.append(note)
            if text:
                result.by_page.setdefault(image.page, []).append(ImageText(image, image_text_markdown(text)))
    finally:
        renderer.close()
    return result


def _too_small_or_covered(image: PageImage, limits: IngestConfig) -> str:
    if image.share < limits.ocr_image_share:
        return f"under {limits.ocr_image_share:.0%} of the page (ingest.ocr_image_share={limits.ocr_image_share:g})"
    if image.text_over >= TEXT_OVER_GLYPHS:
        return "the page's own text is drawn over it (that text is read instead)"
    return ""


class _Renderer:
    """The document opened in pdfium once, on the first picture rendered."""

    def __init__(self, data: bytes, limits: IngestConfig):
        self.data, self.limits = data, limits
        self._document: Any = None

    def render(self, image: PageImage) -> PILImage:
        """The picture as pdfium draws it at ``OCR_DPI`` (smaller when it would pass
        ``ingest.max_image_megapixels``), in grey."""
        import pypdfium2 as pdfium

        from workbench.ingestion.parsers.images import ImageError

        try:
            if self._document is None:
                self._document = pdfium.PdfDocument(self.data)
            page = self._document[image.page]
            width_pt, height_pt = image.x1 - image.x0, image.bottom - image.top
            scale = OCR_DPI / 72
            megapixels = width_pt * scale * height_pt * scale / 1e6
            if megapixels > self.limits.max_image_megapixels:  # a huge picture: rendered smaller
                scale *= (self.limits.max_image_megapixels / megapixels) ** 0.5
            bitmap = page.render(scale=scale, crop=image.crop, grayscale=True)
            return bitmap.to_pil()
        except pdfium.PdfiumError as error:
            raise ImageError(f"pdfium could not render it ({error})") from error

    def close(self) -> None:
        if self._document is not None:
            self._document.close()


def ocr_paragraphs(text: str) -> list[str]:
    """tesseract's text as paragraphs: wrapped lines joined (CJK without a space), list lines kept apart."""
    paragraphs: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        lines: list[list[str]] = []
        for line in paragraph.splitlines():
            line = re.sub(r"[ \t]{2,}", " ", line)  # a table's columns: tesseract keeps their gaps as spaces
            if line.strip():
                if _LIST_LINE.match(line.strip()) or not lines:
                    lines.append([line])
                else:
                    lines[-1].append(line)
        paragraphs.extend(joined for joined in (join_lines(group) for group in lines) if joined)
    return paragraphs


def ocr_characters(text: str) -> int:
    """The characters of OCR text as the Markdown holds it (``ocr_paragraphs``)."""
    return sum(len(paragraph) for paragraph in ocr_paragraphs(text))


def image_text_markdown(text: str) -> str:
    """OCR text as a block quote under a label that says so (``ocr_paragraphs``, one a quoted line)."""
    from workbench.language.scripts import text_language

    label = LABELS["zh" if text_language(text) == "zh" else "en"]
    return "\n>\n".join([f"> {label}", *(f"> {paragraph}" for paragraph in ocr_paragraphs(text))])


def _extent(block: Block) -> tuple[float, float, float] | None:
    """(top, left, right) of a block the extractor made; None for one without rows."""
    if isinstance(block, TableBlock):
        return block.top, block.x0, block.x1
    if block.first is None:
        return None
    rows = [row for row in (block.first, block.last) if row is not None]
    return block.first.top, min(row.x0 for row in rows), max(row.x1 for row in rows)


def with_image_text(blocks: list[Block], texts: Sequence[ImageText], style: Style) -> list[Block]:
    """The page's ``blocks`` with each picture's text where the picture stands: after the last block
    in its column (overlapping it across) that starts above its middle; with none, before the first
    such block below it; with no block in its column, after the last block starting above it."""
    placed = list(blocks)
    extents = [_extent(block) for block in placed]
    for found in sorted(texts, key=lambda text: (text.image.top, text.image.x0)):
        image = found.image
        middle = (image.top + image.bottom) / 2
        in_column = [
            index
            for index, extent in enumerate(extents)
            if extent is not None and extent[1] < image.x1 and extent[2] > image.x0
        ]
        above = [index for index in in_column if extents[index][0] < middle]  # type: ignore[index]
        if above:
            at = above[-1] + 1
        elif in_column:
            at = in_column[0]
        else:
            starts = [index for index, extent in enumerate(extents) if extent is not None and extent[0] < middle]
            at = starts[-1] + 1 if starts else 0
        block = TextBlock("image_text", found.markdown, style.body_size, False, found.markdown.count("\n") + 1)
        placed.insert(at, block)
        extents.insert(at, (image.top, image.x0, image.x1))
    return placed
