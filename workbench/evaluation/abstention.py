"""Abstention: does the system say "no answer" exactly when the collection has none?

A golden query with an empty ``relevant`` list has no answer in the collection. The confidence
verdict abstains when it says ``no_answer``. Over a golden set:

- precision = abstentions on no-answer queries / all abstentions (how often "no answer" is right);
- recall = abstentions on no-answer queries / no-answer queries (how many of them it catches).

Precision is undefined (None) when the system never abstains, recall when the set has no
no-answer query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from workbench.retrieval.confidence import NO_ANSWER, VERDICTS


@dataclass(frozen=True)
class AbstentionReport:
    answerable: int  # queries with relevant items
    no_answer: int  # queries with an empty relevant list
    abstained_on_answerable: int  # wrong abstentions
    abstained_on_no_answer: int  # right abstentions
    verdicts: dict[str, int]  # verdict -> count over all queries

    @property
    def abstentions(self) -> int:
        return self.abstained_on_answerable + self.abstained_on_no_answer

    @property
    def precision(self) -> float | None:
        return self.abstained_on_no_answer / self.abstentions if self.abstentions else None

    @property
    def recall(self) -> float | None:
        return self.abstained_on_no_answer / self.no_answer if self.no_answer else None

    @property
    def answered_rate(self) -> float | None:
        """Share of answerable queries that did not get ``no_answer``."""
        return 1.0 - self.abstained_on_answerable / self.answerable if self.answerable else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "precision": self.precision, "recall": self.recall, "answered_rate": self.answered_rate}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AbstentionReport:
        return cls(
            int(data["answerable"]),
            int(data["no_answer"]),
            int(data["abstained_on_answerable"]),
            int(data["abstained_on_no_answer"]),
            dict(data.get("verdicts", {})),
        )

    def describe(self) -> str:
        def share(value: float | None) -> str:
            return "n/a" if value is None else f"{value:.4f}"

        return (
            f"abstention precision {share(self.precision)}, recall {share(self.recall)} "
            f"({self.abstained_on_no_answer} of {self.no_answer} no-answer queries got no_answer; "
            f"{self.abstained_on_answerable} of {self.answerable} answerable queries did too)"
        )


def abstention(answerable_verdicts: Sequence[str], no_answer_verdicts: Sequence[str]) -> AbstentionReport:
    counts = {verdict: 0 for verdict in VERDICTS}
    for verdict in (*answerable_verdicts, *no_answer_verdicts):
        counts[verdict] += 1
    return AbstentionReport(
        answerable=len(answerable_verdicts),
        no_answer=len(no_answer_verdicts),
        abstained_on_answerable=sum(v == NO_ANSWER for v in answerable_verdicts),
        abstained_on_no_answer=sum(v == NO_ANSWER for v in no_answer_verdicts),
        verdicts=counts,
    )
