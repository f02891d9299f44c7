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
from collections.abc import Iterable

from store import documents as stored_documents
from store.catalog import Catalog, KeptOpen
from workbench.chunking.preparation import check_enrichment, model_reads
from workbench.config import IngestConfig
from workbench.embedding import get_embedder
from workbench.ingestion.estimates import (
    FALLBACK_CHUNK_RATE,
    PEEK_MAX_BYTES,
    IngestEstimate,
    TextSize,
    chunk_rate,
    describe_duration,
    describe_estimate,
    estimate_chunks,
    estimated_text_characters,
    markdown_size,
    model_window,
    parse_seconds,
    pending_load_s,
    text_size,
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
from workbench.ingestion.stream import IngestCancelled, IngestRun, stream
from workbench.ingestion.workers import ChunkPlan, ParseOutcome, ParseTask, worker_count
from workbench.ingestion.writer import CatalogWriter, PendingDocument
from workbench.layout import Layout
from workbench.llm.client import LlmClient
from workbench.text import count

__all__ = [
    "FileOutcome",
    "IngestCancelled",
    "IngestReport",
    "Progress",
    "ProgressCallback",
    "Source",
    "ingest",
]

log = logging.getLogger(__name__)

# -- the ingest ---------------------------------------------------------------------------------


def ingest(
    catalog: Catalog,
    collection_name: str,
    sources: Iterable[Source],
    layouts: list[Layout],
    progress: ProgressCallback | None = None,
    limits: IngestConfig | None = None,
    cancel: threading.Event | None = None,
    again: frozenset[str] = frozenset(),
) -> IngestReport:
    """Ingest ``sources``; every layout in ``layouts`` gets its chunks (the first is the default).

    Setting ``cancel`` (or Ctrl-C) stops after the documents in flight; what was committed stays.
    Sources named in ``again`` are parsed even when unchanged (``sync --ocr`` reading the pictures
    an earlier parse skipped); the embedding cache keeps their unchanged chunks from being embedded.
    """
    # the catalog stays open in this process for the run, but for the encode calls and the waits
    # for parse workers: other processes have the file then, and this run does not reopen it for
    # every transaction (20-90 ms each)
    with catalog.kept_open() as held:
        return _ingest(
            catalog,
            collection_name,
            list(sources),
            layouts,
            progress or quiet,
            limits or IngestConfig(),
            cancel or threading.Event(),
            held,
            again,
        )


def _ingest(
    catalog: Catalog,
    collection_name: str,
    sources: list[Source],
    wanted_layouts: list[Layout],
    progress: ProgressCallback,
    limits: IngestConfig,
    cancel: threading.Event,
    held: KeptOpen,
    again: frozenset[str] = frozenset(),
) -> IngestReport:
    started = time.perf_counter()
    home = catalog.path.parent
    total = len(sources)
    report = IngestReport(collection_name, files_total=total)
    layouts, llm, skipped_layouts = _enrichable(catalog, wanted_layouts)
    report.notes.extend(skipped_layouts)
    start = stored_documents.start_ingest(
        catalog, collection_name, [(layout.chunkset_key, layout.chunkset_config()) for layout in layouts], total
    )
    fingerprints, run_id = start.fingerprints, start.run_id

    rate = chunk_rate(home, layouts[0].embedding_model)
    writer = CatalogWriter(catalog, start.collection_id, run_id, report, progress)
    run = IngestRun(catalog, collection_name, layouts, limits, progress, cancel, held, report, writer, llm, total)
    documents: dict[int, PendingDocument] = {}
    tasks: list[ParseTask] = []
    planned_chunks, planned_parse_s = 0, 0.0
    window = model_window(layouts[0].embedding_model)
    reads = model_reads(layouts[0].embedding_model)
    try:
        for position, source in enumerate(sources, start=1):
            if cancel.is_set():
                raise IngestCancelled
            progress(Progress("hash", source.name, position, total))
            sha = source.sha256
            known = fingerprints.get(source.name)
            if known and (known.sha256, known.status) == (sha, "success"):
                if known.parser_version >= parser_version(known.doc_type) and source.name not in again:
                    report.outcomes.append(FileOutcome(source.name, "skipped", "unchanged since last ingest"))
                    progress(Progress("skip", source.name, position, total, "unchanged"))
                    continue
                report.reparsed.append(source.name)  # same bytes, but an older parser (or a skipped picture)
            too_big = _size_violation(source, limits, layouts[0], rate)
            if too_big:
                writer.failure(source, sha, too_big, replaces=known is not None)
                progress(Progress("failed", source.name, position, total, too_big))
                continue
            size = _text_size(source)
            # cut to the window only where ingest will: text the model reads (unread text: assumed so)
            cut = window if size.text is None or reads(size.text) else None
            planned_chunks += estimate_chunks(size.characters, layouts[0].chunking, size.tokens, cut)
            if source.markdown is None:  # ready Markdown is not parsed
                planned_parse_s += parse_seconds(source.name, size.characters if size.read else None, home)
            documents[position] = PendingDocument(source, sha, known is not None, ParseOutcome(position, source.name))
            tasks.append(_task(position, source, layouts, limits, rate))
        if tasks:
            load_s = pending_load_s(home, get_embedder(layouts[0].embedding_model))
            parsed_here = sum(1 for task in tasks if task.markdown is None)
            workers = max(1, min(worker_count(limits), parsed_here))
            planned = IngestEstimate(
                files=len(tasks),
                chunks=planned_chunks,
                parse_s=planned_parse_s,
                embed_s=planned_chunks / (rate or FALLBACK_CHUNK_RATE),
                load_s=load_s or 0.0,
                workers=workers,
            )
            reading = f" (about {describe_duration(planned.reading_s)})" if planned.parse_s >= 2 else ""
            report.estimate = (
                f"{count(len(tasks), 'file')} to read{reading}, {describe_estimate(planned_chunks, rate, load_s)}"
            )
            if reading:  # both stages take time: say what the run takes with them side by side
                report.estimate += f"; about {describe_duration(planned.seconds)} in all, reading beside embedding"
            progress(Progress("estimate", collection_name, 0, total, report.estimate, planned))
            stream(run, tasks, documents)
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
        _wind_down(run, run_id)
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


def _wind_down(run: IngestRun, run_id: int) -> None:
    from workbench.ingestion.indexing import sync_layout

    report = run.report
    try:
        run.writer.close()
    except BaseException:  # the writer's own failure is already on its way up
        run.writer.abandon()
    try:
        for layout in run.layouts:
            sync_layout(run.catalog, run.home, run.collection, layout)
        stored_documents.finish_ingest(
            run.catalog,
            run_id,
            status="cancelled",
            parsed=report.parsed,
            skipped=report.count("skipped"),
            failed=report.count("failed"),
            embedded=report.embedded,
        )
    except Exception:  # the next ingest or sync repairs the indexes; the catalog is consistent as it is
        log.warning("could not finish winding down the interrupted ingest", exc_info=True)


def _text_size(source: Source) -> TextSize:
    """The text ``source`` holds, where a cheap look reads it (else guessed from its size): what its
    chunks and its parse time are estimated from."""
    if source.markdown is not None:
        return markdown_size(source.markdown)
    data = source.data if source.data is not None or source.size_bytes > PEEK_MAX_BYTES else source.payload
    return text_size(source.name, data, source.size_bytes)


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
