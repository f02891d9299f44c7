"""Pictures inside documents (PDF pages, DOCX, PPTX): does one hold text, and what does it say.

A picture's share of its page says nothing about its text: a screenshot of a table at 15% of a page
is all text, a full-page photo has none. So every picture gets one quick text check first
(``text_check``): lines of separate glyph-sized strokes, found in the picture's pixels in a few
milliseconds. Only a picture with at least ``MIN_TEXT_LINES`` such lines is given to tesseract, for
at most ``ingest.ocr_budget_s`` seconds (each picture its own budget; a Chinese picture's second
reading, Chinese packs first, its own again), and a document's pictures
for at most half of ``ingest.parse_timeout_s`` in all (the parse worker's own limit stops the whole
file). ``bench/bench_picture_text.py`` measures the check against a quick tesseract pass on a table
screenshot, a chart and a photo.

Every picture gets a note (``ImageNote``): read and how many characters, or skipped and why; a
picture skipped for time, for the per-document limit or for want of tesseract can be read later by
``sync --ocr`` (``retryable``), without ingesting the rest again.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.config import IngestConfig
from workbench.ingestion.parsers.image_notes import ImageNote

if TYPE_CHECKING:
    from PIL.Image import Image

#: the text check looks at the picture at most this many pixels on its longer side (faster, and
#: text a reader can read stays over 8 pixels high)
CHECK_SIDE = 1600
#: a pixel this far (0-255) from the picture's background grey is ink
INK_CONTRAST = 64
#: a row or column with ink across more than this share of the picture is a rule or a border
RULE_SHARE = 0.5
#: a text line: a band of rows from this many to this many pixels high (at ``CHECK_SIDE``) ...
MIN_LINE_PX, MAX_LINE_PX = 6, 100
#: ... with at least this many separate strokes (glyphs, or words of touching glyphs) side by side,
#: this many pixels wide at least (a photo's sensor noise makes one- and two-pixel specks) ...
MIN_GLYPHS, MIN_GLYPH_PX = 4, 3
#: ... inked over this share of their area at least (glyphs; a blob's thin rim is less)
MIN_GLYPH_FILL = 0.15
#: a picture with at least this many text lines is read: a chart's title and axis labels make two
MIN_TEXT_LINES = 3
#: the share of ``ingest.parse_timeout_s`` the OCR of one document's pictures may take in all
PARSE_TIME_SHARE = 0.5


@dataclass(frozen=True)
class TextCheck:
    """What the quick text check found: text lines and the glyphs on them."""

    lines: int
    glyphs: int

    @property
    def has_text(self) -> bool:
        return self.lines >= MIN_TEXT_LINES


def text_check(picture: Image) -> TextCheck:
    """Lines of glyph-sized strokes in ``picture``: the rows of ink (rules and borders removed) that
    form bands no taller than a line of text, each with ``MIN_GLYPHS`` strokes or more side by side.
    A photo's ink forms tall bands, a chart's bars too; its title and axis labels are a line each."""
    import numpy as np

    gray = picture.convert("L")
    longer = max(gray.size)
    if longer > CHECK_SIDE:
        factor = CHECK_SIDE / longer
        gray = gray.resize((max(1, round(gray.width * factor)), max(1, round(gray.height * factor))))
    pixels = np.asarray(gray, dtype=np.int16)
    if pixels.size == 0:
        return TextCheck(0, 0)
    ink = np.abs(pixels - int(np.median(pixels))) > INK_CONTRAST
    height, width = ink.shape
    ink[:, ink.sum(axis=0) > RULE_SHARE * height] = False  # vertical rules and borders
    ink[ink.sum(axis=1) > RULE_SHARE * width, :] = False  # horizontal ones
    lines = glyphs = 0
    for top, bottom in _runs(ink.any(axis=1)):
        if not MIN_LINE_PX <= bottom - top <= min(MAX_LINE_PX, height / 3):
            continue
        band = ink[top:bottom]
        strokes = [(start, end) for start, end in _runs(band.any(axis=0)) if end - start >= MIN_GLYPH_PX]
        if len(strokes) < MIN_GLYPHS:
            continue
        inked = sum(int(band[:, start:end].sum()) for start, end in strokes)
        if inked >= MIN_GLYPH_FILL * (bottom - top) * sum(end - start for start, end in strokes):
            lines, glyphs = lines + 1, glyphs + len(strokes)
    return TextCheck(lines, glyphs)


def _runs(flags) -> list[tuple[int, int]]:
    """(start, end) of each run of True in a 1-D boolean array."""
    import numpy as np

    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


class PictureReader:
    """Reads one document's pictures in turn: the text check, then OCR within the settings' limits.

    ``read`` returns the text (empty when none was read) and the picture's note, whose characters
    ``measure`` counts (the text as the Markdown will hold it: ``pdf.image_text.ocr_characters``).
    """

    def __init__(self, limits: IngestConfig, measure: Callable[[str], int]):
        self.limits, self.measure = limits, measure
        self.total_s = PARSE_TIME_SHARE * limits.parse_timeout_s
        self.spent = 0.0
        self.read_count = 0
        self._languages: str | None = None
        self._checked = False

    def languages(self) -> str | None:
        from workbench.ingestion.parsers.images import ocr_languages

        if not self._checked:
            self._languages, self._checked = ocr_languages(self.limits.ocr_languages), True
        return self._languages

    def skip_reason(self) -> tuple[str, bool]:
        """Why no picture more can be read now ("" when one can), and whether a retry may read it."""
        from workbench.ingestion.parsers.images import ocr_unavailable_reason

        limits = self.limits
        if self.read_count >= limits.max_ocr_images:
            return (
                f"over the limit of {limits.max_ocr_images} images a document "
                f"(ingest.max_ocr_images={limits.max_ocr_images})",
                True,
            )
        if self.languages() is None:
            return ocr_unavailable_reason(limits.ocr_languages), True
        if self.spent >= self.total_s:
            return self._past_document_time(), True
        return "", False

    def _past_document_time(self) -> str:
        return (
            f"past the {self.total_s:g} s the OCR of one document may take (half of "
            f"ingest.parse_timeout_s={self.limits.parse_timeout_s:g}); retry with sync --ocr, "
            "or raise ingest.parse_timeout_s"
        )

    def _past_image_budget(self, seconds: float) -> str:
        return (
            f"OCR took longer than {seconds:g} s on this image (ingest.ocr_budget_s="
            f"{self.limits.ocr_budget_s:g}, each image); retry with sync --ocr when the machine is less busy, "
            "or raise ingest.ocr_budget_s"
        )

    def read(self, picture: Image, page: int, share: float, name: str = "") -> tuple[str, ImageNote]:
        """OCR of ``picture`` (page 1-based, 0 when the document has none) when it holds text."""
        from workbench.ingestion.parsers.images import ImageError, OcrTimeout

        def skipped(reason: str, retryable: bool) -> tuple[str, ImageNote]:
            return "", ImageNote(page, share, skipped=reason, name=name, retryable=retryable)

        reason, retryable = self.skip_reason()
        if reason:
            return skipped(reason, retryable)
        started = time.perf_counter()
        try:
            if self.limits.ocr_text_check:
                found = text_check(picture)
                if not found.has_text:
                    return skipped(
                        f"no text found by the quick check ({found.lines} text lines, under {MIN_TEXT_LINES}; "
                        "ingest.ocr_text_check=false reads every picture)",
                        False,
                    )
            seconds = min(self.limits.ocr_budget_s, self.total_s - self.spent)
            try:
                text = self._ocr(picture, seconds)
            except OcrTimeout:
                if seconds < self.limits.ocr_budget_s:
                    return skipped(self._past_document_time(), True)
                return skipped(self._past_image_budget(seconds), True)
            except ImageError as error:
                return skipped(f"OCR failed: {error}", True)
        finally:
            self.spent += time.perf_counter() - started
        self.read_count += 1
        return text, ImageNote(page, share, characters=self.measure(text), name=name)

    def _ocr(self, picture: Image, seconds: float) -> str:
        from workbench.ingestion.parsers.images import OcrTimeout, ocr_png
        from workbench.language.scripts import text_language

        languages = self.languages()
        assert languages is not None
        out = io.BytesIO()
        picture.convert("L").save(out, format="PNG")
        png = out.getvalue()
        started = time.perf_counter()
        text = ocr_png(png, languages, timeout_s=max(0.1, seconds))
        chinese_first = _chinese_first(languages)
        # the second reading is a reading of its own: its own budget, within the document's time
        left = min(self.limits.ocr_budget_s, self.total_s - self.spent - (time.perf_counter() - started))
        if chinese_first != languages and text_language(text) == "zh" and left > 0.1:
            # tesseract reads a line in its first language first: English first garbles the
            # first line of Chinese text ("检索增强生成…" came out as "fo Fate oe FHV…")
            try:
                text = ocr_png(png, chinese_first, timeout_s=left)
            except OcrTimeout:
                pass  # the first reading stands
        return text


def _chinese_first(languages: str) -> str:
    """``languages`` (tesseract's ``-l``) with the Chinese packs first: "eng+chi_sim" -> "chi_sim+eng"."""
    packs = languages.split("+")
    return "+".join(sorted(packs, key=lambda pack: not pack.startswith("chi_")))


def open_picture(data: bytes, limits: IngestConfig) -> Image:
    """A picture's bytes (from a DOCX or PPTX package) decoded, within ``ingest.max_image_megapixels``;
    ImageError otherwise (a format Pillow cannot read: EMF, WMF, SVG)."""
    from PIL import Image as PILImage

    from workbench.ingestion.parsers.images import decoded_png

    return PILImage.open(io.BytesIO(decoded_png(data, limits)))
