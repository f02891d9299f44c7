"""The language guard: a dense route whose model cannot read the query gets no vote in fusion.

all-MiniLM-L6-v2 was trained on English; on a Chinese query its ranking is close to random,
and in hybrid mode that noise gets half the vote (CMRC 2018, span level: BM25 0.9157, hybrid
0.5605). With ``retrieval.language_guard = auto`` fusion then uses the other routes only; the
dense list is still computed and shown, and the trace says in words why it did not vote.
``off`` keeps the dense vote whatever the language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workbench.language.coverage import Coverage, coverage, suggest_models
from workbench.language.scripts import LanguageMix
from workbench.models.availability import card_for
from workbench.models.catalogue import EMBEDDING, RERANK

AUTO, OFF = "auto", "off"
GUARD_SETTINGS: tuple[str, ...] = (AUTO, OFF)


@dataclass(frozen=True)
class LanguageCheck:
    """The query's language, whether the models read it, and what the guard did about it."""

    setting: str  # auto | off
    query: LanguageMix
    embedding: Coverage
    rerank: Coverage | None
    dense_votes: bool  # False: the dense route is left out of fusion
    note: str  # "" when there is nothing to say

    def to_dict(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "query_language": self.query.language,
            "query_scripts": self.query.counts,
            "embedding": self.embedding.to_dict(),
            "rerank": self.rerank.to_dict() if self.rerank else None,
            "dense_votes": self.dense_votes,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LanguageCheck:
        def coverage_of(values: Mapping[str, Any]) -> Coverage:
            return Coverage(
                values["model"],
                values["model_languages"],
                values["text_language"],
                values["uncovered_share"],
                values.get("covered"),
            )

        rerank = data.get("rerank")
        return cls(
            data["setting"],
            LanguageMix(dict(data.get("query_scripts", {}))),
            coverage_of(data["embedding"]),
            coverage_of(rerank) if rerank is not None else None,
            bool(data["dense_votes"]),
            data.get("note", ""),
        )


def check_language(query: str, setting: str, mode: str, embedding_model: str, rerank_model: str = "") -> LanguageCheck:
    if setting not in GUARD_SETTINGS:
        raise ValueError(f"retrieval.language_guard must be one of {', '.join(GUARD_SETTINGS)}; got {setting!r}")
    mix = LanguageMix.of(query)
    dense = coverage(card_for(embedding_model, EMBEDDING), mix)
    rerank = coverage(card_for(rerank_model, RERANK), mix) if rerank_model.strip() else None
    uses_dense = mode in ("dense", "hybrid")
    unread = uses_dense and dense.covered is False
    dense_votes = not (unread and mode == "hybrid" and setting == AUTO)
    return LanguageCheck(setting, mix, dense, rerank, dense_votes, _note(mode, setting, dense, mix) if unread else "")


def _note(mode: str, setting: str, dense: Coverage, mix: LanguageMix) -> str:
    reading = f"{dense.model} covers {dense.model_languages}; the query is {dense.text_language}"
    if mode == "dense":
        return (
            f"dense route ranks a query its model cannot read: {reading}. Expect near-random results; "
            "use hybrid or bm25, or pick a multilingual model."
        )
    if setting == AUTO:
        better = suggest_models(mix, EMBEDDING)
        pick = (
            f"a model that reads {dense.text_language}: {better}, on the Models page"
            if better
            else "a multilingual model"
        )
        return f"dense route left out of fusion: {reading}. To use it, pick {pick}."
    return f"{reading}; the dense route still votes in fusion because retrieval.language_guard = off."
