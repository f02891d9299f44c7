"""Finding a quoted sentence in a document's canonical Markdown, and where it is.

An LLM asked for "a verbatim sentence" copies it with its own whitespace: line breaks of the
source joined into spaces, double spaces collapsed, and in Chinese text the spaces or line
breaks a PDF put between characters dropped. So a quote is looked up three ways, strictest
first, and the span found is always the document's own characters:

1. ``exact``: the quote as given;
2. ``whitespace``: any whitespace run in the quote matches any whitespace run in the document;
3. ``cjk_whitespace``: as 2, and whitespace next to a CJK character is optional on both sides
   (Chinese has no spaces between words, so a space there carries no meaning).

Nothing else is forgiven: a changed word or punctuation mark is not the document's text.

A sentence can occur in many places (boilerplate closing every chapter, a disclaimer in every
file): ``find_quotes`` returns every place, by the strictest way that finds any, so a question
quoting it can be judged at all of them rather than at one arbitrary occurrence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EXACT, WHITESPACE, CJK_WHITESPACE = "exact", "whitespace", "cjk_whitespace"
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u3040-\u30ff\uac00-\ud7af"
_CJK_CHAR = re.compile(f"[{_CJK}]")


@dataclass(frozen=True)
class FoundQuote:
    start: int  # offsets into the Markdown, end exclusive
    end: int
    method: str  # exact | whitespace | cjk_whitespace

    def text(self, markdown: str) -> str:
        return markdown[self.start : self.end]


def find_quote(markdown: str, quote: str) -> FoundQuote | None:
    """The first place ``quote`` occurs in ``markdown`` (see the module doc), or None."""
    quote = quote.strip()
    if not quote:
        return None
    position = markdown.find(quote)
    if position >= 0:
        return FoundQuote(position, position + len(quote), EXACT)
    match = re.search(r"\s+".join(re.escape(part) for part in quote.split()), markdown)
    if match:
        return FoundQuote(match.start(), match.end(), WHITESPACE)
    if _CJK_CHAR.search(quote):
        match = _cjk_pattern(quote).search(markdown)
        if match:
            return FoundQuote(match.start(), match.end(), CJK_WHITESPACE)
    return None


def find_quotes(markdown: str, quote: str) -> list[FoundQuote]:
    """Every non-overlapping place ``quote`` occurs in ``markdown``, in order ([] when none).

    Each place is found by the most forgiving of the three ways that applies to the quote (a
    sentence is the same sentence whatever line breaks a PDF put into one copy of it) and is
    labelled with the strictest way that matches it there."""
    quote = quote.strip()
    if not quote:
        return []
    spaced = r"\s+".join(re.escape(part) for part in quote.split())
    if _CJK_CHAR.search(quote):
        pattern = _cjk_pattern(quote)
    else:
        if quote.split()[0] not in markdown:  # the cheap test first: most documents lack the quote
            return []
        pattern = re.compile(spaced)
    found = []
    for match in pattern.finditer(markdown):
        text = match.group(0)
        method = EXACT if text == quote else WHITESPACE if re.fullmatch(spaced, text) else CJK_WHITESPACE
        found.append(FoundQuote(match.start(), match.end(), method))
    return found


def _cjk_pattern(quote: str) -> re.Pattern[str]:
    """The quote's non-space characters in order; between two of them, whitespace is required
    when both are non-CJK (a word break in Latin text), optional when either is CJK."""
    characters = [c for c in quote if not c.isspace()]
    spaced = _spaces_after(quote)
    parts = [re.escape(characters[0])]
    for index in range(1, len(characters)):
        before, after = characters[index - 1], characters[index]
        either_cjk = bool(_CJK_CHAR.match(before) or _CJK_CHAR.match(after))
        parts.append(r"\s*" if either_cjk else (r"\s+" if spaced[index - 1] else ""))
        parts.append(re.escape(after))
    return re.compile("".join(parts))


def _spaces_after(quote: str) -> list[bool]:
    """For each non-space character of ``quote``: whether whitespace follows it."""
    flags: list[bool] = []
    for character in quote:
        if character.isspace():
            if flags:
                flags[-1] = True
        else:
            flags.append(False)
    return flags
