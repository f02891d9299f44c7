"""One judge grading one pool, as the Judging page holds it between keys.

A key must draw the next chunk at once, and storing a grade costs the catalog a commit (20-40 ms
on a laptop's disk, more under load). So a session keeps the judge's grades in memory, reads the
next chunk and the progress from there, and stores each grade (or undo) in the background, in
the order given (``store.background_writes``). A session is loaded after every write queued
before it is stored, so a new session, another judge's or this one's after a reload, never
misses a grade. A write that fails is reported by ``failures``; the caller then loads the
session again, and the chunk whose grade was lost comes back to be graded.

    session = JudgingSession.load(bench.catalog, "my-pool", "Ada")
    session.grade(session.upcoming(1)[0], 2)   # in memory now, in the catalog a moment later
    session.undo()                              # the 2 again
    session.progress()
"""

from __future__ import annotations

from dataclasses import dataclass

from store.background_writes import background_writes
from store.catalog import Catalog
from workbench.golden import judging
from workbench.golden.judging import Judgement, PoolItem, PoolRow, Progress

ChunkKey = tuple[str, int]  # (query id, chunk id): what one judgement grades


@dataclass
class JudgingSession:
    """A judge's grades of a pool, kept in memory and stored behind them."""

    catalog: Catalog
    row: PoolRow
    items: tuple[PoolItem, ...]
    judge: str
    mine: list[Judgement]

    @classmethod
    def load(cls, catalog: Catalog, pool: str, judge: str) -> JudgingSession:
        """The pool and the judge's grades as stored, once every queued write is."""
        settle_grades(catalog)
        with catalog.connect():  # the reads in one transaction
            row, items = judging.load_pool(catalog, pool)
            everyone = judging.judgements(catalog, pool)
        return cls(catalog, row, tuple(items), judge, [given for given in everyone if given.judge == judge])

    @property
    def pool(self) -> str:
        return self.row.name

    @property
    def owner(self) -> tuple[str, str]:
        """Whose writes these are: a session loaded again for the pool and judge hears of the
        failures of the one before it."""
        return (self.pool, self.judge)

    def grade(self, item: PoolItem, grade: int) -> Judgement:
        """Grade ``item`` (replacing this judge's earlier grade of it); stored in the background."""
        given = judging.new_judgement(self.pool, item, grade, self.judge)  # JudgingError before anything changes
        self.mine = [earlier for earlier in self.mine if _key(earlier) != _key(given)] + [given]
        background_writes(self.catalog).submit(
            lambda catalog: judging.record(catalog, self.pool, item, grade, self.judge),
            f"grade {grade} of chunk {item.chunk_id} (query {item.query_id!r}, pool {self.pool!r})",
            owner=self.owner,
        )
        return given

    def undo(self) -> Judgement | None:
        """Take back this judge's last grade; None when there is none."""
        if not self.mine:
            return None
        last = self.mine.pop()
        background_writes(self.catalog).submit(
            lambda catalog: judging.withdraw(catalog, last),
            f"undo of the grade of chunk {last.chunk_id} (query {last.query_id!r}, pool {self.pool!r})",
            owner=self.owner,
        )
        return last

    def upcoming(self, count: int) -> list[PoolItem]:
        """The next ``count`` chunks this judge has not graded, in the order they are shown."""
        return judging.upcoming_unjudged(list(self.items), self.mine, count)

    def progress(self) -> Progress:
        return judging.progress(list(self.items), self.mine)

    def failures(self) -> list[str]:
        """This judge's grades and undos in this pool that could not be stored, since last asked.
        The session's memory then differs from the catalog: load it again."""
        return background_writes(self.catalog).failures(owner=self.owner)


def settle_grades(catalog: Catalog) -> None:
    """Wait until every grade and undo given so far is in the catalog (before reading it)."""
    background_writes(catalog).settle()


def _key(given: Judgement) -> ChunkKey:
    return (given.query_id, given.chunk_id)
