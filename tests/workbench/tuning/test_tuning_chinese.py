"""``tune`` on a Chinese golden set: a slice of CMRC 2018 (questions -> Wikipedia paragraphs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.workbench.tuning_fixtures import tune_config
from workbench.cli import main

CMRC_DIR = Path(__file__).resolve().parents[3].parent / "shared" / "datasets" / "cmrc2018"
PARAGRAPHS = 40
QUERIES = 60


@pytest.fixture(scope="module")
def cmrc_home(tmp_path_factory, tune_embedder) -> Path:
    if not (CMRC_DIR / "corpus.jsonl").exists():
        pytest.skip(f"CMRC 2018 is not at {CMRC_DIR}")
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.golden import GoldenSet
    from workbench.ingestion.beir import corpus_sources, golden_set
    from workbench.service import Workbench

    sources, offsets = corpus_sources(CMRC_DIR)
    chosen = sources[:PARAGRAPHS]
    kept = {source.external_id for source in chosen}
    full = golden_set(CMRC_DIR, "cmrc", offsets)
    queries = tuple(q for q in full.queries if {item.doc for item in q.relevant} <= kept)[:QUERIES]
    bench = Workbench(tmp_path_factory.mktemp("cmrc") / "home")
    report = bench.ingest("cmrc", chosen, tune_config(["chunking.size=300", "chunking.overlap=30"]))
    assert not report.failures, report.summary()
    golden_sets.save(GoldenSet("cmrc-slice", queries), bench.home / "golden_sets" / "cmrc-slice.jsonl")
    return bench.home


def test_tune_on_chinese_questions(cmrc_home, capsys):
    code = main(
        [
            *("tune", "-c", "cmrc", "--golden", "cmrc-slice", "--keys", "retrieval.mode,fusion.method,fusion.k"),
            *("--trials", "8", "--seed", "2", "--level", "span", "--holdout", "0.3"),
            *("--json", "--home", str(cmrc_home)),
        ]
    )
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert code == 0, err
    report = json.loads(out)
    golden = [json.loads(line) for line in (cmrc_home / "golden_sets" / "cmrc-slice.jsonl").read_text().splitlines()]
    assert len(golden) == QUERIES and all(any("\u4e00" <= ch <= "\u9fff" for ch in q["query"]) for q in golden)
    assert report["studies"][0]["trials"] == 8
    held_out = report["held_out"]
    assert held_out["queries"] == round(0.3 * QUERIES) and held_out["metric"] == "ndcg@10"
    interval = held_out["interval"]
    assert interval["low"] <= held_out["gain"] <= interval["high"]
    assert held_out["verdict"] in (
        "better than your current configuration",
        "worse than your current configuration",
        "not distinguishable from your current configuration",
    )
    assert 0 < report["parts"][0]["held_out_winner"] <= 1
