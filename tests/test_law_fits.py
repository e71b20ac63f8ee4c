"""The Zipf and Heaps maximum-likelihood fits (lmnotes.stats.laws) recover known exponents."""

import numpy as np
import pytest
from scipy import stats as ss

from lmnotes.stats import laws


@pytest.mark.parametrize("s", [0.9, 1.2])
def test_zipf_mle_recovers_the_exponent(s):
    # 200,000 tokens over 10,000 ranks drawn from a truncated Zipf law: the MLE is within 0.01
    rng = np.random.default_rng(0)
    counts = rng.multinomial(200_000, laws.zipf_pmf(s, 10_000))
    assert laws.fit_zipf(counts) == pytest.approx(s, abs=0.01)


def test_zipf_mle_maximises_the_likelihood():
    counts = np.array([500, 260, 170, 120, 100, 80, 70, 60, 55, 50])
    s = laws.fit_zipf(counts)
    ranks = np.arange(1, 11)
    ll = lambda a: counts @ ss.zipfian.logpmf(ranks, a, 10)
    assert ll(s) >= max(ll(s - 1e-3), ll(s + 1e-3))
    assert laws.zipf_pmf(s, 10).sum() == pytest.approx(1)
    with pytest.raises(ValueError, match="two types"):
        laws.fit_zipf([5])


def test_heaps_nhpp_mle_recovers_its_parameters():
    # 3,000 documents of lengths 5..200; the MLE recovers beta within 0.01 and K within 3%
    rng = np.random.default_rng(1)
    n = rng.integers(5, 200, size=3000)
    K, beta = 1.4, 0.84
    u = rng.poisson(K * n**beta)  # the NHPP itself (u may exceed n for the shortest documents)
    fit = laws.fit_heaps(n, u)
    assert fit.beta == pytest.approx(beta, abs=0.01)
    assert fit.K == pytest.approx(K, rel=0.03)
    assert fit.cdf(fit.mean(50), 50) == pytest.approx(ss.poisson.cdf(fit.mean(50), fit.mean(50)))
    with pytest.raises(ValueError, match="non-negative"):
        laws.fit_heaps([3], [-1])
