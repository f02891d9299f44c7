"""Does a model read the language a text is written in?

A model covers a script when one of its languages is written in it: all-MiniLM-L6-v2 (``en``)
covers Latin, bge-small-zh (``zh``) covers Han, multilingual models cover most scripts. A text is
covered when the model covers the scripts of the text's language (``scripts.text_language``'s
rule: "混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？" is Chinese, so all-MiniLM-L6-v2 does not
cover it though it reads its three English words). Models whose languages nobody declared are
"unknown": nothing is claimed about them either way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.language.scripts import (
    ARABIC,
    CYRILLIC,
    DEVANAGARI,
    GREEK,
    HAN,
    HANGUL,
    HEBREW,
    KANA,
    LATIN,
    OTHER,
    THAI,
    LanguageMix,
)
from workbench.models.catalogue import ModelCard, models

_NON_LATIN: dict[str, tuple[str, ...]] = {
    "zh": (HAN,),
    "ja": (HAN, KANA),
    "ko": (HANGUL, HAN),
    "ru": (CYRILLIC,),
    "uk": (CYRILLIC,),
    "bg": (CYRILLIC,),
    "be": (CYRILLIC,),
    "mk": (CYRILLIC,),
    "sr": (CYRILLIC, LATIN),
    "kk": (CYRILLIC,),
    "ky": (CYRILLIC,),
    "mn": (CYRILLIC,),
    "el": (GREEK,),
    "ar": (ARABIC,),
    "fa": (ARABIC,),
    "ur": (ARABIC,),
    "ps": (ARABIC,),
    "sd": (ARABIC,),
    "ug": (ARABIC,),
    "ku": (ARABIC, LATIN),
    "he": (HEBREW,),
    "yi": (HEBREW,),
    "hi": (DEVANAGARI,),
    "mr": (DEVANAGARI,),
    "ne": (DEVANAGARI,),
    "sa": (DEVANAGARI,),
    "th": (THAI,),
}
# Languages in scripts the detector does not name (Bengali, Tamil, Georgian, ...) count as Other.
_OTHER_SCRIPT = {"am", "as", "bn", "gu", "hy", "ka", "km", "kn", "lo", "ml", "my", "or", "pa", "si", "ta", "te"}


def scripts_of(languages: Iterable[str]) -> frozenset[str]:
    """The scripts a list of language codes is written in."""
    return _scripts_of(tuple(languages))


@functools.lru_cache(maxsize=256)  # every query asks about the same few models
def _scripts_of(languages: tuple[str, ...]) -> frozenset[str]:
    scripts: set[str] = set()
    for code in languages:
        code = code.lower().split("-")[0]
        if code in _NON_LATIN:
            scripts.update(_NON_LATIN[code])
        elif code in _OTHER_SCRIPT:
            scripts.add(OTHER)
        else:
            scripts.add(LATIN)
    return frozenset(scripts)


@dataclass(frozen=True)
class Coverage:
    """How well one model reads one text (a query, or a whole collection)."""

    model: str
    model_languages: str  # "en", "50+ languages", "unknown"
    text_language: str | None  # "zh", "en", ...; None when the text has no letters
    uncovered_share: float | None  # share of the text's units in scripts the model lacks; None = cannot tell
    #: whether the model covers the text's language: None when the model's languages or the text's are unknown
    covered: bool | None

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "model_languages": self.model_languages,
            "text_language": self.text_language,
            "uncovered_share": None if self.uncovered_share is None else round(self.uncovered_share, 4),
            "covered": self.covered,
        }


def coverage(card: ModelCard, mix: LanguageMix) -> Coverage:
    uncovered, covered = None, None
    if card.languages and mix.units:
        covered_scripts = scripts_of(card.languages)
        uncovered = 1.0 - mix.share_of(covered_scripts)
        language = mix.language
        needed = scripts_of([language]) if language else frozenset({mix.main_script or OTHER})
        covered = needed <= covered_scripts
    return Coverage(card.name, card.describe_languages(), mix.language, uncovered, covered)


def models_covering(mix: LanguageMix, kind: str) -> list[ModelCard]:
    """Catalogue models that cover the text's main script."""
    script = mix.main_script
    if script is None:
        return []
    return [card for card in models(kind) if script in scripts_of(card.languages)]


def suggest_models(mix: LanguageMix, kind: str, limit: int = 2) -> str:
    """``paraphrase-multilingual-MiniLM-L12-v2 (471 MB) or BAAI/bge-small-zh-v1.5 (96 MB)``: catalogue
    models that read the text, with what they download ("" when none does)."""
    cards = models_covering(mix, kind)[:limit]
    return " or ".join(f"{c.name} ({'bundled' if c.bundled else c.download_size})" for c in cards)


def collection_warning(card: ModelCard, mix: LanguageMix) -> str | None:
    """A warning when most of a collection is in a language its model does not cover, naming
    catalogue models that do; None when the model covers it (or nobody can tell)."""
    found = coverage(card, mix)
    if found.covered is not False:
        return None
    better = [
        f"{c.name} ({c.languages_note or c.describe_languages()}"
        + (f", {c.download_size} download)" if c.download_size and not c.bundled else ")")
        for c in models_covering(mix, card.kind)
    ]
    suggestion = f" Models that cover {found.text_language}: {', '.join(better)}." if better else ""
    return (
        f"{found.uncovered_share:.0%} of this collection's text ({mix.describe()}) is in a language "
        f"{card.name} does not cover (it covers {found.model_languages}), so its dense route ranks that text "
        f"almost at random. With retrieval.language_guard = auto, queries in {found.text_language} are answered "
        f"without the dense route.{suggestion}"
    )


#: chunks read to tell a collection's language mix (spread evenly over the collection)
COLLECTION_SAMPLE = 2000


#: a document's language is read from its first chunks, each up to this many characters
DOCUMENT_CHUNKS, DOCUMENT_CHARS = 2, 1500


@dataclass(frozen=True)
class DocumentLanguage:
    """One document whose language the collection's model does not cover."""

    doc_id: int
    mix: LanguageMix
    coverage: Coverage


@dataclass(frozen=True)
class CollectionLanguage:
    """A collection's language mix, whether its embedding model covers it, and the warning if not;
    and each document the model does not cover, even when the collection as a whole is covered."""

    mix: LanguageMix
    coverage: Coverage
    warning: str | None
    sampled: int  # chunks read
    total: int  # chunks in the collection
    uncovered: tuple[DocumentLanguage, ...] = ()


def collection_language(
    texts: Sequence[str], card: ModelCard, doc_ids: Sequence[int] | None = None
) -> CollectionLanguage:
    """``texts``: the chunk texts by position; ``doc_ids``: each position's document (per-document
    coverage is read only when they are given)."""
    step = max(1, len(texts) // COLLECTION_SAMPLE)
    sample = texts[::step][:COLLECTION_SAMPLE]
    mix = LanguageMix.of_texts(sample)
    uncovered = uncovered_documents(texts, doc_ids, card) if doc_ids is not None else ()
    return CollectionLanguage(
        mix, coverage(card, mix), collection_warning(card, mix), len(sample), len(texts), uncovered
    )


def uncovered_documents(texts: Sequence[str], doc_ids: Sequence[int], card: ModelCard) -> tuple[DocumentLanguage, ...]:
    """The documents in a language ``card`` does not cover, each read from its first chunks."""
    if not card.languages:
        return ()  # the model's languages are unknown: nobody can tell
    first_chunks: dict[int, list[int]] = {}
    for position, doc_id in enumerate(doc_ids):
        positions = first_chunks.setdefault(int(doc_id), [])
        if len(positions) < DOCUMENT_CHUNKS:
            positions.append(position)
    found = []
    for doc_id, positions in first_chunks.items():
        mix = LanguageMix.of_texts(texts[position][:DOCUMENT_CHARS] for position in positions)
        covered = coverage(card, mix)
        if covered.covered is False:
            found.append(DocumentLanguage(doc_id, mix, covered))
    return tuple(found)
