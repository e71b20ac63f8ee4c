"""Distances, permutation tests and bootstrap intervals (lmnotes.stats) against scipy and
known answers."""

import numpy as np
import pytest
from scipy import sparse, stats as ss

from lmnotes.stats import inference as stats


def test_ks_two_sample_agrees_with_scipy_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.poisson(rng.uniform(2, 20), size=rng.integers(5, 300))
        y = rng.poisson(rng.uniform(2, 20), size=rng.integers(5, 300))
        assert stats.ks_two_sample(x, y) == pytest.approx(ss.ks_2samp(x, y).statistic, abs=1e-12)
    assert stats.ks_two_sample([1, 2, 3], [1, 2, 3]) == 0
    assert stats.ks_two_sample([1, 1], [2, 2]) == 1


def test_ks_distance_to_a_theoretical_cdf_is_exact_for_discrete_laws():
    # empirical pmf (1/2, 1/2, 0) vs theoretical (1/4, 1/4, 1/2): cdfs (.5, 1, 1) vs (.25, .5, 1)
    assert stats.ks_distance([5, 5, 0], [0.25, 0.25, 0.5])[0] == pytest.approx(0.5)


def test_tvd_bounds_and_known_values():
    rng = np.random.default_rng(1)
    p = rng.integers(0, 10, size=(50, 30)) + 1
    q = rng.integers(0, 10, size=(50, 30))
    d = stats.tvd(p, q)
    assert np.all(d >= 0) and np.all(d <= 1)
    assert np.allclose(stats.tvd(p, p), 0)
    assert stats.tvd([1, 0], [0, 1])[0] == 1
    assert stats.tvd([1, 1, 0], [0, 1, 1])[0] == pytest.approx(0.5)
    # TVD = ½ L1 = sup over events; scipy has no TVD, but it is half the L1 distance of pmfs
    pp, qq = p[0] / p[0].sum(), q[0] / q[0].sum()
    assert stats.tvd(p[0], q[0])[0] == pytest.approx(0.5 * np.abs(pp - qq).sum())


def test_empty_distribution_is_a_clear_error():
    with pytest.raises(ValueError, match="no mass"):
        stats.tvd([0, 0], [1, 0])
    with pytest.raises(ValueError, match="no documents"):
        stats.one_hot([])


def test_permutation_pvalue_agrees_with_scipy_within_monte_carlo_error():
    rng = np.random.default_rng(2)
    x, y = rng.normal(0.15, 1, 200), rng.normal(0, 1, 250)
    ours = stats.permutation_test(x, y, n_resamples=20_000, seed=3)
    ref = ss.permutation_test(
        (x, y),
        lambda a, b, axis: a.mean(axis) - b.mean(axis),
        vectorized=True,
        n_resamples=20_000,
        random_state=4,
    )
    assert ours.statistic == pytest.approx(x.mean() - y.mean())
    se = np.sqrt(ref.pvalue * (1 - ref.pvalue) / 20_000)
    assert abs(ours.pvalue - ref.pvalue) < 4 * np.sqrt(2) * se + 1e-4
    assert 0.01 < ours.pvalue < 0.5  # a real, moderate effect at this size
    # identical distributions: p-values roughly uniform; a large effect: p at its floor
    assert stats.permutation_test(x + 5, y, n_resamples=999).pvalue == pytest.approx(1 / 1000)
    assert stats.stars(0.001) == "**" and stats.stars(0.03) == "*" and stats.stars(0.2) == ""


def test_permutation_test_is_seeded_and_fast_enough_to_vectorise():
    x, y = np.arange(100.0), np.arange(50.0, 150.0)
    a = stats.permutation_test(x, y, n_resamples=2000, seed=5)
    b = stats.permutation_test(x, y, n_resamples=2000, seed=5)
    assert a.pvalue == b.pvalue and np.array_equal(a.null_distribution, b.null_distribution)
    assert len(a.null_distribution) == 2000


def test_bootstrap_weights_are_resamples_of_the_documents():
    W = stats.bootstrap_weights(7, 500, np.random.default_rng(0))
    assert W.shape == (500, 7)
    assert np.all(np.asarray(W.sum(1)).ravel() == 7)
    assert abs(W.mean() - 1) < 0.05


def test_bootstrap_distance_interval_covers_and_matches_the_plain_statistic():
    rng = np.random.default_rng(6)
    x, y = rng.poisson(10, 400), rng.poisson(11, 400)
    support = np.union1d(x, y)
    X, Y = stats.one_hot(x, support)[0], stats.one_hot(y, support)[0]
    est = stats.bootstrap_distance(stats.ks_distance, X, Y, n_resamples=400, seed=0)
    assert est.value == pytest.approx(ss.ks_2samp(x, y).statistic)
    assert est.low < est.value < est.high
    # the population KS distance between Poisson(10) and Poisson(11) lies inside the interval
    k = np.arange(60)
    truth = np.abs(ss.poisson.cdf(k, 10) - ss.poisson.cdf(k, 11)).max()
    assert est.low < truth < est.high
    # against a fixed law (not resampled)
    pmf = ss.poisson.pmf(support, 10) / ss.poisson.pmf(support, 10).sum()
    fixed = stats.bootstrap_distance(stats.ks_distance, X, pmf, n_resamples=200)
    assert fixed.low <= fixed.value <= fixed.high
    assert sparse.issparse(X)


def test_a_larger_resample_size_predicts_the_interval_of_a_larger_sample():
    rng = np.random.default_rng(7)
    support = np.arange(60)
    pmf = ss.poisson.pmf(support, 11) / ss.poisson.pmf(support, 11).sum()
    small, large = rng.poisson(10, 400), rng.poisson(10, 1600)
    width = lambda x, size=None: (lambda e: e.high - e.low)(  # noqa: E731
        stats.bootstrap_distance(
            stats.ks_distance, stats.one_hot(x, support)[0], pmf, n_resamples=1000, seed=1, x_size=size
        )
    )
    predicted, actual = width(small, 1600), width(large)
    assert 0.4 < predicted / width(small) < 0.6  # the spread of a KS distance falls as 1/sqrt(n)
    assert abs(predicted / actual - 1) < 0.25  # and matches that of a real sample of that size
    W = stats.bootstrap_weights(7, 50, np.random.default_rng(0), size=20)
    assert W.shape == (50, 7) and np.all(np.asarray(W.sum(1)).ravel() == 20)
    with pytest.raises(ValueError, match="at least one"):
        stats.bootstrap_weights(7, 5, rng, size=0)


def test_the_small_cluster_reference_covers_at_ten_clusters_where_the_normal_one_does_not():
    # a known case: the mean of 10 normal cluster means (the test split's 10 articles), its
    # interval from a cluster bootstrap; 4,000 simulated splits, the true mean 0
    rng = np.random.default_rng(7)
    G, n_sim, B = 10, 4000, 400
    covered = {"small-cluster": 0, "normal": 0}
    for _ in range(n_sim):
        means = rng.normal(size=G)
        reps = means[rng.integers(0, G, size=(B, G))].mean(1)
        for name, clusters in (("small-cluster", G), ("normal", None)):
            est = stats.interval(means.mean(), reps, clusters=clusters)
            covered[name] += est.low <= 0 <= est.high
    assert abs(covered["small-cluster"] / n_sim - 0.95) < 0.02
    assert covered["normal"] / n_sim < 0.92  # the normal quantile is too narrow at G = 10


def test_the_small_cluster_reference_is_carried_to_differences_and_left_out_from_thirty_clusters():
    reps = np.random.default_rng(0).normal(size=(2, 500))
    a = stats.interval(1.0, reps[0], clusters=10)
    b = stats.interval(0.5, reps[1])
    assert a.clusters == 10 and b.clusters is None
    assert stats.excess(a, b).clusters == 10
    assert stats.interval(1.0, reps[0], clusters=30).clusters is None
    assert stats.quantile(0.95, 30) == stats.quantile(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert stats.quantile(0.95, 10) == pytest.approx(2.262157 * (10 / 9) ** 0.5, abs=1e-6)
    assert stats.n_clusters(["a", "b", "a"]) == 2 and stats.n_clusters(range(30)) is None
    wide = stats.interval(1.0, reps[0], clusters=1)
    assert wide.low == -np.inf and wide.high == np.inf  # one cluster says nothing of the spread
