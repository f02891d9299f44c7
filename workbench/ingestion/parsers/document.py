"""What parsing produces: a ``ParsedDocument``, a ``ParseError``, and the raw ``Extraction`` a format hands over."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise

from workbench.config import IngestConfig
from workbench.ingestion.parsers.image_notes import ImageNote
from workbench.plugins import Registry


@dataclass(frozen=True)
class ParsedDocument:
    """A document as canonical Markdown.

    ``page_starts[i]`` is the offset in ``markdown`` where page (or slide) ``i + 1`` begins; it
    is empty when the source has no pages or they are unknown. A page without text starts where
    the next page's text starts (or at ``len(markdown)`` when no text follows).
    """

    markdown: str
    doc_type: str
    title: str
    page_starts: tuple[int, ...] = ()
    #: stored with every chunk of the document (an image's caption, say)
    chunk_metadata: Mapping = field(default_factory=dict)
    #: the version of the parser that wrote ``markdown`` (``registry.parser_version``)
    parser_version: int = 1
    #: the pictures inside the document: their text read by OCR, or skipped and why
    images: tuple[ImageNote, ...] = ()

    def __post_init__(self) -> None:
        starts = self.page_starts
        if starts and (starts[0] != 0 or any(a > b for a, b in pairwise(starts)) or starts[-1] > len(self.markdown)):
            raise ValueError(
                f"page_starts {starts} must start at 0, never decrease and stay within the "
                f"{len(self.markdown)}-character markdown"
            )

    def page_at(self, offset: int) -> int | None:
        """The 1-based page holding character ``offset``, or None when pages are unknown.

        ``offset == len(markdown)`` (an end offset) maps to the last page.
        """
        if not self.page_starts:
            return None
        if not 0 <= offset <= len(self.markdown):
            raise ValueError(f"offset {offset} is outside the document's markdown [0, {len(self.markdown)}]")
        return bisect_right(self.page_starts, offset)


class ParseError(Exception):
    """A file that cannot become a document; ``reason`` says why and what to do about it."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason

    def __reduce__(self):  # the default pickling would call __init__ with the message alone
        return (type(self), (self.source, self.reason))


@dataclass(frozen=True)
class Extraction:
    """Raw text from one format: ``parts`` are pages/slides when ``paged``, else joined as one."""

    parts: tuple[str, ...]
    paged: bool = False
    title_hint: str | None = None
    chunk_metadata: Mapping = field(default_factory=dict)
    images: tuple[ImageNote, ...] = ()


#: a format's extractor: (file bytes, source name, limits) -> its raw text, or a ParseError
Extractor = Callable[[bytes, str, IngestConfig], Extraction]


@dataclass(frozen=True)
class Parser:
    """How files of one extension are read: the document type recorded, the extractor, and the
    version of that extractor's output (stored with each document; older ones are parsed again)."""

    doc_type: str
    extract: Extractor
    version: int = 1


#: every file extension the workbench reads (lower case, with the dot), by the format family that
#: reads it; a new format is one extractor and one ``PARSERS.register`` in its family's module
PARSERS: Registry[Parser] = Registry("file type")


def register_parsers(
    types: Mapping[str, str], extractors: Mapping[str, Extractor], versions: Mapping[str, int] | None = None
) -> None:
    """Register a family's extensions: ``types`` maps an extension to its document type,
    ``extractors`` a document type to the function that reads it, ``versions`` a document type to
    the version of its extractor's output (1 when absent; raise it when the output changes)."""
    for extension, doc_type in types.items():
        PARSERS.register(extension, Parser(doc_type, extractors[doc_type], (versions or {}).get(doc_type, 1)))
