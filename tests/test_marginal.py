"""The marginal over segmentations (lmnotes.studies.segmentation.marginal) against closed forms on a toy model."""

import math

import numpy as np
import pytest
import torch
from scipy.special import logsumexp
from toy import SubwordBigram

from lmnotes.stats import weights
from lmnotes.studies.segmentation import marginal


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


@pytest.mark.parametrize(
    "stay, explore, tau",
    [(0.0, 0.0, 1.0), (0.5, 0.0, 1.0), (0.5, 0.5, 1.0), (0.0, 0.0, 2.0), (0.0, 0.0, 0.7), (0.5, 0.5, 3.0)],
)
def test_importance_sampling_is_unbiased_in_probability(stay, explore, tau):
    lm = SubwordBigram(seed=2)
    texts = ["ab ba b", "aba ab"]
    N = 20000
    draws = marginal.importance_sample(
        lm, texts, N, seed=0, stay=stay, explore=explore, batch_size=4096, temperature=tau
    )
    canonical = lm.score(texts).logprob
    assert np.allclose(draws.log_canonical, canonical)
    for i, text in enumerate(texts):
        exact = lm.logmarginal(text)
        lw, is_canon = draws.logw[i], draws.canonical[i]
        # the plain estimator: mean(w) = p(x)
        w = np.exp(lw - exact)
        se = w.std(ddof=1) / math.sqrt(N)
        # agrees with p(x) within 4 standard errors (tolerance reached: ~1%)
        assert abs(w.mean() - 1) < 4 * se + 1e-12 and se < 0.02
        # the stratified estimator (3), one draw at a time: p(s*) + w [s != s*]
        e = np.exp(canonical[i] - exact) + np.where(is_canon, 0.0, w)
        se = e.std(ddof=1) / math.sqrt(N)
        assert abs(e.mean() - 1) < 4 * se + 1e-12 and se < 0.02
        # its logarithm, to first order the relative error: within the same 4 standard errors
        assert abs(draws.logmarginal()[i] - exact) < 4 * se + 1e-3
        # a canonical draw is exactly the tokenizer's segmentation, and `stay` bounds its rate
        assert is_canon.mean() >= (stay - 0.02 if stay else 0)
        assert weights.effective_sample_size(lw) > 0.1 * N
    again = marginal.importance_sample(
        lm, texts, N, seed=0, stay=stay, explore=explore, batch_size=4096, temperature=tau
    )
    assert np.array_equal(draws.logw, again.logw)  # deterministic for a seed


def test_constrained_weights_are_the_products_of_the_restricted_masses():
    # stay = explore = 0: w = prod Z_i p(EOS); "ab" is a|b or ab, so Z_1 = p(a) + p(ab) and the rest follows
    lm = SubwordBigram(seed=5)
    draws = marginal.importance_sample(lm, ["ab"], 200, seed=0, stay=0.0, explore=0.0)
    lp = torch.log_softmax(lm.table.double(), dim=-1)
    a, b, ab = (lm.TOKENS.index(t) for t in ("a", "b", "ab"))
    z1 = math.log(math.exp(lp[lm.bos_id, a]) + math.exp(lp[lm.bos_id, ab]))
    via_a = z1 + float(lp[a, b]) + float(lp[b, lm.eos_id])
    via_ab = z1 + float(lp[ab, lm.eos_id])
    assert set(np.round(draws.logw[0], 9)) == {round(via_a, 9), round(via_ab, 9)}
    assert draws.canonical[0].tolist() == [lw == pytest.approx(via_ab) for lw in draws.logw[0]]


def test_the_guided_proposal_draws_the_canonical_segmentation_where_the_plain_one_does_not():
    # a model that gives the long canonical token little mass as a *token* but everything
    # after it: the constrained proposal rarely draws it, the guided one does by construction
    lm = SubwordBigram(seed=6)
    T = {t: lm.TOKENS.index(t) for t in lm.TOKENS}
    lm.table[lm.bos_id, T["aba"]] = -2.0  # the canonical "aba" is an unlikely first token
    lm.table[T["aba"], lm.eos_id] = 8.0  # but the likeliest way to spell the string
    for t in ("a", "ab"):
        lm.table[lm.bos_id, T[t]] = 4.0
    for x, y in (("a", "b"), ("a", "ba"), ("ab", "a")):
        lm.table[T[x], T[y]] = -8.0
    exact = lm.logmarginal("aba")
    plain = marginal.importance_sample(lm, ["aba"], 64, seed=0, stay=0.0, explore=0.0)
    guided = marginal.importance_sample(lm, ["aba"], 64, seed=0, stay=0.5)
    assert np.exp(guided.log_canonical[0] - exact) > 0.95  # s* holds almost all of p(x)
    assert guided.canonical.mean() > 0.4 and plain.canonical.mean() < 0.05
    assert plain.plain()[0] < exact - 3  # the constrained proposal misses s*: mean(w) far too low
    assert guided.logmarginal()[0] == pytest.approx(exact, abs=0.01)
    assert guided.logmarginal()[0] >= guided.log_canonical[0]  # (3) never falls below p(s*)


def test_a_single_segmentation_gives_a_constant_exact_weight():
    lm = SubwordBigram(seed=3)
    # "bb" can only be b|b: every weight is p(b|BOS) p(b|b) p(EOS|b), exactly
    draws = marginal.importance_sample(lm, ["bb"], 50, seed=1)
    assert np.allclose(draws.logw, lm.score(["bb"]).logprob[0])
    assert draws.canonical.all() and draws.logmarginal()[0] == pytest.approx(draws.log_canonical[0])


def test_gap_interval_covers_the_truth_and_is_zero_without_alternatives():
    lm = SubwordBigram(seed=4)
    texts = ["ab ba", "aba b", "b ab"]
    draws = marginal.importance_sample(lm, texts, 2000, seed=0, batch_size=2048)
    chars = np.array([len(t) + 1 for t in texts])
    g = marginal.gap(draws, chars, n_resamples=300, seed=0)
    truth = sum(lm.logmarginal(t) for t in texts) - draws.log_canonical.sum()
    truth_bits = truth / chars.sum() / math.log(2)
    assert g.bits_per_char.low <= truth_bits <= g.bits_per_char.high
    assert g.bits_per_char.value > 0 and (g.per_string >= 0).all()
    tokens = np.empty((3, 5), dtype=object)
    tokens[:] = [[(1,)] * 5] * 3
    flat = marginal.Draws(np.zeros((3, 5)), np.ones((3, 5), bool), np.zeros(3), np.zeros((3, 5)), tokens)
    flat_gap = marginal.gap(flat, chars, n_resamples=50)
    assert flat_gap.bits_per_char.value == 0 and flat_gap.bits_per_char.high == 0


def test_certified_bound_is_the_partial_sum_over_distinct_draws():
    lm = SubwordBigram(seed=3)
    texts = ["ab ba", "aba b"]
    few = marginal.importance_sample(lm, texts, 8, seed=0)
    many = marginal.importance_sample(lm, texts, 4000, seed=1, batch_size=4096)
    for i, text in enumerate(texts):
        segs = {tuple(s) for s in marginal.lattices(lm, [text])[0].segmentations()}
        exact = lm.logmarginal(text)
        # every drawn token sequence is a segmentation, and its log p(s) is the model's score of it
        assert set(few.tokens[i]) <= segs
        for toks, lp in zip(few.tokens[i], few.logp[i]):
            assert lp == pytest.approx(float(lm.score_ids([list(toks)])[0].sum()), abs=1e-4)
        # by hand: log of p(s*) plus p(s) of each distinct non-canonical draw
        distinct = {t: p for t, p, c in zip(few.tokens[i], few.logp[i], few.canonical[i]) if not c}
        by_hand = logsumexp([few.log_canonical[i], *distinct.values()])
        assert few.certified()[i] == pytest.approx(by_hand)
        assert few.log_canonical[i] <= few.certified()[i] <= exact + 1e-5
        # with every segmentation drawn the bound is the exact marginal
        assert set(many.tokens[i]) == segs
        assert many.certified()[i] == pytest.approx(exact, abs=1e-4)
        alt, lp = many.best_alternative(i)
        off = {t: p for t, p, c in zip(many.tokens[i], many.logp[i], many.canonical[i]) if not c}
        assert alt in off and lp == max(off.values())


def test_sweep_cuts_the_draws_into_disjoint_runs():
    lm = SubwordBigram(seed=4)
    texts = ["ab ba", "aba b", "b ab"]
    draws = marginal.importance_sample(lm, texts, 64, seed=0)
    chars = np.array([len(t) + 1 for t in texts])
    table = marginal.sweep(draws, chars, [16, 64])
    assert table.loc[16, "runs"] == 4 and table.loc[64, "runs"] == 1
    whole = (draws.logmarginal() - draws.log_canonical).sum() / chars.sum() / math.log(2)
    assert table.loc[64, "estimate, mean"] == pytest.approx(whole)
    first = (draws.subset(slice(0, 16)).logmarginal() - draws.log_canonical).sum() / chars.sum() / math.log(2)
    assert table.loc[16, "estimate, min"] <= first <= table.loc[16, "estimate, max"]
    # more draws can only add distinct segmentations to the certified sum
    assert table.loc[16, "certified lower bound"] <= table.loc[64, "certified lower bound"]
    with pytest.raises(ValueError, match="draws asked for"):
        marginal.sweep(draws, chars, [128])


def test_segmentation_diff_shows_the_words_where_two_segmentations_differ():
    lm = SubwordBigram()
    text = "ab ba"
    segs = marginal.lattices(lm, [text])[0].segmentations()
    assert lm.encode(text) in segs
    other = next(
        s for s in segs if s != lm.encode(text) and lm.decode(s[:1]) == lm.decode(lm.encode(text)[:1])
    )
    a, b = marginal.segmentation_diff(lm, lm.encode(text), other)
    assert a.replace("|", "") == b.replace("|", "") and a != b
    assert " " not in a.strip()  # one word: the first one agrees, so only the second is shown
    assert marginal.segmentation_diff(lm, lm.encode(text), lm.encode(text)) == ("", "")
    with pytest.raises(ValueError, match="different strings"):
        marginal.segmentation_diff(lm, lm.encode("ab"), lm.encode("ba"))


def test_window_and_argument_errors():
    lm = SubwordBigram(max_length=4)
    with pytest.raises(ValueError, match="window"):
        marginal.importance_sample(lm, ["abab"], 2)
    with pytest.raises(ValueError, match="positive"):
        marginal.importance_sample(lm, ["ab"], 0)
    with pytest.raises(ValueError, match="stay"):
        marginal.importance_sample(lm, ["ab"], 2, stay=1.0)
    with pytest.raises(ValueError, match="explore"):
        marginal.importance_sample(lm, ["ab"], 2, explore=-0.1)

    class Normalising(SubwordBigram):  # a tokenizer that rewrites the text before splitting it
        def encode(self, text):
            return super().encode(text.replace("ab", "ba"))

    with pytest.raises(ValueError, match="does not spell its bytes"):
        marginal.importance_sample(Normalising(), ["ab"], 2)
    assert logsumexp([0.0]) == 0.0


def test_temperature_changes_the_draws_not_the_target():
    lm = SubwordBigram(seed=2)
    cold = marginal.importance_sample(lm, ["ab ba b"], 2000, seed=0, stay=0.0, explore=0.0)
    hot = marginal.importance_sample(lm, ["ab ba b"], 2000, seed=0, stay=0.0, explore=0.0, temperature=5.0)
    # a hot proposal spreads over segmentations: its most frequent one is drawn less often

    def top_share(d):
        _, counts = np.unique(d.logp[0], return_counts=True)
        return counts.max() / counts.sum()

    assert top_share(hot) < top_share(cold) - 0.1
    same = marginal.importance_sample(lm, ["ab ba b"], 2000, seed=0, stay=0.0, explore=0.0, temperature=1.0)
    assert np.array_equal(same.logw, cold.logw)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="temperature"):
            marginal.importance_sample(lm, ["ab"], 4, temperature=bad)


def test_a_non_peeking_proposal_that_never_spells_the_string_gives_minus_inf_not_nan():
    from lmnotes.models.base import Samples

    samples = Samples(
        ["ab", "ba", "ab", "b"], [[]] * 4, np.zeros(4), np.zeros(4), np.array([True, True, False, True])
    )
    with pytest.warns(UserWarning, match="-inf"):
        est = marginal.ancestral(samples, ["ab", "aba"])
    assert est[0] == pytest.approx(math.log(1 / 4))  # the unfinished "ab" does not count
    assert est[1] == -np.inf and not np.isnan(est).any()
