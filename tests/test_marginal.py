"""The marginal over segmentations (lmnotes.marginal) against closed forms on a toy model."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp
from toy import SubwordBigram

from lmnotes import marginal


def test_lattice_counts_and_enumerates_every_segmentation():
    lm = SubwordBigram()
    lat = marginal.lattices(lm, ["aba"])[0]
    segs = sorted(tuple(lm.decode([i]) for i in s) for s in lat.segmentations())
    # a|b|a, ab|a, a|ba, aba
    assert segs == sorted([("a", "b", "a"), ("ab", "a"), ("a", "ba"), ("aba",)])
    assert math.isclose(math.exp(lat.log_count()), 4)
    with pytest.raises(ValueError, match="exceed the limit"):
        marginal.lattices(lm, ["ab" * 30])[0].segmentations(limit=100)
    with pytest.raises(ValueError, match="cannot spell"):
        marginal.lattices(lm, ["abc"])
    with pytest.raises(ValueError, match="empty string"):
        marginal.lattices(lm, [""])


@pytest.mark.parametrize("text", ["aba", "ab ba b", "b a aba"])
def test_exact_marginal_equals_the_forward_algorithm(text):
    lm = SubwordBigram(seed=1)
    value, n = marginal.exact_logmarginal(lm, text)
    assert n == round(math.exp(marginal.lattices(lm, [text])[0].log_count()))
    assert value == pytest.approx(lm.logmarginal(text), abs=1e-5)  # scores are float32
    canonical = lm.score([text]).logprob[0]
    assert value > canonical  # the canonical segmentation is one term of the sum


def test_importance_sampling_is_unbiased_in_probability():
    lm = SubwordBigram(seed=2)
    texts = ["ab ba b", "aba ab"]
    N = 20000
    logw = marginal.importance_logweights(lm, texts, N, seed=0, batch_size=4096)
    for text, lw in zip(texts, logw):
        exact = lm.logmarginal(text)
        w = np.exp(lw - exact)  # weights relative to the truth: mean 1
        se = w.std(ddof=1) / math.sqrt(N)
        # the mean weight agrees with p(x) within 4 standard errors (tolerance reached: ~1%)
        assert abs(w.mean() - 1) < 4 * se + 1e-12
        assert se < 0.02
        assert marginal.effective_sample_size(lw) > 0.3 * N
    again = marginal.importance_logweights(lm, texts, N, seed=0, batch_size=4096)
    assert np.array_equal(logw, again)  # deterministic for a seed


def test_a_single_segmentation_gives_a_constant_exact_weight():
    lm = SubwordBigram(seed=3)
    # "bb" can only be b|b: every weight is p(b|BOS) p(b|b) p(EOS|b), exactly
    logw = marginal.importance_logweights(lm, ["bb"], 50, seed=1)
    assert np.allclose(logw, lm.score(["bb"]).logprob[0])


def test_gap_interval_covers_the_truth_and_is_zero_without_alternatives():
    lm = SubwordBigram(seed=4)
    texts = ["ab ba", "aba b", "b ab"]
    logw = marginal.importance_logweights(lm, texts, 2000, seed=0, batch_size=2048)
    canonical = lm.score(texts).logprob
    chars = np.array([len(t) + 1 for t in texts])
    g = marginal.gap(logw, canonical, chars, n_resamples=300, seed=0)
    truth = sum(lm.logmarginal(t) for t in texts) - canonical.sum()
    truth_bits = truth / chars.sum() / math.log(2)
    assert g.bits_per_char.low <= truth_bits <= g.bits_per_char.high
    assert g.bits_per_char.value > 0
    flat = marginal.gap(np.zeros((3, 5)), np.zeros(3), chars, n_resamples=50)
    assert flat.bits_per_char.value == 0 and flat.bits_per_char.high == 0


def test_window_and_argument_errors():
    lm = SubwordBigram(max_length=4)
    with pytest.raises(ValueError, match="window"):
        marginal.importance_logweights(lm, ["abab"], 2)
    with pytest.raises(ValueError, match="positive"):
        marginal.importance_logweights(lm, ["ab"], 0)
    assert logsumexp([0.0]) == 0.0
