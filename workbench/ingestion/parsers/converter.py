"""The one markitdown instance, with only the converters parsing routes to.

None of those converters reaches the network (no URL, YouTube, Wikipedia, Azure or LLM paths
exist in the instance), and a file cannot silently fall through to a different converter when
its own one fails -- markitdown otherwise retries with whatever type its content sniffer
guesses, and would, say, read a text file named ``.pdf`` as text. markitdown is imported on
first use: it pulls in pandas, pdfminer, magika, ...
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from workbench.ingestion.parsers.document import ParseError

if TYPE_CHECKING:
    from markitdown import DocumentConverterResult, MarkItDown

#: why a file markitdown failed on is unreadable, from the library's underlying exception (or None)
FailureReason = Callable[[BaseException | None], str]

_markitdown_instance: MarkItDown | None = None
_markitdown_lock = threading.Lock()


def markitdown() -> MarkItDown:
    """The one MarkItDown instance, built on first use with only the converters we route to."""
    global _markitdown_instance
    with _markitdown_lock:
        if _markitdown_instance is None:
            from markitdown import PRIORITY_GENERIC_FILE_FORMAT, MarkItDown
            from markitdown.converters import (
                CsvConverter,
                DocxConverter,
                HtmlConverter,
                PdfConverter,
                PptxConverter,
                XlsxConverter,
            )

            instance = MarkItDown(enable_builtins=False, enable_plugins=False)
            instance.register_converter(HtmlConverter(), priority=PRIORITY_GENERIC_FILE_FORMAT)
            for converter in (PdfConverter(), DocxConverter(), PptxConverter(), XlsxConverter(), CsvConverter()):
                instance.register_converter(converter)
            _markitdown_instance = instance
        return _markitdown_instance


def convert(
    data: bytes, source: str, doc_type: str, *, charset: str | None = None, failure_reason: FailureReason | None = None
) -> DocumentConverterResult:
    """Run markitdown on ``data`` as ``doc_type``; library failures become ParseErrors.

    ``failure_reason`` words the error for the format (a PDF's password, an Office file's
    corruption); without it the error names the type and the exception.
    """
    from markitdown import FileConversionException, MissingDependencyException, StreamInfo

    info = StreamInfo(extension=f".{doc_type}", filename=source, charset=charset)
    try:
        return markitdown().convert_stream(io.BytesIO(data), stream_info=info)
    except FileConversionException as exc:
        attempts = exc.attempts or []
        cause = next((a.exc_info[1] for a in attempts if a.exc_info is not None), None)
        if isinstance(cause, MissingDependencyException):  # a broken install, not a bad file
            raise RuntimeError(f"markitdown cannot read .{doc_type} files here: {cause}") from cause
        if failure_reason is not None:
            reason = failure_reason(cause)
        else:
            reason = f"unreadable {doc_type.upper()} ({type(cause).__name__}); check the file and upload it again"
        raise ParseError(source, reason) from (cause or exc)
