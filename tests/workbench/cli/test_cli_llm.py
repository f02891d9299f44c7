"""The LLM stages through the command line (query, eval --answers, sweep, compare), against the fake
OpenAI-compatible endpoint; the second identical sweep makes no endpoint call at all."""

from __future__ import annotations

import json

from workbench.cli import main

LLM_SETTINGS = ["--set", "query.enhance=multi", "--set", "rerank.method=llm", "--set", "rerank.top_m=5"]


def run_cli(capsys, home, *argv) -> tuple[int, str, str]:
    code = main([*map(str, argv), "--home", str(home)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_query_shows_generated_texts_tokens_and_milliseconds(eval_home, capsys, fake_llm):
    fake_llm.script("Query: walrus option", "walrus cluster setting\nnodes walrus flag", purpose="query.multi")
    code, out, _ = run_cli(capsys, eval_home.bench.home, "query", "walrus option", "-c", "notes", *LLM_SETTINGS)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("== query (multi, ") and lines[0].endswith(" ms)")
    assert any(
        line.startswith("   llm: query.multi: ") and " tokens, " in line and line.endswith(" ms") for line in lines
    )
    assert "   multi 1         -> dense+bm25 walrus cluster setting" in lines
    assert any(line.startswith("== dense (multi 2) (") for line in lines)
    rerank_calls = [line for line in lines if line.startswith("   llm: rerank (chunk ")]
    assert len(rerank_calls) == 5 and all(" tokens, " in line for line in rerank_calls)

    code, out, _ = run_cli(
        capsys, eval_home.bench.home, "query", "walrus option", "-c", "notes", "--json", *LLM_SETTINGS
    )
    trace = json.loads(out)
    call = trace["enhancement"]["calls"][0]
    assert call["cached"] and call["text"] == "walrus cluster setting\nnodes walrus flag"
    assert call["prompt_tokens"] > 0 and call["generated_ms"] > 0
    rerank = next(stage for stage in trace["stages"] if stage["stage"] == "rerank")
    assert len(rerank["llm_calls"]) == 5 and all(c["cached"] for c in rerank["llm_calls"])


def test_a_second_identical_sweep_makes_zero_endpoint_calls(eval_home, capsys, fake_llm):
    home = eval_home.bench.home
    sweep = [
        "sweep",
        "-c",
        "notes",
        "--grid",
        "query.enhance=none,multi,hyde",
        "--grid",
        "rerank.method=cross_encoder,llm",
        "--metrics",
        "ndcg@10,recall@10",
        "--json",
    ]
    code, out, _ = run_cli(capsys, home, *sweep)
    assert code == 0
    first = json.loads(out)
    assert len(first["points"]) == 6
    calls = fake_llm.count()
    # 4 queries x (multi + hyde) generations, and rerank calls for every llm point
    assert fake_llm.purposes()["query.multi"] == 4 and fake_llm.purposes()["query.hyde"] == 4
    assert calls == first["reuse"]["llm_endpoint_calls"] > 8

    code, out, _ = run_cli(capsys, home, *sweep)  # a new process's worth of state: only the catalog remembers
    second = json.loads(out)
    assert fake_llm.count() == calls
    # every call of the sweep (points share generations: hyde with and without rerank) now comes from the cache
    assert second["reuse"]["llm_endpoint_calls"] == 0
    assert (
        second["reuse"]["llm_cached_calls"] == first["reuse"]["llm_endpoint_calls"] + first["reuse"]["llm_cached_calls"]
    )
    assert [p["ndcg@10"] for p in second["points"]] == [p["ndcg@10"] for p in first["points"]]
    assert "LLM: 0 calls to the endpoint" in second["reuse"]["message"]


def test_eval_answers_stores_answer_metrics_and_compare_pairs_them(eval_home, capsys, fake_llm, monkeypatch):
    home = eval_home.bench.home
    code, out, _ = run_cli(capsys, home, "eval", "-c", "notes", "--answers", "--label", "faithful")
    assert code == 0
    assert "faithfulness" in out and "context_precision" in out and "note: answers: " in out
    # another model (its own cache keys) that makes things up about walruses and otters
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "fake-llm-that-invents")
    fake_llm.script(
        "Question: walrus option", "The walrus option was invented in 1802 by sailors [S1].", purpose="answer"
    )
    fake_llm.script(
        "Question: otter project numbers", "Otters are excellent swimmers who run banks [S1].", purpose="answer"
    )
    run_cli(capsys, home, "eval", "-c", "notes", "--answers", "--label", "unfaithful")
    code, out, _ = run_cli(capsys, home, "eval", "-c", "notes", "--json", "--answers", "--no-store")
    data = json.loads(out)
    by_id = {q["query_id"]: q for q in data["per_query"]}
    assert by_id["s1"]["metrics"]["faithfulness"] == 0.0 and by_id["d1"]["metrics"]["faithfulness"] == 1.0
    assert by_id["s1"]["answer"]["answer"].startswith("The walrus option was invented")
    code, out, _ = run_cli(capsys, home, "compare", "1", "2", "--metric", "faithfulness", "--json")
    comparison = json.loads(out)
    assert comparison["losses"] == 2 and comparison["wins"] == 0
    code, _, err = run_cli(capsys, home, "eval", "-c", "notes", "--fail-under", "faithfulness=0.9")
    assert code == 1 and "faithfulness was not measured" in err


def test_eval_answers_without_an_endpoint_is_a_clear_error(eval_home, capsys, no_llm):
    code, _, err = run_cli(capsys, eval_home.bench.home, "eval", "-c", "notes", "--answers")
    assert code == 2
    assert err.startswith("error: answer evaluation (--answers) needs an LLM endpoint, which is not configured")


def test_chinese_through_the_cli(tmp_path, capsys, fake_llm, fake_embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "检索.md").write_text("# 混合检索\n\n混合检索把稠密检索和稀疏检索的结果融合。", encoding="utf-8")
    (folder / "面包.md").write_text("# 烤面包\n\n面团发酵后放进烤箱烘烤。", encoding="utf-8")
    home = tmp_path / "home"
    code, out, _ = run_cli(
        capsys,
        home,
        "ingest",
        folder / "检索.md",
        folder / "面包.md",
        "-c",
        "zh",
        "--set",
        "embedding.model=fake-hashing-embedder",
        "--set",
        "chunking.enrich=all",
        "--set",
        "chunking.enrich_index=true",
    )
    assert code == 0 and "enriched 2 of 2 chunks with the LLM" in out
    code, out, _ = run_cli(
        capsys, home, "query", "混合检索是什么", "-c", "zh", "--set", "query.enhance=hyde", "--set", "rerank.method=llm"
    )
    assert code == 0
    assert "   hyde            -> dense      混合检索是什么. This passage explains" in out
    ranked = [line for line in out.splitlines() if line.strip().startswith("1.")]
    assert ranked and "检索.md" in ranked[-1]


def test_an_embeddings_endpoint_is_the_model_for_ingest_and_query(tmp_path, capsys, fake_llm):
    from workbench.embedding.registry import unregister_embedder

    unregister_embedder("openai:fake-embed")  # the fake server's port differs per test
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "kettle.md").write_text("# Kettle\n\nBoil vinegar in the kettle to remove limescale.", encoding="utf-8")
    (folder / "茶.md").write_text("# 泡茶\n\n绿茶用八十度的水冲泡，红茶用沸水冲泡。", encoding="utf-8")
    home = tmp_path / "home"
    code, out, err = run_cli(
        capsys,
        home,
        "ingest",
        folder / "kettle.md",
        folder / "茶.md",
        "-c",
        "kb",
        "--set",
        "embedding.model=openai:fake-embed",
    )
    assert code == 0, err
    chunk_calls = fake_llm.count("/embeddings")
    assert chunk_calls >= 1 and fake_llm.calls[0]["body"]["model"] == "fake-embed"
    for query, expected in (("kettle limescale vinegar", "kettle.md"), ("红茶 沸水", "茶.md")):
        code, out, err = run_cli(capsys, home, "query", query, "-c", "kb", "--set", "retrieval.mode=dense")
        assert code == 0, err
        ranked = [line for line in out.splitlines() if line.strip().startswith("1.")]
        assert ranked and expected in ranked[-1]
    # the chunk vectors are cached under the endpoint's name: re-ingesting asks only for nothing new
    code, out, _ = run_cli(
        capsys,
        home,
        "ingest",
        folder / "kettle.md",
        folder / "茶.md",
        "-c",
        "kb",
        "--set",
        "embedding.model=openai:fake-embed",
    )
    assert code == 0 and "2 unchanged" in out
    assert fake_llm.count("/embeddings") == chunk_calls + 2  # only the two queries were embedded
    unregister_embedder("openai:fake-embed")


def test_an_embeddings_endpoint_model_without_an_endpoint_is_refused_before_anything_is_written(
    tmp_path, capsys, no_llm
):
    from workbench.service import Workbench

    document = tmp_path / "kettle.md"
    document.write_text("# Kettle\n\nBoil vinegar in the kettle.", encoding="utf-8")
    home = tmp_path / "home"
    code, _, err = run_cli(
        capsys, home, "ingest", document, "-c", "kb", "--set", "embedding.model=openai:nomic-embed-text"
    )
    assert code == 2
    assert err.startswith("error: embedding model 'openai:nomic-embed-text' needs an OpenAI-compatible endpoint")
    assert "WORKBENCH_LLM_BASE_URL" in err
    assert Workbench(home).collections() == []


def test_eval_and_sweep_say_up_front_how_many_llm_calls_they_may_make(eval_home, capsys, fake_llm):
    home = eval_home.bench.home
    code, _, err = run_cli(
        capsys,
        home,
        "sweep",
        "-c",
        "notes",
        "--grid",
        "query.enhance=none,hyde",
        "--grid",
        "rerank.method=cross_encoder,llm",
        "--set",
        "rerank.top_m=5",
        "--no-store",
    )
    assert code == 0
    # 4 queries: hyde in 2 points (8 generations), llm rerank in 2 points of 5 candidates (40 scores)
    assert (
        "LLM: at most 48 LLM calls (query.enhance=hyde: 8, rerank.method=llm: 40) over 4 queries; "
        "replies already cached cost nothing"
    ) in err
    assert fake_llm.count() <= 48
    code, _, err = run_cli(capsys, home, "eval", "-c", "notes", "--no-store")
    assert code == 0 and "LLM:" not in err  # the defaults ask nothing


def test_a_sweep_compares_chunks_with_and_without_their_enrichment_in_the_index(eval_home, capsys, fake_llm):
    home = eval_home.bench.home
    sweep = [
        "sweep",
        "-c",
        "notes",
        "--grid",
        "chunking.enrich_index=false,true",
        "--set",
        "chunking.enrich=all",
        "--metrics",
        "ndcg@10",
        "--json",
    ]
    code, out, err = run_cli(capsys, home, *sweep)
    assert code == 0, err
    first = json.loads(out)
    assert len(first["points"]) == 2
    enriched = fake_llm.purposes()["enrich"]
    chunks = next(info.chunks for info in eval_home.bench.collections() if info.name == "notes")
    assert enriched == chunks  # one call per chunk of the (shared) chunking
    # both layouts enrich the same chunk texts: the second layout's calls all came from the cache
    assert fake_llm.count("/chat/completions") == enriched

    code, out, _ = run_cli(capsys, home, *sweep)  # again: the chunk sets exist, nothing is asked
    assert code == 0 and fake_llm.count() == enriched
    assert [p["ndcg@10"] for p in json.loads(out)["points"]] == [p["ndcg@10"] for p in first["points"]]
