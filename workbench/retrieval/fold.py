"""Fold near-identical passages: a paragraph repeated in every chapter takes one place in the list.

A handbook that closes each chapter with the same boilerplate ("### 延伸思考 ...") has one chunk
of it per chapter; all of them match a query equally well, so without folding they fill the
results. Folding walks the ranked list best first and keeps a hit only if it is not the same
passage as a hit kept before it; a repeat becomes one of that hit's *places* (its chunk id, and
so its document, section and page), and the next distinct hit moves up into the place it left.

Two chunks are the same passage when their normalized texts are equal, or when the Jaccard
similarity of their 5-character shingle sets reaches ``fold.threshold`` (0.9 by default).
Normalizing takes Unicode width forms (NFKC), case, Markdown markers (``#``, ``*``, ``>``...)
and whitespace out, so a repeat written with a different heading level or line wrapping still
matches. Shingles of characters rather than words work the same on Chinese, which has no spaces,
and on English. A one-character change in a 1,000-character chunk changes about 5 of its ~1,000
shingles (J ≈ 0.99), a different chapter number or date a few more; two passages that only share
a sentence or a phrase stay far below 0.9.

Each new hit is compared with the hits kept so far, not with every place: a chain of small edits
does not merge passages that differ a lot. Candidate pairs come from prefix filtering (Chaudhuri
et al., 2006): with the shingles in one global order, two sets with Jaccard >= t must share one of
their first ``|A| - ceil(t |A|) + 1`` shingles, so only pairs that do are measured, and the
result is exactly what comparing every pair would give.

The pipeline's final stage folds: it reads the texts of the hits it walks, and walks only until
it holds ``top_k`` distinct hits, so a repeat ranked below that point is not listed among the places.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from workbench.retrieval.ranking import RankedList
from workbench.retrieval.stages import FINAL
from workbench.retrieval.trace import Trace

SHINGLE = 5
# Markdown markup a repeat may carry differently (heading level, emphasis, list or quote marks)
_MARKUP = re.compile(r"[#*_>`|~\-]+")
_SPACE = re.compile(r"\s+")


def normalized(text: str) -> str:
    """The text as folding compares it: NFKC, case-folded, without Markdown markers, one space per run."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", _MARKUP.sub(" ", text)).strip()


def shingles(text: str) -> frozenset[int]:
    """Hashes of the normalized text's 5-character windows (the whole text when shorter)."""
    if len(text) <= SHINGLE:
        return frozenset((hash(text),))
    return frozenset(hash(text[i : i + SHINGLE]) for i in range(len(text) - SHINGLE + 1))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    if not a and not b:
        return 1.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


@dataclass(frozen=True)
class Folding:
    """The folded list, and for each kept hit that stands for repeats, their chunk ids in rank order
    with each one's overlap with it (``places``: kept chunk id -> ((chunk id, Jaccard), ...))."""

    ranked: RankedList
    places: Mapping[int, tuple[tuple[int, float], ...]] = field(default_factory=dict)
    walked: int = 0  # hits whose texts were read and compared

    def details(self) -> dict[int, dict[str, object]]:
        """The trace's per-chunk details: a kept hit's other places, a repeat's hit and overlap."""
        built: dict[int, dict[str, object]] = {}
        for kept, repeats in self.places.items():
            built[kept] = {"places": [chunk_id for chunk_id, _ in repeats]}
            for chunk_id, overlap in repeats:
                built[chunk_id] = {"folded_into": kept, "overlap": round(overlap, 4)}
        return built


@dataclass
class _Kept:
    position: int
    shingles: frozenset[int]


def fold(
    current: RankedList,
    text_of: Callable[[int], str],
    top_k: int,
    threshold: float,
    name: str = FINAL,
) -> Folding:
    """Fold ``current`` best first until it holds ``top_k`` distinct hits; the rest follows as it was.

    ``text_of(chunk_id)`` gives a chunk's text (read only for the hits walked). A kept hit keeps
    its own score and the rank of the best of its places.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"fold.threshold must be in (0, 1], got {threshold}")
    if top_k < 1:
        raise ValueError(f"fold needs top_k >= 1 (retrieval.top_k), got {top_k}")
    kept: list[_Kept] = []
    by_text: dict[str, int] = {}  # normalized text -> index into kept
    by_prefix: dict[int, list[int]] = {}  # a prefix shingle -> indices into kept
    places: dict[int, list[tuple[int, float]]] = {}
    walked = 0
    for position, chunk_id in enumerate(current.ids):
        if len(kept) == top_k:
            break
        walked += 1
        text = normalized(text_of(chunk_id))
        same = by_text.get(text)
        if same is not None:
            places.setdefault(current.ids[kept[same].position], []).append((chunk_id, 1.0))
            continue
        own = shingles(text)
        ordered = sorted(own)
        prefix = ordered[: len(ordered) - math.ceil(threshold * len(ordered)) + 1]
        best, best_overlap = None, 0.0
        for index in sorted({index for shingle in prefix for index in by_prefix.get(shingle, ())}):
            overlap = jaccard(own, kept[index].shingles)
            if overlap >= threshold and overlap > best_overlap:
                best, best_overlap = index, overlap
        if best is not None:
            places.setdefault(current.ids[kept[best].position], []).append((chunk_id, best_overlap))
            continue
        by_text[text] = len(kept)
        for shingle in prefix:
            by_prefix.setdefault(shingle, []).append(len(kept))
        kept.append(_Kept(position, own))
    rest = range(walked, len(current.ids))
    order = [item.position for item in kept] + list(rest)
    ranked = RankedList(
        name,
        tuple(current.ids[i] for i in order),
        tuple(current.doc_ids[i] for i in order),
        tuple(current.scores[i] for i in order),
    )
    return Folding(ranked, {kept_id: tuple(repeats) for kept_id, repeats in places.items()}, walked)


#: a folded hit's chunk id -> the chunk ids of its other places, best ranked first
FoldedPlaces = Mapping[int, Sequence[int]]


def folded_places(trace: Trace) -> dict[int, tuple[int, ...]]:
    """The other places of each folded hit of ``trace``'s final list ({} when nothing folded)."""
    stage = trace.stage(FINAL)
    if stage is None:
        return {}
    return {chunk_id: tuple(detail["places"]) for chunk_id, detail in stage.details.items() if "places" in detail}
