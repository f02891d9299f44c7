"""Parts of a saved ``.npy`` array read with ``pread``: only what a query asks for enters the process.

A memory map would read the same bytes, but every page it faults in stays in the process's
resident set, and the kernel maps the neighbouring pages with it (fault-around). At a million
chunks, a query's scattered reads through a map (an MMR head's vectors, a frequent term's
postings) leave most of the file resident after a few hundred queries. Reads through ``pread``
go to the page cache, which the kernel shares between processes and can take back.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np


class NpyReader:
    """Rows (of a 2-d array) or slices (of a 1-d one) of one ``.npy`` file, copied on request."""

    def __init__(self, path: Path) -> None:
        mapped = np.load(path, mmap_mode="r")  # reads the header only: no data page is touched
        self.path, self.shape, self.dtype = Path(path), mapped.shape, mapped.dtype
        self._data_offset = int(mapped.offset)
        self._row_bytes = int(np.prod(mapped.shape[1:], dtype=np.int64)) * mapped.dtype.itemsize
        del mapped
        self._file = open(path, "rb")
        self._lock = threading.Lock()  # only where there is no pread: seek and read are one step

    def __del__(self) -> None:
        file = getattr(self, "_file", None)
        if file is not None:
            file.close()

    def __len__(self) -> int:
        return self.shape[0]

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """The given rows, in the order given (a row may repeat)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty((len(rows),) + self.shape[1:], dtype=self.dtype)
        flat = out.reshape(len(rows), self._row_bytes // self.dtype.itemsize).view(np.uint8)
        for position, row in enumerate(rows.tolist()):
            if not 0 <= row < self.shape[0]:
                raise IndexError(f"{self.path.name}: row {row} out of range 0..{self.shape[0] - 1}")
            flat[position] = np.frombuffer(
                self._read(self._data_offset + row * self._row_bytes, self._row_bytes), dtype=np.uint8
            )
        return out

    def slice(self, start: int, end: int) -> np.ndarray:
        """Rows ``start`` to ``end`` (exclusive) in one read."""
        start, end = max(0, int(start)), min(self.shape[0], int(end))
        if end <= start:
            return np.empty((0,) + self.shape[1:], dtype=self.dtype)
        data = self._read(self._data_offset + start * self._row_bytes, (end - start) * self._row_bytes)
        return np.frombuffer(data, dtype=self.dtype).reshape((end - start,) + self.shape[1:])

    def _read(self, offset: int, size: int) -> bytes:
        if hasattr(os, "pread"):
            data = os.pread(self._file.fileno(), size, offset)
        else:
            with self._lock:
                self._file.seek(offset)
                data = self._file.read(size)
        if len(data) != size:
            raise ValueError(
                f"{self.path}: {size} bytes at {offset} asked, {len(data)} read; the file is "
                "shorter than its header says: rebuild the index"
            )
        return data
