"""The studies running in this app server: one per home and collection, whichever part of the Tune
tab started it ("Tune this collection" or the form below it).

Both parts start their study here, so a study started by either blocks the other (two copies of
this registry once let both run a study on one collection at once), and a refused start names
the study that runs and where to stop it. Each part draws only the study it started: the form's
study drawn again inside the flow doubled its progress and verdict. The background study itself
is a ``workbench.tuning.job.TuneJob``; ``job_panel`` polls it every ``POLL_S`` seconds while it runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from workbench.ingestion.estimates import describe_duration
from workbench.tuning.job import JobView, TuneJob
from workbench.tuning.study import StudyError
from workbench.tuning.tune import TuneReport, TuneRequest
from workbench.ui import session
from workbench.ui.polling import polling_fragment
from workbench.ui.text import md_escape

#: seconds between redraws of a running study's progress
POLL_S = 1.0
#: where a study was started from, as the refusal names it
FLOW = "Tune this collection"
FORM = "Or choose everything yourself"


@dataclass(frozen=True)
class Started:
    job: TuneJob
    origin: str  # FLOW or FORM

    @property
    def running(self) -> bool:
        return self.job.view().running

    def describe(self) -> str:
        request = self.job.request
        return f"study {request.study_name()} (golden set {request.golden.name!r}, started from “{self.origin}”)"


class StudyRegistry:
    """The last study started on each collection, by key; at most one of them runs per key."""

    def __init__(self) -> None:
        self._started: dict[tuple[str, str], Started] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> Started | None:
        with self._lock:
            return self._started.get(key)

    def start(self, key: tuple[str, str], job: TuneJob, origin: str) -> None:
        """Start ``job`` unless a study runs on the key's collection already (refused, naming it)."""
        with self._lock:  # the check and the start as one step: two sessions pressing at once get one study
            now = self._started.get(key)
            if now is not None and now.running:
                raise StudyError(
                    f"{now.describe()} is running on collection {key[1]!r}; wait for it to finish or press "
                    f"Stop under “{now.origin}”, then start again"
                )
            job.start()
            self._started[key] = Started(job, origin)


@st.cache_resource(show_spinner=False)
def _registry() -> StudyRegistry:
    return StudyRegistry()


def _key(collection: str) -> tuple[str, str]:
    return str(session.home_path()), collection


def current(collection: str) -> Started | None:
    """The last study started on ``collection`` in this server (running or over), from either part."""
    return _registry().get(_key(collection))


def started_from(collection: str, origin: str) -> TuneJob | None:
    """The last study ``origin`` started on ``collection``: None when the last one was the other part's."""
    now = current(collection)
    return now.job if now is not None and now.origin == origin else None


def start_job(collection: str, request: TuneRequest, origin: str) -> None:
    _registry().start(_key(collection), TuneJob(session.workbench(), request), origin)


# -- the running study's panel, the same in both parts ---------------------------------------------------


def job_panel(job: TuneJob, *, key: str, results: Callable[[TuneReport], None], live_chart: bool = False) -> None:
    """Progress (with Stop) while ``job`` runs, then its error or ``results``; ``key`` prefixes the
    widget keys, ``live_chart`` adds the running study's Pareto chart."""
    running = job.view().running

    @polling_fragment(POLL_S if running else None)
    def panel() -> bool:
        view = job.view()
        if running and not view.running:
            st.rerun()  # over: draw the verdict and the page again, without polling
        if view.running:
            _progress(job, view, key, live_chart)
        elif view.error:
            st.error(f"The study failed: {md_escape(view.error)}")
        elif view.report is not None:
            results(view.report)
        return view.running

    panel()


def _progress(job: TuneJob, view: JobView, key: str, live_chart: bool) -> None:
    best = view.best
    shown = f"best {job.request.metric} {best.metric:.4f} (p95 {best.p95_ms:.1f} ms)" if best else "no trial yet"
    target = f"/{view.target}" if view.target else ""
    left = (
        f", about {describe_duration(view.time_left_s)} left"
        + (f" ({describe_duration(view.embed_left_s)} of it embedding)" if view.embed_left_s else "")
        if view.time_left_s is not None
        else ""
    )
    part = f"{view.part}, study {view.index} of {view.studies}: " if view.part else "Starting: "
    st.progress(view.fraction, text=md_escape(f"{part}trial {view.done}{target}, {shown}{left}"))
    for line in view.estimate:
        st.caption(md_escape(line))
    if view.messages:
        st.caption(md_escape(view.messages[-1]))
    if view.resumed:
        st.caption("Resuming the study these settings started: its completed trials are kept.")
    if view.stop_requested:
        st.caption("Stopping after the query in flight…")
    elif st.button("Stop", key=f"{key}_stop", icon=":material/stop:"):
        job.stop()
    if live_chart and view.trials:
        from workbench.tuning.charts import pareto_chart

        st.plotly_chart(pareto_chart(view.trials, job.request.metric, best), key=f"{key}_pareto_live")
