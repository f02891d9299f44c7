"""One chunk per heading section: from a heading line up to the next heading of any level.

Text before the first heading is a section of its own. A heading with no text of its own (a title
directly over a subtitle) opens the next section instead: alone it would be a chunk with nothing
to retrieve. A section longer than ``size`` is cut by the recursive splitter, so every chunk still
fits and keeps the heading path of its start; its headings stay with the text below them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from workbench.chunking.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.recursive import RecursiveSplitter
from workbench.chunking.tokens import LengthConfig, TokenSpans, measure_for


@dataclass(frozen=True)
class MarkdownHeadingsConfig(LengthConfig):
    """Sections longer than ``size`` units are split recursively, with ``overlap`` between the parts."""


def section_bounds(markdown: str, headings: HeadingIndex) -> list[tuple[int, int]]:
    """``[start, end)`` of the preamble (possibly empty) and of each section.

    A section starts at each heading, except at a heading that follows headings with no text of
    their own: those join its section, so no section holds heading lines only unless the
    document ends with them.
    """
    offsets = [heading.offset for heading in headings.headings]
    starts: list[int] = []
    only_headings = False  # whether the section begun last holds nothing but heading lines so far
    for offset, next_offset in pairwise([*offsets, len(markdown)]):
        if not only_headings:
            starts.append(offset)
        line_end = markdown.find("\n", offset, next_offset)
        only_headings = line_end < 0 or not markdown[line_end:next_offset].strip()
    if not starts or starts[0] > 0:
        starts.insert(0, 0)
    return list(pairwise([*starts, len(markdown)]))


def split(markdown: str, config: MarkdownHeadingsConfig, *, tokens: TokenSpans | None = None) -> list[Chunk]:
    measure = measure_for(markdown, config.unit, tokens)
    headings = HeadingIndex(markdown)
    splitter = RecursiveSplitter(markdown, config.size, config.overlap, measure, headings)
    chunks = []
    for section_start, section_end in section_bounds(markdown, headings):
        for start, end in splitter.split_span(section_start, section_end):
            chunks.append(Chunk(text=markdown[start:end], start=start, end=end, heading_path=headings.path_at(start)))
    return chunks
