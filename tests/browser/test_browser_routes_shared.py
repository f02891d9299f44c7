"""A shared app opened first at each page's address by a new visitor, the first of them the fresh
server's first request: the sign-in box and nothing else without the token, the real page with it
(``tests/browser/routes.py`` says why one server is enough)."""

from __future__ import annotations

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, NEEDS_CHROMIUM, STEP_S, serve
from tests.browser.routes import PAGES, TOKEN, expect_real_page

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

LOG = "streamlit-routes-shared.log"


@pytest.fixture(scope="module")
def shared_url(routes_home):
    with serve(routes_home, LOG, {"WORKBENCH_SHARE": "1", "WORKBENCH_TOKEN": TOKEN}) as url:
        yield url
    assert TOKEN not in (ARTIFACTS / LOG).read_text()


@pytest.mark.parametrize("spec", PAGES, ids=[spec.url_path for spec in PAGES])
def test_a_shared_app_opened_first_at_a_page_shows_only_the_sign_in_box(browser, shared_url, routes_home_names, spec):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 1000})  # a new context: a new visitor
    try:
        page.goto(f"{shared_url}/{spec.url_path}")
        expect(page.get_by_label("Access token")).to_be_visible(timeout=STEP_S * 1000)
        page.wait_for_timeout(500)  # let any late element arrive before reading the DOM
        dom = page.content()
        assert not [name for name in routes_home_names if name in dom], spec.url_path
        assert page.get_by_test_id("stSidebar").count() == 0
        main = page.get_by_test_id("stMain")
        for control in ("stSelectbox", "stTabs", "stFileUploader", "stDataFrame", "stExpander", "stSlider"):
            assert main.get_by_test_id(control).count() == 0, (spec.url_path, control)
        assert [button.inner_text() for button in main.get_by_test_id("stButton").all()] == ["Sign in"]
        assert main.get_by_test_id("stTextInput").count() == 1  # the token's field, and no other
        page.screenshot(path=str(ARTIFACTS / f"routes-shared-{spec.url_path}.png"))
    finally:
        page.close()

    signed_in = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        signed_in.goto(f"{shared_url}/{spec.url_path}?token={TOKEN}")
        expect_real_page(signed_in, spec)
        expect(signed_in).to_have_url(f"{shared_url}/{spec.url_path}")  # the token left the address bar
    finally:
        signed_in.close()
