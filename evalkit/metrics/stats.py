"""Interval estimates and paired tests.

* :func:`wilson` — the Wilson score interval for a proportion (Wilson 1927; recommended over
  the normal approximation by Brown, Cai & DasGupta 2001, *Interval Estimation for a Binomial
  Proportion*): well behaved at 0, 1 and small n.
* :func:`paired_bootstrap` — a seeded percentile bootstrap (Efron & Tibshirani 1993, ch. 13)
  of the difference of two paired proportions: resample the n paired units with replacement.
* :func:`mcnemar_exact` — McNemar's test in its exact (binomial) form (McNemar 1947; the
  exact conditional version as in Fagerland, Lydersen & Laake 2013, *The McNemar test for
  binary matched-pairs data*): under the null hypothesis each discordant unit is equally
  likely to favour either side.

An empty sample has no estimate: ``None`` (JSON ``null``), never NaN (field case C21).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

Z95 = 1.959963984540054
DEFAULT_BOOTSTRAP_SAMPLES = 2000
DEFAULT_SEED = 0


def proportion(k: int, n: int) -> float | None:
    """``k / n``, or ``None`` when ``n == 0``."""
    return k / n if n else None


def wilson(k: float, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """Wilson score interval for ``k`` successes in ``n`` trials (95% by default).

    Args:
        k: Successes, ``0 <= k <= n``.
        n: Trials.
        z: Normal quantile of the two-sided level (1.96 for 95%).

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


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant units.

    ``b`` units were right only under A, ``c`` only under B. Under the null hypothesis ``b``
    follows Binomial(b + c, 1/2); the p-value is ``min(1, 2 · P(X <= min(b, c)))``.

    Args:
        b: Units right under A and wrong under B.
        c: Units wrong under A and right under B.

    Returns:
        The p-value in (0, 1]; ``1.0`` when there is no discordant unit.
    """
    m = b + c
    if m == 0:
        return 1.0
    low = min(b, c)
    if m <= 1000:  # exact integer arithmetic
        tail = sum(math.comb(m, i) for i in range(low + 1))
        return min(1.0, 2 * tail / 2**m)
    # large m: the same sum in log space (log-sum-exp), still the exact binomial tail
    logs = [math.lgamma(m + 1) - math.lgamma(i + 1) - math.lgamma(m - i + 1) - m * math.log(2) for i in range(low + 1)]
    top = max(logs)
    return min(1.0, 2 * math.exp(top) * math.fsum(math.exp(v - top) for v in logs))


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in [0, 100]) of ``values``; ``None`` when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def paired_bootstrap(
    a: Sequence[int],
    b: Sequence[int],
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> dict[str, Any]:
    """Seeded percentile bootstrap of ``mean(b) - mean(a)`` over paired 0/1 outcomes.

    Each bootstrap sample draws the ``n`` paired units with replacement and recomputes the
    difference. Because each unit's difference is -1, 0 or +1, drawing ``n`` units with
    replacement is the same as drawing the counts of those three values from a multinomial
    with the observed frequencies; that is how it is computed (constant time in ``n``).

    Args:
        a: Outcomes (0/1) of the units under A.
        b: Outcomes (0/1) of the same units, in the same order, under B.
        samples: Bootstrap samples.
        seed: Seed of ``numpy.random.default_rng``; the same inputs and seed give the
            same interval.
        level: Two-sided confidence level of the percentile interval.

    Returns:
        ``{"n", "diff", "ci": [low, high], "se", "b_only", "a_only"}``: ``diff`` is the
        observed difference, ``se`` the bootstrap standard error (``None`` for ``n < 2``),
        ``a_only``/``b_only`` the discordant counts. Every estimate is ``None`` for
        ``n == 0``.

    Raises:
        ValueError: when ``a`` and ``b`` differ in length.
    """
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} vs {len(b)}")
    a_only = sum(1 for x, y in zip(a, b) if x and not y)
    b_only = sum(1 for x, y in zip(a, b) if y and not x)
    return paired_bootstrap_counts(len(a), a_only, b_only, samples=samples, seed=seed, level=level)


def paired_bootstrap_counts(
    n: int,
    a_only: int,
    b_only: int,
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> dict[str, Any]:
    """:func:`paired_bootstrap` from the counts it depends on: ``n`` paired units, of which
    ``a_only`` are right under A only and ``b_only`` under B only.

    Returns:
        As :func:`paired_bootstrap`.

    Raises:
        ValueError: when the counts are negative or ``a_only + b_only > n``.
    """
    if min(n, a_only, b_only) < 0 or a_only + b_only > n:
        raise ValueError(f"impossible paired counts: n={n}, a_only={a_only}, b_only={b_only}")
    out: dict[str, Any] = {"n": n, "diff": None, "ci": [None, None], "se": None, "a_only": a_only, "b_only": b_only}
    if n == 0:
        return out
    out["diff"] = (b_only - a_only) / n
    if a_only == 0 and b_only == 0:
        out["ci"] = [0.0, 0.0]
        out["se"] = 0.0 if n >= 2 else None
        return out
    import numpy as np

    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, [a_only / n, (n - a_only - b_only) / n, b_only / n], size=samples)
    diffs = (draws[:, 2] - draws[:, 0]) / n
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(diffs, [tail, 100 - tail])
    out["ci"] = [float(low), float(high)]
    out["se"] = float(diffs.std(ddof=1)) if n >= 2 else None
    return out
