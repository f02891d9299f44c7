"""The middle of an ingest: parse outcomes in, chunks prepared, groups embedded and handed over.

Parse workers (``workers``) read files while this thread chunks what they finished and encodes
what the embedding cache lacks in large groups; a writer thread (``writer``) commits the vectors
and then the documents between encode calls, never beside one. Ready Markdown (a BEIR corpus) is
chunked here, between encode calls, rather than sent through the workers.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path, PurePath

import numpy as np

from store.catalog import Catalog, KeptOpen
from store.embedding_cache import cached_hashes
from workbench.chunking.preparation import finish_chunks, fitted_to_window, split_document
from workbench.config import IngestConfig
from workbench.embedding import Embedder, get_embedder
from workbench.ingestion.estimates import remember_load, remember_parses, remember_rate
from workbench.ingestion.sources import MB, IngestReport, Progress, ProgressCallback, excess_tokens
from workbench.ingestion.workers import ParseOutcome, ParsePool, ParseTask, run_task
from workbench.ingestion.writer import CatalogWriter, PendingDocument
from workbench.layout import Layout
from workbench.llm.client import LlmClient

#: new texts gathered before one encode call: big batches sort by length and pad little
EMBED_GROUP = 1024
#: the first encode call starts at this many texts: the encoder is the whole cost, so it should
#: not idle while the first thousand texts are parsed and chunked
FIRST_EMBED_GROUP = 128
#: texts per encode call within a group, after each of which the progress bar moves: a group of
#: a thousand texts is a minute's encoding on two cores, too long for a bar to stand still. One
#: torch batch (64); the group stays sorted by length across the calls, so they pad no more than
#: one call would, and a call costs the encoder a millisecond or two more than a batch
EMBED_PROGRESS_SLICE = 64
#: how long a partial group waits for more parsed documents before it is encoded anyway
GROUP_WAIT_S = 0.5
#: ready-Markdown documents chunked here between looks at what the workers finished
READY_SLICE = 16
#: parsed Markdown held between the workers and the embedder, in characters
BUFFER_CHARACTERS = 32 * MB


class IngestCancelled(Exception):
    """Raised inside ``ingest`` when its cancel event is set; the report says what was kept."""


@dataclass(frozen=True)
class IngestRun:
    """One ingest's context: what each of its steps reads, writes and reports to."""

    catalog: Catalog
    collection: str
    #: the layouts filled (the first is the collection's default)
    layouts: list[Layout]
    limits: IngestConfig
    progress: ProgressCallback
    cancel: threading.Event
    #: the catalog file held open for the run, let go of for each encode and each wait
    held: KeptOpen
    report: IngestReport
    writer: CatalogWriter
    #: the endpoint chunk enrichment calls (None when no layout enriches)
    llm: LlmClient | None
    #: files in the run, for progress
    total: int

    @property
    def home(self) -> Path:
        return self.catalog.path.parent


class _OutcomeBuffer:
    """Parse outcomes between the pool's thread and the embedder, bounded by Markdown size."""

    def __init__(self, budget: int):
        self._items: list[ParseOutcome] = []
        self._held = 0
        self._budget = budget
        self._done = False
        self._error: BaseException | None = None
        self._condition = threading.Condition()

    def put(self, outcome: ParseOutcome, stop: threading.Event) -> None:
        size = len(outcome.parsed.markdown) if outcome.parsed is not None else 0
        with self._condition:
            while self._items and self._held + size > self._budget and not stop.is_set():
                self._condition.wait(0.2)
            self._items.append(outcome)
            self._held += size
            self._condition.notify_all()

    def finish(self, error: BaseException | None = None) -> None:
        with self._condition:
            self._done, self._error = True, error
            self._condition.notify_all()

    def take(self, wait_s: float | None) -> list[ParseOutcome] | None:
        """What is there (waiting up to ``wait_s`` for something); None once all is taken."""
        with self._condition:
            if not self._items and not self._done:
                self._condition.wait(wait_s)
            if self._error is not None:
                raise self._error
            if not self._items and self._done:
                return None
            items, self._items, self._held = self._items, [], 0
            self._condition.notify_all()
            return items


def stream(run: IngestRun, tasks: list[ParseTask], documents: dict[int, PendingDocument]) -> None:
    """Parse ``tasks`` (ready Markdown here, files in the workers), chunk each document for every
    layout, and embed and hand them to the writer in groups; ``documents`` are the pending
    documents by task key. Raises ``IngestCancelled`` when the run's cancel is set."""
    layouts, progress, report, total = run.layouts, run.progress, run.report, run.total
    embedders = {layout.embedding_model: get_embedder(layout.embedding_model) for layout in layouts}
    buffer = _OutcomeBuffer(BUFFER_CHARACTERS)
    stop = threading.Event()

    ready = deque(task for task in tasks if task.markdown is not None)
    pool = ParsePool(run.limits)  # starts workers only for files that need parsing

    def produce() -> None:
        try:
            for outcome in pool.outcomes(task for task in tasks if task.markdown is None):
                if stop.is_set():
                    break
                buffer.put(outcome, stop)
        except BaseException as error:  # surfaces in the embedding thread (unless it is stopping us)
            buffer.finish(None if stop.is_set() else error)
        else:
            buffer.finish()

    producer = threading.Thread(target=produce, name="ingest-parse", daemon=True)
    producer.start()
    embedding = _Embedding(run)
    #: worker seconds and characters parsed, per file type: the next estimate's parse rates
    parses: dict[str, tuple[float, int]] = {}
    group: list[PendingDocument] = []
    texts_in_group = done_files = 0
    wanted = min(FIRST_EMBED_GROUP, EMBED_GROUP)
    outcomes: list[ParseOutcome] | None  # None once the workers are done and all is taken
    try:
        while True:
            if run.cancel.is_set():
                raise IngestCancelled
            if ready:
                outcomes = [run_task(ready.popleft()) for _ in range(min(READY_SLICE, len(ready)))]
                outcomes += buffer.take(0) or []  # and whatever the workers finished meanwhile
            else:
                outcomes = buffer.take(0)
                if outcomes == []:  # waiting for the workers (an OCR parse may take minutes): file closed
                    with run.held.let_go():
                        outcomes = buffer.take(GROUP_WAIT_S if group else 1.0)
            run.writer.drain_events()
            if outcomes is None:
                break
            for outcome in outcomes:
                if run.cancel.is_set():
                    raise IngestCancelled
                document = documents.pop(outcome.key)
                done_files += 1
                report.peak_parse_rss_mb = max(report.peak_parse_rss_mb, outcome.peak_rss_mb)
                if not outcome.ok:
                    run.writer.failure(document.source, document.sha256, outcome.reason, document.replaces)
                    progress(Progress("failed", document.source.name, done_files, total, outcome.reason))
                    continue
                progress(Progress("parse", document.source.name, done_files, total))
                if document.source.markdown is None:
                    _time_parse(parses, outcome)
                document.outcome = outcome
                _load_models(run, embedders)
                _prepare(document, layouts, embedders, run.llm, report)
                embedding.say_loaded(embedders)  # fitting chunks to the window loads the model
                progress(Progress("chunk", document.source.name, done_files, total))
                group.append(document)
                # an upper bound on what the group needs embedded (no catalog read)
                texts_in_group += sum(len(chunks) for chunks in document.chunks.values())
                if texts_in_group >= wanted:
                    embedding.embed_and_commit(group, layouts, embedders)
                    group, texts_in_group, wanted = [], 0, EMBED_GROUP
            if group and not outcomes:  # nothing more arrived for a moment: do not sit on what is ready
                embedding.embed_and_commit(group, layouts, embedders)
                group, texts_in_group = [], 0
        if group:
            embedding.embed_and_commit(group, layouts, embedders)
    finally:
        stop.set()
        pool.close()  # stops busy workers at once: nothing waits out a parse time limit
        producer.join(timeout=30)
        for model, (texts, seconds) in embedding.throughput.items():
            remember_rate(run.home, model, texts, seconds)
        remember_parses(run.home, parses)
        report.parse_s = sum(seconds for seconds, _ in parses.values())
        report.parse_workers = min(pool.size, sum(1 for task in tasks if task.markdown is None))
        for layout in layouts:
            measured = getattr(get_embedder(layout.embedding_model), "load_seconds", None)
            if measured:
                remember_load(run.home, layout.embedding_model, measured)


def _time_parse(parses: dict[str, tuple[float, int]], outcome: ParseOutcome) -> None:
    """Add a worker's parse of one file to the run's totals for its type."""
    if outcome.parsed is None:
        return
    suffix = PurePath(outcome.name).suffix.lower()
    seconds, characters = parses.get(suffix, (0.0, 0))
    parses[suffix] = (seconds + outcome.elapsed_s, characters + len(outcome.parsed.markdown))


def _load_models(run: IngestRun, embedders: dict[str, Embedder]) -> None:
    """Load the models not loaded yet (chunks are fitted to a model's window, so the first document
    needs it) with the catalog file let go: a load takes seconds, over a minute on a busy machine,
    and another writer waiting that long for the file gives up (``Catalog.lock_timeout_s``)."""
    waiting = [embedder for embedder in embedders.values() if not getattr(embedder, "loaded", True)]
    if waiting:
        with run.held.let_go():
            for embedder in waiting:
                embedder.max_tokens  # noqa: B018  reading the window loads the model


def _prepare(
    document: PendingDocument,
    layouts: list[Layout],
    embedders: dict[str, Embedder],
    llm: LlmClient | None,
    report: IngestReport,
) -> None:
    parsed = document.parsed
    for position, layout in enumerate(layouts):
        embedder = embedders[layout.embedding_model]
        chunks = document.outcome.chunks.get(layout.chunkset_key)
        if chunks is None:  # token units and semantic breaks need the model, which lives here
            chunks = split_document(parsed.markdown, layout.chunking, embedder)
        else:  # and so does the window the worker's chunks are fitted to
            chunks = fitted_to_window(parsed.markdown, chunks, layout.chunking, embedder)
        document.chunks[layout.chunkset_key] = finish_chunks(
            chunks,
            list(parsed.page_starts),
            layout.chunking,
            embedder,
            dict(parsed.chunk_metadata),
            llm=llm,
            llm_calls=report.llm_calls,
        )
        if position == 0:  # the collection's own chunking: what the report says of the window
            window = report.window = embedder.max_tokens
            report.window_model, report.fit_window = layout.embedding_model, layout.chunking.fit_window
            document.over_window = excess_tokens(document.chunks[layout.chunkset_key], window)


class _Embedding:
    """Encodes what the cache lacks, remembering what this run already sent to the writer."""

    def __init__(self, run: IngestRun):
        self.writer, self.report, self.progress, self.total, self.held = (
            run.writer,
            run.report,
            run.progress,
            run.total,
            run.held,
        )
        #: (model, hash) of vectors handed to the writer; the cache has them once it commits
        self.sent: OrderedDict[tuple[str, str], None] = OrderedDict()
        self.throughput: dict[str, tuple[int, float]] = {}
        self._said_loaded: set[str] = set()

    def say_loaded(self, embedders: dict[str, Embedder]) -> None:
        """A "load" event the first time each model is found loaded: loading is the first several
        seconds of a first ingest, and the progress bar counts it as work done."""
        for model, embedder in embedders.items():
            if model not in self._said_loaded and getattr(embedder, "loaded", True):
                self._said_loaded.add(model)
                self.progress(Progress("load", model, 0, self.total, f"{model} loaded"))

    def _texts(self, group: list[PendingDocument], layout: Layout) -> dict[str, str]:
        return {
            chunk.content_hash: chunk.indexed_text
            for document in group
            for chunk in document.chunks[layout.chunkset_key]
        }

    def embed_and_commit(
        self, group: list[PendingDocument], layouts: list[Layout], embedders: dict[str, Embedder]
    ) -> None:
        # No commit starts until the whole group is handed over: the encoder runs alone (work
        # beside it slows it by more than the work takes), and the writer then finds full batches.
        with self.writer.paused():
            for layout in layouts:
                self._embed(group, layout, embedders[layout.embedding_model])
            for document in group:
                self.writer.document(document)

    def _embed(self, group: list[PendingDocument], layout: Layout, embedder: Embedder) -> None:
        model = layout.embedding_model
        texts = self._texts(group, layout)
        requested = sum(len(document.chunks[layout.chunkset_key]) for document in group)
        fresh = {h: t for h, t in texts.items() if (model, h) not in self.sent}
        in_cache = cached_hashes(self.writer.catalog, model, list(fresh))
        missing = [(h, t) for h, t in fresh.items() if h not in in_cache]
        if missing:
            self.progress(Progress("embed", f"0/{len(missing)} new chunk texts", 0, self.total))
            began = time.perf_counter()
            # longest first: sentence-transformers pads each batch to its longest text
            ordered = sorted(missing, key=lambda item: len(item[1]), reverse=True)
            parts = []
            with self.held.let_go():  # other processes may have the catalog meanwhile
                for start in range(0, len(ordered), EMBED_PROGRESS_SLICE):
                    part = ordered[start : start + EMBED_PROGRESS_SLICE]
                    parts.append(embedder.embed([text for _, text in part]))
                    self.say_loaded({model: embedder})
                    if start + len(part) < len(ordered):
                        done = f"{start + len(part)}/{len(ordered)} new chunk texts"
                        self.progress(Progress("embed", done, 0, self.total))
            vectors = parts[0] if len(parts) == 1 else np.concatenate(parts)
            seconds = time.perf_counter() - began
            texts_so_far, seconds_so_far = self.throughput.get(model, (0, 0.0))
            self.throughput[model] = (texts_so_far + len(ordered), seconds_so_far + seconds)
            self.writer.vectors(model, [h for h, _ in ordered], vectors)
            for digest, _ in ordered:
                self.sent[(model, digest)] = None
            self.progress(Progress("embed", f"{len(missing)}/{len(missing)} new chunk texts", 0, self.total))
        self.report.embedded += len(missing)
        self.report.cached += requested - len(missing)
