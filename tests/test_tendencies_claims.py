"""The claims of chapter 02 (lmnotes.studies.tendencies.claims) on constructed measurements:
each rule gives the verdict its evidence implies, the counts in the measured text are the
cases', and a smaller set of models or strategies leaves claims untested instead of failing."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from lmnotes.report import claims as lmclaims
from lmnotes.stats import inference as stats
from lmnotes.studies.tendencies import claims as TC

Z = np.random.default_rng(0).standard_normal(200)  # one bootstrap stream: every pair is paired
DISTANCES = ["rank KS to Zipf(sample)", "rank KS to reference", "unigram TVD", "top-types TVD",
             "length KS", "stopwords KS", "symbols KS"]
OWN = ["Transformer", "Transformer (word)", "LSTM", "Trigram"]


def est(value, width=0.001):
    """An estimate whose replicates move with the shared stream: a difference of two with the
    same width has a zero-width interval, so only the values decide it."""
    return stats.interval(value, value + width * Z)


def tt_table(first, last):
    return pd.DataFrame({"bin": ["1–5", "41–70"], "KS to reference": [first, last],
                         "replicates": [first + 0.001 * Z, last + 0.001 * Z]})


def world(strategies=("ancestral", "nucleus", "beam"), own=OWN, nucleus=0.10, beam=0.30, ancestral=0.20,
          beam_width=0.001, shift_tvd=0.05):
    """Every self-trained model's distances: each strategy at its own level on every distance
    (nucleus < ancestral < beam by default), the Zipf fit worse than the empirical fit."""
    level = {"ancestral": ancestral, "nucleus": nucleus, "beam": beam}
    results, sets, tt_fit, tt_mean, matched = {}, {}, {}, {}, {}
    for i, m in enumerate(own):
        for s in strategies:
            v = level[s] + 0.01 * i  # models differ a little
            width = beam_width if s == "beam" else 0.001
            results[m, s] = {d: est(v, width) for d in DISTANCES}
            results[m, s]["rank KS to Zipf(sample)"] = est(v + 0.2, width)
            results[m, s]["top-types TVD"] = est(shift_tvd + 0.01, width)
            sets[m, s] = SimpleNamespace(lengths=np.arange(5.0, 25.0) - (10 if s == "beam" else 0),
                                         unk_rate=0.02)
            tt_fit[m, s] = tt_table(v, v + 0.1)
            tt_mean[m, s] = est(v, width)
            matched[m, s, "long"] = (est(-0.05), 0.001)
    results["human shift", "–"] = {d: est(0.05) for d in DISTANCES}
    tt_fit["human shift", "–"] = tt_table(0.05, 0.05)
    floor = pd.DataFrame({"min": 0.0, "median": 0.01, "max": 0.02}, index=DISTANCES)
    unk = {("Transformer (word)", "counted"): est(0.004)} if "Transformer (word)" in own else {}
    return TC.Measured(results, sets, tt_fit, tt_mean, matched, unk, floor, list(strategies), list(own))


RULES = TC.Rules(small_unigram_tvd=0.03, close_length_ks=0.05, long_length=41, max_tokens=128)


def verdicts(df):
    return dict(zip(df["claim"].str.split(".").str[0], df["verdict"]))


def test_every_claim_is_one_row_whose_verdict_follows_from_its_counts():
    df = TC.claims(world(), RULES)
    assert list(df["claim"].str.split(".").str[0]) == ["1", "2", "3", "4a", "4b", "5", "6", "7", "8a", "8b", "9",
                                                       "10", "11"]
    lmclaims.check(df)  # recomputes every verdict from n_for, n_against, n_unresolved and rule


def test_nucleus_closest_reproduces_and_the_opposite_contradicts():
    v = verdicts(TC.claims(world(), RULES))
    assert v["2"] == v["11"] == v["6"] == "reproduced"
    flipped = verdicts(TC.claims(world(nucleus=0.25, ancestral=0.15, beam=0.10), RULES))
    assert flipped["2"] == flipped["11"] == flipped["6"] == "contradicted"


def test_equal_distances_stay_open():
    # beam at the others' level but with wider intervals: no case decides
    df = TC.claims(world(beam=0.20, ancestral=0.20, nucleus=0.20, beam_width=0.01), RULES)
    row = df.set_index(df["claim"].str.split(".").str[0]).loc["6"]
    assert row["verdict"] == "inconclusive" and row["n_unresolved"] == len(OWN) * 3


def test_the_margin_decides_small_and_matches():
    # top-types TVD 0.01 beyond the shift: small under 0.03, not small under 0.005
    assert verdicts(TC.claims(world(), RULES))["4a"] == "reproduced"
    strict = TC.Rules(small_unigram_tvd=0.005, close_length_ks=0.05, long_length=41, max_tokens=128)
    assert verdicts(TC.claims(world(), strict))["4a"] == "contradicted"
    # ancestral length KS 0.20-0.23 against the shift's 0.05: beyond a margin of 0.05
    assert verdicts(TC.claims(world(), RULES))["8a"] == "contradicted"


def test_measured_text_counts_the_cases():
    df = TC.claims(world(), RULES).set_index("claim")
    six = df.loc[df.index.str.startswith("6.")].iloc[0]
    assert six["n_for"] == 12 and "in 12 of 12 model × statistic cases" in six["measured"]
    eight = df.loc[df.index.str.startswith("8b.")].iloc[0]
    assert eight["n_for"] == 4 and "−10.0" in eight["measured"]  # beam 10 tokens shorter


def test_fewer_models_or_strategies_leave_claims_untested():
    v = verdicts(TC.claims(world(strategies=("ancestral", "nucleus"), own=["Transformer", "LSTM"]), RULES))
    assert v["4b"] == "not tested" and v["6"] == "not tested" and v["8b"] == "not tested"
    assert v["9"] == "not tested"  # no trigram under beam


def test_factor_ranges():
    spread = TC.factor_ranges(world())
    # strategies at 0.10, 0.20, 0.30 for every model: range 0.2 across strategies; models 0.03 apart
    assert spread.loc["length KS", "across strategies"] == pytest.approx(0.2)
    assert spread.loc["length KS", "across models"] == pytest.approx(0.03)
    assert spread.loc["length KS", "across strategies (ancestral, nucleus)"] == pytest.approx(0.1)


def test_unk_artefact_without_a_word_model():
    m = world(own=["Transformer", "LSTM"])
    out = TC.unk_artefact(m, reference=None, articles=None, compare={})
    assert out == {"c4_span": "none", "c4_all_span": "none", "c4_counted_span": "none",
                   "unk_vs_c4": "not measured"}
