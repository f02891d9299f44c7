"""A local app opened first at each page's address, on a server of its own: the real page, with its
sidebar pickers (``tests/browser/routes.py`` says why)."""

from __future__ import annotations

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, NEEDS_CHROMIUM, serve
from tests.browser.routes import PAGES, expect_real_page

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]


@pytest.mark.parametrize("spec", PAGES, ids=[spec.url_path for spec in PAGES])
def test_a_local_app_opened_first_at_a_page_shows_that_page_with_its_pickers(browser, routes_home, spec):
    with serve(routes_home, f"streamlit-routes-local-{spec.url_path}.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(f"{url}/{spec.url_path}")  # the server's first request
            expect_real_page(page, spec)
            page.screenshot(path=str(ARTIFACTS / f"routes-local-{spec.url_path}.png"))
        finally:
            page.close()
