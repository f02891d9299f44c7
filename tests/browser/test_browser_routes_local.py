"""A local app opened first at each page's address by a new visitor, the first of them the fresh
server's first request: the real page, with its sidebar pickers (``tests/browser/routes.py`` says
why one server is enough)."""

from __future__ import annotations

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, NEEDS_CHROMIUM, serve
from tests.browser.routes import PAGES, expect_real_page

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]


@pytest.fixture(scope="module")
def local_url(routes_home):
    with serve(routes_home, "streamlit-routes-local.log") as url:
        yield url


@pytest.mark.parametrize("spec", PAGES, ids=[spec.url_path for spec in PAGES])
def test_a_local_app_opened_first_at_a_page_shows_that_page_with_its_pickers(browser, local_url, spec):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})  # a new context: a new visitor
    try:
        page.goto(f"{local_url}/{spec.url_path}")
        expect_real_page(page, spec)
        assert page.url == f"{local_url}/{spec.url_path}"
        page.screenshot(path=str(ARTIFACTS / f"routes-local-{spec.url_path}.png"))
    finally:
        page.close()


def test_the_root_opens_the_retrieval_lab_under_its_own_address(browser, local_url):
    from playwright.sync_api import expect

    from workbench.ui.pages import RETRIEVAL_LAB

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(local_url)
        expect_real_page(page, RETRIEVAL_LAB)
        expect(page).to_have_url(f"{local_url}/{RETRIEVAL_LAB.url_path}")
    finally:
        page.close()
