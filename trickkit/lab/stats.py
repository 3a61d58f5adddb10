"""Small statistics for the design lab: confidence intervals and a goodness-of-fit test.

Plain Python (no numpy or scipy), so `trickkit compare` and `simulate` need no extra
package. The methods:

* a **rate** (a seat's win rate) gets the *Wilson score interval*, which stays inside
  [0, 1] and behaves at 0 or n successes, unlike the normal approximation;
* a **mean** (a mean score, a mean game length, a mean paired difference) gets the
  *Student t interval* ``mean ± t(0.975, n-1) · s/√n`` (``s`` the sample standard
  deviation); for large ``n`` this is the normal interval;
* "every seat wins equally often" is tested with Pearson's *chi-square goodness of fit*
  against equal expected counts, ``df = seats - 1``.

The distribution functions (Student t, chi-square) are computed from the regularized
incomplete beta and gamma functions (continued fractions, as in *Numerical Recipes*),
accurate to about 1e-10, far more than a simulation's sampling error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

__all__ = [
    "Z95",
    "ChiSquare",
    "Interval",
    "chi2_sf",
    "chi_square_equal",
    "mean_interval",
    "paired_difference",
    "t_quantile",
    "wilson",
]

Z95 = 1.959963984540054
"""The 0.975 quantile of the standard normal distribution (two-sided 95%)."""


@attrs.frozen
class Interval:
    """An estimate with a two-sided confidence interval.

    Attributes:
        estimate: the point estimate (a rate in [0, 1], or a mean in the data's unit).
        low: the interval's lower end.
        high: the interval's upper end.
        n: the number of observations (games) it rests on.
    """

    estimate: float
    low: float
    high: float
    n: int

    def excludes(self, value: float) -> bool:
        """True if ``value`` lies outside the interval (e.g. 0 for a difference: significant)."""
        return value < self.low or value > self.high


def wilson(successes: float, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval of a rate ``successes / n``.

    ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``.

    Args:
        successes: number of successes, ``0 <= successes <= n`` (may be fractional).
        n: number of trials; 0 gives the empty-information interval ``[0, 1]`` around 0.
        z: the normal quantile (default 95% two-sided).

    Raises:
        ValueError: ``successes`` outside ``0..n`` or ``n < 0``.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"wilson: need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Interval(0.0, 0.0, 1.0, 0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # rounding may put p a hair outside at 0 or n successes: the interval always holds p
    return Interval(p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)), n)


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """The Student t interval of the mean of ``values``.

    One value (or all equal) gives a zero-width interval at the mean; no value gives
    ``Interval(0, 0, 0, 0)``.
    """
    n = len(values)
    if n == 0:
        return Interval(0.0, 0.0, 0.0, 0)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, mean, mean, 1)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half, n)


def paired_difference(b: Sequence[float], a: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean of ``b[i] - a[i]`` with its t interval: a paired comparison (game ``i`` of
    each variant shares its seed, so their difference cancels most of the luck of the deal).

    Raises:
        ValueError: the two lists differ in length.
    """
    if len(a) != len(b):
        raise ValueError(f"paired_difference: {len(b)} values against {len(a)}")
    return mean_interval([x - y for x, y in zip(b, a)], confidence)


# ------------------------------------------------------------------ distributions


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < eps:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)
    return 1 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (e.g. ``t_quantile(0.975, 10) = 2.228``).

    Raises:
        ValueError: ``p`` not in (0, 1) or ``df <= 0``.
    """
    if not 0 < p < 1 or df <= 0:
        raise ValueError(f"t_quantile: need 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:  # bracket, then bisect: t_cdf is monotone
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def _gammainc_upper(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:  # series for P, then Q = 1 - P
        ap, total = a, 1 / a
        delta = total
        for _ in range(1000):
            ap += 1
            delta *= x / ap
            total += delta
            if abs(delta) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(-x + a * math.log(x) - gln))
    tiny = 1e-300  # continued fraction for Q (modified Lentz)
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom (the p-value)."""
    if df <= 0:
        raise ValueError(f"chi2_sf: df must be positive, got {df}")
    return _gammainc_upper(df / 2, x / 2)


@attrs.frozen
class ChiSquare:
    """The result of `chi_square_equal`.

    Attributes:
        statistic: Pearson's chi-square, ``sum((observed - expected)² / expected)``.
        df: degrees of freedom (categories - 1).
        p_value: probability of a statistic at least this large if every category is equal.
        expected: the expected count of each category.
    """

    statistic: float
    df: int
    p_value: float
    expected: float


def chi_square_equal(observed: Sequence[float]) -> ChiSquare | None:
    """Pearson's chi-square test of ``observed`` counts against equal expected counts.

    Used for "every seat wins equally often": ``observed[seat]`` is that seat's share of the
    wins, a win shared by ``k`` seats counting ``1/k`` for each, so the counts add up to the
    number of games. (Split credit keeps the total right; with many ties the test is only
    approximate.) The approximation wants each expected count to be at least about 5.

    Returns:
        The test, or None with fewer than two categories or no observation.
    """
    k = len(observed)
    total = math.fsum(observed)
    if k < 2 or total <= 0:
        return None
    expected = total / k
    stat = math.fsum((o - expected) ** 2 / expected for o in observed)
    return ChiSquare(stat, k - 1, chi2_sf(stat, k - 1), expected)
