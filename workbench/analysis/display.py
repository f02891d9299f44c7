"""Turning document text, file names and queries into safe, short display strings.

Streamlit renders Markdown in alerts and captions. Untrusted text shown there must not become
links, images, colour directives or LaTeX, so it is escaped character by character.
"""

from __future__ import annotations

import re

# Every character CommonMark or Streamlit's Markdown extensions give a meaning to:
# emphasis, code, links/images, headings, lists, tables, HTML, LaTeX ($) and the
# ":red[...]" / ":material/icon:" directives (colon).
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=\"'])")
_WHITESPACE = re.compile(r"\s+")


def escape_markdown(text: str) -> str:
    """``text`` with every Markdown-significant character backslash-escaped.

    Line breaks are kept as Markdown hard breaks so multi-line messages still read as lines.
    """
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))
    return escaped.replace("\r\n", "\n").replace("\n", "  \n")


def snippet(text: str, limit: int = 160) -> str:
    """The first ``limit`` characters of ``text`` on one line, with an ellipsis if cut."""
    flat = _WHITESPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + "…"
