"""The sign-in gate: ``app.py`` calls ``gate()`` before it reads the home or registers a page.

Nothing of the home (collection names, documents, settings) is drawn until the visitor is signed
in: without a valid token the script registers one hidden sign-in page with ``st.navigation``
and stops, so no URL (``/documents`` included) reaches a real page. The rules are in
``workbench.sharing``; this module is their Streamlit side:

- ``current_access()``: this server's mode. A server that listens beyond
  this machine always needs the token, even without ``WORKBENCH_SHARE``.
- ``server_token()``: ``WORKBENCH_TOKEN``, or a token generated when the first visitor arrives and
  printed once to the terminal as a ``?token=`` URL (``make app SHARE=1`` generates and prints it
  before the server starts, so a direct ``streamlit run`` is the only path that prints here).
- With ``[auth]`` in ``.streamlit/secrets.toml`` and ``WORKBENCH_SIGN_IN=oidc``, Streamlit's
  ``st.login`` (OpenID Connect) replaces the token.
"""

from __future__ import annotations

import os
import sys
import threading

import streamlit as st

from workbench.service.sharing import (
    READ_ONLY,
    TOKEN_VAR,
    Access,
    access_for,
    configured_token,
    new_token,
    share_mode,
    share_url,
    tokens_match,
)

SIGNED_IN_KEY = "_workbench_signed_in"
TOKEN_PARAM = "token"
SIGN_IN_VAR = "WORKBENCH_SIGN_IN"  # "token" (default) or "oidc"
_lock = threading.Lock()
_token: str | None = None


def _listening_address() -> str:
    """The address a real server binds; "127.0.0.1" when no server listens (AppTest, bare mode)."""
    from streamlit import config, runtime
    from streamlit.runtime import Runtime

    # AppTest installs a stand-in runtime and serves nothing: nobody else can reach the script
    if not runtime.exists() or type(runtime.get_instance()) is not Runtime:
        return "127.0.0.1"
    return config.get_option("server.address") or "0.0.0.0"  # Streamlit's default binds everything


def current_access() -> Access:
    """Read on every run (it is cheap), so a test or a restart with other settings is never stale."""
    return access_for(share_mode(), _listening_address())


def read_only() -> bool:
    """True in a read-only shared session: pages hide writes (the Workbench refuses them anyway)."""
    return current_access().read_only


def server_token() -> str:
    """The token visitors must bring; generated (and printed once) when ``WORKBENCH_TOKEN`` is unset."""
    global _token
    configured = configured_token()
    if configured:
        return configured
    with _lock:
        if _token is None:
            _token = new_token()
            _announce(_token)
        return _token


def _announce(token: str) -> None:
    """Print the sign-in URL to the terminal once (stdout, not the log: the logger may write files)."""
    from streamlit import config

    port = config.get_option("server.port") or 8501
    print(
        f"\n  RAG Workbench is shared and needs a token. Open:\n  {share_url('localhost', port, token)}\n"
        f"  (on other machines use this machine's address instead of localhost; set {TOKEN_VAR} to choose "
        f"the token)\n",
        file=sys.stdout,
        flush=True,
    )


def _uses_oidc() -> bool:
    if os.environ.get(SIGN_IN_VAR, "token").strip().casefold() != "oidc":
        return False
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file: fall back to the token
        return False


def gate() -> None:
    """Return when the visitor may see the app; otherwise draw the sign-in box and stop the run."""
    access = current_access()
    if not access.needs_sign_in or st.session_state.get(SIGNED_IN_KEY):
        return
    if _uses_oidc():
        if st.user.is_logged_in:
            st.session_state[SIGNED_IN_KEY] = True
            return
        _stop_on(_oidc_sign_in)
    given = st.query_params.get(TOKEN_PARAM)
    if given is not None:
        del st.query_params[TOKEN_PARAM]  # out of the address bar and the browser history
        if tokens_match(given, server_token()):
            st.session_state[SIGNED_IN_KEY] = True
            return
        st.session_state["_workbench_bad_token"] = True
    _stop_on(_token_sign_in)


def _stop_on(page_function) -> None:
    """Run only the sign-in page, and nothing else is drawn.

    The sign-in box answers at the root and at every page's address: a deep link (``/documents``)
    or a reload then shows the box instead of Streamlit's "Page not found" dialog over it, and
    keeps the address, so the rerun after signing in lands on the page asked for (a page is known
    by its address)."""
    from workbench.ui.pages import available_pages

    sign_in = [st.Page(page_function, title="Sign in", url_path="sign_in", default=True)]
    sign_in += [st.Page(page_function, title="Sign in", url_path=spec.url_path) for spec in available_pages()]
    page = st.navigation(sign_in, position="hidden")
    page.run()
    st.stop()


def _token_sign_in() -> None:
    st.title("RAG Workbench")
    mode = "read-only " if current_access().mode == READ_ONLY else ""
    st.write(
        f"This {mode}shared session needs the access token that was printed where the app was started "
        "(the `?token=` part of its URL)."
    )
    if st.session_state.pop("_workbench_bad_token", False):
        st.error("That token is not valid. Copy it again from the terminal that started the app.")
    given = st.text_input("Access token", type="password", key="sign_in_token")
    submitted = st.button("Sign in", type="primary", key="sign_in")
    if submitted or given:  # the button, or Enter in the field
        if tokens_match(given.strip(), server_token()):
            st.session_state[SIGNED_IN_KEY] = True
            st.rerun()
        st.error("That token is not valid. Copy it again from the terminal that started the app.")


def _oidc_sign_in() -> None:
    st.title("RAG Workbench")
    st.write(
        "This shared session signs visitors in with the identity provider configured in `.streamlit/secrets.toml`."
    )
    if st.button("Sign in", type="primary"):
        st.login()


def hidden_in_read_only(what: str) -> bool:
    """True, after a caption saying so, when this is a read-only session and ``what`` (a write or an
    LLM call) is hidden. Hiding is for the visitor's sake; the ``Workbench`` refuses the call anyway."""
    if not read_only():
        return False
    st.caption(f":material/lock: {what} is turned off in this read-only shared session.")
    return True
