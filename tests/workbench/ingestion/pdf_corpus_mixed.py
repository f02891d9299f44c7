# ruff: noqa: E501 (the documents are prose, a paragraph a line, as Markdown writes them)
"""A PDF test set like the documents users bring, each printed by three producers from one source.

Four documents, modelled on what real PDFs got wrong (issue 35): a Chinese technical guide
thick with Latin terms, an English technical specification, and a personal introduction with
screenshots in each language. Between them:

* justified paragraphs of mixed Chinese and Latin, with lines that end in a Latin word;
  justified English with a long unbreakable address, which stretches a line's spaces;
* numbered headings (``1.``, ``2.2``) that are larger, bold or blue, and sub-headings set
  only a little larger than the body right under a paragraph;
* tables whose cells wrap over several lines, and a table whose cells are centred and wider
  than their column;
* numbered lists, and bullet lists;
* a block of code;
* a page of screenshots of text in each language (``screenshots``), whose text only OCR reads;
* a running header and page numbers.

Each source is Markdown with directives in HTML comments (the truth leaves them out):
``<!-- page -->``, ``<!-- unruled -->`` and ``<!-- overflow -->`` before a table (cells as plain
text, centred in equal columns, as many report scripts draw them: reportlab lets such text run
over the column's rule), and ``<!-- screenshot KEY -->`` for an image of ``SCREENSHOTS[KEY]``.

``write_corpus(folder, producer)`` prints every document with reportlab (``reportlab_print``),
Chromium (``chromium_print``) or LibreOffice (``pdf_corpus_office``).
``python -m tests.workbench.ingestion.pdf_corpus_mixed DIR [PRODUCER]`` writes them.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.workbench.ingestion.chromium_print import DIRECTIVE
from tests.workbench.ingestion.screenshots import Screenshot

PRODUCERS = ("reportlab", "chromium", "office")
_SCREENSHOT = re.compile(r"^<!--\s*screenshot\s+(\S+)\s*-->$")


@dataclass(frozen=True)
class MixedDocument:
    name: str  # file name, ending in .pdf
    language: str  # "en" or "zh"
    source: str  # Markdown with directives
    header: str
    footer: str  # with {page}
    paper: str = "A4"
    #: reportlab: break Chinese lines only at spaces (no ``wordWrap="CJK"``, as most scripts leave it)
    spaces_only: bool = False
    #: how the producers style it: "report" (bold blue headings), "profile" (sub-headings half a
    #: point above the body), "plain" (the held-out look: ``reportlab_print._plain_styles``)
    look: str = "report"

    @property
    def truth(self) -> str:
        """The Markdown a faithful extractor writes: the source without its directives."""
        lines = [line for line in self.source.strip().split("\n") if not DIRECTIVE.match(line.strip())]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"

    @property
    def screenshots(self) -> tuple[Screenshot, ...]:
        keys = [match.group(1) for line in self.source.split("\n") if (match := _SCREENSHOT.match(line.strip()))]
        return tuple(SCREENSHOTS[key] for key in keys)

    @property
    def image_text(self) -> str:
        """The text inside the document's images, which only OCR can read."""
        return "\n".join(shot.text for shot in self.screenshots)


ZH_GUIDE = """# 大模型检索增强生成技术指南

本指南面向需要在生产环境中落地 RAG（Retrieval-Augmented Generation）系统的工程团队，介绍从文档解析、向量检索到重排序和评估的完整流程，并给出在 LangChain、LlamaIndex 和 Milvus 上的实践经验。

## 1. 大语言模型基础

大语言模型（Large Language Model，LLM）是近年来人工智能领域最重要的进展之一。代表性模型包括 GPT-4、Claude、LLaMA 和 Qwen 等，它们都基于 Transformer 架构，核心组件是多头自注意力（Multi-Head Self-Attention）机制。随着上下文窗口从 4K 增长到 128K 甚至更长，LLM 上下文利用率下降的问题也越来越受到关注：模型往往更重视开头和结尾的内容，而忽略中间的段落。

### 1.1 为什么需要检索

模型的参数只记住了训练时见过的知识，无法回答企业内部文档中的问题，也不知道训练截止日期之后发生的事情。检索增强生成先用 BM25 或 Dense Retrieval 找到相关段落，再把 Top-K 段落连同问题一起放进 Prompt，让模型基于证据作答，并在回答中用 [S1]、[S2] 这样的编号标出引用。

## 2. 检索与重排序

第一阶段的召回追求覆盖率，通常同时运行 BM25 和向量检索，再用 RRF（Reciprocal Rank Fusion）合并两路结果。第二阶段的重排序追求精确率：Cross-Encoder 将查询和文档拼接后一起输入模型，逐对计算相关性分数，效果明显优于 Bi-Encoder，但计算量也大得多，所以只对前 50 个候选段落重新打分。

| 组件 | 作用 | 常用工具 |
| --- | --- | --- |
| 文档解析 | 把 PDF、Word 和网页转换成纯文本，并保留页码和标题层级 | PyPDF2、python-docx、BeautifulSoup |
| 向量检索 | 把查询和段落映射到同一个向量空间，按余弦相似度排序 | FAISS、Milvus、hnswlib |
| 重排序 | 对候选段落逐一打分，把最相关的段落排到最前面 | bge-reranker、Cohere Rerank |

一次查询的处理顺序如下：

1. 用 BM25 和向量检索分别召回前 100 个候选段落。
2. 用倒数排名融合（RRF）把两路结果合并成一个列表。
3. 用 Cross-Encoder 对前 50 个段落重新打分并排序。
4. 把得分最高的 5 个段落放进 Prompt，生成带引用的回答。

<!-- page -->

## 3. 可观测性与评估

生产系统必须具备完善的可观测性能力。本项目通过结构化日志（JSON Lines 格式）、全链路追踪（OpenTelemetry 与 Jaeger）和指标监控（Prometheus 与 Grafana）三种手段，让每一次检索和生成都可以被回放和审计。每条日志都记录 request_id、检索耗时、召回的 chunk_id 列表以及 LLM 的 token 用量。

评估分为检索评估和生成评估两部分。检索评估使用 nDCG@10、Recall@10 和 MRR 等指标，需要一个标注好相关段落的 Golden Set；生成评估关注答案是否忠实于检索到的证据，可以借助 RAGAS 或 LLM-as-a-Judge 自动打分，但仍然需要定期抽样人工复核。

<!-- unruled -->
| 指标 | 衡量的内容 | 适用场景 |
| --- | --- | --- |
| nDCG@10 | 相关段落是否排在前面，排名越靠前的相关段落得分越高，多个相关段落的得分累加后再归一化 | 比较两种排序配置的质量 |
| Recall@10 | 前十个结果中找到了多少相关段落，不考虑它们的先后顺序 | 检查第一阶段的召回是否足够，为重排序留出足够多的候选段落 |
| MRR | 第一个相关段落的名次的倒数 | 只需要一个答案的问答场景 |

- 每次修改分块或排序策略之后，都在同一个 Golden Set 上重新评估。
- 指标的差异要附带置信区间，避免把噪声当成改进。
- 线上查询日志是发现新问题的主要来源。
"""

EN_SPEC = """# Advanced RAG System: Technical Specification

This specification describes the architecture of the Advanced RAG System, a modular retrieval-augmented generation service that answers questions over a company's own documents and cites the passages it used.

## Table of Contents

1. Introduction to Modular RAG Systems
2. Document Processing Pipeline
3. Retrieval and Ranking
4. Evaluation and Future Work

## 1. Introduction to Modular RAG Systems

A modular RAG system separates parsing, chunking, indexing, retrieval, reranking and generation into components with narrow interfaces. Each component can be replaced, measured and tuned on its own, which is what makes a regression traceable to the change that caused it.

### 1.1 Design goals

The system must answer within two seconds for ninety-five percent of queries, cite every claim it makes, and say plainly when the collection holds no answer. Every configuration it runs is recorded, so that an evaluation can be repeated months later on the same settings.

## 2. Document Processing Pipeline

Documents arrive as PDF, Word and HTML files. Each one is parsed into Markdown, split into chunks and embedded; the catalog keeps the page on which each chunk starts. The reference implementation lives at https://git.example.com/platform/advanced-rag-system/tree/main/pipeline/ingestion and is deployed on every release.

Each service reads its settings at start-up from three files: deployment/helm/advanced-rag/values-production.yaml for the cluster, config/retrieval/hybrid-search-settings.toml for the retriever and config/generation/answer-templates-with-citations.json for the generator; their schemas are checked by tools/validate_configuration_schemas.py before every release.

<!-- overflow -->
| Stage | Tools | Output |
| --- | --- | --- |
| Parse and extract content | PyPDF2, python-docx, BeautifulSoup | Markdown with page numbers |
| Split into chunks | LangChain text splitters | Passages under 512 tokens |
| Embed and index | sentence-transformers, FAISS | Vectors and a BM25 index |

### 2.1 Chunking

Chunks follow the document's headings where it has them, and fall back to windows of sentences where it does not. A chunk never spans two sections, so its heading path is a faithful breadcrumb for the citation.

```
chunks = chunk_markdown(text, ChunkingConfig(size=512))
for chunk in chunks:
    print(chunk.heading_path, len(chunk.text))
```

<!-- unruled -->
| Setting | Default | What it changes |
| --- | --- | --- |
| chunking.size | 512 tokens | The longest passage the index holds, counted in the embedding model's own tokens |
| chunking.overlap | 64 tokens | How much of the end of one chunk starts the next, so that a sentence cut at a boundary is found whole |
| retrieval.fusion | rrf | How the keyword and the vector lists are merged into one |

<!-- page -->

## 3. Retrieval and Ranking

Retrieval runs the keyword and the vector route in parallel and merges their ranked lists. A cross-encoder then reads each candidate together with the question, which is slower than comparing vectors but far more precise.

| Component | Role | Default |
| --- | --- | --- |
| Hybrid retriever | Runs BM25 and dense search in parallel and merges both ranked lists with reciprocal rank fusion | k = 60 |
| Cross-encoder reranker | Reads every candidate together with the question and scores how well it answers | Top 50 |
| Answer generator | Writes the answer from the best passages and cites each of them by number | Top 5 |

## 4. Evaluation and Future Work

Quality is measured on a golden set of questions with judged passages, and every figure is reported with its interval. The next releases will extend the system in three directions:

1. Multi-document reasoning that combines evidence from several sources and resolves conflicts between them.
2. Knowledge graph integration, so that entities and their relations are retrieved alongside passages.
3. Adaptive chunking that follows the structure of each document instead of a fixed window.
"""

ZH_PROFILE = """# 个人技术简介

## 1. 个人介绍

我是一名后端开发工程师，主要使用 Python 和 Go 开发检索与数据服务，最近两年专注于 RAG 系统和向量数据库的工程实践。平时喜欢把学到的内容整理成笔记和视频，分享给一起准备面试的同学。

<!-- overflow -->
| 方向 | 技术栈 | 熟练程度 |
| --- | --- | --- |
| 后端开发 | Python、Go、FastAPI、gRPC、PostgreSQL | 熟练 |
| 检索系统 | Elasticsearch、Milvus、BM25、hnswlib | 熟练 |
| 数据处理 | Pandas、Spark、Airflow | 了解 |

## 2. 学习经历

### 2.1 项目实践

在校期间参与了一个面向课程资料的问答系统，负责文档解析和检索模块。系统使用 Milvus 存储向量，用 BM25 弥补专有名词的召回，上线后覆盖了全院的课程讲义，答疑效率提升了一倍以上。项目结束后，我把开发过程中遇到的问题和解决办法整理成了一系列技术博客，并录制了配套的视频讲解。

### 2.2 八股内容

面试准备中整理了数据库、操作系统和计算机网络的常见问题，每个问题都附上了自己的理解和例子，而不是只背答案。比如讲到 MySQL 的索引时，会从 B+ 树的结构一直讲到联合索引的最左前缀原则，再结合慢查询日志分析一个真实的案例。

### 2.3 开源贡献

给两个开源项目提交过修复，一个是文档解析库的表格识别问题，另一个是检索框架的中文分词配置。每次提交都附带了能够复现问题的测试用例。

<!-- page -->

## 3. 作品截图

下面两张截图分别来自我的学习笔记和一次模拟面试的问答记录。

<!-- screenshot zh-notes -->

图 1：学习笔记截图

<!-- screenshot zh-chat -->

图 2：模拟面试问答记录
"""

EN_PROFILE = """# About Me

## 1. Introduction

I am a backend engineer who builds search and data services in Python and Go. For the last two years I have worked mostly on retrieval-augmented generation and vector databases, and I like to turn what I learn into notes and short videos for friends who are preparing for interviews.

## 2. Experience

### 2.1 Projects

At university I worked on a question answering system over course material, where I owned document parsing and retrieval. It stored vectors in Milvus and used BM25 for names and codes, and after launch it covered the lecture notes of the whole department. When the project ended I wrote it up as a series of blog posts, one for each part of the pipeline, with video walkthroughs and the code that goes with each.

### 2.2 Interview notes

While preparing for interviews I collected the usual questions on databases, operating systems and networks, each with my own explanation and an example rather than a memorised answer. For indexes, I start from the structure of a B+ tree and end with the leftmost prefix rule of a composite index.

### 2.3 Open source

I have contributed fixes to two open source projects: table detection in a document parsing library, and the Chinese tokenizer settings of a retrieval framework. Each fix came with a test that reproduced the problem.

<!-- page -->

## 3. Screenshots

The two screenshots below come from my study notes and from a mock interview.

<!-- screenshot en-notes -->

Figure 1: A page of my study notes

<!-- screenshot en-chat -->

Figure 2: Questions and answers from a mock interview
"""

SCREENSHOTS = {
    "zh-notes": Screenshot(
        "学习笔记 - 检索系统",
        (
            "一、倒排索引",
            "倒排索引记录每个词出现在哪些文档中。",
            "查询时取出每个词的文档列表再求交集。",
            "二、向量检索",
            "向量检索把文本映射成稠密向量。",
            "近似最近邻算法可以在毫秒内返回结果。",
            "常见的索引结构有图索引和倒排文件索引。",
            "三、混合检索",
            "混合检索同时使用关键词和向量两路召回。",
            "倒数排名融合把两个排序列表合并起来。",
            "重排序模型再对候选段落逐一打分。",
            "最后把最相关的段落交给大模型生成回答。",
        ),
        "zh",
    ),
    "zh-chat": Screenshot(
        "模拟面试 - 问答记录",
        (
            "问：什么是检索增强生成？",
            "答：先从知识库中检索相关段落，",
            "再让大模型根据这些段落回答问题。",
            "问：为什么需要重排序？",
            "答：第一阶段的召回追求覆盖率，",
            "排在前面的段落不一定最相关。",
            "问：如何评估检索的效果？",
            "答：准备一组标注了相关段落的问题，",
            "计算召回率和排序指标。",
            "问：分块的大小如何选择？",
            "答：先用模型训练时的长度，",
            "再在评估集上比较不同的大小。",
        ),
        "zh",
    ),
    "en-notes": Screenshot(
        "Study notes - search systems",
        (
            "1. Inverted index",
            "An inverted index lists the documents of every word.",
            "A query intersects the lists of its words.",
            "2. Vector search",
            "Vector search maps text to dense vectors.",
            "Approximate nearest neighbour search is fast.",
            "Graph indexes and inverted files are common.",
            "3. Hybrid search",
            "Hybrid search runs a keyword and a vector route.",
            "Reciprocal rank fusion merges the two lists.",
            "A reranker scores the best candidates again.",
            "The best passages go to the language model.",
        ),
        "en",
    ),
    "en-chat": Screenshot(
        "Mock interview - questions",
        (
            "Q: What is retrieval-augmented generation?",
            "A: The system first retrieves relevant passages",
            "and the model answers from those passages.",
            "Q: Why do we need a reranker?",
            "A: The first stage favours coverage, so the top",
            "passages are not always the most relevant ones.",
            "Q: How do you evaluate retrieval?",
            "A: With questions whose relevant passages are",
            "judged, and with recall and ranking metrics.",
            "Q: How do you choose a chunk size?",
            "A: Start from the length the model was trained",
            "on, then compare sizes on the evaluation set.",
        ),
        "en",
    ),
}

DOCUMENTS = (
    MixedDocument("zh-guide.pdf", "zh", ZH_GUIDE, "RAG 技术指南 内部资料", "第 {page} 页", spaces_only=True),
    MixedDocument("en-spec.pdf", "en", EN_SPEC, "Advanced RAG System - Technical Specification", "Page {page}"),
    MixedDocument("zh-profile.pdf", "zh", ZH_PROFILE, "个人技术简介", "- {page} -", look="profile"),
    MixedDocument("en-profile.pdf", "en", EN_PROFILE, "About me", "{page}", paper="Letter", look="profile"),
)


def write_corpus(
    folder: Path, producer: str = "reportlab", documents: tuple[MixedDocument, ...] = DOCUMENTS
) -> dict[str, tuple[Path, MixedDocument]]:
    """Every document printed by ``producer`` into ``folder``, with its truth beside it (``NAME.md``)."""
    folder.mkdir(parents=True, exist_ok=True)
    if producer == "reportlab":
        from tests.workbench.ingestion.reportlab_print import build_pdf

        for document in documents:
            (folder / document.name).write_bytes(build_pdf(document))
    elif producer == "chromium":
        from tests.workbench.ingestion.chromium_print import print_mixed

        print_mixed(documents, folder, _images())
    elif producer == "office":
        from tests.workbench.ingestion.pdf_corpus_office import convert_mixed

        convert_mixed(documents, folder, _images())
    else:
        raise ValueError(f"unknown producer {producer!r}; known: {', '.join(PRODUCERS)}")
    written = {}
    for document in documents:
        (folder / document.name).with_suffix(".md").write_text(document.truth, encoding="utf-8")
        written[document.name] = (folder / document.name, document)
    return written


def _images() -> dict[str, bytes]:
    from tests.workbench.ingestion.screenshots import screenshot_png

    return {key: screenshot_png(shot) for key, shot in SCREENSHOTS.items()}


def available(producer: str) -> str | None:
    """None when this machine can print with ``producer``, else what it lacks."""
    from tests.workbench.ingestion import pdf_corpus_chromium, pdf_corpus_office
    from tests.workbench.ingestion.screenshots import CHINESE_FONT_FILE

    if not Path(CHINESE_FONT_FILE).exists():
        return "fonts-wqy-microhei"
    if producer == "chromium" and not pdf_corpus_chromium.available():
        return "/usr/bin/chromium and playwright"
    if producer == "office" and not pdf_corpus_office.available():
        return "LibreOffice (soffice; apt-get install -y libreoffice-writer-nogui)"
    return None


if __name__ == "__main__":
    for name, (path, _document) in write_corpus(
        Path(sys.argv[1] if len(sys.argv) > 1 else "pdf-corpus-mixed"),
        sys.argv[2] if len(sys.argv) > 2 else "reportlab",
    ).items():
        print(name, path)
