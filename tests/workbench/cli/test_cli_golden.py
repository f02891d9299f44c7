"""``golden synth`` through the command line against the fake OpenAI-compatible endpoint: kept
items carry verified spans, rejects are counted by reason, Chinese chunks give Chinese questions,
a run the endpoint abandons midway resumes without asking twice, and no endpoint is a clear error."""

from __future__ import annotations

import json
import re

from workbench.cli import main

FAULTS = {  # a phrase of each chunk -> how its reply goes wrong
    "dead-letter queue": "malformed",
    "river survey": "unfound",
    "rolling restart": "copy",
    "Quarterly numbers": "empty",
    "kestrel scheduler assigns": "duplicate",
    "drain in order of creation": "duplicate",
}


def run_cli(capsys, home, *argv) -> tuple[int, str, str]:
    code = main([*map(str, argv), "--home", str(home)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read_set(home, name) -> list[dict]:
    return [json.loads(line) for line in (home / "golden_sets" / f"{name}.jsonl").read_text("utf-8").splitlines()]


def markdown_of(home, doc: str, collection: str) -> str:
    from workbench.service import Workbench

    bench = Workbench(home)
    return bench.markdown(bench.document(doc, collection).id)[0]


def rejected(out: str) -> dict[str, int]:
    return {m.group(1).strip(): int(m.group(2)) for m in re.finditer(r"^  rejected  (.+?)\s+(\d+)$", out, re.M)}


def test_synth_keeps_verified_spans_and_counts_every_reject(synth_home, capsys, fake_llm):
    for phrase, fault in FAULTS.items():
        fake_llm.synth_fault(phrase, fault)
    home = synth_home.home
    code, out, _ = run_cli(
        capsys, home, "golden", "synth", "-c", "notes", "--n", 7, "--seed", 1, "--out", "faulty", "--kinds", "specific"
    )
    assert code == 0, out
    lines = out.splitlines()
    assert lines[1].startswith("LLM: at most 7 LLM calls, about ") and "prompt + 560 completion tokens" in lines[1]
    assert rejected(out) == {
        "quote not found": 1,
        "quote repeated too often": 0,
        "malformed reply": 1,
        "question copies the quote": 1,
        "near-duplicate question": 1,
        "empty": 1,
    }
    assert "kept 2 of 7" in out and "endpoint calls 7, cached 0" in out
    items = read_set(home, "faulty")
    assert len(items) == 2
    for item in items:
        meta = item["meta"]
        assert meta["kind"] == "specific" and meta["model"] == "fake-llm" and len(meta["prompt_hash"]) == 12
        assert meta["source"][0]["chunk_id"] > 0 and meta["language"] == "en" and 0 <= meta["overlap"] <= 0.75
        for relevant in item["relevant"]:
            markdown = markdown_of(home, relevant["doc"], "notes")
            assert markdown[relevant["start"] : relevant["end"]] == relevant["quote"]
    summary = json.loads((home / "golden_sets" / ".synth" / "faulty.summary.json").read_text("utf-8"))
    mean = sum(item["meta"]["overlap"] for item in items) / 2
    assert summary["mean_overlap"] == round(mean, 4) and f"mean question/quote overlap {mean:.3f}" in out
    assert summary["rejected"]["empty"] == 1 and summary["kept"] == 2

    code, out, _ = run_cli(capsys, home, "eval", "-c", "notes", "--golden", "faulty", "--level", "span", "--no-store")
    assert code == 0 and "2 queries evaluated (0 skipped)" in out


def test_every_kind_and_a_span_level_evaluation(synth_home, capsys, fake_llm):
    home = synth_home.home
    code, out, _ = run_cli(capsys, home, "golden", "synth", "-c", "notes", "--n", 8, "--seed", 2, "--out", "kinds")
    assert code == 0, out
    items = read_set(home, "kinds")
    kinds = {item["meta"]["kind"] for item in items}
    assert kinds == {"specific", "abstract", "multi_hop", "unanswerable"}
    for item in items:
        if item["meta"]["kind"] == "multi_hop":
            assert len(item["relevant"]) == 2 and len(item["meta"]["source"]) == 2
        if item["meta"]["kind"] == "unanswerable":
            assert item["relevant"] == [] and item["meta"]["overlap"] is None
    code, out, _ = run_cli(capsys, home, "eval", "-c", "notes", "--golden", "kinds", "--level", "span", "--no-store")
    assert code == 0 and "abstention precision" in out


def test_chinese_chunks_give_chinese_questions_with_verified_quotes(synth_home, capsys, fake_llm):
    home = synth_home.home
    code, out, _ = run_cli(
        capsys, home, "golden", "synth", "-c", "zh", "--n", 2, "--seed", 0, "--out", "zh-set", "--kinds", "specific"
    )
    assert code == 0, out
    items = read_set(home, "zh-set")
    assert len(items) == 2
    markdown = markdown_of(home, "handbook.md", "zh")
    for item in items:
        assert re.search(r"[\u4e00-\u9fff]", item["query"]) and item["meta"]["language"] == "zh"
        relevant = item["relevant"][0]
        assert markdown[relevant["start"] : relevant["end"]] == relevant["quote"]
    # the model dropped the line break inside "据\n此作答": found with CJK whitespace made optional
    first = next(item for item in items if "据" in item["relevant"][0]["quote"])
    assert first["meta"]["match"] == ["cjk_whitespace"] and "据\n此作答" in first["relevant"][0]["quote"]


def test_a_run_the_endpoint_abandons_resumes_without_paying_twice(synth_home, capsys, fake_llm):
    home = synth_home.home
    fake_llm.fail_after = 3
    argv = ("golden", "synth", "-c", "notes", "--n", 7, "--seed", 3, "--out", "resumed", "--kinds", "specific")
    code, out, err = run_cli(capsys, home, *argv)
    assert code == 3
    assert "the LLM endpoint failed after 3 of 7 questions" in err and "run the same command again" in err
    assert len(read_set(home, "resumed")) == 3  # what finished is kept
    fake_llm.fail_after = None
    fake_llm.reset()
    code, out, _ = run_cli(capsys, home, *argv)
    assert code == 0
    assert "at most 4 LLM calls" in out and "3 already done" in out
    assert fake_llm.count("/chat/completions") == 4 and "3 tasks resumed" in out
    assert len(read_set(home, "resumed")) == 7
    fake_llm.reset()
    code, out, _ = run_cli(capsys, home, *argv)
    assert code == 0 and fake_llm.count("/chat/completions") == 0 and "endpoint calls 0" in out

    # a rerun after a review keeps the review: the edit stays, the rejected item stays out
    from workbench.golden.review import ACCEPT, REJECT, apply_review

    first, second = read_set(home, "resumed")[:2]
    apply_review(
        home / "golden_sets" / "resumed.jsonl",
        {first["id"]: (ACCEPT, "Reworded by a person?"), second["id"]: (REJECT, second["query"])},
        home,
    )
    code, out, _ = run_cli(capsys, home, *argv)
    after = {item["id"]: item for item in read_set(home, "resumed")}
    assert code == 0 and len(after) == 6 and second["id"] not in after
    assert after[first["id"]]["query"] == "Reworded by a person?" and after[first["id"]]["meta"]["review"] == "edited"


def test_without_an_endpoint_it_says_what_to_set(synth_home, capsys, no_llm):
    code, _, err = run_cli(capsys, synth_home.home, "golden", "synth", "-c", "notes", "--out", "x")
    assert code == 2 and "golden synth needs an LLM endpoint" in err and "WORKBENCH_LLM_BASE_URL" in err


def test_limits_and_kinds_are_checked_before_any_call(synth_home, capsys, fake_llm):
    code, _, err = run_cli(
        capsys,
        synth_home.home,
        "golden",
        "synth",
        "-c",
        "notes",
        "--out",
        "x",
        "--n",
        50,
        "--set",
        "synth.max_items=10",
    )
    assert code == 2 and "synth.max_items (10, default 2000)" in err
    code, _, err = run_cli(
        capsys, synth_home.home, "golden", "synth", "-c", "notes", "--out", "x", "--kinds", "specific,trivia"
    )
    assert code == 2 and "unknown question kind 'trivia'" in err
    handmade = synth_home.home / "golden_sets" / "handmade.jsonl"
    handmade.parent.mkdir(parents=True, exist_ok=True)  # also when this test runs first
    handmade.write_text('{"id": "q1", "query": "walrus", "relevant": ["walrus.md"]}\n', "utf-8")
    code, _, err = run_cli(capsys, synth_home.home, "golden", "synth", "-c", "notes", "--out", "handmade")
    assert code == 2 and "'handmade' already exists" in err and "was not written by golden synth" in err
    assert handmade.read_text("utf-8").startswith('{"id": "q1"')
    assert fake_llm.count("/chat/completions") == 0


def test_llm_judge_prints_its_bound_stops_at_max_calls_and_a_second_run_makes_no_call(synth_home, capsys, fake_llm):
    from workbench.golden import judging
    from workbench.service import Workbench

    home = synth_home.home
    questions = home / "judge-questions.txt"
    questions.write_text("walrus option memory\nkestrel scheduler retries\nriver survey stations\n", "utf-8")
    assert run_cli(capsys, home, "golden", "queries", questions, "--out", "to-judge")[0] == 0
    code, _, err = run_cli(
        capsys,
        home,
        "golden",
        "pool",
        "--queries",
        "to-judge",
        "-c",
        "notes",
        "--configs",
        "retrieval.mode=bm25",
        "retrieval.mode=dense",
        "--depth",
        2,
        "--name",
        "judged",
    )
    assert code == 0, err
    pairs = len(judging.load_pool(Workbench(home).catalog, "judged")[1])
    fake_llm.script("kestrel scheduler retries", "Grade: 2, it mentions retries", purpose="golden.judge")

    code, out, err = run_cli(capsys, home, "golden", "judge", "--llm", "--pool", "judged", "--max-calls", 2)
    assert code == 0 and "LLM: at most 2 calls (--max-calls 2)" in out and "--max-calls 2 reached" in err
    assert fake_llm.count("/chat/completions") == 2

    code, out, _ = run_cli(capsys, home, "golden", "judge", "--llm", "--pool", "judged")
    rejected_now = int(re.search(r"(\d+) replies rejected", out).group(1))
    recorded = judging.judgements(Workbench(home).catalog, "judged")
    assert code == 0 and len(recorded) + rejected_now == pairs and rejected_now >= 1
    assert "reply rejected: not a JSON object" in out
    judge = recorded[0].judge
    assert judge.startswith("fake-llm@") and len(judge.split("@")[1]) == 12
    assert all(r.grade in (0, 1, 2, 3) and r.reason for r in recorded)

    fake_llm.scripts.clear()
    fake_llm.reset()
    code, out, _ = run_cli(capsys, home, "golden", "judge", "--llm", "--pool", "judged")
    assert code == 0 and f"LLM: at most {rejected_now} calls" in out  # only the rejected pairs are asked again
    fake_llm.reset()
    code, out, _ = run_cli(capsys, home, "golden", "judge", "--llm", "--pool", "judged")
    assert code == 0 and "LLM: at most 0 calls" in out and fake_llm.count("/chat/completions") == 0
    assert "endpoint calls 0" in out


def test_a_person_and_the_llm_judge_one_pool_and_agree_prints_their_kappa(synth_home, capsys, fake_llm):
    """The cheap judge against the trusted one: both grade the same pool, each is exported as a
    golden set, and ``golden agree`` gives the kappa of their confusion table."""
    from workbench.golden import judging
    from workbench.golden.agreement_measures import weighted_kappa
    from workbench.service import Workbench

    home = synth_home.home
    questions = home / "agree-questions.txt"
    questions.write_text("walrus option memory\n候鸟迁徙的路线\n", "utf-8")
    assert run_cli(capsys, home, "golden", "queries", questions, "--out", "to-agree")[0] == 0
    code, _, err = run_cli(
        capsys,
        home,
        "golden",
        "pool",
        "--queries",
        "to-agree",
        "-c",
        "notes",
        "--configs",
        "retrieval.mode=bm25",
        "retrieval.mode=hybrid",
        "--depth",
        3,
        "--name",
        "twice",
    )
    assert code == 0, err
    code, out, err = run_cli(capsys, home, "golden", "judge", "--llm", "--pool", "twice")
    assert code == 0, err
    catalog = Workbench(home).catalog
    by_llm = judging.judgements(catalog, "twice")
    assert len(by_llm) >= 3
    llm_judge = by_llm[0].judge
    _, items = judging.load_pool(catalog, "twice")
    graded = {(j.query_id, j.chunk_id): j.grade for j in by_llm}  # a chunk may be pooled for both queries
    # the person agrees on every pair but the first, which they grade one step apart
    person = [
        (item, graded[item.query_id, item.chunk_id] if n else (graded[item.query_id, item.chunk_id] + 1) % 4, None)
        for n, item in enumerate(i for i in items if (i.query_id, i.chunk_id) in graded)
    ]
    judging.record_many(catalog, "twice", person, judging.person_judge("Ann Lee"))

    assert run_cli(capsys, home, "golden", "export", "twice", "--judge", "Ann Lee", "--out", "by-ann")[0] == 0
    assert run_cli(capsys, home, "golden", "export", "twice", "--judge", llm_judge, "--out", "by-llm")[0] == 0
    code, out, err = run_cli(capsys, home, "golden", "agree", "by-ann", "by-llm", "--no-ranking")
    assert code == 0, err
    table = [[0] * 4 for _ in range(4)]
    for item, grade, _ in person:
        table[grade][graded[item.query_id, item.chunk_id]] += 1
    assert f"judged by both: {len(person)} (query, unit) pairs" in out
    expected = weighted_kappa(table, "linear")
    assert expected is not None and expected < 1  # one disagreement among agreements
    assert f"Cohen's weighted kappa: {expected:.3f} linear" in out
