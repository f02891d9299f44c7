"""Answer evaluation against the fake endpoint: faithful answers outscore scripted unfaithful ones."""

from __future__ import annotations

from workbench.evaluation.answers import judge_answer
from workbench.llm.client import LlmClient
from workbench.retrieval.trace import ChunkView


def _chunk(chunk_id: int, text: str, source: str = "guide.md") -> ChunkView:
    return ChunkView(chunk_id, 1, source, None, "md", "Guide", ("Fusion",), None, 0, len(text), text)


CHUNKS = [
    _chunk(1, "Reciprocal rank fusion adds one over sixty plus the rank for every list that returns a chunk."),
    _chunk(2, "BM25 saturates term frequency and normalises by document length."),
    _chunk(3, "The weather in spring is mild."),
]
QUESTION = "How does reciprocal rank fusion combine lists?"


def test_a_faithful_answer_is_judged_claim_by_claim(fake_llm):
    judgement = judge_answer(QUESTION, CHUNKS, LlmClient.from_env())
    # the fake answers with S1's first sentence, cited
    assert judgement.answer == (
        "Reciprocal rank fusion adds one over sixty plus the rank for every list that returns a chunk. [S1]"
    )
    assert judgement.metrics["faithfulness"] == 1.0
    assert judgement.metrics["citations_valid"] == 1.0
    # fake relevance: reciprocal, rank, fusion of {reciprocal, rank, fusion, combine, lists} -> round(10*0.6*1.5)
    assert judgement.metrics["answer_relevance"] == 0.9
    # only S1 shares >= 30% of the question's words: useful at rank 1 only
    assert [row["useful"] for row in judgement.context] == [True, False, False]
    assert judgement.metrics["context_precision"] == 1.0
    assert judgement.cost["calls"] == 1 + 1 + 1 + 3 and judgement.cost["prompt_tokens"] > 0
    assert {call["purpose"] for call in judgement.calls} == {
        "answer",
        "judge.faithfulness",
        "judge.answer_relevance",
        "judge.context_precision",
    }


def test_scripted_unfaithful_answers_rank_below_faithful_ones(fake_llm):
    faithful = judge_answer(QUESTION, CHUNKS, LlmClient.from_env()).metrics["faithfulness"]
    fake_llm.script(
        "Question: How does reciprocal rank fusion combine lists?",
        "Reciprocal rank fusion adds one over sixty plus the rank [S1]. It was invented at Google in "
        "2015 by a team of astronauts [S1]. It multiplies cosine similarities by BM25 weights [S2].",
        purpose="answer",
    )
    unfaithful = judge_answer(QUESTION, CHUNKS, LlmClient.from_env())  # a new client: nothing cached
    assert [claim["supported"] for claim in unfaithful.claims] == [True, False, False]
    assert unfaithful.metrics["faithfulness"] == 1 / 3 < faithful


def test_uncited_claims_and_unknown_labels_count_against_the_answer(fake_llm):
    fake_llm.script(
        "Question: How does", "Fusion adds reciprocal ranks [S1]. It is great. See also [S9].", purpose="answer"
    )
    judgement = judge_answer(QUESTION, CHUNKS, LlmClient.from_env())
    assert [(c["supported"], c["judged"]) for c in judgement.claims] == [(True, True), (False, False), (False, False)]
    assert judgement.metrics["faithfulness"] == 1 / 3
    assert judgement.metrics["citations_valid"] == 0.5


def test_chinese_answers_are_judged(fake_llm):
    chunks = [_chunk(1, "混合检索把稠密检索和稀疏检索的结果融合。"), _chunk(2, "今天天气很好。")]
    fake_llm.script(
        "Question: 混合检索", "混合检索把两种检索结果融合[S1]。它由月球上的团队发明[S1]。", purpose="answer"
    )
    judgement = judge_answer("混合检索如何融合结果？", chunks, LlmClient.from_env())
    assert [c["supported"] for c in judgement.claims] == [True, False]
    assert judgement.metrics["faithfulness"] == 0.5


def test_a_failing_endpoint_leaves_metrics_out_with_a_note(fake_llm):
    fake_llm.behaviour = "error"
    judgement = judge_answer(QUESTION, CHUNKS, LlmClient.from_env())
    assert judgement.metrics == {} and judgement.notes[0].startswith("no answer: ")
    assert "HTTP 500" in judgement.notes[0]


def test_garbage_judgements_leave_their_metric_out(fake_llm):
    fake_llm.script("Statement:", "maybe?", purpose="judge.faithfulness")
    judgement = judge_answer(QUESTION, CHUNKS, LlmClient.from_env())
    assert "faithfulness" not in judgement.metrics and "answer_relevance" in judgement.metrics
    assert judgement.notes[0].startswith("faithfulness left out: 1 of 1 claim judgements failed")
