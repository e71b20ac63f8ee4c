"""Chapter 03's analysis modules (family, closed, strides, estimates, pretrained of
lmnotes.studies.segmentation) on constructed inputs."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from lmnotes.models.recipes import transformer
from lmnotes.stats import Estimate
from lmnotes.studies.segmentation import closed, estimates, family as F, marginal, pretrained, strides


def est(v):
    return Estimate(v, v - 0.1, v + 0.1)


def member(vocab, open_vocabulary=True):
    return SimpleNamespace(vocab_size=vocab, seg=SimpleNamespace(open_vocabulary=open_vocabulary))


def rates_of(ppl_token, bpb):
    return {
        s: {
            "perplexity / token": est(ppl_token[s]),
            "perplexity / word": est(bpb[s] * 10),
            "perplexity / char": est(bpb[s] * 2),
            "bits / char": est(bpb[s] * 1.1),
            "bits / byte": est(bpb[s]),
        }
        for s in ppl_token
    }


def test_labels_and_recipes():
    assert F.label("bpe8000") == "BPE 8k"
    assert F.label("bpe1500") == "bpe1500"
    assert F.label("word") == "word (closed)"
    assert transformer("bpe4000").vocab_size == 4000
    assert transformer("byte").segmentation == "byte"
    assert F.fmt(Estimate(-1.23456, -2.0, 0.5), 2) == "−1.23 [−2.00, 0.50]"


def test_rankings_and_kendall_tau():
    segs = ["byte", "bpe1000", "word"]
    # per-token order byte < bpe < word, per-byte order the reverse
    rates = rates_of(
        {"byte": 2.0, "bpe1000": 20.0, "word": 200.0}, {"byte": 1.5, "bpe1000": 1.2, "word": 1.0}
    )
    ranks, tau = F.rankings(rates, segs)
    assert list(ranks.index) == ["byte", "BPE 1k", "word (closed)"]
    assert list(ranks["perplexity / token"]) == [1, 2, 3]
    assert list(ranks["bits / byte"]) == [3, 2, 1]
    assert tau["perplexity / token"] == pytest.approx(1.0)
    assert tau["bits / byte"] == pytest.approx(-1.0)


def test_order_findings():
    segs = ["byte", "bpe1000", "word"]
    fam = {"byte": member(256), "bpe1000": member(1000), "word": member(5000, False)}
    budgets = pd.DataFrame({"epochs": [1.0, 2.0, 3.0]}, index=segs)
    # the closed model has the largest vocabulary but a lower per-token perplexity than bpe
    rates = rates_of({"byte": 2.0, "bpe1000": 20.0, "word": 10.0}, {"byte": 1.5, "bpe1000": 1.2, "word": 1.0})
    found = F.order_findings(fam, rates, budgets, segs)
    assert (
        "grows with the vocabulary; it is not a law: the word (closed) model" in found["ppl_vocab_sentence"]
    )
    # more epochs, fewer bits per byte, in the same order: tau = 1
    assert found["epochs_tau"] == pytest.approx(1.0)
    assert found["epoch_order_sentence"].startswith("the bits-per-byte order is exactly")
    rates = rates_of(
        {"byte": 2.0, "bpe1000": 20.0, "word": 200.0}, {"byte": 1.0, "bpe1000": 1.2, "word": 1.5}
    )
    found = F.order_findings(fam, rates, budgets, segs)
    assert found["ppl_vocab_sentence"].startswith("Per-token perplexity grows with the vocabulary in every")
    assert found["epochs_tau"] == pytest.approx(-1.0)


def test_decompose_splits_the_advantage():
    n_char = np.array([10, 10, 20])
    has_oov = np.array([False, True, False])
    ln2 = math.log(2)
    open_lp = -ln2 * np.array([12.0, 12.0, 24.0])  # 48 bits over 40 chars: 1.2
    word_raw = -ln2 * np.array([8.0, 8.0, 16.0])  # 32 bits: 0.8
    word_open = -ln2 * np.array([8.0, 16.0, 16.0])  # 40 bits: 1.0
    mass = {"mass": 0.5, "low": 0.25, "high": 0.75}  # -log2(1 - 0.5) = 1 bit per sentence
    adv = closed.decompose(open_lp, word_raw, word_open, n_char, has_oov, mass)
    assert adv.advantage == pytest.approx(0.4)
    assert adv.unk == pytest.approx(0.2)
    assert adv.renorm_bits == pytest.approx([1.0, -math.log2(0.75), 2.0])
    assert adv.per_char_renorm[0] == pytest.approx(2 / 30)  # 2 sentences without oov, 30 chars
    assert adv.renorm_all == pytest.approx(2 / 40)
    table = adv.table()
    parts = table["bits / char"]
    assert parts.iloc[1:].sum() == pytest.approx(parts.iloc[0])
    assert table["share of the advantage (%)"].iloc[0] == pytest.approx(100)
    values = adv.values()
    assert values["unk_share"] == pytest.approx(50)
    assert values["renorm_share"] == pytest.approx(12.5)
    assert values["renorm_bits_sentence"] == pytest.approx(1.0)


def test_bpc_by_subset_names_its_subsets():
    n_char = np.array([10, 10, 10, 10, 10, 10])
    has_oov = np.array([False, True, False, True, False, False])
    lp = -math.log(2) * np.full(6, 5.0)  # 0.5 bits per char everywhere
    table = closed.bpc_by_subset({"m": lp}, has_oov, n_char, np.arange(6), 50, 0)
    assert list(table.columns) == ["all sentences (6)", "without unknown words (4)", "with unknown words (2)"]
    assert all(e.value == pytest.approx(0.5) for e in table.loc["m"])


def test_mass_values():
    values = closed.mass_values({"mass": 0.1, "low": 0.05, "high": 0.2, "n": 40})
    assert values == pytest.approx(
        {"oov_mass": 10.0, "oov_mass_low": 5.0, "oov_mass_high": 20.0, "n_mass_samples": 40}
    )


def test_bits_per_byte_has_an_interval_only_with_enough_documents():
    lp, n = -math.log(2) * np.array([8.0, 16.0, 8.0]), np.array([8, 16, 8])
    few = strides.bits_per_byte(lp, n, 100, 0)
    assert few.value == pytest.approx(1.0) and np.isnan(few.low) and np.isnan(few.high)
    lp, n = np.concatenate([lp, lp]), np.concatenate([n, n])
    many = strides.bits_per_byte(lp, n, 100, 0)
    assert many.value == pytest.approx(1.0) and not np.isnan(many.low)


def test_stride_findings_say_whether_context_helps():
    gains = {"self": Estimate(0.01, -0.02, 0.03), "pre": Estimate(0.2, 0.1, 0.3)}
    per_doc = {"self": np.array([0.0]), "pre": np.array([0.1, 0.25])}
    found = strides.stride_findings(gains, per_doc, "self", "pre", 7)
    assert found["stride_self_verdict"].startswith("its gain's interval contains 0")
    assert found["stride_gain_pre_docs"] == "0.100, 0.250"
    assert found["stride_gain_self_interval"] == "[-0.020, 0.030]"
    assert found["stride_n_self_docs"] == 7
    gains["self"] = Estimate(-0.05, -0.08, -0.02)
    assert (
        "costs it a little, 0.050 bits"
        in strides.stride_findings(gains, per_doc, "self", "pre", 7)["stride_self_verdict"]
    )


def draws(logw, canonical, log_canonical):
    logw, canonical = np.asarray(logw, float), np.asarray(canonical, bool)
    tokens = np.empty(logw.shape, object)
    for i, j in np.ndindex(logw.shape):
        tokens[i, j] = (j,)  # every draw a distinct segmentation
    return marginal.Draws(logw, canonical, np.asarray(log_canonical, float), logw.copy(), tokens)


def test_sweep_findings_of_draws_that_are_all_canonical():
    d = draws(np.zeros((2, 8)), np.ones((2, 8)), [-10.0, -20.0])
    run = {"draws": d, "chars": np.array([10, 20]), "bpc": 1.0}
    pct = estimates.sweep_table(run, [2, 4, 8])
    assert list(pct.columns) == [
        "runs",
        "mean over runs",
        "lowest run",
        "highest run",
        "certified bound, first N",
    ]
    assert list(pct["runs"]) == [4, 2, 1]
    assert np.allclose(pct.iloc[:, 1:].to_numpy(float), 0)
    found, levelled = estimates.sweep_findings(run, pct, [2, 4, 8], 0.0)
    assert found["sweep_first_n"] == 2 and found["n_first_runs"] == 4
    assert found["n_first_below_cert"] == 0
    assert not levelled  # a rise of 0 is not below a tenth of 0
    assert found["gap_self_trend"] == "the estimate, 0.00 % at N = 8, still rising"


def test_largest_gap_picks_the_sentence_and_its_best_alternative():
    # string 1: one draw off s* with p(s) = p(s*), so the alternative adds log 2
    d = draws([[0.0, 0.0], [0.0, 0.0]], [[True, True], [True, False]], [-5.0, -3.0])
    d.logp[1, 1] = -3.0
    gap = SimpleNamespace(per_string=np.array([0.0, math.log(1.5)]))
    run = {"draws": d, "texts": ["ab", "ab"], "gap": gap}
    lm = SimpleNamespace(encode=lambda t: [0], token_bytes=lambda: {0: b"ab", 1: b"a", 2: b"b"})
    d.tokens[1, 1] = (1, 2)
    table, values = estimates.largest_gap(run, lm)
    assert list(table["log p(s)"]) == [-3.0, -3.0]
    assert values["top_alt_nats"] == pytest.approx(math.log(2))
    assert values["top_cert"] == pytest.approx(math.log(2))
    assert values["top_alt_delta"] == "0.0 nats less probable than"
    assert values["top_n_distinct"] == 1


def test_exact_findings_and_gap_shares():
    table = pd.DataFrame(
        {
            "log p(s*)": [-2.0, -3.0],
            "log p(x), exact": [-1.9, -2.5],
            "guided (3)": [Estimate(-1.95, -2.0, -1.9), Estimate(-2.6, -2.8, -2.5)],
            "constrained": [-2.5, -2.6],
            "share of s*": [0.9, 0.6],
            "_covered": [10, 6],
        }
    )
    found = estimates.exact_findings(table, [], 10, 1000)
    assert found["coverage_pct"] == pytest.approx(80)
    assert found["err_guided"] == pytest.approx(0.075)
    assert found["n_constrained_below"] == 1
    assert found["min_canonical_share"] == pytest.approx(60)
    assert found["coverage_sentence"].startswith("That is far below")
    assert found["skipped_words"] == "none"
    gaps = pd.DataFrame(
        {
            "a": {
                "gap / bits per char": 0.01,
                "interval's upper end / bits per char": 0.02,
                "certified lower bound / bits per char": 0.005,
                "gap by the constrained proposal": -0.1,
                "bits / char (canonical)": 2.0,
                "draws off s*": 0.25,
                "largest gap in one sentence (nats)": 1.5,
            }
        }
    ).T
    pct = estimates.gap_shares(gaps)
    assert pct.loc["a", "gap"] == pytest.approx(1.0)
    assert pct.loc["a", "constrained"] == pytest.approx(-5.0)  # bits over bits per char, in %
    assert pct.loc["a", "draws off s*"] == pytest.approx(25)


def test_prefix_tokens_checks_the_alternative():
    tokenizer = SimpleNamespace(
        convert_ids_to_tokens=lambda i: "<|endoftext|>",
        bos_token="<|im_start|>",
        get_vocab=lambda: {"<|endoftext|>": 0, "<|im_start|>": 1},
    )
    lm = SimpleNamespace(tokenizer=tokenizer, bos_id=0)
    assert pretrained.prefix_tokens(lm, "m") == ("<|endoftext|>", "<|im_start|>")
    assert pretrained.prefix_tokens(lm, "m", "<|endoftext|>")[1] == "<|endoftext|>"
    with pytest.raises(ValueError, match="has no token"):
        pretrained.prefix_tokens(lm, "m", "<bos>")
