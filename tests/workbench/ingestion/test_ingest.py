"""Ingestion: skipping unchanged files before parsing, replacing changed ones, isolating failures."""

from __future__ import annotations

import pytest

from tests.workbench.corpus import DOCS
from workbench.ingestion.ingest import Source


def _sources(docs=DOCS):
    return [Source(name=name, data=text.encode()) for name, text in docs.items()]


def _chunk_ids(bench, collection, config):
    snapshot = bench.snapshot(collection, config)
    return sorted(snapshot.chunks), sorted(snapshot.sparse.chunk_ids.tolist()), sorted(snapshot.dense.ids().tolist())


def test_first_ingest_stores_documents_chunks_and_both_indexes(bench, fake_embedder, fake_config):
    report = bench.ingest("kb", _sources(), fake_config)
    assert report.count("ingested") == 4 and not report.failures
    documents = bench.documents("kb")
    assert {d.source for d in documents} == set(DOCS)
    assert all(d.status == "success" and d.chunk_count >= 1 for d in documents)
    catalog_ids, sparse_ids, dense_ids = _chunk_ids(bench, "kb", fake_config)
    assert catalog_ids == sparse_ids == dense_ids and len(catalog_ids) >= 4


def test_rerun_parses_and_embeds_nothing(bench, fake_embedder, fake_config, monkeypatch):
    bench.ingest("kb", _sources(), fake_config)
    embedded_before = len(fake_embedder.embedded_texts)

    import workbench.ingestion.stream as stream_module

    class NoParsing:
        def __init__(self, *args, **kwargs):
            raise AssertionError("a parse worker was started although every file is unchanged")

    monkeypatch.setattr(stream_module, "ParsePool", NoParsing)
    report = bench.ingest("kb", _sources(), fake_config)
    assert report.count("skipped") == 4 and report.parsed == 0 and report.embedded == 0
    assert len(fake_embedder.embedded_texts) == embedded_before


def test_changed_file_replaces_its_chunks_in_one_step(bench, fake_embedder, fake_config):
    bench.ingest("kb", _sources(), fake_config)
    old = bench.document("bread.md", "kb")
    changed = {"bread.md": "# Baking bread\n\nSourdough needs a starter culture and a long, slow rise."}
    report = bench.ingest("kb", _sources(changed), fake_config)
    assert [o.status for o in report.outcomes] == ["replaced"]
    new = bench.document("bread.md", "kb")
    assert new.id != old.id and new.sha256 != old.sha256
    assert len([d for d in bench.documents("kb") if d.source == "bread.md"]) == 1
    trace = bench.query("sourdough starter", "kb", fake_config.with_overrides(["retrieval.mode=bm25"]))
    assert trace.final.hits and trace.chunks[trace.final.hits[0].chunk_id].doc_id == new.id
    catalog_ids, sparse_ids, dense_ids = _chunk_ids(bench, "kb", fake_config)
    assert catalog_ids == sparse_ids == dense_ids


def test_only_new_texts_are_embedded(bench, fake_embedder, fake_config):
    bench.ingest("kb", _sources(), fake_config)
    fake_embedder.calls.clear()
    # same content under another name: every chunk text is already cached
    bench.ingest("kb", [Source(name="copy-of-rivers.md", data=DOCS["rivers.md"].encode())], fake_config)
    assert fake_embedder.embedded_texts == []


def test_corrupt_and_empty_files_fail_alone_with_reasons(bench, fake_embedder, fake_config):
    sources = _sources() + [
        Source(name="broken.pdf", data=b"this is not a pdf at all"),
        Source(name="empty.txt", data=b""),
        Source(name="program.exe", data=b"MZ\x00\x00"),
    ]
    report = bench.ingest("kb", sources, fake_config)
    failures = {f.source: f.reason for f in report.failures}
    assert set(failures) == {"broken.pdf", "empty.txt", "program.exe"}
    assert "pdf" in failures["broken.pdf"].lower()
    assert "empty" in failures["empty.txt"].lower()
    assert ".exe" in failures["program.exe"] or "supported" in failures["program.exe"]
    assert report.count("ingested") == 4
    statuses = {d.source: (d.status, d.error) for d in bench.documents("kb")}
    assert statuses["broken.pdf"][0] == "failed" and statuses["broken.pdf"][1]
    catalog_ids, sparse_ids, dense_ids = _chunk_ids(bench, "kb", fake_config)
    assert catalog_ids == sparse_ids == dense_ids


def test_failed_update_keeps_the_previous_good_version(bench, fake_embedder, fake_config):
    bench.ingest("kb", [Source(name="notes.txt", data=b"Gardening tips: water tomatoes in the morning.")], fake_config)
    bench.ingest("kb", [Source(name="notes.txt", data=b"")], fake_config)
    document = bench.document("notes.txt", "kb")
    assert document.status == "success"
    trace = bench.query("tomatoes", "kb", fake_config.with_overrides(["retrieval.mode=bm25"]))
    assert trace.final.hits


def test_progress_reports_every_stage_per_file(bench, fake_embedder, fake_config):
    events = []
    bench.ingest("kb", _sources(), fake_config, progress=events.append)
    stages = {e.stage for e in events}
    assert {"hash", "parse", "chunk", "embed", "store", "index", "done"} <= stages
    assert {e.source for e in events if e.stage == "parse"} == set(DOCS)


def test_delete_document_removes_it_from_catalog_and_indexes(bench, fake_embedder, fake_config):
    bench.ingest("kb", _sources(), fake_config)
    bench.delete_document("kb", "chess.md")
    assert "chess.md" not in {d.source for d in bench.documents("kb")}
    trace = bench.query("sicilian defence knights", "kb", fake_config.with_overrides(["retrieval.mode=bm25"]))
    assert all(view.source != "chess.md" for view in trace.chunks.values())
    with pytest.raises(LookupError, match="not found"):
        bench.delete_document("kb", "chess.md")


def test_every_supported_format_ingests(bench, fake_embedder, fake_config, tmp_path):
    from tests.workbench.office_files import make_docx, make_pdf, make_pptx, make_xlsx

    files = {
        "a.pdf": make_pdf(tmp_path / "a.pdf", ["Solar panels on page one.", "Wind turbines on page two."]),
        "b.docx": make_docx(tmp_path / "b.docx"),
        "c.pptx": make_pptx(tmp_path / "c.pptx"),
        "d.xlsx": make_xlsx(tmp_path / "d.xlsx"),
    }
    texts = {
        "e.html": b"<html><body><h1>Harbours</h1><p>Ships dock in the harbour.</p></body></html>",
        "f.md": b"# Notes\n\nMarkdown text about lighthouses.",
        "g.txt": "纯文本文件，关于长城的历史。".encode(),
        "h.csv": b"city,population\nOslo,700000\n",
        "i.json": b'{"topic": "glaciers", "melting": true}',
    }
    sources = [Source.from_path(path) for path in files.values()] + [Source(name=n, data=d) for n, d in texts.items()]
    report = bench.ingest("formats", sources, fake_config)
    assert not report.failures, report.failures
    types = {d.source: d.doc_type for d in bench.documents("formats")}
    assert types == {
        "a.pdf": "pdf",
        "b.docx": "docx",
        "c.pptx": "pptx",
        "d.xlsx": "xlsx",
        "e.html": "html",
        "f.md": "md",
        "g.txt": "txt",
        "h.csv": "csv",
        "i.json": "json",
    }
    pdf_chunks = bench.chunks_of(bench.document("a.pdf", "formats").id)
    assert {row[8] for row in pdf_chunks} <= {1, 2} and pdf_chunks[0][8] == 1


def test_cancel_keeps_what_was_committed_and_a_rerun_finishes(bench, fake_embedder, fake_config, monkeypatch):
    import threading

    import workbench.ingestion.stream as stream_module

    monkeypatch.setattr(stream_module, "EMBED_GROUP", 2)  # embed and commit two chunk texts at a time
    notes = {f"note-{n:02d}.md": f"# Note {n}\n\nA short note about topic number {n}.\n" for n in range(12)}
    cancel = threading.Event()
    seen = []

    def cancel_after_the_second_group(event):
        seen.append(event.stage)
        if event.stage == "embed" and seen.count("embed") == 4:  # two groups: 0/n and n/n each
            cancel.set()

    report = bench.ingest("kb", _sources(notes), fake_config, progress=cancel_after_the_second_group, cancel=cancel)
    assert report.cancelled and "CANCELLED after" in report.summary()
    committed = {d.source for d in bench.documents("kb") if d.status == "success"}
    assert 2 <= len(committed) < len(notes)
    info = next(i for i in bench.collections() if i.name == "kb")
    assert info.interrupted.startswith("the last ingest was cancelled after")
    catalog_ids, sparse_ids, dense_ids = _chunk_ids(bench, "kb", fake_config)
    assert catalog_ids == sparse_ids == dense_ids and len(catalog_ids) == len(committed)

    embedded_before = set(fake_embedder.embedded_texts)
    fake_embedder.calls.clear()
    rerun = bench.ingest("kb", _sources(notes), fake_config)
    assert not rerun.cancelled and rerun.count("skipped") == len(committed)
    assert not set(fake_embedder.embedded_texts) & embedded_before, "a rerun embeds nothing twice"
    assert {d.source for d in bench.documents("kb")} == set(notes)
    assert next(i for i in bench.collections() if i.name == "kb").interrupted == ""


def test_the_first_encode_starts_with_the_first_few_texts_not_a_full_group(
    bench, fake_embedder, fake_config, monkeypatch
):
    import workbench.ingestion.stream as stream_module

    monkeypatch.setattr(stream_module, "FIRST_EMBED_GROUP", 2)  # EMBED_GROUP stays 1,024
    notes = {f"note-{n:02d}.md": f"# Note {n}\n\nA short note about topic number {n}.\n" for n in range(12)}
    report = bench.ingest("kb", _sources(notes), fake_config)
    assert report.embedded == 12
    assert len(fake_embedder.calls[0]) == 2, "the encoder starts as soon as two texts are ready"
    assert sorted(fake_embedder.embedded_texts) == sorted(
        row[6] for d in bench.documents("kb") for row in bench.chunks_of(d.id, fake_config)
    )


def test_other_processes_get_the_catalog_while_the_ingest_waits_for_a_slow_parse(bench, fake_embedder, fake_config):
    import subprocess
    import sys
    import threading

    rows = "id,name,value\n" + "".join(f"{i},name{i},{i * 7}\n" for i in range(150_000))  # seconds to parse
    config = fake_config.with_overrides(["ingest.parse_timeout_s=4"])
    started = threading.Event()

    def progress(event):
        if event.stage == "estimate":
            started.set()

    ingest = threading.Thread(
        target=bench.ingest,
        args=("kb", [Source(name="rows.csv", data=rows.encode())], config),
        kwargs={"progress": progress},
    )
    ingest.start()
    assert started.wait(60)
    probe = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
    opened_during_parse = 0
    while ingest.is_alive():
        done = subprocess.run([sys.executable, "-c", probe, str(bench.catalog.path)], capture_output=True)
        opened_during_parse += done.returncode == 0 and ingest.is_alive()
    ingest.join()
    assert opened_during_parse >= 1, "the ingest kept the catalog locked while it only waited for a worker"


def test_other_processes_get_the_catalog_while_the_ingest_loads_its_model(bench, fake_config):
    """Loading a model takes seconds (over half a minute on a busy machine): another writer waiting
    that long for the file would give up, so the ingest lets go of it meanwhile."""
    import subprocess
    import sys

    from tests.conftest import HashingEmbedder
    from workbench.embedding import base, registry

    name = "slow-loading-hashing-embedder"
    opened: list[int] = []

    class LoadsOnFirstUse(base.Embedder):
        dimension = HashingEmbedder.dimension

        def __init__(self, _name: str):
            self.name, self.loaded, self._inner = name, False, HashingEmbedder(name)

        @property
        def max_tokens(self) -> int:  # what the first document's chunks are fitted to: it loads the model
            if not self.loaded:
                probe = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
                opened.append(subprocess.run([sys.executable, "-c", probe, str(bench.catalog.path)]).returncode)
                self.loaded = True
            return HashingEmbedder.max_tokens

        def embed(self, texts):
            return self._inner.embed(texts)

        def token_counts(self, texts):
            return self._inner.token_counts(texts)

    registry.register_embedder(name, LoadsOnFirstUse)
    try:
        report = bench.ingest("kb", _sources(), fake_config.with_overrides([f"embedding.model={name}"]))
    finally:
        registry.unregister_embedder(name)
    assert not report.failures and report.count("ingested") == len(DOCS)
    assert opened == [0], "the ingest held the catalog while its model loaded"
