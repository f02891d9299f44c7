"""Token ids kept from counting, so an exported encoder does not tokenize the same text twice.

An import counts every chunk's tokens (the count is stored, and flags text past the model's
limit), then encodes the texts the cache lacks. When a model's batch features are nothing but
each text's ids cut at its limit and padded, the counted ids already are those features, and
tokenizing again costs an import as much as counting did. Whether that holds is checked once
per model, on probe texts, against the model's own tokenization; a model where it does not
(another truncation rule, text changed before tokenizing) simply tokenizes again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

#: texts whose ids are kept at most: more than an import's embed group, so none is dropped
#: between its counting and its encoding; the oldest go first (previews count and never encode)
KEPT_TEXTS = 8192

#: what the check tokenizes both ways: cased and accented text, spaces at the ends, Chinese, and
#: text far past any model's limit, so truncation is part of the check
PROBES = (
    "A short sentence.",
    "  Spaces at both ends, and\ta tab  ",
    "Ünïcödé ÀCCENTS, MiXeD case and digits 3.14",
    "检索增强生成把文档切成块，再用向量找回最相关的内容。",
    " ".join(["retrieval augmented generation"] * 400),
)


def assemble(ids: Sequence[Sequence[int]], names: Sequence[str], limit: int | None, pad_id: int) -> list[np.ndarray]:
    """Batch features from untruncated ids (special tokens included): each cut to ``limit`` keeping
    its last token (the closing special token), padded with ``pad_id`` to the longest; one int64
    array per input in ``names`` (``input_ids``, ``attention_mask``, ``token_type_ids``)."""
    cut = [list(row) if limit is None or len(row) <= limit else [*row[: limit - 1], row[-1]] for row in ids]
    width = max((len(row) for row in cut), default=0)
    input_ids = np.full((len(cut), width), pad_id, dtype=np.int64)
    attention_mask = np.zeros((len(cut), width), dtype=np.int64)
    for position, row in enumerate(cut):
        input_ids[position, : len(row)] = row
        attention_mask[position, : len(row)] = 1
    arrays = {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": np.zeros_like(input_ids)}
    return [arrays[name] for name in names]


class CountedIds:
    """The untruncated ids of recently counted texts, given back as batch features once.

    ``tokenized(texts)`` is the model's own batch tokenization (a list of int64 arrays in
    ``names`` order) and ``untruncated(texts)`` its ids before truncation and padding; the two
    must agree on ``PROBES`` through ``assemble`` or nothing is ever given back.
    """

    def __init__(
        self,
        names: Sequence[str],
        limit: int | None,
        pad_id: int | None,
        tokenized: Callable[[list[str]], list[np.ndarray]],
        untruncated: Callable[[list[str]], list[list[int]]],
    ):
        self.names, self.limit, self.pad_id = tuple(names), limit, pad_id
        self.reusable = pad_id is not None and self._agrees(pad_id, tokenized, untruncated)
        self._ids: OrderedDict[str, list[int]] = OrderedDict()

    def _agrees(
        self,
        pad_id: int,
        tokenized: Callable[[list[str]], list[np.ndarray]],
        untruncated: Callable[[list[str]], list[list[int]]],
    ) -> bool:
        probes = list(PROBES)
        expected = tokenized(probes)
        built = assemble(untruncated(probes), self.names, self.limit, pad_id)
        return all(a.shape == b.shape and np.array_equal(a, b) for a, b in zip(expected, built, strict=False))

    def remember(self, texts: Sequence[str], ids: Sequence[Sequence[int]]) -> None:
        if not self.reusable:
            return
        for text, row in zip(texts, ids, strict=False):
            self._ids[text] = list(row)
            self._ids.move_to_end(text)
        while len(self._ids) > KEPT_TEXTS:
            self._ids.popitem(last=False)

    def features(self, texts: Sequence[str]) -> list[np.ndarray] | None:
        """The batch features of ``texts`` when every one was counted (each is given back once),
        else None: the caller tokenizes."""
        pad_id = self.pad_id  # reusable only with one
        if not self.reusable or pad_id is None or not texts or any(text not in self._ids for text in texts):
            return None
        ids = {text: self._ids.pop(text) for text in dict.fromkeys(texts)}  # a repeated text is counted once
        return assemble([ids[text] for text in texts], self.names, self.limit, pad_id)
