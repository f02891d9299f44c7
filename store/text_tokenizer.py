"""The BM25 tokenizer: one tokenizer for mixed English/CJK text.

Latin-script text follows bm25s' own pipeline exactly (lowercase, ``(?u)\\b\\w\\w+\\b``, bm25s'
English stopword list, Snowball stemming), so an English corpus indexed here scores the same as
the published "bm25s + English stopwords + Snowball" reference. CJK text has no spaces between
words, and that regex would swallow a whole Chinese sentence as one token, so runs of Han, kana
and Hangul are cut out first and segmented by jieba instead.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import Stemmer
from bm25s.stopwords import STOPWORDS_EN, STOPWORDS_EN_PLUS

# Same default pattern as bm25s.tokenize: words of two or more word characters.
TOKEN_PATTERN = r"(?u)\b\w\w+\b"

STOPWORD_LISTS: dict[str, frozenset[str]] = {
    "en": frozenset(STOPWORDS_EN),
    # NLTK's English list as bm25s ships it: en's words plus question words and pronouns
    "en_plus": frozenset(STOPWORDS_EN_PLUS),
    "none": frozenset(),
}
CJK_SEGMENTERS = ("jieba", "none")
NO_STEMMER = "none"

# Han (BMP, extension A, compatibility, supplementary planes), Hiragana, Katakana (plus phonetic
# extensions and half-width forms), and Hangul (syllables and jamo). CJK punctuation is left out
# on purpose: the regular path drops it like any other punctuation.
_CJK_CHARS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
)
_CJK_RUN = re.compile(f"[{_CJK_CHARS}]+")
_WORD = re.compile(TOKEN_PATTERN)
# A jieba token worth keeping contains at least one word character (not just spaces or punctuation).
_HAS_WORD_CHAR = re.compile(r"\w")

_jieba_lock = threading.Lock()
_jieba_module = None


def _jieba():
    """Import and initialise jieba on first use: loading its dictionary takes about a second."""
    global _jieba_module
    with _jieba_lock:
        if _jieba_module is None:
            import jieba

            # jieba logs its dictionary loading at DEBUG to stderr by default.
            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            _jieba_module = jieba
    return _jieba_module


def segmenter_loaded() -> bool:
    """Whether jieba's dictionary is in memory (the first CJK text loads it: about a second)."""
    return _jieba_module is not None


def load_segmenter() -> None:
    """Load jieba's dictionary now, so the first Chinese query does not pay for it."""
    _jieba()


class _Stemmer(Protocol):
    """What the tokenizer uses of a PyStemmer object (PyStemmer ships no type hints)."""

    def stemWord(self, word: str) -> str: ...


@dataclass(frozen=True)
class Bm25Tokenizer:
    stopwords: str = "en"  # en | en_plus | none
    stemmer: str = "english"  # any PyStemmer (Snowball) algorithm, or none
    cjk: str = "jieba"  # jieba | none (none: CJK goes through the regex like any other text)

    _stem_cache: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _stem_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)
    _snowball: _Stemmer | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stopwords not in STOPWORD_LISTS:
            raise ValueError(
                f"Bm25Tokenizer: unknown stopwords {self.stopwords!r}; use one of {sorted(STOPWORD_LISTS)}"
            )
        if self.cjk not in CJK_SEGMENTERS:
            raise ValueError(f"Bm25Tokenizer: unknown cjk segmenter {self.cjk!r}; use one of {list(CJK_SEGMENTERS)}")
        if self.stemmer != NO_STEMMER:
            if self.stemmer not in Stemmer.algorithms():
                raise ValueError(
                    f"Bm25Tokenizer: unknown stemmer {self.stemmer!r}; use {NO_STEMMER!r} or one of "
                    f"{Stemmer.algorithms()}"
                )
            object.__setattr__(self, "_snowball", Stemmer.Stemmer(self.stemmer))

    def __reduce__(self):
        # The stemmer, its lock and its cache cannot be pickled; the three options rebuild them.
        return (type(self), (self.stopwords, self.stemmer, self.cjk))

    def describe(self) -> dict:
        """The parameters that decide which tokens come out, stored beside an index built with them."""
        return {
            "stopwords": self.stopwords,
            "stemmer": self.stemmer,
            "cjk": self.cjk,
            "token_pattern": TOKEN_PATTERN,
            "lowercase": True,
        }

    @classmethod
    def from_description(cls, description: dict) -> Bm25Tokenizer:
        """Rebuild the tokenizer an index was built with, from its ``describe()`` output."""
        if description.get("token_pattern", TOKEN_PATTERN) != TOKEN_PATTERN:
            raise ValueError(
                f"Bm25Tokenizer: index was built with token pattern {description['token_pattern']!r}, "
                f"this code uses {TOKEN_PATTERN!r}; rebuild the BM25 index"
            )
        return cls(stopwords=description["stopwords"], stemmer=description["stemmer"], cjk=description["cjk"])

    def tokenize(self, text: str) -> list[str]:
        if self.cjk == "none":
            return self._latin_tokens(text)
        tokens: list[str] = []
        position = 0
        for run in _CJK_RUN.finditer(text):
            tokens.extend(self._latin_tokens(text[position : run.start()]))
            tokens.extend(_cjk_tokens(run.group()))
            position = run.end()
        tokens.extend(self._latin_tokens(text[position:]))
        return tokens

    def surface_forms(self, text: str) -> dict[str, str]:
        """Each token of ``text`` -> the first word of ``text``, as written, that gives it: what a
        person typed ("combine") for the stem the index holds ("combin"). A Chinese word is its own."""
        forms: dict[str, str] = {}
        position = 0
        runs = list(_CJK_RUN.finditer(text)) if self.cjk != "none" else []
        for run in runs:
            self._latin_forms(text[position : run.start()], forms)
            for word in _cjk_tokens(run.group()):
                forms.setdefault(word, word)
            position = run.end()
        self._latin_forms(text[position:], forms)
        return forms

    def _latin_forms(self, text: str, forms: dict[str, str]) -> None:
        stopwords = STOPWORD_LISTS[self.stopwords]
        for match in _WORD.finditer(text):
            word = match.group()
            lowered = word.lower()
            if lowered in stopwords:
                continue
            snowball = self._snowball
            forms.setdefault(lowered if snowball is None else self._stem(snowball, lowered), word)

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        return [self.tokenize(text) for text in texts]

    def _latin_tokens(self, text: str) -> list[str]:
        stopwords = STOPWORD_LISTS[self.stopwords]
        # Stopwords are matched before stemming, as bm25s does.
        words = [word for word in _WORD.findall(text.lower()) if word not in stopwords]
        snowball = self._snowball
        if snowball is None:
            return words
        return [self._stem(snowball, word) for word in words]

    def _stem(self, snowball: _Stemmer, word: str) -> str:
        stem = self._stem_cache.get(word)
        if stem is None:
            # PyStemmer objects are not thread-safe; the cache makes this path rare.
            with self._stem_lock:
                stem = snowball.stemWord(word)
            self._stem_cache[word] = stem
        return stem


def cjk_character_count(text: str) -> int:
    """How many Han, kana and Hangul characters ``text`` holds (to tell a Chinese corpus from an English one)."""
    return sum(len(run.group()) for run in _CJK_RUN.finditer(text))


def _cjk_tokens(run: str) -> list[str]:
    """jieba precise-mode words of one CJK run. jieba knows Chinese words; kana and Hangul come out
    as single characters, which still match as unigrams."""
    return [token for token in _jieba().lcut(run) if _HAS_WORD_CHAR.search(token)]


def cjk_words(run: str) -> list[str]:
    """The words of one run of CJK text, as the BM25 tokenizer segments it (jieba)."""
    return _cjk_tokens(run)
