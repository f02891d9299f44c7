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
