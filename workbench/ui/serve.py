"""``make app``: start the Streamlit app on this machine only, or shared with a token.

``python -m workbench.ui.serve [streamlit options]`` runs ``streamlit run app.py`` in this process,
after starting the background warm-up (``workbench.ui.warmup``: the models and indexes a first
query needs load while Streamlit starts and the first page is drawn):

- by default it binds 127.0.0.1 (``.streamlit/config.toml``) and Streamlit prints the one local URL;
- with ``WORKBENCH_SHARE=1`` or ``readonly`` (``make app SHARE=1``) it binds every interface,
  takes the token from ``WORKBENCH_TOKEN`` or generates one, and prints the sign-in URLs once.
  The token reaches the app through the server's environment only: never a file, never a log.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

from workbench.service.sharing import (
    LOCAL,
    READ_ONLY,
    TOKEN_VAR,
    SharingError,
    configured_token,
    new_token,
    share_mode,
    share_url,
)

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEFAULT_PORT = 8501
#: nothing may download model weights: the warm-up loads models before app.py sets these
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def lan_address() -> str | None:
    """This machine's address on its default route (no packet is sent), or None without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only, nothing is sent
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def _port(arguments: list[str]) -> int:
    for index, argument in enumerate(arguments):
        if argument.startswith("--server.port="):
            return int(argument.split("=", 1)[1])
        if argument == "--server.port" and index + 1 < len(arguments):
            return int(arguments[index + 1])
    return DEFAULT_PORT


def command(arguments: list[str], mode: str) -> list[str]:
    base = [sys.executable, "-m", "streamlit", "run", str(PROJECT_DIR / "app.py"), "--server.headless", "true"]
    if mode != LOCAL:
        # Streamlit's own banner would print the network URL without the token: ours replaces it
        base += ["--server.address", "0.0.0.0", "--logger.hideWelcomeMessage", "true"]
    return base + arguments


def main(arguments: list[str] | None = None) -> None:
    arguments = list(sys.argv[1:] if arguments is None else arguments)
    try:
        mode = share_mode()
        token = configured_token() if mode != LOCAL else ""
    except SharingError as error:
        raise SystemExit(f"error: {error}") from None
    if mode != LOCAL:
        token = token or new_token()
        os.environ[TOKEN_VAR] = token  # the server's environment only
        port = _port(arguments)
        what = "read-only (query and look only)" if mode == READ_ONLY else "with full access"
        lines = [
            f"\n  RAG Workbench is shared on every interface, {what}. Visitors need the token:",
            f"  Local URL:   {share_url('localhost', port, token)}",
        ]
        address = lan_address()
        if address:
            lines.append(f"  Network URL: {share_url(address, port, token)}")
        print("\n".join(lines) + "\n", flush=True)
    os.chdir(PROJECT_DIR)
    for name, value in OFFLINE.items():
        os.environ.setdefault(name, value)
    # Streamlit and the data libraries it peeks at through sys.modules first, in this thread: a
    # library half imported by the warm-up thread would look present to those peeks
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401
    from streamlit.web import cli

    # then the warm-up, in a thread: importing the workbench and loading the models take seconds
    # Streamlit's start need not wait for
    threading.Thread(target=_warm_up, args=(mode == READ_ONLY,), name="workbench-warm-up-start", daemon=True).start()
    streamlit_arguments = command(arguments, mode)[3:]  # after "python -m streamlit"
    sys.argv = ["streamlit", *streamlit_arguments]
    cli.main(prog_name="streamlit")


def _warm_up(read_only: bool) -> None:
    from workbench.service.home import resolve_home
    from workbench.ui import warmup

    warmup.start(resolve_home(os.environ.get("WORKBENCH_HOME")), read_only, announce=True)


if __name__ == "__main__":
    main()
