"""The confidence verdict on the bundled demo with the default configuration.

The demo's golden queries have answers in the demo collection; the 30 off-topic queries in
``off_topic_queries.jsonl`` (English, Chinese and nonsense) have none. The test runs both as one
golden set through evaluation and prints the two rates the verdict is held to: answerable
queries that get ``relevant`` or ``ambiguous``, and off-topic queries that get ``no_answer``.
"""

from __future__ import annotations

from pathlib import Path

from workbench.demo import DEMO_DIR
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.golden import GoldenSet
from workbench.evaluation.runner import evaluate_collection

OFF_TOPIC = Path(__file__).with_name("off_topic_queries.jsonl")


def test_off_topic_queries_cover_three_kinds():
    queries = golden_sets.load(OFF_TOPIC).queries
    assert len(queries) == 30 and all(q.is_no_answer for q in queries)
    assert {q.id.split("-")[0] for q in queries} == {"en", "zh", "nonsense"}


def test_demo_answers_and_abstains(demo_home):
    from workbench.service import Workbench

    bench = Workbench(demo_home)
    demo, off_topic = golden_sets.load(DEMO_DIR / "golden.jsonl"), golden_sets.load(OFF_TOPIC)
    combined = GoldenSet("demo+off-topic", demo.queries + off_topic.queries)
    result = evaluate_collection(bench, "demo", combined, bench.config_for("demo"), metric_names=["ndcg@10"])
    report = result.abstention
    assert (report.answerable, report.no_answer) == (len(demo), 30)
    answered = report.answered_rate
    print(
        f"\ndemo golden queries answered (relevant or ambiguous): {report.answerable - report.abstained_on_answerable}"
        f"/{report.answerable} = {answered:.1%}; off-topic queries with no_answer: {report.abstained_on_no_answer}"
        f"/{report.no_answer} = {report.recall:.1%}; abstention precision {report.precision:.1%}"
    )
    assert answered >= 0.9
    assert report.recall >= 0.9


def test_a_question_the_demo_answers_is_not_ambiguous_for_its_function_words(demo_home):
    """The demo never writes "does": counted as an unseen term it weighed as the rarest one and
    made this answered question "ambiguous" (issue 36)."""
    from workbench.service import Workbench

    bench = Workbench(demo_home)
    query = "How does reciprocal rank fusion combine BM25 and dense results?"
    confidence = bench.query(query, "demo", bench.config_for("demo")).confidence
    assert confidence.verdict == "relevant", confidence.reason
    assert "doe" not in confidence.signal("terms").numbers["idf"]
