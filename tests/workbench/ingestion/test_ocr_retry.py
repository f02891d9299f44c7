"""``sync --ocr`` (issue 48): the pictures an ingest skipped for time are read later, from the kept
originals, and only their documents are parsed again."""

from __future__ import annotations

import pytest

from tests.conftest import FAKE_MODEL
from tests.workbench.ingestion.parsers.pdf.test_pdf_image_text import ENGLISH, LARGE, around, picture_page
from tests.workbench.ingestion.test_images import needs_ocr
from workbench.cli import main
from workbench.ingestion.parsers.image_notes import notes_of


@pytest.fixture
def folder(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    data = picture_page(around("Before the figure.", "Figure 1.", "After the figure."), [(ENGLISH, LARGE)])
    (files / "figure.pdf").write_bytes(data)
    (files / "notes.md").write_text("# Notes\n\nNothing in pictures here.\n", encoding="utf-8")
    return files


@needs_ocr
def test_sync_ocr_reads_the_pictures_skipped_for_time_and_touches_no_other_document(
    tmp_path, capsys, fake_embedder, folder
):
    from workbench.service import Workbench

    home = str(tmp_path / "home")
    model = ["--set", f"embedding.model={FAKE_MODEL}"]
    # a loaded machine, as it were: a tenth of a second for the picture
    assert main(["ingest", str(folder), "--home", home, "-c", "figs", *model,
                 "--set", "ingest.ocr_budget_s=0.1"]) == 0  # fmt: skip
    bench = Workbench(tmp_path / "home")
    before = {doc.source: doc for doc in bench.documents("figs")}
    (skipped,) = notes_of(before["figure.pdf"].parse_report)
    assert skipped.retryable and skipped.skipped.startswith("OCR took longer than 0.1 s on this image")
    capsys.readouterr()

    assert main(["sync", "-c", "figs", "--home", home, "--ocr", *model]) == 0
    out = capsys.readouterr().out
    assert "figs: OCR of skipped pictures: 1 of 1 picture read now, in 1 document parsed again" in out
    bench = Workbench(tmp_path / "home")
    after = {doc.source: doc for doc in bench.documents("figs")}
    (read,) = notes_of(after["figure.pdf"].parse_report)
    assert read.read and read.characters > 50
    assert after["notes.md"].id == before["notes.md"].id  # not parsed again: the same row
    assert after["figure.pdf"].id != before["figure.pdf"].id
    config = bench.config_for("figs", None, ["retrieval.mode=bm25"])
    hits = bench.query("reranks the candidates", "figs", config).final_chunks()
    assert hits and "> Text in the image (OCR):" in hits[0].text

    # nothing left to read: said so, nothing parsed
    assert main(["sync", "-c", "figs", "--home", home, "--ocr", *model]) == 0
    assert "figs: no picture is waiting for OCR" in capsys.readouterr().out
    assert {doc.source: doc.id for doc in Workbench(tmp_path / "home").documents("figs")} == {
        source: doc.id for source, doc in after.items()
    }
