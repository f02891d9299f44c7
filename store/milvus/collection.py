"""One Milvus collection of a layout's chunks: create, open, write, read, search; every failure named."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from store.milvus.analyzers import TextAnalysis
from store.milvus.connections import CONNECTIONS, MilvusConnections
from store.milvus.errors import MilvusCollectionMissing, MilvusError, MilvusUnavailable, is_unreachable, message_of
from store.milvus.names import is_lite
from store.milvus.schema import (
    DOC_ID,
    DOC_TYPE,
    DOC_TYPE_MAX_LENGTH,
    GENERATION,
    GENERATION_PROPERTY,
    ID,
    IDS_PER_REQUEST,
    MAX_EF,
    MAX_TEXT_BYTES,
    MAX_TOPK,
    SPARSE,
    SPEC_PROPERTY,
    TEXT,
    VECTOR,
    CollectionSpec,
)

if TYPE_CHECKING:
    from pymilvus import MilvusClient


@dataclass(frozen=True)
class ChunkRows:
    """Chunks to push, row-aligned: ids, their documents and types, indexed texts and vectors."""

    ids: np.ndarray
    doc_ids: np.ndarray
    doc_types: Sequence[str]
    texts: Sequence[str]
    vectors: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    def rows(self, start: int, stop: int, analyse: TextAnalysis, generation: int) -> list[dict]:
        rows = []
        for position in range(start, stop):
            text = analyse(self.texts[position])
            size = len(text.encode("utf-8"))
            if size > MAX_TEXT_BYTES:
                raise ValueError(
                    f"chunk {int(self.ids[position])}: its BM25 text is {size} bytes, more than the {MAX_TEXT_BYTES} "
                    "a Milvus text field holds; use a smaller chunking.size"
                )
            rows.append(
                {
                    ID: int(self.ids[position]),
                    DOC_ID: int(self.doc_ids[position]),
                    DOC_TYPE: str(self.doc_types[position])[:DOC_TYPE_MAX_LENGTH],
                    GENERATION: int(generation),
                    TEXT: text,
                    VECTOR: np.asarray(self.vectors[position], dtype=np.float32).tolist(),
                }
            )
        return rows


class MilvusCollection:
    """One Milvus collection of a layout's chunks, with every call's failure named."""

    def __init__(self, uri: str, name: str, spec: CollectionSpec, connections: MilvusConnections = CONNECTIONS) -> None:
        self.uri, self.name, self.spec, self.connections = uri, name, spec, connections
        self.analyse = TextAnalysis(spec.analysis)

    @property
    def timeout_s(self) -> float:
        return self.connections.access(self.uri).timeout_s

    # -- opening and creating

    @classmethod
    def open(cls, uri: str, name: str, connections: MilvusConnections = CONNECTIONS) -> MilvusCollection:
        """An existing collection, with the spec it was created with (recorded on it)."""
        probe = cls(uri, name, CollectionSpec(dim=1), connections)
        client, timeout_s = probe.client, probe.timeout_s
        if not probe._call("has_collection", client.has_collection, name, timeout=timeout_s):
            raise MilvusCollectionMissing(uri, name)
        described = probe._call("describe_collection", client.describe_collection, name, timeout=timeout_s)
        try:
            spec = CollectionSpec(**json.loads((described.get("properties") or {})[SPEC_PROPERTY]))
        except (KeyError, TypeError, ValueError):
            raise MilvusError(
                f"Milvus collection {name!r} at {uri} was not created by the workbench (it records no "
                f"{SPEC_PROPERTY}); use another milvus.collection_prefix, or drop that collection"
            ) from None
        # A collection is searchable once loaded; Milvus Lite opens every collection released.
        probe._call("load_collection", client.load_collection, name, timeout=timeout_s)
        return cls(uri, name, spec, connections)

    @classmethod
    def create(
        cls,
        uri: str,
        name: str,
        spec: CollectionSpec,
        connections: MilvusConnections = CONNECTIONS,
        replace: bool = False,
    ) -> MilvusCollection:
        """A new, empty collection (an existing one of that name is dropped first when ``replace``)."""
        from pymilvus import DataType, Function, FunctionType

        collection = cls(uri, name, spec, connections)
        client, timeout_s = collection.client, collection.timeout_s
        if collection._call("has_collection", client.has_collection, name, timeout=timeout_s):
            if not replace:
                raise MilvusError(f"Milvus at {uri} already has a collection {name!r}; open it instead")
            collection._call("drop_collection", client.drop_collection, name, timeout=timeout_s)
        schema = client.create_schema(
            auto_id=False, enable_dynamic_field=False, description="chunks of a RAG Workbench layout"
        )
        schema.add_field(ID, DataType.INT64, is_primary=True)
        schema.add_field(DOC_ID, DataType.INT64)
        schema.add_field(DOC_TYPE, DataType.VARCHAR, max_length=DOC_TYPE_MAX_LENGTH)
        schema.add_field(GENERATION, DataType.INT64)
        schema.add_field(
            TEXT,
            DataType.VARCHAR,
            max_length=MAX_TEXT_BYTES,
            enable_analyzer=True,
            analyzer_params=spec.analyzer_params(),
        )
        schema.add_field(VECTOR, DataType.FLOAT_VECTOR, dim=spec.dim)
        schema.add_field(SPARSE, DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(
            Function(
                name="bm25", function_type=FunctionType.BM25, input_field_names=[TEXT], output_field_names=[SPARSE]
            )
        )
        indexes = client.prepare_index_params()
        # Build parameters go nested under "params": Milvus reads that form, and Milvus Lite reads only it.
        indexes.add_index(
            field_name=VECTOR,
            index_type="HNSW",
            metric_type="COSINE",
            params={"params": {"M": spec.m, "efConstruction": spec.ef_construction}},
        )
        indexes.add_index(
            field_name=SPARSE,
            index_type="SPARSE_INVERTED_INDEX",
            metric_type="BM25",
            params={"params": {"bm25_k1": spec.k1, "bm25_b": spec.b}},
        )
        indexes.add_index(field_name=DOC_ID, index_type="INVERTED")
        indexes.add_index(field_name=DOC_TYPE, index_type="INVERTED")
        collection._call(
            "create_collection",
            client.create_collection,
            name,
            schema=schema,
            consistency_level="Strong",
            timeout=timeout_s,
        )
        # sync=False: pymilvus would otherwise poll each index of the still empty collection every 0.5 s.
        collection._call("create_index", client.create_index, name, indexes, sync=False, timeout=timeout_s)
        collection._call("load_collection", client.load_collection, name, timeout=timeout_s)
        # Recorded on the collection, so whoever opens it later knows how it was built.
        collection._call(
            "alter_collection_properties",
            client.alter_collection_properties,
            name,
            properties={SPEC_PROPERTY: json.dumps(spec.to_dict(), sort_keys=True)},
            timeout=timeout_s,
        )
        return collection

    @property
    def client(self) -> MilvusClient:
        return self.connections.client(self.uri)

    def _call(self, operation: str, function: Callable, *args, **kwargs):
        from pymilvus.exceptions import MilvusException

        try:
            return function(*args, **kwargs)
        except MilvusException as error:
            if is_unreachable(error):
                self.connections.forget(self.uri)
                raise MilvusUnavailable(self.uri, message_of(error)) from None
            raise MilvusError(
                f"Milvus at {self.uri}: {operation} on collection {self.name!r} failed: {message_of(error)}"
            ) from None
        except Exception as error:
            if is_unreachable(error):
                self.connections.forget(self.uri)
                raise MilvusUnavailable(self.uri, message_of(error)) from None
            raise

    # -- writing

    def upsert(
        self,
        chunks: ChunkRows,
        generation: int,
        batch_size: int | None = None,
        on_batch: Callable[[int, int], None] | None = None,
    ) -> int:
        """Write the chunks in batches of ``batch_size`` (default: the URI's ``MilvusAccess``); a
        row whose id is there already is replaced. Returns the rows written."""
        batch_size = self.connections.access(self.uri).batch_size if batch_size is None else batch_size
        if batch_size < 1:
            raise ValueError(f"milvus.batch_size must be at least 1, got {batch_size}")
        if len(chunks) and chunks.vectors.shape[1] != self.spec.dim:
            raise ValueError(
                f"Milvus collection {self.name!r} holds {self.spec.dim}-dimensional vectors, these have "
                f"{chunks.vectors.shape[1]}; embed with the layout's model"
            )
        written = 0
        for start in range(0, len(chunks), batch_size):
            stop = min(start + batch_size, len(chunks))
            rows = chunks.rows(start, stop, self.analyse, generation)
            self._call("upsert", self.client.upsert, self.name, rows, timeout=self.timeout_s)
            self.connections.mark_written(self.uri, self.name)
            written += len(rows)
            if on_batch is not None:
                on_batch(written, len(chunks))
        return written

    def delete(self, chunk_ids: Iterable[int]) -> int:
        ids = [int(chunk_id) for chunk_id in chunk_ids]
        for start in range(0, len(ids), IDS_PER_REQUEST):
            self._call(
                "delete",
                self.client.delete,
                self.name,
                ids=ids[start : start + IDS_PER_REQUEST],
                timeout=self.timeout_s,
            )
            self.connections.mark_written(self.uri, self.name)
        return len(ids)

    def flush(self) -> None:
        """Persist what was written (Milvus Lite keeps recent rows in memory and a write-ahead log)."""
        self._call("flush", self.client.flush, self.name, timeout=self.timeout_s)

    def drop(self) -> None:
        self._call("drop_collection", self.client.drop_collection, self.name, timeout=self.timeout_s)

    def record_generation(self, generation: int) -> None:
        """Record on the collection itself which catalog generation it reflects."""
        self._call(
            "alter_collection_properties",
            self.client.alter_collection_properties,
            self.name,
            properties={GENERATION_PROPERTY: str(int(generation))},
            timeout=self.timeout_s,
        )

    def recorded_generation(self) -> int | None:
        description = self._call(
            "describe_collection", self.client.describe_collection, self.name, timeout=self.timeout_s
        )
        value = (description.get("properties") or {}).get(GENERATION_PROPERTY)
        return None if value is None else int(value)

    # -- reading

    def count(self) -> int:
        rows = self._call(
            "query", self.client.query, self.name, filter="", output_fields=["count(*)"], timeout=self.timeout_s
        )
        return int(rows[0]["count(*)"])

    def ids(self) -> np.ndarray:
        """Every chunk id in the collection, ascending."""
        if is_lite(self.uri):
            # Milvus Lite returns every row of a query; its query iterator needs a timestamp
            # service Lite does not implement.
            rows = self._call(
                "query", self.client.query, self.name, filter="", output_fields=[ID], timeout=self.timeout_s
            )
            return np.unique(np.asarray([int(row[ID]) for row in rows], dtype=np.int64))
        # A server caps a query's rows; the iterator reads a large collection in pages.
        iterator = self._call(
            "query_iterator",
            self.client.query_iterator,
            self.name,
            batch_size=IDS_PER_REQUEST,
            filter="",
            output_fields=[ID],
            timeout=self.timeout_s,
        )
        found: list[int] = []
        try:
            while True:
                page = self._call("query_iterator", iterator.next)
                if not page:
                    break
                found.extend(int(row[ID]) for row in page)
        finally:
            iterator.close()
        return np.unique(np.asarray(found, dtype=np.int64))

    def vectors_for(self, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        found: dict[int, np.ndarray] = {}
        ids = [int(chunk_id) for chunk_id in chunk_ids]
        for start in range(0, len(ids), IDS_PER_REQUEST):
            rows = self._call(
                "query",
                self.client.query,
                self.name,
                ids=ids[start : start + IDS_PER_REQUEST],
                output_fields=[ID, VECTOR],
                timeout=self.timeout_s,
            )
            for row in rows:
                found[int(row[ID])] = np.asarray(row[VECTOR], dtype=np.float32)
        return found

    def search_dense(self, vector: np.ndarray, k: int, ef: int, expression: str = "") -> list[tuple[int, float]]:
        data = [np.asarray(vector, dtype=np.float32).ravel().tolist()]
        results = self._call(
            "search",
            self.client.search,
            self.name,
            data=data,
            anns_field=VECTOR,
            limit=min(k, MAX_TOPK),
            filter=expression,
            search_params={"metric_type": "COSINE", "params": {"ef": int(min(max(ef, k), MAX_EF))}},
            timeout=self.timeout_s,
        )
        return _id_score_pairs(results)

    def search_bm25(self, text: str, k: int, expression: str = "") -> list[tuple[int, float]]:
        if expression:
            self.connections.settle(self.uri, self.name)
        results = self._call(
            "search",
            self.client.search,
            self.name,
            data=[text],
            anns_field=SPARSE,
            limit=min(k, MAX_TOPK),
            filter=expression,
            search_params={"metric_type": "BM25"},
            timeout=self.timeout_s,
        )
        # A BM25 score is positive. Milvus reports it as the distance, Milvus Lite as the negated
        # distance (smaller is nearer); the magnitude is the score either way.
        return [(chunk_id, abs(score)) for chunk_id, score in _id_score_pairs(results)]


def _id_score_pairs(results) -> list[tuple[int, float]]:
    """(id, distance) of the one query's hits, read from the hits' id and distance columns: iterating
    the hits would have pymilvus decode every row's fields first, a third of a query's time."""
    if not results:
        return []
    hits = results[0]
    return list(zip(map(int, hits.ids), map(float, hits.distances), strict=False))
