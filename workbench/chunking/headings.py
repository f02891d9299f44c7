"""Markdown ATX headings, fenced code blocks, and the heading path enclosing any offset.

Only ATX headings (``#`` to ``######`` at the start of a line, indented by at most three spaces)
count. Lines inside fenced code blocks (``````` or ``~~~``) are code, never headings, so a
``# comment`` in a shell snippet does not open a section.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

# One pass over the lines that can matter: fence lines and heading candidates. ``$`` with
# re.MULTILINE stops before "\n", so groups never swallow the line break.
_BLOCK_LINE = re.compile(
    r"^ {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)|(?P<hashes>#{1,6})(?P<rest>(?:[ \t][^\n]*)?)\r?)$",
    re.MULTILINE,
)
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")


@dataclass(frozen=True, slots=True)
class Heading:
    level: int  # 1 for "#", 6 for "######"
    text: str  # heading text without the hashes or an optional closing "###"
    offset: int  # where the heading line starts


@dataclass(frozen=True, slots=True)
class MarkdownOutline:
    """Headings and fenced code blocks of one Markdown text, in document order."""

    headings: tuple[Heading, ...]
    code_blocks: tuple[tuple[int, int], ...]  # (start of opening fence line, end of closing fence line)


def outline(markdown: str) -> MarkdownOutline:
    headings: list[Heading] = []
    code_blocks: list[tuple[int, int]] = []
    open_fence: str | None = None  # the fence run ("```", "~~~~") of the code block we are inside
    fence_start = 0
    for match in _BLOCK_LINE.finditer(markdown):
        fence = match.group("fence")
        if open_fence is not None:
            # Only a run of the same character, at least as long, with nothing after it closes.
            if (
                fence
                and fence[0] == open_fence[0]
                and len(fence) >= len(open_fence)
                and not match.group("info").strip()
            ):
                code_blocks.append((fence_start, match.end()))
                open_fence = None
            continue
        if fence:
            if fence[0] == "`" and "`" in match.group("info"):
                continue  # CommonMark: a backtick fence's info string may not contain backticks
            open_fence, fence_start = fence, match.start()
            continue
        text = _CLOSING_HASHES.sub("", match.group("rest").strip())
        headings.append(Heading(level=len(match.group("hashes")), text=text.strip(), offset=match.start()))
    if open_fence is not None:
        code_blocks.append((fence_start, len(markdown)))  # an unclosed fence runs to the end
    return MarkdownOutline(headings=tuple(headings), code_blocks=tuple(code_blocks))


def find_headings(markdown: str) -> list[Heading]:
    return list(outline(markdown).headings)


def find_code_blocks(markdown: str) -> list[tuple[int, int]]:
    return list(outline(markdown).code_blocks)


class HeadingIndex:
    """Answers "which headings enclose this offset?" with one bisect per query."""

    def __init__(self, markdown: str) -> None:
        self.outline = outline(markdown)
        self._offsets = [heading.offset for heading in self.outline.headings]
        # The path in force from each heading until the next one, built once so lookups are O(log n).
        self._paths: list[tuple[str, ...]] = []
        stack: list[Heading] = []
        for heading in self.outline.headings:
            while stack and stack[-1].level >= heading.level:
                stack.pop()
            stack.append(heading)
            self._paths.append(tuple(h.text for h in stack))

    @property
    def headings(self) -> tuple[Heading, ...]:
        return self.outline.headings

    @property
    def code_blocks(self) -> tuple[tuple[int, int], ...]:
        return self.outline.code_blocks

    def path_at(self, offset: int) -> tuple[str, ...]:
        """Headings enclosing ``offset``, outermost first; a heading line encloses itself."""
        index = bisect_right(self._offsets, offset) - 1
        return self._paths[index] if index >= 0 else ()

    def heading_offsets_between(self, start: int, end: int, level: int | None = None) -> list[int]:
        """Offsets of heading lines strictly inside ``(start, end)``, optionally of one level."""
        low, high = bisect_right(self._offsets, start), bisect_left(self._offsets, end)
        return [h.offset for h in self.outline.headings[low:high] if level is None or h.level == level]
