"""A long Chinese handbook built from the shared seeds: the shape of the user's handbook in issue 48.

The user's PDF was one long Chinese technical handbook whose every chapter ends with the same
"### 延伸思考" (further thinking) section. This builds its like from the Chinese design documents
in ``../shared/seeds/`` (real Chinese technical prose, thick with English terms, code and
tables): eight chapters, each a seed document or a section of the long one, each ending with the
same boilerplate, in one Markdown document. Deterministic and offline: the same seeds give the
same bytes. The golden sets ``bench/golden/zh-handbook.jsonl`` (Chinese questions) and
``bench/golden/zh-handbook-mixed.jsonl`` (Chinese questions carrying English terms) judge it by
quotes, so they survive any chunking.

    python bench/zh_handbook.py OUT.md        # write it, to ingest it yourself
    python bench/zh_handbook.py OUT.pdf       # printed to PDF by Chromium, as a user's handbook would be
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: where the seeds are: ``shared/seeds`` beside the checkout; ``$WORKBENCH_SEEDS`` moves it
SEEDS = Path(os.environ.get("WORKBENCH_SEEDS") or REPO.parent / "shared" / "seeds")
#: the handbook's file name, as the golden sets name it
HANDBOOK = "rag-handbook.md"
GOLDEN = REPO / "bench" / "golden" / "zh-handbook.jsonl"
GOLDEN_MIXED = REPO / "bench" / "golden" / "zh-handbook-mixed.jsonl"


@dataclass(frozen=True)
class Chapter:
    title: str
    seed: str  # file name in the seeds folder
    first_line: int  # 1-based, inclusive
    last_line: int | None  # inclusive; None: to the end


#: the long seed (000) repeats its section 3 five times after line 509; only its first copy is read
CHAPTERS: tuple[Chapter, ...] = (
    Chapter("项目概述与核心特点", "000_a70a64918ce7d531.txt", 18, 158),
    Chapter("RAG 核心流水线设计", "000_a70a64918ce7d531.txt", 161, 291),
    Chapter("MCP 服务设计", "000_a70a64918ce7d531.txt", 292, 377),
    Chapter("可插拔架构设计", "000_a70a64918ce7d531.txt", 378, 509),
    Chapter("RAG 中台 MVP 技术方案", "001_0889545ad06f1aaf.txt", 2, None),
    Chapter("知识库、MCP 协议与插件系统", "002_335a029f3c87d28e.txt", 2, None),
    Chapter("AI 网关的 RAG 增强方案", "003_f8414a07b02f876e.txt", 2, None),
    Chapter("问答工作流优化方案", "004_d6a0793678f910d5.txt", 2, None),
)

#: the section every chapter ends with, word for word (the user's handbook had one like it)
FURTHER_THINKING = (
    "### 延伸思考\n"
    "\n"
    "1. 本章的设计放到你自己的业务场景中是否适用？如果数据规模扩大十倍，检索、重排和生成三个"
    "环节中哪一个会最先成为瓶颈？\n"
    "2. 如果要评估本章方案的效果，你会选择哪些指标（例如 Recall@K、MRR、NDCG"
    "@10）？如何构建一份覆盖典型问题的小型黄金集？\n"
    "3. 请列出本章方案的三个主要风险，并思考每个风险对应的回退策略与监控指标。\n"
    "4. 与前面的章节相比，本章在可观测性、可扩展性与成本控制之间做了哪些取舍？换成混合检索加"
    " Cross-Encoder 重排的方案，结论会改变吗？\n"
    "\n"
    "> 提示：动手实践是最好的学习方式。建议读者先用最小可行方案（MVP）跑通完整流程，再逐步"
    "引入混合检索（Hybrid Search）、Cross-Encoder 重排与查询扩展，并"
    "在每一步都用同一份评估集做 A/B 对比，记录 NDCG、MRR 与响应时间的变化。\n"
)

_HEADING = re.compile(r"^(#{1,6})(\s)", re.MULTILINE)


def available(seeds: Path = SEEDS) -> bool:
    return all((seeds / chapter.seed).exists() for chapter in CHAPTERS)


def chapter_body(chapter: Chapter, seeds: Path = SEEDS) -> str:
    """The chapter's lines, its headings moved down so that its highest is level 3 (under the
    chapter's own level-2 heading)."""
    lines = (seeds / chapter.seed).read_text(encoding="utf-8").splitlines()
    body = "\n".join(lines[chapter.first_line - 1 : chapter.last_line]).strip()
    in_code = False
    levels = []
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        elif not in_code and (found := _HEADING.match(line)):
            levels.append(len(found.group(1)))
    shift = 3 - min(levels) if levels else 0
    out, in_code = [], False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        elif not in_code and (found := _HEADING.match(line)):
            line = "#" * min(6, len(found.group(1)) + shift) + line[len(found.group(1)) :]
        out.append(line)
    return "\n".join(out)


def handbook_markdown(seeds: Path = SEEDS, chapters: int | None = None) -> str:
    """The handbook (its first ``chapters`` chapters when given), as one Markdown document."""
    if not available(seeds):
        raise FileNotFoundError(
            f"the seeds are not in {seeds}; put the shared seeds there or set WORKBENCH_SEEDS to their folder"
        )
    parts = ["# RAG 工程实践手册\n"]
    for number, chapter in enumerate(CHAPTERS[:chapters], start=1):
        parts.append(f"## 第{number}章 {chapter.title}\n\n{chapter_body(chapter, seeds)}\n\n{FURTHER_THINKING}")
    return "\n".join(parts)


def write_pdf(path: Path, markdown: str) -> Path:
    """``markdown`` printed to an A4 PDF by Chromium (the held-out PDF set's producer and style):
    the handbook as a user would bring it, with page breaks, running text and tables to parse."""
    from playwright.sync_api import sync_playwright

    from bench.make_pdf_heldout import BASE_CSS, markdown_html

    html = (
        '<!doctype html><html lang="zh"><head><meta charset="utf-8">'
        f"<style>{BASE_CSS}</style></head><body>{markdown_html(markdown)}</body></html>"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.set_content(html, wait_until="load")
            page.evaluate("document.fonts.ready")
            page.pdf(
                path=str(path), format="A4", print_background=True,
                margin={"top": "20mm", "right": "20mm", "bottom": "20mm", "left": "20mm"},
            )  # fmt: skip
        finally:
            browser.close()
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python bench/zh_handbook.py OUT.md|OUT.pdf")
    out = Path(sys.argv[1])
    if out.suffix.lower() == ".pdf":
        sys.path.insert(0, str(REPO))
        write_pdf(out, handbook_markdown())
    else:
        out.write_text(handbook_markdown(), encoding="utf-8")
    print(f"wrote {out}")
