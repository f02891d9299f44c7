"""What one Streamlit element costs a query's round trip in Chromium: the prices the Retrieval
lab's layout is chosen by.

For each kind of element it serves a small page (a query box, then 20 copies of the element,
each redrawn with the query), types queries into it in headless Debian Chromium and times each
from Enter until the app is idle with the answer's last line drawn. The kind "none" (the query
box alone) is the floor; a kind's price per element is its round trip over the floor, divided
by 20. The page is served by ``streamlit run`` with the file watcher off and the post-run
collection off, as ``make app`` runs the app. Prints a table; asserts nothing.

    .venv/bin/python bench/bench_app_elements.py [--queries 14] [KIND ...]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))

from bench.printing import table  # noqa: E402
from tests.browser.app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

COPIES = 20
#: the page: ``KIND`` and ``COPIES`` come from the environment; the last caption says "done <query>"
PAGE = """
import os
import pandas as pd
import streamlit as st

from workbench.ui.data_tables import show_table

kind, copies = os.environ["KIND"], int(os.environ["COPIES"])
query = st.text_input("Query", key="query")
frame = pd.DataFrame({"rank": range(1, 11), "snippet": [f"{query} passage {i} " * 4 for i in range(10)], "score": 0.5})
lab_rows = [
    {"✓": "✓" if i % 3 == 0 else "", "rank": i + 1, "snippet": f"{query} Autophagy declines in aged organisms " * 3,
     "document": f"scifact-{i}.md", "score": 0.5 - i / 100, "heading": "Abstract › Results", "chunk": 1000 + i}
    for i in range(10)
]
for i in range(copies):
    if kind == "markdown":
        st.markdown(f"**Final · {i}** {query}")
    elif kind == "caption":
        st.caption(f"dense · 50 hits · {i} ms {query}")
    elif kind == "alert":
        st.success(f"**Relevant** ({query} {i})")
    elif kind == "button":
        st.button(f"Button {i}", key=f"button{i}")
    elif kind == "selectbox":
        st.selectbox("Pick", [f"option {j}" for j in range(30)], key=f"select{i}")
    elif kind == "expander":
        st.expander(f"Panel {i}", key=f"panel{i}", on_change="rerun")
    elif kind == "columns":
        left, right = st.columns(2)
        left.caption("left")
        right.caption("right")
    elif kind == "tabs (6)":
        st.tabs([f"stage {j} · {i}" for j in range(6)], key=f"tabs{i}", on_change="rerun")
    elif kind == "segmented control (6)":
        labels = [f"stage {j} · {i}" for j in range(6)]
        st.segmented_control("Stage", labels, key=f"seg{i}", label_visibility="collapsed")
    elif kind == "dataframe (3 columns)":
        st.dataframe(frame, hide_index=True)
    elif kind == "lab result table":
        show_table(lab_rows, "none", highlight=True)
    elif kind == "lab result table, st.table":
        st.table(lab_rows)
    elif kind == "lab result table, markdown":
        header = "| " + " | ".join(lab_rows[0]) + " |\\n|" + "---|" * len(lab_rows[0]) + "\\n"
        st.markdown(header + "\\n".join("| " + " | ".join(str(v) for v in row.values()) + " |" for row in lab_rows))
st.caption(f"done {query}")
"""
KINDS = (
    "none",
    "markdown",
    "caption",
    "alert",
    "button",
    "selectbox",
    "expander",
    "columns",
    "tabs (6)",
    "segmented control (6)",
    "dataframe (3 columns)",
    "lab result table",
    "lab result table, st.table",
    "lab result table, markdown",
)
DONE = """([mark, query]) => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    for (const caption of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
        if (caption.textContent === 'done ' + query) return performance.now() - mark;
    }
    return false;
}"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def round_trip_ms(browser, page_file: Path, kind: str, queries: int) -> float:
    """The median round trip of ``queries`` queries (the first two, which load code, left out)."""
    port = free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", str(page_file), "--server.port", str(port),
        "--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none",
        "--browser.gatherUsageStats", "false", "--runner.postScriptGC", "false",
    ]  # fmt: skip
    env = {**os.environ, "KIND": kind, "COPIES": str(COPIES), "PYTHONPATH": str(PROJECT_DIR)}
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        deadline = time.monotonic() + 60
        while True:
            try:
                page.goto(f"http://127.0.0.1:{port}")
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        box = page.locator('[data-testid="stTextInput"] input').first
        box.wait_for(timeout=60_000)
        times = []
        for number in range(queries):
            query = f"q{number}"
            box.fill(query)
            mark = page.evaluate("() => performance.now()")
            box.press("Enter")
            handle = page.wait_for_function(DONE, arg=[mark, query], polling="raf", timeout=60_000)
            times.append(float(handle.json_value()))
        page.close()
        return statistics.median(times[2:])
    finally:
        server.terminate()
        server.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=14, help="queries per kind (the first two are not counted)")
    parser.add_argument("kinds", nargs="*", default=list(KINDS), help=f"kinds to price; known: {', '.join(KINDS)}")
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: markdown, 3 queries")
    args = parser.parse_args()
    if args.smoke:
        args.queries, args.kinds = 3, ["markdown"]
    unknown = [kind for kind in args.kinds if kind not in KINDS]
    if unknown:
        parser.error(f"unknown kind {', '.join(unknown)}; known: {', '.join(KINDS)}")
    if not CHROMIUM.exists():
        print(f"needs {CHROMIUM} (apt-get install -y chromium)")
        return 1
    from playwright.sync_api import sync_playwright

    kinds = ["none", *(kind for kind in args.kinds if kind != "none")]
    before = " ".join(f"{value:.2f}" for value in os.getloadavg())
    rows = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        page_file = Path(folder) / "element_page.py"
        page_file.write_text(PAGE, encoding="utf-8")
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            floor = None
            for kind in kinds:
                median = round_trip_ms(browser, page_file, kind, args.queries)
                floor = median if floor is None else floor
                price = "" if kind == "none" else f"{(median - floor) / COPIES:.1f}"
                rows.append([kind, f"{median:.0f}", price])
        finally:
            browser.close()
    after = " ".join(f"{value:.2f}" for value in os.getloadavg())
    table(
        f"A query's round trip with {COPIES} copies of one element, Chromium, p50 of {args.queries - 2} queries "
        f"(load average 1/5/15 min before: {before}, after: {after})",
        ["element", "round trip ms", "ms per element"],
        rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
