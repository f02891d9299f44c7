"""Chunks cut to fit the embedding model's window, counted in its own tokens (English and Chinese)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from workbench.chunking.chunk import Chunk
from workbench.chunking.preparation import indexed_text, split_document
from workbench.chunking.preview import preview_chunking
from workbench.chunking.window import Overflow, Window, fit_to_window
from workbench.config import ChunkingConfig
from workbench.embedding import Embedder

_TOKEN = re.compile(r"[\u4e00-\u9fff。，]|[^\s\u4e00-\u9fff。，]+")


def token_spans(text: str) -> list[tuple[int, int]]:
    """A word is a token, and so is every Chinese character or mark (as WordPiece makes them)."""
    return [match.span() for match in _TOKEN.finditer(text)]


def counted(texts: list[str]) -> list[int]:
    """Tokens as the model reads them: the text's own, and a special token at each end."""
    return [len(token_spans(text)) + 2 for text in texts]


def window(tokens: int) -> Window:
    return Window(tokens, counted, token_spans)


def whole(markdown: str) -> list[Chunk]:
    return [Chunk(markdown, 0, len(markdown))]


def texts(chunks: list[Chunk]) -> list[str]:
    return [chunk.text for chunk in chunks]


def plain(chunk: Chunk) -> str:
    return chunk.text


def test_an_english_chunk_over_the_window_is_cut_evenly_at_words():
    markdown = "a b c d e f g h i j"  # 10 tokens, 12 as read: over a window of 8
    fitted = fit_to_window(markdown, whole(markdown), window(8), plain)
    # 8 - 2 special tokens leave 6 a chunk: two chunks, evened out to 5 and 5 rather than 6 and 4
    assert texts(fitted) == ["a b c d e", "f g h i j"]
    assert [(c.start, c.end) for c in fitted] == [(0, 9), (10, 19)]


def test_a_chinese_chunk_is_cut_at_sentence_ends_in_characters():
    markdown = "第一句话。第二句话。第三句话。"  # 15 tokens (one per character), 17 as read
    fitted = fit_to_window(markdown, whole(markdown), window(12), plain)
    # 10 tokens a chunk: two sentences fit, the third goes on alone (no even split keeps two chunks)
    assert texts(fitted) == ["第一句话。第二句话。", "第三句话。"]
    assert all(count <= 12 for count in counted(texts(fitted)))


def test_chunks_that_fit_are_kept_as_they_are():
    markdown = "one two three\n\nfour five six seven eight nine ten eleven"
    chunks = [Chunk("one two three", 0, 13), Chunk("four five six seven eight nine ten eleven", 15, 56)]
    fitted = fit_to_window(markdown, chunks, window(8), plain)
    assert fitted[0] is chunks[0]  # the same text, so the embedding cache still has its vector
    assert texts(fitted) == ["one two three", "four five six seven", "eight nine ten eleven"]


def test_the_heading_path_in_front_counts_against_the_window():
    markdown = "# Alpha beta gamma\n\nx\n\n" + " ".join(f"w{i}" for i in range(12))
    body = markdown.index("w0")
    chunk = Chunk(markdown[body:], body, len(markdown), heading_path=("Alpha beta gamma",))
    indexed = lambda c: indexed_text(c, context_headers=True)  # noqa: E731
    fitted = fit_to_window(markdown, [chunk], window(10), indexed)
    # 10 - 2 special tokens - 3 heading words leave 5 tokens a chunk: 12 words make 3 chunks of 4
    assert texts(fitted) == ["w0 w1 w2 w3", "w4 w5 w6 w7", "w8 w9 w10 w11"]
    assert all(c.heading_path == ("Alpha beta gamma",) for c in fitted)
    assert max(counted([indexed(c) for c in fitted])) == 2 + 3 + 4


def test_the_overlap_keeps_its_share_of_the_size():
    markdown = "a b c d e f g h i j k l"
    fitted = fit_to_window(markdown, whole(markdown), window(8), plain, overlap_share=0.5)
    # 6 tokens a chunk, half of them (3) shared with the chunk before
    assert texts(fitted) == ["a b c d e f", "d e f g h i", "g h i j k l"]


def test_a_piece_under_a_longer_heading_path_is_cut_again():
    # the chunk starts under "# A" and holds "## B c d e f", so its later pieces carry a longer path
    markdown = "# A\n\nx1 x2\n\n## B c d e f\n\ny1 y2 y3 y4 y5 y6"
    start = markdown.index("x1")
    chunk = Chunk(markdown[start:], start, len(markdown), heading_path=("A",))
    indexed = lambda c: indexed_text(c, context_headers=True)  # noqa: E731
    fitted = fit_to_window(markdown, [chunk], window(12), indexed)
    # 12 - 2 special tokens - "A" leave 9; the piece after "## B c d e f" reads "A > B c d e f" in
    # front (7 tokens), over the window at 15, so it is cut again with 3 tokens a chunk
    assert texts(fitted) == ["x1 x2\n\n## B c d e f", "y1 y2 y3", "y4 y5 y6"]
    assert counted([indexed(c) for c in fitted]) == [11, 12, 12]


def test_a_heading_path_that_fills_the_window_leaves_the_chunk_over_it():
    markdown = "# " + " ".join(["h"] * 9) + "\n\nbody text here"
    start = markdown.index("body")
    chunk = Chunk(markdown[start:], start, len(markdown), heading_path=(" ".join(["h"] * 9),))
    indexed = lambda c: indexed_text(c, context_headers=True)  # noqa: E731
    assert fit_to_window(markdown, [chunk], window(8), indexed) == [chunk]


def test_overflow_says_how_many_chunks_and_by_how_much():
    overflow = Overflow.of([100, 300, 256, 257, 500], 256)
    assert overflow is not None
    assert overflow.excess == (44, 1, 244) and overflow.over == 3 and overflow.chunks == 5
    assert overflow.describe("all-MiniLM-L6-v2") == (
        "3 of 5 chunks are longer than all-MiniLM-L6-v2's 256-token window, by 1 to 244 tokens (mean 96): "
        "the encoder reads only the first 256 tokens of each"
    )
    assert Overflow.of([300], 256).describe("m") == (  # type: ignore[union-attr]
        "1 of 1 chunks is longer than m's 256-token window, by 44 tokens: the encoder reads only the first "
        "256 tokens of it"
    )
    assert Overflow.of([10, None], 256) is None and Overflow.of([10], None) is None


class CharacterModel(Embedder):
    """Reads at most 12 tokens: a token per word or Chinese character, and two special tokens."""

    name = "character-model"
    dimension = 2
    max_tokens = 12

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)

    def token_counts(self, texts: list[str]) -> list[int]:
        return counted(texts)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return token_spans(text)


CHINESE = "检索增强生成先检索。再把文档交给模型。模型据此作答。"  # 3 sentences of 10, 9 and 7 characters


def test_split_document_fits_the_window_by_default_and_not_when_off():
    fitted = split_document(CHINESE, ChunkingConfig(size=1000, overlap=0), CharacterModel())
    assert texts(fitted) == ["检索增强生成先检索。", "再把文档交给模型。", "模型据此作答。"]
    assert split_document(CHINESE, ChunkingConfig(size=1000, overlap=0, fit_window=False), CharacterModel()) == [
        Chunk(CHINESE, 0, len(CHINESE))
    ]


def test_the_chunking_lab_counts_chunks_over_the_window_only_when_fitting_is_off():
    assert preview_chunking(CHINESE, ChunkingConfig(size=1000, overlap=0), CharacterModel()).over_limit == 0
    off = preview_chunking(CHINESE, ChunkingConfig(size=1000, overlap=0, fit_window=False), CharacterModel())
    assert off.token_counts == (28,) and off.over_limit == 1


def test_a_model_without_token_offsets_leaves_chunks_as_made():
    class CountsOnly(CharacterModel):
        def token_spans(self, text: str) -> list[tuple[int, int]] | None:
            return None

    assert split_document(CHINESE, ChunkingConfig(size=1000, overlap=0), CountsOnly()) == [
        Chunk(CHINESE, 0, len(CHINESE))
    ]


class MiniLmTokens(CharacterModel):
    """The bundled model's tokenizer and window, without loading the network (the embedder's own
    offsets are checked where an ingest loads it: test_window_ingest)."""

    name = "all-MiniLM-L6-v2"
    max_tokens = 256

    def __init__(self) -> None:
        from workbench.chunking.tokens import HuggingFaceTokenSpans

        self.tokens = HuggingFaceTokenSpans("all-MiniLM-L6-v2")

    def token_counts(self, texts: list[str]) -> list[int]:
        return [len(self.tokens.spans(text)) + 2 for text in texts]  # [CLS] ... [SEP]

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return self.tokens.spans(text)


@pytest.fixture(scope="module")
def minilm() -> MiniLmTokens:
    return MiniLmTokens()


def test_the_bundled_tokenizer_reads_every_default_english_chunk_whole_and_chinese_is_left_whole(minilm):
    chinese = "# 检索增强生成\n\n" + "".join(
        f"第{n}段：检索增强生成把文档切成块，用向量和关键词找回最相关的内容，再交给模型回答问题。" for n in range(40)
    )
    english = "# Retrieval\n\n" + " ".join(
        f"Sentence {n} explains how hybrid retrieval fuses BM25 with dense vectors." for n in range(60)
    )
    for markdown in (chinese, english):
        made = split_document(markdown, ChunkingConfig(fit_window=False), minilm)
        fitted = split_document(markdown, ChunkingConfig(), minilm)
        before = minilm.token_counts([indexed_text(c, True) for c in made])
        after = minilm.token_counts([indexed_text(c, True) for c in fitted])
        assert all(markdown[c.start : c.end] == c.text for c in fitted)
        if markdown is chinese:
            # a token a character: 1000 characters are about 1000 tokens, but all-MiniLM-L6-v2 does not
            # read Chinese (issue 48): cutting would only shrink BM25's chunks, so they stay whole
            assert min(before) > 256 and fitted == made
        else:  # 1000 English characters are about 200 tokens: nothing to cut
            assert max(before) <= 256 and max(after) <= 256 and fitted == made


def test_a_model_that_reads_chinese_gets_chinese_chunks_cut_to_its_window(minilm):
    class ChineseTokens(MiniLmTokens):
        name = "BAAI/bge-small-zh-v1.5"  # the catalogue says it reads zh; the tokenizer stays MiniLM's

    reader = ChineseTokens()
    chinese = "# 检索增强生成\n\n" + "".join(
        f"第{n}段：检索增强生成把文档切成块，用向量和关键词找回最相关的内容，再交给模型回答问题。" for n in range(40)
    )
    made = split_document(chinese, ChunkingConfig(fit_window=False), reader)
    fitted = split_document(chinese, ChunkingConfig(), reader)
    assert len(fitted) > len(made)
    assert max(reader.token_counts([indexed_text(c, True) for c in fitted])) <= 256
    assert fitted[0].start == made[0].start and fitted[-1].end == made[-1].end


def test_the_documents_language_decides_so_a_chinese_documents_code_is_not_cut(minilm):
    # a Chinese handbook's code block reads as English, but the handbook's readers ask in Chinese
    code = "\n".join(
        f"public interface Store{n} {{ void upsert(String tenantId, List<Record> records); }}" for n in range(20)
    )
    chinese = (
        "# 向量库接口\n\n"
        + "向量库抽象层统一了写入、检索和删除接口，支持按租户隔离。" * 40
        + "\n\n```java\n"
        + code
        + "\n```\n"
    )
    made = split_document(chinese, ChunkingConfig(fit_window=False), minilm)
    assert max(minilm.token_counts([indexed_text(c, True) for c in made])) > 256
    assert split_document(chinese, ChunkingConfig(), minilm) == made
