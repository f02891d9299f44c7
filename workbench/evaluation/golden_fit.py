"""Which golden sets belong to a collection: the pickers offer those, not every set in the home.

A golden set names documents, not a collection, so the tie is read from what it judges: a set
belongs to a collection when at least half of the documents it judges are in the collection
(under any name a judgement may use: external id, file name, file stem). A set that judges no
document yet (a new set, one of only unanswerable questions) goes by its name: the collection's
own name, or the name followed by ``-`` (``notes-synth``, written from the collection's documents).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from workbench.evaluation import golden as golden_sets
from workbench.evaluation.golden import GoldenSet, GoldenSetError
from workbench.evaluation.relevance import document_names

#: the share of a set's judged documents a collection must hold for the set to count as its own
MIN_SHARE_FOUND = 0.5


def judged_documents(golden: GoldenSet) -> set[str]:
    """The document names a golden set judges (each as the set writes it)."""
    return {item.doc for query in golden.queries for item in query.relevant}


def collection_names(documents: Iterable[tuple[str, str | None]]) -> set[str]:
    """Every name a golden set may use for the collection's ``(source, external_id)`` documents."""
    return {name for source, external_id in documents for name in document_names(source, external_id)}


def belongs_to(golden: GoldenSet, collection: str, names: set[str]) -> bool:
    """Whether ``golden`` judges the collection whose documents go by ``names``."""
    share = share_found(golden, names)
    if not share.judged:
        return golden.name == collection or golden.name.startswith(f"{collection}-")
    return share.fits


@dataclass(frozen=True)
class Share:
    """How many of a set's judged documents a collection holds."""

    found: int
    judged: int

    @property
    def fits(self) -> bool:
        return self.judged == 0 or self.found >= MIN_SHARE_FOUND * self.judged

    def describe(self) -> str:
        return f"{self.found} of its {self.judged} judged documents ({self.found / max(1, self.judged):.0%})"


def share_found(golden: GoldenSet, names: set[str]) -> Share:
    judged = judged_documents(golden)
    return Share(sum(1 for doc in judged if doc in names), len(judged))


class GoldenMismatchError(GoldenSetError):
    """A golden set that judges another collection's documents; the message names the sets that fit."""


def sets_that_fit(home: Path, collection: str, names: set[str]) -> list[str]:
    """The golden sets of ``home`` (and the project's) that belong to ``collection``."""
    fitting = []
    for name in golden_sets.available(home):
        try:
            if belongs_to(golden_sets.find(name, home), collection, names):
                fitting.append(name)
        except GoldenSetError:
            continue  # a set that cannot be read is reported where it is opened
    return fitting


def preferred_set(home: Path, collection: str, names: set[str], fitting: list[str]) -> str | None:
    """The set a picker starts on among ``fitting``: the one whose judged documents the collection
    holds the largest share of (then the most of them; then the set named after the collection,
    then by name). Sets that judge no document yet come last: they say nothing about the documents."""

    def rank(name: str) -> tuple[bool, float, int, bool, str]:
        try:
            share = share_found(golden_sets.find(name, home), names)
        except GoldenSetError:
            share = Share(0, 0)
        fraction = share.found / share.judged if share.judged else 0.0
        return (share.judged == 0, -fraction, -share.found, name != collection, name)

    return min(fitting, key=rank) if fitting else None


def require_fit(golden: GoldenSet, collection: str, names: set[str], home: Path) -> None:
    """Refuse ``golden`` for ``collection`` when the collection holds fewer than half of the
    documents the set judges: every score would be about documents that are not there."""
    share = share_found(golden, names)
    if share.fits:
        return
    fitting = sets_that_fit(home, collection, names)
    offer = (
        f"sets that fit: {', '.join(fitting)}"
        if fitting
        else "no golden set fits it yet; make one on the Evaluation page (From your documents) or with "
        f"python -m workbench golden synth --collection {collection}"
    )
    raise GoldenMismatchError(
        f"golden set {golden.name!r} does not judge collection {collection!r}: the collection holds "
        f"{share.describe()}, fewer than the {MIN_SHARE_FOUND:.0%} needed; {offer}"
    )
