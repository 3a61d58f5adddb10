"""trickkit.lab.stats against values from statistical tables and published examples."""

from __future__ import annotations

import math

import pytest

from trickkit.lab import stats


@pytest.mark.parametrize(
    "df, expected", [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (120, 1.9799)]
)
def test_t_quantile_matches_the_table(df, expected):
    assert stats.t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert stats.t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-4)


def test_t_quantile_tends_to_the_normal_and_rejects_bad_input():
    assert stats.t_quantile(0.975, 10**7) == pytest.approx(stats.Z95, abs=1e-5)
    assert stats.t_quantile(0.95, 4) == pytest.approx(2.1318, abs=1e-4)
    with pytest.raises(ValueError):
        stats.t_quantile(1.0, 3)


@pytest.mark.parametrize(
    "x, df, p",
    [
        (3.841459, 1, 0.05),
        (5.991465, 2, 0.05),
        (7.814728, 3, 0.05),
        (11.344867, 3, 0.01),
        (9.487729, 4, 0.05),
        (67.504807, 50, 0.05),
    ],
)
def test_chi2_sf_matches_the_critical_values(x, df, p):
    assert stats.chi2_sf(x, df) == pytest.approx(p, rel=1e-5)


def test_chi2_sf_edges():
    assert stats.chi2_sf(0.0, 3) == 1.0
    assert stats.chi2_sf(2.0, 2) == pytest.approx(math.exp(-1))  # df 2: exp(-x/2) exactly
    assert stats.chi2_sf(400.0, 3) < 1e-80


def test_wilson_matches_published_examples():
    # Newcombe (1998), Statistics in Medicine 17, 857-872, example: 81 of 263 -> 0.2553 to 0.3662
    i = stats.wilson(81, 263)
    assert (round(i.low, 4), round(i.high, 4)) == (0.2553, 0.3662)
    # no success in 10: upper end 0.2775; 5 of 10: 0.2366 to 0.7634
    assert stats.wilson(0, 10).low == 0.0 and stats.wilson(0, 10).high == pytest.approx(0.2775, abs=1e-4)
    half = stats.wilson(5, 10)
    assert (round(half.low, 4), round(half.high, 4)) == (0.2366, 0.7634)
    assert stats.wilson(0, 0) == stats.Interval(0.0, 0.0, 1.0, 0)
    with pytest.raises(ValueError):
        stats.wilson(11, 10)


def test_mean_interval_is_the_t_interval():
    i = stats.mean_interval([1, 2, 3, 4, 5])  # mean 3, s = sqrt(2.5), t(0.975, 4) = 2.7764
    assert i.estimate == 3
    assert i.high - 3 == pytest.approx(2.776445 * math.sqrt(2.5 / 5), rel=1e-6)
    assert stats.mean_interval([7]) == stats.Interval(7, 7, 7, 1)
    assert stats.mean_interval([]).n == 0


def test_paired_difference_is_the_interval_of_the_differences():
    a, b = [10, 12, 9, 11, 14], [12, 13, 12, 11, 17]
    d = stats.paired_difference(b, a)
    assert d == stats.mean_interval([2, 1, 3, 0, 3])
    assert d.excludes(0.0) and not d.excludes(1.8)
    with pytest.raises(ValueError):
        stats.paired_difference([1], [1, 2])


def test_chi_square_equal():
    test = stats.chi_square_equal([30, 20, 25, 25])  # expected 25 each: (25 + 25) / 25 = 2
    assert test.statistic == pytest.approx(2.0) and test.df == 3 and test.expected == 25
    assert test.p_value == pytest.approx(0.5724067, rel=1e-6)
    assert stats.chi_square_equal([10, 10]).p_value == pytest.approx(1.0)
    assert stats.chi_square_equal([5]) is None and stats.chi_square_equal([0, 0]) is None
