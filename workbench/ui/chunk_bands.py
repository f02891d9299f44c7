"""Chunk boundaries drawn over a document's Markdown as coloured bands, overlaps striped.

``band_segments`` is the pure part: it cuts the text at every chunk start and end and records
which chunks cover each piece. ``bands_html`` turns that into HTML in which every character of
the document is escaped, so document text is only ever shown as text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

#: light backgrounds that keep dark text readable; neighbouring chunks never share a colour
PALETTE = ("#cfe8ff", "#ffe3b3", "#d4f5d0", "#f8d0e6", "#e4dcff", "#fff4a8", "#c9f1f0", "#ffd6cc")
UNCOVERED_COLOUR = "#9aa0a6"


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    chunks: tuple[int, ...]  # indices (into the span list) of the chunks covering [start, end)

    @property
    def is_overlap(self) -> bool:
        return len(self.chunks) > 1


def band_segments(length: int, spans: Sequence[tuple[int, int]]) -> list[Segment]:
    """Split ``[0, length)`` at every span boundary; each piece lists the spans covering it.

    Spans are clipped to the text; empty spans cover nothing. Adjacent pieces always differ in
    their covering set, except where a boundary falls between two different chunks.
    """
    clipped = [(max(0, min(s, length)), max(0, min(e, length))) for s, e in spans]
    cuts = sorted({0, length, *(s for s, _ in clipped), *(e for _, e in clipped)})
    starts_at: dict[int, list[int]] = {}
    ends_at: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(clipped):
        if end > start:
            starts_at.setdefault(start, []).append(index)
            ends_at.setdefault(end, []).append(index)
    active: set[int] = set()
    segments = []
    for left, right in pairwise(cuts):
        active.difference_update(ends_at.get(left, ()))
        active.update(starts_at.get(left, ()))
        segments.append(Segment(left, right, tuple(sorted(active))))
    return segments


def chunk_colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _segment_style(segment: Segment) -> str:
    if not segment.chunks:
        return f"color:{UNCOVERED_COLOUR};"
    if not segment.is_overlap:
        return f"background:{chunk_colour(segment.chunks[0])};color:#111;"
    first, second = chunk_colour(segment.chunks[0]), chunk_colour(segment.chunks[-1])
    stripes = f"repeating-linear-gradient(135deg,{first} 0 6px,{second} 6px 12px)"
    return f"background:{stripes};color:#111;box-shadow:inset 0 -2px 0 #c0392b;"


def _segment_title(segment: Segment) -> str:
    if not segment.chunks:
        return "not in any chunk"
    names = " + ".join(f"chunk {index + 1}" for index in segment.chunks)
    return f"{names} (overlap)" if segment.is_overlap else names


def _marker(index: int) -> str:
    return (
        f'<span style="background:#333;color:#fff;border-radius:3px;padding:0 3px;margin-right:2px;'
        f'font-size:0.7em;vertical-align:top;" title="chunk {index + 1} starts here">{index + 1}</span>'
    )


def bands_html(markdown: str, spans: Sequence[tuple[int, int]], max_height_px: int = 520) -> str:
    """The whole document with each chunk's span as a coloured band and a numbered start marker.

    Overlapping text is striped in both chunks' colours and underlined in red; text no chunk
    covers is grey. Every piece of document text goes through ``html.escape``.
    """
    starts: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(spans):
        if end > start:
            starts.setdefault(max(0, start), []).append(index)
    parts = []
    for segment in band_segments(len(markdown), spans):
        markers = "".join(_marker(index) for index in starts.pop(segment.start, ()))
        text = html.escape(markdown[segment.start : segment.end], quote=True)
        title = html.escape(_segment_title(segment), quote=True)
        parts.append(f'{markers}<span style="{_segment_style(segment)}" title="{title}">{text}</span>')
    box = (
        "font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:0.8rem;line-height:1.7;"
        f"white-space:pre-wrap;word-break:break-word;max-height:{max_height_px}px;overflow-y:auto;"
        "border:1px solid rgba(128,128,128,0.4);border-radius:6px;padding:0.6rem;"
    )
    return f'<div class="chunk-bands" style="{box}">{"".join(parts)}</div>'
