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
does not merge passages that differ a lot. Only candidate pairs are measured (exactly), found by
MinHash locality-sensitive hashing: 64 min-hashes of each shingle set in 16 bands of 4, a pair is
a candidate when one band agrees, which a pair at J misses with probability (1 - J^4)^16: 4e-8 at
J = 0.9, 2e-4 at the lowest threshold allowed, 0.8. Two unrelated passages (J about 0.1-0.2 from
shared common words) become candidates with probability 0.002-0.03, so a walk of 300 hits makes a
handful of exact comparisons instead of 45,000.

The pipeline's final stage folds: it reads the texts of the hits it walks, and walks only until
it holds ``top_k`` distinct hits, so a repeat ranked below that point is not listed among the places.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

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


# a large odd constant: the windows' polynomial hashes wrap around 2^64 well mixed
_BASE = np.uint64(0x9E3779B97F4A7C15)


def shingles(text: str) -> np.ndarray:
    """The distinct hashes of the text's 5-character windows (the whole text when shorter), sorted.

    A window's hash is the polynomial of its code points in ``_BASE`` modulo 2^64, computed for
    all windows at once; two different windows share a hash with probability about 2^-64."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    width = min(SHINGLE, len(codes))
    count = len(codes) - width + 1
    hashes = np.zeros(max(count, 1), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for offset in range(width):
            hashes = hashes * _BASE + codes[offset : offset + count]
    return np.unique(hashes)


_PERMUTATIONS, _BANDS = 64, 16
_ROWS = _PERMUTATIONS // _BANDS
_SEEDED = np.random.default_rng(48)
# odd multipliers: h -> a h + b (mod 2^64) is a permutation of the 64-bit hashes
_MULTIPLIERS = _SEEDED.integers(1, 2**63, size=_PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
_OFFSETS = _SEEDED.integers(0, 2**63, size=_PERMUTATIONS, dtype=np.uint64)


def bands(own: np.ndarray) -> list[bytes]:
    """The shingle set's MinHash signature cut into its 16 bands (keys for candidate pairs)."""
    with np.errstate(over="ignore"):
        # one row per permutation, added to in place and reduced along its contiguous row: the same
        # values as (own[:, None] * M + O).min(axis=0) at a third of the time
        permuted = np.multiply.outer(_MULTIPLIERS, own)
        permuted += _OFFSETS[:, None]
        signature = permuted.min(axis=1)  # a text has one shingle at least (``shingles``)
    return [signature[band * _ROWS : (band + 1) * _ROWS].tobytes() for band in range(_BANDS)]


@dataclass(frozen=True)
class _Signature:
    normalized: str
    shingles: np.ndarray
    keys: tuple[tuple[int, bytes], ...]  # (band, its min-hashes)


#: chunk texts whose signatures are kept: an evaluation's deep lists meet the same chunks query
#: after query (a signature is about 8 bytes per character of its chunk, so ~2 MB per 100 long chunks)
SIGNATURES_KEPT = 2048


@functools.lru_cache(maxsize=SIGNATURES_KEPT)
def _signature(text: str) -> _Signature:
    """What folding compares of a chunk's text, computed once per text (read-only values)."""
    own_text = normalized(text)
    own = shingles(own_text)
    own.flags.writeable = False  # shared between calls through the cache
    return _Signature(own_text, own, tuple(enumerate(bands(own))))


def forget_signatures() -> None:
    """Drop the kept signatures (``bench/bench_fold.py`` times folding on chunks it never met)."""
    _signature.cache_clear()


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """|A ∩ B| / |A ∪ B| of two sorted arrays of distinct shingle hashes."""
    common = len(np.intersect1d(a, b, assume_unique=True))
    total = len(a) + len(b) - common
    return common / total if total else 1.0


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
    shingles: np.ndarray


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
    by_band: dict[tuple[int, bytes], list[int]] = {}  # (band, its min-hashes) -> indices into kept
    places: dict[int, list[tuple[int, float]]] = {}
    walked = 0
    for position, chunk_id in enumerate(current.ids):
        if len(kept) == top_k:
            break
        walked += 1
        signature = _signature(text_of(chunk_id))
        text, own, keys = signature.normalized, signature.shingles, signature.keys
        same = by_text.get(text)
        if same is not None:
            places.setdefault(current.ids[kept[same].position], []).append((chunk_id, 1.0))
            continue
        best, best_overlap = None, 0.0
        for index in sorted({index for key in keys for index in by_band.get(key, ())}):
            overlap = jaccard(own, kept[index].shingles)
            if overlap >= threshold and overlap > best_overlap:
                best, best_overlap = index, overlap
        if best is not None:
            places.setdefault(current.ids[kept[best].position], []).append((chunk_id, best_overlap))
            continue
        by_text[text] = len(kept)
        for key in keys:
            by_band.setdefault(key, []).append(len(kept))
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
