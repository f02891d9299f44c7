"""A chunk's text as a reader expects to see it: its Markdown drawn (headings, emphasis, lists,
quotes, code, tables), never raw ``#`` and ``**``.

Chunk text is canonical Markdown (the parsers write headings, lists and PDF and Office tables),
but it comes from the user's documents, so it is never handed to the Markdown renderer as it is:
a link or an image in it would be followed (an image from a remote address is fetched by the
reader's browser), and HTML in it is document data, not page markup. ``safe_markdown`` rebuilds
each line from the few constructs it recognises, every piece of the document's own text escaped
(``md_escape``): a link shows its text and its address as plain text, an image its alt text,
HTML its tags as written. Table rows are rebuilt the same way, cell by cell. A chunk cut inside a
table has rows without the header and its ``---`` line; they are drawn under an empty header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import streamlit as st

from workbench.ui.text import md_escape

_SEPARATOR_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class TextPiece:
    #: "text" (shown as written) or "table" (``markdown`` holds the table, its cells escaped)
    kind: str
    text: str


def _is_row(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|")


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_BORDER.split(inner)]


def _is_separator(cells: list[str]) -> bool:
    return all(_SEPARATOR_CELL.match(cell) for cell in cells)


def table_markdown(rows: list[str]) -> str:
    """Pipe-table ``rows`` (their ``---`` line included, if any) as a Markdown table whose cells
    render exactly as written."""
    parsed = [_cells(row) for row in rows]
    header: list[str] = []
    if len(parsed) > 1 and _is_separator(parsed[1]):
        header, body = parsed[0], parsed[2:]
    else:
        body = [cells for cells in parsed if not _is_separator(cells)]
    width = max(len(cells) for cells in [header, *body])
    header = header + [""] * (width - len(header))

    def line(cells: list[str]) -> str:
        padded = cells + [""] * (width - len(cells))
        return "| " + " | ".join(md_escape(cell) for cell in padded) + " |"

    return "\n".join([line(header), "| " + " | ".join(["---"] * width) + " |", *(line(cells) for cells in body)])


def pieces(text: str) -> list[TextPiece]:
    """``text`` cut into runs of plain lines and pipe tables (two or more consecutive rows)."""
    lines = text.split("\n")
    found: list[TextPiece] = []
    plain: list[str] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and _is_row(lines[end]):
            end += 1
        if end - index >= 2:
            if "\n".join(plain).strip():
                found.append(TextPiece("text", "\n".join(plain).strip("\n")))
            plain = []
            found.append(TextPiece("table", table_markdown(lines[index:end])))
            index = end
            continue
        plain.append(lines[index])
        index += 1
    if "\n".join(plain).strip():
        found.append(TextPiece("text", "\n".join(plain).strip("\n")))
    return found


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_QUOTE = re.compile(r"^\s*>\s?(.*)$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
#: the inline constructs kept: code, strong, emphasis, images and links (drawn as plain text)
_INLINE = re.compile(
    r"(?P<code>`+)(?P<code_text>.+?)(?P=code)"
    r"|\*\*(?P<strong>[^*\s](?:[^*]*[^*\s])?)\*\*"
    r"|__(?P<strong2>[^_\s](?:[^_]*[^_\s])?)__"
    r"|\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*"
    r"|(?<![\w\\])_(?P<em2>[^_\s](?:[^_]*[^_\s])?)_(?!\w)"
    r"|!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]*)[^)]*\)"
    r"|\[(?P<label>[^\]]+)\]\((?P<href>[^)\s]*)[^)]*\)"
)
#: a chunk's headings are small: the page's own headings stay above them
_HEADING_LEVELS = {1: "####", 2: "#####"}


def _escape(text: str) -> str:
    """``md_escape``, keeping a space at either edge (it sits between the text and a construct)."""
    if not text.strip():
        return " " if text else ""
    return (" " if text[0].isspace() else "") + md_escape(text) + (" " if text[-1].isspace() else "")


def _inline(text: str) -> str:
    """One line's inline Markdown, its constructs kept and every character of text escaped."""
    out: list[str] = []
    position = 0
    for found in _INLINE.finditer(text):
        out.append(_escape(text[position : found.start()]))
        if found.group("code"):
            code = found.group("code_text").replace("`", "'")
            out.append(f"`{code}`")  # nothing inside a code span is Markdown
        elif found.group("strong") or found.group("strong2"):
            out.append(f"**{md_escape(found.group('strong') or found.group('strong2'))}**")
        elif found.group("em") or found.group("em2"):
            out.append(f"*{md_escape(found.group('em') or found.group('em2'))}*")
        elif found.group("src") is not None:
            out.append(md_escape(f"[image: {found.group('alt') or found.group('src')}]"))
        else:
            label, href = found.group("label"), found.group("href")
            out.append(md_escape(f"{label} ({href})" if href and href != label else label))
        position = found.end()
    out.append(_escape(text[position:]))
    return "".join(out).strip()


def safe_markdown(text: str) -> str:
    """``text`` (Markdown from a document) as Markdown that draws its headings, emphasis, lists,
    quotes and code blocks but follows no link, fetches no image and renders no HTML."""
    lines: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                lines.append("~~~~")
                fence = None
            else:
                lines.append(line.replace("~~~~", "~~~ ~"))  # a code block shows its lines as written
            continue
        if opened:
            fence = opened.group(1)
            lines.append("~~~~")
            continue
        lines.append(_line(line))
    if fence is not None:
        lines.append("~~~~")
    return "\n".join(lines)


def _line(line: str) -> str:
    if not line.strip():
        return ""
    if _RULE.match(line):
        return "---"
    heading = _HEADING.match(line)
    if heading:
        level = len(heading.group(1))
        return f"{_HEADING_LEVELS.get(level, '######')} {_inline(heading.group(2))}"
    item = _ITEM.match(line)
    if item:
        indent, marker, rest = item.groups()
        return f"{' ' * min(len(indent), 12)}{marker if marker[0] in '-*+' else marker[:-1] + '.'} {_inline(rest)}"
    quote = _QUOTE.match(line)
    if quote:
        return f"> {_inline(quote.group(1))}"
    return _inline(line)


def show_chunk_text(text: str) -> None:
    """Draw ``text``: its Markdown through ``safe_markdown``, its tables as Markdown tables."""
    for piece in pieces(text) or [TextPiece("text", text)]:
        st.markdown(piece.text if piece.kind == "table" else safe_markdown(piece.text))
