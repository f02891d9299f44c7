"""A folder of about N pages for ``bench_ingest.py --pages N``: the mix a practitioner's folder has.

Documents of about ``PAGES_PER_DOCUMENT`` pages, English and Chinese in turn, each written by one
of four producers in turn:

* PDFs by reportlab (``mixed_folder.write_pdf``: headings, paragraphs, a ruled table; Chinese set
  in the machine's WenQuanYi font, embedded);
* PDFs printed by Chromium from HTML (Debian's chromium through Playwright, as a browser's or a
  Markdown editor's "save as PDF" makes them: its own fonts, text runs and page templates);
* Word files by python-docx (``mixed_folder.write_docx``);
* Markdown.

English text is SciFact abstracts, Chinese text CMRC 2018 paragraphs (``mixed_folder``); the
paragraphs are taken in order from ``offset``, so two folders with different offsets share no
text (and no chunk a home's embedding cache already has). CMRC has 848 paragraphs (about 320
pages); past them the paragraphs come round again, each opened by a line naming its revision
("第2版修订："), so that no chunk text repeats and the encoder does a thousand pages' work.

A PDF's pages are counted in it; a Word or Markdown file's are its characters over a printed
page's (``PAGE_CHARACTERS``: what reportlab fits on an A4 page of this body text, measured on
the PDFs this module writes).
"""

from __future__ import annotations

import contextlib
import html
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.mixed_folder import EN_TABLE, ZH_TABLE, chinese_paragraphs, english_paragraphs, write_docx, write_pdf

PAGES_PER_DOCUMENT = 8
#: characters of body text on one printed A4 page (reportlab's BodyText, 16 pt leading: 27,165
#: English characters on 9 pages, 10,791 Chinese on 8, in a 64-page folder this module wrote)
PAGE_CHARACTERS = {"en": 3_000, "zh": 1_350}
PRODUCERS = ("reportlab", "chromium", "docx", "md")
_CSS = {
    "en": "body { font-family: 'Liberation Sans'; font-size: 10.5pt; line-height: 1.45; }",
    "zh": "body { font-family: 'WenQuanYi Micro Hei'; font-size: 10.5pt; line-height: 1.6; }",
}


@dataclass(frozen=True)
class Written:
    path: Path
    producer: str
    language: str
    pages: int
    characters: int


def pdf_pages(path: Path) -> int:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        return len(document)
    finally:
        document.close()


def _pool(paragraphs: list[tuple[str, str]], count: int, offset: int, revised: str) -> list[tuple[str, str]]:
    """``count`` paragraphs from ``offset``, coming round again (each a revision) past the end."""
    pool = []
    for index in range(offset, offset + count):
        revision, (title, text) = divmod(index, len(paragraphs))[0], paragraphs[index % len(paragraphs)]
        pool.append((title, revised.format(revision + 1) + text if revision else text))
    return pool


def write_folder(folder: Path, pages: int, offset: int = 0, per_document: int = PAGES_PER_DOCUMENT) -> list[Written]:
    """About ``pages`` pages of documents of about ``per_document`` pages in ``folder`` (made if
    missing), from paragraph ``offset``."""
    folder.mkdir(parents=True, exist_ok=True)
    documents = max(1, round(pages / per_document))
    per_document = max(1, round(pages / documents))
    # a SciFact abstract is about 1,500 characters, a CMRC paragraph about 500: enough for every page
    needed = documents * per_document * 3
    english = _pool(english_paragraphs(offset + needed), needed, offset, "Revision {}: ")
    chinese = _pool(chinese_paragraphs(offset + needed), needed, offset, "第{}版修订：")
    taken = {"en": 0, "zh": 0}
    written: list[Written] = []
    chromium_jobs: list[tuple[Path, str, str, list[tuple[str, str]]]] = []
    for number in range(documents):
        language = "en" if number % 2 == 0 else "zh"
        producer = PRODUCERS[(number // 2) % len(PRODUCERS)]
        pool = english if language == "en" else chinese
        sections, characters = [], 0
        while characters < per_document * PAGE_CHARACTERS[language] and taken[language] < len(pool):
            sections.append(pool[taken[language]])
            characters += len(pool[taken[language]][1])
            taken[language] += 1
        if not sections:
            raise ValueError(f"not enough {language} paragraphs for {pages} pages from offset {offset}")
        title = sections[0][0] if language == "en" else f"{sections[0][0]}：实践说明"
        table = EN_TABLE if language == "en" else ZH_TABLE
        stem = f"{number:04d}-{language}-{producer}"
        if producer == "reportlab":
            path = write_pdf(folder / f"{stem}.pdf", title, sections, language == "zh", table)
            written.append(Written(path, producer, language, pdf_pages(path), characters))
        elif producer == "chromium":
            chromium_jobs.append((folder / f"{stem}.pdf", language, title, sections))
        elif producer == "docx":
            path = write_docx(folder / f"{stem}.docx", title, sections, table)
            written.append(Written(path, producer, language, _text_pages(characters, language), characters))
        else:
            path = folder / f"{stem}.md"
            body = "\n\n".join(f"## {name}\n\n{text}" for name, text in sections)
            path.write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
            written.append(Written(path, producer, language, _text_pages(characters, language), characters))
    if chromium_jobs:
        print_with_chromium(
            [(path, _html(title, sections, language)) for path, language, title, sections in chromium_jobs]
        )
        for path, language, _, sections in chromium_jobs:
            characters = sum(len(text) for _, text in sections)
            written.append(Written(path, "chromium", language, pdf_pages(path), characters))
    return sorted(written, key=lambda item: item.path.name)


def _text_pages(characters: int, language: str) -> int:
    return max(1, round(characters / PAGE_CHARACTERS[language]))


def _html(title: str, sections: list[tuple[str, str]], language: str) -> str:
    body = "".join(f"<h2>{html.escape(name)}</h2><p>{html.escape(text)}</p>" for name, text in sections)
    lang = "zh-CN" if language == "zh" else "en"
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_CSS[language]}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )


def print_with_chromium(jobs: list[tuple[Path, str]]) -> None:
    """Print each (path, html) to A4 PDF with one Chromium (Debian's, through Playwright)."""
    from playwright.sync_api import sync_playwright

    from tests.browser.app_server import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM

    if not CHROMIUM.exists():
        raise SystemExit(f"the second PDF producer {NEEDS_CHROMIUM}")
    with _short_tmpdir(), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            for path, document_html in jobs:
                page.set_content(document_html, wait_until="load")
                page.evaluate("document.fonts.ready")
                page.pdf(
                    path=str(path),
                    format="A4",
                    margin={"top": "18mm", "right": "18mm", "bottom": "18mm", "left": "18mm"},
                )
        finally:
            browser.close()


@contextlib.contextmanager
def _short_tmpdir() -> Iterator[None]:
    """Chromium's profile, made in ``$TMPDIR``, holds a Unix socket whose path must stay under about
    100 bytes: a test's deep temporary folder is too long ("Socket path too long"), so Playwright's
    driver starts with ``/tmp`` for the time of the printing."""
    kept = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = "/tmp"
    try:
        yield
    finally:
        if kept is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = kept
