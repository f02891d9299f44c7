"""``golden synth`` plans its set and judges repeated quotes everywhere: questions spread over
documents and languages with the counts printed, and a question quoting a sentence that recurs
(boilerplate closing every chapter) is judged at every place it occurs, across documents, or
dropped past ``synth.max_quote_places`` and counted by reason."""

from __future__ import annotations

import json
import re

import pytest

from tests.workbench.cli.test_cli_golden import read_set, rejected, run_cli
from tests.workbench.synth_fixtures import synth_config

ZH_BOILERPLATE = "本章内容仅供参考，具体以公司最新发布的制度为准。"
EN_BOILERPLATE = "This page is kept by the platform team and reviewed every quarter."
TOPICS = ("报销", "考勤", "招聘", "培训", "晋升", "请假", "出差", "采购", "安全", "保密")
HANDBOOK = "# 员工手册\n\n" + "".join(
    f"## 第{i + 1}章 {topic}\n\n第{i + 1}章讲{topic}的规定，{topic}事项须经部门负责人审批后办理。{ZH_BOILERPLATE}\n\n"
    for i, topic in enumerate(TOPICS)
)
ENGLISH = {
    "deploy.md": "# Deploy guide\n\n"
    f"The canary stage receives five percent of traffic for an hour. {EN_BOILERPLATE}\n\n"
    f"## Rollback\n\nA rollback restores the previous image tag within two minutes. {EN_BOILERPLATE}\n",
    "alerts.md": f"# Alerts\n\nPager alerts escalate to the secondary after fifteen silent minutes. {EN_BOILERPLATE}\n",
}


@pytest.fixture(scope="module")
def boiler(synth_home):
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    bench = Workbench(synth_home.home)
    documents = {"handbook.md": HANDBOOK, **ENGLISH}
    report = bench.ingest("boiler", [Source.from_markdown(n, t) for n, t in documents.items()], synth_config())
    assert not report.failures, report.summary()
    return synth_home.home


def script_boilerplate(fake_llm) -> None:
    """Each chapter's passage is asked about its topic and answered by the boilerplate that closes it."""
    for number, topic in enumerate(TOPICS, start=1):
        question = f"{topic}这一章在结尾提醒读者什么？"
        fake_llm.script(f"第{number}章讲{topic}", json.dumps({"question": question, "quote": ZH_BOILERPLATE}))
    for phrase, subject in (
        ("canary stage", "canary rollouts"),
        ("rollback restores", "rollbacks"),
        ("Pager", "pager escalation"),
    ):
        question = f"Who maintains the notes on {subject}?"
        fake_llm.script(phrase, json.dumps({"question": question, "quote": EN_BOILERPLATE}))


def places(markdown: str, sentence: str) -> list[int]:
    found, position = [], markdown.find(sentence)
    while position >= 0:
        found.append(position)
        position = markdown.find(sentence, position + 1)
    return found


def spread_table(out: str) -> dict[str, tuple[int, int]]:
    return {
        m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(r"^  (\S+)\s+(\d+)\s+(\d+)$", out, re.M)
    }


def test_a_repeated_sentence_is_judged_at_every_place_and_the_spread_is_printed(boiler, capsys, fake_llm):
    from workbench.service import Workbench

    script_boilerplate(fake_llm)
    code, out, err = run_cli(
        capsys, boiler, "golden", "synth", "-c", "boiler", "--n", 16, "--out", "boiler", "--kinds", "specific"
    )
    assert code == 0, err
    bench = Workbench(boiler)
    markdown = {doc: bench.markdown(bench.document(doc, "boiler").id)[0] for doc in ("handbook.md", *ENGLISH)}
    zh_places = {("handbook.md", start) for start in places(markdown["handbook.md"], ZH_BOILERPLATE)}
    en_places = {(doc, start) for doc in ENGLISH for start in places(markdown[doc], EN_BOILERPLATE)}
    assert len(zh_places) == 10 and len(en_places) == 3
    items = read_set(boiler, "boiler")
    quoting = {"zh": 0, "en": 0}
    for item in items:
        judged = {(r["doc"], r["start"]) for r in item["relevant"]}
        for r in item["relevant"]:
            assert markdown[r["doc"]][r["start"] : r["end"]] == r["quote"]
        if item["relevant"][0]["quote"] == ZH_BOILERPLATE:
            assert judged == zh_places and item["meta"]["places"] == [10]  # all ten, never one of them
            quoting["zh"] += 1
        elif item["relevant"][0]["quote"] == EN_BOILERPLATE:
            assert judged == en_places and item["meta"]["places"] == [3]  # across both documents
            quoting["en"] += 1
    assert quoting["zh"] >= 3 and quoting["en"] >= 2
    # the spread: every document gets synth.min_per_document (3) before the rest goes by text, except
    # that with one kind a document has one prompt per chunk to ask (alerts.md has two chunks)
    summary = json.loads((boiler / "golden_sets" / ".synth" / "boiler.summary.json").read_text("utf-8"))
    planned = {doc: d["planned"] for doc, d in summary["documents"].items()}
    assert sum(planned.values()) == 16 and planned["alerts.md"] == 2 and planned["deploy.md"] >= 3
    assert planned["handbook.md"] == max(planned.values())  # the most text, the most questions
    assert summary["languages"]["zh"]["kept"] == sum(1 for i in items if i["meta"]["language"] == "zh")
    assert summary["repeated_quotes"] == quoting["zh"] + quoting["en"]
    table = spread_table(out)
    for doc, counts in summary["documents"].items():
        assert table[doc] == (counts["planned"], counts["kept"])
    assert table["zh"] == (summary["languages"]["zh"]["planned"], summary["languages"]["zh"]["kept"])
    assert re.search(r"^per language: en \d+, zh \d+$", out, re.M)
    assert f"{summary['repeated_quotes']} kept questions quote a sentence found in several places" in out

    code, out, err = run_cli(
        capsys, boiler, "eval", "-c", "boiler", "--golden", "boiler", "--level", "span", "--no-store"
    )
    assert code == 0, err


def test_past_max_quote_places_the_question_is_dropped_and_counted(boiler, capsys, fake_llm):
    script_boilerplate(fake_llm)
    argv = ("golden", "synth", "-c", "boiler", "--n", 16, "--out", "capped", "--kinds", "specific")
    code, out, err = run_cli(capsys, boiler, *argv, "--set", "synth.max_quote_places=5")
    assert code == 0, err
    items = read_set(boiler, "capped")
    assert all(item["relevant"][0]["quote"] != ZH_BOILERPLATE for item in items)
    assert any(item["meta"]["places"] == [3] for item in items)  # three places is within five: kept
    summary = json.loads((boiler / "golden_sets" / ".synth" / "capped.summary.json").read_text("utf-8"))
    assert rejected(out)["quote repeated too often"] == summary["rejected"]["quote repeated too often"] >= 3
    journal = next((boiler / "golden_sets" / ".synth").glob("capped.*.journal.jsonl")).read_text("utf-8")
    assert "occurs in 10 places, more than synth.max_quote_places 5" in journal
