"""Who turns text into BM25 terms: the workbench tokenizer (client) or Milvus's analyzer (server)."""

from __future__ import annotations

from collections.abc import Iterable

from store.text_tokenizer import Bm25Tokenizer

ANALYSES = ("client", "server")
#: what ``milvus.analyzer`` may ask for (server analysis); ``auto`` picks by language
LANGUAGE_ANALYZERS = ("standard", "jieba")
TOKENIZERS = ("standard", "jieba")

# CJK punctuation jieba returns as tokens of their own; the workbench tokenizer drops them too.
CJK_PUNCTUATION = tuple("，。、；：？！「」『』（）《》〈〉【】“”‘’—…·～")


def resolve_analyzer(analysis: str, requested: str, uri: str, texts: Iterable[str]) -> str:
    """The Milvus tokenizer for a new collection.

    With client analysis the text holds the workbench's terms, each written as the hex digits of
    its UTF-8 bytes (``TextAnalysis``), and Milvus only splits them: every Milvus ``standard``
    tokenizer (a server's Unicode word boundaries, Milvus Lite's runs of word characters) keeps a
    run of hex digits whole and splits at the spaces. With server analysis, ``auto`` picks by the
    texts' language: ``jieba`` for Chinese, else ``standard`` (with English stop words and stemming).
    """
    if analysis == "client":
        return "standard"
    if requested == "auto":
        return choose_analyzer(texts)
    if requested not in LANGUAGE_ANALYZERS:
        raise ValueError(f"milvus.analyzer: unknown {requested!r}; use auto or one of {', '.join(LANGUAGE_ANALYZERS)}")
    return requested


def english_stop_words() -> frozenset[str]:
    from store.text_tokenizer import STOPWORD_LISTS

    return STOPWORD_LISTS["en"]


def choose_analyzer(texts: Iterable[str], sample: int = 2000) -> str:
    """``jieba`` when a sample of the texts is at least 5 % CJK by word characters, else ``standard``."""
    from store.text_tokenizer import cjk_character_count

    cjk = words = 0
    for number, text in enumerate(texts):
        if number >= sample:
            break
        cjk += cjk_character_count(text)
        words += sum(1 for character in text if character.isalnum())
    return "jieba" if words and cjk / words >= 0.05 else "standard"


class TextAnalysis:
    """What BM25 text goes to Milvus: the workbench tokenizer's terms ("client") or the raw text.

    A client-analysed term travels as the hex digits of its UTF-8 bytes. A server's ``standard``
    tokenizer would split a Chinese term into its characters (and Milvus Lite has no
    ``whitespace`` tokenizer); a run of hex digits is one word to every tokenizer, and the
    encoding maps distinct terms to distinct words.
    """

    def __init__(self, analysis: str, tokenizer: Bm25Tokenizer | None = None) -> None:
        self.analysis = analysis
        self.tokenizer = tokenizer or Bm25Tokenizer()

    def __call__(self, text: str) -> str:
        if self.analysis == "server":
            return text
        return " ".join(term.encode("utf-8").hex() for term in self.tokenizer.tokenize(text))
