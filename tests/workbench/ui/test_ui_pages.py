"""The page registry: only pages whose files exist, the Retrieval lab as default once there is data."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.ui import pages


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / pages.PAGES_FOLDER).mkdir()
    monkeypatch.setattr(pages, "PROJECT_DIR", tmp_path)
    return tmp_path


def test_only_existing_page_files_are_registered(project: Path):
    for name in ("welcome.py", "documents.py"):
        (project / pages.PAGES_FOLDER / name).write_text("")
    assert pages.available_pages() == [pages.WELCOME, pages.DOCUMENTS]


def test_the_retrieval_lab_is_the_default_once_a_collection_exists(project: Path):
    assert pages.default_page(has_collections=True) == pages.WELCOME  # its file is missing
    (project / pages.PAGES_FOLDER / "retrieval_lab.py").write_text("")
    assert pages.default_page(has_collections=True) == pages.RETRIEVAL_LAB
    assert pages.default_page(has_collections=False) == pages.WELCOME


def test_every_page_has_its_own_stable_address():
    addresses = [page.url_path for page in pages.ALL_PAGES]
    assert len(set(addresses)) == len(addresses)
    assert pages.START_URL_PATH not in addresses
    for page in pages.ALL_PAGES:
        # the address is the script's name, so a link, a bookmark and the file agree
        assert page.url_path == Path(page.path).stem
    assert pages.RETRIEVAL_LAB.url_path == "retrieval_lab"
