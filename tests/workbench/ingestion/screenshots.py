"""Screenshots of text for the PDF test sets: lines of English or Chinese drawn into a PNG, as a
note-taking app or a chat window would show them, with the lines kept as the truth.

The images are what a user pastes into a document: the text is pixels, not glyphs, so only OCR
can read it. They are drawn at 3 pixels a point for the width a page gives them, in DejaVu
Sans (English) or WQY MicroHei (Chinese, ``fonts-wqy-microhei``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache

LATIN_FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CHINESE_FONT_FILE = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
#: the width a page gives a screenshot, in points, and the pixels drawn for each point
WIDTH_PT = 460
PIXELS_PER_PT = 3


@dataclass(frozen=True)
class Screenshot:
    """A window titled ``title`` showing ``lines``; all of it is text that only OCR can read."""

    title: str
    lines: tuple[str, ...]
    language: str  # "en" or "zh"

    @property
    def text(self) -> str:
        return "\n".join((self.title, *self.lines))


@cache
def screenshot_png(shot: Screenshot) -> bytes:
    """The screenshot as PNG bytes, ``WIDTH_PT`` points wide at ``PIXELS_PER_PT``."""
    from PIL import Image, ImageDraw, ImageFont

    scale = PIXELS_PER_PT
    font_file = CHINESE_FONT_FILE if shot.language == "zh" else LATIN_FONT_FILE
    body = ImageFont.truetype(font_file, 11 * scale)
    title = ImageFont.truetype(font_file, 10 * scale)
    width = WIDTH_PT * scale
    bar, pad, pitch = 22 * scale, 14 * scale, 19 * scale
    height = bar + 2 * pad + pitch * len(shot.lines)
    image = Image.new("RGB", (width, height), (252, 252, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width - 1, bar), fill=(232, 234, 238))
    for index, colour in enumerate(((237, 106, 94), (245, 191, 79), (98, 197, 84))):
        x = (10 + 12 * index) * scale
        draw.ellipse((x, 7 * scale, x + 8 * scale, 15 * scale), fill=colour)
    draw.text((52 * scale, 5 * scale), shot.title, font=title, fill=(60, 60, 66))
    for index, line in enumerate(shot.lines):
        draw.text((pad, bar + pad + index * pitch), line, font=body, fill=(30, 30, 34))
    draw.rectangle((0, 0, width - 1, height - 1), outline=(190, 192, 198), width=scale)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def height_pt(shot: Screenshot) -> float:
    """How tall the screenshot is on the page at ``WIDTH_PT`` points wide."""
    from PIL import Image

    with Image.open(io.BytesIO(screenshot_png(shot))) as image:
        return image.height / PIXELS_PER_PT
