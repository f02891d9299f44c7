"""Agreement between two judges, as pure functions: Cohen's weighted kappa and Kendall's tau-b.

- ``confusion_table``: how often judge A gave grade i where judge B gave grade j.
- ``weighted_kappa``: agreement on those grades beyond chance, where a near miss (2 against 3)
  costs less than a far one (0 against 3): 1 is perfect, 0 is chance.
- ``kendall_tau_b``: whether two scorings order the same things alike (tau-b, which corrects for
  ties): 1 is the same order, -1 the reverse.

Both return None when they are undefined (every pair the same grade; fewer than two items, or a
scoring that ties everything), rather than a number that would look like a finding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

WEIGHTS = ("linear", "quadratic")


def confusion_table(pairs: Sequence[tuple[int, int]], categories: int) -> list[list[int]]:
    """``table[i][j]``: pairs where A said ``i`` and B said ``j``; grades run 0..categories-1."""
    table = [[0] * categories for _ in range(categories)]
    for a, b in pairs:
        if not (0 <= a < categories and 0 <= b < categories):
            raise ValueError(f"grade pair ({a}, {b}) is outside 0..{categories - 1}")
        table[a][b] += 1
    return table


def weighted_kappa(table: Sequence[Sequence[int]], weights: str = "linear") -> float | None:
    """Cohen's weighted kappa of a square confusion table: 1 - sum(w*observed) / sum(w*expected),
    with disagreement weights |i-j|/(k-1) (linear) or ((i-j)/(k-1))^2 (quadratic)."""
    if weights not in WEIGHTS:
        raise ValueError(f"weights {weights!r} is not one of {', '.join(WEIGHTS)}")
    k = len(table)
    total = sum(sum(row) for row in table)
    if k < 2 or total == 0:
        return None
    power = 1 if weights == "linear" else 2
    rows = [sum(row) for row in table]
    columns = [sum(table[i][j] for i in range(k)) for j in range(k)]
    observed = expected = 0.0
    for i in range(k):
        for j in range(k):
            weight = (abs(i - j) / (k - 1)) ** power
            observed += weight * table[i][j]
            expected += weight * rows[i] * columns[j] / total
    if expected == 0:
        return None  # both judges used one and the same grade throughout: chance explains everything
    return 1.0 - observed / expected


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b of two scorings of the same items (ties in either count as neither order)."""
    if len(x) != len(y):
        raise ValueError(f"kendall_tau_b needs two scorings of the same items, got {len(x)} and {len(y)} values")
    n = len(x)
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                ties_x += 1
                ties_y += 1
            elif dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - ties_x) * (pairs - ties_y))
    if denominator == 0:
        return None
    return (concordant - discordant) / denominator


def describe_kappa(kappa: float | None) -> str:
    """Landis and Koch's words for a kappa (a convention, not a test)."""
    if kappa is None:
        return "undefined"
    for bound, word in ((0.0, "poor"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if kappa <= bound:
            return word
    return "almost perfect"
