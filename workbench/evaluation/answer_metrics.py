"""Answer-quality metrics as pure functions over an answer, its context and the judges' verdicts.

The LLM judges (``workbench.evaluation.answers``) supply yes/no verdicts and scores; the
arithmetic is here, so it can be checked by hand:

- **faithfulness** = supported claims / claims. A claim is one sentence of the answer; it is
  judged against the passages it cites, and a claim that cites nothing (or only labels the
  context does not have) counts as unsupported. An answer with no claim scores 0.
- **answer relevance** = the judge's 0-10 score / 10.
- **context precision** (Ragas' formula) = sum over ranks k of precision@k * v_k, divided by the
  number of useful passages, where v_k = 1 when the passage at rank k is useful for answering;
  0 when none is. It rewards contexts whose useful passages come first.
- **citations valid** (deterministic) = cited labels the context has / cited labels.
  Absent when the answer cites nothing (faithfulness already punishes that).
- **quotes supported** (deterministic) = quoted spans found verbatim (case and spacing aside) in
  the passages their sentence cites / quoted spans; a sentence citing nothing is checked against
  every passage the answer cites. Absent when the answer quotes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ANSWER_METRICS = ("faithfulness", "answer_relevance", "context_precision", "citations_valid", "quotes_supported")

_LABEL = re.compile(r"\[(S\d+)\]")
# a sentence ends at . ! ? (followed by space or end) or at a CJK full stop, keeping citations after it
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s*(?:\[S\d+\])+)?(?=\s|$)|(?<=[。！？])(?:\s*(?:\[S\d+\])+)?")
_QUOTE = re.compile(r"\"([^\"]{4,})\"|“([^”]{4,})”|「([^」]{2,})」|『([^』]{2,})』")
_HAS_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class Claim:
    text: str  # the sentence, citations removed
    labels: tuple[str, ...]  # the [S#] labels it cites, in order
    sentence: str  # the sentence as written


def split_claims(answer: str) -> list[Claim]:
    """The answer's sentences with their citations; citation-only fragments join the sentence before."""
    claims: list[Claim] = []
    position = 0
    pieces = []
    for match in _SENTENCE_END.finditer(answer):
        pieces.append(answer[position : match.end()])
        position = match.end()
    pieces.append(answer[position:])
    for piece in pieces:
        sentence = piece.strip()
        if not sentence:
            continue
        labels = tuple(dict.fromkeys(_LABEL.findall(sentence)))
        text = " ".join(re.sub(r"\s*\[S\d+\]", "", sentence).split())
        if not _HAS_WORD.search(text):
            if claims and labels:
                last = claims[-1]
                claims[-1] = Claim(last.text, tuple(dict.fromkeys(last.labels + labels)), f"{last.sentence} {sentence}")
            continue
        claims.append(Claim(text, labels, sentence))
    return claims


def faithfulness(verdicts: Sequence[bool]) -> float:
    """Share of claims judged supported (0 for an answer without claims)."""
    return sum(1 for v in verdicts if v) / len(verdicts) if verdicts else 0.0


def answer_relevance(score_0_to_10: float) -> float:
    if not 0.0 <= score_0_to_10 <= 10.0:
        raise ValueError(f"answer relevance score must be 0-10, got {score_0_to_10}")
    return score_0_to_10 / 10.0


def context_precision(useful: Sequence[bool]) -> float:
    """sum_k precision@k * v_k / #useful, over the context's passages in rank order."""
    hits = 0
    total = 0.0
    for k, is_useful in enumerate(useful, start=1):
        if is_useful:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def citations_valid(answer: str, labels: Sequence[str]) -> float | None:
    """Cited labels that exist / cited labels; None when the answer cites nothing."""
    cited = list(dict.fromkeys(_LABEL.findall(answer)))
    if not cited:
        return None
    known = set(labels)
    return sum(1 for label in cited if label in known) / len(cited)


def quoted_spans(sentence: str) -> list[str]:
    return [next(group for group in match.groups() if group) for match in _QUOTE.finditer(sentence)]


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def quotes_supported(answer: str, passages: Mapping[str, str]) -> float | None:
    """Quoted spans found in their cited passages / quoted spans; None when nothing is quoted."""
    claims = split_claims(answer)
    all_cited = [label for claim in claims for label in claim.labels if label in passages]
    found = total = 0
    for claim in claims:
        where = [label for label in claim.labels if label in passages] or all_cited
        haystack = _normal("\n".join(passages[label] for label in where))
        for quote in quoted_spans(claim.sentence):
            total += 1
            found += int(bool(haystack) and _normal(quote) in haystack)
    return found / total if total else None
