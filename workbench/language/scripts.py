"""Which writing systems a text is written in, and so which language it is: ``text_language``.

Script shares are what the workbench can tell reliably without a language model: Chinese is
written in Han characters, Japanese mixes Han with kana, Korean uses Hangul, English and most
European languages use the Latin alphabet. A text is counted in units of meaning, not letters:
a Han, kana or Hangul character is one unit (a CJK character is about a word), a word of any
other script is one (``Cross-Encoder`` is two, not twelve). Digits, punctuation and spaces do not
count. A text whose CJK characters are at least ``CJK_SHARE`` of its units is Chinese (Japanese,
Korean): Chinese technical prose carries English terms, code and tables, and
"混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？" (11 Han characters, 3 English words) is a Chinese
question. Otherwise the script with the most units names the language (Latin-script text is
labelled ``en``: the script cannot tell English from French, and the models in the catalogue that
read one read the other as well as their training allows).

This is the one rule: the query guard, golden synthesis, ingestion's warnings and OCR captions all
ask ``text_language`` (or ``LanguageMix.language``, the same rule over many texts).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

LATIN, HAN, KANA, HANGUL = "Latin", "Han", "Kana", "Hangul"
CYRILLIC, GREEK, ARABIC, HEBREW, DEVANAGARI, THAI = "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai"
OTHER = "Other"

# Letters only: the look-ahead drops digits, marks and punctuation that share a block with letters.
_LETTER = r"(?=[^\W\d_])"
_SCRIPT_CHARS: dict[str, str] = {
    LATIN: "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff",
    HAN: "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f",
    KANA: "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    HANGUL: "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af",
    CYRILLIC: "\u0400-\u04ff",
    GREEK: "\u0370-\u03ff\u1f00-\u1fff",
    ARABIC: "\u0600-\u06ff\u0750-\u077f",
    HEBREW: "\u0590-\u05ff",
    DEVANAGARI: "\u0900-\u097f",
    THAI: "\u0e00-\u0e7f",
}
SCRIPTS: tuple[str, ...] = (*_SCRIPT_CHARS, OTHER)
#: scripts written without spaces between words, counted by character; the others by word
CJK: tuple[str, ...] = (HAN, KANA, HANGUL)
_SCRIPT_PATTERNS = {
    # a word runs on through the marks and signs of its own script (Devanagari vowel signs, Arabic harakat)
    script: re.compile(f"{_LETTER}[{chars}]" if script in CJK else f"{_LETTER}[{chars}][{chars}]*")
    for script, chars in _SCRIPT_CHARS.items()
}
_ANY_WORD = re.compile(r"[^\W\d_]+")
_NAMED_LETTER = re.compile(f"{_LETTER}[{''.join(_SCRIPT_CHARS.values())}]")

#: the language a script's text is labelled with (Han and kana together make Japanese)
LANGUAGE_OF_SCRIPT: dict[str, str] = {
    LATIN: "en",
    HAN: "zh",
    KANA: "ja",
    HANGUL: "ko",
    CYRILLIC: "ru",
    GREEK: "el",
    ARABIC: "ar",
    HEBREW: "he",
    DEVANAGARI: "hi",
    THAI: "th",
}
#: a text whose Han letters come with at least this share of kana (of the two together) is Japanese
JAPANESE_KANA_SHARE = 0.1
#: a text whose CJK characters are at least this share of its units is CJK. The seeds' Chinese design
#: documents have passages of code and API tables with a little Chinese between them at 0.3-0.5;
#: pure code blocks with a Chinese comment stay under 0.2
CJK_SHARE = 0.3


def script_counts(text: str) -> Counter:
    """Units per script: each Han, kana or Hangul character, each word (run of letters) of any
    other script; words in scripts not listed count as ``Other``."""
    counts: Counter = Counter()
    if not text:
        return counts
    if text.isascii():  # the common case, one pass: ASCII words are all Latin
        words = len(_ANY_WORD.findall(text))
        if words:
            counts[LATIN] = words
        return counts
    for script, pattern in _SCRIPT_PATTERNS.items():
        found = len(pattern.findall(text))
        if found:
            counts[script] = found
    other = len(_ANY_WORD.findall(_NAMED_LETTER.sub(" ", text)))
    if other > 0:
        counts[OTHER] = other
    return counts


def text_language(text: str) -> str:
    """``zh``, ``en``, ``ja``...: the language of ``text`` by the rule in the module doc; "" when it
    has no letters (or only letters of scripts the workbench does not name)."""
    return LanguageMix.of(text).language or ""


@dataclass(frozen=True)
class LanguageMix:
    """The units of a text (or of many) by script: counts, shares and the resulting label."""

    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str) -> LanguageMix:
        return cls(dict(script_counts(text)))

    @classmethod
    def of_texts(cls, texts: Iterable[str]) -> LanguageMix:
        total: Counter = Counter()
        for text in texts:
            total.update(script_counts(text))
        return cls(dict(total))

    @property
    def units(self) -> int:
        return sum(self.counts.values())

    @property
    def shares(self) -> dict[str, float]:
        """Script -> share of the units, largest first; empty when there are no letters."""
        total = self.units
        if not total:
            return {}
        ordered = sorted(self.counts.items(), key=lambda item: (-item[1], SCRIPTS.index(item[0])))
        return {script: count / total for script, count in ordered}

    @property
    def main_script(self) -> str | None:
        """The CJK script with the most characters when CJK characters reach ``CJK_SHARE`` of the
        units; else the script with the most units."""
        shares = self.shares
        cjk = [script for script in shares if script in CJK]
        if cjk and sum(shares[script] for script in cjk) >= CJK_SHARE:
            return cjk[0]
        return next(iter(shares), None)

    @property
    def language(self) -> str | None:
        """The label of the main script (``zh``, ``en``, ``ja``...); None without letters or for
        scripts the workbench does not name."""
        script = self.main_script
        if script is None:
            return None
        if script in (HAN, KANA):
            han, kana = self.counts.get(HAN, 0), self.counts.get(KANA, 0)
            return "ja" if kana / (han + kana) >= JAPANESE_KANA_SHARE else "zh"
        return LANGUAGE_OF_SCRIPT.get(script)

    def share_of(self, scripts: Iterable[str]) -> float:
        wanted = set(scripts)
        return sum(share for script, share in self.shares.items() if script in wanted)

    def describe(self, limit: int = 3) -> str:
        """``Han (zh) 93%, Latin (en) 7%``; ``no letters``. A script that rounds to 0% is left out:
        one stray Greek letter (a μ in a formula) is not a language of the text."""
        shares = self.shares
        if not shares:
            return "no letters"
        shown = [(script, share) for script, share in shares.items() if round(share * 100) > 0] or list(shares.items())
        parts = []
        for script, share in shown[:limit]:
            label = LANGUAGE_OF_SCRIPT.get(script)
            parts.append(f"{script}{f' ({label})' if label else ''} {share:.0%}")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        return {
            "units": self.units,
            "shares": {k: round(v, 4) for k, v in self.shares.items()},
            "language": self.language,
        }
