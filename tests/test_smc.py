"""Sequential Monte Carlo on the switch-LM (lmnotes.studies.importance.smc) and the exact quantities chapter 04
adds to lmnotes.studies.importance.latent (posterior entropy, the static mixture), against enumeration on toys."""

import numpy as np
import pytest
from scipy.special import logsumexp

from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import smc as S
from test_latent import paths, toy


@pytest.mark.parametrize("h", [0, 1])
def test_smc_is_unbiased_within_4se(h):
    model, em = toy(3, lengths=(9, 4, 12), sticky=0.6, seed=3)
    q = L.lookahead(model, em, h)
    logp = model.logprob(em)
    est = S.smc(model, em, q, 8, n_runs=4000, seed=1)  # [N, runs]
    ratio = np.exp(est - logp[:, None])  # p^ / p, mean 1
    se = ratio.std(1, ddof=1) / np.sqrt(ratio.shape[1])
    assert np.all(np.abs(ratio.mean(1) - 1) < 4 * se)


def test_smc_beats_importance_sampling_on_a_long_sticky_chain():
    """Resampling keeps particles on paths that explain the text: on long instances of a
    persistent chain, without peeking, SMC's log-estimate is far less biased than IS's."""
    model, em = toy(3, lengths=(60, 80), sticky=0.9, seed=2)
    q = L.lookahead(model, em, 0)
    logp = model.logprob(em)
    err_smc = (S.smc(model, em, q, 50, n_runs=20, seed=0) - logp[:, None]).mean()
    err_is = L.draw(model, em, q, 50 * 20, seed=0).reshape(2, 20, 50)
    err_is = (logsumexp(err_is, axis=2) - np.log(50) - logp[:, None]).mean()
    assert err_smc > err_is + 1 and err_smc < 0


def test_without_resampling_smc_is_importance_sampling():
    model, em = toy(2, lengths=(6, 3), seed=5)
    q = L.lookahead(model, em, 1)
    a = S.smc(model, em, q, 20, n_runs=3000, seed=0, resample_below=0.0)
    b = L.draw(model, em, q, 20 * 3000, seed=1).reshape(2, 3000, 20)
    b = logsumexp(b, axis=2) - np.log(20)
    # the same estimator: equal means of log p^ within sampling error
    se = np.hypot(a.std(1), b.std(1)) / np.sqrt(3000)
    assert np.all(np.abs(a.mean(1) - b.mean(1)) < 4 * se)


def test_systematic_resampling_follows_the_weights():
    log_w = np.log(np.array([[0.0, 1.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.5, 0.0, 0.0, 0.5]]) + 1e-300)
    anc = S._systematic(log_w, np.array([0.3, 0.3, 0.3]))
    assert anc[0].tolist() == [1, 1, 1, 1]
    assert anc[1].tolist() == [0, 1, 2, 3]
    assert anc[2].tolist() == [0, 0, 3, 3]


def test_smc_bad_inputs():
    model, em = toy(2)
    q = L.lookahead(model, em, 1)
    with pytest.raises(ValueError, match="particles"):
        S.smc(model, em, q, 0)
    with pytest.raises(ValueError, match="runs"):
        S.smc(model, em, q, 5, n_runs=0)
    with pytest.raises(ValueError, match="resample_below"):
        S.smc(model, em, q, 5, resample_below=1.5)


def test_posterior_entropy_equals_enumeration():
    model, em = toy(3, lengths=(6, 2, 5), sticky=0.3)
    H = L.entropy(L.posterior(model, em))
    for n in range(3):
        _, lp = paths(model, em, n)
        p = np.exp(lp - logsumexp(lp))
        assert H[n] == pytest.approx(-(p * np.log(p)).sum(), abs=1e-10)
    # a chain with one state has no uncertainty; a uniform one has T log C
    assert np.allclose(L.entropy(L.lookahead(L.SwitchLM(np.ones(1), np.ones((1, 1))), em.component(0), 0)), 0)
    uniform = L.SwitchLM(np.full(3, 1 / 3), np.full((3, 3), 1 / 3))
    assert np.allclose(L.entropy(L.lookahead(uniform, em, 0)), em.lengths * np.log(3))


def test_static_mixture_fits_the_weights_and_ignores_the_state():
    rng = np.random.default_rng(0)
    w_true = np.array([0.7, 0.2, 0.1])
    # emissions where exactly one component explains each token, drawn with w_true
    z = rng.choice(3, size=(400, 10), p=w_true)
    log_e = np.where(np.eye(3)[z] > 0, np.log(0.5), np.log(1e-6))
    em = L.Emissions(log_e, np.full(400, 10))
    static = L.SwitchLM.fit_static(em, 50)
    assert static.pi == pytest.approx(w_true, abs=0.03)
    assert np.allclose(static.A, static.pi[None, :]) and static.memory() == pytest.approx(0, abs=1e-12)
    # no fitted chain does worse than the static mixture it contains (EM from its start)
    assert L.SwitchLM.fit(em, 20, init=static).logprob(em).sum() >= static.logprob(em).sum() - 1e-6


def test_mc_variance_is_the_bootstrap_of_the_draws_in_closed_form():
    from lmnotes.studies.importance import estimators as I

    rng = np.random.default_rng(0)
    logw = rng.normal(0, 0.7, size=(3, 2000))
    boot = np.array(
        [[logsumexp(row[rng.integers(0, row.size, row.size)]) for _ in range(3000)] for row in logw]
    )
    assert I.mc_variance(logw) == pytest.approx(boot.var(1), rel=0.1)
    assert np.allclose(I.mc_variance(np.zeros((2, 50))), 0)  # equal weights: no variance


def test_blocks_cut_articles_into_instances_of_a_size():
    from lmnotes.studies.importance import estimators as I
    from lmnotes.studies.importance import switch_runs as SR

    art = np.array([7, 7, 7, 3, 3, 9])
    b = SR.blocks(art, 2)
    assert len(set(b)) == 4 and b[0] == b[1] != b[2] and b[3] == b[4] != b[5]
    assert len(set(SR.blocks(art, 1))) == 6 and len(set(SR.blocks(art, 10))) == 3
    logw = np.random.default_rng(1).normal(size=(6, 20))
    assert I.grouped(logw, SR.blocks(art, 1)) == pytest.approx(I.instance_level(logw))
    with pytest.raises(ValueError, match="at least one"):
        SR.blocks(art, 0)
