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
        page.screenshot(path=str(ARTIFACTS / f"routes-local-{spec.url_path}.png"))
    finally:
        page.close()
