"""The PDF sets printed once per test session (the held-out Chromium set, and the users' set printed by
reportlab), each parsed as ingestion parses it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.workbench.ingestion.pdf_corpus_chromium import HeldOutDocument, available, write_corpus
from tests.workbench.ingestion.pdf_corpus_mixed import MixedDocument
from tests.workbench.ingestion.pdf_corpus_mixed import available as mixed_available
from tests.workbench.ingestion.pdf_corpus_mixed import write_corpus as write_mixed
from workbench.config import IngestConfig
from workbench.ingestion.parsers import ParsedDocument, parse_bytes


@dataclass(frozen=True)
class HeldOutPdf:
    document: HeldOutDocument
    data: bytes
    parsed: ParsedDocument

    @property
    def lines(self) -> list[str]:
        return self.parsed.markdown.split("\n")


@pytest.fixture(scope="session")
def chromium_set(tmp_path_factory: pytest.TempPathFactory) -> dict[str, HeldOutPdf]:
    if not available():
        pytest.skip("needs /usr/bin/chromium, playwright and fonts-wqy-microhei (.ci/run installs them)")
    written = write_corpus(tmp_path_factory.mktemp("pdf-corpus-chromium"))
    pdfs = {}
    for name, (path, document) in written.items():
        data = path.read_bytes()
        pdfs[name] = HeldOutPdf(document, data, parse_bytes(data, name))
    return pdfs


@dataclass(frozen=True)
class MixedPdf:
    document: MixedDocument
    data: bytes
    parsed: ParsedDocument

    @property
    def lines(self) -> list[str]:
        return self.parsed.markdown.split("\n")


def _printed_mixed_set(folder, producer: str) -> dict[str, MixedPdf]:
    missing = mixed_available(producer)
    if missing:
        pytest.skip(f"needs {missing}")
    pdfs = {}
    no_pictures = IngestConfig(
        max_ocr_images=0
    )  # the layout is tested here; the OCR of pictures in test_pdf_image_text
    for name, (path, document) in write_mixed(folder, producer).items():
        data = path.read_bytes()
        pdfs[name] = MixedPdf(document, data, parse_bytes(data, name, limits=no_pictures))
    return pdfs


@pytest.fixture(scope="session")
def mixed_set(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MixedPdf]:
    """The users' set printed by reportlab (about a second), parsed as ingestion parses it, but for
    the OCR of pictures."""
    return _printed_mixed_set(tmp_path_factory.mktemp("pdf-corpus-mixed"), "reportlab")


@pytest.fixture(scope="session")
def mixed_chromium_set(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MixedPdf]:
    """The users' set printed by Chromium (one Chromium, a few seconds), parsed as ingestion parses it."""
    return _printed_mixed_set(tmp_path_factory.mktemp("pdf-corpus-mixed-chromium"), "chromium")


@pytest.fixture(scope="session")
def seed_set(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MixedPdf]:
    """Issue 49's seed-like set (``pdf_corpus_seed``: one Chromium, a few seconds), parsed as
    ingestion parses it, but for the OCR of pictures."""
    from tests.workbench.ingestion.pdf_corpus_seed import write_seed

    missing = mixed_available("chromium")
    if missing:
        pytest.skip(f"needs {missing}")
    no_pictures = IngestConfig(max_ocr_images=0)
    pdfs = {}
    for name, (path, document) in write_seed(tmp_path_factory.mktemp("pdf-corpus-seed")).items():
        data = path.read_bytes()
        pdfs[name] = MixedPdf(document, data, parse_bytes(data, name, limits=no_pictures))
    return pdfs
