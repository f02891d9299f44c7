"""Documents an older parser wrote, parsed again: by ``sync`` from their kept originals, or by
ingesting the same files again.

A document records the version of the parser that wrote its Markdown (``parsers.registry.
parser_version``). When a type's parser gets a new version, its documents are outdated. ``sync``
re-ingests those whose original file is kept beside the catalog (``store.originals``: PDFs are
kept from parser version 2 on) through the normal ingest, so only chunk texts that changed are
embedded (the cache has the rest). Documents stored before originals were kept are listed: the
user ingests the same files again, which parses them instead of skipping them as unchanged.

The Markdown each re-parsed document had before is handed back (``RewrittenMarkdown``) so the
caller can move golden judgements on it to their text's new place (``workbench.golden.anchoring``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from store import documents as stored_documents
from store.catalog import Catalog
from store.document_versions import OutdatedDocument
from store.originals import read_original
from workbench.ingestion.parsers.image_notes import ImageNote, notes_of, retryable
from workbench.ingestion.parsers.registry import PARSER_VERSIONS
from workbench.ingestion.sources import IngestReport, Source
from workbench.text import count


def _newer_parsers() -> dict[str, int]:
    """Document types whose parser is past version 1: only they can have outdated documents."""
    return {doc_type: version for doc_type, version in PARSER_VERSIONS.items() if version > 1}


@dataclass(frozen=True)
class RewrittenMarkdown:
    """A re-parsed document's names (external id, file name, stem) and its Markdown before and after."""

    names: tuple[str, ...]
    old_markdown: str
    new_markdown: str


@dataclass(frozen=True)
class OutdatedBefore:
    """An outdated document and the Markdown it had before it was parsed again."""

    document: OutdatedDocument
    markdown: str


def outdated_before(catalog: Catalog, collection: str, names: Iterable[str], judged: set[str]) -> list[OutdatedBefore]:
    """The collection's outdated documents among the source names ``names`` that a golden judgement
    names (``judged``: external ids, file names or stems), with their Markdown. Only those are
    read: the Markdown of every outdated document of a large re-ingest need not sit in memory."""
    wanted = set(names)
    found = []
    for document in stored_documents.outdated_documents(catalog, collection, _newer_parsers()):
        if document.source in wanted and judged & set(_names(document)):
            markdown, _ = stored_documents.document_markdown(catalog, document.id)
            found.append(OutdatedBefore(document, markdown or ""))
    return found


def _names(document: OutdatedDocument) -> tuple[str, ...]:
    names = [document.external_id] if document.external_id else []
    return tuple(dict.fromkeys([*names, document.source, PurePath(document.source).stem]))


def rewritten(
    catalog: Catalog, collection: str, before: list[OutdatedBefore], report: IngestReport
) -> list[RewrittenMarkdown]:
    """The documents of ``before`` the ingest ``report`` parsed again, with their new Markdown."""
    replaced = {outcome.source for outcome in report.outcomes if outcome.status == "replaced"}
    changed = []
    for old in before:
        source = old.document.source
        if source not in replaced or source not in report.reparsed:
            continue
        now = stored_documents.find_document(catalog, source, collection)
        if now is None:
            continue
        markdown, _ = stored_documents.document_markdown(catalog, now.id)
        changed.append(RewrittenMarkdown(_names(old.document), old.markdown, markdown or ""))
    return changed


@dataclass(frozen=True)
class ReparsePlan:
    """What ``sync`` can parse again (sources from kept originals) and what it cannot."""

    sources: list[Source]
    without_original: list[str] = field(default_factory=list)


def reparse_plan(catalog: Catalog, home: Path, collection: str) -> ReparsePlan:
    """Sources for the collection's outdated documents whose originals are kept; the others by name."""
    sources, missing = [], []
    for document in stored_documents.outdated_documents(catalog, collection, _newer_parsers()):
        data = read_original(home, document.sha256, PurePath(document.source).suffix)
        if data is None:
            missing.append(document.source)
        else:
            sources.append(Source(name=document.source, data=data, external_id=document.external_id))
    return ReparsePlan(sources, missing)


@dataclass
class Reparse:
    """What a ``sync`` re-parse did: the ingest of the kept originals, and what it could not re-parse."""

    report: IngestReport | None = None
    without_original: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = []
        if self.report is not None:
            parts.append(
                f"parsed again by a newer parser: {count(len(self.report.reparsed), 'document')} from their kept "
                f"originals; {self.report.embedded} new chunk texts embedded ({self.report.cached} from cache)"
            )
            parts += [f"{outcome.source}: {outcome.reason}" for outcome in self.report.failures]
        if self.without_original:
            parts.append(
                f"{count(len(self.without_original), 'document')} written by an older parser cannot be parsed "
                "again here: their originals were not kept (ingested before originals were kept). Ingest the same "
                "files again to parse them with the new parser (they are not skipped as unchanged): "
                + ", ".join(self.without_original)
            )
        return "; ".join(parts + self.notes)


@dataclass(frozen=True)
class OcrRetryPlan:
    """What ``sync --ocr`` reads again: the documents with pictures skipped for time, a limit or a
    missing tesseract (sources from their kept originals, with those pictures), and the others by name."""

    sources: list[Source]
    skipped: dict[str, list[ImageNote]] = field(default_factory=dict)
    without_original: list[str] = field(default_factory=list)


def ocr_retry_plan(catalog: Catalog, home: Path, collection: str) -> OcrRetryPlan:
    """The collection's documents with retryable pictures (``ImageNote.retryable``)."""
    sources, skipped, missing = [], {}, []
    for document in stored_documents.documents_of(catalog, collection):
        waiting = retryable(notes_of(document.parse_report)) if document.status == "success" else []
        if not waiting:
            continue
        data = read_original(home, document.sha256, PurePath(document.source).suffix)
        if data is None:
            missing.append(document.source)
            continue
        skipped[document.source] = waiting
        sources.append(Source(name=document.source, data=data, external_id=document.external_id))
    return OcrRetryPlan(sources, skipped, missing)


@dataclass
class OcrRetry:
    """What ``sync --ocr`` did: pictures skipped before and read now, per document."""

    plan: OcrRetryPlan
    report: IngestReport | None = None
    #: source -> the notes of its pictures after the retry
    after: dict[str, list[ImageNote]] = field(default_factory=dict)

    @property
    def read_now(self) -> int:
        before = sum(len(notes) for notes in self.plan.skipped.values())
        return before - sum(len(retryable(notes)) for notes in self.after.values())

    def lines(self) -> list[str]:
        plan = self.plan
        if not plan.sources and not plan.without_original:
            return ["no picture is waiting for OCR: none was skipped for time, a limit or a missing tesseract"]
        lines = []
        if plan.sources:
            waiting = sum(len(notes) for notes in plan.skipped.values())
            lines.append(
                f"OCR of skipped pictures: {self.read_now} of {count(waiting, 'picture')} read now, in "
                f"{count(len(plan.sources), 'document')} parsed again from their kept originals (no other "
                f"document touched); {self.report.embedded if self.report else 0} new chunk texts embedded"
            )
        for source, notes in self.after.items():
            for note in retryable(notes):
                where = f"page {note.page}" if note.page else note.name or "a picture"
                lines.append(f"  still skipped in {source} ({where}): {note.skipped}")
        if self.report is not None:
            lines += [f"  {outcome.source}: {outcome.reason}" for outcome in self.report.failures]
        if plan.without_original:
            lines.append(
                f"{count(len(plan.without_original), 'document')} with skipped pictures cannot be read again here: "
                "their originals were not kept (ingested before DOCX and PPTX originals were kept); ingest the "
                "same files again: " + ", ".join(plan.without_original)
            )
        return lines
