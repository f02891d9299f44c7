"""Showing user text (file names, document text, queries) inside Streamlit's Markdown safely.

Labels, captions, alerts and status texts are Markdown in Streamlit. A file name such as
``__init__.py`` or ``[draft](x).md`` would be formatted or turned into a link, and ``:red[...]``
or ``$...$`` into colours or maths. ``md_escape`` backslash-escapes every character Markdown
(and Streamlit's extensions) could act on, so the text shows exactly as written. Raw HTML is
never enabled for user text anywhere in the app.
"""

from __future__ import annotations

import re

# CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones that can start
# or end formatting, links, HTML, maths, emoji shortcodes or tables
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def md_escape(text: object) -> str:
    """``text`` as Markdown that renders to exactly ``text`` (newlines become spaces)."""
    flat = " ".join(str(text).split())
    return _MARKDOWN_SPECIALS.sub(r"\\\1", flat)


def shorten(text: str, limit: int = 160) -> str:
    """One line of at most ``limit`` characters, for previews in tables and hovers."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
