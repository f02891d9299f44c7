"""The app served from this checkout for the browser tests, and how they start Chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
ARTIFACTS = PROJECT_DIR / "test-artifacts" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_S = 90
STEP_S = 120
NEEDS_CHROMIUM = "needs /usr/bin/chromium (apt-get install -y chromium; .ci/run does)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_health(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"streamlit exited with {server.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"streamlit did not answer on {url} within {SERVER_START_S} s; see {log}")


@contextlib.contextmanager
def serve(home: Path, log_name: str, env: dict[str, str] | None = None):
    """The app served from this checkout on a free loopback port, on ``home`` (``env`` adds to the
    server's environment: a sharing mode, a Hub mirror); yields its URL."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / log_name
    server_env = {
        **os.environ,
        "WORKBENCH_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **(env or {}),
    }
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=PROJECT_DIR, env=server_env, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


def settle(page) -> None:
    """Wait until the script run is over: Streamlit's running indicator shows up (if the run has
    not finished already) and goes away."""
    from playwright.sync_api import expect

    try:
        expect(page.get_by_test_id("stStatusWidget")).to_have_count(1, timeout=1500)
    except AssertionError:
        pass
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=STEP_S * 1000)


def script_runs(frames: list) -> list[tuple[str, ...]]:
    """The script runs the server started, from its websocket messages (``frames``, as a page's
    ``framereceived`` gives them): each run opens with a ``new_session`` message naming the
    fragments it reruns (none: the whole page)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    runs = []
    for payload in frames:
        if isinstance(payload, bytes):
            message = ForwardMsg.FromString(payload)
            if message.WhichOneof("type") == "new_session":
                runs.append(tuple(message.metadata.run.fragment_ids))
    return runs


def auto_reruns(frames: list) -> list[str]:
    """The fragment ids of the timed reruns the browser asked for, from its websocket messages
    (``frames``, as a page's ``framesent`` gives them): a ``run_every`` fragment's timer sends one a
    tick, whether or not the server then runs it."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    asked = []
    for payload in frames:
        if isinstance(payload, bytes):
            message = BackMsg.FromString(payload)
            if message.WhichOneof("type") == "rerun_script" and message.rerun_script.is_auto_rerun:
                asked.append(message.rerun_script.fragment_id)
    return asked


def open_panel(page, label: str) -> None:
    """Open the folded panel (an expander) labelled ``label`` and wait for what it draws."""
    from playwright.sync_api import expect

    panel = page.get_by_test_id("stExpander").filter(has=page.locator("summary", has_text=label))
    # the panel's own fold comes first; an opened panel may draw folded panels of its own
    # ("Explain a hit" holds the hit's "Chunk text"), which a bare locator would also match
    own_fold = panel.locator("details").first
    own_fold.locator("summary").first.click()
    expect(own_fold).to_have_attribute("open", "", timeout=STEP_S * 1000)
    settle(page)


#: what ``make app`` runs, with its setup step taken as done (``-o``: the shared venv is never
#: reinstalled by a test); the recipe itself, and so the command and config, are ``make app``'s
MAKE_APP = ["make", "--no-print-directory", "-o", ".venv/.installed", "app"]


@contextlib.contextmanager
def serve_like_make_app(home: Path, log_name: str, env: dict[str, str] | None = None):
    """The app started exactly as ``make app`` starts it, on ``home`` and a free loopback port
    (Streamlit reads ``STREAMLIT_SERVER_PORT`` like ``--server.port``); yields ``(url, pid)``, the
    pid being ``make``'s, the root of the server's process tree. Stops the whole tree at the end."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / log_name
    inherited = {k: v for k, v in os.environ.items() if k not in ("WORKBENCH_SHARE", "WORKBENCH_TOKEN")}
    server_env = {
        **inherited,
        "WORKBENCH_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "STREAMLIT_SERVER_PORT": str(port),
        **(env or {}),
    }
    with log.open("w") as output:
        server = subprocess.Popen(
            MAKE_APP, cwd=PROJECT_DIR, env=server_env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, server, log)
        yield url, server.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=15)


def process_tree(root: int) -> list[int]:
    """``root`` and every process below it (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parents[int(entry.name)] = int(_stat_fields(int(entry.name))[1])
    tree, frontier = [root], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        tree += children
        frontier = children
    return tree


def cpu_seconds(root: int) -> float:
    """User plus system CPU time used so far by the live processes of ``root``'s tree."""
    total = 0
    for pid in process_tree(root):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = _stat_fields(pid)
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def idle_cores(root: int, seconds: float, churn: Path | None = None) -> float:
    """Cores ``root``'s process tree used over ``seconds``. With ``churn`` (a folder), 20 files in
    it are rewritten every 50 ms meanwhile, as a test run or an editor changes files under the
    checkout; the folder is removed afterwards."""
    if churn is not None:
        churn.mkdir(parents=True, exist_ok=True)
    before, started = cpu_seconds(root), time.monotonic()
    try:
        while time.monotonic() - started < seconds:
            if churn is None:
                time.sleep(min(0.5, seconds))
                continue
            for index in range(20):
                (churn / f"file-{index}.txt").write_text(str(time.monotonic()), encoding="utf-8")
            time.sleep(0.05)
        return (cpu_seconds(root) - before) / (time.monotonic() - started)
    finally:
        if churn is not None:
            shutil.rmtree(churn, ignore_errors=True)


def _stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat after the command name (which may hold spaces): field 3 (state) onwards."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()
