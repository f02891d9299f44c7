"""The Retrieval lab page under AppTest, on the bundled demo (see tests/app/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from tests.app.conftest import open_lab_panels, open_lab_settings
from workbench.service import Workbench
from workbench.ui.context_panel import PANEL_KEY as CONTEXT_PANEL
from workbench.ui.hit_explanation import PANEL_KEY as EXPLAIN_PANEL
from workbench.ui.lab_diff import DIFF_PANEL_KEY
from workbench.ui.lab_side import ALL_STAGES

PAGE = "app_pages/retrieval_lab.py"
GOLDEN_QUERY = "Autophagy declines in aged organisms."  # demo golden query scifact-148
GOLDEN_PICK = "demo · scifact-148"
RELEVANT_DOC = "scifact-1084345.md"
RELEVANT_SPAN = (319, 609)  # the span item scifact-148 has beside its document item


def _texts(app, *kinds: str) -> list[str]:
    return [element.value for kind in kinds for element in app.get(kind)]


def _final_table(app, side: str):
    """The final stage's table of one side: the first table under the verdict ("Final · n")."""
    container = app.get_by_key(f"side_{side}")
    tables = [node for node in container if node.type == "arrow_data_frame" or getattr(node, "type", "") == "dataframe"]
    finals = [t.value for t in tables if "rank" in t.value.columns and "snippet" in t.value.columns]
    return finals[0]


@pytest.fixture
def lab(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    assert not app.exception, app.exception
    return app


def test_an_empty_home_says_what_to_do(tmp_path: Path, open_app):
    app = open_app(tmp_path / "empty-home", page=PAGE)
    assert not app.exception
    infos = _texts(app, "info")
    assert any("no collection to search yet" in text and "Load the bundled demo" in text for text in infos)
    assert not app.get("dataframe")


def test_without_a_query_the_page_explains_the_next_step(lab):
    assert any("Type a query above" in text for text in _texts(lab, "info"))
    # the settings start folded, so a first query's verdicts and final lists are in view
    assert not [box for box in lab.toggle if box.key == "lab_a_mmr.enabled"]
    open_lab_settings(lab, "a", "b")
    # both sides are configured from the preset; B starts as A plus MMR
    assert lab.toggle(key="lab_a_mmr.enabled").value is False
    assert lab.toggle(key="lab_b_mmr.enabled").value is True
    assert any("Differs from A in: mmr.enabled = True" in text.replace("\\", "") for text in _texts(lab, "caption"))


@pytest.mark.parametrize("side", ["a", "b"])
def test_the_side_widgets_offer_exactly_the_configuration_limits(lab, side):
    from workbench.config import key_limits

    open_lab_settings(lab, side)

    numbers = {"retrieval.top_k", "retrieval.candidates", "fusion.k", "mmr.pool", "rerank.top_m", "dense.ef_search"}
    for key in numbers:
        widget = lab.number_input(key=f"lab_{side}_{key}")
        assert (widget.min, widget.max) == (key_limits(key).minimum, key_limits(key).maximum), key
    for weight in ("fusion.weights.dense", "fusion.weights.bm25"):
        widget = lab.number_input(key=f"lab_{side}_{weight}")
        assert (widget.min, widget.max) == (key_limits("fusion.weights").minimum, key_limits("fusion.weights").maximum)
    slider = lab.slider(key=f"lab_{side}_mmr.lambda")
    assert (slider.min, slider.max) == (key_limits("mmr.lambda").minimum, key_limits("mmr.lambda").maximum)
    for key in ("retrieval.mode", "fusion.method", "fusion.normalization"):
        assert tuple(lab.selectbox(key=f"lab_{side}_{key}").options) == key_limits(key).choices


def test_both_sides_render_stages_charts_diff_explain_and_context(lab):
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    assert not lab.exception, lab.exception
    for side in ("a", "b"):
        container = lab.get_by_key(f"side_{side}")
        stages = lab.segmented_control(key=f"lab_{side}_stage").options
        expected = [ALL_STAGES, "dense", "bm25", "fusion"] + (["mmr"] if side == "b" else []) + ["final"]
        assert [label.split(" · ")[0] for label in stages] == expected
        final = _final_table(lab, side)
        assert len(final) == 10 and list(final["rank"]) == list(range(1, 11))
    # the timings and rank flow wait in a folded panel a side, and explain and the context below
    # both sides; each is drawn once it is opened
    assert not lab.get("plotly_chart")
    assert not [code for code in _texts(lab, "code") if code.startswith(("BM25 = Σ", "[S1] "))]
    for side in ("a", "b"):
        lab.session_state[f"lab_{side}_timings"] = True
    open_lab_panels(lab, EXPLAIN_PANEL, CONTEXT_PANEL).run()
    for side in ("a", "b"):
        assert lab.get_by_key(f"rank_flow_{side}").type == "plotly_chart"
        container = lab.get_by_key(f"side_{side}")
        timings = [node.value for node in container if node.type == "arrow_data_frame" or node.type == "dataframe"]
        assert any("ms" in table.columns for table in timings), [list(table.columns) for table in timings]
    codes = _texts(lab, "code")
    assert any(code.startswith("BM25 = Σ") for code in codes)  # explain: BM25 arithmetic
    assert any(code.startswith("cos(q, c) =") for code in codes)  # explain: cosine
    assert any(code.startswith("RRF = ") for code in codes)  # explain: fusion sum
    assert any(code.startswith("[S1] ") for code in codes)  # the assembled context
    assert any("Question: How does reciprocal rank fusion combine rankings?" in code for code in codes)  # prompt
    assert any("A vs B" in header for header in _texts(lab, "subheader"))
    assert any("Answer generation is off: not configured" in text for text in _texts(lab, "info"))


def test_the_a_vs_b_table_shows_whole_ranks_and_a_dash_for_absent_ones(lab):
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    assert not lab.exception, lab.exception
    # folded, the table is not sent; the summary, the panel's label, is
    assert not [element for element in lab.get("dataframe") if "rank A" in element.value.columns]
    assert any("in both" in panel.label and "entered B" in panel.label for panel in lab.expander)
    open_lab_panels(lab, DIFF_PANEL_KEY).run()
    (diff,) = [element for element in lab.get("dataframe") if "rank A" in element.value.columns]
    frame = diff.value
    sent = pa.ipc.open_stream(diff.proto.arrow_data.data).schema  # what the browser's grid receives
    for column in ("rank A", "rank B"):
        assert sent.field(column).type == pa.int64()  # whole numbers, not 2.0000
        assert json.loads(diff.proto.columns)[column]["type_config"]["format"] == "%d"
    assert diff.proto.placeholder == "—"  # what a missing rank shows instead of None
    entered = frame[frame["status"] == "entered"]
    left = frame[frame["status"] == "left"]
    assert len(entered) and len(left)  # B's MMR changes the list: some chunks enter, some leave
    assert entered["rank A"].isna().all() and left["rank B"].isna().all()
    both = frame[frame["status"].isin(["moved", "same"])]
    assert set(both["rank A"]) | set(both["rank B"]) <= set(range(1, 11))


def _chunk_spans(home: Path) -> dict[int, tuple[str, str | None, int, int]]:
    """chunk id -> (file name, external id, start, end) in the demo collection's default layout."""
    bench = Workbench(home)
    snapshot = bench.snapshot("demo", bench.config_for("demo"))
    return {
        cid: (snapshot.documents[c.doc_id].source, snapshot.documents[c.doc_id].external_id, c.start, c.end)
        for cid, c in snapshot.chunks.items()
    }


def test_a_golden_query_highlights_its_relevant_chunks(lab, demo_home):
    lab.selectbox(key="lab_golden_pick").select(GOLDEN_PICK).run()  # picking a golden query fills the query box
    assert not lab.exception, lab.exception
    assert lab.text_input(key="lab_query").value == GOLDEN_QUERY
    successes = [text.replace("\\", "") for text in _texts(lab, "success")]
    assert any("golden set demo" in text for text in successes)
    spans = _chunk_spans(demo_home)
    for side in ("a", "b"):
        final = _final_table(lab, side)
        marked = final[final["✓"] == "✓"]
        assert len(marked) >= 1
        assert set(marked["document"]) == {RELEVANT_DOC}
        # the evaluation rules: the query's span supersedes its document item, so exactly the
        # document's chunks overlapping the span are marked, not every chunk of the document
        start, end = RELEVANT_SPAN
        in_final = final[final["document"] == RELEVANT_DOC]
        overlapping = {cid for cid in in_final["chunk"] if spans[cid][2] < end and start < spans[cid][3]}
        assert set(marked["chunk"]) == overlapping
        assert len(in_final) > len(marked)  # some chunks of the document lie outside the span


def _side_tables(app, side: str) -> list:
    container = app.get_by_key(f"side_{side}")
    return [node.value for node in container if node.type in ("arrow_data_frame", "dataframe")]


def test_every_stage_at_a_glance_first_and_a_stage_list_once_its_tab_is_picked(lab):
    lab.selectbox(key="lab_golden_pick").select(GOLDEN_PICK).run()
    assert not lab.exception, lab.exception
    # the first tab: one line a stage, with the ranks it gave the query's relevant chunks
    overview = [text for text in _texts(lab.get_by_key("side_a"), "markdown") if "hits ·" in text]
    lines = overview[0].replace("\\", "").split("  \n")
    assert [line.split(" · ")[0] for line in lines] == ["dense", "bm25", "fusion", "final"]
    final = _final_table(lab, "a")
    relevant_ranks = ", ".join(str(rank) for rank in final[final["✓"] == "✓"]["rank"])
    assert lines[-1].startswith("final · 10 hits · ") and lines[-1].endswith(f"relevant at {relevant_ranks}")
    # no stage's whole list is sent until its tab is picked: side A draws its final table only
    assert [len(table) for table in _side_tables(lab, "a")] == [10]
    picker = lab.segmented_control(key="lab_a_stage")
    assert picker.value == ALL_STAGES
    fusion_label = next(label for label in picker.options if label.startswith("fusion · "))
    picker.set_value(fusion_label).run()
    fusion = [table for table in _side_tables(lab, "a") if "dense rank" in table.columns]
    assert len(fusion) == 1 and len(fusion[0]) == int(fusion_label.split(" · ")[1])
    assert not [text for text in _texts(lab.get_by_key("side_a"), "markdown") if "hits ·" in text]
    # the picked stage stays open for the next queries, also when its count changes: a Chinese
    # query on the English demo, whose fusion returns nothing
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    assert [table for table in _side_tables(lab, "a") if "dense rank" in table.columns]
    lab.text_input(key="lab_query").set_value("倒数排名融合怎样合并两个排名？").run()
    assert not lab.exception, lab.exception
    assert lab.segmented_control(key="lab_a_stage").value == "fusion · 0"
    assert "the fusion stage returned nothing" in _texts(lab.get_by_key("side_a"), "caption")


def test_changing_a_parameter_reruns_that_side(lab):
    lab.text_input(key="lab_query").set_value(GOLDEN_QUERY).run()
    open_lab_settings(lab, "a", "b").number_input(key="lab_b_retrieval.top_k").set_value(3).run()
    assert not lab.exception, lab.exception
    assert len(_final_table(lab, "b")) == 3
    assert len(_final_table(lab, "a")) == 10
    assert any("retrieval.top_k = 3" in text.replace("\\", "") for text in _texts(lab, "caption"))
    lab.selectbox(key="lab_a_retrieval.mode").set_value("bm25").run()
    stages = lab.segmented_control(key="lab_a_stage").options
    assert [label.split(" · ")[0] for label in stages] == [ALL_STAGES, "bm25", "final"]


def test_a_missing_rerank_model_falls_back_with_a_note(lab):
    lab.text_input(key="lab_query").set_value(GOLDEN_QUERY).run()
    open_lab_settings(lab, "b").selectbox(key="lab_b_rerank.model").set_value("__other__").run()
    lab.text_input(key="lab_b_rerank.model_other").set_value("/no/such/cross-encoder").run()
    assert not lab.exception, lab.exception
    notes = [text.replace("\\", "") for text in _texts(lab, "info")]
    assert any("rerank fell back to the previous order" in text and "/no/such/cross-encoder" in text for text in notes)
    assert len(_final_table(lab, "b")) == 10  # the query is still answered


def test_the_rerank_field_offers_the_catalogue_and_names_the_download(lab, tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    picker = open_lab_settings(lab, "b").selectbox(key="lab_b_rerank.model")
    assert picker.value == ""
    assert list(picker.options)[:4] == [
        "none (no rerank)",
        "cross-encoder/ms-marco-MiniLM-L-6-v2 — en · 91 MB · not downloaded",
        "BAAI/bge-reranker-base — zh, en · 1.1 GB · not downloaded",
        "BAAI/bge-reranker-v2-m3 — 100+ languages · 2.3 GB · not downloaded",
    ]
    lab.text_input(key="lab_query").set_value(GOLDEN_QUERY).run()
    open_lab_settings(lab, "b").selectbox(key="lab_b_rerank.model").set_value("BAAI/bge-reranker-base").run()
    assert not lab.exception, lab.exception
    notes = [text.replace("\\", "") for text in _texts(lab, "info")]
    assert any(
        "rerank model 'BAAI/bge-reranker-base' is not available offline" in text
        and "python -m workbench models download BAAI/bge-reranker-base" in text
        for text in notes
    ), notes
    assert len(_final_table(lab, "b")) == 10


def test_each_side_shows_its_confidence_verdict(lab):
    lab.text_input(key="lab_query").set_value(GOLDEN_QUERY).run()
    assert not lab.exception, lab.exception
    verdicts = [text.replace("\\", "") for text in _texts(lab, "success", "warning")]
    assert sum(text.startswith(("**Relevant", "**Ambiguous")) for text in verdicts) == 2, verdicts
    assert not [t for t in lab.dataframe if "signal" in t.value.columns]  # folded: not drawn
    lab.session_state["lab_a_evidence"] = lab.session_state["lab_b_evidence"] = True
    open_lab_panels(lab, EXPLAIN_PANEL).run()  # and "Explain a hit", which names the verdict's terms signal
    evidence = [t.value for t in lab.dataframe if "signal" in t.value.columns]
    assert len(evidence) == 2 and list(evidence[0]["signal"]) == ["terms", "dense", "rerank"]
    assert any("This hit holds" in text and "idf weight" in text for text in _texts(lab, "caption"))

    lab.text_input(key="lab_query").set_value("怎样给猫咪剪指甲？").run()
    assert not lab.exception, lab.exception
    errors = [text.replace("\\", "") for text in _texts(lab, "error")]
    assert sum("No answer: no passage in the collection looks relevant" in text for text in errors) == 2, errors
    notes = [text.replace("\\", "") for text in _texts(lab, "info")]
    assert any("dense route left out of fusion: all-MiniLM-L6-v2 covers en; the query is zh." in t for t in notes)


def test_the_language_guard_is_a_side_setting(lab):
    assert open_lab_settings(lab, "b").selectbox(key="lab_b_retrieval.language_guard").value == "auto"
    lab.text_input(key="lab_query").set_value("检索增强生成").run()
    open_lab_settings(lab, "b").selectbox(key="lab_b_retrieval.language_guard").set_value("off").run()
    assert not lab.exception, lab.exception
    notes = [text.replace("\\", "") for text in _texts(lab, "info")]
    assert any("the dense route still votes in fusion because retrieval.language_guard = off" in t for t in notes)
    assert len(_final_table(lab, "b")) == 10  # with the dense vote back, B lists dense hits


def test_query_text_is_never_rendered_as_markdown_or_html(lab):
    open_lab_panels(lab, EXPLAIN_PANEL, CONTEXT_PANEL)  # every place the query is shown
    hostile = "<img src=x onerror=alert(1)> **bold** :red[alert] [link](http://example.com)"
    lab.text_input(key="lab_query").set_value(hostile).run()
    assert not lab.exception, lab.exception
    for text in _texts(lab, "markdown", "caption", "info", "success", "warning", "error"):
        assert "<img" not in text and "**bold**" not in text and ":red[" not in text and "](http" not in text
    assert any(hostile in code for code in _texts(lab, "code"))  # shown verbatim, as text


def test_settings_and_query_survive_a_visit_to_another_page(lab):
    lab.text_input(key="lab_query").set_value(GOLDEN_QUERY).run()
    open_lab_settings(lab, "b").number_input(key="lab_b_retrieval.top_k").set_value(4).run()
    lab.switch_page("app_pages/welcome.py").run()
    assert not lab.get("text_input") or all(w.key != "lab_query" for w in lab.get("text_input"))
    lab.switch_page(PAGE).run()
    assert not lab.exception, lab.exception
    assert lab.text_input(key="lab_query").value == GOLDEN_QUERY
    assert len(_final_table(lab, "b")) == 4  # the folded panel's setting holds
    assert open_lab_settings(lab, "b").number_input(key="lab_b_retrieval.top_k").value == 4


def test_a_side_that_fails_names_the_problem_and_the_other_side_still_renders(lab, monkeypatch):
    from workbench.service import Workbench

    real_query = Workbench.query

    def failing_for_mmr(self, text, collection, config, source=None):
        if config.mmr.enabled:
            raise RuntimeError("the MMR index exploded")
        return real_query(self, text, collection, config, source)

    monkeypatch.setattr(Workbench, "query", failing_for_mmr)
    open_lab_panels(lab, CONTEXT_PANEL)
    lab.text_input(key="lab_query").set_value("chunk overlap").run()
    assert not lab.exception, lab.exception
    errors = [text.replace("\\", "") for text in _texts(lab, "error")]
    assert any("Side B could not run: RuntimeError: the MMR index exploded" in text for text in errors)
    assert len(_final_table(lab, "a")) == 10
    assert not any("A vs B" in header for header in _texts(lab, "subheader"))  # no diff without B
    assert any(code.startswith("[S1] ") for code in _texts(lab, "code"))  # A's context still builds


def test_marking_a_hit_relevant_writes_the_golden_set_and_highlights_it(demo_home_copy: Path, open_app):
    query = "How does reciprocal rank fusion combine rankings?"  # in no golden set
    app = open_lab_panels(open_app(demo_home_copy, page=PAGE), EXPLAIN_PANEL)  # marking is part of explain
    app.text_input(key="lab_query").set_value(query).run()
    assert not app.exception, app.exception
    assert set(_final_table(app, "a")["✓"]) == {""}
    hit = app.selectbox(key="lab_explain_hit_a").value  # the first hit of A's final list
    assert hit == _final_table(app, "a")["chunk"].iloc[0]
    source, external_id, start, end = _chunk_spans(demo_home_copy)[hit]
    doc = external_id or source

    assert app.selectbox(key="lab_mark_set").value == "New golden set…"  # no set holds the query yet
    app.text_input(key="lab_mark_new_name").set_value("mine")
    app.radio(key="lab_mark_level").set_value("span")
    app.button(key="lab_mark").click().run()
    assert not app.exception, app.exception

    path = demo_home_copy / "golden_sets" / "mine.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"id": "q1", "query": query, "relevant": [{"doc": doc, "start": start, "end": end}]}
    ]
    assert app.selectbox(key="lab_mark_set").value == "mine"  # the new set is now chosen
    successes = [text.replace("\\", "") for text in _texts(app, "success")]
    assert any("query q1 of golden set mine" in text for text in successes)
    final = _final_table(app, "a")
    assert set(final[final["✓"] == "✓"]["chunk"]) >= {hit}
    assert all(
        spans_overlap(_chunk_spans(demo_home_copy)[cid], doc, start, end) for cid in final[final["✓"] == "✓"]["chunk"]
    )

    app.button(key="lab_unmark").click().run()
    assert not app.exception, app.exception
    assert json.loads(path.read_text(encoding="utf-8")) == {"id": "q1", "query": query, "relevant": []}
    assert set(_final_table(app, "a")["✓"]) == {""}


def spans_overlap(chunk: tuple[str, str | None, int, int], doc: str, start: int, end: int) -> bool:
    source, external_id, chunk_start, chunk_end = chunk
    return doc in (source, external_id) and chunk_start < end and start < chunk_end


def test_marking_needs_a_name_for_a_new_set(demo_home_copy: Path, open_app):
    app = open_lab_panels(open_app(demo_home_copy, page=PAGE), EXPLAIN_PANEL)
    app.text_input(key="lab_query").set_value("chunk overlap").run()
    app.button(key="lab_mark").click().run()
    assert not app.exception, app.exception
    assert any("Type a name for the new golden set first" in text for text in _texts(app, "error"))
    app.text_input(key="lab_mark_new_name").set_value("../escape").run()
    app.button(key="lab_mark").click().run()
    errors = [text.replace("\\", "") for text in _texts(app, "error")]
    assert any("golden set name '../escape' is not valid" in text for text in errors)
    assert sorted(p.name for p in (demo_home_copy / "golden_sets").iterdir()) == ["demo.jsonl"]


def _explain_picker(app, side: str = "a"):
    found = [box for box in app.selectbox if box.key == f"lab_explain_hit_{side}"]
    return found[0] if found else None


def test_explain_never_offers_a_previous_querys_hit_after_a_query_with_no_hits(lab):
    open_lab_panels(lab, EXPLAIN_PANEL)
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    picker = _explain_picker(lab)
    picker.select(picker.options[1]).run()  # the user explains the second hit
    # a Chinese query on the English demo: no BM25 term matches and the guard leaves dense out
    lab.text_input(key="lab_query").set_value("倒数排名融合的分数是怎么计算的？").run()
    assert not lab.exception, lab.exception
    assert any(text.startswith("**Final · 0** · ") for text in _texts(lab.get_by_key("side_a"), "caption"))
    assert _explain_picker(lab) is None
    assert any(
        "Side A returned no hits for this query, so there is none to explain" in text for text in _texts(lab, "caption")
    )


def test_a_new_query_explains_its_own_first_hit_not_the_last_pick(lab):
    open_lab_panels(lab, EXPLAIN_PANEL)
    second = "What is reciprocal rank fusion?"
    lab.text_input(key="lab_query").set_value(second).run()
    finals = [int(cid) for cid in _final_table(lab, "a")["chunk"]]
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    shared = [int(cid) for cid in _final_table(lab, "a")["chunk"] if int(cid) in finals[1:]]
    assert shared, "the two queries share no final hit beyond the second query's first"
    _explain_picker(lab).set_value(shared[-1]).run()
    lab.text_input(key="lab_query").set_value(second).run()
    assert not lab.exception, lab.exception
    assert _explain_picker(lab).value == finals[0]


def _side_captions(app, side: str) -> list[str]:
    return [text.replace("\\", "") for text in _texts(app.get_by_key(f"side_{side}"), "caption")]


def _open_timings(app, side: str):
    """Open the side's "Timings and rank flow" panel, where "Time again" is, as a click does."""
    app.session_state[f"lab_{side}_timings"] = True
    return app.run()


def test_repeated_timings_say_they_are_the_first_runs_and_can_be_taken_again(lab):
    query = "How does reciprocal rank fusion combine rankings?"
    lab.text_input(key="lab_query").set_value(query).run()
    assert not [text for text in _side_captions(lab, "a") if "kept from this query's run at" in text]
    lab.run()  # a rerun for anything else (a click, the warm-up finishing) redraws the same run, unremarked
    assert any("timed at" in text for text in _side_captions(lab, "a"))
    assert not [text for text in _side_captions(lab, "a") if "kept from this query's run at" in text]
    # the same query asked again: the page shows the first run's times and says so
    lab.text_input(key="lab_query").set_value("").run()
    lab.text_input(key="lab_query").set_value(query).run()
    assert any("kept from this query's run at" in text for text in _side_captions(lab, "a"))
    _open_timings(lab, "a").button(key="lab_a_retime").click().run()
    assert not lab.exception, lab.exception
    assert not [text for text in _side_captions(lab, "a") if "kept from this query's run at" in text]


def _first_use_notes(app) -> list[str]:
    return [text.replace("\\", "") for text in _texts(app, "caption") if text.startswith("First\\-use cost")]


def test_the_first_use_note_stays_with_the_runs_that_paid_it(lab):
    # asked by no other test, so its vector is embedded now: a first-use cost this query pays
    query = "Which stage keeps the kept times of a lighthouse query?"
    lab.text_input(key="lab_query").set_value(query).run()
    paid = _first_use_notes(lab)
    assert paid and "embed the query" in paid[0], paid
    lab.run()  # a rerun for anything else: the same runs on screen, and what they paid with them
    assert _first_use_notes(lab) == paid
    lab.text_input(key="lab_query").set_value("").run()
    lab.text_input(key="lab_query").set_value(query).run()  # asked again: the first runs, kept
    assert _first_use_notes(lab) == paid
    _open_timings(lab, "a").button(key="lab_a_retime").click().run()  # A measured afresh paid nothing
    assert not lab.exception, lab.exception
    assert _first_use_notes(lab) == []


def test_with_a_equal_to_b_the_page_says_it_shows_one_run_twice(lab):
    # B starts as A plus MMR: now B = A
    open_lab_settings(lab, "b").toggle(key="lab_b_mmr.enabled").set_value(False).run()
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    assert not lab.exception, lab.exception
    assert any("B shows A's run: one run, shown on both sides" in text for text in _side_captions(lab, "b"))
    open_lab_settings(lab, "b").toggle(key="lab_b_mmr.enabled").set_value(True).run()
    assert not [text for text in _side_captions(lab, "b") if "shown on both sides" in text]


def test_the_golden_query_picker_offers_the_selected_collections_sets(demo_and_notes_home: Path, open_app):
    app = open_app(demo_and_notes_home, page=PAGE)
    assert any(option.startswith("demo · ") for option in app.selectbox(key="lab_golden_pick").options)
    app.sidebar.selectbox(key="collection").set_value("notes").run()
    assert not app.exception, app.exception
    options = list(app.selectbox(key="lab_golden_pick").options)
    assert options == [
        "notes · n1: What do sea anemones do at low tide?",
        "notes · n2: How far is a lighthouse beam seen?",
    ]


def _configuration_open(app, side: str) -> bool:
    (panel,) = [
        node for node in app.get_by_key(f"side_{side}") if node.type == "expander" and node.label == "Configuration"
    ]
    return panel.proto.expanded


def test_a_side_configuration_opened_after_a_query_folds_away_at_the_next_query(lab):
    assert not _configuration_open(lab, "b")  # folded from the start: a first query's results come first
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    assert not _configuration_open(lab, "b")
    open_lab_settings(lab, "b")  # the user opens B's panel to change a setting
    lab.toggle(key="lab_b_mmr.enabled").set_value(False).run()
    assert _configuration_open(lab, "b")  # it stays open while they work in it
    lab.text_input(key="lab_query").set_value("What does a cross-encoder score?").run()
    assert not lab.exception, lab.exception
    assert not _configuration_open(lab, "b") and not _configuration_open(lab, "a")


def test_a_folded_panel_draws_no_widgets_and_its_settings_still_apply(lab):
    open_lab_settings(lab, "b").number_input(key="lab_b_retrieval.top_k").set_value(3).run()  # opened before a query
    lab.selectbox(key="lab_b_fusion.method").set_value("weighted").run()
    lab.number_input(key="lab_b_fusion.weights.bm25").set_value(0.8).run()
    lab.selectbox(key="lab_b_rerank.model").set_value("__other__").run()
    lab.text_input(key="lab_b_rerank.model_other").set_value("/no/such/cross-encoder").run()
    differs = [text for text in _texts(lab, "caption") if text.startswith("Differs from A in")]
    lab.text_input(key="lab_query").set_value(GOLDEN_QUERY).run()
    assert not lab.exception, lab.exception
    assert not _configuration_open(lab, "b")
    keys = [getattr(node, "key", None) or "" for node in lab.get_by_key("side_b")]
    settings = ("lab_b_retrieval.", "lab_b_fusion.", "lab_b_mmr.", "lab_b_dense.", "lab_b_query.", "lab_b_rerank.")
    assert not [key for key in keys if key.startswith(settings)]  # folded: no setting drawn
    assert [text for text in _texts(lab, "caption") if text.startswith("Differs from A in")] == differs
    assert len(_final_table(lab, "b")) == 3
    notes = [text.replace("\\", "") for text in _texts(lab, "info")]
    assert any("/no/such/cross-encoder" in text for text in notes)  # the typed rerank model, held while folded


def test_a_configuration_that_cannot_be_read_is_the_pages_error_not_the_apps(lab, monkeypatch: pytest.MonkeyPatch):
    """The query's embedding ahead (before the sidebar is drawn) reads the configuration too: a
    preset that cannot be read must leave the page to say so, with the sidebar still there."""
    from workbench.config import ConfigError
    from workbench.ui import session

    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    assert not lab.exception, lab.exception

    def unreadable(*args, **kwargs):
        raise ConfigError("preset 'broken': fusion.k must be at least 1, got 0; fix it on the Presets & MCP page")

    monkeypatch.setattr(session, "current_config", unreadable)
    lab.run()
    assert not lab.exception, lab.exception
    assert any("must be at least 1" in text.replace("\\", "") for text in _texts(lab, "error")), _texts(lab, "error")
    assert lab.sidebar.selectbox(key=session.COLLECTION_KEY).value == "demo"
