"""Cluster-aware tests (lmnotes.clusters) and the cluster bootstrap (lmnotes.stats):
calibrated where the null is true on synthetic clustered data, where document-level tests
are not, and powerful where it is false."""

import numpy as np
import pytest
from scipy import stats as ss

from lmnotes import clusters, stats


def clustered(rng, n_clusters, shift=0.0, spread=1.0):
    """Documents in clusters of very unequal sizes, each cluster with its own mean (the
    between-cluster sd ``spread`` against a within-cluster sd of 1), like a test split's
    articles."""
    sizes = rng.integers(5, 400, size=n_clusters)
    means = shift + spread * rng.normal(size=n_clusters)
    values = np.concatenate([rng.normal(m, 1.0, size=s) for m, s in zip(means, sizes)])
    return values, np.repeat(np.arange(n_clusters), sizes)


def test_cluster_permutation_is_calibrated_where_document_tests_are_not():
    rng = np.random.default_rng(0)
    ours, naive = [], []
    for _ in range(200):
        x, gx = clustered(rng, 10)
        y, gy = clustered(rng, 10)
        ours.append(clusters.cluster_permutation_test(x, y, gx, gy, n_resamples=999, seed=1).pvalue < 0.05)
        naive.append(ss.ttest_ind(x, y).pvalue < 0.05)
    # 200 splits: a calibrated 5% test rejects 10 ± 6 (3 sd) times
    assert np.mean(ours) <= 0.09 and np.mean(naive) > 0.5


def test_cluster_permutation_is_exact_for_singletons_and_has_power():
    rng = np.random.default_rng(1)
    x, y = rng.normal(0.0, 1, 60), rng.normal(0, 1, 80)
    a = clusters.cluster_permutation_test(x, y, None, None, n_resamples=20_000, seed=2)
    b = stats.permutation_test(x, y, n_resamples=20_000, seed=3)  # documents as clusters of one
    assert a.statistic == pytest.approx(b.statistic) and a.pvalue == pytest.approx(b.pvalue, abs=0.015)
    x, gx = clustered(rng, 10, shift=3.0, spread=0.5)
    y, gy = clustered(rng, 10)
    assert clusters.cluster_permutation_test(x, y, gx, gy, n_resamples=999).pvalue < 0.01


def test_mean_difference_test_is_calibrated_for_documents_against_clusters():
    # the tendencies chapter's design: independent model samples against a clustered test split
    rng = np.random.default_rng(2)
    rejected = []
    for _ in range(300):
        y, gy = clustered(rng, 10, spread=0.5)
        x = rng.normal(0.0, np.sqrt(1 + 0.25), size=1000)  # same population mean
        rejected.append(clusters.mean_difference_test(x, y, None, gy).pvalue < 0.05)
    assert 0.01 <= np.mean(rejected) <= 0.09
    # iid on both sides it is Welch's t-test
    x, y = rng.normal(0, 1, 50), rng.normal(0.3, 2, 70)
    ours, ref = clusters.mean_difference_test(x, y), ss.ttest_ind(x, y, equal_var=False)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-3)  # CR2 with clusters of one is s²/n


def test_clustered_inputs_are_checked():
    with pytest.raises(ValueError, match="group labels"):
        clusters.mean_difference_test([1.0, 2.0], [1.0, 2.0, 3.0], None, [0, 1])
    with pytest.raises(ValueError, match="two clusters"):
        clusters.mean_difference_test([1.0, 2.0], [1.0, 2.0], None, [0, 0])


def test_cluster_bootstrap_resamples_whole_clusters():
    groups = np.array([0, 0, 0, 1, 2, 2])
    W = stats.bootstrap_weights(6, 400, np.random.default_rng(0), groups=groups).toarray()
    assert np.all(W[:, 0] == W[:, 1]) and np.all(W[:, 0] == W[:, 2]) and np.all(W[:, 4] == W[:, 5])
    assert np.allclose(W[:, [0, 3, 4]].sum(1), 3)  # three clusters drawn per resample
    with pytest.raises(ValueError, match="not both"):
        stats.bootstrap_weights(6, 4, np.random.default_rng(0), size=3, groups=groups)
    # the cluster bootstrap's spread of a mean matches its CR1 standard error
    rng = np.random.default_rng(3)
    y, gy = clustered(rng, 30)
    W = stats.bootstrap_weights(len(y), 4000, rng, groups=gy)
    boot = (W @ y) / np.asarray(W.sum(1)).ravel()
    _, var, _ = clusters.cluster_mean_variance(y, gy)
    assert np.std(boot) == pytest.approx(np.sqrt(var), rel=0.15)


def test_excess_pairs_the_shared_reference():
    rng = np.random.default_rng(4)
    ref = rng.poisson(5, 300)
    support = np.arange(40)
    Y = stats.one_hot(ref, support)[0]
    a = stats.bootstrap_distance(stats.ks_distance, stats.one_hot(rng.poisson(6, 300), support)[0], Y, 500, seed=7)
    b = stats.bootstrap_distance(stats.ks_distance, stats.one_hot(rng.poisson(5, 300), support)[0], Y, 500, seed=7)
    d = stats.excess(a, b)
    assert d.value == pytest.approx(a.value - b.value) and d.low > 0
    with pytest.raises(ValueError, match="replicates"):
        stats.excess(a, stats.Estimate(0.1, 0.0, 0.2))
