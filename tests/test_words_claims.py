"""The word-level chapter's claims table (:mod:`lmnotes.studies.words.claims`) on constructed
evidence whose verdicts and counts are known."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from lmnotes import stats
from lmnotes.studies.words import claims as C
from lmnotes.studies.words import wordstats as WS

#: Every constructed estimate shares these replicate offsets, so the paired difference of two
#: of them has no spread: its interval is the difference itself, and only its sign decides.
NOISE = np.array([-0.1, 0.0, 0.1])
MODELS = {"bpe1000": "bpe", "bpe8000": "bpe", "byte": "byte"}
B0, B1, B2 = WS.PAPER_BINS


def est(value, half=0.5):
    return stats.Estimate(value, value - half, value + half, value + NOISE)


def pairs():
    rows = [("bpe1000", "bpe8000", 2, 3, -1, 5, True, False),
            ("bpe1000", "byte", 1, -4, 2, 2, True, None),
            ("bpe8000", "byte", -1, -2, 1, -3, False, True)]
    return pd.DataFrame([{"a": a, "b": b, "Δ top-1": est(d1), "Δ top-10 (Alg. 2)": est(d10),
                          "Δ T1": est(dt), "Δ word ppl": est(dp), "top-1 alike": s1, "T1 alike": st}
                         for a, b, d1, d10, dt, dp, s1, st in rows])


def by_bin(hits_top=5):
    out = {}
    for n in MODELS:
        for b, acc, cov in zip(WS.PAPER_BINS, (50, 30, 10), (20, 30, 40)):
            out[n, b] = {"acc": est(acc), "cov": est(cov), "hits": hits_top if b == B0 else 3}
    return out


def triples():
    # encoder A: 1 of 10 rare (all split) against 18 of 20 split common; B splits no rare word
    trip = pd.DataFrame({"kind": ["rare"] * 10 + ["common"] * 10,
                         "A": [True] + [False] * 9 + [True] * 10, "A split": [True] * 10 + [False] * 10,
                         "B": [True] * 20, "B split": [False] * 20})
    pool = pd.DataFrame({"kind": ["common"] * 20, "A": [True] * 18 + [False] * 2, "A split": [True] * 20,
                         "B": [True] * 20, "B split": [True] * 20})
    return trip, pool


def results(**changes):
    trip, pool = triples()
    table2 = pd.DataFrame([
        {"source": "paper", "encoder": "BERT", "rare hits": 14, "common hits": 40, "Fisher p": 1e-6},
        {"source": "ours", "encoder": "A", "rare hits": 10, "common hits": 40, "Fisher p": 1e-9},
        {"source": "ours", "encoder": "B", "rare hits": 30, "common hits": 30, "Fisher p": 1.0}])
    base = C.Results(
        segmentation=MODELS, pairs=pairs(), by_bin=by_bin(), n_types={B0: 7, B1: 70, B2: 300},
        concentration={n: (est(60), est(40)) for n in MODELS},
        soft_gain={(n, 100): (est(2), est(1)) for n in MODELS},
        t1={n: est(20) for n in MODELS}, table2=table2, trip=trip, pool=pool, encoders=["A", "B"],
        enc_diff=est(3, half=5), mcnemar=0.5,
        robust={"bpe1000": {"top-10": (est(40), est(41)), "T10": (est(20), est(30))}})
    return dataclasses.replace(base, **changes)


RULES = C.Rules(margin=0.2, equal_points=15, soft_k=100, n_triples=50, n_sentences_exact=60,
                paper_coverage=dict(zip(WS.PAPER_BINS, (50.0, 14.0, 7.0))))


def table(res=None, rules=RULES):
    """The claims table, indexed by the claims' numbers ("1" to "13", "8a", "8b")."""
    df = C.claims(res or results(), rules)
    return df.set_index(df["claim"].str.split(".").str[0])


def evidence(df, claim):
    r = df.loc[claim]
    return r["verdict"], (r["n_for"], r["n_against"], r["n_unresolved"])


def test_every_claim_gets_the_verdict_its_constructed_evidence_implies():
    df = table()
    assert len(df) == 14 and list(df.index) == ["1", "2", "3", "4", "5", "6", "7", "8a", "8b", "9",
                                                 "10", "11", "12", "13"]
    expected = {
        "1": ("reproduced", (1, 0, 0)),  # only the pair without the byte model; same signs
        "2": ("inconclusive", (1, 0, 1)),  # similar in top-1: one different in T1, one undecided
        "3": ("inconclusive", (1, 0, 1)),
        "4": ("differs", (1, 2, 0)),  # lower perplexity with lower T1 once, with higher twice
        "5": ("differs", (6, 6, 0)),  # accuracy falls, coverage rises, in every model
        "6": ("reproduced", (3, 0, 0)),
        "7": ("reproduced", (6, 0, 0)),
        "8a": ("inconclusive", (1, 0, 1)),
        "8b": ("inconclusive", (1, 0, 1)),  # B splits no rare word: open
        "9": ("reproduced", (1, 0, 0)),
        "10": ("differs", (3, 6, 0)),  # below 50 % in the top bin, above 14 % and 7 % below it
        "11": ("contradicted", (0, 3, 0)),  # 1 point of 20: 5 % more types, not 11 %
        "12": ("differs", (1, 1, 0)),  # top-10 within the margin, T10 10 points apart
        "13": ("not tested", (0, 0, 0)),
    }
    for claim, (verdict, counts) in expected.items():
        assert evidence(df, claim) == (verdict, counts), claim
    assert df.loc["13", "basis"] == "gpu profile only"
    assert set(df.drop(index="13")["basis"]) == {"measured"}


def test_the_measured_texts_report_the_counts():
    m = table()["measured"]
    assert m["1"].startswith("1 of the 1 pairs without a character-level model are ordered alike by both, "
                             "0 reversed, 0 tied in one; 2 pairs with byte not testable")
    assert m["2"].startswith("of 2 pairs similar in top-1 (margin 20.0% of their mean), 1 differ in T1, 0 are")
    assert m["3"].startswith("of 1 pair similar in T1")
    assert m["4"].startswith("of 3 pairs of open-vocabulary models, the lower perplexity has the lower T1 in "
                             "1 and the higher T1 in 2 (0 tied in one); the pairs with a closed vocabulary "
                             "(no member)")
    assert m["5"] == "6 of 12 adjacent-bin drops beyond their intervals, 6 rises"
    assert m["6"] == (f"share of the hits in {B0} against its 40 % of the words: "
                      "BPE-1k 60 %; BPE-8k 60 %; byte 60 %")
    assert m["7"].endswith("BPE-1k +2.00 / +1.00; BPE-8k +2.00 / +1.00; byte +2.00 / +1.00")
    assert m["8a"] == ("A 10/50 vs 40/50, Fisher p < 0.001; B 30/50 vs 30/50, Fisher p 1; "
                       "confounded with word-piece splitting (8b)")
    assert m["8b"].startswith("rare vs common split words, Fisher: A 1/10 vs 18/20, p ")
    assert m["9"] == "A − B 3.00 [−2.00, 8.00] points on 10 rare triples (margin ±15), McNemar p 0.5"
    assert m["10"] == ("best of our models per bin: 20.0 % / 30.0 % / 40.0 %; below GPT-2's value "
                       f"beyond the interval in 3 of 9 model × bin cases; our {B0} bin holds 7 types "
                       "(a bin's coverage grows as the test holds fewer of its types)")
    assert m["11"].startswith("T1 gain above chance as a share of T1: BPE-1k +5%; BPE-8k +5%; byte +5%; "
                              "read as points of T1, 3 of 3 cases against")
    assert m["12"] == ("Alg. 2 minus exact on the first 60 sentences: BPE-1k top-10 −1.0, T10 −10.0 points")
    assert m["13"] == "not run at this profile (size_compare is empty)"


def test_reversed_rankings_and_rising_measures_contradict():
    p = pairs()
    p.loc[0, "Δ top-10 (Alg. 2)"] = est(-3)
    df = table(results(pairs=p))
    assert evidence(df, "1") == ("contradicted", (0, 1, 0))
    assert "1 reversed (BPE-1k/BPE-8k)" in df.loc["1", "measured"]
    # an unresolved difference leaves the pair open
    p.loc[0, "Δ top-10 (Alg. 2)"] = est(0.2)
    assert evidence(table(results(pairs=p)), "1") == ("inconclusive", (0, 0, 1))


def test_a_bin_without_hits_leaves_its_drops_open():
    df = table(results(by_bin=by_bin(hits_top=0)))
    # the top bin's two measures per model are open; the next bin's acc falls, cov rises
    assert evidence(df, "5") == ("differs", (3, 3, 6))
    assert df.loc["5", "measured"].endswith("; 6 open without a hit in the higher bin")


def test_similarity_and_equivalence_can_reproduce_and_contradict():
    p = pairs()
    p["top-1 alike"] = [True, True, False]
    p["T1 alike"] = [False, False, True]
    df = table(results(pairs=p))
    assert evidence(df, "2") == ("reproduced", (2, 0, 0))
    p["T1 alike"] = [True, True, True]
    assert evidence(table(results(pairs=p)), "2") == ("contradicted", (0, 2, 0))
    assert evidence(table(results(enc_diff=est(20, half=2))), "9") == ("contradicted", (0, 1, 0))
    assert evidence(table(results(enc_diff=est(10, half=8))), "9") == ("inconclusive", (0, 0, 1))


def test_more_types_is_read_as_a_share_of_t1():
    gain = {(n, 100): (est(2), est(4)) for n in MODELS}  # 4 points of 20: 20 % more types
    df = table(results(soft_gain=gain))
    assert evidence(df, "11") == ("reproduced", (3, 0, 0))
    # the numbers take typographic minus signs, the models' names keep their hyphen
    assert "BPE-1k +20%" in df.loc["11", "measured"]
    assert "read as points of T1, 3 of 3 cases against" in df.loc["11", "measured"]
    # a model without a T1 gives no share: an open case
    t1 = {n: est(np.nan if n == "byte" else 20) for n in MODELS}
    assert evidence(table(results(soft_gain=gain, t1=t1)), "11") == ("inconclusive", (2, 0, 1))


def test_a_size_comparison_is_measured_where_it_ran():
    df = table(results(size_rows=[{"model": "BPE-8k", "difference": est(4, half=1)}], size_cases=[True]))
    assert evidence(df, "13") == ("reproduced", (1, 0, 0))
    assert df.loc["13", "basis"] == "measured"
    assert df.loc["13", "measured"] == "BPE-8k: larger minus smaller T1/E₀[T1] 4.00 [3.00, 5.00]"


def test_closed_vocabularies_leave_the_perplexity_pairs():
    seg = {"bpe1000": "bpe", "bpe8000": "bpe", "byte": "word"}
    df = table(results(segmentation=seg))
    assert evidence(df, "4") == ("contradicted", (0, 1, 0))  # only bpe1000/bpe8000 is left
    assert "(byte), not comparable" in df.loc["4", "measured"]
    # with no character-level model every pair ranks: pair 2 reverses, pair 3 agrees
    assert evidence(df, "1") == ("differs", (2, 1, 0))


def test_thresholds_name_the_margin_and_the_equivalence_points():
    keys = list(C.thresholds(RULES))
    assert keys == ["margin = 0.200", "equal_points = 15"]


def test_the_hits_concentration_is_a_ratio_of_cluster_sums():
    t = pd.DataFrame({"hit1": [True, True, False, True, False, False],
                      "bin": [B0, B1, B0, B0, B2, B0], "article": [0, 0, 1, 1, 2, 2]})
    res = WS.Resampler(t["article"], 50, 0)
    hits, positions = WS.hit_concentration(res, t)
    assert hits.value == pytest.approx(100 * 2 / 3) and positions.value == pytest.approx(100 * 4 / 6)
