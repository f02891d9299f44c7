"""Markdown (with a few layout directives) to HTML, and HTML to PDF with Chromium's print.

The held-out PDF set (``pdf_corpus_chromium``) is written through this: a different producer
from the reportlab set the extractor was developed on. Chromium draws list bullets as vector
shapes, table rules as thin filled rectangles, justified Chinese with widened gaps between
characters, synthetic bold as Type 3 fonts, and page headers and footers from its own templates.

Directives are HTML comments on a line of their own (the truth leaves them out):

* ``<!-- page -->`` breaks the page;
* ``<!-- columns 2 -->`` ... ``<!-- columns 1 -->`` sets what is between in two CSS columns;
* ``<!-- unruled -->`` before a table draws it without borders;
* ``<!-- bullets circle -->`` (or ``square``, ``disc``) before a list sets its bullets;
* ``<!-- overflow -->`` before a table centres its cells (Chromium wraps them in their column);
* ``<!-- screenshot KEY -->`` draws the image ``images[KEY]`` (PNG bytes) across the text.

Lists nest by indentation; ``1)`` numbers a list with ``1)`` markers (CSS ``::marker``). English
paragraphs get soft hyphens in long words: Debian's Chromium has no hyphenation dictionary (it is
a component download, switched off here), so ``hyphens: auto`` alone never breaks a word.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.workbench.ingestion.pdf_corpus_mixed import MixedDocument

DIRECTIVE = re.compile(r"^<!--\s*(.+?)\s*-->$")
_ITEM = re.compile(r"^( *)([-*]|\d{1,3}[.)]) (.*)$")
_VOWELS = frozenset("aeiouy")


@dataclass(frozen=True)
class PrintSettings:
    """How one document is printed: page, margins, type and running header and footer."""

    paper: str  # "A4" or "Letter"
    margin: str  # CSS length of every margin, e.g. "22mm"
    css: str  # the document's own style sheet (fonts, sizes, heading weights)
    header: str = ""  # text of the running header ("" for none)
    footer: str = ""  # text of the footer; {page} and {pages} are filled in by Chromium
    font: str = "Liberation Serif"  # the header and footer's font


def soft_hyphenated(text: str) -> str:
    """Long words (10+ letters) with soft hyphens after a vowel followed by a consonant."""

    def word(match: re.Match[str]) -> str:
        letters = match.group(0)
        out = []
        for index, letter in enumerate(letters):
            if 3 <= index <= len(letters) - 3:
                before = letters[index - 1].lower()
                if before in _VOWELS and letter.lower() not in _VOWELS:
                    out.append("\u00ad")
            out.append(letter)
        return "".join(out)

    return re.sub(r"[A-Za-z]{10,}", word, text)


def _inline(text: str, language: str) -> str:
    escaped = html.escape(text, quote=False)
    return soft_hyphenated(escaped) if language == "en" else escaped


def markdown_blocks(lines: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """(kind, lines): directive, heading, table, list, code (the lines between ``` fences) or
    paragraph; one paragraph a line."""
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        if line.startswith("```"):
            end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
            yield "code", list(lines[index + 1 : end])
            index = end + 1
            continue
        if DIRECTIVE.match(line.strip()):
            yield "directive", [line.strip()]
            index += 1
            continue
        if line.startswith("#"):
            yield "heading", [line]
            index += 1
            continue
        kind = "table" if line.startswith("|") else "list" if _ITEM.match(line) else "paragraph"
        if kind == "paragraph":
            yield kind, [line]
            index += 1
            continue
        block = []
        while index < len(lines) and lines[index].strip() and not DIRECTIVE.match(lines[index].strip()):
            block.append(lines[index])
            index += 1
        yield kind, block


def _table(block: Sequence[str], ruled: bool, language: str, centred: bool = False) -> str:
    rows = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in block if "---" not in row]
    header, *body = rows
    css = ("ruled" if ruled else "unruled") + (" centred" if centred else "")
    parts = [f'<table class="{css}"><thead><tr>']
    parts += [f"<th>{_inline(cell, language)}</th>" for cell in header]
    parts.append("</tr></thead><tbody>")
    for row in body:
        parts.append("<tr>" + "".join(f"<td>{_inline(cell, language)}</td>" for cell in row) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def _list(block: Sequence[str], bullets: str, language: str) -> str:
    """Nested lists from indentation: each deeper indent opens a list inside the last item."""
    out: list[str] = []
    open_lists: list[tuple[int, str]] = []  # (indent, closing tag)
    for line in block:
        match = _ITEM.match(line)
        if match is None:
            raise ValueError(f"not a list item: {line!r}")
        indent, marker, text = len(match.group(1)), match.group(2), match.group(3)
        while open_lists and indent < open_lists[-1][0]:
            out.append(f"</li>{open_lists.pop()[1]}")
        if open_lists and indent == open_lists[-1][0]:
            out.append("</li>")
        else:
            numbered = marker[0].isdigit()
            tag = "ol" if numbered else "ul"
            css = ("paren" if marker.endswith(")") else "") if numbered else (bullets if not open_lists else "")
            out.append(f'<{tag} class="{css}">' if css else f"<{tag}>")
            open_lists.append((indent, f"</{tag}>"))
        out.append(f"<li>{_inline(text, language)}")
    while open_lists:
        out.append(f"</li>{open_lists.pop()[1]}")
    return "".join(out)


BASE_CSS = """
p { margin: 0 0 0.6em 0; text-align: justify; hyphens: auto; }
table { border-collapse: collapse; margin: 0.4em 0 0.9em 0; }
th, td { padding: 2pt 10pt 2pt 4pt; text-align: left; vertical-align: top; }
table.ruled th, table.ruled td { border: 0.75pt solid #000; }
table.unruled th { font-weight: bold; }
ul.circle { list-style-type: circle; } ul.square { list-style-type: square; } ul.disc { list-style-type: disc; }
ol.paren > li::marker { content: counter(list-item) ") "; }
li { margin: 0.15em 0; }
.columns { columns: 2; column-gap: 22pt; }
table.centred th, table.centred td { text-align: center; }
img.screenshot { display: block; width: 460pt; margin: 0.6em auto 0.3em auto; }
p.caption { text-align: center; }
pre { font-family: 'Liberation Mono'; font-size: 9pt; line-height: 1.3; margin: 0.3em 0 0.8em 1em; }
"""


def to_html(
    source: str, language: str, settings: PrintSettings, title: str, images: Mapping[str, bytes] | None = None
) -> str:
    body: list[str] = []
    bullets = "disc"
    unruled = centred = caption = False
    in_columns = False
    for kind, block in markdown_blocks(source.strip().split("\n")):
        if kind == "directive":
            command = DIRECTIVE.match(block[0])
            assert command is not None
            words = command.group(1).split()
            if words[0] == "page":
                body.append('<div style="break-before: page"></div>')
            elif words[0] == "columns":
                if in_columns:
                    body.append("</div>")
                in_columns = words[1] == "2"
                if in_columns:
                    body.append('<div class="columns">')
            elif words[0] == "unruled":
                unruled = True
            elif words[0] == "overflow":
                centred = True
            elif words[0] == "bullets":
                bullets = words[1]
            elif words[0] == "screenshot":
                data = base64.b64encode((images or {})[words[1]]).decode("ascii")
                body.append(f'<img class="screenshot" src="data:image/png;base64,{data}">')
                caption = True
        elif kind == "heading":
            level = len(block[0]) - len(block[0].lstrip("#"))
            body.append(f"<h{level}>{html.escape(block[0][level:].strip(), quote=False)}</h{level}>")
        elif kind == "table":
            body.append(_table(block, not unruled, language, centred))
            unruled = centred = False
        elif kind == "list":
            body.append(_list(block, bullets, language))
            bullets = "disc"
        elif kind == "code":
            body.append(f"<pre>{html.escape(chr(10).join(block), quote=False)}</pre>")
        else:
            body.append(f"<p{' class=caption' if caption else ''}>{_inline(block[0], language)}</p>")
            caption = False
    if in_columns:
        body.append("</div>")
    lang = "zh-CN" if language == "zh" else "en"
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{BASE_CSS}{settings.css}</style></head><body>{''.join(body)}</body></html>"
    )


def _template(text: str, font: str, align: str) -> str:
    """A Chromium header/footer template: its own font and size (the default is tiny)."""
    filled = html.escape(text).replace("{page}", '<span class="pageNumber"></span>')
    filled = filled.replace("{pages}", '<span class="totalPages"></span>')
    style = f"font-family: '{font}'; font-size: 8pt; width: 100%; margin: 0 16mm; text-align: {align};"
    return f'<div style="{style}">{filled}</div>'


def print_pdfs(jobs: Sequence[tuple[str, PrintSettings, Path]]) -> None:
    """Print each (html, settings, path) with one Chromium (Playwright, the system's chromium)."""
    from playwright.sync_api import sync_playwright

    from tests.browser.app_server import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            for document_html, settings, path in jobs:
                margin = settings.margin
                page.set_content(document_html, wait_until="load")
                page.evaluate("document.fonts.ready")
                page.pdf(
                    path=str(path),
                    format=settings.paper,
                    margin={"top": margin, "right": margin, "bottom": margin, "left": margin},
                    display_header_footer=bool(settings.header or settings.footer),
                    header_template=_template(settings.header, settings.font, "left")
                    if settings.header
                    else "<span></span>",
                    footer_template=_template(settings.footer, settings.font, "center")
                    if settings.footer
                    else "<span></span>",
                    print_background=True,
                )
        finally:
            browser.close()


#: Chromium prints the sources as a Markdown editor exports them: bold headings a size apart,
#: the specification's in blue, body text justified
_MIXED_CSS = {
    "en": "body { font-family: 'Liberation Sans'; font-size: 10.5pt; line-height: 1.45; }",
    "zh": "body { font-family: 'WenQuanYi Micro Hei'; font-size: 10.5pt; line-height: 1.6; }",
}
_MIXED_HEADINGS = "h1 { font-size: 20pt; } h2 { font-size: 15pt; } h3 { font-size: 12pt; }"
_MIXED_LOOKS = {
    "report": " h2, h3 { color: #1a5490; }",
    "profile": "",
    # the held-out look: a serif body; Chinese paragraphs indented, no space between them
    "plain": " body { font-family: 'Liberation Serif', 'WenQuanYi Micro Hei'; font-size: 11pt; }"
    " h2 { color: #1e5631; font-size: 13.5pt; } h3 { font-size: 11.5pt; }"
    " p:lang(zh-CN) { text-indent: 2em; margin: 0; }",
}


def print_mixed(documents: Sequence[MixedDocument], folder: Path, images: Mapping[str, bytes]) -> None:
    """The users' set (``pdf_corpus_mixed``) printed into ``folder``, in each document's look."""
    jobs = []
    for document in documents:
        font = "WenQuanYi Micro Hei" if document.language == "zh" else "Liberation Sans"
        css = _MIXED_CSS[document.language] + _MIXED_HEADINGS + _MIXED_LOOKS[document.look]
        settings = PrintSettings(
            document.paper, "20mm", css, document.header, document.footer.replace("{page}", "{page}"), font
        )
        title = document.truth.split("\n", 1)[0].lstrip("# ")
        html = to_html(document.source, document.language, settings, title, images)
        jobs.append((html, settings, folder / document.name))
    print_pdfs(jobs)
