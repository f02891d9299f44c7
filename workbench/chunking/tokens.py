"""Token offsets from the embedding model's tokenizer, and the length measures chunkers use.

Chunk sizes can be counted in characters or in tokens of the embedding model. A ``LengthMeasure``
hides the difference: it measures a span of the document and lists the finest places where a
span may be cut. Token counts are taken from one tokenisation of the whole document, so a chunk's
size is the number of document tokens it overlaps.
"""

from __future__ import annotations

import os
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from workbench.config import ChunkingConfig


@runtime_checkable
class TokenSpans(Protocol):
    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character offsets ``(start, end)`` of each token of ``text``, in order, without special tokens."""
        ...


class HuggingFaceTokenSpans:
    """Token offsets from a Hugging Face fast tokenizer, loaded from local files only."""

    def __init__(self, model_name_or_path: str | Path) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never let a tokenizer lookup reach the network
        from transformers import AutoTokenizer  # heavy import, only when tokens are really wanted

        location = resolve_model_location(model_name_or_path)
        try:
            tokenizer = AutoTokenizer.from_pretrained(location, local_files_only=True, use_fast=True)
        except OSError as error:
            raise ValueError(
                f"cannot load a tokenizer for {model_name_or_path!r} from local files ({error}); "
                "pass a local model directory or a Hugging Face id already in the local cache"
            ) from None
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError(
                f"the tokenizer of {model_name_or_path!r} is not a fast tokenizer, so it cannot report "
                "character offsets; use a model that ships tokenizer.json"
            )
        self.model_name_or_path = str(model_name_or_path)
        self._tokenizer = tokenizer

    def spans(self, text: str) -> list[tuple[int, int]]:
        if not text:
            return []
        # verbose=False: documents are longer than the model's window on purpose; no warning wanted.
        encoding = self._tokenizer(
            text, add_special_tokens=False, return_offsets_mapping=True, truncation=False, verbose=False
        )
        return [(start, end) for start, end in encoding["offset_mapping"] if end > start]


def resolve_model_location(model_name_or_path: str | Path) -> str:
    """The folder the embedding model loads from (the bundled model, a local folder or the
    Hugging Face cache); a name found nowhere is passed on as given, to fail with its own error."""
    from workbench.models.availability import locate
    from workbench.models.catalogue import EMBEDDING

    folder = locate(str(model_name_or_path), EMBEDDING)
    return str(folder) if folder is not None else str(model_name_or_path)


class LengthMeasure(Protocol):
    unit: str

    def length(self, start: int, end: int) -> int:
        """Size of ``markdown[start:end]`` in this measure's unit."""
        ...

    def cut_points(self, start: int, end: int) -> list[int]:
        """Every offset strictly inside ``(start, end)`` where a span may be cut, finest grain."""
        ...


class CharMeasure:
    unit = "chars"

    def length(self, start: int, end: int) -> int:
        return max(0, end - start)

    def cut_points(self, start: int, end: int) -> list[int]:
        return list(range(start + 1, end))


class TokenMeasure:
    """Sizes in document tokens; cuts only between tokens so no token is ever split in two."""

    unit = "tokens"

    def __init__(self, token_spans: list[tuple[int, int]]) -> None:
        self.token_spans = token_spans
        self._starts = [start for start, _ in token_spans]
        self._ends = [end for _, end in token_spans]

    def length(self, start: int, end: int) -> int:
        # Tokens never overlap, so starts and ends are both sorted: tokens overlapping the span are
        # those starting before its end minus those already finished at its start.
        if end <= start:
            return 0
        return bisect_left(self._starts, end) - bisect_right(self._ends, start)

    def cut_points(self, start: int, end: int) -> list[int]:
        low, high = bisect_right(self._starts, start), bisect_left(self._starts, end)
        # Byte-level tokenizers may give several tokens the same offsets; one cut is enough.
        return list(dict.fromkeys(self._starts[low:high]))


def validate_length_settings(size: int, overlap: int, unit: str) -> None:
    """Reject chunk sizes no splitter can honour, naming the config key to change."""
    if unit not in ("chars", "tokens"):
        raise ValueError(f"unknown chunking.unit {unit!r}; use 'chars' or 'tokens'")
    if size < 1:
        raise ValueError(f"chunking.size must be at least 1 {unit}, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"chunking.overlap must be at least 0 and below chunking.size ({size}), got {overlap}")


@dataclass(frozen=True)
class LengthConfig:
    """The length settings a size-bounded splitter honours, checked when made. Each splitter's
    config is its own subclass, so a config names the splitter it is for."""

    size: int = 1000
    overlap: int = 100
    unit: str = "chars"

    def __post_init__(self) -> None:
        validate_length_settings(self.size, self.overlap, self.unit)

    @classmethod
    def from_chunking(cls, config: ChunkingConfig):
        return cls(size=config.size, overlap=config.overlap, unit=config.unit)


def require_token_spans(tokens: TokenSpans | None) -> TokenSpans:
    if tokens is None:
        raise ValueError(
            "chunking.unit='tokens' needs the embedding model's tokenizer: pass "
            "tokens=HuggingFaceTokenSpans(config.embedding.model)"
        )
    return tokens


def measure_for(markdown: str, unit: str, tokens: TokenSpans | None) -> CharMeasure | TokenMeasure:
    if unit == "chars":
        return CharMeasure()
    if unit == "tokens":
        return TokenMeasure(require_token_spans(tokens).spans(markdown))
    raise ValueError(f"unknown chunking.unit {unit!r}; use 'chars' or 'tokens'")
