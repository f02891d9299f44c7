# ruff: noqa: E501 (the documents are prose, a paragraph a line, as Markdown writes them)
"""The seed-like set of issue 49: five PDFs printed the way the reporter's were, to reproduce the
four cases found on PDFs printed from seed-like Markdown by a producer we do not know.

The four documents of the users' set (``pdf_corpus_mixed``), each a little longer where the issue
quotes text we did not have, and a short English "simple" page like markitdown's own test PDF.
Each is printed with the layout engine of a producer here, set the way Markdown exporters and
office suites set such pages rather than the way the users' set was:

* ``zh-profile.pdf`` (Chromium): ragged right, Chinese broken only after punctuation (``word-break:
  keep-all``: lines end at a ，), bold sub-headings at the body's own size (Chromium makes WenQuanYi,
  which has no bold face, bold as a Type 3 copy of the font), close under the paragraph before, on
  a narrow A5 page;
* ``en-simple.pdf`` (Chromium): ragged right, in a measure narrower than the page's line of code;
* ``en-spec.pdf`` (Chromium): numbered lists drawn inside the text (``list-style-position:
  inside``, numbers without a full stop), in a type a little smaller than the body;
* ``zh-guide.pdf`` (Chromium): ragged right with kinsoku (``line-break: strict``: ，。、 never
  start a line, so the character before one moves down with it and the line ends a character
  short);
* ``en-profile.pdf`` (reportlab, the users' set's profile look on Letter paper).

LibreOffice is not installed here, so no document of the set is printed by it.

``write_seed(folder)`` prints them (one Chromium), each with its truth beside it
(``NAME.md``); a producer missing here leaves its document out. ``python -m
tests.workbench.ingestion.pdf_corpus_seed DIR`` writes them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.workbench.ingestion.pdf_corpus_mixed import EN_PROFILE, EN_SPEC, ZH_GUIDE, ZH_PROFILE, MixedDocument

#: the Chinese personal page, with the sections the issue quotes ("…就可以。2.5 持续更新", "突出重点和思路，不想让转行的人…")
ZH_PROFILE_SEED = ZH_PROFILE.replace(
    "<!-- page -->",
    """### 2.4 简历建议

写简历时不要把做过的事情全部罗列出来，而是挑选和岗位最相关的两三个项目，每个项目写清楚背景、自己的职责、用到的技术和可以量化的结果，突出重点和思路，不想让转行的人因为经历不够丰富而失去信心，所以我也会分享自己第一次写简历时犯过的错误。面试官通常只有几分钟时间看一份简历，第一屏的信息决定了他是否愿意继续读下去，因此最重要的项目要放在最前面，技术名词要和岗位描述里的说法保持一致，数字要真实可查，每一句话都要能在面试中展开讲清楚。简历不需要花哨的排版和配色，内容真实、重点突出就可以。

### 2.5 持续更新

这份简介会随着学习进度不断补充，新的笔记、视频和项目经验都会整理进来。如果你也在准备面试，欢迎一起交流学习中遇到的问题，遇到不懂的地方直接留言提问，我看到以后会尽快回复，也欢迎指出笔记里的错误。

<!-- page -->""",
    1,
)

#: markitdown's own test PDF is a plain page of prose like this one; its sentence "to verify that /
#: the MarkItDown conversion" wraps where the issue quotes it
EN_SIMPLE = """# Simple document

This is a simple PDF document written for testing. It holds a few paragraphs of plain prose in a single column, with no tables and no pictures, so that the text can be compared word for word with what a converter returns.

The purpose of this file is to verify that the MarkItDown conversion keeps every sentence of a paragraph together, reads the paragraphs in the order they are printed, and writes nothing that is not on the page.

A reader who wants to repeat the check can print the same text again with another program and compare the two results; the wording should not change, only the places where the lines break. The project keeps its notes at https://example.org/markitdown/tests/test_files/simple-document-conversion-notes.html for that purpose.

```
markitdown simple.pdf > simple.md && diff -u expected-simple-document.md simple.md
```

The last paragraph is short, and it ends the page.
"""

#: (document, producer)
SEED: tuple[tuple[MixedDocument, str], ...] = (
    (
        MixedDocument(
            "zh-profile.pdf", "zh", ZH_PROFILE_SEED, "个人技术简介", "- {page} -", paper="A5", look="seed-profile"
        ),
        "chromium",
    ),
    (MixedDocument("en-simple.pdf", "en", EN_SIMPLE, "", "", paper="Letter", look="seed-simple"), "chromium"),
    (
        MixedDocument(
            "en-spec.pdf",
            "en",
            EN_SPEC,
            "Advanced RAG System - Technical Specification",
            "Page {page}",
            look="seed-spec",
        ),
        "chromium",
    ),
    (
        MixedDocument("zh-guide.pdf", "zh", ZH_GUIDE, "RAG 技术指南 内部资料", "第 {page} 页", look="seed-guide"),
        "chromium",
    ),
    (
        MixedDocument("en-profile.pdf", "en", EN_PROFILE, "About me", "{page}", paper="Letter", look="profile"),
        "reportlab",
    ),
)

#: how Chromium sets each look: what Markdown exporters vary (justification, kinsoku, heading
#: sizes, list numbers, the measure)
SEED_CSS = {
    "seed-profile": "body { font-family: 'WenQuanYi Micro Hei'; font-size: 11pt; line-height: 1.5; }"
    " p { text-align: left; line-break: strict; word-break: keep-all; margin: 0 0 0.3em 0; }"
    " h1 { font-size: 18pt; } h2 { font-size: 14pt; }"
    " h3 { font-size: 11pt; font-weight: bold; margin: 0.2em 0 0.1em 0; }"
    " img.screenshot { width: 100%; }",
    "seed-guide": "body { font-family: 'WenQuanYi Micro Hei'; font-size: 10.5pt; line-height: 1.6; }"
    " p, li { text-align: left; line-break: strict; } h1 { font-size: 20pt; } h2 { font-size: 15pt; }"
    " h3 { font-size: 12pt; }",
    "seed-simple": "body { font-family: 'Liberation Serif'; font-size: 12pt; line-height: 1.25; }"
    " p { text-align: left; hyphens: manual; max-width: 30em; margin: 0 0 0.8em 0; }"
    " h1 { font-size: 16pt; } pre { font-size: 8pt; }",
    "seed-spec": "body { font-family: 'Liberation Sans'; font-size: 10.5pt; line-height: 1.4; }"
    " h1 { font-size: 20pt; } h2 { font-size: 15pt; } h3 { font-size: 12pt; }"
    " ol { list-style-position: inside; padding-left: 0; font-size: 10pt; }"
    " ol > li::marker { content: counter(list-item) '  '; }",
}


def available(producer: str) -> str | None:
    from tests.workbench.ingestion.pdf_corpus_mixed import available as mixed_available

    return mixed_available(producer)


def write_seed(folder: Path) -> dict[str, tuple[Path, MixedDocument]]:
    """The seed-like set printed into ``folder`` (each PDF with its truth as ``NAME.md``); a
    document whose producer is missing here is left out."""
    from tests.workbench.ingestion.chromium_print import PrintSettings, print_pdfs, to_html
    from tests.workbench.ingestion.pdf_corpus_mixed import write_corpus

    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, tuple[Path, MixedDocument]] = {}
    jobs = []
    for document, producer in SEED:
        if available(producer):
            continue
        if producer == "chromium":
            font = "WenQuanYi Micro Hei" if document.language == "zh" else "Liberation Sans"
            settings = PrintSettings(
                document.paper, "16mm", SEED_CSS[document.look], document.header, document.footer, font
            )
            title = document.truth.split("\n", 1)[0].lstrip("# ")
            images = _images() if document.screenshots else {}
            jobs.append(
                (to_html(document.source, document.language, settings, title, images), settings, folder / document.name)
            )
            (folder / document.name).with_suffix(".md").write_text(document.truth, encoding="utf-8")
            written[document.name] = (folder / document.name, document)
        else:
            written.update(write_corpus(folder, producer, (document,)))
    if jobs:
        print_pdfs(jobs)
    return {name: written[name] for name in sorted(written)}


def _images() -> dict[str, bytes]:
    from tests.workbench.ingestion.pdf_corpus_mixed import _images as mixed_images

    return mixed_images()


if __name__ == "__main__":
    for name, (path, _document) in write_seed(Path(sys.argv[1] if len(sys.argv) > 1 else "pdf-corpus-seed")).items():
        print(name, path)
