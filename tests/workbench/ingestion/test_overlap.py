"""Reading beside embedding: parse workers hand files to the encoder as they finish, in whatever
order they finish. One worker or two, the collection comes out the same (documents, chunks,
vectors), a corrupt file fails alone with its reason, and the parse times each run measures are
what the next estimate reads; the estimate counts the overlapped stages as the slower one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from store.embedding_cache import load_vectors
from tests.conftest import FAKE_MODEL
from workbench.ingestion.estimates import (
    PARSE_KEY,
    PARSE_MEMORY_CHARACTERS,
    PARSE_S,
    RATES_FILE,
    IngestEstimate,
    measured_rate,
    parse_rate,
    parse_seconds,
    remember_parses,
    remember_rate,
)
from workbench.ingestion.ingest import Source

ENGLISH = (
    "Hybrid retrieval fuses a keyword ranking with a vector ranking. Reciprocal rank fusion adds one over "
    "sixty plus the rank from each list, so a passage both rankers like rises to the top. "
)
CHINESE = (
    "混合检索把关键词排序和向量排序融合在一起。倒数排名融合把每个列表中的名次相加，两个排序都靠前的段落排在最前面。"
)


def _pdf(path, pages: int):
    """A reportlab PDF of ``pages`` pages of different English sentences, mid-page (not a running header)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    words = ENGLISH.split()
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for page in range(pages):
        for line in range(12):
            start = (page * 7 + line * 3) % len(words)
            pdf.drawString(72, 600 - 18 * line, f"{page}.{line} " + " ".join((words * 2)[start : start + 12]))
        pdf.showPage()
    pdf.save()
    return path


def _docx(path, title: str, paragraphs: list[str]):
    import docx

    document = docx.Document()
    document.add_heading(title, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    document.save(path)
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A long PDF first (it finishes last with two workers), then small files, one of them corrupt."""
    root = tmp_path_factory.mktemp("overlap-folder")
    _pdf(root / "a-long.pdf", 12)
    (root / "b-notes.md").write_text("# Notes\n\n" + ENGLISH * 6, encoding="utf-8")
    (root / "c-broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\nendobj\ntrailer\n")
    _docx(root / "d-guide.docx", "检索指南", [CHINESE * 3, CHINESE * 2])
    (root / "e-zh.md").write_text("# 说明\n\n" + CHINESE * 8, encoding="utf-8")
    return sorted(root.iterdir())


def _collection(bench, config):
    """Everything the catalog holds for the collection, keyed by file name (ids are the commit order's)."""
    documents = {}
    for document in bench.documents("kb"):
        chunks = [row[2:] for row in bench.chunks_of(document.id, config)]  # all but chunk and document id
        documents[document.source] = (
            (document.sha256, document.size_bytes, document.doc_type, document.title, document.status),
            (document.error, document.chunk_count, document.parse_report),
            chunks,
        )
    hashes = sorted({chunk[-2] for _, _, chunks in documents.values() for chunk in chunks})
    vectors = load_vectors(bench.catalog, FAKE_MODEL, hashes)
    return documents, hashes, vectors


def test_one_worker_or_two_make_the_same_collection_and_the_corrupt_file_fails_alone(
    tmp_path, folder, fake_embedder, fake_config, monkeypatch
):
    from tests.conftest import HashingEmbedder
    from workbench.service import Workbench

    # a text's vector from the text alone, as a real encoder's is (the stand-in marks a text's
    # place in its batch, and the batches differ when the files arrive in another order)
    monkeypatch.setattr(
        fake_embedder, "embed", lambda texts: np.vstack([HashingEmbedder.embed(fake_embedder, [t]) for t in texts])
    )
    made, homes = {}, {}
    for workers in (1, 2):
        bench = Workbench(tmp_path / f"home-{workers}")
        config = fake_config.with_overrides([f"ingest.workers={workers}"])
        events = []
        report = bench.ingest("kb", [Source.from_path(path) for path in folder], config, progress=events.append)
        made[workers], homes[workers] = _collection(bench, config), bench.home
        assert [failure.source for failure in report.failures] == ["c-broken.pdf"]
        assert report.failures[0].reason == (
            "not a valid PDF (file is corrupt or truncated); re-export it and upload it again"
        )
        assert report.count("ingested") == 4 and not report.cancelled
        # every file reported once as read or failed, and the run's end
        assert sorted(e.source for e in events if e.stage in ("parse", "failed")) == [p.name for p in folder]
        assert events[-1].stage == "done"
        assert report.parse_workers == workers and report.parse_s > 0

    one, two = made[1], made[2]
    assert one[0] == two[0]  # documents and their chunks, row for row
    assert one[1] == two[1] and len(one[1]) >= 5
    assert set(one[2]) == set(one[1]) == set(two[2])
    for digest in one[1]:
        assert np.array_equal(one[2][digest], two[2][digest])
    assert one[0]["c-broken.pdf"][0][4] == "failed" and one[0]["c-broken.pdf"][2] == []

    # the run timed the files that parsed, by type (the corrupt PDF adds nothing to .pdf's time)
    kept = json.loads((homes[2] / RATES_FILE).read_text(encoding="utf-8"))[PARSE_KEY]
    assert set(kept) == {".pdf", ".docx", ".md"}  # Markdown files given as paths go through the workers too
    seconds, characters = kept[".pdf"]
    assert seconds > 0 and characters >= 12 * 12 * 40  # 12 pages of 12 lines of about 60 characters
    assert parse_rate(homes[2], ".pdf") == pytest.approx(characters / seconds)
    # the chunk rates beside the parse times still read (the parse entry is not a rate)
    remember_rate(homes[2], "m@torch-fp32", 128, 4.0)
    assert measured_rate(homes[2], "m@torch-fp32") == (32.0, "m@torch-fp32")


def test_parse_seconds_come_from_the_measured_rate_once_enough_text_was_timed(tmp_path):
    # before any measurement: the stated guess per file
    assert parse_seconds("report.pdf", 10_000, tmp_path) == PARSE_S[".pdf"] == 1.5
    remember_parses(tmp_path, {".pdf": (2.0, 4_000)})  # 4,000 characters: too few to trust
    assert parse_rate(tmp_path, ".pdf") is None and parse_seconds("report.pdf", 10_000, tmp_path) == 1.5
    remember_parses(tmp_path, {".pdf": (2.0, 6_000), ".docx": (0.0, 500)})  # a zero time is not a rate
    # 4 s for 10,000 characters: 2,500 characters/s, so a 5,000-character PDF is 2 s; 10,000 is 4 s
    assert parse_rate(tmp_path, ".pdf") == 2500.0
    assert parse_seconds("x.PDF", 5_000, tmp_path) == 2.0
    assert parse_seconds("x.pdf", 10_000, tmp_path) == 4.0
    assert parse_seconds("x.pdf", None, tmp_path) == 1.5  # text not read: the guess
    assert parse_seconds("x.docx", 5_000, tmp_path) == PARSE_S[".docx"]


def test_old_parse_times_weigh_as_at_most_two_million_characters(tmp_path):
    remember_parses(tmp_path, {".pdf": (800.0, 4_000_000)})  # 5,000 characters/s on an older machine
    remember_parses(tmp_path, {".pdf": (100.0, 200_000)})  # 2,000 characters/s now
    # the old totals are halved to weigh 2,000,000 characters: (400 + 100) s for 2,200,000 characters
    assert PARSE_MEMORY_CHARACTERS == 2_000_000
    kept = json.loads((tmp_path / RATES_FILE).read_text(encoding="utf-8"))[PARSE_KEY][".pdf"]
    assert kept == [500.0, 2_200_000]
    assert parse_rate(tmp_path, ".pdf") == pytest.approx(4400.0)


def test_the_estimate_counts_overlapped_stages_as_the_slower_one():
    # 60 worker-seconds of parsing on 2 workers is 30 s of reading; loading 5 s then embedding 20 s
    plan = IngestEstimate(files=10, chunks=400, parse_s=60.0, embed_s=20.0, load_s=5.0, workers=2)
    assert plan.reading_s == 30.0
    assert plan.seconds == max(30.0, 5.0 + 20.0) == 30.0
    # embedding the slower: 5 + 40 = 45 s against 30 s of reading
    assert IngestEstimate(files=10, chunks=800, parse_s=60.0, embed_s=40.0, load_s=5.0, workers=2).seconds == 45.0
    # one after the other (nothing read beside the encoder): the sum, 30 + 5 + 20
    assert IngestEstimate(10, 400, 60.0, 20.0, 5.0, 2, overlapped=False).seconds == 55.0
