"""The Judging page under AppTest on a copy of the demo home: build a pool from typed questions, grade it
(undo included), resume, export a golden set; and the Retrieval lab's queries reaching the query log."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.golden import judging
from workbench.golden.judging_session import settle_grades
from workbench.golden.query_log import list_queries
from workbench.service import Workbench

PAGE = "app_pages/judging.py"
QUESTIONS = [
    "Autophagy declines in aged organisms.",
    "How does reciprocal rank fusion combine rankings?",
    "自噬在衰老的生物体中会减少吗？",
]


def _texts(app, kind: str) -> list[str]:
    return [str(element.value) for element in app.get(kind)]


def test_judge_a_typed_pool_with_undo_resume_and_export(demo_home_copy: Path, open_app):
    app = open_app(demo_home_copy, page=PAGE)
    assert not app.exception, app.exception
    assert any("No pool yet" in text for text in _texts(app, "alert") + _texts(app, "info"))
    app.text_area(key="judging_new_questions").set_value("\n".join(QUESTIONS))
    app.multiselect(key="judging_new_configs").set_value(["bm25", "dense"])
    app.number_input(key="judging_new_depth").set_value(1)
    app.text_input(key="judging_new_name").set_value("trio")
    app.button(key="judging_build").click().run()
    assert not app.exception, app.exception
    bench = Workbench(demo_home_copy)
    _, items = judging.load_pool(bench.catalog, "trio")
    assert {item.query for item in items} == set(QUESTIONS) and 3 <= len(items) <= 6

    app.text_input(key="judging_judge_input").set_value("Ada")  # a form: sent with its button
    app.button(key="judging_start").click().run()
    assert any("Judging as **Ada**" in text for text in _texts(app, "caption"))
    app.button(key="judging_grade_3").click().run()
    app.button(key="judging_grade_1").click().run()
    app.button(key="judging_undo").click().run()  # takes back the 1
    settle_grades(bench.catalog)  # grades are stored behind the keys
    assert [j.grade for j in judging.judgements(bench.catalog, "trio", "Ada")] == [3]
    assert any(f"1 of {len(items)} chunks judged" in str(p.text) for p in app.get("progress"))

    resumed = open_app(demo_home_copy, page=PAGE)  # a new session: same pool, picks up where Ada stopped
    resumed.text_input(key="judging_judge_input").set_value("Ada")
    resumed.button(key="judging_start").click().run()
    for position in range(len(items) - 1):
        resumed.button(key=f"judging_grade_{position % 4}").click().run()
        assert not resumed.exception, resumed.exception
    assert any("Every chunk of pool trio is judged" in text for text in _texts(resumed, "success"))
    resumed.text_input(key="judging_export_name_trio").set_value("trio-ada")
    resumed.button(key="judging_export").click().run()
    assert any("Golden set trio-ada: 3 queries" in text.replace("\\", "") for text in _texts(resumed, "success"))
    exported = [
        json.loads(line)
        for line in (demo_home_copy / "golden_sets" / "trio-ada.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert [q["query"] for q in exported] == QUESTIONS
    assert sum(len(q["relevant"]) for q in exported) == len(items)
    assert all("start" in item and "end" in item for q in exported for item in q["relevant"])


def test_retrieval_lab_queries_are_logged(demo_home_copy: Path, open_app):
    lab = open_app(demo_home_copy, page="app_pages/retrieval_lab.py")
    asked = ["autophagy aging", "rank fusion", "vector index", "BM25 scoring", "自噬"]
    for text in asked:
        lab.text_input(key="lab_query").set_value(text).run()
        assert not lab.exception, lab.exception
    bench = Workbench(demo_home_copy)
    logged = list_queries(bench.catalog, bench.home, sources=["lab"], limit=100)
    assert {entry.query for entry in logged} == set(asked)
    assert {entry.source for entry in logged} == {"lab"} and any(entry.chunk_ids for entry in logged)


def test_agreement_of_two_golden_sets_on_the_judging_page(demo_home_copy: Path, open_app):
    folder = demo_home_copy / "golden_sets"
    folder.mkdir(exist_ok=True)
    spans = [
        ("scifact-1084345.md", 0, 100),
        ("scifact-1084345.md", 100, 200),
        ("scifact-1084345.md", 200, 300),
        ("scifact-1084345.md", 300, 400),
        ("scifact-1084345.md", 400, 500),
    ]
    for name, grades in (("people", [0, 1, 2, 3, 3]), ("machine", [0, 2, 2, 3, 1])):
        relevant = [{"doc": d, "start": s, "end": e, "grade": g} for (d, s, e), g in zip(spans, grades, strict=False)]
        (folder / f"{name}.jsonl").write_text(
            json.dumps({"id": "q1", "query": QUESTIONS[0], "relevant": relevant}) + "\n", encoding="utf-8"
        )
    app = open_app(demo_home_copy, page=PAGE)
    app.selectbox(key="judging_agree_a").set_value("people")
    app.selectbox(key="judging_agree_b").set_value("machine")
    app.button(key="judging_agree").click().run()
    assert not app.exception, app.exception
    kappa = next(metric for metric in app.get("metric") if "kappa" in metric.label)
    assert kappa.value == f"{16 / 31:.3f}"  # worked by hand in tests/workbench/golden/test_golden_agreement.py


def test_a_golden_set_just_generated_is_offered_as_a_query_set_to_pool(demo_and_notes_home: Path, open_app):
    from tests.notes_collection import GENERATED, add_generated_set

    app = open_app(demo_and_notes_home, page=PAGE)
    app.sidebar.selectbox(key="collection").set_value("notes").run()
    add_generated_set(demo_and_notes_home)  # written by the Evaluation page while this page is open
    app.run()
    picker = app.selectbox(key="judging_new_query_set")
    assert GENERATED in picker.options or f"{GENERATED} (golden set)" in picker.options, picker.options
    assert not [option for option in picker.options if option.startswith("demo")]  # another collection's
    picker.set_value(GENERATED)
    app.multiselect(key="judging_new_configs").set_value(["bm25"])
    app.number_input(key="judging_new_depth").set_value(1)
    app.button(key="judging_build").click().run()
    assert not app.exception, app.exception
    _, items = judging.load_pool(Workbench(demo_and_notes_home).catalog, GENERATED)
    assert len({item.query for item in items}) == 2


def test_a_grade_the_catalog_could_not_store_is_said_and_its_chunk_comes_back(
    demo_home_copy: Path, open_app, monkeypatch
):
    from store.catalog import CatalogBusyError
    from store.judgements import PoolItem, PoolRow, save_pool

    bench = Workbench(demo_home_copy)
    items = [
        PoolItem(0, "q1", QUESTIONS[0], position, 100 + position, "scifact-1084345.md", 0, 80) for position in range(2)
    ]
    save_pool(bench.catalog, PoolRow("busy", "demo", "typed", [], 2, 0), items)
    record = judging.record

    def busy_once(*args, **kwargs):
        monkeypatch.setattr(judging, "record", record)
        raise CatalogBusyError("catalog stayed locked by another process for 60 s; wait for that ingest to finish")

    monkeypatch.setattr(judging, "record", busy_once)
    app = open_app(demo_home_copy, page=PAGE)
    app.text_input(key="judging_judge_input").set_value("Ada")  # a form: sent with its button
    app.button(key="judging_start").click().run()
    app.button(key="judging_grade_2").click().run()
    assert any("1 of 2 chunks judged" in str(p.text) for p in app.get("progress"))  # drawn before it is stored
    settle_grades(bench.catalog)
    app.run()
    errors = [text.replace("\\", "") for text in _texts(app, "error")]  # as read, not Markdown-escaped
    assert any("grade 2 of chunk 100" in text and "was not stored: catalog stayed locked" in text for text in errors), (
        errors
    )
    assert any("0 of 2 chunks judged" in str(p.text) for p in app.get("progress"))
    app.button(key="judging_grade_3").click().run()  # graded again, stored this time
    settle_grades(bench.catalog)
    assert [(j.chunk_id, j.grade) for j in judging.judgements(bench.catalog, "busy", "Ada")] == [(100, 3)]
