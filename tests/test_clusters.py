"""Cluster-aware tests (lmnotes.stats.clusters) and the cluster bootstrap (lmnotes.stats):
calibrated where the null is true on synthetic clustered data, where document-level tests
are not, and powerful where it is false."""

import numpy as np
import pytest
from scipy import stats as ss

from lmnotes.stats import clusters, inference as stats


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
    a = stats.bootstrap_distance(
        stats.ks_distance, stats.one_hot(rng.poisson(6, 300), support)[0], Y, 500, seed=7
    )
    b = stats.bootstrap_distance(
        stats.ks_distance, stats.one_hot(rng.poisson(5, 300), support)[0], Y, 500, seed=7
    )
    d = stats.excess(a, b)
    assert d.value == pytest.approx(a.value - b.value) and d.low > 0
    with pytest.raises(ValueError, match="replicates"):
        stats.excess(a, stats.Estimate(0.1, 0.0, 0.2))


def test_cell_contrast_averages_within_cell_differences_with_regression_weights():
    # y - x differs by cell, and the two sides spread over the cells differently: the statistic
    # is the average of the cells' differences with weights c_x c_y / (c_x + c_y), not the
    # difference of the overall means (which mixes in the cells' own levels)
    x_cells = np.repeat([1, 2, 3, 9], [10, 30, 5, 4])  # cell 9: x only, left out
    y_cells = np.repeat([1, 2, 3, 7], [40, 10, 20, 6])  # cell 7: y only, left out
    level = {1: 0.0, 2: 1.0, 3: 5.0, 7: -3.0, 9: 8.0}
    x = np.array([level[c] + {1: 0.3, 2: 0.1, 3: -0.2, 9: 0.0}[c] for c in x_cells])
    y = np.array([level[c] for c in y_cells])
    r = clusters.cell_contrast_test(x, x_cells, y, y_cells)
    w = np.array([10 * 40 / 50, 30 * 10 / 40, 5 * 20 / 25])
    assert r.statistic == pytest.approx(np.average([0.3, 0.1, -0.2], weights=w))
    assert abs(x.mean() - y.mean() - r.statistic) > 0.5
    # the same difference in every cell, and no spread within cells: it is exact
    r = clusters.cell_contrast_test(np.array([level[c] + 0.2 for c in x_cells]), x_cells, y, y_cells)
    assert r.statistic == pytest.approx(0.2) and r.se < 1e-12 and r.pvalue < 1e-100


def test_cell_contrast_in_one_cell_is_welchs_test():
    # one cell, independent documents: the jackknife variance of a mean is s²/n, and each side
    # counts n - 1 degrees of freedom
    rng = np.random.default_rng(5)
    x, y = rng.normal(0, 1, 40), rng.normal(0.5, 2, 25)
    r = clusters.cell_contrast_test(x, np.zeros(40), y, np.zeros(25))
    ref = ss.ttest_ind(x, y, equal_var=False)
    assert r.statistic == pytest.approx(x.mean() - y.mean())
    assert r.statistic / r.se == pytest.approx(ref.statistic) and r.pvalue == pytest.approx(ref.pvalue)


def test_cell_contrast_counts_the_noise_of_cells_of_one_document():
    # every document in a cell of its own on one side: residuals within cells are all 0, but
    # the statistic still varies with the documents, and the jackknife sees it
    rng = np.random.default_rng(8)
    x_cells = np.arange(30)
    x = rng.normal(0, 1, 30)
    y_cells = np.repeat(np.arange(30), 20)
    y = rng.normal(0, 1, 600)
    r = clusters.cell_contrast_test(x, x_cells, y, y_cells)
    # each cell's weight is 20/21 of a document's: the variance is about that of a mean of
    # 30 values of variance 1, plus the reference's
    assert r.se == pytest.approx(np.sqrt(1 / 30 + 1 / 600), rel=0.35)


def _cells_clustered(rng, n_clusters, spread=0.4):
    """Documents in clusters of very unequal sizes; each cluster has its own level and its
    own range of cells (lengths), so that many cells of the reference belong to one cluster."""
    values, cells, groups = [], [], []
    for g, size in enumerate(rng.integers(5, 300, size=n_clusters)):
        lo = rng.integers(1, 30)
        c = rng.integers(lo, lo + 40, size=size)
        values.append(spread * rng.normal() - 0.01 * c + rng.normal(0, 1, size))
        cells.append(c)
        groups.append(np.full(size, g))
    return np.concatenate(values), np.concatenate(cells), np.concatenate(groups)


def test_cell_contrast_is_calibrated_for_documents_against_clusters():
    # the chapter's design: independent documents against a few clustered articles, matched by
    # length; a normal reference with the same variance, or the articles ignored, reject too often
    rng = np.random.default_rng(6)
    ours, normal, ignored = [], [], []
    for _ in range(300):
        y, cy, gy = _cells_clustered(rng, 10)
        pool, cpool, _ = _cells_clustered(rng, 200)  # documents of many other clusters
        pick = rng.choice(len(pool), 800, replace=False)
        r = clusters.cell_contrast_test(pool[pick], cpool[pick], y, cy, None, gy)
        ours.append(r.pvalue < 0.05)
        normal.append(2 * ss.norm.sf(abs(r.statistic) / r.se) < 0.05)
        ignored.append(clusters.cell_contrast_test(pool[pick], cpool[pick], y, cy).pvalue < 0.05)
    # 300 splits: a calibrated 5% test rejects 15 ± 11 (3 sd) times; here 13, and 32 with a
    # normal reference for the same statistic and standard error, 151 with the articles ignored
    assert 0.01 <= np.mean(ours) <= 0.08 and np.mean(normal) > np.mean(ours) + 0.04
    assert np.mean(ignored) > 0.3


def test_cell_contrast_has_power_and_checks_its_inputs():
    rng = np.random.default_rng(7)
    y, cy, gy = _cells_clustered(rng, 10, spread=0.1)
    x, cx, _ = _cells_clustered(rng, 200, spread=0.1)
    assert clusters.cell_contrast_test(x + 0.5, cx, y, cy, None, gy).pvalue < 0.01
    with pytest.raises(ValueError, match="no cell"):
        clusters.cell_contrast_test([1.0, 2.0], [1, 1], [1.0, 2.0], [2, 2])
    with pytest.raises(ValueError, match="two clusters"):
        clusters.cell_contrast_test([1.0, 2.0], [1, 1], [1.0, 2.0], [1, 1], None, [0, 0])
    with pytest.raises(ValueError, match="cell label"):
        clusters.cell_contrast_test([1.0, 2.0], [1], [1.0, 2.0], [1, 1])
