"""The app's pages: where each lives, its title and icon, and which sections group them.

A page whose file does not exist yet is left out, so the app runs while pages are being built.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PageSpec:
    path: str  # relative to the project folder, where app.py lives
    title: str
    icon: str
    section: str

    @property
    def exists(self) -> bool:
        return (PROJECT_DIR / self.path).is_file()


WELCOME = PageSpec("pages/welcome.py", "Welcome", ":material/home:", "Start")
TOUR = PageSpec("pages/tour.py", "Guided tour", ":material/tour:", "Start")
DOCUMENTS = PageSpec("pages/documents.py", "Documents", ":material/description:", "Build")
CHUNKING_LAB = PageSpec("pages/chunking_lab.py", "Chunking lab", ":material/content_cut:", "Build")
RETRIEVAL_LAB = PageSpec("pages/retrieval_lab.py", "Retrieval lab", ":material/manage_search:", "Search")
EMBEDDING_MAP = PageSpec("pages/embedding_map.py", "Embedding map", ":material/scatter_plot:", "Search")
EVALUATION = PageSpec("pages/evaluation.py", "Evaluation", ":material/analytics:", "Measure")
PRESETS_MCP = PageSpec("pages/presets_mcp.py", "Presets & MCP", ":material/tune:", "Share")

ALL_PAGES = (WELCOME, TOUR, DOCUMENTS, CHUNKING_LAB, RETRIEVAL_LAB, EMBEDDING_MAP, EVALUATION, PRESETS_MCP)


def available_pages() -> list[PageSpec]:
    return [page for page in ALL_PAGES if page.exists]


def default_page(has_collections: bool) -> PageSpec:
    """The Retrieval lab once there is something to search, the welcome page before that."""
    if has_collections and RETRIEVAL_LAB.exists:
        return RETRIEVAL_LAB
    return WELCOME


def run_through_router() -> None:
    """Call first in every page file: make sure the page runs inside ``app.py``'s navigation.

    Streamlit still supports the legacy "pages/ folder" mode and picks it on a fresh server
    because ``pages/`` exists; a deep link such as ``/documents`` as the server's first request
    then runs the page file alone, without the router and the sidebar. ``st.navigation``
    switches that mode off, but only once ``app.py`` has run. So if a page finds the mode still
    on, it switches it off and reruns, which runs ``app.py`` and lands on the same page.
    """
    import streamlit as st
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
