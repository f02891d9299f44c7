"""The app served from this checkout for the browser tests, and how they start Chromium."""

from __future__ import annotations

import contextlib
import os
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
