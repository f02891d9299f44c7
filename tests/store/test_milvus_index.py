"""The Milvus backend beyond the index contract: filters as expressions, snapshot views, text
analysis, analyzers, and the errors a user sees when Milvus is not there.

Everything runs on Milvus Lite (a local file, no server); ``tests/store/test_index_contract.py``
holds the behaviour every backend shares.
"""

from __future__ import annotations

import itertools
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from store.milvus import (
    CONNECTIONS,
    ChunkRows,
    CollectionSpec,
    MilvusAccess,
    MilvusBm25Index,
    MilvusCollection,
    MilvusCollectionMissing,
    MilvusDenseIndex,
    MilvusError,
    MilvusUnavailable,
    choose_analyzer,
    filter_expression,
    resolve_analyzer,
)
from store.retrieval_index import AllowedChunks, ChunkBatch, ExplainNotSupported, IndexQuery

DIM = 8
_names = itertools.count()


@pytest.fixture(scope="module")
def lite_uri(tmp_path_factory):
    uri = str(tmp_path_factory.mktemp("milvus") / "store-tests.db")
    yield uri
    CONNECTIONS.release(uri)


def unit(*weights: float) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[: len(weights)] = weights
    return vector / np.linalg.norm(vector)


def library(uri: str, analysis: str = "client", analyzer: str = "standard") -> MilvusCollection:
    """Six chunks of three documents (two pdf, one md), pushed the way a sync pushes them."""
    collection = MilvusCollection.create(
        uri, f"store_{next(_names)}", CollectionSpec(dim=DIM, analysis=analysis, analyzer=analyzer)
    )
    rows = ChunkRows(
        ids=np.array([10, 11, 20, 21, 30, 31]),
        doc_ids=np.array([1, 1, 2, 2, 3, 3]),
        doc_types=["pdf", "pdf", "md", "md", "pdf", "pdf"],
        texts=[
            "Apples grow in orchards.",
            "The apple harvest starts in autumn.",
            "Bees make honey.",
            "A hive of bees in the orchard.",
            "Training neural networks.",
            "Apple trees need bees.",
        ],
        vectors=np.stack([unit(1, 0.1), unit(1, 0.3), unit(0, 1), unit(0.2, 1), unit(0, 0, 1), unit(1, 1)]),
    )
    assert collection.upsert(rows, generation=7, batch_size=4) == 6
    return collection


def test_filter_expressions_name_documents_and_types_or_else_chunk_ids():
    assert filter_expression(None) == ""
    assert filter_expression({12, 3}) == "id in [3,12]"
    assert filter_expression(AllowedChunks({1, 2}, document_ids={7, 5})) == "doc_id in [5,7]"
    assert filter_expression(AllowedChunks({1}, doc_types={"pdf", 'say "md"'})) == 'doc_type in ["pdf", "say \\"md\\""]'
    assert (
        filter_expression(AllowedChunks({1}, document_ids={5}, doc_types={"pdf"}))
        == 'doc_id in [5] and doc_type in ["pdf"]'
    )


def test_allowed_chunks_are_a_set_that_remembers_its_filter():
    import pickle

    allowed = AllowedChunks([3, 1, 2], document_ids=[7], doc_types=["pdf"])
    assert allowed == {1, 2, 3} and isinstance(allowed, frozenset)
    copy = pickle.loads(pickle.dumps(allowed))
    assert (copy, copy.document_ids, copy.doc_types) == ({1, 2, 3}, frozenset({7}), frozenset({"pdf"}))
    assert AllowedChunks([1]).document_ids is None and AllowedChunks([1]).doc_types is None


def test_document_and_type_filters_run_in_milvus(lite_uri):
    collection = library(lite_uri)
    dense, bm25 = MilvusDenseIndex(collection), MilvusBm25Index(collection)
    query = IndexQuery(text="apple bees", vector=unit(1, 0.5))
    everything = {chunk for chunk, _ in dense.search(query, 10)}
    assert everything == {10, 11, 20, 21, 30, 31}

    only_pdf = AllowedChunks({10, 11, 30, 31}, doc_types={"pdf"})
    assert {chunk for chunk, _ in dense.search(query, 10, only_pdf)} == {10, 11, 30, 31}
    assert {chunk for chunk, _ in bm25.search(query, 10, only_pdf)} == {10, 11, 31}  # 30 shares no term

    only_doc_2 = AllowedChunks({20, 21}, document_ids={2})
    assert [chunk for chunk, _ in bm25.search(query, 10, only_doc_2)] == [20, 21]  # "bees" in both, 20 shorter
    # a filtered BM25 score is the unfiltered one: statistics cover the whole collection
    unfiltered = dict(bm25.search(query, 10))
    for chunk, score in bm25.search(query, 10, only_doc_2):
        assert score == pytest.approx(unfiltered[chunk], rel=1e-6)
    # the filter names documents, not chunks: no chunk list goes to Milvus
    assert dense.search(query, 10, AllowedChunks(set(), document_ids={99})) == []


def test_snapshot_views_answer_only_with_the_chunks_they_know(lite_uri):
    collection = library(lite_uri)
    # a snapshot published before chunk 31 was pushed
    known = {10, 11, 20, 21, 30}
    dense, bm25 = MilvusDenseIndex(collection, known), MilvusBm25Index(collection, known)
    query = IndexQuery(text="apple trees bees", vector=unit(1, 1))
    assert 31 in {chunk for chunk, _ in MilvusDenseIndex(collection).search(query, 10)}
    assert {chunk for chunk, _ in dense.search(query, 10)} == known
    assert 31 not in {chunk for chunk, _ in bm25.search(query, 10)}
    assert len(dense) == 5 and sorted(dense.ids().tolist()) == sorted(known)
    with pytest.raises(KeyError, match="31"):
        dense.explain(query, 31)


def test_vectors_come_back_row_aligned_and_a_missing_one_is_named(lite_uri):
    dense = MilvusDenseIndex(library(lite_uri))
    vectors = dense.vectors_for(np.array([21, 10]))
    np.testing.assert_allclose(vectors, np.stack([unit(0.2, 1), unit(1, 0.1)]), atol=1e-6)
    assert dense.vectors_for(np.array([], dtype=np.int64)).shape == (0, DIM)
    with pytest.raises(KeyError, match="404"):
        dense.vectors_for(np.array([10, 404]))


def test_exact_search_widens_to_every_chunk_and_ef_below_k_is_raised(lite_uri):
    dense = MilvusDenseIndex(library(lite_uri))
    query = unit(1, 0.5)
    assert [chunk for chunk, _ in dense.search(query, 6, exact=True)] == [
        chunk for chunk, _ in dense.search(query, 6, ef_search=1)
    ]  # ef below k still returns k
    assert len(dense.search(query, 6, ef_search=1)) == 6


def test_client_analysis_stems_and_drops_stop_words_like_the_local_index(lite_uri):
    collection = library(lite_uri, analysis="client")
    # the workbench's terms ("appl" the stem of "apples"; "the" a stop word), each as its UTF-8 in hex
    assert collection.analyse("The Apples! 蜂蜜") == "6170706c e89c82e89c9c"
    bm25 = MilvusBm25Index(collection)
    # "apples" and "apple" share the stem; "the" is a stop word and matches nothing
    assert {chunk for chunk, _ in bm25.search("apples", 10)} == {10, 11, 31}
    assert bm25.search("the", 10) == []
    assert bm25.search("   ", 10) == []


def test_server_analysis_sends_raw_text_to_the_milvus_analyzer(lite_uri):
    collection = library(lite_uri, analysis="server", analyzer="standard")
    bm25 = MilvusBm25Index(collection)
    assert collection.analyse("The Apples!") == "The Apples!"
    assert bm25.search("the", 10) == []  # the stop filter removes it on the server
    assert {chunk for chunk, _ in bm25.search("honey", 10)} == {20}


def test_chinese_text_is_found_by_jieba_words(lite_uri):
    collection = MilvusCollection.create(lite_uri, f"store_{next(_names)}", CollectionSpec(dim=DIM))
    texts = [
        "检索增强生成先检索相关段落，再让模型依据段落回答问题。",
        "蜜蜂采集花蜜酿造蜂蜜。",
        "苹果园在春天需要蜜蜂为苹果花授粉。",
    ]
    collection.upsert(
        ChunkRows(
            np.array([1, 2, 3]), np.array([1, 1, 1]), ["md"] * 3, texts, np.stack([unit(1), unit(0, 1), unit(0, 0, 1)])
        ),
        generation=1,
    )
    bm25 = MilvusBm25Index(collection)
    assert [chunk for chunk, _ in bm25.search("段落", 10)] == [1]
    assert [chunk for chunk, _ in bm25.search("蜂蜜", 10)] == [2]
    assert {chunk for chunk, _ in bm25.search("蜜蜂", 10)} == {2, 3}


def test_analyzers_follow_the_analysis_and_the_language():
    english, chinese = ["Bees make honey in a hive."] * 3, ["蜜蜂采集花蜜酿造蜂蜜，一个蜂巢里有成千上万只蜜蜂。"] * 3
    assert choose_analyzer(english) == "standard" and choose_analyzer(chinese) == "jieba"
    assert choose_analyzer(["An English text with one 词."]) == "standard"  # a stray character is not Chinese
    # client analysis: the terms arrive encoded, and any standard tokenizer only splits them apart
    assert resolve_analyzer("client", "auto", "/tmp/x.db", chinese) == "standard"
    assert resolve_analyzer("client", "jieba", "http://milvus:19530", chinese) == "standard"
    assert resolve_analyzer("server", "auto", "http://milvus:19530", chinese) == "jieba"
    assert resolve_analyzer("server", "standard", "http://milvus:19530", chinese) == "standard"
    with pytest.raises(ValueError, match="milvus.analyzer: unknown 'snowball'; use auto or one of standard, jieba"):
        resolve_analyzer("server", "snowball", "x.db", english)

    assert CollectionSpec(dim=4, analysis="client").analyzer_params() == {"tokenizer": "standard"}
    server = CollectionSpec(dim=4, analysis="server", analyzer="jieba").analyzer_params()
    assert server["tokenizer"] == {"type": "jieba", "mode": "exact"}
    lowercase, stop, stemmer = server["filter"]
    assert lowercase == "lowercase" and stop["type"] == "stop" and stemmer == {"type": "stemmer", "language": "english"}
    assert {"the", "and", "，", "。"} <= set(stop["stop_words"])
    with pytest.raises(ValueError, match="milvus.analysis: unknown 'remote'; use one of client, server"):
        CollectionSpec(dim=4, analysis="remote")


def test_a_text_too_long_for_a_milvus_field_names_the_chunk_and_the_fix(lite_uri):
    collection = MilvusCollection.create(lite_uri, f"store_{next(_names)}", CollectionSpec(dim=DIM, analysis="server"))
    rows = ChunkRows(np.array([5]), np.array([1]), ["md"], ["word " * 20000], unit(1)[None, :])
    with pytest.raises(ValueError, match=r"chunk 5: its BM25 text is 100000 bytes, more than the 65535.*chunking.size"):
        collection.upsert(rows, generation=1)
    with pytest.raises(ValueError, match="milvus.batch_size must be at least 1, got 0"):
        collection.upsert(rows, generation=1, batch_size=0)


def test_the_generation_is_recorded_on_the_collection(lite_uri):
    collection = library(lite_uri)
    assert collection.recorded_generation() is None
    collection.record_generation(12)
    assert MilvusCollection.open(lite_uri, collection.name).recorded_generation() == 12
    assert collection.count() == 6 and collection.ids().tolist() == [10, 11, 20, 21, 30, 31]


def test_bm25_cannot_explain_but_dense_reads_the_stored_vector(lite_uri):
    collection = library(lite_uri)
    with pytest.raises(ExplainNotSupported, match="milvus cannot explain its scores"):
        MilvusBm25Index(collection).explain("apple", 10)
    query = unit(1, 0.5)
    explained = MilvusDenseIndex(collection).explain(query, 21)
    assert explained.score == pytest.approx(float(unit(0.2, 1) @ query), abs=1e-6)
    assert explained.score == pytest.approx(dict(MilvusDenseIndex(collection).search(query, 6))[21], abs=1e-5)


def test_a_loaded_view_needs_its_collection_and_a_foreign_collection_is_refused(lite_uri, tmp_path):
    batch = ChunkBatch(np.array([1, 2]), texts=["one", "two"], vectors=np.stack([unit(1), unit(0, 1)]))
    index = MilvusDenseIndex.from_chunks(batch, uri=lite_uri, collection=f"store_{next(_names)}")
    index.save(tmp_path / "dense")
    index.collection.drop()
    with pytest.raises(MilvusCollectionMissing, match=r"has no collection .*python -m workbench sync -c COLLECTION"):
        MilvusDenseIndex.load(tmp_path / "dense")

    from pymilvus import DataType

    client = CONNECTIONS.client(lite_uri)
    foreign = f"foreign_{next(_names)}"
    schema = client.create_schema(auto_id=False)
    schema.add_field("pk", DataType.INT64, is_primary=True)
    schema.add_field("v", DataType.FLOAT_VECTOR, dim=2)
    client.create_collection(foreign, schema=schema)
    with pytest.raises(MilvusError, match="was not created by the workbench.*collection_prefix"):
        MilvusCollection.open(lite_uri, foreign)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_server_is_named_with_the_fix():
    uri = f"http://127.0.0.1:{_free_port()}"
    CONNECTIONS.configure(uri, MilvusAccess(token="user:secret", timeout_s=2))
    with pytest.raises(MilvusUnavailable) as caught:
        MilvusCollection.open(uri, "anything")
    message = str(caught.value)
    assert uri in message and "docker compose up -d" in message and "migrate-backend" in message
    assert "Other collections keep working" in message and "secret" not in message
    with pytest.raises(ValueError, match="milvus.timeout_s must be more than 0 seconds, got 0"):
        MilvusAccess(timeout_s=0)


def test_a_lite_file_held_by_another_process_says_how_to_share_it(tmp_path):
    uri = str(tmp_path / "held.db")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys
            from pymilvus import MilvusClient
            MilvusClient({uri!r}).list_collections()
            print("open", flush=True)
            sys.stdin.read()
        """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(MilvusUnavailable) as caught:
            CONNECTIONS.client(uri)
        message = str(caught.value)
        assert uri in message and "open in another process" in message
        assert f"python -m milvus_lite server --data-dir {uri} --port 19530" in message
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    # once the other process is gone the file opens here
    assert CONNECTIONS.client(uri).list_collections() == []
    CONNECTIONS.release(uri)
