"""The switch-LM's exact inference and proposals against brute-force enumeration of every
path on toys (lmnotes.studies.importance.latent), and the estimators of lmnotes.studies.importance.estimators."""

import itertools
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from lmnotes.studies.importance import estimators as I
from lmnotes.studies.importance import latent as L


def toy(C=2, lengths=(5, 3, 7), seed=0, sticky=0.0):
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(C))
    A = rng.dirichlet(np.ones(C), size=C)
    model = L.SwitchLM(pi, sticky * np.eye(C) + (1 - sticky) * A)
    em = L.Emissions.stack([np.log(rng.uniform(0.01, 0.6, size=(T, C))) for T in lengths])
    return model, em


def paths(model, em, n):
    T = em.lengths[n]
    zs = np.array(list(itertools.product(range(model.n_states), repeat=T)))
    lp = L.joint_logprob(model, L.Emissions(em.log_e[n : n + 1, :T], em.lengths[n : n + 1]), zs[None])[0]
    return zs, lp


def chain_logprob(q, n, zs):
    out = q.log_init[n][zs[:, 0]]
    for t in range(1, zs.shape[1]):
        out = out + q.log_trans[n, t][zs[:, t - 1], zs[:, t]]
    return out


@pytest.mark.parametrize("C", [2, 3])
def test_forward_equals_enumeration(C):
    model, em = toy(C, lengths=(6, 1, 4))
    logp = model.logprob(em)
    for n in range(3):
        _, lp = paths(model, em, n)
        assert logp[n] == pytest.approx(logsumexp(lp), abs=1e-10)
    gamma = model.posterior_marginals(em)
    zs, lp = paths(model, em, 0)
    post = np.exp(lp - logsumexp(lp))
    for t in range(6):
        assert gamma[0, t] == pytest.approx([post[zs[:, t] == j].sum() for j in range(C)], abs=1e-10)


def test_posterior_chain_is_exact_and_has_zero_variance():
    model, em = toy(3, sticky=0.5)
    post = L.posterior(model, em)
    logp = model.logprob(em)
    for n in range(3):
        zs, lp = paths(model, em, n)
        assert np.allclose(chain_logprob(post, n, zs), lp - logp[n], atol=1e-10)
    logw = L.draw(model, em, post, 50, seed=1)
    assert np.abs(logw - logp[:, None]).max() < 1e-9


@pytest.mark.parametrize("h", [0, 1, 2, 4, None, "mf"])
def test_proposals_are_normalised_and_divergences_exact(h):
    model, em = toy(2, sticky=0.6)
    q = L.mean_field(model, em) if h == "mf" else L.lookahead(model, em, h)
    q = L.temper(q, 1.3)
    kl, log1p_chi2 = L.divergence(L.posterior(model, em), q)
    logp = model.logprob(em)
    for n in range(3):
        zs, lp = paths(model, em, n)
        lq = chain_logprob(q, n, zs)
        assert logsumexp(lq) == pytest.approx(0, abs=1e-10)
        post = lp - logp[n]
        assert kl[n] == pytest.approx(np.sum(np.exp(post) * (post - lq)), abs=1e-9)
        assert log1p_chi2[n] == pytest.approx(logsumexp(2 * post - lq), abs=1e-9)


def test_lookahead_horizon_reaching_the_end_is_the_posterior():
    model, em = toy(2, lengths=(4, 4), sticky=0.5)
    far, post = L.lookahead(model, em, 4), L.posterior(model, em)
    assert np.allclose(far.log_trans[:, 1:4], post.log_trans[:, 1:4], atol=1e-10)
    one = L.lookahead(model, em, 1)  # q_t(j|i) oc A_ij e_t(j)
    expect = np.log(model.A) + em.log_e[0, 2][None]
    assert np.allclose(one.log_trans[0, 2], expect - logsumexp(expect, axis=1, keepdims=True))


@pytest.mark.parametrize("h", [0, 1, "mf"])
def test_importance_sampling_is_unbiased_within_4se(h):
    model, em = toy(2, lengths=(6,), sticky=0.5, seed=3)
    q = L.mean_field(model, em) if h == "mf" else L.lookahead(model, em, h)
    logw = L.draw(model, em, q, 200_000, seed=2)[0]
    ratio = np.exp(logw - model.logprob(em)[0])
    assert abs(ratio.mean() - 1) < 4 * ratio.std() / math.sqrt(len(ratio))
    for K in (1, 10):  # Eq. (4): log p^ is biased low
        assert I.log_mean(I.runs(logw[None], K)[0]).mean() < model.logprob(em)[0]


def test_tempered_weights_use_the_tempered_proposal():
    model, em = toy(2, lengths=(5,), sticky=0.5, seed=4)
    q = L.lookahead(model, em, 1)
    hot = L.temper(q, 3.0)
    assert L.temper(q, 1.0) is q
    logw = L.draw(model, em, hot, 200_000, seed=5)[0]
    ratio = np.exp(logw - model.logprob(em)[0])
    assert abs(ratio.mean() - 1) < 4 * ratio.std() / math.sqrt(len(ratio))
    # the classic bug: draws from the tempered q weighed with the untempered one are biased
    zs, lp = paths(model, em, 0)
    q_hot, q_cold = np.exp(chain_logprob(hot, 0, zs)), chain_logprob(q, 0, zs)
    biased = np.sum(q_hot * np.exp(lp - q_cold))
    assert abs(biased / np.exp(model.logprob(em)[0]) - 1) > 0.05
    flat = L.temper(q, 1e6)  # tau -> inf: uniform
    assert np.allclose(np.exp(flat.log_trans[0, 1:5]), 0.5, atol=1e-5)


def test_kbest_and_beam_against_enumeration():
    model, em = toy(2, lengths=(6, 3), sticky=0.3)
    best = L.kbest(model, em, 10)
    for n in range(2):
        _, lp = paths(model, em, n)
        top = np.sort(lp)[::-1]
        k = min(10, len(top))
        assert np.allclose(best[n, :k], top[:k], atol=1e-10)
        assert np.all(best[n, k:] == -np.inf)
    everything = L.kbest(model, em, 2**6)
    assert np.allclose(logsumexp(everything, axis=1), model.logprob(em), atol=1e-10)
    # beam under the exact posterior finds the exact k best; under another q a subset
    assert np.allclose(L.beam(model, em, L.posterior(model, em), 10)[0], best[0], atol=1e-10)
    b = L.beam(model, em, L.lookahead(model, em, 0), 5)
    assert (logsumexp(b, axis=1) <= model.logprob(em) + 1e-12).all()
    assert np.allclose(logsumexp(L.beam(model, em, L.lookahead(model, em, 0), 64), axis=1), model.logprob(em))


def test_fit_recovers_a_sticky_chain():
    rng = np.random.default_rng(0)
    true = L.SwitchLM(np.array([0.5, 0.5]), np.array([[0.9, 0.1], [0.2, 0.8]]))
    probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]])  # two components over 3 tokens
    seqs = []
    for _ in range(300):
        z = [rng.choice(2, p=true.pi)]
        for _ in range(29):
            z.append(rng.choice(2, p=true.A[z[-1]]))
        x = [rng.choice(3, p=probs[k]) for k in z]
        seqs.append(np.log(probs[:, x].T))
    fit = L.SwitchLM.fit(L.Emissions.stack(seqs), n_iter=60)
    assert np.allclose(fit.A, true.A, atol=0.06)
    assert fit.memory() > 0.5 and true.sticky(0.0).memory() == pytest.approx(0.7)


def test_bad_inputs_get_clear_errors():
    model, em = toy(2)
    with pytest.raises(ValueError, match="stochastic"):
        L.SwitchLM(np.array([0.5, 0.5]), np.array([[0.5, 0.6], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="stochastic"):
        L.SwitchLM(np.array([0.7, 0.5]), np.eye(2))
    with pytest.raises(ValueError, match="NaN"):
        L.Emissions.stack([np.array([[np.nan, -1.0]])])
    with pytest.raises(ValueError, match="empty instance"):
        L.Emissions(np.zeros((1, 2, 2)) - 1, np.array([0]))
    with pytest.raises(ValueError, match="empty"):
        L.Emissions.stack([])
    with pytest.raises(ValueError, match="any probability"):
        L.Emissions.stack([np.array([[-np.inf, -np.inf]])])
    with pytest.raises(ValueError, match="positive whole"):
        L.draw(model, em, L.lookahead(model, em, 1), 0)
    with pytest.raises(ValueError, match="temperature"):
        L.temper(L.lookahead(model, em, 1), 0.0)
    with pytest.raises(ValueError, match="temperature"):
        L.temper(L.lookahead(model, em, 1), float("nan"))
    with pytest.raises(ValueError, match="horizon"):
        L.lookahead(model, em, -1)
    q = L.lookahead(model, em, 1)
    starved = L.Chain(q.log_init, np.where(np.arange(2) == 1, -np.inf, q.log_trans - q.log_trans), q.lengths)
    with pytest.raises(ValueError, match="probability 0"):
        L.draw(model, em, starved, 10)
    with pytest.raises(ValueError, match="components"):
        L.draw(L.SwitchLM(np.ones(3) / 3, np.ones((3, 3)) / 3), em, q, 10)


def test_emissions_with_zeros_give_zero_weights_not_nan():
    model = L.SwitchLM(np.array([0.5, 0.5]), np.full((2, 2), 0.5))
    with np.errstate(divide="ignore"):
        em = L.Emissions.stack([np.log(np.array([[0.5, 0.0], [0.0, 0.3]]))])  # an MLE component
        logw = L.draw(model, em, L.lookahead(model, em, 0), 1000, seed=0)
    assert not np.isnan(logw).any() and np.isneginf(logw).any()
    assert I.log_mean(logw)[0] == pytest.approx(model.logprob(em)[0], abs=0.15)
    with pytest.warns(UserWarning, match="-inf"):
        assert I.log_mean(np.full((1, 4), -np.inf))[0] == -np.inf


def test_instance_and_corpus_level_estimators_are_unbiased_within_4se():
    model, em = toy(2, lengths=(4, 3), sticky=0.5, seed=6)
    q = L.lookahead(model, em, 0)
    K, R = 3, 40_000
    logw = I.runs(L.draw(model, em, q, K * R, seed=7), K)  # [N, R, K]
    truth = model.logprob(em).sum()
    for aggregate in (I.instance_level, I.corpus_level):
        ratio = np.exp(np.array([aggregate(logw[:, r]) for r in range(R)]) - truth)
        assert abs(ratio.mean() - 1) < 4 * ratio.std() / math.sqrt(R)
