"""Documents' units of work: a batch commits whole or not at all; failures never hide a good version."""

from __future__ import annotations

from dataclasses import replace

import pytest

from store import collections as stored_collections
from store import documents as stored
from store.catalog import Catalog
from store.document_versions import Fingerprint
from store.repository import NewChunk, NotFoundError


def _chunk(ordinal: int, text: str) -> NewChunk:
    return NewChunk(
        ordinal=ordinal,
        text=text,
        indexed_text=text,
        start=0,
        end=len(text),
        heading_path=("Intro",),
        page=None,
        content_hash=f"h-{text}",
        token_count=len(text.split()),
        over_max_length=False,
        metadata={},
    )


def _version(
    source: str, texts: list[str], *, replaces: bool = False, chunkset: str = "set-a", sha: str = "sha-1"
) -> stored.DocumentVersion:
    return stored.DocumentVersion(
        source=source,
        external_id=None,
        sha256=sha,
        size_bytes=10,
        doc_type="md",
        title=source,
        markdown=" ".join(texts),
        page_starts=[],
        chunks={chunkset: [_chunk(i, t) for i, t in enumerate(texts)]},
        replaces=replaces,
    )


@pytest.fixture
def catalog(tmp_path) -> Catalog:
    catalog = Catalog.in_home(tmp_path)
    stored_collections.create_collection(catalog, "kb", {}, "set-a", {"chunking": {}})
    return catalog


def _start(catalog: Catalog, files: int = 1) -> stored.IngestStart:
    return stored.start_ingest(catalog, "kb", [("set-a", {"chunking": {}})], files)


def _chunk_texts(catalog: Catalog, source: str) -> list[str]:
    document = stored.find_document(catalog, source, "kb")
    return [row[5] for row in stored.chunks_of_document(catalog, document.id, "set-a")]


def test_commit_replaces_a_document_and_its_chunks_and_bumps_the_generation_once(catalog):
    start = _start(catalog, 2)
    assert stored.commit_documents(
        catalog, start.collection_id, start.run_id, [_version("a.md", ["one", "two"]), _version("b.md", ["three"])]
    ) == ["ingested", "ingested"]
    assert stored_collections.get_collection(catalog, "kb").generation == 1

    again = _start(catalog)
    assert again.fingerprints == {
        "a.md": Fingerprint("sha-1", "success", "md", 1),
        "b.md": Fingerprint("sha-1", "success", "md", 1),
    }
    outcome = stored.commit_documents(
        catalog, again.collection_id, again.run_id, [_version("a.md", ["uno"], replaces=True, sha="sha-2")]
    )
    assert outcome == ["replaced"]
    assert _chunk_texts(catalog, "a.md") == ["uno"]
    assert [d.source for d in stored.documents_of(catalog, "kb")] == ["a.md", "b.md"]
    assert stored_collections.get_collection(catalog, "kb").generation == 2


def test_a_batch_that_fails_part_way_leaves_the_old_versions_untouched(catalog):
    start = _start(catalog)
    stored.commit_documents(catalog, start.collection_id, start.run_id, [_version("a.md", ["one", "two"])])
    broken = _version("b.md", ["fine"])
    # chunks.text is NOT NULL: the second document's insert fails after the first was replaced
    broken.chunks["set-a"][0] = replace(_chunk(0, "fine"), text=None)
    again = _start(catalog, 2)
    with pytest.raises(Exception, match="NOT NULL"):
        stored.commit_documents(
            catalog, again.collection_id, again.run_id, [_version("a.md", ["uno"], replaces=True, sha="sha-2"), broken]
        )
    assert _chunk_texts(catalog, "a.md") == ["one", "two"]
    assert [d.source for d in stored.documents_of(catalog, "kb")] == ["a.md"]
    assert stored_collections.get_collection(catalog, "kb").generation == 1


def test_a_failed_new_version_keeps_the_good_one_and_refreshes_only_an_earlier_failure(catalog):
    start = _start(catalog)
    stored.commit_documents(catalog, start.collection_id, start.run_id, [_version("good.md", ["kept"])])
    failure = stored.FailedDocument(
        source="good.md", external_id=None, sha256="sha-2", size_bytes=3, doc_type="md", reason="parser said no"
    )
    stored.record_failed_document(catalog, start.collection_id, start.run_id, failure, replaces=True)
    assert stored.find_document(catalog, "good.md", "kb").status == "success"
    assert _chunk_texts(catalog, "good.md") == ["kept"]

    first = stored.FailedDocument(
        source="bad.pdf", external_id=None, sha256="s1", size_bytes=3, doc_type="pdf", reason="first reason"
    )
    stored.record_failed_document(catalog, start.collection_id, start.run_id, first, replaces=False)
    second = stored.FailedDocument(
        source="bad.pdf", external_id=None, sha256="s2", size_bytes=3, doc_type="unknown", reason="second reason"
    )
    stored.record_failed_document(catalog, start.collection_id, start.run_id, second, replaces=True)
    refreshed = stored.find_document(catalog, "bad.pdf", "kb")
    assert (refreshed.status, refreshed.error, refreshed.sha256, refreshed.doc_type) == (
        "failed",
        "second reason",
        "s2",
        "pdf",
    )
    assert len([d for d in stored.documents_of(catalog, "kb") if d.source == "bad.pdf"]) == 1


def test_delete_document_names_the_fix_and_bumps_the_generation(catalog):
    start = _start(catalog)
    stored.commit_documents(catalog, start.collection_id, start.run_id, [_version("a.md", ["one"])])
    with pytest.raises(NotFoundError, match="document 'zzz' not found in collection 'kb'; use a document id"):
        stored.delete_document(catalog, "kb", "zzz")
    assert stored.delete_document(catalog, "kb", "a.md").source == "a.md"
    assert stored.documents_of(catalog, "kb") == []
    assert stored_collections.get_collection(catalog, "kb").generation == 2


def test_a_new_chunk_set_lists_unchunked_documents_then_adds_their_chunks(catalog):
    start = _start(catalog)
    stored.commit_documents(catalog, start.collection_id, start.run_id, [_version("a.md", ["one", "two"])])
    unchunked = stored.documents_lacking_chunks(catalog, "kb", "set-b", {"chunking": {"size": 5}})
    assert [(doc_id, markdown) for doc_id, markdown, _ in unchunked.documents] == [
        (stored.find_document(catalog, "a.md").id, "one two")
    ]
    assert list(stored_collections.chunksets_of(catalog, "kb")) == ["set-a", "set-b"]
    stored.add_chunks(catalog, unchunked.collection_id, "set-b", [(unchunked.documents[0][0], [_chunk(0, "one two")])])
    assert stored.documents_lacking_chunks(catalog, "kb", "set-b", {"chunking": {"size": 5}}).documents == []
    assert stored_collections.get_collection(catalog, "kb").generation == 2


def test_index_source_reads_rows_only_when_the_index_lags(catalog):
    start = _start(catalog)
    stored.commit_documents(catalog, start.collection_id, start.run_id, [_version("a.md", ["one", "two"])])
    current = stored.index_source(catalog, "kb", "set-a", indexed_generation=1)
    assert current.up_to_date and current.generation == 1
    lagging = stored.index_source(catalog, "kb", "set-a", indexed_generation=None)
    assert not lagging.up_to_date
    assert [str(t) for t in lagging.chunk_rows["text"]] == ["one", "two"]
    assert [d[1] for d in lagging.documents] == ["a.md"]


def test_chunk_in_context_gives_neighbours_from_the_chunks_own_set(catalog):
    start = _start(catalog)
    stored.commit_documents(catalog, start.collection_id, start.run_id, [_version("a.md", ["one", "two", "three"])])
    unchunked = stored.documents_lacking_chunks(catalog, "kb", "set-b", {})
    stored.add_chunks(catalog, unchunked.collection_id, "set-b", [(unchunked.documents[0][0], [_chunk(0, "all")])])
    rows = stored.chunks_of_document(catalog, stored.find_document(catalog, "a.md").id, "set-a")
    found = stored.chunk_in_context(catalog, rows[1][0])
    assert found.collection == "kb" and found.document.source == "a.md"
    assert [r[5] for r in found.siblings] == ["one", "two", "three"]
    assert stored.chunk_in_context(catalog, 10_000) is None


def test_a_bulk_batch_gives_each_document_its_own_chunks_pages_and_events(catalog):
    start = _start(catalog, 3)
    paged = replace(_version("c.pdf", ["gamma"]), page_starts=[0, 40])
    paged.chunks["set-a"][0] = replace(paged.chunks["set-a"][0], page=2, token_count=None, metadata={"k": "v"})
    outcomes = stored.commit_documents(
        catalog,
        start.collection_id,
        start.run_id,
        [_version("a.md", ["alpha", "beta"]), _version("b.md", ["delta"]), paged],
    )
    assert outcomes == ["ingested"] * 3
    assert {d.source: _chunk_texts(catalog, d.source) for d in stored.documents_of(catalog, "kb")} == {
        "a.md": ["alpha", "beta"],
        "b.md": ["delta"],
        "c.pdf": ["gamma"],
    }
    with catalog.connect() as con:
        assert con.execute("SELECT page_starts FROM documents WHERE source = 'c.pdf'").fetchone()[0] == [0, 40]
        assert con.execute("SELECT page_starts FROM documents WHERE source = 'a.md'").fetchone()[0] == []
        assert con.execute("SELECT page, token_count, metadata FROM chunks WHERE text = 'gamma'").fetchone() == (
            2,
            None,
            '{"k": "v"}',
        )
        events = con.execute(
            "SELECT source, outcome FROM ingestion_events WHERE run_id = ? ORDER BY source", [start.run_id]
        ).fetchall()
    assert events == [("a.md", "ingested"), ("b.md", "ingested"), ("c.pdf", "ingested")]


def test_two_versions_of_one_source_in_a_batch_leave_the_later_one(catalog):
    start = _start(catalog)
    stored.commit_documents(catalog, start.collection_id, start.run_id, [_version("a.md", ["old"])])
    again = _start(catalog, 2)
    outcomes = stored.commit_documents(
        catalog,
        again.collection_id,
        again.run_id,
        [
            _version("a.md", ["newer"], replaces=True, sha="sha-2"),
            _version("a.md", ["newest"], replaces=True, sha="sha-3"),
        ],
    )
    assert outcomes == ["replaced", "replaced"]
    assert [d.sha256 for d in stored.documents_of(catalog, "kb")] == ["sha-3"]
    assert _chunk_texts(catalog, "a.md") == ["newest"]


def test_a_batch_inserts_each_chunk_set_in_one_go_and_every_chunk_lands_on_its_own_document(catalog):
    start = stored.start_ingest(catalog, "kb", [("set-a", {"chunking": {}}), ("set-b", {"chunking": {}})], 3)
    versions = [
        replace(
            _version(f"d{n}.md", [f"a{n}-{i}" for i in range(n + 1)]),
            chunks={"set-a": [_chunk(i, f"a{n}-{i}") for i in range(n + 1)], "set-b": [_chunk(0, f"b{n}")]},
        )
        for n in range(3)
    ]
    stored.commit_documents(catalog, start.collection_id, start.run_id, versions)

    for n in range(3):
        document = stored.find_document(catalog, f"d{n}.md", "kb")
        assert [row[5] for row in stored.chunks_of_document(catalog, document.id, "set-a")] == [
            f"a{n}-{i}" for i in range(n + 1)
        ]
        assert [row[5] for row in stored.chunks_of_document(catalog, document.id, "set-b")] == [f"b{n}"]
    assert [d.chunk_count for d in stored.documents_of(catalog, "kb")] == [1, 2, 3]


def test_documents_record_their_parser_version_and_older_ones_are_listed_as_outdated(catalog):
    start = _start(catalog, 3)
    old = replace(_version("old.pdf", ["text"]), doc_type="pdf", parser_version=1)
    new = replace(_version("new.pdf", ["text"]), doc_type="pdf", parser_version=2)
    note = _version("note.md", ["text"])
    stored.commit_documents(catalog, start.collection_id, start.run_id, [old, new, note])
    fingerprints = _start(catalog).fingerprints
    assert fingerprints["old.pdf"] == Fingerprint("sha-1", "success", "pdf", 1)
    assert fingerprints["new.pdf"] == Fingerprint("sha-1", "success", "pdf", 2)
    outdated = stored.outdated_documents(catalog, "kb", {"pdf": 2})
    assert [(d.source, d.doc_type, d.parser_version) for d in outdated] == [("old.pdf", "pdf", 1)]
    assert stored.outdated_documents(catalog, "kb", {"pdf": 3, "md": 1}) == [
        d for d in stored.outdated_documents(catalog, "kb", {"pdf": 3}) if d.source in ("new.pdf", "old.pdf")
    ]
    assert len(stored.outdated_documents(catalog, "kb", {"pdf": 3})) == 2


def test_documents_stored_before_versions_were_recorded_count_as_version_one(catalog):
    start = _start(catalog)
    stored.commit_documents(
        catalog, start.collection_id, start.run_id, [replace(_version("a.pdf", ["x"]), doc_type="pdf")]
    )
    with catalog.connect() as con:  # what migration 007 leaves on rows written before it
        con.execute("UPDATE documents SET parser_version = NULL")
    assert _start(catalog).fingerprints["a.pdf"].parser_version == 1
    assert [d.source for d in stored.outdated_documents(catalog, "kb", {"pdf": 2})] == ["a.pdf"]
