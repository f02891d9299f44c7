"""What the server binds: this machine only with the repository's config; every interface, behind a
token printed once, only when sharing is asked for (``python -m workbench.ui.serve``, what ``make app`` runs)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from workbench.ui.serve import lan_address

PROJECT_DIR = Path(__file__).resolve().parents[2]
START_S = 60


def non_loopback_address() -> str | None:
    """This machine's LAN address: the default route's source, else the first of ``hostname -I``."""
    found = lan_address()
    if found:
        return found
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        listed = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout.split()
        return next((a for a in listed if ":" not in a and not a.startswith("127.")), None)
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def connects(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=3):
            return True
    except ConnectionRefusedError:
        return False


@contextlib.contextmanager
def started(command: list[str], env: dict[str, str], log: Path, port: int):
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_S
        while True:
            assert server.poll() is None, f"the server exited with {server.returncode}: {log.read_text()}"
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        break
            assert time.monotonic() < deadline, f"no answer on port {port} within {START_S} s: {log.read_text()}"
            time.sleep(0.3)
        yield server
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture
def lan() -> str:
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to try a connection from the network with")
    return address


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("WORKBENCH_SHARE", "WORKBENCH_TOKEN")}
    return {**env, "WORKBENCH_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


def test_the_repository_config_listens_on_127_0_0_1_only(tmp_path, lan):
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.fileWatcherType",
        "none",
    ]  # no --server.address: the repository's config decides
    log = tmp_path / "server.log"
    with started(command, _env(tmp_path / "home"), log, port):
        assert connects("127.0.0.1", port)
        assert not connects(lan, port), f"{lan}:{port} accepted a connection"
    printed = log.read_text()
    assert f"URL: http://127.0.0.1:{port}" in printed
    assert "Network URL" not in printed and "External URL" not in printed and lan not in printed


def test_sharing_binds_every_interface_and_prints_the_token_url_once(tmp_path, lan):
    port = free_port()
    log = tmp_path / "server.log"
    home = tmp_path / "home"
    command = [
        sys.executable,
        "-m",
        "workbench.ui.serve",
        "--server.port",
        str(port),
        "--server.fileWatcherType",
        "none",
    ]
    with started(command, _env(home, WORKBENCH_SHARE="1"), log, port):
        assert connects(lan, port)
    printed = log.read_text()
    token = printed.split("?token=", 1)[1].split()[0]
    assert len(token) >= 43
    assert f"Network URL: http://{lan}:{port}/?token={token}" in printed
    assert printed.count(token) == 2  # the local and the network URL, printed once at start
    assert "Network URL" in printed and printed.count("Network URL") == 1  # Streamlit's own token-less one is off
    written = [path for path in home.rglob("*") if path.is_file() and token.encode() in path.read_bytes()]
    assert written == []


def test_a_bad_share_setting_stops_the_start_with_the_values_it_takes(tmp_path):
    finished = subprocess.run(
        [sys.executable, "-m", "workbench.ui.serve"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        env=_env(tmp_path / "home", WORKBENCH_SHARE="everyone"),
        timeout=60,
    )
    assert finished.returncode != 0
    assert "WORKBENCH_SHARE='everyone' is not a sharing mode; use 1 (shared, with a token), readonly" in finished.stderr
