"""What every bench script prints: a titled table with columns as wide as their widest cell."""

from __future__ import annotations


def table(title: str, header: list[str], rows: list[list]) -> None:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=False)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=False)))
