"""Running headers, footers and page numbers: the rows a reader skips.

A row in the top or bottom ``MARGIN_SHARE`` of its page is furniture when the same text (digits
aside, so "Page 3" matches "Page 4") in the same size sits in that margin on at least two pages
and on at least half of them, or when it is a page number alone ("7", "Page 7", "- 7 -", "第 7
页", "7 / 12"). The size keeps a title apart from a running header that repeats its words.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from workbench.ingestion.parsers.pdf.rows import Row

MARGIN_SHARE = 0.12
_PAGE_NUMBER = re.compile(
    r"^(?:(?:page|p\.|seite|página)?\s*\d{1,4}(?:\s*(?:of|/|von|de)\s*\d{1,4})?"
    r"|[-\u2013\u2014]\s*\d{1,4}\s*[-\u2013\u2014]"
    r"|第\s*\d{1,4}\s*页(?:\s*[,，/]?\s*共\s*\d{1,4}\s*页)?"
    r"|\d{1,4}\s*/\s*\d{1,4})$",
    re.IGNORECASE,
)


def _zone(row: Row, height: float) -> str | None:
    if row.bottom <= MARGIN_SHARE * height:
        return "top"
    if row.top >= (1 - MARGIN_SHARE) * height:
        return "bottom"
    return None


def _key(row: Row) -> str:
    text = re.sub(r"\d+", "#", re.sub(r"\s+", "", row.text)).lower()
    return f"{round(row.size)}:{text}"


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(text.strip()))


def without_furniture(pages: Sequence[Sequence[Row]], heights: Sequence[float]) -> list[list[Row]]:
    """Each page's rows less its running headers, footers and page numbers."""
    seen_on: dict[tuple[str, str], set[int]] = defaultdict(set)
    for number, (rows, height) in enumerate(zip(pages, heights, strict=True)):
        for row in rows:
            zone = _zone(row, height)
            if zone is not None:
                seen_on[(zone, _key(row))].add(number)
    needed = max(2, (len(pages) + 1) // 2)
    repeated = {key for key, numbers in seen_on.items() if len(numbers) >= needed}
    kept: list[list[Row]] = []
    for rows, height in zip(pages, heights, strict=True):
        page_rows = []
        for row in rows:
            zone = _zone(row, height)
            if zone is not None and ((zone, _key(row)) in repeated or is_page_number(row.text)):
                continue
            page_rows.append(row)
        kept.append(page_rows)
    return kept
