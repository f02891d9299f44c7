"""Loading the bundled demo from the app, with per-file progress in an ``st.status``."""

from __future__ import annotations

import streamlit as st

from workbench.demo import DEMO_COLLECTION, DemoMissingError, demo_documents, load_demo
from workbench.ui import session
from workbench.ui.ingest_progress import IngestProgressView
from workbench.ui.text import md_escape


def load_demo_with_progress() -> None:
    """Ingest the demo here and now, then rerun with the demo collection selected."""
    try:
        paths = demo_documents()
    except DemoMissingError as error:
        st.error(md_escape(error))
        return
    with st.status(f"Loading the demo: {len(paths)} documents into collection “demo”", expanded=True) as status:
        view = IngestProgressView([path.name for path in paths])
        try:
            loaded = load_demo(session.workbench(), progress=view)
        except Exception as error:  # shown in full: the user needs the reason to fix it
            status.update(label="Loading the demo failed", state="error")
            st.error(f"Could not load the demo: {md_escape(f'{type(error).__name__}: {error}')}. "
                     "Check that the home folder is writable and not locked by another process, then try again.")
            return
        status.update(label=md_escape(loaded.report.summary()), state="complete", expanded=False)
    failures = loaded.report.failures
    session.flash(
        "success" if not failures else "warning",
        f"Loaded the demo: {loaded.report.count('ingested') + loaded.report.count('replaced')} documents in "
        f"collection **{DEMO_COLLECTION}** and the golden set **demo** ({loaded.golden_queries} queries). "
        "Start with the **Guided tour**, or ask a question in the **Retrieval lab**."
        + (f" {len(failures)} files failed: see the Documents page." if failures else ""),
    )
    session.request_collection(DEMO_COLLECTION)
    st.rerun()
