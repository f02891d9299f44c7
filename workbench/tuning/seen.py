"""Which golden queries a tuned preset's study saw, from the provenance ``tune`` saved with it.

The split is seeded (``workbench.tuning.split``), so the provenance's golden set, split and seed
give back the queries the study tuned on: with one holdout, the tuning part (the winner saved was
chosen on it); with nested cross-validation, every scorable query (the configuration saved comes
from the final study on all of them). ``check`` says how many of the queries it compares the
study saw, and ``--held-out-only`` compares on the others.

The split is recomputed on the golden set as it is now. When the set is not the one the study
used, or its content changed since (the provenance records its hash), that is said too: the
recomputed split may then differ from the study's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from workbench.evaluation.golden import GoldenSet, content_hash
from workbench.tuning.split import DEFAULT_HOLDOUT, all_queries, holdout_split


@dataclass(frozen=True)
class StudyQueries:
    study: str
    golden: str  # the golden set the study tuned on
    tuned_on: frozenset[str]  # query ids
    caveat: str = ""  # why the recomputed split may not be the study's ("" when it is)

    def describe(self, compared: frozenset[str]) -> str:
        seen = len(compared & self.tuned_on)
        text = f"the candidate's study {self.study} tuned on {seen} of the {len(compared)} queries compared" + (
            " (pass --held-out-only to compare on the others)" if seen else ""
        )
        return text + (f"; {self.caveat}" if self.caveat else "")


def study_queries(provenance: Mapping[str, object] | None, golden: GoldenSet) -> StudyQueries | None:
    """The queries of ``golden`` a tuned preset's study saw; None for a preset saved by hand."""
    if not provenance or provenance.get("tool") != "tune":
        return None
    study = str(provenance.get("study", "?"))
    used = str(provenance.get("golden", ""))
    if used != golden.name:
        return StudyQueries(study, used, frozenset(), f"it tuned on golden set {used!r}, not {golden.name!r}")
    caveat = ""
    if provenance.get("golden_hash") and provenance.get("golden_hash") != content_hash(golden):
        caveat = (
            f"golden set {golden.name!r} changed since the study (content hash {provenance.get('golden_hash')} "
            f"then, {content_hash(golden)} now), so its split is recomputed on the set as it is now"
        )
    split = provenance.get("split")
    split = split if isinstance(split, Mapping) else {}
    seed = provenance.get("seed", 0)
    seed = seed if isinstance(seed, int) else 0
    if split.get("folds"):
        tuned = frozenset(q.id for q in all_queries(golden).queries)
    else:
        holdout = split.get("holdout", DEFAULT_HOLDOUT)
        fraction = float(holdout) if isinstance(holdout, (int, float)) else DEFAULT_HOLDOUT
        tuned = holdout_split(golden, fraction, seed).tuning_ids
    return StudyQueries(study, used, tuned, caveat)
