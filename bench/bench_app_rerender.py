"""How long the app takes to re-render after a query-time parameter changes, on the demo.

Runs the app under Streamlit's AppTest (the same script runs a browser session would trigger,
without the network and drawing), sets a query once, then changes one query-time parameter
back and forth and times each rerun. Nothing is re-embedded or re-indexed on these reruns: the
query vector is cached and the index snapshot stays loaded. Prints a table; asserts nothing.

    .venv/bin/python bench/bench_app_rerender.py [--home DIR_WITH_DEMO] [--repeats 12]

Without ``--home`` it loads the demo into a temporary home first (about 20-30 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from bench.printing import table  # noqa: E402

QUERY = "How is the reciprocal rank fusion score of a document computed?"


@dataclass(frozen=True)
class Scenario:
    name: str
    page: str
    prepare: Callable[[AppTest], object]  # set up once (e.g. type the query)
    change: Callable[[AppTest, int], object]  # (app, step): change one query-time parameter


def scenarios() -> list[Scenario]:
    found = [
        Scenario(
            "embedding map: top_k",
            "app_pages/embedding_map.py",
            lambda app: app.text_input(key="map_query").input(QUERY),
            lambda app, step: app.number_input(key="map_top_k").set_value(5 if step % 2 else 10),
        ),
        Scenario(
            "presets: fusion.k in the editor",
            "app_pages/presets_mcp.py",
            lambda app: None,
            lambda app, step: app.number_input(key="preset_editor.demo.default.fusion.k").set_value(
                30 if step % 2 else 60
            ),
        ),
    ]
    if (PROJECT_DIR / "app_pages" / "retrieval_lab.py").exists():
        found += [
            Scenario(
                "retrieval lab: fusion.k (side A)",
                "app_pages/retrieval_lab.py",
                lambda app: app.text_input(key="lab_query").input(QUERY),
                lambda app, step: app.number_input(key="lab_a_fusion.k").set_value(30 if step % 2 else 60),
            ),
            Scenario(
                "retrieval lab: mmr.lambda (side B)",
                "app_pages/retrieval_lab.py",
                lambda app: app.text_input(key="lab_query").input(QUERY),
                lambda app, step: app.slider(key="lab_b_mmr.lambda").set_value(0.5 if step % 2 else 0.7),
            ),
        ]
    return found


def measure(home: Path, scenario: Scenario, repeats: int) -> list[float] | str:
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(PROJECT_DIR / "app.py"), default_timeout=300).run()
    app.switch_page(scenario.page).run()
    try:
        scenario.prepare(app)
        app.run()
        scenario.change(app, 0)  # warm-up: first query, first render of every element
        app.run()
    except KeyError as missing:
        return f"widget {missing} not on the page"
    timings = []
    for step in range(1, repeats + 1):
        scenario.change(app, step)
        started = time.perf_counter()
        app.run()
        timings.append((time.perf_counter() - started) * 1000)
        if app.exception:
            return f"the page raised: {app.exception[0].value}"
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="a home that already holds the demo collection")
    parser.add_argument("--repeats", type=int, default=12)
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: one rerun per scenario")
    args = parser.parse_args()
    if args.smoke:
        args.repeats = 1

    home = args.home
    if home is None:
        from workbench.demo import load_demo
        from workbench.service import Workbench

        home = Path(tempfile.mkdtemp(prefix="bench-rerender-"))
        started = time.perf_counter()
        loaded = load_demo(Workbench(home))
        print(f"loaded the demo into {home} in {time.perf_counter() - started:.1f} s: {loaded.report.summary()}")
    os.environ["WORKBENCH_HOME"] = str(home)

    rows: list[list[object]] = []
    for scenario in scenarios():
        result = measure(home, scenario, args.repeats)
        if isinstance(result, str):
            rows.append([scenario.name, "-", "-", "-", f"skipped: {result}"])
            continue
        ordered = sorted(result)
        p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
        rows.append([scenario.name, f"{statistics.median(result):.0f}", f"{p90:.0f}", f"{max(result):.0f}", ""])
    table(
        f"rerun after one query-time change, {args.repeats} runs each (AppTest, demo collection, no rerank)",
        ["scenario", "median ms", "p90 ms", "max ms", "note"],
        rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
