"""Office Open XML (docx, pptx, xlsx): checked as ZIP packages, then converted by markitdown.

Signature checks before conversion turn the common wrong-file cases (a password-protected or
legacy Office file, a workbook renamed to .docx) into specific messages; the package is checked
against the container limits (``parsers.containers``) before any converter inflates it.
Worksheets become one ``## sheet`` section each, and PPTX slide markers
(``<!-- Slide number: N -->``, removed from the text) become pages.
"""

from __future__ import annotations

import io
import re
import zipfile

from workbench.config import IngestConfig
from workbench.ingestion.parsers.containers import container_violation, zip_figures
from workbench.ingestion.parsers.converter import convert
from workbench.ingestion.parsers.document import Extraction, ParseError, register_parsers

OFFICE_KINDS = {  # doc type -> (the part only that kind of package has, human name)
    "docx": ("word/document.xml", "a Word document"),
    "pptx": ("ppt/presentation.xml", "a PowerPoint presentation"),
    "xlsx": ("xl/workbook.xml", "an Excel workbook"),
}
# Compound File Binary: the container of legacy .doc/.xls/.ppt and of password-protected
# Office files (encryption wraps the zip package in one).
_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SLIDE_MARKER = re.compile(r"^<!-- Slide number: \d+ -->$", re.MULTILINE)


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
    _check_office_package(data, source, "docx", limits)
    return Extraction((_convert_office(data, source, "docx"),))


def extract_xlsx(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    _check_office_package(data, source, "xlsx", limits)
    return Extraction((_convert_office(data, source, "xlsx"),))


def extract_pptx(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    _check_office_package(data, source, "pptx", limits)
    markdown = _convert_office(data, source, "pptx")
    # markitdown opens every slide with a marker line; the text before the first one is empty.
    preamble, *slides = _SLIDE_MARKER.split(markdown)
    if not slides:
        return Extraction((markdown,))
    slides[0] = preamble + slides[0]
    return Extraction(tuple(slides), paged=True)


register_parsers(
    {".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx"},
    {"docx": extract_docx, "pptx": extract_pptx, "xlsx": extract_xlsx},
)
