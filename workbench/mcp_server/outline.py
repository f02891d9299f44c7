"""A document's sections (heading to next heading) and its opening excerpt, from its Markdown.

Pure functions over the stored Markdown and the chunk offsets, so the navigation tools can say
which chunks hold which section without re-chunking anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbench.chunking.headings import HeadingIndex

PREAMBLE_TITLE = "(text before the first heading)"
EXCERPT_CHARS = 500


@dataclass(frozen=True)
class SectionSpan:
    level: int  # 0 for the preamble
    title: str
    heading_path: tuple[str, ...]
    start: int
    end: int  # exclusive: where the next heading (of any level) starts


@dataclass(frozen=True)
class ChunkSpan:
    chunk_id: int
    start: int
    end: int


def sections_of(markdown: str) -> list[SectionSpan]:
    """Each heading opens a section that runs to the next heading; text before the first
    heading, if any, is a level-0 preamble section."""
    index = HeadingIndex(markdown)
    headings = index.headings
    sections: list[SectionSpan] = []
    first_offset = headings[0].offset if headings else len(markdown)
    if markdown[:first_offset].strip():
        sections.append(SectionSpan(0, PREAMBLE_TITLE, (), 0, first_offset))
    for position, heading in enumerate(headings):
        end = headings[position + 1].offset if position + 1 < len(headings) else len(markdown)
        sections.append(SectionSpan(heading.level, heading.text, index.path_at(heading.offset), heading.offset, end))
    return sections


def chunk_ids_overlapping(section: SectionSpan, chunks: Iterable[ChunkSpan]) -> list[int]:
    """Chunks sharing at least one character with the section, in the given order.

    A chunk that crosses a heading belongs to both sections, which is what a reader stepping
    through a section needs to see.
    """
    return [chunk.chunk_id for chunk in chunks if chunk.start < section.end and chunk.end > section.start]


def excerpt(markdown: str, limit: int = EXCERPT_CHARS) -> str:
    """The opening ``limit`` characters, cut at a word boundary when one is near, with "…" if cut."""
    text = markdown.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space >= limit * 0.8:
        cut = cut[:space]
    return cut.rstrip() + "…"
