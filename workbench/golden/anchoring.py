"""Golden judgements that follow a document when its Markdown is written anew (a newer parser).

A span item points into a document's Markdown by offsets and/or a quote. When the Markdown is
rewritten, offsets point at other text: the judgement must follow the text it judged, or say it
lost it, never silently point elsewhere. So, for every span item on a rewritten document:

1. its **evidence** is its quote, or else the old Markdown's ``[start, end)``;
2. the evidence is looked up in the new Markdown (``golden.quotes.find_quote``: exact, then any
   whitespace, then whitespace next to CJK optional, as line breaks inside Chinese words vanish);
3. **found**: the item is ``moved`` there: new offsets (if it had offsets), and the new text as
   its quote, so the item carries what it judges from now on (``kept`` when nothing changed);
4. **not found**: the item is ``lost``: its offsets are dropped and the evidence stays as its
   quote. Evaluation then counts it as a judged item that matches no chunk (listed in the run's
   notes), and the re-anchoring report lists it with its query.

Document judgements (no span) need nothing. Only golden set files in the home are rewritten
(``<home>/golden_sets``); sets kept elsewhere (a project's versioned ``golden_sets/``) are left
for their owners, and ``reanchor_golden_set`` run on them gives the same result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from workbench.evaluation import golden as golden_sets
from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.golden.quotes import find_quote

KEPT, MOVED, LOST = "kept", "moved", "lost"


@dataclass(frozen=True)
class Rewritten:
    """A document's Markdown before and after it was written anew."""

    old_markdown: str
    new_markdown: str


@dataclass(frozen=True)
class Anchored:
    item: RelevantItem
    status: str  # kept | moved | lost


def reanchor_item(item: RelevantItem, document: Rewritten) -> Anchored:
    """The item re-found in the document's new Markdown (see the module doc)."""
    if not item.is_span:
        return Anchored(item, KEPT)
    evidence = item.quote
    if evidence is None and item.start is not None and item.end is not None:
        evidence = document.old_markdown[item.start : item.end]
    if not evidence or not evidence.strip():
        return Anchored(item, LOST)  # offsets past the old Markdown: the judgement was broken before
    found = find_quote(document.new_markdown, evidence)
    if found is None:
        return Anchored(replace(item, start=None, end=None, quote=evidence), LOST)
    text = found.text(document.new_markdown)
    if item.start is None:
        moved = replace(item, quote=text)
    else:
        moved = replace(item, start=found.start, end=found.end, quote=text)
    return Anchored(moved, KEPT if moved == item else MOVED)


@dataclass
class AnchorReport:
    """What re-anchoring did: counts per status, and each lost item as ``set: query id (document)``."""

    kept: int = 0
    moved: int = 0
    lost: list[str] = field(default_factory=list)
    rewritten_sets: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if not (self.kept or self.moved or self.lost):
            return ""
        text = (
            f"golden spans on re-parsed documents: {self.moved} re-found at new places, {self.kept} unchanged, "
            f"{len(self.lost)} lost"
        )
        if self.lost:
            text += (
                " (their text is not in the new Markdown; kept as quotes that match nothing, so evaluation "
                f"counts them as missed: {', '.join(self.lost)})"
            )
        return text


def reanchor_golden_set(
    golden: GoldenSet, documents: Mapping[str, Rewritten], report: AnchorReport
) -> tuple[GoldenQuery, ...]:
    """The set's queries with their span items on ``documents`` (every name a document goes by ->
    its Markdown before and after) re-anchored; ``report`` counts what happened."""
    queries = []
    for query in golden.queries:
        items = []
        for item in query.relevant:
            document = documents.get(item.doc)
            if document is None or not item.is_span:
                items.append(item)
                continue
            anchored = reanchor_item(item, document)
            if anchored.status == LOST:
                report.lost.append(f"{golden.name}: {query.id} ({item.doc})")
            elif anchored.status == MOVED:
                report.moved += 1
            else:
                report.kept += 1
            items.append(anchored.item)
        queries.append(replace(query, relevant=tuple(items)))
    return tuple(queries)


def _home_golden_sets(home: Path) -> list[tuple[Path, GoldenSet]]:
    folder = Path(home) / "golden_sets"
    found = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        try:
            found.append((path, golden_sets.load(path)))
        except golden_sets.GoldenSetError:
            continue  # a malformed set is reported where it is used; it is not ours to rewrite
    return found


def span_judged_documents(home: Path) -> set[str]:
    """Every document name a span item of a golden set in ``<home>/golden_sets`` uses."""
    return {
        item.doc
        for _path, golden in _home_golden_sets(home)
        for query in golden.queries
        for item in query.relevant
        if item.is_span
    }


def reanchor_home_golden_sets(home: Path, documents: Mapping[str, Rewritten]) -> AnchorReport:
    """Re-anchor every golden set file in ``<home>/golden_sets``, rewriting those that change."""
    report = AnchorReport()
    for path, golden in _home_golden_sets(home) if documents else []:
        queries = reanchor_golden_set(golden, documents, report)
        if queries != golden.queries:
            golden_sets.save(replace(golden, queries=queries), path)
            report.rewritten_sets.append(path.name)
    return report
