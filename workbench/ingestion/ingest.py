"""Ingestion: files (or ready Markdown) into the catalog, then the indexes.

Three kinds of work overlap (see ``docs/RELIABILITY.md`` for the failure model):

* **Parse workers** (``workbench.ingestion.workers``): each file is hashed and checked against
  the size cap in this process, then parsed and chunked in a worker process under the time and
  memory limits (``ingest.*``). A file that breaks a limit or cannot be read fails alone, with
  a reason that names the limit and the setting that raises it. Ready Markdown (a BEIR
  corpus) has no parser to contain: this thread chunks it between encode calls, where it takes
  nothing from the encoder, while a worker running beside the encoder would.
* **This thread** embeds: it takes parsed documents as they arrive, adds token counts and
  indexed texts, and encodes the texts the embedding cache lacks in large groups (an exported
  encoder reuses the ids the counting produced instead of tokenizing again).
* **A writer thread** (``workbench.ingestion.writer``) commits: new vectors to the cache, then
  each document with its chunks, up to ``COMMIT_BATCH`` documents per transaction. It commits
  between encode calls, beside the chunking of the next documents: never on the encoding path,
  nor beside it. A group is handed over whole, so its commits come in full batches.

The run holds the catalog file open (``Catalog.kept_open``: opening replays its log and closing
checkpoints, 20-90 ms each) and lets go of it for each encode and while it waits for the parse
workers, when other processes get a turn.

A crash, ``kill -9``, Ctrl-C or a cancel from the app loses at most the documents in flight:
everything committed stays, the run is marked ``cancelled`` (or stays ``running`` after a kill;
either way the collection reports itself incomplete), and running the same ingest again skips
what is in before parsing it and embeds nothing the cache has. Indexes are synced from the catalog at the end, and
by the next ingest or sync after a crash.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterable

from store import documents as stored_documents
from store.catalog import Catalog, KeptOpen
from store.embedding_cache import cached_hashes
from workbench.chunking.preparation import check_enrichment, finish_chunks, split_document
from workbench.config import IngestConfig
from workbench.embedding import Embedder, get_embedder
from workbench.ingestion.estimates import (
    chunk_rate,
    estimated_text_characters,
    pending_load_s,
    remember_load,
    remember_rate,
)
from workbench.ingestion.parsers.registry import parser_version
from workbench.ingestion.sources import (
    MB,
    FileOutcome,
    IngestReport,
    Progress,
    ProgressCallback,
    Source,
    quiet,
)
from workbench.ingestion.workers import (
    ChunkPlan,
    ParseOutcome,
    ParsePool,
    ParseTask,
    describe_estimate,
    estimate_chunks,
    run_task,
)
from workbench.ingestion.writer import CatalogWriter, PendingDocument
from workbench.layout import Layout
from workbench.llm.client import LlmClient
from workbench.plural import count

__all__ = [
    "FileOutcome",
    "IngestCancelled",
    "IngestReport",
    "Progress",
    "ProgressCallback",
    "Source",
    "ensure_chunkset",
    "ingest",
]

log = logging.getLogger(__name__)

#: new texts gathered before one encode call: big batches sort by length and pad little
EMBED_GROUP = 1024
#: the first encode call starts at this many texts: the encoder is the whole cost, so it should
#: not idle while the first thousand texts are parsed and chunked
FIRST_EMBED_GROUP = 128
#: how long a partial group waits for more parsed documents before it is encoded anyway
GROUP_WAIT_S = 0.5
#: ready-Markdown documents chunked here between looks at what the workers finished
READY_SLICE = 16
#: parsed Markdown held between the workers and the embedder, in characters
BUFFER_CHARACTERS = 32 * MB


class IngestCancelled(Exception):
    """Raised inside ``ingest`` when its cancel event is set; the report says what was kept."""


# -- the ingest ---------------------------------------------------------------------------------


def ingest(
    catalog: Catalog,
    collection_name: str,
    sources: Iterable[Source],
    layouts: list[Layout],
    progress: ProgressCallback | None = None,
    limits: IngestConfig | None = None,
    cancel: threading.Event | None = None,
) -> IngestReport:
    """Ingest ``sources``; every layout in ``layouts`` gets its chunks (the first is the default).

    Setting ``cancel`` (or Ctrl-C) stops after the documents in flight; what was committed stays.
    """
    # the catalog stays open in this process for the run, but for the encode calls and the waits
    # for parse workers: other processes have the file then, and this run does not reopen it for
    # every transaction (20-90 ms each)
    with catalog.kept_open() as held:
        return _ingest(catalog, collection_name, sources, layouts, progress, limits, cancel, held)


def _ingest(catalog, collection_name, sources, layouts, progress, limits, cancel, held) -> IngestReport:
    progress = progress or quiet
    limits = limits or IngestConfig()
    cancel = cancel or threading.Event()
    started = time.perf_counter()
    home = catalog.path.parent
    sources = list(sources)
    report = IngestReport(collection_name, files_total=len(sources))
    layouts, llm, skipped_layouts = _enrichable(catalog, layouts)
    report.notes.extend(skipped_layouts)
    start = stored_documents.start_ingest(
        catalog, collection_name, [(layout.chunkset_key, layout.chunkset_config()) for layout in layouts], len(sources)
    )
    fingerprints, run_id = start.fingerprints, start.run_id

    rate = chunk_rate(home, layouts[0].embedding_model)
    total = len(sources)
    writer = CatalogWriter(catalog, start.collection_id, run_id, report, progress)
    documents: dict[int, PendingDocument] = {}
    tasks: list[ParseTask] = []
    planned_characters = 0
    try:
        for position, source in enumerate(sources, start=1):
            if cancel.is_set():
                raise IngestCancelled
            progress(Progress("hash", source.name, position, total))
            sha = source.sha256
            known = fingerprints.get(source.name)
            if known and (known.sha256, known.status) == (sha, "success"):
                if known.parser_version >= parser_version(known.doc_type):
                    report.outcomes.append(FileOutcome(source.name, "skipped", "unchanged since last ingest"))
                    progress(Progress("skip", source.name, position, total, "unchanged"))
                    continue
                report.reparsed.append(source.name)  # same bytes, but an older parser wrote its Markdown
            too_big = _size_violation(source, limits, layouts[0], rate)
            if too_big:
                writer.failure(source, sha, too_big, replaces=known is not None)
                progress(Progress("failed", source.name, position, total, too_big))
                continue
            planned_characters += (
                source.size_bytes
                if source.markdown is not None
                else estimated_text_characters(source.name, source.size_bytes)
            )
            documents[position] = PendingDocument(source, sha, known is not None, ParseOutcome(position, source.name))
            tasks.append(_task(position, source, layouts, limits, rate))
        if tasks:
            load_s = pending_load_s(home, get_embedder(layouts[0].embedding_model))
            estimate = describe_estimate(estimate_chunks(planned_characters, layouts[0].chunking), rate, load_s)
            report.estimate = f"{count(len(tasks), 'file')} to read, {estimate}"
            progress(Progress("estimate", collection_name, 0, total, report.estimate))
            _run_pipeline(tasks, documents, layouts, limits, writer, report, progress, cancel, total, home, llm, held)
        writer.close()
    except (KeyboardInterrupt, IngestCancelled):
        report.cancelled = True
        writer.close()  # commits what was fully embedded; then the catalog and indexes agree again
        progress(
            Progress(
                "cancelled",
                collection_name,
                len(report.outcomes),
                total,
                f"stopped; {len(report.outcomes)} of {count(total, 'file')} done",
            )
        )
    except BaseException as interruption:
        # anything else (a front end stopping its script, a failure): keep what is complete, say the
        # run did not finish, bring the indexes in line, then let the interruption continue
        report.cancelled = True
        _wind_down(catalog, home, collection_name, layouts, writer, run_id, report)
        raise interruption

    from workbench.ingestion.indexing import sync_layout

    for layout in layouts:
        progress(Progress("index", layout.key, total, total))
        result = sync_layout(catalog, home, collection_name, layout)
        report.indexes_rebuilt += int(result.rebuilt)
    stored_documents.finish_ingest(
        catalog,
        run_id,
        status="cancelled" if report.cancelled else "finished",
        parsed=report.parsed,
        skipped=report.count("skipped"),
        failed=report.count("failed"),
        embedded=report.embedded,
    )
    report.elapsed_s = time.perf_counter() - started
    progress(Progress("done", collection_name, total, total, report.summary()))
    return report


def _enrichable(catalog: Catalog, layouts: list[Layout]) -> tuple[list[Layout], LlmClient | None, list[str]]:
    """The layouts to fill now, the LLM client enrichment needs, and notes on layouts left for later.

    The first layout is the one asked for: enrichment without an endpoint fails it before any work.
    Other enriched layouts a collection keeps are skipped without an endpoint; their chunk sets are
    completed when they are next used.
    """
    if all(layout.chunking.enrich == "none" for layout in layouts):
        return layouts, None, []
    llm = LlmClient.from_env(catalog)
    check_enrichment(layouts[0].chunking, llm)
    if llm.available:
        return layouts, llm, []
    kept = [layout for layout in layouts if layout.chunking.enrich == "none"]
    notes = [
        f"layout {layout.key} (chunking.enrich={layout.chunking.enrich}) not updated: no LLM endpoint; "
        "it is completed when next used with one"
        for layout in layouts
        if layout not in kept
    ]
    return kept, None, notes


def _wind_down(catalog, home, collection_name, layouts, writer, run_id, report) -> None:
    from workbench.ingestion.indexing import sync_layout

    try:
        writer.close()
    except BaseException:  # the writer's own failure is already on its way up
        writer.abandon()
    try:
        for layout in layouts:
            sync_layout(catalog, home, collection_name, layout)
        stored_documents.finish_ingest(
            catalog,
            run_id,
            status="cancelled",
            parsed=report.parsed,
            skipped=report.count("skipped"),
            failed=report.count("failed"),
            embedded=report.embedded,
        )
    except Exception:  # the next ingest or sync repairs the indexes; the catalog is consistent as it is
        log.warning("could not finish winding down the interrupted ingest", exc_info=True)


def _size_violation(source: Source, limits: IngestConfig, layout: Layout, rate: float | None) -> str | None:
    size = source.size_bytes
    if size <= limits.max_file_mb * MB:
        return None
    characters = size if source.markdown is not None else estimated_text_characters(source.name, size)
    chunks = estimate_chunks(characters, layout.chunking)
    needed_mb = int(size / MB) + 1
    raise_chunks = f" --set ingest.max_chunks={chunks + chunks // 10}" if chunks > limits.max_chunks else ""
    return (
        f"{size / MB:,.1f} MB, over the {limits.max_file_mb:g} MB limit (ingest.max_file_mb). "
        f"Raising it would cost {describe_estimate(chunks, rate)}; to ingest it anyway: "
        f"--set ingest.max_file_mb={needed_mb}{raise_chunks}"
    )


def _task(key: int, source: Source, layouts: list[Layout], limits: IngestConfig, rate: float | None) -> ParseTask:
    # chunkings that need no model run in the worker, next to the parser; the rest run here
    plans = tuple(
        ChunkPlan(layout.chunkset_key, layout.chunking)
        for layout in layouts
        if layout.chunking.strategy != "semantic" and layout.chunking.unit == "chars"
    )
    return ParseTask(
        key,
        source.name,
        limits,
        path=str(source.path) if source.path and source.data is None else None,
        data=source.data,
        markdown=source.markdown,
        doc_type=source.doc_type,
        plans=plans,
        chunk_rate=rate,
    )


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


def _run_pipeline(tasks, documents, layouts, limits, writer, report, progress, cancel, total, home, llm, held) -> None:
    embedders = {layout.embedding_model: get_embedder(layout.embedding_model) for layout in layouts}
    buffer = _OutcomeBuffer(BUFFER_CHARACTERS)
    stop = threading.Event()

    ready = deque(task for task in tasks if task.markdown is not None)
    pool = ParsePool(limits)  # starts workers only for files that need parsing

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
    embedding = _Embedding(writer, report, progress, total, held)
    group: list[PendingDocument] = []
    texts_in_group = done_files = 0
    wanted = min(FIRST_EMBED_GROUP, EMBED_GROUP)
    try:
        while True:
            if cancel.is_set():
                raise IngestCancelled
            if ready:
                outcomes = [run_task(ready.popleft()) for _ in range(min(READY_SLICE, len(ready)))]
                outcomes += buffer.take(0) or []  # and whatever the workers finished meanwhile
            else:
                outcomes = buffer.take(0)
                if outcomes == []:  # waiting for the workers (an OCR parse may take minutes): file closed
                    with held.let_go():
                        outcomes = buffer.take(GROUP_WAIT_S if group else 1.0)
            writer.drain_events()
            if outcomes is None:
                break
            for outcome in outcomes:
                if cancel.is_set():
                    raise IngestCancelled
                document = documents.pop(outcome.key)
                done_files += 1
                report.peak_parse_rss_mb = max(report.peak_parse_rss_mb, outcome.peak_rss_mb)
                if not outcome.ok:
                    writer.failure(document.source, document.sha256, outcome.reason, document.replaces)
                    progress(Progress("failed", document.source.name, done_files, total, outcome.reason))
                    continue
                progress(Progress("parse", document.source.name, done_files, total))
                document.outcome = outcome
                _prepare(document, layouts, embedders, llm, report)
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
            remember_rate(home, model, texts, seconds)
        for layout in layouts:
            measured = getattr(get_embedder(layout.embedding_model), "load_seconds", None)
            if measured:
                remember_load(home, layout.embedding_model, measured)


def _prepare(
    document: PendingDocument,
    layouts: list[Layout],
    embedders: dict[str, Embedder],
    llm: LlmClient | None,
    report: IngestReport,
) -> None:
    parsed = document.outcome.parsed
    for layout in layouts:
        embedder = embedders[layout.embedding_model]
        chunks = document.outcome.chunks.get(layout.chunkset_key)
        if chunks is None:  # token units and semantic breaks need the model, which lives here
            chunks = split_document(parsed.markdown, layout.chunking, embedder)
        document.chunks[layout.chunkset_key] = finish_chunks(
            chunks,
            list(parsed.page_starts),
            layout.chunking,
            embedder,
            dict(parsed.chunk_metadata),
            llm=llm,
            llm_calls=report.llm_calls,
        )


class _Embedding:
    """Encodes what the cache lacks, remembering what this run already sent to the writer."""

    def __init__(
        self, writer: CatalogWriter, report: IngestReport, progress: ProgressCallback, total: int, held: KeptOpen
    ):
        self.writer, self.report, self.progress, self.total, self.held = writer, report, progress, total, held
        #: (model, hash) of vectors handed to the writer; the cache has them once it commits
        self.sent: OrderedDict[tuple[str, str], None] = OrderedDict()
        self.throughput: dict[str, tuple[int, float]] = {}

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
            with self.held.let_go():  # other processes may have the catalog meanwhile
                vectors = embedder.embed([text for _, text in ordered])
            seconds = time.perf_counter() - began
            texts_so_far, seconds_so_far = self.throughput.get(model, (0, 0.0))
            self.throughput[model] = (texts_so_far + len(ordered), seconds_so_far + seconds)
            self.writer.vectors(model, [h for h, _ in ordered], vectors)
            for digest, _ in ordered:
                self.sent[(model, digest)] = None
            self.progress(Progress("embed", f"{len(missing)}/{len(missing)} new chunk texts", 0, self.total))
        self.report.embedded += len(missing)
        self.report.cached += requested - len(missing)


#: documents chunked, embedded and committed together when a chunk set is built or completed
CHUNKSET_BATCH = 64


def ensure_chunkset(
    catalog: Catalog, collection_name: str, layout: Layout, progress: ProgressCallback | None = None
) -> int:
    """Chunk (and embed, through the cache) every document lacking chunks in this layout's chunk set.

    Documents are committed in batches, so an interrupted build resumes where it stopped and
    re-embeds nothing (every batch's vectors are in the cache before its chunks are committed).
    """
    from workbench.embedding.cache import embed_cached

    progress = progress or quiet
    unchunked = stored_documents.documents_lacking_chunks(
        catalog, collection_name, layout.chunkset_key, layout.chunkset_config()
    )
    todo = unchunked.documents
    if not todo:
        return 0
    llm = LlmClient.from_env(catalog) if layout.chunking.enrich != "none" else None
    check_enrichment(layout.chunking, llm)
    embedder = get_embedder(layout.embedding_model)
    for offset in range(0, len(todo), CHUNKSET_BATCH):
        prepared = []
        for position, (doc_id, markdown, page_starts) in enumerate(
            todo[offset : offset + CHUNKSET_BATCH], start=offset + 1
        ):
            progress(Progress("chunk", str(doc_id), position, len(todo)))
            chunks = split_document(markdown or "", layout.chunking, embedder)
            prepared.append(
                (doc_id, finish_chunks(chunks, list(page_starts or []), layout.chunking, embedder, llm=llm))
            )
        texts = [chunk.indexed_text for _, chunks in prepared for chunk in chunks]
        embed_cached(
            catalog,
            embedder,
            texts,
            progress=lambda d, t: progress(Progress("embed", f"{d}/{t} new chunk texts", d, t)),
        )
        stored_documents.add_chunks(catalog, unchunked.collection_id, layout.chunkset_key, prepared)
    return len(todo)
