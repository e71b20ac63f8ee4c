"""n-gram models (lmnotes.models.ngram) against hand counts and an independent KN reference."""

import itertools
from collections import Counter, defaultdict

import numpy as np
import pytest

from lmnotes.text import segment
from lmnotes.models.ngram import NGramModel

TRAIN = ["a b c a b", "b c a", "a b b c", "c a b c a b", "b a"]


def _seg():
    return segment.train(
        "word", TRAIN + ["d"], min_count=1
    )  # "d" is in the vocabulary, never in training n-grams


def test_mle_trigram_matches_hand_counts_and_gives_zero_probability():
    seg = _seg()
    m = NGramModel(seg, 3, "mle").fit(TRAIN)
    a, b, c = (seg.index[w] for w in "abc")
    p = m.conditional(np.array([[a, b]]))[0]
    # "a b" is followed by: c (1x, first text), <s> (end of text 1), b (text 3), c (text 4), <s> (text 4)
    assert (
        p[c] == pytest.approx(2 / 5)
        and p[b] == pytest.approx(1 / 5)
        and p[segment.EOS] == pytest.approx(2 / 5)
    )
    assert p[a] == 0
    s = m.score(["a b a", "a b c"])
    assert s.logprob[0] == -np.inf and np.isfinite(s.logprob[1])
    d = seg.index["d"]
    back = m.conditional(np.array([[d, a]]))[0]  # unseen history "d a": the bigram MLE p(. | a)
    after_a = Counter(w for t in TRAIN for u, w in zip(t.split(), t.split()[1:] + ["<s>"]) if u == "a")
    assert back[b] == pytest.approx(after_a["b"] / sum(after_a.values()))


def _kn_reference(seqs, n, V, pad):
    """Interpolated Kneser-Ney written out with dictionaries, for tiny corpora."""
    grams = [tuple(s[i : i + n]) for s in seqs for i in range(len(s) - n + 1)]
    counts = {n: Counter(grams)}
    for k in range(n - 1, 0, -1):
        counts[k] = Counter(g[1:] for g in set(g[n - k - 1 :] for g in grams))
    D = {}
    for k, ck in counts.items():
        n1 = sum(1 for v in ck.values() if v == 1)
        n2 = sum(1 for v in ck.values() if v == 2)
        D[k] = n1 / (n1 + 2 * n2) if n1 else 0.5
    tot, types = {}, {}
    for k, ck in counts.items():
        tot[k], types[k] = defaultdict(float), defaultdict(float)
        for g, v in ck.items():
            tot[k][g[:-1]] += v
            types[k][g[:-1]] += 1

    def p(w, h):
        k = len(h) + 1
        if k == 1:
            uniform = 0.0 if w == pad else 1 / (V - 1)
            T = tot[1][()]
            return max(counts[1][(w,)] - D[1], 0) / T + D[1] * types[1][()] / T * uniform
        T = tot[k].get(h, 0)
        if T == 0:
            return p(w, h[1:])
        return max(counts[k][h + (w,)] - D[k], 0) / T + D[k] * types[k][h] / T * p(w, h[1:])

    return p


@pytest.mark.parametrize("order", [2, 3])
def test_kneser_ney_matches_a_reference_implementation(order):
    seg = _seg()
    m = NGramModel(seg, order, "kn").fit(TRAIN)
    seqs = [[segment.BOS] * (order - 1) + seg.encode(t) + [segment.EOS] for t in TRAIN]
    ref = _kn_reference(seqs, order, seg.vocab_size, segment.PAD)
    hists = np.array(list(itertools.product(range(1, seg.vocab_size), repeat=order - 1)))
    got = m.conditional(hists)
    want = np.array([[ref(w, tuple(h)) for w in range(seg.vocab_size)] for h in hists])
    assert np.allclose(got, want, atol=1e-12)
    assert np.allclose(got.sum(1), 1) and (got[:, 1:] > 0).all() and (got[:, segment.PAD] == 0).all()


@pytest.mark.parametrize("estimator", ["mle", "kn"])
def test_conditionals_sum_to_one_on_real_text(enwiki, estimator):
    train = enwiki["train"].sentences[:3000]
    seg = segment.train("word", train, min_count=2)
    m = NGramModel(seg, 3, estimator).fit(train)
    rng = np.random.default_rng(0)
    hists = rng.integers(1, seg.vocab_size, size=(200, 2))
    test_ids = np.array(seg.encode(enwiki["test"].sentences[0]))
    hists[: len(test_ids) - 1] = np.stack([test_ids[:-1], test_ids[1:]], 1)[:200]  # seen histories too
    assert np.allclose(m.conditional(hists).sum(1), 1.0)
    s = m.score(enwiki["test"].sentences[:50])
    if estimator == "kn":
        assert np.isfinite(s.logprob).all()
    else:
        assert np.isneginf(s.logprob).any()  # unsmoothed: zero-probability test strings
    samples = m.sample(3, "ancestral", max_tokens=40, seed=0)
    assert np.isfinite(samples.logprob_model).all()


def test_bad_settings():
    with pytest.raises(ValueError, match="estimator"):
        NGramModel(_seg(), 3, "witten-bell")
    with pytest.raises(ValueError, match="order"):
        NGramModel(_seg(), 7)


@pytest.mark.parametrize("estimator", ["mle", "kn"])
@pytest.mark.parametrize("order", [1, 2, 3])
def test_scoring_by_lookup_gives_the_rows_log_probabilities(enwiki, estimator, order):
    """NGramModel scores by looking up p(w | h) alone (probability): the same float64 values
    as the dense rows of conditional, bit for bit, and the float32 path of every other model
    (LanguageModel._score_sequences over the rows) within its rounding; -inf in the same places."""
    from lmnotes.models.base import LanguageModel

    train = enwiki["train"].sentences[:2000]
    seg = segment.train("word", train, min_count=2)
    m = NGramModel(seg, order, estimator).fit(train)
    encoded = [seg.encode(t) for t in enwiki["test"].sentences[:60]] + [[]]
    new = m._score_sequences(encoded, 1.0, None, None)
    old = LanguageModel._score_sequences(m, encoded, 1.0, None, None)
    assert [len(a) for a in new] == [len(ids) + 1 for ids in encoded]
    for a, b, ids in zip(new, old, encoded):
        assert a.dtype == np.float64 and np.array_equal(np.isneginf(a), np.isneginf(b))
        fin = np.isfinite(b)
        assert np.allclose(a[fin], b[fin], rtol=0, atol=2e-6)
        seq = np.array([segment.BOS] * (order - 1) + ids + [segment.EOS])
        hist = (
            np.lib.stride_tricks.sliding_window_view(seq[:-1], order - 1)
            if order > 1
            else np.zeros((len(seq), 0), int)
        )
        rows = m.conditional(hist)[np.arange(len(hist)), seq[order - 1 :]]
        with np.errstate(divide="ignore"):
            assert np.array_equal(a, np.log(rows))
    if estimator == "mle" and order > 1:  # unseen continuations of seen histories
        assert any(np.isneginf(a).any() for a in new)


def test_scoring_at_a_temperature_renormalises_the_rows():
    seg = _seg()
    m = NGramModel(seg, 3, "kn").fit(TRAIN)
    hot = m.score(["a b c", "b a"], temperature=2.0)
    lp = np.log(m.conditional(np.array([[segment.BOS, segment.BOS]]))[0]) / 2.0
    first = lp[seg.index["a"]] - np.logaddexp.reduce(lp[1:])  # PAD has probability 0
    assert hot.token_logprobs[0][0] == pytest.approx(first, abs=1e-5)
