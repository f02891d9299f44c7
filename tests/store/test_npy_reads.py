import numpy as np
import pytest

from store.npy_reads import NpyReader


def test_rows_and_slices_read_what_np_load_gives(tmp_path):
    matrix = np.arange(60, dtype=np.float32).reshape(12, 5) / 7
    postings = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int32)
    np.save(tmp_path / "m.npy", matrix)
    np.save(tmp_path / "p.npy", postings)
    rows, flat = NpyReader(tmp_path / "m.npy"), NpyReader(tmp_path / "p.npy")

    assert (rows.shape, rows.dtype, len(rows)) == ((12, 5), np.float32, 12)
    assert np.array_equal(rows.rows(np.array([11, 0, 4, 4])), matrix[[11, 0, 4, 4]])
    assert rows.rows(np.array([], dtype=np.int64)).shape == (0, 5)
    assert np.array_equal(rows.slice(2, 5), matrix[2:5])
    assert np.array_equal(flat.slice(3, 7), [1, 5, 9, 2])
    assert np.array_equal(flat.slice(6, 100), [2, 6])  # clipped to the array, as a Python slice is
    assert flat.slice(5, 5).shape == (0,)


def test_a_row_out_of_range_and_a_cut_file_are_named(tmp_path):
    np.save(tmp_path / "m.npy", np.ones((4, 3), dtype=np.float32))
    with pytest.raises(IndexError, match=r"m.npy: row 4 out of range 0..3"):
        NpyReader(tmp_path / "m.npy").rows(np.array([4]))
    path = tmp_path / "cut.npy"
    np.save(path, np.ones((100, 3), dtype=np.float64))
    reader = NpyReader(path)
    path.write_bytes(path.read_bytes()[:400])
    with pytest.raises(ValueError, match="shorter than its header says: rebuild the index"):
        reader.slice(0, 100)
