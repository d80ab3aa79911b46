"""Interval estimates for proportions.

Wilson score interval (Wilson 1927; recommended over the normal approximation by Brown,
Cai & DasGupta 2001, *Interval Estimation for a Binomial Proportion*): well behaved at 0,
1 and small n. An empty group has no estimate: ``None``, never NaN (field case C21).
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def proportion(k: int, n: int) -> float | None:
    """``k / n``, or ``None`` when ``n == 0``."""
    return k / n if n else None


def wilson(k: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """Wilson score interval for ``k`` successes in ``n`` trials (95% by default).

    Returns:
        ``(low, high)`` in [0, 1], or ``(None, None)`` when ``n == 0``.
    """
    if n == 0:
        return None, None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high
