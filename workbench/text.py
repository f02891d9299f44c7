"""Text the workbench shows people: names made safe to show, counts, and an error in one line.

- ``shown_name``: a name is user input. ``report\u202etxt.md`` renders as "reportdm.txt" (a
  right-to-left override reverses what follows), a zero-width space makes two names look
  identical, a newline breaks a table row or a log line. ``shown_name`` writes every such
  character as an escape (``\\u202e``, ``\\u200b``, ``\\n``), so what the page, the MCP output or the
  CLI shows is what the name holds. The stored name is never changed: only what is displayed.
- ``count``: "1 file", "2 files", "1 query", "3 queries".
- ``first_line``: an error's cause in one line (library errors run to paragraphs of advice).
- ``error_message``: an error's message as written (a ``LookupError``'s ``str()`` quotes it).
"""

from __future__ import annotations

import unicodedata

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: control (Cc), format (Cf: bidi controls, zero-width characters, soft hyphen, BOM), line and
#: paragraph separators (Zl, Zp), surrogates and private use would all hide or move text
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}


def _shown(character: str) -> str:
    if character in _SHORT:
        return _SHORT[character]
    if unicodedata.category(character) not in _HIDDEN_CATEGORIES:
        return character
    code = ord(character)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown_name(name: object) -> str:
    """``name`` with control, bidi and zero-width characters written as escapes (``\\u202e``)."""
    text = "" if name is None else str(name)
    if text.isprintable() and not any(unicodedata.category(c) in _HIDDEN_CATEGORIES for c in text):
        return text
    return "".join(_shown(character) for character in text)


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "file")`` -> "1 file"; ``count(2, "query", "queries")`` -> "2 queries"."""
    word = noun if number == 1 else (plural or f"{noun}s")
    return f"{number:,} {word}"


def error_message(error: BaseException) -> str:
    """``error``'s message as written: ``str(KeyError("pool 'p' not found"))`` wraps it in quotes."""
    return str(error.args[0]) if isinstance(error, LookupError) and error.args else str(error)


def first_line(error: BaseException, *, with_type: bool = False) -> str:
    """The first line of ``error``'s message (its type's name when it has none); ``with_type``
    puts the type's name in front: ``"ConnectError: [Errno 111] Connection refused"``."""
    cause = (str(error).strip().splitlines() or [""])[0]
    if with_type:
        return f"{type(error).__name__}: {cause}".rstrip(": ")
    return cause or type(error).__name__


def preset_label(name: str, forced: bool) -> str:
    """A preset's name as every list shows it: marked when it was saved although its held-out
    interval did not lie above zero (``tune --force``), so it is never taken for a real gain."""
    return f"{name} (forced)" if forced else name


def number(value: float, digits: int = 4) -> str:
    """``value`` with ``digits`` decimals and a true minus sign ("−0.0829"); a value that rounds to
    zero shows no sign."""
    shown = f"{abs(value):.{digits}f}"
    return f"\u2212{shown}" if value < 0 and float(shown) != 0 else shown


def operand(value: float, digits: int = 4) -> str:
    """``number`` as the right-hand side of an operator: a negative one in parentheses, so a
    formula reads "0.5422 − (−0.0829)", never "0.5422 − -0.0829"."""
    shown = number(value, digits)
    return f"({shown})" if shown.startswith("\u2212") else shown
