"""Fragments that redraw on a timer while, and only while, what they show is still changing.

Streamlit's ``run_every`` timer lives in the browser: once a fragment has asked for it, the tab
reruns the fragment every interval until the page's next whole run (or until a parent fragment's
run drops it). A page whose person then only asks lab queries (fragment runs) or reads never has
that whole run, so a warm-up line drawn while the models loaded kept the server busy once a second
for as long as the tab stayed open. A whole run from the fragment is no cure either: it would wipe
what the page's last run showed once (a failed download's error, a saved preset's note).

So every timed fragment in the app is made here, from a draw function that says whether there is
more to show; when it says no, the fragment cancels its own timer with the message Streamlit sends
for a fragment that a run dropped (``StopAutoRerun``), and the browser stops asking. The guard test
(tests/workbench/ui/test_polling.py) checks that no ``run_every`` is written anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx

#: a draw function: draws the fragment's content and returns True while it will change again
Draw = Callable[[], bool]


def polling_fragment(every_s: float | None) -> Callable[[Draw], Callable[[], None]]:
    """A fragment that runs ``draw`` now and then every ``every_s`` seconds until ``draw`` returns
    False (or never again, with ``every_s`` None: drawn once, like any fragment)."""

    def decorate(draw: Draw) -> Callable[[], None]:
        def run() -> None:
            if not draw() and every_s is not None:
                stop_this_fragment_polling()

        # Streamlit names a fragment by its function's module and qualified name: the draw's
        run.__module__, run.__qualname__, run.__name__ = draw.__module__, draw.__qualname__, draw.__name__
        return st.fragment(run_every=every_s)(run)

    return decorate


def stop_this_fragment_polling() -> None:
    """Cancel the browser's timer of the fragment running now (nothing outside a fragment). The
    fragment stays drawn as it is; a later whole run of the page draws it afresh."""
    context = get_script_run_ctx(suppress_warning=True)
    fragment_id = ThreadState.get().fragment_id if context is not None else None
    if context is None or fragment_id is None:
        return
    message = ForwardMsg()
    message.stop_auto_rerun.fragment_ids.append(fragment_id)
    context.enqueue(message)
