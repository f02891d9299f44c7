"""A layout's Milvus collection: its fields, limits and what it is built with."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from store.milvus.analyzers import ANALYSES, CJK_PUNCTUATION, TOKENIZERS, english_stop_words

FORMAT_VERSION = 1
BACKEND = "milvus"
#: Milvus returns at most this many hits per search (its topk limit)
MAX_TOPK = 16384
#: the largest HNSW ef Milvus accepts at search time
MAX_EF = 32768
#: Milvus VARCHAR fields hold at most this many bytes
MAX_TEXT_BYTES = 65535
#: ids per ``id in [...]`` expression or ``query(ids=...)`` call
IDS_PER_REQUEST = 4096
GENERATION_PROPERTY = "workbench.generation"
SPEC_PROPERTY = "workbench.spec"

ID, DOC_ID, DOC_TYPE, GENERATION, TEXT, VECTOR, SPARSE = (
    "id",
    "doc_id",
    "doc_type",
    "generation",
    "text",
    "vector",
    "sparse",
)
DOC_TYPE_MAX_LENGTH = 64


@dataclass(frozen=True)
class CollectionSpec:
    """What a Milvus collection is created with; recorded on the collection."""

    dim: int
    analysis: str = "client"  # client | server: who turns text into BM25 terms
    analyzer: str = "standard"  # the Milvus tokenizer of the text field: standard | jieba
    m: int = 16
    ef_construction: int = 200
    k1: float = 1.2
    b: float = 0.75

    def __post_init__(self) -> None:
        if self.analysis not in ANALYSES:
            raise ValueError(f"milvus.analysis: unknown {self.analysis!r}; use one of {', '.join(ANALYSES)}")
        if self.analyzer not in TOKENIZERS:
            raise ValueError(f"Milvus tokenizer {self.analyzer!r} is not one of {', '.join(TOKENIZERS)}")
        if self.dim < 1:
            raise ValueError(f"a Milvus collection needs a vector dimension of at least 1, got {self.dim}")

    def analyzer_params(self) -> dict:
        """Milvus analyzer parameters for the ``text`` field."""
        tokenizer = {"type": "jieba", "mode": "exact"} if self.analyzer == "jieba" else self.analyzer
        if self.analysis == "client":
            # The text arrives as the workbench tokenizer's terms separated by spaces: only split it.
            return {"tokenizer": tokenizer}
        # Stop words before stemming, as the workbench tokenizer (and bm25s) does.
        stop_words = sorted(english_stop_words()) + list(CJK_PUNCTUATION)
        return {
            "tokenizer": tokenizer,
            "filter": [
                "lowercase",
                {"type": "stop", "stop_words": stop_words},
                {"type": "stemmer", "language": "english"},
            ],
        }

    def to_dict(self) -> dict:
        return asdict(self)
