"""Counts in user-facing text: "1 file", "2 files", "1 query", "3 queries"."""

from __future__ import annotations


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "file")`` -> "1 file"; ``count(2, "query", "queries")`` -> "2 queries"."""
    word = noun if number == 1 else (plural or f"{noun}s")
    return f"{number:,} {word}"
