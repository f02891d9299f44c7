"""Which lab runs earn a spinner: only those that rerank or call an LLM (seconds, not milliseconds)."""

from __future__ import annotations

from workbench.config import WorkbenchConfig
from workbench.ui.lab_side import may_be_slow


def test_only_a_rerank_or_an_llm_call_earns_a_spinner():
    plain = WorkbenchConfig()
    assert not may_be_slow(plain)  # hybrid retrieval and fusion: milliseconds
    assert not may_be_slow(plain.with_value("mmr.enabled", True))
    assert may_be_slow(plain.with_value("rerank.model", "cross-encoder/ms-marco-MiniLM-L-6-v2"))
    assert may_be_slow(plain.with_value("rerank.method", "llm"))
    assert may_be_slow(plain.with_value("query.enhance", "multi"))
    assert not may_be_slow(plain.with_value("query.enhance", "keywords"))  # keywords need no LLM
