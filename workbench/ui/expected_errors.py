"""The errors a person can cause or fix (an unknown preset, a bad configuration value, a busy
catalog, a write refused in a read-only session), shown as a message that names the fix rather
than a traceback: around every page by the router, and inside a fragment, which Streamlit runs
without the router around it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import streamlit as st

from store.catalog import CatalogBusyError
from workbench.config import ConfigError
from workbench.evaluation.golden import GoldenSetError
from workbench.facade import ReadOnlyError
from workbench.retrieval.pipeline import QueryError
from workbench.service import NotFoundError
from workbench.text import error_message
from workbench.ui.text import md_escape

EXPECTED_ERRORS = (NotFoundError, ConfigError, GoldenSetError, QueryError, CatalogBusyError, ReadOnlyError)


@contextlib.contextmanager
def shown_as_messages() -> Iterator[None]:
    """An expected error raised inside becomes an error message where it happened."""
    try:
        yield
    except EXPECTED_ERRORS as error:
        st.error(md_escape(error_message(error)))
