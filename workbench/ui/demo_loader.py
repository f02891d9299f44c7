"""Loading the bundled demo from the app, with per-file progress in an ``st.status``."""

from __future__ import annotations

import streamlit as st

from workbench import demo
from workbench.config import WorkbenchConfig
from workbench.embedding.calibration import calibrate_in_background
from workbench.text import count
from workbench.ui import session
from workbench.ui.ingest_progress import IngestProgressView
from workbench.ui.text import md_escape


def load_demo_with_progress() -> None:
    """Ingest the demo here and now, then rerun with the demo collection selected.

    ``workbench.demo.DEMO_DIR`` is read at call time, so tests can point it at a smaller demo."""
    try:
        paths = demo.demo_documents(demo.DEMO_DIR)
    except demo.DemoMissingError as error:
        st.error(md_escape(error))
        return
    with st.status(f"Loading the demo: {len(paths)} documents into collection “demo”", expanded=True) as status:
        # a click reruns the page and so stops this load at its next progress update; what it
        # finished stays, and "Load the demo" (still offered) finishes it later
        st.button(
            "Cancel",
            key="demo_cancel_load",
            icon=":material/cancel:",
            help="Stop after the files in flight; loading the demo again finishes it",
        )
        view = IngestProgressView([path.name for path in paths])
        try:
            loaded = demo.load_demo(session.workbench(), progress=view, demo_dir=demo.DEMO_DIR)
        except Exception as error:  # shown in full: the user needs the reason to fix it
            status.update(label="Loading the demo failed", state="error")
            st.error(
                f"Could not load the demo: {md_escape(f'{type(error).__name__}: {error}')}. "
                "Check that the home folder is writable and not locked by another process, then try again."
            )
            return
        status.update(label=md_escape(loaded.report.summary()), state="complete", expanded=False)
    # the demo ran on torch fp32 without measuring the other runtimes; measure them now, quietly,
    # so the collection the user creates next picks its runtime at once (workbench.embedding.calibration)
    calibrate_in_background(session.home_path(), WorkbenchConfig().embedding)
    failures = loaded.report.failures
    queries = f"{loaded.golden_queries} {'query' if loaded.golden_queries == 1 else 'queries'}"
    session.flash(
        "success" if not failures else "warning",
        f"Loaded the demo: {len(loaded.report.outcomes) - len(failures)} documents in "
        f"collection **{demo.DEMO_COLLECTION}** and the golden set **demo** ({queries}). "
        "Start with the **Guided tour**, or ask a question in the **Retrieval lab**."
        + (f" {count(len(failures), 'file')} failed: see the Documents page." if failures else ""),
    )
    session.request_collection(demo.DEMO_COLLECTION)
    st.rerun()
