"""The studies running in this app server, one per home and collection: the Tune tab's form and its
"Tune this collection" flow start and show them from the same place, so a study started by either
is the one both see, and a second cannot start beside it."""

from __future__ import annotations

import threading

import streamlit as st

from workbench.tuning.job import TuneJob
from workbench.tuning.study import StudyError
from workbench.tuning.tune import TuneRequest
from workbench.ui import session

#: seconds between redraws of a running study's progress
POLL_S = 1.0


@st.cache_resource(show_spinner=False)
def _jobs() -> tuple[dict[tuple[str, str], TuneJob], threading.Lock]:
    return {}, threading.Lock()


def current_job(collection: str) -> TuneJob | None:
    jobs, lock = _jobs()
    with lock:
        return jobs.get((str(session.home_path()), collection))


def start_job(collection: str, request: TuneRequest) -> None:
    jobs, lock = _jobs()
    with lock:
        running = jobs.get((str(session.home_path()), collection))
        if running is not None and running.view().running:
            raise StudyError("a study is already running on this collection; wait for it or stop it")
        job = TuneJob(session.workbench(), request)
        job.start()
        jobs[(str(session.home_path()), collection)] = job
