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
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Callable, ClassVar, Iterable, Sequence

import numpy as np

from store.retrieval_index import (
    ChunkBatch,
    ExplainNotSupported,
    IndexFormatError,
    IndexQuery,
    IndexStats,
    ScoreExplanation,
    as_query,
    read_params,
    write_params,
)
from store.text_tokenizer import Bm25Tokenizer

if TYPE_CHECKING:
    from pymilvus import MilvusClient

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
BACKEND = "milvus"
LITE_SUFFIX = ".db"
#: Milvus returns at most this many hits per search (its topk limit)
MAX_TOPK = 16384
#: the largest HNSW ef Milvus accepts at search time
MAX_EF = 32768
#: Milvus VARCHAR fields hold at most this many bytes
MAX_TEXT_BYTES = 65535
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_BATCH_SIZE = 1000
#: ids per ``id in [...]`` expression or ``query(ids=...)`` call
IDS_PER_REQUEST = 4096

ANALYSES = ("client", "server")
#: what ``milvus.analyzer`` may ask for (server analysis); ``auto`` picks by language
LANGUAGE_ANALYZERS = ("standard", "jieba")
TOKENIZERS = ("standard", "jieba")
GENERATION_PROPERTY = "workbench.generation"
SPEC_PROPERTY = "workbench.spec"

ID, DOC_ID, DOC_TYPE, GENERATION, TEXT, VECTOR, SPARSE = (
    "id", "doc_id", "doc_type", "generation", "text", "vector", "sparse")
DOC_TYPE_MAX_LENGTH = 64

# CJK punctuation jieba returns as tokens of their own; the workbench tokenizer drops them too.
_CJK_PUNCTUATION = tuple("，。、；：？！「」『』（）《》〈〉【】“”‘’—…·～")


class MilvusError(RuntimeError):
    """A Milvus call failed; the message names the URI, the collection and what to do."""


class MilvusUnavailable(MilvusError):
    """Milvus cannot be reached at a URI (a server that is down, a Lite file another process holds)."""

    def __init__(self, uri: str, reason: str, fix: str | None = None) -> None:
        self.uri = uri
        fix = fix or (
            "start Milvus there (docker compose up -d, see docs/SCALING.md), or point the collection at "
            "another Milvus: python -m workbench migrate-backend -c COLLECTION --to milvus --uri URI"
            if not is_lite(uri) else "check that the folder exists and is writable"
        )
        super().__init__(f"Milvus at {uri} is unavailable: {reason}; {fix}. Other collections keep working.")


class MilvusCollectionMissing(MilvusError):
    """The Milvus server is up but the collection a snapshot points to is not there."""

    def __init__(self, uri: str, name: str) -> None:
        self.uri, self.name = uri, name
        super().__init__(
            f"Milvus at {uri} has no collection {name!r}; push it from the catalog with "
            "python -m workbench sync -c COLLECTION (nothing is re-embedded)"
        )


def is_lite(uri: str) -> bool:
    """A local Milvus Lite file rather than a server URI (http://, https://, tcp://, unix:)."""
    return "://" not in uri and not uri.startswith("unix:")


def resolve_uri(uri: str, home: Path) -> str:
    """A configured URI made usable: a relative Milvus Lite path is inside the home."""
    uri = uri.strip()
    if not uri:
        raise ValueError("milvus.uri is empty; give a Milvus Lite file such as indexes/milvus.db or http://host:19530")
    if not is_lite(uri):
        return uri
    path = Path(uri).expanduser()
    return str(path if path.is_absolute() else Path(home) / path)


_NAME_PART = re.compile(r"[^0-9A-Za-z_]")


def check_collection_prefix(prefix: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][0-9A-Za-z_]*", prefix or "_"):
        raise ValueError(f"milvus.collection_prefix {prefix!r} may hold only letters, digits and '_', "
                         "and must not start with a digit; e.g. workbench_")
    return prefix


def collection_name_for(prefix: str, collection: str, layout_key: str) -> str:
    """The Milvus collection of a workbench collection's layout: ``<prefix><collection>_<digest>``.

    Milvus names hold letters, digits and underscores; the digest of the exact collection name
    and layout key keeps names apart that differ only in characters Milvus does not allow.
    """
    check_collection_prefix(prefix)
    digest = hashlib.sha256(f"{collection}\n{layout_key}".encode()).hexdigest()[:10]
    readable = _NAME_PART.sub("_", collection)[:120]
    return f"{prefix}{readable}_{digest}"


# -- connections --------------------------------------------------------------------------------

@dataclass(frozen=True)
class MilvusAccess:
    """How to reach one Milvus URI: credentials, patience, and the rows sent per insert."""

    token: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    batch_size: int = DEFAULT_BATCH_SIZE

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError(f"milvus.timeout_s must be more than 0 seconds, got {self.timeout_s}")
        if self.batch_size < 1:
            raise ValueError(f"milvus.batch_size must be at least 1, got {self.batch_size}")


class MilvusConnections:
    """One pymilvus client per URI in a process, opened on first use with the URI's ``MilvusAccess``.

    A Milvus Lite file is served by the process that opens it (Milvus Lite locks the file), so
    ``release`` closes this process's Lite server for a file and lets another process open it.
    """

    def __init__(self) -> None:
        self._clients: dict[str, MilvusClient] = {}
        self._access: dict[str, MilvusAccess] = {}
        self._unflushed: set[tuple[str, str]] = set()
        self._lock = threading.RLock()

    def configure(self, uri: str, access: MilvusAccess) -> None:
        """Use ``access`` for ``uri`` from now on (a new token reconnects)."""
        with self._lock:
            previous = self._access.get(uri)
            self._access[uri] = access
            if previous is not None and previous.token != access.token:
                self.forget(uri)

    def access(self, uri: str) -> MilvusAccess:
        with self._lock:
            return self._access.get(uri) or MilvusAccess()

    def client(self, uri: str) -> "MilvusClient":
        with self._lock:
            client = self._clients.get(uri)
            if client is None:
                access = self.access(uri)
                client = self._clients[uri] = _connect(uri, access.token, access.timeout_s)
            return client

    def forget(self, uri: str) -> None:
        """Drop the client of ``uri`` (after a failure: the next call reconnects)."""
        with self._lock:
            client = self._clients.pop(uri, None)
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()

    def release(self, uri: str | None = None) -> None:
        """Close the client of ``uri`` (every URI if None); a Lite file is closed and unlocked."""
        with self._lock:
            uris = set(self._clients) if uri is None else {uri}
            for each in uris:
                self.forget(each)
                self._unflushed = {key for key in self._unflushed if key[0] != each}
                if is_lite(each):
                    from milvus_lite import server_manager_instance

                    server_manager_instance.release_server(each)

    def mark_written(self, uri: str, collection: str) -> None:
        with self._lock:
            self._unflushed.add((uri, collection))

    def settle(self, uri: str, collection: str) -> None:
        """On Milvus Lite, flush what this process wrote to ``collection``, so that BM25 statistics
        cover every row of the collection and not just the rows a filter lets through."""
        if not is_lite(uri):
            return
        with self._lock:
            if (uri, collection) not in self._unflushed:
                return
            self.client(uri).flush(collection, timeout=self.access(uri).timeout_s)
            self._unflushed.discard((uri, collection))


#: the process's connections; the workbench shares one set between every snapshot it loads
CONNECTIONS = MilvusConnections()


def _connect(uri: str, token: str, timeout_s: float) -> "MilvusClient":
    from pymilvus import MilvusClient
    from pymilvus.exceptions import MilvusException

    # pymilvus logs every failed call with its traceback on its own stderr handler; every failure
    # reaches the caller as a MilvusError naming the URI and the fix instead.
    logging.getLogger("pymilvus").setLevel(logging.CRITICAL)

    if is_lite(uri):
        if not uri.endswith(LITE_SUFFIX):
            raise MilvusUnavailable(uri, f"a Milvus Lite file name must end in {LITE_SUFFIX}",
                                    f"use a path like indexes/milvus{LITE_SUFFIX} or a server URI http://host:19530")
        Path(uri).parent.mkdir(parents=True, exist_ok=True)
        with _lite_server_log() as failures:
            try:
                return MilvusClient(uri=uri, timeout=timeout_s)
            except MilvusException as error:
                if _lite_locked_elsewhere(uri):
                    raise MilvusUnavailable(
                        uri, "the Milvus Lite file is open in another process (Milvus Lite serves one process "
                        "at a time)",
                        "close the other app, CLI or MCP server using it, or serve the file to every process "
                        f"with `python -m milvus_lite server --data-dir {uri} --port 19530` and set "
                        "milvus.uri=http://127.0.0.1:19530, or run Milvus standalone (docs/SCALING.md)",
                    ) from None
                raise MilvusUnavailable(uri, "; ".join(failures) or _message(error)) from None
    try:
        return MilvusClient(uri=uri, token=token, timeout=timeout_s)
    except MilvusException as error:
        raise MilvusUnavailable(uri, _message(error)) from None


@contextlib.contextmanager
def _lite_server_log():
    """Collect what Milvus Lite logs while it fails to open a file, instead of a stray traceback:
    the reason goes into our error message."""
    records: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            reason = record.exc_info[1] if record.exc_info else None
            records.append(f"{type(reason).__name__}: {reason}" if reason else record.getMessage())

    logger = logging.getLogger("milvus_lite.server_manager")
    handler, propagate = _Collect(level=logging.ERROR), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _lite_locked_elsewhere(path: str) -> bool:
    import fcntl

    lock_file = Path(path) / "LOCK"
    if not lock_file.exists():
        return False
    descriptor = os.open(lock_file, os.O_RDWR)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return False
    finally:
        os.close(descriptor)


def _message(error: Exception) -> str:
    return getattr(error, "message", None) or str(error)


def _is_unreachable(error: Exception) -> bool:
    """A failure of the connection rather than of the request."""
    import grpc
    from pymilvus.exceptions import MilvusUnavailableException

    if isinstance(error, (MilvusUnavailableException, grpc.RpcError)):
        return True
    text = _message(error).lower()
    return any(marker in text for marker in ("unavailable", "fail connecting", "deadline", "connection refused",
                                             "failed to connect", "socket closed"))


# -- what a collection is built with ------------------------------------------------------------

@dataclass(frozen=True)
class CollectionSpec:
    """What a Milvus collection is created with; recorded on the collection."""

    dim: int
    analysis: str = "client"  # client | server: who turns text into BM25 terms
    analyzer: str = "standard"  # the Milvus tokenizer of the text field: standard | jieba
    m: int = 16
    ef_construction: int = 200
    k1: float = 1.2
    b: float = 0.75

    def __post_init__(self) -> None:
        if self.analysis not in ANALYSES:
            raise ValueError(f"milvus.analysis: unknown {self.analysis!r}; use one of {', '.join(ANALYSES)}")
        if self.analyzer not in TOKENIZERS:
            raise ValueError(f"Milvus tokenizer {self.analyzer!r} is not one of {', '.join(TOKENIZERS)}")
        if self.dim < 1:
            raise ValueError(f"a Milvus collection needs a vector dimension of at least 1, got {self.dim}")

    def analyzer_params(self) -> dict:
        """Milvus analyzer parameters for the ``text`` field."""
        tokenizer = {"type": "jieba", "mode": "exact"} if self.analyzer == "jieba" else self.analyzer
        if self.analysis == "client":
            # The text arrives as the workbench tokenizer's terms separated by spaces: only split it.
            return {"tokenizer": tokenizer}
        # Stop words before stemming, as the workbench tokenizer (and bm25s) does.
        stop_words = sorted(_english_stop_words()) + list(_CJK_PUNCTUATION)
        return {"tokenizer": tokenizer, "filter": ["lowercase", {"type": "stop", "stop_words": stop_words},
                                                   {"type": "stemmer", "language": "english"}]}

    def to_dict(self) -> dict:
        return asdict(self)


def resolve_analyzer(analysis: str, requested: str, uri: str, texts: Iterable[str]) -> str:
    """The Milvus tokenizer for a new collection.

    With client analysis the text holds the workbench's terms, each written as the hex digits of
    its UTF-8 bytes (``TextAnalysis``), and Milvus only splits them: every Milvus ``standard``
    tokenizer (a server's Unicode word boundaries, Milvus Lite's runs of word characters) keeps a
    run of hex digits whole and splits at the spaces. With server analysis, ``auto`` picks by the
    texts' language: ``jieba`` for Chinese, else ``standard`` (with English stop words and stemming).
    """
    if analysis == "client":
        return "standard"
    if requested == "auto":
        return choose_analyzer(texts)
    if requested not in LANGUAGE_ANALYZERS:
        raise ValueError(f"milvus.analyzer: unknown {requested!r}; use auto or one of {', '.join(LANGUAGE_ANALYZERS)}")
    return requested


def _english_stop_words() -> frozenset[str]:
    from store.text_tokenizer import STOPWORD_LISTS

    return STOPWORD_LISTS["en"]


def choose_analyzer(texts: Iterable[str], sample: int = 2000) -> str:
    """``jieba`` when a sample of the texts is at least 5 % CJK by word characters, else ``standard``."""
    from store.text_tokenizer import cjk_character_count

    cjk = words = 0
    for number, text in enumerate(texts):
        if number >= sample:
            break
        cjk += cjk_character_count(text)
        words += sum(1 for character in text if character.isalnum())
    return "jieba" if words and cjk / words >= 0.05 else "standard"


class TextAnalysis:
    """What BM25 text goes to Milvus: the workbench tokenizer's terms ("client") or the raw text.

    A client-analysed term travels as the hex digits of its UTF-8 bytes. A server's ``standard``
    tokenizer would split a Chinese term into its characters (and Milvus Lite has no
    ``whitespace`` tokenizer); a run of hex digits is one word to every tokenizer, and the
    encoding maps distinct terms to distinct words.
    """

    def __init__(self, analysis: str, tokenizer: Bm25Tokenizer | None = None) -> None:
        self.analysis = analysis
        self.tokenizer = tokenizer or Bm25Tokenizer()

    def __call__(self, text: str) -> str:
        if self.analysis == "server":
            return text
        return " ".join(term.encode("utf-8").hex() for term in self.tokenizer.tokenize(text))


# -- the collection -----------------------------------------------------------------------------

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
            rows.append({
                ID: int(self.ids[position]), DOC_ID: int(self.doc_ids[position]),
                DOC_TYPE: str(self.doc_types[position])[:DOC_TYPE_MAX_LENGTH], GENERATION: int(generation),
                TEXT: text, VECTOR: np.asarray(self.vectors[position], dtype=np.float32).tolist(),
            })
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
    def open(cls, uri: str, name: str, connections: MilvusConnections = CONNECTIONS) -> "MilvusCollection":
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
    def create(cls, uri: str, name: str, spec: CollectionSpec, connections: MilvusConnections = CONNECTIONS,
               replace: bool = False) -> "MilvusCollection":
        """A new, empty collection (an existing one of that name is dropped first when ``replace``)."""
        from pymilvus import DataType, Function, FunctionType

        collection = cls(uri, name, spec, connections)
        client, timeout_s = collection.client, collection.timeout_s
        if collection._call("has_collection", client.has_collection, name, timeout=timeout_s):
            if not replace:
                raise MilvusError(f"Milvus at {uri} already has a collection {name!r}; open it instead")
            collection._call("drop_collection", client.drop_collection, name, timeout=timeout_s)
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False,
                                      description="chunks of a RAG Workbench layout")
        schema.add_field(ID, DataType.INT64, is_primary=True)
        schema.add_field(DOC_ID, DataType.INT64)
        schema.add_field(DOC_TYPE, DataType.VARCHAR, max_length=DOC_TYPE_MAX_LENGTH)
        schema.add_field(GENERATION, DataType.INT64)
        schema.add_field(TEXT, DataType.VARCHAR, max_length=MAX_TEXT_BYTES, enable_analyzer=True,
                         analyzer_params=spec.analyzer_params())
        schema.add_field(VECTOR, DataType.FLOAT_VECTOR, dim=spec.dim)
        schema.add_field(SPARSE, DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(Function(name="bm25", function_type=FunctionType.BM25, input_field_names=[TEXT],
                                     output_field_names=[SPARSE]))
        indexes = client.prepare_index_params()
        # Build parameters go nested under "params": Milvus reads that form, and Milvus Lite reads only it.
        indexes.add_index(field_name=VECTOR, index_type="HNSW", metric_type="COSINE",
                          params={"params": {"M": spec.m, "efConstruction": spec.ef_construction}})
        indexes.add_index(field_name=SPARSE, index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                          params={"params": {"bm25_k1": spec.k1, "bm25_b": spec.b}})
        indexes.add_index(field_name=DOC_ID, index_type="INVERTED")
        indexes.add_index(field_name=DOC_TYPE, index_type="INVERTED")
        collection._call("create_collection", client.create_collection, name, schema=schema,
                         consistency_level="Strong", timeout=timeout_s)
        # sync=False: pymilvus would otherwise poll each index of the still empty collection every 0.5 s.
        collection._call("create_index", client.create_index, name, indexes, sync=False, timeout=timeout_s)
        collection._call("load_collection", client.load_collection, name, timeout=timeout_s)
        # Recorded on the collection, so whoever opens it later knows how it was built.
        collection._call("alter_collection_properties", client.alter_collection_properties, name,
                         properties={SPEC_PROPERTY: json.dumps(spec.to_dict(), sort_keys=True)}, timeout=timeout_s)
        return collection

    @property
    def client(self) -> "MilvusClient":
        return self.connections.client(self.uri)

    def _call(self, operation: str, function: Callable, *args, **kwargs):
        from pymilvus.exceptions import MilvusException

        try:
            return function(*args, **kwargs)
        except MilvusException as error:
            if _is_unreachable(error):
                self.connections.forget(self.uri)
                raise MilvusUnavailable(self.uri, _message(error)) from None
            raise MilvusError(f"Milvus at {self.uri}: {operation} on collection {self.name!r} failed: "
                              f"{_message(error)}") from None
        except Exception as error:
            if _is_unreachable(error):
                self.connections.forget(self.uri)
                raise MilvusUnavailable(self.uri, _message(error)) from None
            raise

    # -- writing

    def upsert(self, chunks: ChunkRows, generation: int, batch_size: int | None = None,
               on_batch: Callable[[int, int], None] | None = None) -> int:
        """Write the chunks in batches of ``batch_size`` (default: the URI's ``MilvusAccess``); a
        row whose id is there already is replaced. Returns the rows written."""
        batch_size = self.connections.access(self.uri).batch_size if batch_size is None else batch_size
        if batch_size < 1:
            raise ValueError(f"milvus.batch_size must be at least 1, got {batch_size}")
        if len(chunks) and chunks.vectors.shape[1] != self.spec.dim:
            raise ValueError(f"Milvus collection {self.name!r} holds {self.spec.dim}-dimensional vectors, these have "
                             f"{chunks.vectors.shape[1]}; embed with the layout's model")
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
            self._call("delete", self.client.delete, self.name, ids=ids[start:start + IDS_PER_REQUEST],
                       timeout=self.timeout_s)
            self.connections.mark_written(self.uri, self.name)
        return len(ids)

    def flush(self) -> None:
        """Persist what was written (Milvus Lite keeps recent rows in memory and a write-ahead log)."""
        self._call("flush", self.client.flush, self.name, timeout=self.timeout_s)

    def drop(self) -> None:
        self._call("drop_collection", self.client.drop_collection, self.name, timeout=self.timeout_s)

    def record_generation(self, generation: int) -> None:
        """Record on the collection itself which catalog generation it reflects."""
        self._call("alter_collection_properties", self.client.alter_collection_properties, self.name,
                   properties={GENERATION_PROPERTY: str(int(generation))}, timeout=self.timeout_s)

    def recorded_generation(self) -> int | None:
        description = self._call("describe_collection", self.client.describe_collection, self.name,
                                 timeout=self.timeout_s)
        value = (description.get("properties") or {}).get(GENERATION_PROPERTY)
        return None if value is None else int(value)

    # -- reading

    def count(self) -> int:
        rows = self._call("query", self.client.query, self.name, filter="", output_fields=["count(*)"],
                          timeout=self.timeout_s)
        return int(rows[0]["count(*)"])

    def ids(self) -> np.ndarray:
        """Every chunk id in the collection, ascending."""
        if is_lite(self.uri):
            # Milvus Lite returns every row of a query; its query iterator needs a timestamp
            # service Lite does not implement.
            rows = self._call("query", self.client.query, self.name, filter="", output_fields=[ID],
                              timeout=self.timeout_s)
            return np.unique(np.asarray([int(row[ID]) for row in rows], dtype=np.int64))
        # A server caps a query's rows; the iterator reads a large collection in pages.
        iterator = self._call("query_iterator", self.client.query_iterator, self.name, batch_size=IDS_PER_REQUEST,
                              filter="", output_fields=[ID], timeout=self.timeout_s)
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
            rows = self._call("query", self.client.query, self.name, ids=ids[start:start + IDS_PER_REQUEST],
                              output_fields=[ID, VECTOR], timeout=self.timeout_s)
            for row in rows:
                found[int(row[ID])] = np.asarray(row[VECTOR], dtype=np.float32)
        return found

    def search_dense(self, vector: np.ndarray, k: int, ef: int, expression: str = "") -> list[tuple[int, float]]:
        data = [np.asarray(vector, dtype=np.float32).ravel().tolist()]
        results = self._call("search", self.client.search, self.name, data=data, anns_field=VECTOR,
                             limit=min(k, MAX_TOPK), filter=expression, output_fields=[DOC_ID],
                             search_params={"metric_type": "COSINE", "params": {"ef": int(min(max(ef, k), MAX_EF))}},
                             timeout=self.timeout_s)
        return [(int(hit["id"]), float(hit["distance"])) for hit in results[0]]

    def search_bm25(self, text: str, k: int, expression: str = "") -> list[tuple[int, float]]:
        if expression:
            self.connections.settle(self.uri, self.name)
        results = self._call("search", self.client.search, self.name, data=[text], anns_field=SPARSE,
                             limit=min(k, MAX_TOPK), filter=expression, output_fields=[DOC_ID],
                             search_params={"metric_type": "BM25"}, timeout=self.timeout_s)
        # A BM25 score is positive. Milvus reports it as the distance, Milvus Lite as the negated
        # distance (smaller is nearer); the magnitude is the score either way.
        return [(int(hit["id"]), abs(float(hit["distance"]))) for hit in results[0]]


# -- filters ------------------------------------------------------------------------------------

def filter_expression(allowed_ids: AbstractSet[int] | None) -> str:
    """A Milvus boolean expression for the allowed chunks.

    A set that says which documents and types it came from (``document_ids`` / ``doc_types``
    attributes, as the pipeline's document filters give) becomes an expression on those fields,
    which stays short however many chunks the documents hold; any other set becomes ``id in [...]``.
    """
    if allowed_ids is None:
        return ""
    document_ids = getattr(allowed_ids, "document_ids", None)
    doc_types = getattr(allowed_ids, "doc_types", None)
    if document_ids is not None or doc_types is not None:
        clauses = []
        if document_ids is not None:
            clauses.append(f"{DOC_ID} in {_int_list(document_ids)}")
        if doc_types is not None:
            clauses.append(f"{DOC_TYPE} in {json.dumps(sorted(str(t) for t in doc_types))}")
        return " and ".join(clauses)
    return f"{ID} in {_int_list(allowed_ids)}"


def _int_list(values: Iterable[int]) -> str:
    return "[" + ",".join(str(int(value)) for value in sorted(values)) + "]"


# -- the two views: the index contract ----------------------------------------------------------

class _MilvusView:
    """The contract's common part; a subclass says which route it searches."""

    backend: ClassVar[str] = BACKEND
    format_version: ClassVar[int] = FORMAT_VERSION
    route: ClassVar[str]

    def __init__(self, collection: MilvusCollection, known_ids: AbstractSet[int] | None = None) -> None:
        self.collection = collection
        # A snapshot's views answer only with the chunks the snapshot has rows for: a push in
        # progress (or one a crash interrupted) may already have written newer ones.
        self.known_ids = None if known_ids is None else frozenset(int(i) for i in known_ids)

    @classmethod
    def from_chunks(cls, batch: ChunkBatch, *, uri: str, collection: str, analysis: str = "client",
                    analyzer: str = "auto", m: int = 16, ef_construction: int = 200, k1: float = 1.2,
                    b: float = 0.75, dim: int | None = None, replace: bool = True,
                    connections: MilvusConnections = CONNECTIONS):
        """A new Milvus collection holding the batch (texts and vectors both: one row carries both)."""
        vectors = batch.require_vectors(cls.__name__)
        texts = batch.require_texts(cls.__name__)
        spec = CollectionSpec(dim=dim if dim is not None else vectors.shape[1], analysis=analysis,
                              analyzer=resolve_analyzer(analysis, analyzer, uri, texts),
                              m=m, ef_construction=ef_construction, k1=k1, b=b)
        view = cls(MilvusCollection.create(uri, collection, spec, connections, replace=replace))
        view.add(batch)
        return view

    def __len__(self) -> int:
        return len(self.known_ids) if self.known_ids is not None else self.collection.count()

    def ids(self) -> np.ndarray:
        ids = self.collection.ids()
        if self.known_ids is not None:
            ids = ids[np.isin(ids, np.fromiter(self.known_ids, dtype=np.int64, count=len(self.known_ids)))]
        return ids

    def add(self, batch: ChunkBatch) -> None:
        vectors = batch.require_vectors(type(self).__name__)
        texts = batch.require_texts(type(self).__name__)
        unknown = np.zeros(len(batch), dtype=np.int64)
        self.collection.upsert(ChunkRows(batch.ids, unknown, [""] * len(batch), texts, vectors), generation=0)

    def delete(self, chunk_ids: np.ndarray) -> None:
        self.collection.delete(np.asarray(chunk_ids, dtype=np.int64).tolist())

    def save(self, folder: Path) -> None:
        """Where the collection lives (a Lite file relative to this folder, so a copied home keeps
        working); never the token."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        uri = self.collection.uri
        stored_uri = os.path.relpath(uri, folder) if is_lite(uri) else uri
        write_params(folder, {"uri": stored_uri, "lite": is_lite(uri), "collection": self.collection.name,
                              "spec": self.collection.spec.to_dict()}, FORMAT_VERSION)

    @classmethod
    def load(cls, folder: Path, known_ids: AbstractSet[int] | None = None,
             connections: MilvusConnections = CONNECTIONS):
        folder = Path(folder)
        params = read_params(folder, cls.__name__, FORMAT_VERSION)
        uri = os.path.normpath(folder / params["uri"]) if params.get("lite") else params["uri"]
        collection = MilvusCollection.open(uri, params["collection"], connections)
        if collection.spec.to_dict() != params["spec"]:
            raise IndexFormatError(cls.__name__, folder, f"spec {params['spec']}",
                                   f"the collection's spec {collection.spec.to_dict()}")
        return cls(collection, known_ids)

    def stats(self) -> IndexStats:
        return IndexStats(self.backend, FORMAT_VERSION, len(self), {
            "route": self.route, "uri": self.collection.uri, "collection": self.collection.name,
            **self.collection.spec.to_dict(),
        })

    def _known(self, hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
        if self.known_ids is None:
            return hits
        return [hit for hit in hits if hit[0] in self.known_ids]

    def _expression(self, allowed_ids: AbstractSet[int] | None) -> str | None:
        """The filter expression, or None when nothing can pass."""
        if allowed_ids is not None and not allowed_ids:
            return None
        return filter_expression(allowed_ids)


class MilvusDenseIndex(_MilvusView):
    """Cosine similarity over a Milvus HNSW index; implements ``RetrievalIndex`` (reads vectors)."""

    route = "dense"
    supports_explain = True
    #: what the trace says when ``dense.exact`` is on
    exact_search_note = "Milvus has no brute-force search: HNSW searched with ef = the number of chunks"

    @property
    def dim(self) -> int:
        return self.collection.spec.dim

    def search(self, query: IndexQuery | np.ndarray, k: int, allowed_ids: AbstractSet[int] | None = None, *,
               ef_search: int = 128, exact: bool = False) -> list[tuple[int, float]]:
        """Up to k (chunk id, cosine similarity) pairs, most similar first.

        Milvus has no brute-force search over an HNSW field; ``exact`` widens the search to every
        chunk (ef = the chunk count, up to Milvus's maximum), which on a collection that small is exhaustive.
        """
        vector = np.asarray(as_query(query).require_vector(type(self).__name__), dtype=np.float32).ravel()
        if vector.shape != (self.dim,):
            raise ValueError(f"MilvusDenseIndex.search: query has {vector.shape[0]} dimensions, the index {self.dim}")
        expression = self._expression(allowed_ids)
        if k <= 0 or expression is None:
            return []
        ef = max(ef_search, len(self)) if exact else ef_search
        return self._known(self.collection.search_dense(vector, k, ef, expression))

    def vectors_for(self, chunk_ids: np.ndarray) -> np.ndarray:
        """The stored vectors of these chunks, row-aligned; a KeyError names a chunk Milvus lacks."""
        found = self.collection.vectors_for(np.asarray(chunk_ids, dtype=np.int64).tolist())
        missing = [int(chunk_id) for chunk_id in chunk_ids if int(chunk_id) not in found]
        if missing:
            raise KeyError(f"Milvus collection {self.collection.name!r} has no vectors for chunks {missing[:10]}")
        if not len(chunk_ids):
            return np.empty((0, self.dim), dtype=np.float32)
        return np.stack([found[int(chunk_id)] for chunk_id in chunk_ids])

    def explain(self, query: IndexQuery | np.ndarray, chunk_id: int) -> ScoreExplanation:
        """The cosine of the query vector and the chunk's stored vector (read back from Milvus)."""
        known = self.known_ids is None or int(chunk_id) in self.known_ids
        stored = self.collection.vectors_for([int(chunk_id)]).get(int(chunk_id)) if known else None
        if stored is None:
            raise KeyError(f"MilvusDenseIndex.explain: chunk {chunk_id} is not in this index; "
                           "pick one from search results")
        vector = np.asarray(as_query(query).require_vector(type(self).__name__), dtype=np.float64).ravel()
        if vector.shape != (self.dim,):
            raise ValueError(f"MilvusDenseIndex.explain: query has {vector.shape[0]} dimensions, the index {self.dim}")
        chunk_vector = stored.astype(np.float64)
        dot = float(vector @ chunk_vector)
        query_norm, chunk_norm = float(np.linalg.norm(vector)), float(np.linalg.norm(chunk_vector))
        cosine = dot / (query_norm * chunk_norm) if query_norm and chunk_norm else 0.0
        part = {"dot": dot, "query_norm": query_norm, "chunk_norm": chunk_norm, "dimensions": self.dim,
                "contribution": cosine}
        return ScoreExplanation(int(chunk_id), cosine, (part,))


class MilvusBm25Index(_MilvusView):
    """BM25 computed by Milvus (its BM25 function over the ``text`` field); implements
    ``RetrievalIndex`` (reads texts). Milvus reports each chunk's total only, so it cannot explain."""

    route = "bm25"
    supports_explain = False

    @property
    def k1(self) -> float:
        return self.collection.spec.k1

    @property
    def b(self) -> float:
        return self.collection.spec.b

    @property
    def tokenizer(self) -> Bm25Tokenizer:
        return self.collection.analyse.tokenizer

    def search(self, query: IndexQuery | str, k: int,
               allowed_ids: AbstractSet[int] | None = None) -> list[tuple[int, float]]:
        """The k best (chunk id, BM25 score) pairs with a positive score, best first."""
        text = self.collection.analyse(as_query(query).require_text(type(self).__name__))
        expression = self._expression(allowed_ids)
        if k <= 0 or expression is None or not text.strip():
            return []
        return self._known(self.collection.search_bm25(text, k, expression))

    def explain(self, query: IndexQuery | str, chunk_id: int) -> ScoreExplanation:
        raise ExplainNotSupported(BACKEND, "Milvus scores BM25 on the server and reports each chunk's total only")


__all__ = [
    "CONNECTIONS", "ChunkRows", "CollectionSpec", "MilvusAccess", "MilvusBm25Index", "MilvusCollection",
    "MilvusCollectionMissing", "MilvusConnections", "MilvusDenseIndex", "MilvusError", "MilvusUnavailable",
    "TextAnalysis", "check_collection_prefix", "choose_analyzer", "collection_name_for", "filter_expression",
    "is_lite", "resolve_analyzer", "resolve_uri",
]
