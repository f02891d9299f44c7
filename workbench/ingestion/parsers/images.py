"""Images to searchable text: OCR with Debian's tesseract, captions from a vision endpoint.

Both are optional, and either is enough:

* **OCR** runs the ``tesseract`` command (Debian: ``apt-get install tesseract-ocr
  tesseract-ocr-eng tesseract-ocr-chi-sim``) with the language packs in
  ``ingest.ocr_languages`` that are installed. The same function reads PDF pages that have no
  text layer (scans), rendered by pdfium.
* **Captions** come from an OpenAI-compatible vision model (``WORKBENCH_LLM_*``, see
  ``workbench.llm``), in the language of the image's text (Chinese when OCR finds mostly Chinese
  characters, else English), when ``ingest.captions`` is on.

Every image is decoded by Pillow first: a file that is not an image, or that would decode to
more than ``ingest.max_image_megapixels``, fails before OCR or an endpoint sees it.
"""

from __future__ import annotations

import functools
import io
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from workbench.config import IngestConfig
from workbench.ingestion.parsers.document import Extraction, ParseError, register_parsers
from workbench.language.scripts import text_language

#: file extension -> (document type, MIME type sent to the vision endpoint)
IMAGE_TYPES: Mapping[str, tuple[str, str]] = {
    ".png": ("png", "image/png"),
    ".jpg": ("jpg", "image/jpeg"),
    ".jpeg": ("jpg", "image/jpeg"),
    ".webp": ("webp", "image/webp"),
    ".gif": ("gif", "image/gif"),
    ".bmp": ("bmp", "image/bmp"),
    ".tiff": ("tiff", "image/tiff"),
    ".tif": ("tiff", "image/tiff"),
}
IMAGE_DOC_TYPES = frozenset(doc_type for doc_type, _ in IMAGE_TYPES.values())

INSTALL_TESSERACT = (
    "install Debian's tesseract-ocr (apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim)"
)
#: tesseract's own time limit per page, well inside the worker's ingest.parse_timeout_s
OCR_PAGE_TIMEOUT_S = 45.0
# tesseract separates every Chinese character by a space; Chinese text has none
_SPACE_BETWEEN_CJK = re.compile(
    r"(?<=[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef])[ \t]+"
    r"(?=[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef])"
)


class ImageError(Exception):
    """An image that cannot become text; the message names the fix."""


class OcrTimeout(ImageError):
    """tesseract took longer than it was given on one image."""


@dataclass(frozen=True)
class ImageText:
    """What an image says: OCR text and/or a caption, and notes on what was not available."""

    ocr_text: str = ""
    caption: str = ""
    language: str = "en"
    caption_model: str = ""
    notes: tuple[str, ...] = ()
    metadata: dict = field(default_factory=dict)


# -- OCR ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def tesseract_path() -> str | None:
    return shutil.which("tesseract")


@functools.lru_cache(maxsize=1)
def installed_ocr_languages() -> frozenset[str]:
    binary = tesseract_path()
    if binary is None:
        return frozenset()
    try:
        listed = subprocess.run([binary, "--list-langs"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    lines = (listed.stdout + listed.stderr).splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and " " not in line.strip())


def ocr_languages(requested: str) -> str | None:
    """The ``-l`` argument: the requested packs that are installed, or None when OCR is unavailable."""
    installed = installed_ocr_languages()
    usable = [lang for lang in requested.split("+") if lang.strip() in installed]
    return "+".join(usable) if usable else None


def ocr_unavailable_reason(requested: str) -> str:
    if tesseract_path() is None:
        return f"OCR is not installed: {INSTALL_TESSERACT}"
    return (
        f"none of the OCR languages {requested!r} (ingest.ocr_languages) is installed; installed: "
        f"{', '.join(sorted(installed_ocr_languages())) or 'none'}; {INSTALL_TESSERACT}"
    )


def ocr_png(png: bytes, languages: str, timeout_s: float = OCR_PAGE_TIMEOUT_S) -> str:
    """Text tesseract reads in a PNG image (page segmentation: automatic); ``OcrTimeout`` past ``timeout_s``."""
    try:
        done = subprocess.run(
            [tesseract_path() or "tesseract", "stdin", "stdout", "-l", languages, "--psm", "3"],
            input=png,
            capture_output=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired as error:
        raise OcrTimeout(
            f"OCR took longer than {timeout_s:g} s on one image; crop or downscale it and upload it again"
        ) from error
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ImageError(f"tesseract failed ({message[-1] if message else f'exit {done.returncode}'})")
    return tidy_ocr_text(done.stdout.decode("utf-8", "replace"))


def tidy_ocr_text(text: str) -> str:
    text = _SPACE_BETWEEN_CJK.sub("", text)
    lines = [line.strip() for line in text.replace("\f", "\n").splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# -- decoding -----------------------------------------------------------------------------------


def decoded_png(data: bytes, limits: IngestConfig) -> bytes:
    """The image re-encoded as PNG (first frame), after the size check; ImageError otherwise."""
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = None  # the limit below is ours, and names its setting
    try:
        image = Image.open(io.BytesIO(data))  # reads the header only
    except (UnidentifiedImageError, OSError, ValueError) as error:
        raise ImageError(
            "not a readable image (corrupt, truncated, or another format renamed); "
            "re-export it as PNG or JPEG and upload it again"
        ) from error
    width, height = image.size
    megapixels = width * height / 1e6
    if megapixels > limits.max_image_megapixels:
        raise ImageError(
            f"image of {width:,} x {height:,} pixels ({megapixels:,.0f} megapixels), over the "
            f"{limits.max_image_megapixels:g} megapixel limit (ingest.max_image_megapixels); "
            f"downscale it, or raise it with --set ingest.max_image_megapixels={int(megapixels) + 1}"
        )
    try:
        image.seek(0)
        frame = image.convert("RGB") if image.mode not in ("RGB", "L") else image.copy()
    except (OSError, ValueError, EOFError) as error:
        raise ImageError("the image data is corrupt or truncated; re-export it and upload it again") from error
    out = io.BytesIO()
    frame.save(out, format="PNG")
    return out.getvalue()


# -- the whole image ----------------------------------------------------------------------------


def describe_image(data: bytes, mime: str, limits: IngestConfig) -> ImageText:
    """OCR text and a caption for one image file, as far as the machine and settings allow."""
    png = decoded_png(data, limits)
    notes: list[str] = []
    ocr_text = ""
    languages = ocr_languages(limits.ocr_languages)
    if languages is not None:
        ocr_text = ocr_png(png, languages)
    else:
        notes.append(ocr_unavailable_reason(limits.ocr_languages))
    language = "zh" if text_language(ocr_text) == "zh" else "en"  # the languages captions are written in

    caption, caption_model = "", ""
    from workbench.llm.vision import caption_image, vision_settings_from_env

    settings, problem = vision_settings_from_env() if limits.captions else (None, "captions are off (ingest.captions)")
    if settings is not None:
        # the original bytes when the endpoint can read them; PNG for formats it may not (TIFF, BMP)
        sent, sent_mime = (
            (data, mime) if mime in ("image/png", "image/jpeg", "image/webp", "image/gif") else (png, "image/png")
        )
        result = caption_image(sent, sent_mime, language, settings)
        if result.ok:
            caption, caption_model = result.text.strip(), result.model
        else:
            notes.append(f"no caption: {result.error}")
    else:
        notes.append(f"no caption: {problem}")

    if not ocr_text and not caption:
        if languages is None and settings is None:
            raise ImageError(
                "images need OCR or a caption model, and neither is available here: "
                f"{INSTALL_TESSERACT}, or configure a vision endpoint (WORKBENCH_LLM_BASE_URL and "
                "WORKBENCH_LLM_MODEL, optionally WORKBENCH_LLM_VISION_MODEL)"
            )
        found = ["OCR read no text"] if languages is not None else []
        raise ImageError("nothing searchable in the image: " + "; ".join(found + notes))
    metadata: dict[str, object] = {"image": True}
    if caption:
        metadata.update(caption=caption, caption_model=caption_model, caption_language=language)
    return ImageText(ocr_text, caption, language, caption_model, tuple(notes), metadata)


def image_markdown(name: str, described: ImageText) -> str:
    """The document text of an image: its caption, then the text OCR read in it."""
    parts = [f"Image: {name}"]
    if described.caption:
        parts.append(("图片说明：" if described.language == "zh" else "Caption: ") + described.caption)
    if described.ocr_text:
        parts.append(
            ("图中文字：" if described.language == "zh" else "Text in the image:") + "\n\n" + described.ocr_text
        )
    return "\n\n".join(parts)


# -- scanned PDF pages --------------------------------------------------------------------------

#: rendering resolution for OCR: 300 dpi is what tesseract is tuned for
OCR_DPI = 300


def ocr_pdf_pages(data: bytes, page_numbers: list[int], limits: IngestConfig) -> dict[int, str]:
    """OCR text of the given 0-based pages of a PDF (pages rendered by pdfium)."""
    import pypdfium2 as pdfium

    languages = ocr_languages(limits.ocr_languages)
    if languages is None:
        raise ImageError(ocr_unavailable_reason(limits.ocr_languages))
    document = pdfium.PdfDocument(data)
    texts: dict[int, str] = {}
    try:
        for number in page_numbers:
            page = document[number]
            width_in, height_in = page.get_width() / 72, page.get_height() / 72
            scale = OCR_DPI / 72
            megapixels = width_in * OCR_DPI * height_in * OCR_DPI / 1e6
            if megapixels > limits.max_image_megapixels:  # a poster-sized page: render it smaller
                scale *= (limits.max_image_megapixels / megapixels) ** 0.5
            bitmap = page.render(scale=scale, grayscale=True)
            out = io.BytesIO()
            bitmap.to_pil().save(out, format="PNG")
            texts[number] = ocr_png(out.getvalue(), languages)
    finally:
        document.close()
    return texts


def pdf_page_texts(data: bytes) -> list[str] | None:
    """Each page's text layer as pdfium reads it, or None when pdfium cannot open the file."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except Exception:  # pdfminer's own error decides the reason for unreadable files
        return None
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


def extract_image(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    _, mime = IMAGE_TYPES[PurePath(source).suffix.lower()]
    try:
        described = describe_image(data, mime, limits)
    except ImageError as error:
        raise ParseError(source, str(error)) from error
    return Extraction(
        (image_markdown(PurePath(source).name, described),),
        title_hint=PurePath(source).stem,
        chunk_metadata=described.metadata,
    )


register_parsers(
    {extension: doc_type for extension, (doc_type, _) in IMAGE_TYPES.items()},
    {doc_type: extract_image for doc_type in IMAGE_DOC_TYPES},
)
