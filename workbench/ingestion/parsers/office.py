"""Office Open XML (docx, pptx, xlsx): checked as ZIP packages, then converted by markitdown.

Signature checks before conversion turn the common wrong-file cases (a password-protected or
legacy Office file, a workbook renamed to .docx) into specific messages; the package is checked
against the container limits (``parsers.containers``) before any converter inflates it.
Worksheets become one ``## sheet`` section each, and PPTX slide markers
(``<!-- Slide number: N -->``, removed from the text) become pages. DOCX goes through
``parsers.docx`` (code blocks, pictures, links made faithful); the pictures of both DOCX and PPTX
are read as those on PDF pages are (``parsers.picture_text``), each with a note.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import zipfile
from typing import Any

from workbench.config import IngestConfig
from workbench.ingestion.parsers.containers import container_violation, zip_figures
from workbench.ingestion.parsers.converter import convert
from workbench.ingestion.parsers.document import Extraction, ParseError, register_parsers
from workbench.ingestion.parsers.image_notes import ImageNote

log = logging.getLogger(__name__)

#: 2: DOCX code blocks keep their lines, links come from relationships only, and the pictures of
#: DOCX and PPTX are read by OCR (or named: ``[image: image1.png]``), never left as base64
OFFICE_PARSER_VERSION = 2

OFFICE_KINDS = {  # doc type -> (the part only that kind of package has, human name)
    "docx": ("word/document.xml", "a Word document"),
    "pptx": ("ppt/presentation.xml", "a PowerPoint presentation"),
    "xlsx": ("xl/workbook.xml", "an Excel workbook"),
}
# Compound File Binary: the container of legacy .doc/.xls/.ppt and of password-protected
# Office files (encryption wraps the zip package in one).
_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SLIDE_MARKER = re.compile(r"^<!-- Slide number: \d+ -->$", re.MULTILINE)
_PICTURE_TOKEN = re.compile(r"^workbench-picture-(\d+)$", re.MULTILINE)


def _check_office_package(data: bytes, source: str, doc_type: str, limits: IngestConfig) -> None:
    extension = f".{doc_type}"
    if data.startswith(_CFB_MAGIC):
        raise ParseError(
            source,
            f"password-protected, or a legacy Office file (.doc/.ppt/.xls) renamed to "
            f"{extension}; remove the password or re-save it as {extension} and upload it again",
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            names = set(package.namelist())
        violation = container_violation(zip_figures(data), limits)
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:  # ValueError/EOFError: mangled headers
        raise ParseError(source, _office_corrupt_reason(doc_type)) from exc
    if violation:
        raise ParseError(source, violation)
    required_part, name = OFFICE_KINDS[doc_type]
    if required_part in names:
        return
    for other_type, (other_part, other_name) in OFFICE_KINDS.items():
        if other_part in names:
            raise ParseError(source, f"{other_name}, not {name}; rename it to .{other_type} and upload it again")
    raise ParseError(
        source,
        f"a ZIP archive but not {name} (no {required_part}); "
        f"open it in Office, save it as {extension} and upload it again",
    )


def _office_corrupt_reason(doc_type: str) -> str:
    return (
        f"not a valid {doc_type.upper()} (file is corrupt or truncated); re-save it as .{doc_type} and upload it again"
    )


def _convert_office(data: bytes, source: str, doc_type: str) -> str:
    return convert(data, source, doc_type, failure_reason=lambda cause: _office_corrupt_reason(doc_type)).markdown


def extract_docx(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    from lxml.etree import XMLSyntaxError

    from workbench.ingestion.parsers.docx import docx_markdown

    _check_office_package(data, source, "docx", limits)
    try:
        markdown, notes = docx_markdown(data, source, limits)
    except (zipfile.BadZipFile, KeyError, XMLSyntaxError, ValueError, EOFError) as exc:
        raise ParseError(source, _office_corrupt_reason("docx")) from exc
    return Extraction((markdown,), images=notes)


def extract_xlsx(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    _check_office_package(data, source, "xlsx", limits)
    return Extraction((_convert_office(data, source, "xlsx"),))


def extract_pptx(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    _check_office_package(data, source, "pptx", limits)
    markdown, pictures = _pptx_markdown(data, source, limits)
    # markitdown opens every slide with a marker line; the text before the first one is empty.
    preamble, *slides = _SLIDE_MARKER.split(markdown)
    paged = bool(slides)
    slides = [preamble + slides[0], *slides[1:]] if slides else [markdown]
    notes: list[ImageNote] = []
    for number, slide in enumerate(slides, start=1):

        def placed(match: re.Match[str], number: int = number) -> str:
            return _placed_picture(pictures[int(match.group(1))], number if paged else 0, notes)

        # a blank line on each side: a quote's next line would otherwise continue it
        slides[number - 1] = re.sub(r"\n{3,}", "\n\n", _PICTURE_TOKEN.sub(placed, slide))
    return Extraction(tuple(slides), paged=paged, images=tuple(notes))


def _placed_picture(picture: tuple[str, str, ImageNote], slide: int, notes: list[ImageNote]) -> str:
    from dataclasses import replace

    from workbench.ingestion.parsers.docx import picture_text

    name, text, note = picture
    notes.append(replace(note, page=slide))
    return "\n" + picture_text(name, "", text).strip() + "\n"


def _pptx_markdown(data: bytes, source: str, limits: IngestConfig) -> tuple[str, list[tuple[str, str, ImageNote]]]:
    """markitdown's Markdown of a presentation, each picture a ``workbench-picture-N`` line, and the
    pictures: (name, OCR text, note), read by ``picture_text`` as markitdown meets them."""
    from markitdown import StreamInfo
    from markitdown.converters import PptxConverter

    from workbench.ingestion.parsers.docx import media_names
    from workbench.ingestion.parsers.images import ImageError
    from workbench.ingestion.parsers.pdf.image_text import ocr_characters
    from workbench.ingestion.parsers.picture_text import PictureReader, open_picture

    names = media_names(data)
    reader = PictureReader(limits, ocr_characters)
    pictures: list[tuple[str, str, ImageNote]] = []

    class Presentation(PptxConverter):
        def _image_to_html(self, image_stream: Any, stream_info: StreamInfo, **kwargs: Any) -> str:
            blob = image_stream.read()
            name = names.get(hashlib.sha256(blob).hexdigest(), stream_info.filename or f"image{len(pictures) + 1}")
            text = ""
            try:
                text, note = reader.read(open_picture(blob, limits), 0, 0.0, name)
            except ImageError as error:  # EMF, WMF, SVG: formats Pillow does not draw
                note = ImageNote(0, 0.0, skipped=f"not read: {error}", name=name)
            pictures.append((name, text, note))
            return f"<p>workbench-picture-{len(pictures) - 1}</p>"

    try:
        converted = Presentation().convert(io.BytesIO(data), StreamInfo(extension=".pptx", filename=source))
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError) as exc:
        log.info("python-pptx could not read %s", source, exc_info=True)
        raise ParseError(source, _office_corrupt_reason("pptx")) from exc
    return converted.markdown, pictures


register_parsers(
    {".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx"},
    {"docx": extract_docx, "pptx": extract_pptx, "xlsx": extract_xlsx},
    versions={"docx": OFFICE_PARSER_VERSION, "pptx": OFFICE_PARSER_VERSION},
)
