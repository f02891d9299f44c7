"""A collection whose PDFs an older parser wrote: ``sync`` parses them again, embedding only new chunk
texts, and golden spans on them follow their text or are reported lost.

The "old" state is what version 1 (markitdown) wrote: each document's Markdown replaced by
markitdown's output with no parser version (as rows from before migration 007 are), chunked
again through the normal path, and the cache holding only the vectors those old chunks use.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.embedding_cache import cached_hashes
from store.originals import original_path
from tests.workbench.ingestion.pdf_corpus import DOCUMENTS, build_pdf, chinese_font_available
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.runner import evaluate_collection
from workbench.ingestion.chunksets import ensure_chunkset
from workbench.ingestion.ingest import Source
from workbench.ingestion.parsers.canonical import join_pages
from workbench.ingestion.parsers.converter import convert
from workbench.ingestion.parsers.pdf import PARSER_VERSION

pytestmark = pytest.mark.skipif(not chinese_font_available(), reason="needs fonts-wqy-microhei")

EN, ZH = "en-report.pdf", "zh-report.pdf"


def _markitdown(data: bytes) -> tuple[str, list[int]]:
    markdown, starts = join_pages(tuple(convert(data, "old.pdf", "pdf").markdown.split("\f")))
    return markdown, list(starts)


def _chunk_hashes(bench, collection: str) -> set[str]:
    with bench.catalog.connect() as con:
        return {row[0] for row in con.execute("SELECT content_hash FROM chunks").fetchall()}


def _as_if_the_old_parser_wrote_it(bench, collection: str, pdfs: dict[str, bytes]) -> None:
    """Rewrite the stored documents as version 1 left them, then re-chunk them the normal way."""
    layout = bench.layouts_of(collection, bench.config_for(collection))[0]
    with bench.catalog.connect() as con:
        for name, data in pdfs.items():
            markdown, starts = _markitdown(data)
            (doc_id,) = con.execute("SELECT id FROM documents WHERE source = ?", [name]).fetchone()
            con.execute(
                "UPDATE documents SET markdown = ?, page_starts = ?, parser_version = NULL WHERE id = ?",
                [markdown, starts, doc_id],
            )
            con.execute("DELETE FROM chunks WHERE document_id = ?", [doc_id])
        con.execute("UPDATE collections SET generation = generation + 1")
    ensure_chunkset(bench.catalog, collection, layout)
    with bench.catalog.connect() as con:  # the new parser's vectors were never computed back then
        con.execute("DELETE FROM embeddings WHERE content_hash NOT IN (SELECT content_hash FROM chunks)")
    bench.sync(collection, reparse=False)


@pytest.fixture(scope="module")
def old_collection(tmp_path_factory):
    from workbench.service import Workbench

    root = tmp_path_factory.mktemp("pdf-resync")
    documents = {document.name: document for document in DOCUMENTS}
    pdfs = {name: build_pdf(documents[name]) for name in (EN, ZH)}
    for name, data in pdfs.items():
        (root / name).write_bytes(data)
    bench = Workbench(root / "home")
    report = bench.ingest("kb", [Source.from_path(root / name) for name in pdfs])
    assert not report.failures, report.summary()
    for name in pdfs:  # PDF originals are kept from now on
        assert original_path(bench.home, bench.document(name, "kb").sha256, ".pdf").exists()
    _as_if_the_old_parser_wrote_it(bench, "kb", pdfs)
    # the Chinese document was ingested before originals were kept
    original_path(bench.home, bench.document(ZH, "kb").sha256, ".pdf").unlink()
    return bench, root, pdfs


def _golden_on_old_markdown(bench, old_english: str) -> Path:
    sentence = "Hybrid retrieval combines both routes with reciprocal rank fusion."
    start = old_english.index(sentence)
    cid_bullet = old_english[old_english.index("(cid:") :].split("\n")[0]
    lines = [
        # offsets only: the text they point at must be found again in the new Markdown
        {
            "id": "moved",
            "query": "how are routes combined",
            "relevant": [{"doc": EN, "start": start, "end": start + len(sentence)}],
        },
        # a quote of text the old parser made up: it is nowhere in the new Markdown
        {"id": "lost", "query": "what must headings do", "relevant": [{"doc": EN, "quote": cid_bullet}]},
    ]
    path = bench.home / "golden_sets" / "resync.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_sync_reparses_old_pdfs_embedding_only_new_chunk_texts(old_collection):
    bench, root, pdfs = old_collection
    english = bench.document(EN, "kb")
    old_english, _ = bench.markdown(english.id)
    assert "(cid:" in old_english and "\n# " not in old_english  # what version 1 wrote
    golden_path = _golden_on_old_markdown(bench, old_english)
    hashes_before = _chunk_hashes(bench, "kb")
    model = bench.layouts_of("kb", bench.config_for("kb"))[0].embedding_model

    reparse = bench.reparse_outdated("kb")

    assert reparse.report is not None and reparse.report.reparsed == [EN]
    assert [o.status for o in reparse.report.outcomes] == ["replaced"]
    new_english, _ = bench.markdown(bench.document(EN, "kb").id)
    assert new_english.startswith("# Retrieval Quality Report\n") and "(cid:" not in new_english
    new_hashes = _chunk_hashes(bench, "kb") - hashes_before
    assert new_hashes and reparse.report.embedded == len(new_hashes)  # only the texts that changed
    assert cached_hashes(bench.catalog, model, list(_chunk_hashes(bench, "kb"))) == _chunk_hashes(bench, "kb")
    # the Chinese document has no kept original: listed, with the way out
    assert reparse.without_original == [ZH]
    assert "Ingest the same files again" in reparse.summary() and ZH in reparse.summary()

    # golden spans followed their text, or are reported lost
    assert "1 re-found at new places" in reparse.summary() and "1 lost" in reparse.summary()
    golden = golden_sets.load(golden_path)
    moved = golden.find_query("moved").relevant[0]
    assert new_english[moved.start : moved.end] == moved.quote
    assert moved.quote == "Hybrid retrieval combines both routes with reciprocal rank fusion."
    lost = golden.find_query("lost").relevant[0]
    assert lost.start is None and lost.quote.startswith("(cid:")
    result = evaluate_collection(bench, "kb", golden, bench.config_for("kb"), level="span", metric_names=["recall@10"])
    assert len(result.per_query) == 2
    assert any("match no chunk" in note for note in result.notes)  # the lost judgement, counted as missed

    # nothing outdated is left that sync could reach; a second sync re-parses nothing
    assert bench.reparse_outdated("kb").report is None


def test_reingesting_the_same_file_reparses_a_document_without_original(old_collection):
    bench, root, pdfs = old_collection
    report = bench.ingest("kb", [Source.from_path(root / ZH)])
    assert report.reparsed == [ZH] and [o.status for o in report.outcomes] == ["replaced"]
    assert "parsed again by a newer parser" in report.summary()
    markdown, page_starts = bench.markdown(bench.document(ZH, "kb").id)
    assert markdown.startswith("# 检索质量报告\n") and len(page_starts) == 2
    assert "需要先经过光学字符识别" in markdown  # a line break inside a Chinese word is gone
    # and the file is unchanged now: the next ingest skips it before parsing
    again = bench.ingest("kb", [Source.from_path(root / ZH)])
    assert [o.status for o in again.outcomes] == ["skipped"] and not again.reparsed
    assert not bench.reparse_outdated("kb").without_original


def test_pdfs_the_extractor_wrote_before_the_layout_fixes_of_issue_35_are_parsed_again(old_collection):
    """Versions up to 4 read users' PDFs badly (issue 35): their documents are outdated, and sync
    parses them again."""
    bench, _root, _pdfs = old_collection
    with bench.catalog.connect() as con:
        con.execute("UPDATE documents SET parser_version = 4 WHERE source = ?", [EN])
    reparse = bench.reparse_outdated("kb")
    assert reparse.report is not None and reparse.report.reparsed == [EN]
    with bench.catalog.connect() as con:
        (version,) = con.execute("SELECT parser_version FROM documents WHERE source = ?", [EN]).fetchone()
    assert version == PARSER_VERSION > 4
