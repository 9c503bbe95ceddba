"""Wilson intervals (statsmodels) and sample-size planning."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.proportion import proportion_confint

from groundlab import Rate, answers_needed, interval_half_width, wilson_interval
from groundlab.stats import UndefinedRateWarning, make_rate


def test_wilson_reference_examples():
    assert [round(x, 2) for x in wilson_interval(5, 10)] == [0.24, 0.76]
    low, high = wilson_interval(50, 100)
    assert round(low, 2) == 0.40 and round(high, 2) == 0.60


def test_zero_and_full():
    low, high = wilson_interval(0, 10)
    assert low == 0 and 0.25 < high < 0.35
    low, high = wilson_interval(10, 10)
    assert 0.65 < low < 0.75 and high == pytest.approx(1)


def test_undefined_rate_is_nan_with_a_warning():
    with pytest.warns(UndefinedRateWarning):
        rate = make_rate(0, 0, "citation precision")
    assert math.isnan(rate.rate) and math.isnan(rate.low)
    assert str(rate) == "0/0 (n/a)"


def test_rate_string_and_bounds():
    assert str(Rate(6, 10)) == "6/10 = 60%"
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


@pytest.mark.parametrize("rate,n", [(0.5, 10), (0.6, 10), (0.05, 400), (0.3, 2000)])
def test_half_width_matches_statsmodels(rate, n):
    count = rate * n
    low, high = proportion_confint(count, n, method="wilson")
    assert interval_half_width(rate, n) == pytest.approx((high - low) / 2, rel=1e-9)


def test_answers_needed():
    n = answers_needed(0.5, 0.05)
    assert n == 381
    assert interval_half_width(0.5, n) <= 0.05 < interval_half_width(0.5, n - 1)
    assert answers_needed(0.1, 0.05) < n
    with pytest.raises(ValueError):
        answers_needed(0.5, 0)


def test_wilson_by_formula_equals_statsmodels():
    """The closed formula gives statsmodels' Wilson interval to 1e-12, whole counts or not (the
    weighted rate's effective sample size is not whole), at other confidence levels too."""
    cases = [(0, 1), (1, 1), (0, 10), (10, 10), (5, 10), (6, 10), (1, 3), (13, 20), (12, 19), (1, 9),
             (19247, 93177), (7, 10_000_000), (9_999_990, 10_000_000), (2.5, 7.25), (0.0, 3.5), (40.2, 40.2)]
    for count, total in cases:
        for confidence in (0.95, 0.9, 0.99):
            ours = wilson_interval(count, total, confidence)
            theirs = proportion_confint(count, total, alpha=1 - confidence, method="wilson")
            assert ours == pytest.approx(tuple(map(float, theirs)), abs=1e-12, rel=0), (count, total, confidence)


def test_a_wilson_range_imports_neither_statsmodels_nor_scipy():
    import subprocess
    import sys

    code = ("import sys; from groundlab.stats import Rate; Rate(6, 10).interval; "
            "print(sorted(m for m in ('statsmodels', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_rates_add_up_and_a_rate_that_does_not_apply_still_counts():
    assert Rate(5, 10) + Rate(1, 10) == Rate(6, 20)
    none = Rate(0, 100, applies=False)
    assert math.isnan(none.rate) and math.isnan(none.low) and not none.defined and str(none) == "0/100 (n/a)"
    assert none + Rate(40, 50) == Rate(40, 150) and (none + none).applies is False
