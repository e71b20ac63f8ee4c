"""Decoding strategies (lmnotes.models.sampling) and sampling through the LanguageModel interface."""

import numpy as np
import pytest
import torch
from scipy import stats

from lmnotes.models.sampling import (
    Strategy,
    _nucleus_by_sort,
    draw,
    inverse_cdf,
    nucleus_filter,
    top_k_filter,
)
from toy import Bigram


def test_nucleus_keeps_exactly_the_smallest_set_reaching_p():
    p = torch.tensor([0.05, 0.4, 0.1, 0.25, 0.2])
    kept = torch.isfinite(nucleus_filter(p.log(), 0.6))
    assert kept.tolist() == [False, True, False, True, False]  # 0.4 + 0.25 = 0.65 >= 0.6
    kept = torch.isfinite(nucleus_filter(p.log(), 0.65 + 1e-6))
    assert kept.tolist() == [False, True, False, True, True]
    assert torch.isfinite(nucleus_filter(p.log(), 0.01)).sum() == 1  # the top token always stays
    assert torch.isfinite(nucleus_filter(p.log(), 1.0)).all()
    rng = np.random.default_rng(0)
    for _ in range(200):  # the kept set is minimal: dropping its least likely member falls below p
        probs = torch.tensor(rng.dirichlet(np.ones(30)))
        top_p = float(rng.uniform(0.05, 0.99))
        kept = torch.isfinite(nucleus_filter(probs.log(), top_p))
        mass = probs[kept].sum()
        assert mass >= top_p - 1e-12 and mass - probs[kept].min() < top_p
        assert probs[kept].min() >= probs[~kept].max() if (~kept).any() else True


def test_nucleus_through_topk_equals_the_full_sort():
    # rows whose nucleus lies inside the first k tokens (peaked) and rows where it does not
    # (flat) in one batch: both paths of nucleus_filter give the full sort's answer
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 16, 200, generator=g) * torch.tensor([0.1, 1.0, 8.0])[:, None, None]
    logp = torch.log_softmax(logits, -1)
    for first_k in (1, 5, 50, 500):
        for top_p in (0.3, 0.9, 1.0):
            fast = nucleus_filter(logp, top_p, first_k=first_k)
            slow = _nucleus_by_sort(logp.reshape(-1, 200), top_p).reshape(logp.shape)
            assert torch.equal(torch.isfinite(fast), torch.isfinite(slow))
            assert torch.equal(fast[torch.isfinite(fast)], logp[torch.isfinite(slow)])


def test_top_k_and_temperature():
    logits = torch.tensor([[1.0, 3.0, 2.0, 0.5]])
    assert torch.isfinite(top_k_filter(logits, 2)).tolist() == [[False, True, True, False]]
    warped = Strategy("ancestral", temperature=0.5).warp(logits)
    assert torch.allclose(warped, torch.log_softmax(logits / 0.5, -1))
    warped = Strategy("top-k", temperature=2.0, top_k=2).warp(logits)
    expected = torch.log_softmax(torch.tensor([[3.0, 2.0]]) / 2.0, -1)
    assert torch.allclose(warped[0, [1, 2]], expected[0]) and torch.isinf(warped[0, [0, 3]]).all()


@pytest.mark.parametrize(
    "kind, settings", [("nucleus", {}), ("top-k", {"top_k": 0}), ("beam", {"beam": 0}), ("greedy?", {})]
)
def test_bad_strategies(kind, settings):
    with pytest.raises(ValueError):
        Strategy(kind, **settings)
    with pytest.raises(ValueError, match="temperature"):
        Strategy("ancestral", temperature=0)


@pytest.mark.parametrize(
    "strategy",
    [
        Strategy("ancestral"),
        Strategy("ancestral", temperature=0.7),
        Strategy("top-k", top_k=4),
        Strategy("nucleus", top_p=0.8),
        Strategy("nucleus", temperature=1.5, top_p=0.5),
        Strategy("beam", beam=1),  # a beam of one is ancestral sampling
    ],
)
def test_first_token_frequencies_pass_chi_square(strategy):
    lm = Bigram(seed=1)
    n = 6000
    out = lm.sample(n, strategy, max_tokens=1, seed=3, batch_size=1000)
    first = [ids[0] if ids else lm.eos_id for ids in out.token_ids]
    counts = np.bincount(first, minlength=lm.vocab_size)
    probs = strategy.warp(lm.table[lm.bos_id][None])[0].exp().numpy().astype(np.float64)
    support = probs > 0
    assert counts[~support].sum() == 0, "sampled a token outside the strategy's support"
    expected = probs[support] / probs[support].sum() * n
    assert stats.chisquare(counts[support], expected).pvalue > 1e-3


def test_sample_logprobs_match_scores_and_are_deterministic():
    lm = Bigram(seed=2, sharpness=1.0)
    a = lm.sample(50, "nucleus", top_p=0.9, max_tokens=40, seed=7)
    b = lm.sample(50, "nucleus", top_p=0.9, max_tokens=40, seed=7)
    assert a.token_ids == b.token_ids
    done = a.finished
    assert done.any()
    scores = lm.score([t for t, d in zip(a.texts, done) if d])
    assert np.allclose(scores.logprob, a.logprob_model[done], atol=1e-6)
    assert np.all(a.logprob_sampling >= a.logprob_model - 1e-9)  # truncation raises kept tokens' mass
    c = lm.sample(30, "ancestral", max_tokens=40, seed=1)
    assert np.allclose(c.logprob_model, c.logprob_sampling)
    assert all(len(ids) == 40 for ids, d in zip(c.token_ids, c.finished) if not d)


def test_sample_errors():
    lm = Bigram(max_length=16)
    with pytest.raises(ValueError, match="context window"):
        lm.sample(1, max_tokens=20)
    with pytest.raises(ValueError):
        lm.sample(-1)
    assert lm.sample(0, max_tokens=4).texts == []


@pytest.mark.parametrize("kind", ["beam", "beam-k2"])
def test_beam_sampling_prefers_probable_strings_and_reports_their_logprob(kind):
    lm = Bigram(seed=2, sharpness=1.0)
    beam = lm.sample(100, kind, beam=5, max_tokens=40, seed=0)
    anc = lm.sample(100, "ancestral", max_tokens=40, seed=0)
    assert beam.token_ids == lm.sample(100, kind, beam=5, max_tokens=40, seed=0).token_ids
    assert beam.finished.mean() > 0.9 and np.isnan(beam.logprob_sampling).all()
    done = beam.finished
    assert np.allclose(
        lm.score([t for t, d in zip(beam.texts, done) if d]).logprob, beam.logprob_model[done], atol=1e-5
    )
    per_token = lambda s: s.logprob_model / (np.array([len(t) for t in s.token_ids]) + 1)
    assert per_token(beam).mean() > per_token(anc).mean() + 0.3
    assert len(set(beam.texts)) > 10  # random, unlike beam search


def test_fairseq_beam_is_the_best_of_k_ancestral_samples_in_distribution():
    # fairseq's sampling search keeps k independent hypotheses and returns the one with the
    # best log-probability per token (EOS counted). With max_tokens = 2 every outcome of one
    # hypothesis can be listed: "", one character + EOS, or two characters (unfinished). Its
    # score s(o) and probability q(o) have closed forms, and the best of k is o with
    # probability (F(s_o) + q_o)^k - F(s_o)^k, F(s) = P(score < s).
    lm, k, n = Bigram(seed=4, sharpness=1.0), 3, 6000
    lp = torch.log_softmax(lm.table.double(), -1).numpy()
    chars = range(len(lm.encode("abcdefg ")))
    outcomes = {(): (lp[lm.bos_id, lm.eos_id], 1)}
    for a in chars:
        outcomes[(a,)] = (lp[lm.bos_id, a] + lp[a, lm.eos_id], 2)
        for b in chars:
            outcomes[(a, b)] = (lp[lm.bos_id, a] + lp[a, b], 2)
    keys = list(outcomes)
    q = np.exp([outcomes[o][0] for o in keys])
    score = np.array([outcomes[o][0] / outcomes[o][1] for o in keys])
    assert np.isclose(q.sum(), 1.0) and len(np.unique(score)) == len(score)
    below = np.array([q[score < s].sum() for s in score])
    p_best = (below + q) ** k - below**k
    assert np.isclose(p_best.sum(), 1.0)
    out = lm.sample(n, "beam", beam=k, max_tokens=2, seed=5, batch_size=999)
    index = {o: i for i, o in enumerate(keys)}
    counts = np.bincount([index[tuple(t)] for t in out.token_ids], minlength=len(keys))
    assert chi_square_pvalue(counts, p_best) > 1e-3
    # and not the distribution of a single ancestral sample
    assert chi_square_pvalue(counts, q) < 1e-6


def chi_square_pvalue(counts, p):
    """Chi-square goodness of fit of ``counts`` to probabilities ``p``, cells with fewer than
    5 expected draws pooled into one."""
    n = counts.sum()
    big = p * n >= 5
    expected, observed = np.append(p[big], p[~big].sum()) * n, np.append(counts[big], counts[~big].sum())
    keep = expected > 0
    return stats.chisquare(
        observed[keep], expected[keep] * observed[keep].sum() / expected[keep].sum()
    ).pvalue


@pytest.mark.parametrize("V", [7, 64, 1000, 8000])
def test_inverse_cdf_draws_in_proportion_and_never_a_zero_weight(V):
    # several blocks, a padded last block (1000 = 31 x 32 + 8), and weights of zero
    g = torch.Generator().manual_seed(V)
    w = torch.rand(3, V, generator=g) ** 4
    w[:, ::3] = 0.0
    u = torch.rand(3, 40_000, generator=g, dtype=torch.float64)
    idx, total = inverse_cdf(w, u)
    assert torch.allclose(total, w.double().sum(-1))
    for r in range(3):
        counts = np.bincount(idx[r].numpy(), minlength=V)
        assert counts[::3].sum() == 0
        assert chi_square_pvalue(counts, (w[r] / w[r].sum()).double().numpy()) > 1e-3


@pytest.mark.parametrize(
    "strategy",
    [
        Strategy("ancestral"),
        Strategy("ancestral", temperature=1.7),
        Strategy("top-k", top_k=40),
        Strategy("nucleus", top_p=0.9),
        Strategy("nucleus", temperature=0.8, top_p=0.995),
    ],
)
def test_draw_matches_the_warped_distribution_on_a_large_vocabulary(strategy):
    # rows from peaked to flat, so that the nucleus of some lies beyond the first top-k
    # window and is found by the widening search; 20,000 draws per row
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 3000, generator=g) * torch.tensor([0.05, 0.5, 2.0, 6.0])[:, None]
    target = strategy.warp(logits).exp().double()
    d = draw(logits, strategy, n=20_000, generator=torch.Generator().manual_seed(1))
    model = torch.log_softmax(logits.double(), -1)
    assert torch.allclose(d.logprob_model, model.gather(1, d.tokens), atol=1e-5)
    assert torch.allclose(d.logprob_sampling, target.log().gather(1, d.tokens), atol=1e-5)
    for r in range(4):
        counts = np.bincount(d.tokens[r].numpy(), minlength=3000)
        p = target[r].numpy()
        assert counts[p == 0].sum() == 0, "drew a token outside the strategy's support"
        assert chi_square_pvalue(counts, p) > 1e-3
