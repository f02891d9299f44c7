"""Every bench script has a smoke run that a test makes, and the table reader finds tables."""

from __future__ import annotations

from pathlib import Path

from tests.bench.smoke import SMOKE, bench_scripts, tables

GROUPS = {path.stem.removeprefix("test_bench_smoke_") for path in Path(__file__).parent.glob("test_bench_smoke_*.py")}


def test_every_bench_script_has_a_smoke_run_in_a_test_file():
    scripts = bench_scripts()
    assert len(scripts) >= 20
    missing = sorted(set(scripts) - set(SMOKE))
    assert not missing, (
        f"bench scripts without a smoke run: {', '.join(missing)}; add each to SMOKE in tests/bench/smoke.py"
    )
    gone = sorted(set(SMOKE) - set(scripts))
    assert not gone, f"SMOKE names scripts that bench/ no longer holds: {', '.join(gone)}"
    orphans = sorted({smoke.group for smoke in SMOKE.values()} - GROUPS)
    assert not orphans, f"no tests/bench/test_bench_smoke_GROUP.py runs the groups {orphans}"


def test_every_bench_script_takes_smoke():
    from tests.bench.smoke import BENCH_DIR

    for name in bench_scripts():
        assert '"--smoke"' in (BENCH_DIR / f"{name}.py").read_text(encoding="utf-8"), f"{name} has no --smoke option"


def test_the_table_reader_finds_each_header_and_its_rows(capsys):
    from bench.printing import table

    print("a line that is no table\n-- nor this rule under it")
    table("first", ["mode", "p50 ms"], [["bm25", 1.5], ["dense", 12.25]])
    table("second", ["set", "runs"], [])
    found = tables(capsys.readouterr().out)
    assert found == [(("mode", "p50 ms"), ["bm25   1.5   ", "dense  12.25 "]), (("set", "runs"), [])]
