"""Source code through the whole path: parsed as code, chunked per definition, found by behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.config import WorkbenchConfig
from workbench.ingestion.ingest import Source

MODULE = Path(__file__).parent / "data" / "weather_station.py"


@pytest.fixture(scope="module")
def code_bench(tmp_path_factory):
    from workbench.service import Workbench

    bench = Workbench(tmp_path_factory.mktemp("code-home"))
    config = WorkbenchConfig().with_overrides(["chunking.strategy=code"])  # the bundled MiniLM model
    notebook = (
        '{"cells": [{"cell_type": "markdown", "source": "# Tides"},'
        ' {"cell_type": "code", "source": "def high_tide(hour):\\n    return hour % 12 == 6"}]}'
    )
    report = bench.ingest(
        "code",
        [
            Source.from_path(MODULE),
            Source("tides.ipynb", data=notebook.encode()),
            Source("notes.md", data=b"# Garden\n\nWater the tomatoes every morning.\n"),
        ],
        config,
    )
    assert not report.failures, report.failures
    return bench, config


def test_the_module_is_chunked_per_function_class_and_method(code_bench):
    bench, config = code_bench
    document = bench.document("weather_station.py", "code")
    assert document.doc_type == "py"
    paths = [tuple(row[7]) for row in bench.chunks_of(document.id, config)]
    assert ("Station.frost_nights",) in paths and ("Station.Calibration.apply",) in paths
    assert ("dew_point",) in paths and ("celsius_to_fahrenheit",) in paths


@pytest.mark.parametrize(
    ("query", "qualified_name"),
    [
        ("convert a temperature from Celsius to Fahrenheit", "celsius_to_fahrenheit"),
        ("count the nights when it was freezing", "Station.frost_nights"),
        ("estimate the dew point from temperature and relative humidity", "dew_point"),
    ],
)
@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_a_query_for_a_functions_behaviour_finds_it(code_bench, query, qualified_name, mode):
    bench, config = code_bench
    trace = bench.query(query, "code", config.with_overrides([f"retrieval.mode={mode}"]))
    top = trace.chunks[trace.final.hits[0].chunk_id]
    assert top.source == "weather_station.py"
    assert tuple(top.heading_path) == (qualified_name,)


def test_notebook_code_cells_are_code_units(code_bench):
    bench, config = code_bench
    rows = bench.chunks_of(bench.document("tides.ipynb", "code").id, config)
    assert [tuple(row[7]) for row in rows] == [("Tides",), ("Tides", "high_tide")]
