"""Every page's address as the first request of a new visitor: what the two route tests share
(``test_browser_routes_shared.py``, ``test_browser_routes_local.py``, one file each so that the test
workers run them side by side).

Streamlit serves the scripts of a folder named ``pages`` beside ``app.py`` on its own until
``app.py`` has run once; on a fresh server, a page's address as the first request ran that page
without ``app.py``, so without the sign-in gate and the sidebar (issue 39, docs/SECURITY.md). The
page scripts now live in ``app_pages/``, which only ``app.py``'s navigation registers, after its
gate, so that route no longer exists: ``tests/app/test_app_routes.py`` shows Streamlit discovers no
page script of its own and that every script is registered behind the gate (and keeps a page added
later there). One fresh server per mode is therefore enough. Its first request is the Evaluation
page, the address that was open; every other page is then opened first by a new visitor (a new
browser context, so a new session):

- shared (``WORKBENCH_SHARE=1``): without the token the page's address shows the sign-in box and
  nothing else, no collection or document name and no page control; with the token in the URL it
  shows the real page, with its sidebar pickers;
- local: the page's address shows the real page, with its sidebar pickers.
"""

from __future__ import annotations

import re

from tests.browser.app_server import STEP_S
from workbench.ui.pages import EVALUATION, WELCOME, PageSpec, available_pages

TOKEN = "routes-token-8c1e4b7a2f9d3e6b"
#: the Evaluation page first: it is each fresh server's first request
PAGES = sorted(available_pages(), key=lambda spec: spec != EVALUATION)
#: what a page draws as its title: the welcome page's is the app's name
TITLES = {spec.url_path: ("RAG Workbench" if spec == WELCOME else spec.title) for spec in PAGES}


def expect_real_page(page, spec: PageSpec) -> None:
    """The page as the app's navigation draws it: its title, and the sidebar with its pickers."""
    from playwright.sync_api import expect

    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.locator(".st-key-collection input")).to_have_value("demo", timeout=STEP_S * 1000)
    expect(sidebar.locator(".st-key-preset")).to_be_visible(timeout=STEP_S * 1000)
    expect(page.get_by_test_id("stMain").locator("h1").first).to_contain_text(
        TITLES[spec.url_path], timeout=STEP_S * 1000
    )
    # the app's own navigation (sections and titles), not Streamlit's list of file names, with this
    # page the current one, under its own address
    expect(sidebar.get_by_test_id("stSidebarNav")).to_contain_text("Measure")
    active = sidebar.locator('[data-testid="stSidebarNavLink"][aria-current="page"]')
    expect(active).to_have_text(re.compile(re.escape(spec.title) + "$"))
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.get_by_label("Access token")).to_have_count(0)
