"""The estimators of lmnotes.studies.importance.estimators: the two aggregations, bias corrections, diagnostics,
and a regression guard against the kglm-model normaliser."""

import itertools
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from lmnotes.studies.importance import estimators as I


def test_instance_level_is_corpus_level_averaged_over_recombinations():
    rng = np.random.default_rng(0)
    logw = rng.normal(size=(2, 3))
    # every way of pairing instance 1's draws with instance 2's: 3! shuffles of the second row
    corpus = [I.corpus_level(np.stack([logw[0], logw[1, list(p)]])) for p in itertools.permutations(range(3))]
    assert np.log(np.mean(np.exp(corpus))) == pytest.approx(I.instance_level(logw), abs=1e-12)
    one = logw[:1]
    assert I.instance_level(one) == pytest.approx(I.corpus_level(one))
    same = np.repeat(rng.normal(size=(4, 1)), 5, axis=1)  # a non-latent LM: every weight is p(x)
    assert I.instance_level(same) == pytest.approx(I.corpus_level(same)) == pytest.approx(same[:, 0].sum())
    assert I.grouped(logw, [0, 1]) == pytest.approx(I.instance_level(logw))
    assert I.grouped(logw, [0, 0]) == pytest.approx(I.corpus_level(logw))


def test_normaliser_uses_the_total_sample_count():
    rng = np.random.default_rng(1)
    logw = rng.normal(size=(3, 12))
    whole = I.log_mean(logw)
    for b in (1, 4, 12):  # drawn in batches of b: the same estimate
        batches = np.concatenate(
            [logsumexp(logw[:, i : i + b], axis=1, keepdims=True) for i in range(0, 12, b)], 1
        )
        assert np.allclose(logsumexp(batches, axis=1) - math.log(12), whole)
        # the kglm-model code subtracts log(samples_per_batch): too high by log(K / b)
        assert np.allclose(I.kglm_estimate(logw, b) - whole, math.log(12 / b))


def test_running_and_runs():
    logw = np.log(np.arange(1.0, 9.0))[None]
    assert np.allclose(I.running(logw, [1, 2, 8])[:, 0], np.log([1, 1.5, 4.5]))
    r = I.runs(logw, 3)
    assert r.shape == (1, 2, 3) and np.allclose(r[0, 1], logw[0, 3:6])
    with pytest.raises(ValueError, match="1..8"):
        I.running(logw, [0])


@pytest.mark.parametrize("sigma", [0.5, 1.0, 1.5])
def test_corrections_reduce_the_bias_on_lognormal_weights(sigma):
    rng = np.random.default_rng(2)
    logp = sigma**2 / 2  # E exp(N(0, s^2)) = exp(s^2 / 2)
    for K in (10, 100) if sigma >= 1 else (10,):  # at K = 100 a bias of 7e-4 drowns in noise
        logw = rng.normal(0, sigma, size=(4000, K))
        plain = abs(I.log_mean(logw).mean() - logp)
        assert abs(I.plug_in(logw).mean() - logp) < plain
        assert abs(I.jackknife(logw).mean() - logp) < plain


def test_jackknife_matches_its_definition_and_survives_a_dominant_weight():
    rng = np.random.default_rng(3)
    logw = rng.normal(size=6)
    loo = [np.log(np.mean(np.exp(np.delete(logw, i)))) for i in range(6)]
    assert I.jackknife(logw) == pytest.approx(6 * np.log(np.mean(np.exp(logw))) - 5 / 6 * np.sum(loo))
    assert np.isfinite(I.jackknife(np.array([800.0, 0.0, 0.0])))


def test_effective_sample_size_and_pareto_k():
    assert I.effective_sample_size(np.zeros(50)) == pytest.approx(50)
    assert I.effective_sample_size(np.array([0.0, -800, -800])) == pytest.approx(1)
    rng = np.random.default_rng(4)
    for xi in (0.2, 0.5, 0.9):
        w = (rng.uniform(size=10_000) ** -xi - 1) / xi  # generalised Pareto, shape xi
        assert I.pareto_k(np.log(w + 1e-300))[0] == pytest.approx(xi, abs=0.1)
    assert I.pareto_k_threshold(100) == pytest.approx(0.5) and I.pareto_k_threshold(10**6) == 0.7
    with pytest.raises(ValueError, match="more draws"):
        I.pareto_k(np.zeros((1, 10)))


def test_markov_bound_holds_on_lognormal_weights():
    rng = np.random.default_rng(5)
    sigma = 2.0
    logp = sigma**2 / 2
    est = I.log_mean(rng.normal(0, sigma, size=(20_000, 10)))
    for delta in (0.5, 1.0, 2.0):  # P(log p^ >= log p + d) <= e^-d
        assert np.mean(est >= logp + delta) <= math.exp(-delta)
    assert I.markov_factor(0.05, 48_000) == pytest.approx(1.0000624, abs=1e-6)


def test_bad_inputs():
    with pytest.raises(ValueError, match="NaN"):
        I.log_mean(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="infinite"):
        I.log_mean(np.array([[0.0, np.inf]]))
    with pytest.raises(ValueError, match="K must be"):
        I.log_mean(np.zeros((2, 0)))
    with pytest.raises(ValueError, match="T_C = 0"):
        I.perplexity(-3.0, 0)
    with pytest.raises(ValueError, match="jackknife"):
        I.jackknife(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="alpha"):
        I.markov_factor(1.5, 10)
    assert I.perplexity(-np.inf, 5) == np.inf
