"""A snapshot's chunk table on disk, read a chunk at a time: texts stay out of memory.

A folder of named parts, written once at sync time (``write_chunk_store``)::

    chunks/params.json                format, count
    chunks/chunk_ids.npy              int64, sorted: row i is chunk chunk_ids[i]
    chunks/doc_ids.npy                int64
    chunks/ordinals.npy  starts.npy  ends.npy  pages.npy  token_counts.npy   (-1: none)
    chunks/over_max_length.npy        bool
    chunks/<string>.bin + <string>.offsets.npy   UTF-8 bytes and n + 1 int64 offsets, for
                                      text, indexed_text (empty where it equals text: see
                                      indexed_is_text.npy) and heading_path (JSON lists)

An open ``ChunkStore`` keeps only the ids and document ids in memory (16 bytes a chunk); the other
columns are memory-mapped, and a string's bytes are read from its file when that chunk is asked
for, so a query brings in the texts of the chunks it shows and nothing else.
``ChunkStore`` is a read-only ``Mapping[int, ChunkRecord]`` that builds each record when asked;
``records(ids)`` fetches many at once, and ``doc_ids_of(ids)`` answers without building any. A store can
log which chunks' texts it read (``record_fetches``), which is how the tests hold the query path to its
hits.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from store.id_set import IdSet
from store.retrieval_index import PARAMS_FILE, IndexFormatError, read_params, write_params

FORMAT_VERSION = 1
CHUNKS_DIR = "chunks"
STRING_PARTS = ("text", "indexed_text", "heading_path")
_NONE = -1  # pages and token counts: the chunk has none


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """One chunk's row: ids, offsets into its document's Markdown, texts, heading path, page."""

    chunk_id: int
    doc_id: int
    ordinal: int
    start: int
    end: int
    text: str
    indexed_text: str
    heading_path: tuple[str, ...]
    page: int | None
    token_count: int | None
    over_max_length: bool


def write_chunk_store(folder: Path, columns: Mapping[str, Sequence | np.ndarray]) -> int:
    """Write the chunk table given as columns (``store.index_set.CHUNK_COLUMNS``); returns its rows.

    Rows are stored in chunk id order, so a lookup is a binary search.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chunk_ids = np.asarray(columns["chunk_id"], dtype=np.int64).reshape(-1)
    count = len(chunk_ids)
    order = np.argsort(chunk_ids, kind="stable")
    if count and np.any(np.diff(chunk_ids[order]) == 0):
        raise ValueError("write_chunk_store: chunk ids repeat; every chunk needs its own id")

    def column(name: str, dtype) -> np.ndarray:
        values = columns[name]
        return np.asarray(
            [_NONE if v is None else v for v in values] if dtype is np.int32 else values, dtype=dtype
        ).reshape(-1)[order]

    np.save(folder / "chunk_ids.npy", chunk_ids[order])
    np.save(folder / "doc_ids.npy", column("doc_id", np.int64))
    np.save(folder / "ordinals.npy", np.asarray(columns["ordinal"], dtype=np.int32).reshape(-1)[order])
    np.save(folder / "starts.npy", column("start", np.int64))
    np.save(folder / "ends.npy", column("end", np.int64))
    np.save(folder / "pages.npy", column("page", np.int32))
    np.save(folder / "token_counts.npy", column("token_count", np.int32))
    np.save(folder / "over_max_length.npy", np.asarray(columns["over_max_length"], dtype=bool).reshape(-1)[order])
    texts = [str(columns["text"][i]) for i in order]
    indexed = [str(columns["indexed_text"][i]) for i in order]
    same = np.fromiter((a == b for a, b in zip(texts, indexed, strict=False)), dtype=bool, count=count)
    np.save(folder / "indexed_is_text.npy", same)
    _write_strings(folder, "text", texts)
    _write_strings(folder, "indexed_text", ("" if s else text for s, text in zip(same.tolist(), indexed, strict=False)))
    _write_strings(folder, "heading_path", (_heading_json(columns["heading_path"][i]) for i in order))
    write_params(folder, {"count": count}, FORMAT_VERSION)
    return count


def _heading_json(heading) -> str:
    parts = [str(h) for h in (heading if heading is not None else [])]
    return json.dumps(parts, ensure_ascii=False) if parts else ""


def _write_strings(folder: Path, name: str, strings: Iterable[str]) -> None:
    offsets = [0]
    with open(folder / f"{name}.bin", "wb") as out:
        for string in strings:
            data = string.encode("utf-8")
            out.write(data)
            offsets.append(offsets[-1] + len(data))
    np.save(folder / f"{name}.offsets.npy", np.asarray(offsets, dtype=np.int64))


class _Strings:
    """One string part: its offsets memory-mapped, its bytes read per string with ``pread``.

    Reading (rather than mapping) the bytes puts exactly one string's bytes in the process: a
    mapped page fault would map the neighbouring pages too, and they would count as resident.
    """

    def __init__(self, folder: Path, name: str, count: int) -> None:
        self.offsets = _mapped(folder / f"{name}.offsets.npy", count + 1)
        path = folder / f"{name}.bin"
        self._file = open(path, "rb", buffering=0)
        self._lock = threading.Lock()  # only where there is no pread: seek and read are one step
        if len(self.offsets) != count + 1 or int(self.offsets[-1]) != os.fstat(self._file.fileno()).st_size:
            self._file.close()
            raise ValueError(f"ChunkStore: {path} and its offsets disagree; rebuild the snapshot")

    def __del__(self) -> None:
        handle = getattr(self, "_file", None)
        if handle is not None:
            handle.close()

    def at(self, row: int) -> str:
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        if end == start:
            return ""
        if hasattr(os, "pread"):
            data = os.pread(self._file.fileno(), end - start, start)
        else:
            with self._lock:
                self._file.seek(start)
                data = self._file.read(end - start)
        return data.decode("utf-8")


def _mapped(path: Path, expected: int) -> np.ndarray:
    # a plain view of the mapping: reading one element of an np.memmap builds a memmap each time
    array = np.asarray(np.load(path, mmap_mode="r")) if expected else np.load(path)
    if len(array) != expected:
        raise ValueError(f"ChunkStore: {path} holds {len(array)} rows, expected {expected}; rebuild the snapshot")
    return array


class ChunkStore(Mapping[int, ChunkRecord]):
    """The chunk table of one snapshot version: chunk id -> ``ChunkRecord``, built when read."""

    def __init__(self, folder: Path) -> None:
        """Open a folder ``write_chunk_store`` wrote; ``IndexFormatError`` if it is absent or in
        another format (a snapshot from before this store: the workbench rebuilds it)."""
        folder = Path(folder)
        if not (folder / PARAMS_FILE).exists():
            raise IndexFormatError(
                "ChunkStore", folder, "none (a snapshot from before the chunk store)", FORMAT_VERSION
            )
        params = read_params(folder, "ChunkStore", FORMAT_VERSION)
        count = int(params["count"])
        self.folder = folder
        self.ids = IdSet.of_sorted(np.array(_mapped(folder / "chunk_ids.npy", count), dtype=np.int64))
        self.doc_ids = np.array(_mapped(folder / "doc_ids.npy", count), dtype=np.int64)
        self._ordinals, self._starts, self._ends, self._pages, self._token_counts, self._over, self._same = (
            _mapped(folder / f"{name}.npy", count)
            for name in ("ordinals", "starts", "ends", "pages", "token_counts", "over_max_length", "indexed_is_text")
        )
        self._strings = {name: _Strings(folder, name, count) for name in STRING_PARTS}
        self.fetch_log: set[int] | None = None

    # -- Mapping ----------------------------------------------------------------------------

    def __getitem__(self, chunk_id: int) -> ChunkRecord:
        row = self._row(chunk_id)
        if row < 0:
            raise KeyError(chunk_id)
        return self._record(row)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self.ids

    def __iter__(self) -> Iterator[int]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"ChunkStore({len(self)} chunks at {self.folder})"

    # -- batches ----------------------------------------------------------------------------

    def records(self, chunk_ids: Iterable[int]) -> dict[int, ChunkRecord]:
        """The records of the ids this store holds, in the order given (unknown ids are left out)."""
        ids = np.asarray(list(chunk_ids), dtype=np.int64)
        rows = self.ids.positions(ids)
        return {int(cid): self._record(int(row)) for cid, row in zip(ids, rows, strict=False) if row >= 0}

    def contains_many(self, chunk_ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """Whether the store holds each id (a bool array), in one look-up."""
        return self.ids.positions(chunk_ids) >= 0

    def doc_ids_of(self, chunk_ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """Each chunk's document id, read from memory; ``KeyError`` names an id the store lacks."""
        rows = self.ids.positions(chunk_ids)
        if len(rows) and rows.min() < 0:
            raise KeyError(int(np.asarray(chunk_ids, dtype=np.int64)[np.argmin(rows)]))
        return self.doc_ids[rows]

    def ids_of_documents(self, doc_ids: Iterable[int]) -> np.ndarray:
        """The ids of every chunk of these documents, sorted."""
        wanted = np.fromiter((int(d) for d in doc_ids), dtype=np.int64)
        return self.ids.array[np.isin(self.doc_ids, wanted)]

    def spans(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(chunk ids, document ids, starts, ends) of every chunk, row-aligned, without a text."""
        return self.ids.array, self.doc_ids, np.asarray(self._starts), np.asarray(self._ends)

    def text_of(self, chunk_id: int) -> str:
        """One chunk's text; ``KeyError`` if the store lacks it."""
        row = self._row(chunk_id)
        if row < 0:
            raise KeyError(chunk_id)
        return self._text(row)

    def texts_by_position(self) -> PositionalTexts:
        """Every chunk's text as a lazy sequence in id order: a slice reads only its chunks."""
        return PositionalTexts(self)

    @property
    def doc_id_of(self) -> DocumentIdView:
        return DocumentIdView(self)

    def record_fetches(self) -> set[int]:
        """From now on, add the id of every chunk whose strings are read to the returned set."""
        self.fetch_log = set()
        return self.fetch_log

    # -- rows -------------------------------------------------------------------------------

    def _row(self, chunk_id: object) -> int:
        return self.ids.position(chunk_id)

    def _text(self, row: int) -> str:
        if self.fetch_log is not None:
            self.fetch_log.add(int(self.ids.array[row]))
        return self._strings["text"].at(row)

    def _record(self, row: int) -> ChunkRecord:
        text = self._text(row)
        heading = self._strings["heading_path"].at(row)
        page, tokens = int(self._pages[row]), int(self._token_counts[row])
        return ChunkRecord(
            int(self.ids.array[row]),
            int(self.doc_ids[row]),
            int(self._ordinals[row]),
            int(self._starts[row]),
            int(self._ends[row]),
            text,
            text if self._same[row] else self._strings["indexed_text"].at(row),
            tuple(json.loads(heading)) if heading else (),
            None if page == _NONE else page,
            None if tokens == _NONE else tokens,
            bool(self._over[row]),
        )


class DocumentIdView(Mapping[int, int]):
    """chunk id -> document id, from the store's arrays (no record is built)."""

    __slots__ = ("_store",)

    def __init__(self, store: ChunkStore) -> None:
        self._store = store

    def __getitem__(self, chunk_id: int) -> int:
        row = self._store._row(chunk_id)
        if row < 0:
            raise KeyError(chunk_id)
        return int(self._store.doc_ids[row])

    def __iter__(self) -> Iterator[int]:
        return iter(self._store.ids)

    def __len__(self) -> int:
        return len(self._store)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._store.ids


class PositionalTexts(Sequence[str]):
    """The store's texts by row (chunk id order); each read fetches that chunk alone."""

    __slots__ = ("_store",)

    def __init__(self, store: ChunkStore) -> None:
        self._store = store

    def __len__(self) -> int:
        return len(self._store)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._store._text(row) for row in range(len(self))[index]]
        row = range(len(self))[index]
        return self._store._text(row)
