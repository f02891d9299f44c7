"""Canonical Markdown: the one form every parsed document is stored in, page joins and titles.

Every offset parsing reports (``page_starts``) refers to the canonical text.
"""

from __future__ import annotations

import re

# Characters that Python's str.splitlines() treats as line boundaries: deleting them would glue
# the words on either side together, so they become newlines instead.
_LINE_BREAK_LIKE = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Every other control character (C0, DEL, C1) except tab and newline, plus stray byte-order
# marks, which are invisible and would only split words for search.
_INVISIBLE_JUNK = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\ufeff]")
_MAX_BLANK_LINES = 2


def canonicalize(text: str) -> str:
    """The canonical form every parsed document is stored in.

    * ``"\\r\\n"`` and ``"\\r"`` become ``"\\n"``; other line/page separators (``\\f``, ``\\v``,
      ``\\x1c``-``\\x1e``, ``\\x85``, U+2028, U+2029) become ``"\\n"`` as well;
    * NUL and every other control character except ``\\n`` and ``\\t`` is removed, as are
      byte-order marks (U+FEFF);
    * trailing whitespace is stripped from every line;
    * runs of three or more blank lines become two;
    * leading and trailing blank lines are removed, and non-empty text ends with exactly one
      ``"\\n"``. Text with nothing left becomes ``""``.

    The function is idempotent: ``canonicalize(canonicalize(t)) == canonicalize(t)``.
    """
    body = _canonical_body(text)
    return body + "\n" if body else ""


def _canonical_body(text: str) -> str:
    """``canonicalize`` without the final newline (the unit pages are joined from)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _LINE_BREAK_LIKE.sub("\n", text)
    text = _INVISIBLE_JUNK.sub("", text)
    kept: list[str] = []
    blank_run = 0
    for line in text.split("\n"):
        line = line.rstrip()
        if line:
            blank_run = 0
        elif not kept:  # leading blank lines
            continue
        else:
            blank_run += 1
            if blank_run > _MAX_BLANK_LINES:
                continue
        kept.append(line)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)


_PAGE_SEPARATOR = "\n\n"


def join_pages(pages: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    """Canonicalize page by page and join them, tracking where each page starts.

    Pages are normalised separately (then joined by one blank line) so that no normalisation
    step can move text across a page boundary and offsets are exact by construction.
    """
    bodies: list[str] = []
    starts: list[int] = []
    textless_pages = 0  # pages waiting to learn where the next text starts
    length = 0
    for page in pages:
        body = _canonical_body(page)
        if not body:
            textless_pages += 1
            continue
        if bodies:
            length += len(_PAGE_SEPARATOR)
        starts.extend([length] * (textless_pages + 1))
        textless_pages = 0
        bodies.append(body)
        length += len(body)
    markdown = _PAGE_SEPARATOR.join(bodies) + "\n" if bodies else ""
    starts.extend([len(markdown)] * textless_pages)
    return markdown, tuple(starts)


# -- titles -------------------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_LINK_OR_IMAGE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*{1,3}|_{2,3})(.+?)\1")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


def first_heading(markdown: str) -> str | None:
    """The plain text of the first ATX heading (``# Title``) outside fenced code, if any."""
    fence: str | None = None
    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        heading = _ATX_HEADING.match(line)
        if heading:
            text = _LINK_OR_IMAGE.sub(r"\1", heading.group(1))
            text = _EMPHASIS.sub(r"\2", text)
            text = _ESCAPE.sub(r"\1", text).strip()
            if text:
                return text
    return None
