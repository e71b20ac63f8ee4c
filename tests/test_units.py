"""Unit conversions (lmnotes.stats.units) and the segmentation post's worked examples."""

import math

import numpy as np
import pytest
from toy import Bigram

from lmnotes.studies.segmentation import comparability
from lmnotes.stats import units
from lmnotes.models.base import Scores


def test_measures_against_hand_computed_values():
    # 4 units, total log p = log(1/16): 2 bits per unit, perplexity 4
    nll = math.log(16)
    assert units.from_nats(nll, 2) == pytest.approx(4.0)
    assert units.from_nats(nll, 2, "bits") == pytest.approx(2.0)
    assert units.from_nats(nll, 4, "nats") == pytest.approx(math.log(16) / 4)
    assert units.to_nats(4.0, 2) == pytest.approx(nll)
    assert units.to_nats(2.0, 2, "bits") == pytest.approx(nll)
    # Mielke's conversion: ppl 19 over 5 subwords -> per word over 3 words
    assert units.convert(19, 5, 3) == pytest.approx(math.exp(5 * math.log(19) / 3))
    assert units.convert(2.0, 10, 5, "bits", "bits") == pytest.approx(4.0)
    assert units.convert(8.0, 1, 3, "perplexity", "bits") == pytest.approx(1.0)
    np.testing.assert_allclose(units.from_nats([nll, 2 * nll], [2, 2]), [4.0, 16.0])
    with pytest.raises(ValueError, match="measure"):
        units.from_nats(1.0, 1, "bananas")
    with pytest.raises(ValueError, match="positive"):
        units.from_nats(1.0, 0)


def _scores(texts, token_lps):
    lps = [np.array(x, dtype=float) for x in token_lps]
    return Scores(
        lps,
        np.array([x.sum() for x in lps]),
        np.array([len(x) for x in lps]),
        np.array([len(t.split()) for t in texts]),
        np.array([len(t) for t in texts]),
        np.array([len(t.encode()) for t in texts]),
    )


def test_counts_and_conventions():
    texts = ["ab cd", "é"]  # 2 words / 5 chars / 5 bytes; 1 word / 1 char / 2 bytes
    s = _scores(texts, [[-1.0, -2.0, -0.5], [-3.0, -1.0]])  # last entries: EOS
    assert list(units.counts(s, "word")) == [3, 2]
    assert list(units.counts(s, "byte")) == [6, 3]
    assert list(units.counts(s, "byte", "harness")) == [5, 2]
    assert list(units.counts(s, "token")) == [3, 2]
    assert list(units.counts(s, "token", "harness")) == [2, 1]
    assert list(units.logprobs(s, "harness")) == [-3.0, -3.0]
    assert units.corpus_rate(s, "char", "bits") == pytest.approx(7.5 / (6 + 2) / math.log(2))
    assert units.corpus_rate(s, "byte", "bits", "harness") == pytest.approx(6 / 7 / math.log(2))
    with pytest.raises(ValueError, match="unit"):
        units.counts(s, "sentence")
    with pytest.raises(ValueError, match="convention"):
        units.counts(s, "word", "lm-eval")


def test_segmentation_independent_measures_agree_for_one_string():
    lm = Bigram(seed=5)
    s = lm.score(["abc de fg", "gag"])
    table = units.rate_table(s, n_resamples=50)
    # the same log-likelihood over the same characters whatever the tokens
    total = -s.logprob.sum()
    assert table["bits / char"].value == pytest.approx(total / (s.n_chars + 1).sum() / math.log(2))
    assert table["perplexity / word"].value == pytest.approx(math.exp(total / (s.n_words + 1).sum()))


def test_bootstrap_rate_interval():
    rng = np.random.default_rng(0)
    n = rng.integers(5, 50, size=400).astype(float)
    lp = -n * 1.5 + rng.normal(0, 2, size=400)
    est = units.bootstrap_rate(lp, n, "nats", n_resamples=500)
    assert est.value == pytest.approx(-lp.sum() / n.sum())
    assert est.low < 1.5 < est.high and est.high - est.low < 0.05
    ppl = units.bootstrap_rate(lp, n, "perplexity", n_resamples=500)
    assert ppl.low == pytest.approx(math.exp(est.low)) and ppl.high == pytest.approx(math.exp(est.high))
    inf = units.bootstrap_rate(np.array([-1.0, -np.inf]), np.array([1.0, 1.0]))
    assert math.isinf(inf.value)
    with pytest.raises(ValueError):
        units.bootstrap_rate([], [])


def test_group_sums_keep_first_appearance_order():
    assert units.group_sums([1, 2, 3, 4], ["b", "a", "b", "c"]).tolist() == [4.0, 2.0, 4.0]
    with pytest.raises(ValueError, match="group labels"):
        units.group_sums([1, 2], [0])


def test_cluster_bootstrap_is_wider_when_strings_of_a_group_move_together():
    # 40 articles of 10 sentences; each article has its own difficulty, shared by its sentences
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(40), 10)
    n = np.full(400, 20.0)
    lp = -n * (1.5 + rng.normal(0, 0.3, size=40)[groups]) + rng.normal(0, 0.5, size=400)
    flat = units.bootstrap_rate(lp, n, "nats", n_resamples=2000)
    clustered = units.bootstrap_rate(lp, n, "nats", n_resamples=2000, groups=groups)
    assert clustered.value == pytest.approx(flat.value)  # the point estimate does not change
    assert (clustered.high - clustered.low) > 2 * (flat.high - flat.low)
    # the same as bootstrapping the articles' totals directly
    direct = units.bootstrap_rate(units.group_sums(lp, groups), units.group_sums(n, groups), "nats", 2000)
    assert (clustered.low, clustered.high) == pytest.approx((direct.low, direct.high))


def test_worked_examples_recomputed():
    df = comparability.worked_examples().set_index("quantity")
    r = df["recomputed"]
    assert r["ppl per word, p(the cat sat on the mat)"] == pytest.approx(22.51, abs=0.01)
    assert r["ppl per character, same sentence"] == pytest.approx(2.58, abs=0.01)  # printed 2.7
    assert r["ppl per word of p(the cat sat)"] == pytest.approx(42.04, abs=0.01)
    assert r["ppl per word from the listed conditionals"] == pytest.approx(132.96, abs=0.01)
    assert r["ppl per character of p(the cat sat)"] == pytest.approx(3.48, abs=0.01)
    assert r["nll_1 from ppl 19 over 4+1 subwords"] == pytest.approx(14.72, abs=0.01)
    assert r["ppl per word, segmentation 1"] == pytest.approx(135.29, abs=0.01)  # printed 134.3
    assert r["ppl per character, segmentation 2"] == pytest.approx(2.03, abs=0.01)  # printed 2.11
    assert df["follows"].sum() == 6  # the other six differ, each note says why
    # from the post's own figures (its rounded nll, 16 characters for "the deforestation") all but two
    assert list(df.index[~df["follows from the post's figures"]]) == [
        "ppl per character, same sentence",
        "ppl per word from the listed conditionals",
    ]
    assert (df.loc[~df["follows"], "note"] != "").all()
    # every mismatch has a known cause, and only the mismatches have one
    assert not (df.loc[~df["follows"], "cause"].isin(["", "unexplained"])).any()
    assert (df.loc[df["follows"], "cause"] == "").all()
    assert df["cause"].value_counts()["a rounded intermediate"] == 2


def test_paired_difference_cancels_what_the_strings_share():
    rng = np.random.default_rng(0)
    n = rng.integers(20, 200, size=300).astype(float)  # bytes per sentence
    hardness = rng.gamma(2.0, 1.0, size=300)  # nats per byte, shared by both models
    a = -hardness * n
    b = a - 0.01 * n  # model b: 0.01 nats per byte worse on every sentence
    groups = np.repeat(np.arange(30), 10)
    d = units.paired_difference(a, n, b, n, "bits", groups=groups)
    assert d.value == pytest.approx(-0.01 / np.log(2))
    assert d.high < 0 and d.high - d.low < 0.01 * 0.05  # the shared hardness cancels
    unpaired = units.bootstrap_rate(a, n, "bits", groups=groups)
    assert unpaired.high - unpaired.low > 10 * (d.high - d.low)
    same = units.paired_difference(a, n, a, n, "bits", groups=groups)
    assert same.value == same.low == same.high == 0
