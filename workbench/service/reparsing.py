"""Golden judgements on documents an ingest parses again with a newer parser follow their text.

Before the ingest, the outdated documents among its sources that a golden span of the home
judges are read with their Markdown (``judged_outdated``); after it, the spans on those the
ingest did parse again are re-anchored in the new Markdown and the report says what moved and
what was lost (``reanchor_after``; see ``workbench.golden.anchoring``).
"""

from __future__ import annotations

from pathlib import Path

from store.catalog import Catalog
from workbench.golden.anchoring import Rewritten, reanchor_home_golden_sets, span_judged_documents
from workbench.ingestion.reparse import OutdatedBefore, outdated_before, rewritten
from workbench.ingestion.sources import IngestReport, Source


def judged_outdated(catalog: Catalog, home: Path, collection: str, sources: list[Source]) -> list[OutdatedBefore]:
    judged = span_judged_documents(home)
    return outdated_before(catalog, collection, [source.name for source in sources], judged) if judged else []


def reanchor_after(
    catalog: Catalog, home: Path, collection: str, before: list[OutdatedBefore], report: IngestReport
) -> None:
    if not before:
        return
    by_name = {
        name: Rewritten(document.old_markdown, document.new_markdown)
        for document in rewritten(catalog, collection, before, report)
        for name in document.names
    }
    summary = reanchor_home_golden_sets(home, by_name).summary()
    if summary:
        report.notes.append(summary)
