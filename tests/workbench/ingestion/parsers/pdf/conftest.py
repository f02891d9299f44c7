"""The held-out Chromium PDF set, printed once per test session and parsed as ingestion parses it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.workbench.ingestion.pdf_corpus_chromium import HeldOutDocument, available, write_corpus
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
