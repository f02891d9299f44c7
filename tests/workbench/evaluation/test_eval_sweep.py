"""Sweeps: grid expansion, grouping by layout, reuse of work, progress, and the best as a preset."""

from __future__ import annotations

import pytest

from workbench.config import ConfigError, WorkbenchConfig
from workbench.embedding.base import content_hash
from workbench.evaluation.runs import list_runs
from workbench.evaluation.sweep import (
    default_sweep_keys,
    expand,
    parse_grid,
    plan,
    run_sweep,
    save_best_as_preset,
)

METRICS = ("ndcg@10", "recall@10")


def test_parse_grid_splits_on_commas_or_semicolons():
    grid = parse_grid(["fusion.k=10, 30,60", "fusion.weights=0.3,0.7;0.5,0.5"])
    assert grid == {"fusion.k": ["10", "30", "60"], "fusion.weights": ["0.3,0.7", "0.5,0.5"]}
    with pytest.raises(ConfigError, match="--grid expects key=value1,value2"):
        parse_grid(["fusion.k"])
    with pytest.raises(ConfigError, match="given twice"):
        parse_grid(["fusion.k=1", "fusion.k=2"])
    with pytest.raises(ConfigError, match="at least one --grid"):
        parse_grid([])


def test_expand_is_the_cartesian_product_with_checked_values():
    points = expand(WorkbenchConfig(), {"fusion.method": ["rrf", "weighted"], "fusion.k": ["10", "30", "60"]})
    assert len(points) == 6
    assert points[1].overrides == {"fusion.method": "rrf", "fusion.k": 30}
    assert points[1].config.fusion.k == 30 and points[1].label == "fusion.method=rrf fusion.k=30"
    with pytest.raises(ConfigError, match="not one of"):
        expand(WorkbenchConfig(), {"fusion.method": ["rrf", "borda"]})
    with pytest.raises(ConfigError, match="unknown config key"):
        expand(WorkbenchConfig(), {"fusion.kk": ["1"]})


def test_identical_configurations_are_evaluated_once():
    points = expand(
        WorkbenchConfig(), {"mmr.enabled": ["true", "yes", "false"], "fusion.weights": ["0.5,0.5", "0.50,.5"]}
    )
    assert [p.overrides for p in points] == [
        {"mmr.enabled": True, "fusion.weights": (0.5, 0.5)},
        {"mmr.enabled": False, "fusion.weights": (0.5, 0.5)},
    ]


def test_points_that_differ_only_in_ignored_keys_are_the_same():
    """Regression: under weighted fusion, fusion.k=10,30,60 ran three identical configurations and
    "fusion.k=10" was named best."""
    points = expand(WorkbenchConfig(), {"fusion.method": ["rrf", "weighted"], "fusion.k": ["10", "30", "60"]})
    assert [p.same_as for p in points] == [
        None,
        None,
        None,
        None,
        "fusion.method=weighted (fusion.k ignored)",
        "fusion.method=weighted (fusion.k ignored)",
    ]
    assert points[3].label == "fusion.method=weighted (fusion.k ignored)" and points[3].ignored == ("fusion.k",)
    assert points[0].label == "fusion.method=rrf fusion.k=10" and points[0].ignored == ()
    off = expand(WorkbenchConfig(), {"mmr.lambda": ["0.5", "0.9"]})
    assert off[1].same_as == off[0].label == "(mmr.lambda ignored)"


def test_the_default_sweep_varies_only_keys_the_configuration_reads():
    for base in (
        WorkbenchConfig(),
        WorkbenchConfig().with_value("fusion.method", "weighted"),
        WorkbenchConfig().with_value("retrieval.mode", "bm25"),
    ):
        keys = default_sweep_keys(base)
        assert len(keys) == 2
        points = expand(
            base,
            {key: ["1", "2"] if key != "mmr.enabled" else ["false", "true"] for key in keys}
            | ({"fusion.weights": ["0.3,0.7", "0.7,0.3"]} if "fusion.weights" in keys else {}),
        )
        assert all(p.same_as is None and not p.ignored for p in points), (base.fusion, keys)
    assert default_sweep_keys(WorkbenchConfig().with_value("fusion.method", "weighted"))[0] == "fusion.weights"


def test_plan_groups_points_by_layout():
    points = expand(WorkbenchConfig(), {"chunking.size": ["500", "1000"], "fusion.k": ["10", "60"]})
    groups = plan(points)
    assert [len(g.points) for g in groups] == [2, 2]
    assert [g.layout.chunking.size for g in groups] == [500, 1000]


def test_a_query_time_sweep_embeds_no_corpus_text(eval_home):
    bench, embedder = eval_home.bench, eval_home.embedder
    golden = eval_home.golden()
    corpus_hashes = {
        content_hash(c.indexed_text) for c in bench.snapshot("notes", bench.config_for("notes")).chunks.values()
    }
    calls_before = len(embedder.calls)
    events = []
    result = run_sweep(
        bench,
        "notes",
        golden,
        bench.config_for("notes"),
        {"fusion.method": ["rrf", "weighted"], "fusion.k": ["10", "60"], "mmr.enabled": ["false", "true"]},
        metric_names=METRICS,
        progress=events.append,
    )
    # weighted fusion ignores fusion.k: its k=10 and k=60 points are one configuration, run once
    assert len(result.entries) == 8 and len(result.distinct) == 6 and result.layouts == 1
    assert result.embedded_texts == 0
    assert result.reuse_summary() == f"embedded 0 corpus texts (all {len(corpus_hashes)} chunk texts cached)"
    # the only embedding call was the golden queries, once, for all the configurations
    new_calls = embedder.calls[calls_before:]
    assert len(new_calls) <= 1
    assert all(content_hash(text) not in corpus_hashes for call in new_calls for text in call)
    assert sorted(text for call in new_calls for text in call) == sorted({q.query for q in golden.queries})
    # progress covers every query of every point, in order, with an ETA once started
    assert [e.done for e in events] == list(range(1, 6 * len(golden) + 1))
    assert events[-1].total == 6 * len(golden) and events[-1].eta_s == 0.0
    assert "ETA" in events[0].describe() and "[1/6]" in events[0].describe()
    # each point run is a stored run of the sweep, labelled with its values
    runs = list_runs(bench.catalog, sweep_id=result.sweep_id)
    assert len(runs) == 6 and runs[-1].label == "fusion.method=rrf fusion.k=10 mmr.enabled=False"
    assert runs[-1].overrides == {"fusion.method": "rrf", "fusion.k": 10, "mmr.enabled": False}


def test_a_new_chunking_embeds_only_texts_missing_from_the_cache(eval_home):
    bench, embedder = eval_home.bench, eval_home.embedder
    golden = eval_home.golden()
    base = bench.config_for("notes").with_value("retrieval.mode", "bm25")
    before = len(embedder.embedded_texts)
    first = run_sweep(
        bench, "notes", golden, base, {"chunking.size": ["80", "300"], "bm25.k1": ["0.9", "1.2"]}, metric_names=METRICS
    )
    assert first.layouts == 4  # bm25.k1 is an index parameter: its own layout each
    new_texts = embedder.embedded_texts[before:]
    size_300 = bench.snapshot("notes", base.with_value("chunking.size", 300)).chunks.values()
    # exactly the size-300 chunk texts the cache lacked, each once (k1 variants share them)
    assert (
        first.embedded_texts
        == len(new_texts)
        == len(
            {c.indexed_text for c in size_300}
            - set(c.indexed_text for c in bench.snapshot("notes", base).chunks.values())
        )
    )
    assert first.embedded_texts > 0 and "not in the cache" in first.reuse_summary()
    again = run_sweep(bench, "notes", golden, base, {"chunking.size": ["80", "300"]}, metric_names=METRICS)
    assert again.embedded_texts == 0 and len(embedder.embedded_texts) == before + len(new_texts)


def test_best_point_is_saved_as_a_preset(eval_home):
    bench = eval_home.bench
    base = bench.config_for("notes")
    result = run_sweep(
        bench,
        "notes",
        eval_home.golden(),
        base,
        {"retrieval.mode": ["bm25", "dense", "hybrid"]},
        metric_names=METRICS,
        store=False,
    )
    assert result.sweep_id is None and list_runs(bench.catalog) == []
    best = result.best("ndcg@10")
    assert best.result.metrics["ndcg@10"] == max(e.result.metrics["ndcg@10"] for e in result.entries)
    assert [e.result.metrics["ndcg@10"] for e in result.ranked("ndcg@10")] == sorted(
        (e.result.metrics["ndcg@10"] for e in result.entries), reverse=True
    )
    saved = save_best_as_preset(bench, result, "notes-best")
    assert bench.preset_overrides("notes-best") == saved
    # only what the sweep chose: the collection's own settings (its model, chunking, encoder
    # runtime) come with the collection, and the preset on it gives the best configuration back
    assert saved == {"retrieval.mode": best.point.config.retrieval.mode}
    assert bench.config_for("notes", "notes-best") == best.point.config
    assert "best ndcg@10" in {p.name: p.description for p in bench.presets()}["notes-best"]
    with pytest.raises(ValueError, match="was not computed"):
        result.best("map@100")


def test_a_preset_saved_from_a_sweep_keeps_the_preset_it_started_from(eval_home):
    bench = eval_home.bench
    bench.save_preset("wide", {"retrieval.candidates": 150})
    base = bench.config_for("notes", "wide")
    result = run_sweep(
        bench, "notes", eval_home.golden(), base, {"fusion.k": ["10", "60"]}, metric_names=METRICS, store=False
    )
    saved = save_best_as_preset(bench, result, "wide-best")
    best = result.best("ndcg@10").point.config
    assert saved == {"retrieval.candidates": 150, "fusion.k": best.fusion.k}  # fusion.k kept even at 60
    assert not [key for key in saved if key.startswith(("embedding.", "chunking."))]
    assert bench.config_for("notes", "wide-best") == best
