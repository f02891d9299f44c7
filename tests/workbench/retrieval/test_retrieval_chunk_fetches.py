"""The query path reads chunk texts from the snapshot's chunk store for its hits only."""

from __future__ import annotations

import shutil

import pytest

from store.documents import index_source
from store.index_set import CHUNK_COLUMNS, write_table
from tests.workbench.corpus import DOCS
from workbench.evaluation.golden import GoldenQuery, RelevantItem
from workbench.evaluation.runner import judge_for
from workbench.ingestion.ingest import Source
from workbench.layout import Layout

CHINESE = {
    "rag.md": "# 检索增强生成\n\n检索增强生成先从知识库检索相关片段，再交给大模型生成答案。\n\n"
    "## 分块\n\n文档被切分成块，每块单独编入索引，查询时只取回命中的块。",
}


@pytest.fixture
def kb(bench, fake_embedder, fake_config):
    documents = {**DOCS, **CHINESE}
    bench.ingest("kb", [Source(name=n, data=t.encode()) for n, t in documents.items()], fake_config)
    return bench


def test_the_chunk_table_holds_what_the_catalog_holds(kb, fake_config):
    snapshot = kb.snapshot("kb", fake_config)
    rows = index_source(kb.catalog, "kb", Layout.of(fake_config).chunkset_key, None).chunk_rows
    assert len(snapshot.chunks) == len(rows["id"]) > len(DOCS)
    for position, chunk_id in enumerate(rows["id"].tolist()):
        record = snapshot.chunks[chunk_id]
        assert record.text.encode("utf-8") == str(rows["text"][position]).encode("utf-8")
        assert record.indexed_text == str(rows["indexed_text"][position])
        assert (record.doc_id, record.start, record.end) == (
            int(rows["document_id"][position]),
            int(rows["start_offset"][position]),
            int(rows["end_offset"][position]),
        )
        assert record.heading_path == tuple(rows["heading_path"][position])
        assert snapshot.doc_id_of[chunk_id] == record.doc_id
    chinese = [record for record in snapshot.chunks.values() if "检索" in record.text]
    assert chinese and chinese[0].heading_path[0] == "检索增强生成"


def test_a_query_reads_the_texts_of_its_hits_only(kb, fake_config, tiny_cross_encoder_dir):
    config = fake_config.with_overrides(
        [
            "retrieval.mode=hybrid",
            "mmr.enabled=true",
            "retrieval.top_k=2",
            f"rerank.model={tiny_cross_encoder_dir}",
            "rerank.top_m=3",
        ]
    )
    snapshot = kb.snapshot("kb", config)
    fetched = snapshot.chunks.record_fetches()
    trace = kb.query("检索 solar electricity", "kb", config)
    assert trace.confidence is not None
    reranked = set(trace.stage("mmr").ranked.ids[:3])
    assert fetched <= reranked  # the cross-encoder reads its head's texts; nothing else is read yet
    shown = {view.chunk_id for view in trace.final_chunks()}
    assert shown == set(trace.final.chunk_ids()) and shown <= fetched <= reranked | shown
    assert len(fetched) < len(snapshot.chunks)


def test_a_snapshot_from_before_the_chunk_store_is_rebuilt(kb, fake_config):
    snapshot = kb.snapshot("kb", fake_config)
    texts = {chunk_id: record.text for chunk_id, record in snapshot.chunks.items()}
    # what a version folder held before: the chunk table as one parquet file
    old = snapshot.folder
    write_table(
        old / "chunks.parquet",
        [tuple(getattr(r, c) for c in CHUNK_COLUMNS) for r in snapshot.chunks.values()],
        CHUNK_COLUMNS,
    )
    shutil.rmtree(old / "chunks")
    kb.release_backends()  # a fresh process: nothing loaded
    rebuilt = kb.snapshot("kb", fake_config)
    assert rebuilt.folder != old and (rebuilt.folder / "chunks").is_dir()
    assert {chunk_id: record.text for chunk_id, record in rebuilt.chunks.items()} == texts
    assert kb.query("检索", "kb", fake_config).final_chunks()[0].source == "rag.md"


def test_the_evaluation_judge_reads_a_text_only_to_find_a_quote_in_it(kb, fake_config):
    snapshot = kb.snapshot("kb", fake_config)
    fetched = snapshot.chunks.record_fetches()
    judge = judge_for(kb, "kb", fake_config)
    by_document = judge.judge(GoldenQuery("d", "bread", (RelevantItem("bread.md"),)))
    assert by_document and fetched == set()  # a document judgement needs no text
    quoted = judge.judge(GoldenQuery("q", "rag", (RelevantItem("rag.md", quote="每块单独编入索引"),)))
    read = set(fetched)
    rag = next(doc.doc_id for doc in snapshot.documents.values() if doc.source == "rag.md")
    assert read and read <= set(snapshot.chunks.ids_of_documents({rag}).tolist())  # the quoted document's only
    assert len(quoted) == 1 and "每块单独编入索引" in snapshot.chunks[next(iter(quoted))].text
