"""Answer evaluation (``eval --answers``): generate a cited answer per golden query, then judge it.

Per query: the final hits (the configuration's ``retrieval.top_k``) are assembled into the
``[S1]...`` context exactly as the Retrieval lab shows it, the endpoint writes an answer with
the lab's prompt, and LLM judges score it (arithmetic in ``workbench.evaluation.answer_metrics``):

- faithfulness: one yes/no judgement per claim (sentence) against the passages it cites;
- answer relevance: one 0-10 judgement of how well the answer addresses the question;
- context precision: one yes/no judgement per context passage (is it useful for the answer?),
  given the golden answer when the set has one;
- and the deterministic checks: citations that exist, quotes found in their passages.

Everything the judges read that the user did not type (the passages, the generated answer and
its claims, the golden reference answer) goes in data blocks (``workbench.llm.prompt_data``),
and their verdicts are read strictly (``workbench.llm.replies``): a verdict that is not the
word or the grade asked for is a failed judgement with its reason, never a guess.

Cost per query: 1 answer + one call per claim + 1 + one call per context passage, all cached.
A judgement that fails (timeout, garbage) leaves its metric out for that query, with a note;
an answer that cannot be generated leaves the query without answer metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from workbench.evaluation import answer_metrics as am
from workbench.generation.answer import answer_request
from workbench.generation.citing import MatchedPlace
from workbench.generation.context import DEFAULT_BUDGET_CHARS, AssembledContext, assemble_context
from workbench.llm.client import LlmCall, LlmClient, LlmRequest, summarize_calls
from workbench.llm.prompt_data import data_block, with_data_rule
from workbench.llm.replies import parse_score_0_10, parse_yes_no
from workbench.retrieval.trace import ChunkView

FAITHFULNESS_VERSION = "judge.faithfulness@2"
RELEVANCE_VERSION = "judge.answer_relevance@2"
CONTEXT_PRECISION_VERSION = "judge.context_precision@2"
DEFAULT_TIMEOUT_S = 60.0

FAITHFULNESS_SYSTEM = with_data_rule(
    "You check whether a statement is supported by the given sources. Answer yes if the sources state it or "
    "directly imply it, no otherwise. Use only the sources, not outside knowledge. Reply with yes or no only."
)
RELEVANCE_SYSTEM = with_data_rule(
    "You rate how well an answer addresses a question. Score from 0 (does not address it, or declines to answer) "
    "to 10 (answers exactly what was asked, completely). Do not judge whether it is true. Reply with the score as "
    "a whole number, nothing else."
)
CONTEXT_PRECISION_SYSTEM = with_data_rule(
    "You judge whether a source passage is useful for answering a question. Answer yes if it contains information "
    "the answer needs, no otherwise. Reply with yes or no only."
)


class ClaimVerdict(TypedDict):
    """One claim (sentence) of the answer and whether the passages it cites support it."""

    text: str
    labels: list[str]  # the ``[S1]`` labels it cites
    supported: bool
    judged: bool  # False when it cites no passage of the context: it counts as unsupported


class PassageVerdict(TypedDict):
    """One context passage and whether the judge found it useful (None: the judgement failed)."""

    label: str
    chunk_id: int
    useful: bool | None


@dataclass
class AnswerJudgement:
    """One query's answer, its metrics, the verdicts behind them and what the calls cost."""

    answer: str
    metrics: dict[str, float]
    claims: list[ClaimVerdict] = field(default_factory=list)
    context: list[PassageVerdict] = field(default_factory=list)
    cost: dict[str, float] = field(default_factory=dict)  # ``summarize_calls``: calls, tokens, ms
    notes: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)  # every call: purpose, tokens, ms, cached

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnswerJudgement:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


def faithfulness_request(claim: am.Claim, context: AssembledContext, number: int) -> LlmRequest:
    sources = "\n\n".join(
        data_block(source.block, label) for label in claim.labels if (source := context.source(label)) is not None
    )
    user = f"Sources:\n\n{sources}\n\nStatement:\n{data_block(claim.text, 'statement')}\n\nSupported (yes/no):"
    return LlmRequest.of(
        "judge.faithfulness", FAITHFULNESS_VERSION, FAITHFULNESS_SYSTEM, user, max_tokens=4, label=f"claim {number}"
    )


def relevance_request(question: str, answer: str) -> LlmRequest:
    user = f"Question: {question}\n\nAnswer:\n{data_block(answer, 'answer')}\n\nScore (0-10):"
    return LlmRequest.of("judge.answer_relevance", RELEVANCE_VERSION, RELEVANCE_SYSTEM, user, max_tokens=8)


def context_precision_request(question: str, reference: str | None, text: str, label: str) -> LlmRequest:
    known = f"Reference answer:\n{data_block(reference, 'reference')}\n\n" if reference else ""
    user = f"Question: {question}\n\n{known}Passage:\n{data_block(text, 'passage')}\n\nUseful (yes/no):"
    return LlmRequest.of(
        "judge.context_precision", CONTEXT_PRECISION_VERSION, CONTEXT_PRECISION_SYSTEM, user, max_tokens=4, label=label
    )


def judge_answer(
    question: str,
    chunks: Sequence[ChunkView],
    llm: LlmClient,
    *,
    reference: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    places: Mapping[int, MatchedPlace] | None = None,
) -> AnswerJudgement:
    """Generate the answer for ``question`` from ``chunks`` (best first) and score it; ``places``
    (``citing.matched_places``) name the section and page each source is cited at."""
    context = assemble_context(list(chunks), budget_chars, places)
    calls: list[LlmCall] = []
    generated = llm.complete(answer_request(question, context), timeout_s=timeout_s)
    calls.append(generated)
    if not generated.ok:
        return AnswerJudgement(
            "",
            {},
            notes=[f"no answer: {generated.error}"],
            cost=summarize_calls(calls),
            calls=[c.to_dict() for c in calls],
        )
    answer = generated.text.strip()
    notes: list[str] = []
    metrics: dict[str, float] = {}
    passages = {source.label: source.text for source in context.sources}

    claims = am.split_claims(answer)
    judged = [
        (number, claim)
        for number, claim in enumerate(claims, start=1)
        if any(context.source(label) for label in claim.labels)
    ]
    verdict_calls = llm.complete_many(
        [faithfulness_request(claim, context, number) for number, claim in judged],
        timeout_s=timeout_s,
        parse=parse_yes_no,
    )
    calls += verdict_calls
    verdicts: dict[int, bool | None] = {number: None for number, _ in enumerate(claims, start=1)}
    failed = [call for call in verdict_calls if not call.ok]
    for (number, _), call in zip(judged, verdict_calls, strict=False):
        verdicts[number] = parse_yes_no(call.text) if call.ok else None
    claim_rows: list[ClaimVerdict] = [
        {
            "text": claim.text,
            "labels": list(claim.labels),
            "supported": bool(verdicts[number]) if number in dict(judged) else False,
            "judged": number in dict(judged),
        }
        for number, claim in enumerate(claims, start=1)
    ]
    if failed:
        notes.append(
            f"faithfulness left out: {len(failed)} of {len(verdict_calls)} claim judgements failed ({failed[0].error})"
        )
    else:
        metrics["faithfulness"] = am.faithfulness([row["supported"] for row in claim_rows])

    relevance = llm.complete(relevance_request(question, answer), timeout_s=timeout_s, parse=parse_score_0_10)
    calls.append(relevance)
    if relevance.ok:
        metrics["answer_relevance"] = am.answer_relevance(parse_score_0_10(relevance.text))
    else:
        notes.append(f"answer relevance left out: {relevance.error}")

    useful_calls = llm.complete_many(
        [context_precision_request(question, reference, source.text, source.label) for source in context.sources],
        timeout_s=timeout_s,
        parse=parse_yes_no,
    )
    calls += useful_calls
    context_rows: list[PassageVerdict] = [
        {"label": source.label, "chunk_id": source.chunk_id, "useful": parse_yes_no(call.text) if call.ok else None}
        for source, call in zip(context.sources, useful_calls, strict=False)
    ]
    if any(not call.ok for call in useful_calls):
        bad = next(call for call in useful_calls if not call.ok)
        notes.append(f"context precision left out: a passage judgement failed ({bad.error})")
    elif context_rows:
        metrics["context_precision"] = am.context_precision([bool(row["useful"]) for row in context_rows])

    valid = am.citations_valid(answer, list(passages))
    if valid is not None:
        metrics["citations_valid"] = valid
    quotes = am.quotes_supported(answer, passages)
    if quotes is not None:
        metrics["quotes_supported"] = quotes
    return AnswerJudgement(
        answer, metrics, claim_rows, context_rows, summarize_calls(calls), notes, [c.to_dict() for c in calls]
    )
