"""The query log's files and their fold into the catalog: idempotent, partial lines wait, purge empties."""

import os
import subprocess
import sys
from datetime import datetime

from store import query_log
from store.catalog import Catalog
from store.query_log import LoggedQuery, QueryLogFile


def _entry(query: str, source: str = "cli") -> LoggedQuery:
    return LoggedQuery(datetime(2026, 1, 2, 3, 4, 5), source, "notes", query, "abc123abc123", (3, 1, 2))


def test_fold_moves_new_lines_once_and_leaves_a_partial_line_for_later(tmp_path):
    catalog, folder = Catalog(tmp_path / "catalog.duckdb"), tmp_path / "query_log"
    writer = QueryLogFile(folder)
    writer.append(_entry("what is x"))
    writer.append(_entry("什么是向量", "mcp"))
    with writer.path.open("ab") as handle:
        handle.write(b'{"at": "2026-01-02T03:04:06", "source": "lab"')  # a line being written right now
    assert query_log.fold(catalog, folder) == 2
    assert query_log.fold(catalog, folder) == 0
    with writer.path.open("ab") as handle:
        handle.write(b', "collection": "notes", "query": "late", "config": "c", "chunks": []}\n')
    assert query_log.fold(catalog, folder) == 1
    listed = query_log.entries(catalog)
    assert {e.query for e in listed} == {"what is x", "什么是向量", "late"}
    assert next(e for e in listed if e.query == "what is x").chunk_ids == (3, 1, 2)
    assert [e.query for e in query_log.entries(catalog, sources=("mcp",))] == ["什么是向量"]
    counts = query_log.query_counts(catalog)
    assert len(counts) == 3 and all(c.count == 1 for c in counts)


def test_a_dead_process_file_is_removed_once_folded_and_purge_empties_everything(tmp_path):
    catalog, folder = Catalog(tmp_path / "catalog.duckdb"), tmp_path / "query_log"
    child = (
        "import sys; from datetime import datetime; from store.query_log import QueryLogFile, LoggedQuery; "
        "QueryLogFile(sys.argv[1]).append(LoggedQuery(datetime(2026, 1, 1), 'mcp', 'notes', 'from a child', "
        "'c', (1,)))"
    )
    subprocess.run([sys.executable, "-c", child, str(folder)], check=True, cwd=os.getcwd())
    mine = QueryLogFile(folder)
    mine.append(_entry("mine"))
    assert len(list(folder.glob("*.jsonl"))) == 2
    assert query_log.fold(catalog, folder) == 2
    assert [p.name for p in folder.glob("*.jsonl")] == [mine.path.name]  # the exited child's file is gone
    mine.append(_entry("mine again"))
    assert query_log.purge(catalog, folder) == 3
    assert query_log.count(catalog) == 0 and mine.path.stat().st_size == 0
    mine.append(_entry("after purge"))  # the writer carries on in its emptied file
    assert query_log.fold(catalog, folder) == 1


def test_counts_merge_whitespace_variants_most_frequent_first(tmp_path):
    catalog, folder = Catalog(tmp_path / "catalog.duckdb"), tmp_path / "query_log"
    writer = QueryLogFile(folder)
    for text in ["b", "a  question", "a question ", "a question", "b", "c"]:
        writer.append(_entry(text))
    query_log.fold(catalog, folder)
    assert [(c.query, c.count) for c in query_log.query_counts(catalog)] == [("a question", 3), ("b", 2), ("c", 1)]
