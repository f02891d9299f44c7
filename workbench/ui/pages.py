"""The app's pages: where each lives, its address, title and icon, and which sections group them.

The page scripts live in ``app_pages/``, a folder Streamlit does not look in. Streamlit serves
every ``*.py`` of a folder named ``pages`` beside ``app.py`` on its own (its legacy multipage app)
until ``app.py`` has called ``st.navigation`` once, so on a fresh server a page's address as the
first request ran that page without ``app.py`` and its sign-in gate (docs/SECURITY.md). Anywhere
else a page script runs only when ``navigate`` registers it, and ``app.py`` calls that after
``gate()``; ``tests/app/test_app_routes.py`` fails on a page script the gate does not cover.

Every page has a stable ``url_path``: ``http://host:port/retrieval_lab`` opens the Retrieval lab
with the sidebar, whatever the home holds. The root URL is a hidden start page that switches to
the page to begin with: the Retrieval lab once there is something to search, the welcome page
before that. (Streamlit serves its default page only at the root, so a visible default page could
not be opened by its own address.)

A page whose file does not exist yet is left out, so the app runs while pages are being built.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
#: the page scripts' folder, beside app.py; never ``pages``, the folder Streamlit serves on its own
PAGES_FOLDER = "app_pages"
START_TITLE = "RAG Workbench"
START_URL_PATH = "start"
#: the tab's icon, a file served with the app: a ``:material/...:`` page icon makes every page fetch
#: its picture from a font host, which fails (and logs an error) offline
FAVICON = Path(__file__).with_name("favicon.svg")


@dataclass(frozen=True)
class PageSpec:
    path: str  # relative to the project folder, where app.py lives
    title: str
    icon: str
    section: str
    #: the page's address below the app's root: the file's name without ``.py``
    url_path: str

    @property
    def exists(self) -> bool:
        return (PROJECT_DIR / self.path).is_file()


WELCOME = PageSpec(f"{PAGES_FOLDER}/welcome.py", "Welcome", ":material/home:", "Start", "welcome")
TOUR = PageSpec(f"{PAGES_FOLDER}/tour.py", "Guided tour", ":material/tour:", "Start", "tour")
DOCUMENTS = PageSpec(f"{PAGES_FOLDER}/documents.py", "Documents", ":material/description:", "Build", "documents")
CHUNKING_LAB = PageSpec(
    f"{PAGES_FOLDER}/chunking_lab.py", "Chunking lab", ":material/content_cut:", "Build", "chunking_lab"
)
RETRIEVAL_LAB = PageSpec(
    f"{PAGES_FOLDER}/retrieval_lab.py", "Retrieval lab", ":material/manage_search:", "Search", "retrieval_lab"
)
EMBEDDING_MAP = PageSpec(
    f"{PAGES_FOLDER}/embedding_map.py", "Embedding map", ":material/scatter_plot:", "Search", "embedding_map"
)
EVALUATION = PageSpec(f"{PAGES_FOLDER}/evaluation.py", "Evaluation", ":material/analytics:", "Measure", "evaluation")
JUDGING = PageSpec(f"{PAGES_FOLDER}/judging.py", "Judging", ":material/gavel:", "Measure", "judging")
PRESETS_MCP = PageSpec(f"{PAGES_FOLDER}/presets_mcp.py", "Presets & MCP", ":material/tune:", "Share", "presets_mcp")
MODELS = PageSpec(f"{PAGES_FOLDER}/models.py", "Models", ":material/model_training:", "Build", "models")

ALL_PAGES = (
    WELCOME,
    TOUR,
    DOCUMENTS,
    MODELS,
    CHUNKING_LAB,
    RETRIEVAL_LAB,
    EMBEDDING_MAP,
    EVALUATION,
    JUDGING,
    PRESETS_MCP,
)


def available_pages() -> list[PageSpec]:
    return [page for page in ALL_PAGES if page.exists]


def default_page(has_collections: bool) -> PageSpec:
    """The Retrieval lab once there is something to search, the welcome page before that."""
    if has_collections and RETRIEVAL_LAB.exists:
        return RETRIEVAL_LAB
    return WELCOME


def navigate(has_collections: bool):
    """Register the pages with ``st.navigation`` and return the one to run.

    At the root URL this switches to ``default_page`` (a rerun that shows that page under its
    own address), so call it before drawing anything."""
    import streamlit as st

    pages = {
        spec: st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path) for spec in available_pages()
    }
    start = st.Page(_start, title=START_TITLE, url_path=START_URL_PATH, default=True, visibility="hidden")
    sections: dict[str, list] = {}
    for spec, page in pages.items():
        sections.setdefault(spec.section, []).append(page)
    first_section = next(iter(sections), "Start")
    sections[first_section] = [start, *sections.get(first_section, [])]
    page = st.navigation(sections)
    if page is start:
        st.switch_page(pages[default_page(has_collections)])
    return page


def _start() -> None:
    """The root URL's page; ``navigate`` switches away from it before it runs."""
