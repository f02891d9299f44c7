"""Milvus as a retrieval backend: HNSW dense search and server-side BM25 over one Milvus collection.

A layout's chunks live in one Milvus collection, one row per chunk:

    id          INT64 primary key: the catalog's chunk id
    doc_id      INT64, the chunk's document; document filters become expressions on it
    doc_type    VARCHAR, the document's type (pdf, md, ...); type filters become expressions on it
    generation  INT64, the catalog generation of the push that wrote the row
    text        VARCHAR, what BM25 indexes (see "Text analysis"), analysed by Milvus
    vector      FLOAT_VECTOR, the chunk's embedding, in an HNSW index with the COSINE metric
    sparse      SPARSE_FLOAT_VECTOR, written by Milvus's BM25 function from ``text``

Two views implement the index contract (``store.retrieval_index``) over that one collection:
``MilvusDenseIndex`` ranks by the vector, ``MilvusBm25Index`` by BM25. A row carries both its
text and its vector, so ``add`` through either view writes both.

Text analysis. With ``analysis="client"`` (the default) the workbench's own BM25 tokenizer
(``store.text_tokenizer``: lowercase, stop words, Snowball stemming, jieba for Chinese runs)
makes the terms before they reach Milvus, and Milvus's tokenizer only splits them apart (see
``TextAnalysis``). One tokenizer on both backends keeps a collection's BM25 the same wherever it
lives and the explain view's matched terms exact; and Milvus Lite ignores the stemmer filter
(on SciFact, BM25 nDCG@10 is 0.6465 with server analysis in Milvus Lite, 0.6834 with client). With
``analysis="server"`` Milvus analyses the raw text itself: ``jieba`` for a Chinese corpus,
``standard`` otherwise, with English stop-word and stemming filters.

Milvus Lite (a ``.db`` path instead of ``http://host:19530``) keeps BM25 statistics per segment
and, for rows not yet flushed, over the rows a filter lets through. So that a filtered search
scores like an unfiltered one, rows this process wrote are flushed before a filtered BM25
search on Lite (``MilvusConnections.settle``); a Milvus server keeps corpus-wide statistics.

The package, one job a module: ``errors`` (what fails and how it is named), ``names`` (URIs and
collection names), ``lite`` (Milvus Lite's file lock and server log), ``connections`` (one client
per URI), ``analyzers`` (who turns text into BM25 terms), ``schema`` (the fields and what a
collection is built with), ``collection`` (every call on one collection), ``filters`` (allowed
chunks as expressions) and ``views`` (the two routes, implementing the index contract).
"""

from store.milvus.analyzers import TextAnalysis, choose_analyzer, resolve_analyzer
from store.milvus.collection import ChunkRows, MilvusCollection
from store.milvus.connections import CONNECTIONS, MilvusAccess, MilvusConnections
from store.milvus.errors import MilvusCollectionMissing, MilvusError, MilvusUnavailable
from store.milvus.filters import filter_expression
from store.milvus.names import check_collection_prefix, collection_name_for, is_lite, resolve_uri
from store.milvus.schema import CollectionSpec
from store.milvus.views import MilvusBm25Index, MilvusDenseIndex

__all__ = [
    "CONNECTIONS",
    "ChunkRows",
    "CollectionSpec",
    "MilvusAccess",
    "MilvusBm25Index",
    "MilvusCollection",
    "MilvusCollectionMissing",
    "MilvusConnections",
    "MilvusDenseIndex",
    "MilvusError",
    "MilvusUnavailable",
    "TextAnalysis",
    "check_collection_prefix",
    "choose_analyzer",
    "collection_name_for",
    "filter_expression",
    "is_lite",
    "resolve_analyzer",
    "resolve_uri",
]
