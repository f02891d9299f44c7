"""Pictures a user puts into a document, drawn with Pillow: a screenshot of a table (English or
Chinese), a bar chart with a title and axis labels, and a photo-like picture (soft shapes and sensor
noise). Only the first holds text worth reading; the text check must tell them apart. And a PDF
page (reportlab) with glyphs and such pictures on it (``picture_page``).
"""

from __future__ import annotations

import io
import random

LATIN_FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CHINESE_FONT_FILE = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
A4 = (595.2756, 841.8898)

#: an 8 x 6 table (a header and 5 rows of 8 cells), as the user's ocr_03.pdf held
TABLE_EN = (
    ("Model", "Dim", "Window", "Speed", "nDCG", "Recall", "Size", "Lang"),
    ("minilm", "384", "256", "13/s", "0.64", "0.81", "90MB", "en"),
    ("bge-small", "512", "512", "9/s", "0.69", "0.84", "130MB", "en"),
    ("e5-base", "768", "512", "4/s", "0.71", "0.86", "440MB", "multi"),
    ("gte-base", "768", "512", "4/s", "0.72", "0.87", "220MB", "en"),
    ("jina-v2", "768", "8192", "3/s", "0.70", "0.85", "550MB", "en"),
)
TABLE_ZH = (
    ("模型", "维度", "窗口", "速度", "准确率", "召回率", "大小", "语言"),
    ("小型", "384", "256", "13条", "0.64", "0.81", "90兆", "英文"),
    ("中型", "512", "512", "9条", "0.69", "0.84", "130兆", "中文"),
    ("基础", "768", "512", "4条", "0.71", "0.86", "440兆", "多语"),
    ("通用", "768", "512", "4条", "0.72", "0.87", "220兆", "中文"),
    ("长文", "768", "8192", "3条", "0.70", "0.85", "550兆", "英文"),
)


def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def table_screenshot(rows: tuple[tuple[str, ...], ...] = TABLE_EN, cell: tuple[int, int] = (150, 48)) -> bytes:
    """A screenshot of a ruled table, 20-pixel text (a screen at 100%), a grey header row."""
    from PIL import Image, ImageDraw, ImageFont

    chinese = any("\u4e00" <= ch <= "\u9fff" for row in rows for text in row for ch in text)
    font = ImageFont.truetype(CHINESE_FONT_FILE if chinese else LATIN_FONT_FILE, 20)
    width, height = cell[0] * len(rows[0]) + 20, cell[1] * len(rows) + 20
    image = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rectangle((10, 10, width - 10, 10 + cell[1]), fill=(235, 237, 240))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            draw.text((10 + c * cell[0] + 10, 10 + r * cell[1] + 12), text, font=font, fill=(20, 20, 20))
    for r in range(len(rows) + 1):
        draw.line((10, 10 + r * cell[1], width - 10, 10 + r * cell[1]), fill=(150, 150, 150), width=1)
    for c in range(len(rows[0]) + 1):
        draw.line((10 + c * cell[0], 10, 10 + c * cell[0], height - 10), fill=(150, 150, 150), width=1)
    return _png(image)


def bar_chart(size: tuple[int, int] = (1200, 800)) -> bytes:
    """A bar chart as a spreadsheet draws it: a title, y ticks, gridlines, six bars, x labels."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(LATIN_FONT_FILE, 20)
    title = ImageFont.truetype(LATIN_FONT_FILE, 28)
    width, height = size
    image = Image.new("RGB", size, (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((width // 2 - 170, 20), "Queries per month", font=title, fill=(40, 40, 40))
    left, bottom, top = 100, height - 80, 90
    for tick in range(6):
        y = bottom - tick * (bottom - top) // 5
        draw.line((left, y, width - 40, y), fill=(220, 220, 220), width=1)
        draw.text((40, y - 12), str(tick * 20), font=font, fill=(80, 80, 80))
    values = (35, 62, 48, 91, 77, 55)
    slot = (width - 40 - left) // len(values)
    for index, value in enumerate(values):
        x = left + index * slot + slot // 4
        draw.rectangle((x, bottom - value * (bottom - top) // 100, x + slot // 2, bottom), fill=(66, 133, 244))
        draw.text(
            (x + 10, bottom + 15), ("Jan", "Feb", "Mar", "Apr", "May", "Jun")[index], font=font, fill=(80, 80, 80)
        )
    draw.line((left, top, left, bottom), fill=(60, 60, 60), width=2)
    draw.line((left, bottom, width - 40, bottom), fill=(60, 60, 60), width=2)
    return _png(image)


def photo_like(size: tuple[int, int] = (1200, 800), seed: int = 7) -> bytes:
    """Sky, hills and a few soft blobs, blurred, with sensor noise: no text at all."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter

    width, height = size
    rng = random.Random(seed)
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    for y in range(height):  # a sky fading into the ground
        shade = int(120 + 100 * y / height)
        draw.line((0, y, width, y), fill=(shade - 60, shade - 20, min(255, shade + 30)))
    for _ in range(25):
        x, y, r = rng.randrange(width), rng.randrange(height // 3, height), rng.randrange(30, 160)
        colour = (rng.randrange(40, 200), rng.randrange(60, 180), rng.randrange(20, 120))
        draw.ellipse((x - r, y - r // 2, x + r, y + r // 2), fill=colour)
    image = image.filter(ImageFilter.GaussianBlur(6))
    noise = np.random.default_rng(seed).normal(0, 9, (height, width, 3))
    pixels = np.clip(np.asarray(image, dtype=np.float64) + noise, 0, 255).astype(np.uint8)
    return _png(Image.fromarray(pixels))


# -- pictures of text on a PDF page (reportlab) ----------------------------------------------------


def text_picture(lines: list[str], size: tuple[int, int] = (1500, 1000)) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("L", size, 255)
    draw = ImageDraw.Draw(picture)
    font = ImageFont.truetype(CHINESE_FONT_FILE, 64)  # its Latin letters read as well as its Chinese
    for number, line in enumerate(lines):
        draw.text((60, 60 + 102 * number), line, font=font, fill=0)
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def picture_page(
    texts: list[tuple[float, float, str]],
    pictures: list[tuple[list[str] | bytes, tuple[float, float, float, float]]],
    chinese: bool = False,
) -> bytes:
    """One A4 page: ``texts`` (x, y from the bottom, text) as glyphs, ``pictures`` (lines or PNG
    bytes, (x, y, w, h))."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    font = "Helvetica"
    if chinese:
        pdfmetrics.registerFont(TTFont("wqy", CHINESE_FONT_FILE, subfontIndex=0))
        font = "wqy"
    page.setFont(font, 11)
    for x, y, text in texts:
        page.drawString(x, y, text)
    for lines, (x, y, width, height) in pictures:
        png = lines if isinstance(lines, bytes) else text_picture(lines)
        page.drawImage(ImageReader(io.BytesIO(png)), x, y, width=width, height=height)
    page.showPage()
    page.save()
    return out.getvalue()
