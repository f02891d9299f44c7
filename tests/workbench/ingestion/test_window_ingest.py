"""Chunks over the embedding model's window, end to end with the bundled model: a Chinese PDF is
left whole (all-MiniLM-L6-v2 does not read Chinese, issue 48) and the report says why, and
`ingest` and the collection's report count them (and by how much) when the user's settings make
some."""

from __future__ import annotations

import pytest

from tests.workbench.ingestion.chinese_handbook import FILE_NAME, build_pdf
from workbench.cli import main
from workbench.config import WorkbenchConfig
from workbench.ingestion.ingest import Source

#: two chapters of the handbook make a chunk of about 450 tokens: over MiniLM's 256
LARGE = ["chunking.size=2000", "chunking.overlap=0"]


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    from workbench.service import Workbench

    root = tmp_path_factory.mktemp("window-pdf")
    pdf = build_pdf(root / FILE_NAME)
    bench = Workbench(root / "home")
    config = WorkbenchConfig().with_overrides(LARGE)
    report = bench.ingest("handbook", [Source.from_path(pdf)], config)
    assert not report.failures, report.summary()
    return bench, pdf, report


def test_a_chinese_pdf_is_not_cut_for_a_model_that_does_not_read_chinese(handbook):
    bench, _pdf, report = handbook
    overflow = report.overflow()
    assert overflow is not None and overflow.window == 256
    # 16 chapters of about 220 characters, a token each: two 2000-character chunks, far over 256
    # tokens, left whole: all-MiniLM-L6-v2 ranks Chinese at random, cut or not, and BM25 reads them whole
    assert overflow.over == overflow.chunks == report.outcomes[0].chunks == 2
    assert "in a language the model does not read" in report.window_note()
    stored = bench.chunks_over_window("handbook", bench.config_for("handbook"))
    assert stored is not None and stored.overflow.over == 2 and stored.overflow.chunks == overflow.chunks


def test_the_same_size_without_fitting_is_reported_by_ingest_and_by_the_collection(handbook, tmp_path, capsys):
    bench, pdf, _report = handbook
    home = tmp_path / "home"
    sets = [item for key in [*LARGE, "chunking.fit_window=false"] for item in ("--set", key)]
    code = main(["ingest", str(pdf), "--home", str(home), "--collection", "unfitted", *sets])
    out = capsys.readouterr().out
    assert code == 0
    over_line = next(line for line in out.splitlines() if line.startswith("  over the window: "))
    assert "chunks are longer than all-MiniLM-L6-v2's 256-token window, by " in over_line
    assert "chunking.fit_window=false keeps chunks at chunking.size" in over_line
    assert f"    {FILE_NAME}: " in out

    from workbench.service import Workbench

    unfitted = Workbench(home)
    found = unfitted.chunks_over_window("unfitted", unfitted.config_for("unfitted"))
    assert found is not None
    (document,) = unfitted.documents("unfitted")
    rows = unfitted.chunks_of(document.id, unfitted.config_for("unfitted"))
    counts = [row[9] for row in rows]
    # every chunk over 256 is listed with its excess, computed from its own token count
    assert sorted(found.by_document[document.id]) == sorted(c - 256 for c in counts if c > 256)
    # about 3500 characters in two 2000-character chunks: both far over 256 tokens
    assert found.overflow.over == len(rows) == 2 and min(found.overflow.excess) > 1000
    low, high = sorted(found.overflow.excess)
    assert f"by {low} to {high} tokens" in over_line
    assert f"{found.overflow.over} of {len(rows)} chunks over the window" in out
