"""Chinese questions carrying English terms, end to end (issue 48).

"混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？" has more Latin letters than Han characters; counted
in letters it was English, the English-only model voted, its top hits were the chapter-end
boilerplate, and with MMR the verdict said "No answer" though BM25 ranked the answer first. A tiny
random-weight model whose card declares English stands in for all-MiniLM-L6-v2 (it reads Chinese
as badly), over a small handbook whose chapters end with the same boilerplate.
"""

from __future__ import annotations

import pytest

from workbench.config import WorkbenchConfig
from workbench.ingestion.ingest import Source
from workbench.retrieval.confidence import NO_ANSWER

BOILERPLATE = (
    "\n\n## 延伸思考\n\n如果要评估本章方案的效果，你会选择哪些指标（例如 Recall@K、MRR、NDCG@10）？"
    "换成混合检索加 Cross-Encoder 重排的方案，结论会改变吗？"
)
CHAPTERS = {
    "ch1.md": "# 第一章 混合检索\n\n稀疏检索（BM25）与稠密检索并行召回候选，再用 RRF 融合两路排名。",
    "ch2.md": "# 第二章 重排\n\n对融合后的候选用 Cross-Encoder 重排，保留前 8 到 12 个片段。",
    "ch3.md": (
        "# 第三章 评估结果\n\n在黄金集上，混合检索加 Cross-Encoder 重排的 NDCG@10 为 0.912，只用 BM25 时为 0.861。"
    ),
    "ch4.md": "# 第四章 切分\n\n文档按标题切分，代码按函数切分，每块保留标题路径。",
}
QUESTION = "混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？"


@pytest.fixture(scope="module")
def tiny_english_model_dir(tmp_path_factory) -> str:
    from tests.conftest import save_tiny_sentence_model

    return str(save_tiny_sentence_model(tmp_path_factory.mktemp("tiny-models") / "tiny-en", ("en",)))


@pytest.fixture(scope="module")
def handbook(tmp_path_factory, tiny_english_model_dir):
    from workbench.service import Workbench

    bench = Workbench(tmp_path_factory.mktemp("mixed") / "home")
    config = WorkbenchConfig().with_overrides([f"embedding.model={tiny_english_model_dir}"])
    sources = [Source(name=name, data=(text + BOILERPLATE).encode()) for name, text in CHAPTERS.items()]
    report = bench.ingest("handbook", sources, config)
    assert not report.failures
    return bench, config


def source_of(trace, position: int) -> str:
    return trace.chunks[trace.final.hits[position].chunk_id].source


@pytest.mark.parametrize("mmr", [False, True])
def test_a_chinese_question_with_english_terms_is_answered_from_what_bm25_finds(handbook, mmr):
    bench, config = handbook
    config = config.with_overrides([f"mmr.enabled={str(mmr).lower()}"])
    bm25 = bench.query(QUESTION, "handbook", config.with_overrides(["retrieval.mode=bm25"]))
    assert source_of(bm25, 0) == "ch3.md"  # the chapter with the figure: BM25's first
    trace = bench.query(QUESTION, "handbook", config)
    # the question is Chinese, so the English model neither votes in fusion nor in the verdict
    assert trace.language.query.language == "zh" and trace.language.dense_votes is False
    assert trace.confidence.signal("dense").used is False
    assert source_of(trace, 0) == "ch3.md"
    assert trace.confidence.verdict != NO_ANSWER, trace.confidence.to_dict()
