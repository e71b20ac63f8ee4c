"""The distortion chapter's statistics (lmnotes.studies.distortion.distortion) on toys with exact answers."""

import numpy as np
import pytest

from lmnotes.studies.distortion import distortion as D


def test_error_sign_and_support():
    err = D.estimation_error([-3.0, -1.0, -2.0, -np.inf], [-2.0, -1.5, -np.inf, -np.inf])
    assert err[0] == -1.0 and err[1] == 0.5 and np.isposinf(err[2]) and err[3] == 0.0
    with pytest.raises(ValueError):
        D.estimation_error([0.0], [0.0, 1.0])


def test_tvd_from_both_sides_agrees_with_enumeration():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(30))
    q = rng.dirichlet(np.ones(30))
    exact = 0.5 * np.abs(p - q).sum()
    xs = rng.choice(30, size=200_000, p=p)
    ys = rng.choice(30, size=200_000, p=q)
    from_l = D.tvd_from_l(np.log(q[xs]) - np.log(p[xs]))
    from_m = D.tvd_from_m(np.log(q[ys]) - np.log(p[ys]))
    assert from_l == pytest.approx(exact, abs=0.01) and from_m == pytest.approx(exact, abs=0.01)


def test_mean_error_is_minus_kl():
    rng = np.random.default_rng(1)
    p, q = rng.dirichlet(np.ones(20)), rng.dirichlet(np.ones(20))
    xs = rng.choice(20, size=100_000, p=p)
    err = np.log(q[xs]) - np.log(p[xs])
    kl = float(np.sum(p * np.log(p / q)))
    assert abs(err.mean() + kl) < 4 * err.std() / np.sqrt(len(err))
    ratio = np.exp(err)
    assert abs(ratio.mean() - 1) < 4 * ratio.std() / np.sqrt(len(ratio))  # E_L[p_M/p_L] = 1


def test_perturb_changes_its_input_and_never_inserts_specials():
    rng = np.random.default_rng(0)
    vocab = [3, 4, 5, 6]
    for seq in ([], [3], [3, 3, 3], [3, 4, 5, 6, 3]):
        for _ in range(200):
            out = D.perturb(seq, vocab, rng)
            assert out != seq and set(out) <= set(vocab) | set(seq)
            assert abs(len(out) - len(seq)) <= 1
    ladder = D.perturbation_ladder([[3, 4, 5]] * 5, vocab, [0, 1, 30], seed=2)
    assert ladder[0] == [[3, 4, 5]] * 5 and all(s != [3, 4, 5] for s in ladder[1])
    assert ladder == D.perturbation_ladder([[3, 4, 5]] * 5, vocab, [0, 1, 30], seed=2)


def test_random_sequences():
    seqs = D.random_sequences(4000, [7, 8, 9], mean_length=10, seed=0)
    lengths = np.array([len(s) for s in seqs])
    assert lengths.min() >= 1 and abs(lengths.mean() - 10) < 0.2
    assert {t for s in seqs for t in s} == {7, 8, 9}


def test_bins_partition_and_keep_the_populated_ones():
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(size=500), [40.0]]  # an outlier alone in its bin
    w = D.equal_width_bins(x, 20)
    assert w[-1] == -1 and (w[:-1] >= 0).mean() > 0.95
    c = D.equal_count_bins(x, 20)
    assert len(np.unique(c)) == 20 and np.bincount(c).min() >= 25
    with pytest.warns(UserWarning, match="using 4 bins"):
        assert len(np.unique(D.equal_count_bins(x[:50], 20))) == 4
    ties = D.equal_count_bins(np.r_[np.zeros(100), np.arange(100.0)], 10)
    assert len(np.unique(ties[:100])) == 1  # equal values share a bin


def test_bin_bootstrap_intervals_cover():
    rng = np.random.default_rng(0)
    covered = 0
    for r in range(200):
        v = rng.normal(1.0, 2.0, size=60)
        t = D.bin_means(v, np.zeros(60, int), n_boot=500, seed=r)
        covered += t.loc[0, "low"] <= 1.0 <= t.loc[0, "high"]
    assert covered / 200 >= 0.9


def test_good_turing_against_the_exact_missing_mass():
    assert D.good_turing(["a", "b", "b", "c"]) == 0.5
    rng = np.random.default_rng(0)
    p = 1 / np.arange(1, 501) ** 1.1
    p /= p.sum()
    prob = dict(enumerate(p))
    N = 300
    gaps = []
    for _ in range(400):
        s = list(rng.choice(500, size=N, p=p))
        gaps.append(D.good_turing(s) - D.missing_mass(s, prob))
    exact_bias = float(np.sum(p**2 * (1 - p) ** (N - 1)))  # E[N1]/N − E[M0]
    se = np.std(gaps) / np.sqrt(len(gaps))
    assert -4 * se <= np.mean(gaps) <= 1 / N + 4 * se
    assert abs(np.mean(gaps) - exact_bias) < 4 * se
