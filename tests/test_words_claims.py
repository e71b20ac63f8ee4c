"""The word-level chapter's claims table (:mod:`lmnotes.studies.words.claims`) on constructed
evidence whose verdicts and counts are known: each claim with its form and cases, reproduced
by evidence built for it and contradicted by evidence built against it, and the paper's own
printed numbers passing the claims they rest on."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from lmnotes import stats
from lmnotes.report import cases as LC, claims as lmclaims, sections
from lmnotes.report.sections import Measured
from lmnotes.studies.words import claims as C
from lmnotes.studies.words import table1 as PT
from lmnotes.studies.words.labels import label
from lmnotes.studies.words import table2 as T2
from lmnotes.studies.words import wordstats as WS

MODELS = {"bpe1000": "bpe", "bpe8000": "bpe", "byte": "byte"}
B0, B1, B2 = WS.PAPER_BINS
#: Three replicate patterns of standard deviation 1: estimates with different patterns differ
#: on every resample, so that their paired difference has a spread.
PATTERNS = [np.array([-1.0, 0.0, 1.0]), np.array([0.0, 1.0, -1.0]), np.array([1.0, -1.0, 0.0])]


def est(value, half=0.5, pattern=0):
    """An estimate whose 95 % interval from its replicates is value ± half."""
    return stats.Estimate(value, value - half, value + half, value + half / stats.Z95 * PATTERNS[pattern])


def zero():
    """A rate at its floor: no hit on any resample."""
    return stats.Estimate(0.0, 0.0, 0.0, np.zeros(3))


def ratio(*values):
    """T1 / E₀[T1] (%) per model: 60 % each unless given."""
    return {n: est(v, half=5) for n, v in zip(MODELS, values or (60,) * len(MODELS))}


def table1(**changes):
    t = pd.DataFrame(
        {
            "top-1": [est(20), est(20.5), est(10)],
            "top-10 (Alg. 2)": [est(40), est(40.5), est(50)],
            "T1": [est(10), est(5), est(5)],
            "word ppl": [est(100), est(80), est(300)],
        },
        index=list(MODELS),
    )
    for (model, column), value in changes.items():
        t.loc[model, column] = value
    return t


#: The pairs' differences (a − b): top-1, top-10, T1, word perplexity (value, half-width).
PAIRS = {
    ("bpe1000", "bpe8000"): dict(d1=(0.1, 0.5), d10=(-0.5, 0.5), dT=(5, 1), dp=(20, 5)),
    ("bpe1000", "byte"): dict(d1=(10, 1), d10=(-10, 1), dT=(5, 1), dp=(-200, 10)),
    ("bpe8000", "byte"): dict(d1=(10.5, 1), d10=(-9.5, 1), dT=(0.1, 0.1), dp=(-220, 10)),
}


def pairs(**changes):
    """The pair table; ``changes``: {"<a>/<b>": {"d1": (value, half), ...}}."""
    rows = []
    for (a, b), d in PAIRS.items():
        d = d | changes.get(f"{a}/{b}", {})
        rows.append(
            {
                "a": a,
                "b": b,
                "Δ top-1": est(*d["d1"]),
                "Δ top-10 (Alg. 2)": est(*d["d10"]),
                "Δ T1": est(*d["dT"]),
                "Δ word ppl": est(*d["dp"]),
            }
        )
    return pd.DataFrame(rows)


def by_bin(acc=(50, 30, 10), cov=(40, 10, 5), hits=(5, 3, 3), models=MODELS):
    """Each model's accuracy and coverage per bin, each bin with its own replicate pattern;
    a bin without hits at the floor."""
    out = {}
    for n in models:
        for i, (b, a, c, h) in enumerate(zip(WS.PAPER_BINS, acc, cov, hits)):
            out[n, b] = {
                "acc": est(a, pattern=i) if h else zero(),
                "cov": est(c, pattern=i) if h else zero(),
                "hits": h,
            }
    return out


def triples(rare_split=(1, 10), common_split=(18, 20)):
    """Triples of two encoders: A splits every rare word (``rare_split``: its hits and number)
    and the pool's common words (``common_split``); B splits no rare word."""
    (rh, rn), (ch, cn) = rare_split, common_split
    trip = pd.DataFrame(
        {
            "kind": ["rare"] * rn + ["common"] * 10,
            "A": [True] * rh + [False] * (rn - rh) + [True] * 10,
            "A split": [True] * rn + [False] * 10,
            "B": True,
            "B split": False,
        }
    )
    pool = pd.DataFrame(
        {
            "kind": "common",
            "A": [True] * ch + [False] * (cn - ch),
            "A split": True,
            "B": True,
            "B split": True,
        }
    )
    return trip, pool


def table2(a=(10, 40), b=(20, 40)):
    from lmnotes.studies.words import table2 as T2

    rows = [{"source": "paper", "encoder": "BERT", "rare hits": 14, "common hits": 40, "Fisher p": 1e-6}]
    for name, (r, c) in (("A", a), ("B", b)):
        rows.append(
            {
                "source": "ours",
                "encoder": name,
                "rare hits": r,
                "common hits": c,
                "Fisher p": T2.table2_stats(r, c, 50, 50)["Fisher p"],
            }
        )
    return pd.DataFrame(rows)


def robust(top10=(40, 41, 41), t10=(20, 20.5, 21), gave_up=0):
    """Algorithm 2's top-10 and T10 and the exact ones (every give-up a miss, then a hit)."""
    return {
        "bpe1000": {
            "top-10": tuple(est(v, pattern=i) for i, v in enumerate(top10)),
            "T10": tuple(est(v, pattern=i) for i, v in enumerate(t10)),
            "types": (5, 5, 5),
            "searched": 100,
            "gave up": gave_up,
        }
    }


def results(**changes):
    """Evidence that reproduces every claim the chapter can reproduce (13 is not run)."""
    trip, pool = triples()
    base = Measured(
        segmentation=MODELS,
        pairs=pairs(),
        table1=table1(),
        by_bin=by_bin(),
        n_types={B0: 7, B1: 70, B2: 300},
        concentration={n: (est(60), est(40)) for n in MODELS},
        soft_gain={(n, 100): (est(2), est(1, pattern=1), est(4, pattern=1)) for n in MODELS},
        table2=table2(),
        trip=trip,
        pool=pool,
        encoders=["A", "B"],
        enc_diff=est(3, half=5),
        mcnemar=0.5,
        robust=robust(),
        size_rows=[],
        split_pools={},
        coverage_ratio=ratio(),
        seeds={},
    )
    return Measured({**base, **changes})


RULES = C.Rules(
    margin=0.2,
    equal_points=15,
    soft_k=100,
    n_triples=50,
    n_sentences_exact=60,
    paper_coverage=dict(PT.PAPER_COVERAGE),
)


def table(res=None, rules=RULES):
    """The claims table, indexed by the claims' numbers ("1" to "13", "8a", "8b")."""
    df = C.claims(res or results(), rules)
    return df.set_index(df["claim"].str.split(".").str[0])


def evidence(df, claim):
    r = df.loc[claim]
    return r["verdict"], (r["n_for"], r["n_against"], r["n_unresolved"])


def cases_of(df, claim):
    saved = df.attrs["cases"]
    return saved[saved["claim"] == claim]


NUMBERS = ["1", "2", "3", "4", "5", "6", "7", "8a", "8b", "9", "10", "11", "12", "13"]
FORMS = {
    "1": "every",
    "2": "some",
    "3": "some",
    "4": "some",
    "5": "every",
    "6": "every",
    "7": "every",
    "8a": "every",
    "8b": "every",
    "9": "every",
    "10": "every",
    "11": "every",
    "12": "every",
    "13": "every",
}


def test_every_claim_has_its_form_and_cases_that_recompute():
    df = table()
    assert list(df.index) == NUMBERS
    assert df["rule"].to_dict() == FORMS
    lmclaims.check(df.reset_index(drop=True))
    lmclaims.check_cases(df.reset_index(drop=True), df.attrs["cases"])
    assert all(df.attrs["cases"]["why"].str.len() > 10)
    assert df.loc["13", "basis"] == "gpu profile only" and set(df.drop(index="13")["basis"]) == {"measured"}


def test_constructed_evidence_reproduces_every_claim():
    df = table()
    expected = {
        "1": (1, 0, 0),  # the one pair without the byte model: tied by both measures
        "2": (1, 2, 0),  # BPE-1k/BPE-8k similar in top-1, different in T1; the byte pairs differ in top-1
        "3": (1, 2, 0),  # BPE-8k/byte similar in T1, different in top-1
        "4": (1, 1, 1),  # BPE-8k's lower perplexity with its lower T1; BPE-8k/byte's T1 open
        "5": (12, 0, 0),
        "6": (3, 0, 0),
        "7": (6, 0, 0),
        "8a": (2, 0, 0),
        "8b": (1, 0, 0),  # B splits no rare word: no case
        "9": (1, 0, 0),
        "10": (3, 0, 0),
        "11": (3, 0, 0),
        "12": (2, 0, 0),
    }
    for claim, counts in expected.items():
        assert evidence(df, claim) == ("reproduced", counts), claim
    assert evidence(df, "13") == ("not tested", (0, 0, 0))


#: For each claim, the evidence that contradicts it (the constructed results changed so).
CONTRADICTING = {
    "1": dict(pairs=pairs(**{"bpe1000/bpe8000": dict(d1=(3, 0.5), d10=(-3, 0.5))})),
    "2": dict(pairs=pairs(**{"bpe1000/bpe8000": dict(dT=(0.1, 0.1))})),
    "3": dict(pairs=pairs(**{"bpe8000/byte": dict(dT=(3, 0.5))})),
    "4": dict(pairs=pairs(**{"bpe1000/bpe8000": dict(dp=(-20, 5)), "bpe8000/byte": dict(dT=(3, 0.5))})),
    "5": dict(by_bin=by_bin(acc=(10, 30, 50), cov=(5, 10, 40))),
    "6": dict(concentration={n: (est(30), est(40)) for n in MODELS}),
    "7": dict(soft_gain={(n, 100): (est(-2), est(-1, pattern=1), est(4, pattern=1)) for n in MODELS}),
    "8a": dict(table2=table2(a=(40, 10), b=(45, 20))),
    "8b": dict(
        trip=triples(rare_split=(45, 50), common_split=(180, 200))[0],
        pool=triples(rare_split=(45, 50), common_split=(180, 200))[1],
    ),
    "9": dict(enc_diff=est(20, half=2)),
    "10": dict(coverage_ratio=ratio(110, 120, 130)),
    "11": dict(
        soft_gain={(n, 100): (est(2), est(1, pattern=1), est(0.1, half=0.1, pattern=1)) for n in MODELS}
    ),
    "12": dict(robust=robust(top10=(40, 55, 55), t10=(20, 30, 30))),
    "13": dict(size_rows=[{"model": "BPE-8k", "difference": est(-4, half=1)}]),
}


@pytest.mark.parametrize("claim", list(CONTRADICTING))
def test_every_claim_can_be_contradicted_by_evidence(claim):
    """Not only the cases' tests but the data: each claim comes out contradicted on evidence
    built against it."""
    assert set(CONTRADICTING) == set(NUMBERS)
    assert table(results(**CONTRADICTING[claim])).loc[claim, "verdict"] == "contradicted"


#: For each claim, evidence that leaves it open.
OPEN = {
    "1": dict(pairs=pairs(**{"bpe1000/bpe8000": dict(d1=(3, 0.5), d10=(0, 1))})),
    "2": dict(pairs=pairs(**{"bpe1000/bpe8000": dict(dT=(1.5, 0.5))})),
    "3": dict(pairs=pairs(**{"bpe8000/byte": dict(dT=(1.0, 0.5))})),
    "4": dict(pairs=pairs(**{"bpe1000/bpe8000": dict(dT=(0, 1))})),
    "5": dict(by_bin=by_bin(acc=(50, 30, 29.9))),
    "6": dict(concentration={n: (est(40.5), est(40)) for n in MODELS}),
    "7": dict(soft_gain={(n, 100): (est(0.1), est(1, pattern=1), est(4, pattern=1)) for n in MODELS}),
    "8a": dict(table2=table2(b=(30, 30))),
    "8b": dict(trip=triples(rare_split=(8, 10))[0], pool=triples(rare_split=(8, 10))[1]),
    "9": dict(enc_diff=est(10, half=8)),
    "10": dict(coverage_ratio=ratio(60, 98, 60)),
    "11": dict(soft_gain={(n, 100): (est(2), est(1, pattern=1), est(1.0, pattern=1)) for n in MODELS}),
    "12": dict(robust=robust(t10=(20, 24, 24))),
    "13": dict(size_rows=[{"model": "BPE-8k", "difference": est(0.5, half=1)}]),
}


@pytest.mark.parametrize("claim", list(OPEN))
def test_every_claim_can_stay_open(claim):
    assert table(results(**OPEN[claim])).loc[claim, "verdict"] == "inconclusive"


def test_every_claim_could_come_out_each_way():
    """Each claim's form and the tests of its cases reach reproduced, contradicted and
    inconclusive, with the number of cases it has."""
    df = table(results(size_rows=[{"model": "BPE-8k", "difference": est(4, half=1)}]))
    for number in NUMBERS:
        tests = list(cases_of(df, number)["test"])
        assert tests and LC.reachable(df.loc[number, "rule"], tests) >= LC.needed(df.loc[number, "rule"]), (
            number
        )


def test_the_measured_texts_report_the_counts():
    m = table()["measured"]
    assert m["1"].startswith(
        "1 of the 1 pairs without a byte- or character-level model ranked alike by both (1 of them "
        "tied by both within the margin), 0 reversed, 0 open; 2 pairs with byte not testable"
    )
    assert m["2"].startswith("of 3 pairs, 1 similar in top-1 and different in T1 (BPE-1k/BPE-8k), 2 not")
    assert m["2"].endswith("margin 20.0% of the pair's mean, intervals at 98.33% (Bonferroni over 3 pairs)")
    assert m["4"].startswith(
        "of 3 pairs (all scored on the same words), 1 with lower perplexity and "
        "lower T1 (BPE-1k/BPE-8k), 1 with lower perplexity and higher T1, 1 open"
    )
    assert m["5"] == "12 of 12 adjacent-bin drops beyond their intervals, 0 rises, 0 open"
    assert (
        m["6"]
        == f"share of the hits in {B0} against its 40 % of the words: BPE-1k 60 %; BPE-8k 60 %; byte 60 %"
    )
    assert m["7"].endswith("BPE-1k +2.00 / +1.00; BPE-8k +2.00 / +1.00; byte +2.00 / +1.00")
    assert m["8a"] == (
        "A 10/50 vs 40/50, Fisher p < 0.001; B 20/50 vs 40/50, Fisher p < 0.001; "
        "confounded with word-piece splitting (8b)"
    )
    assert m["8b"].startswith(
        "common minus rare split words (points) against 0.5 × 8a's gap × the split words' "
        "Zipf contrast over Table 2's (×; its interval widens the case's): A rare 1/10 vs common 18/20, "
        "80.0 [43.0, 94.3] vs 30 [20.8, 36.2] (×1.00);"
    )
    assert m["8b"].endswith("; B split no rare word or no common one: no case")
    assert m["9"] == "A − B 3.00 [−2.00, 8.00] points on 10 rare triples (margin ±15), McNemar p 0.5"
    assert m["10"].startswith("T1 / E₀[T1]: BPE-1k 60.0 [55.0, 65.0] %;")
    assert "(our best 40 / 10 / 5 %)" in m["10"] and m["10"].endswith("it prints no hit rates to test")
    assert m["11"] == (
        "raw T1 gain as a share of T1, the source's measure (its 11 and 14 % are raw): BPE-1k +40%; BPE-8k "
        "+80%; byte +80%; above chance (claim 7's measure, not counted): BPE-1k +10%; BPE-8k +20%; byte "
        "+20%; read as points of T1 (the source's '14 %' may be either), the gains are 4.0 points"
    )
    assert m["12"] == "Alg. 2 minus exact on the first 60 sentences: BPE-1k top-10 −1.0, T10 −0.8 points"
    assert m["13"] == "not run at this profile (size_compare is empty)"
    for claim, text in m.items():
        assert len(text) <= lmclaims.MAX_MEASURED, claim


def test_ties_at_a_floor_are_not_applicable_and_block_nothing():
    """A model without a hit in two adjacent bins: 0 against 0, not applicable (issue 41: it
    blocked claim 5 under "every case"); a rise out of an empty bin is a rise."""
    df = table(results(by_bin=by_bin(hits=(5, 0, 0))))
    assert evidence(df, "5") == ("reproduced", (6, 0, 0))  # the first drop of each model, both measures
    mine = cases_of(df, "5")
    na = mine[mine["decision"] == "not applicable"]
    assert len(na) == 6 and set(na["floor"]) == {0.0} and all("0 against 0" in w for w in na["why"])
    assert (
        "6 not applicable, no hit in either bin (BPE-1k [100,1000)→[10,100); BPE-8k"
        in df.loc["5", "measured"]
    )
    # a bin without a hit above one with hits: accuracy rises, whatever the higher bin's floor
    df = table(results(by_bin=by_bin(acc=(50, 0, 10), cov=(40, 0, 5), hits=(5, 0, 3))))
    assert evidence(df, "5")[1] == (6, 6, 0)
    # no soft hit at all, by the model or by chance: not applicable; the others decide
    gains = {
        (n, 100): (
            zero() if n == "byte" else est(2),
            zero() if n == "byte" else est(1, pattern=1),
            est(4, pattern=1),
        )
        for n in MODELS
    }
    assert evidence(table(results(soft_gain=gains)), "7") == ("reproduced", (4, 0, 0))


def test_a_zero_width_interval_is_not_resolved():
    """Resamples that do not vary bound nothing where there is no hit: the case is open, its
    interval (−∞, ∞); two searches that hit the same words on every resample agree exactly."""
    same = zero()
    rob = {
        "bpe1000": {
            "top-10": (est(40), est(41, pattern=1), est(41, pattern=1)),
            "T10": (same, same, same),
            "types": (5, 5, 5),
            "searched": 100,
            "gave up": 0,
        }
    }
    df = table(results(robust=rob))
    assert evidence(df, "12") == ("inconclusive", (1, 0, 1))
    t10 = cases_of(df, "12").iloc[1]
    assert (t10["low"], t10["high"]) == (-math.inf, math.inf) and "zero-width" in t10["why"]
    rob["bpe1000"]["T10"] = (est(20), est(20), est(20))  # the same hits, so the same replicates
    agree = cases_of(table(results(robust=rob)), "12").iloc[1]
    assert (agree["low"], agree["high"], agree["decision"]) == (0, 0, "for") and "agreement" in agree["why"]
    assert C.case("x", "within", 0.0, 0.0, 0.0, 1.0, why="w").decision == "open"
    assert C.case("x", "above", 0.0, 0.0, 0.0, 0.0, why="w", floor=0.0).decision == "not applicable"


def test_searches_that_give_up_are_counted_both_ways():
    """Give-ups that would each be a hit or a miss: the interval spans both, so a case that
    one way puts inside the margin and the other outside it is open, never decided by
    dropping them."""
    df = table(results(robust=robust(top10=(40, 36, 50), gave_up=2)))
    row = cases_of(df, "12").iloc[0]
    assert row["estimate"] == pytest.approx(-3.0)  # Alg. 2 minus the middle of 36 and 50
    alg2, miss, hit = robust(top10=(40, 36, 50))["bpe1000"]["top-10"]
    assert row["low"] == pytest.approx(stats.excess(alg2, hit).low)
    assert row["high"] == pytest.approx(stats.excess(alg2, miss).high)
    assert "counted as hits (low end) and as misses (high end)" in row["why"]
    assert df.loc["12", "measured"].endswith("; 2 searches gave up, counted both ways")
    assert evidence(df, "12") == ("inconclusive", (1, 0, 1))


def test_existential_claims_take_their_intervals_at_the_bonferroni_level():
    """A pair whose T1 difference lies beyond the margin at 95 % but not at 1 − 0.05/3 is open."""
    assert stats.bonferroni(0.05, 3) == pytest.approx(1 - 0.05 / 3)
    wide = pairs(**{"bpe1000/bpe8000": dict(dT=(2.6, 1.0))})  # 95 %: [1.6, 3.6] beyond 1.5
    df = table(results(pairs=wide))
    assert evidence(df, "2") == ("inconclusive", (0, 2, 1))
    case = cases_of(df, "2").iloc[0]
    z = stats.interval(0, PATTERNS[0], stats.bonferroni(0.05, 3)).high  # the corrected half-width per unit sd
    assert case["low"] == pytest.approx(min(1 - 0.6 / 4.05, (2.6 - z / stats.Z95) / 1.5 - 1))
    # one pair found is enough, whatever the others show
    assert evidence(table(), "4")[0] == "reproduced"


def test_the_closed_vocabularies_pairs_count_for_perplexity():
    seg = {"bpe1000": "bpe", "bpe8000": "word", "byte": "byte"}
    df = table(results(segmentation=seg))
    assert evidence(df, "4") == ("reproduced", (1, 1, 1))  # the word model's pair is the one found
    assert "BPE-1k/BPE-8k" in df.loc["4", "measured"]
    # whichever way they go, the closed vocabulary's pairs are set apart in the row
    assert df.loc["4", "measured"].endswith(
        "; closed vocabularies' perplexities (BPE-8k) are not comparable (chapter 03): without their "
        "pairs, 0 for, 1 against, 0 open of 1"
    )
    assert "closed vocabulary" not in table().loc["4", "measured"]


def test_claim_1_orders_and_ties():
    # top-1 orders the pair, top-10 the same way: for; top-10 the other way: against
    same = pairs(**{"bpe1000/bpe8000": dict(d1=(3, 0.5), d10=(2, 0.5))})
    assert evidence(table(results(pairs=same)), "1") == ("reproduced", (1, 0, 0))
    # top-1 ties the pair, top-10 separates it beyond the margin: against
    apart = pairs(**{"bpe1000/bpe8000": dict(d10=(20, 1))})
    assert evidence(table(results(pairs=apart)), "1") == ("contradicted", (0, 1, 0))
    # with no character-level model every pair is a case; the two others reverse
    df = table(results(segmentation={"bpe1000": "bpe", "bpe8000": "bpe", "byte": "word"}))
    assert evidence(df, "1") == ("differs", (1, 2, 0))
    assert "2 reversed (BPE-1k/byte, BPE-8k/byte)" in df.loc["1", "measured"]


def test_8b_is_against_when_split_rare_words_fail_no_more_than_the_margin():
    trip, pool = triples(rare_split=(45, 50), common_split=(180, 200))
    df = table(results(trip=trip, pool=pool))
    case = cases_of(df, "8b").iloc[0]
    assert case["decision"] == "against" and case["high"] < case["threshold"]
    assert case["estimate"] == pytest.approx(0.0)


def test_an_open_claim_9_says_how_many_triples_would_decide_it():
    """At 10 ± 8 points on 10 rare triples and a margin of 15, the interval must shrink to a
    half-width of 5: (8 / 5)² = 2.56 times the triples; past the margin no number does."""
    assert C.triples_needed(est(10, half=8), 10, 15) == pytest.approx(25.6)
    assert C.triples_needed(est(-16, half=8), 10, 15) is None
    trip, pool = triples()
    trip.attrs["candidates"] = {"rare": 316, "common": 3110}
    m = table(results(trip=trip, pool=pool, enc_diff=est(10, half=8))).loc["9", "measured"]
    assert m.endswith(
        "; showing the difference within ±15 points would take about 26 rare triples, and "
        "the training split offers 316"
    )
    m = table(results(enc_diff=est(16, half=8))).loc["9", "measured"]
    assert m.endswith("; at this difference no number of triples shows it within ±15 points")


def test_8b_is_decided_on_each_encoders_own_split_words_where_they_are_given():
    """The split pools replace Table 2's rare triples and the common pool: a larger sample of
    each encoder's rare and common split words decides the case (B splits no rare word of
    Table 2, so without its pool it has no case)."""
    split = pd.DataFrame(
        {
            "kind": ["rare"] * 300 + ["common"] * 300,
            "A": [True] * 270 + [False] * 30 + [True] * 270 + [False] * 30,
            "B": [True] * 60 + [False] * 240 + [True] * 270 + [False] * 30,
        }
    )
    df = table(results(split_pools={"A": split, "B": split}))
    cases = cases_of(df, "8b").set_index("name")
    assert list(cases["decision"]) == ["against", "for"]
    assert "rare 270/300 vs common 270/300" in df.loc["8b", "measured"]
    # the margin is half of each encoder's own gap in 8a (A: 60, B: 40 points), not a constant
    assert list(cases["threshold"]) == pytest.approx([30, 20])
    assert "vs 30" in df.loc["8b", "measured"] and "vs 20" in df.loc["8b", "measured"]


def test_8b_reaches_every_outcome_against_half_the_gap():
    """Within equal pieces, a remaining gap well above half of 8a's is for, one well below
    against, one straddling it open; an encoder with no gap in 8a has a margin of 0."""

    def split(rare_hits, n=400):
        return pd.DataFrame(
            {
                "kind": ["rare"] * n + ["common"] * n,
                "A": [True] * rare_hits + [False] * (n - rare_hits) + [True] * 360 + [False] * 40,
                "pieces": 2,
            }
        )

    gap = table2(a=(10, 40))  # 60 points: margin 30
    decide = {
        h: cases_of(table(results(split_pools={"A": split(h)}, table2=gap)), "8b").iloc[0]["decision"]
        for h in (100, 240, 330)
    }  # remaining gaps 65, 30 and 7.5 points
    assert decide == {100: "for", 240: "open", 330: "against"}
    no_gap = table(results(split_pools={"A": split(330)}, table2=table2(a=(40, 30))))
    assert cases_of(no_gap, "8b").empty and "A: no gap in 8a, no case" in no_gap.loc["8b", "measured"]


def test_8b_says_where_the_training_split_has_too_few_rare_words_to_decide_it():
    """An open case that needs more rare split words than the split offers: what would decide
    it says how many times those used the corpus holds (420 rare words against 400 used)."""
    split = pd.DataFrame(
        {
            "kind": ["rare"] * 400 + ["common"] * 400,
            "A": [True] * 250 + [False] * 150 + [True] * 360 + [False] * 40,
            "pieces": 2,
        }
    )

    def decide(offered):
        trip, pool = triples()
        trip.attrs["candidates"] = {"rare": offered, "common": 3110}
        df = table(results(split_pools={"A": split}, table2=table2(a=(10, 40)), trip=trip, pool=pool))
        case = LC.from_records(cases_of(df, "8b").to_dict("records"))[0]
        return case, LC.to_decide("every", [case])

    case, few = decide(420)
    need = LC.more_data(case)
    assert case.decision == "open" and case.room == pytest.approx(420 / 400) and need > case.room
    assert few.endswith("; the corpus holds only about 1.1× them")
    assert "holds only" not in decide(int(400 * need) + 1)[1]


def test_8b_counts_the_margins_own_uncertainty():
    """The margin is half of an estimate from 50 + 50 triples: its half-width widens the
    case's interval in quadrature, so that a difference that clears the point margin by less
    than the two uncertainties together stays open."""
    widened = C.with_margin(est(10, half=4), est(5, half=3))
    assert (widened.value, widened.low, widened.high) == pytest.approx((10, 5, 15))
    # an asymmetric margin: the low end takes its upper side, the high end its lower side
    lopsided = C.with_margin(stats.Estimate(10, 6, 14), stats.Estimate(5, 2, 9))
    assert (lopsided.low, lopsided.high) == pytest.approx((10 - math.hypot(4, 4), 15))

    def split(rare_hits, n=400):
        return pd.DataFrame(
            {
                "kind": ["rare"] * n + ["common"] * n,
                "pieces": 2,
                "A": [True] * rare_hits + [False] * (n - rare_hits) + [True] * 360 + [False] * 40,
            }
        )

    gap = table2(a=(10, 40))  # 60 [42, 72] points: a margin of 30 [20.8, 36.2]
    case = cases_of(table(results(split_pools={"A": split(210)}, table2=gap)), "8b").iloc[0]
    narrow = T2.stratified_difference([360], [400], [210], [400])  # 37.5 ± 5.7 points alone
    assert narrow.low > 30 and case["low"] < 30 < case["high"] and case["decision"] == "open"
    assert case["threshold"] == pytest.approx(30) and case["estimate"] == pytest.approx(37.5)
    # the end that decides takes the margin's side toward it: 7.5 points above a margin whose
    # upper side is 6.2 can be decided by more split words; 5 points below one whose lower
    # side is 9.2 cannot, and the row says so
    assert "cannot decide" not in case["why"]
    stuck = table(results(split_pools={"A": split(260)}, table2=gap))
    assert "more split words cannot decide the case" in cases_of(stuck, "8b").iloc[0]["why"]
    assert "its margin's interval reaching past it" in stuck.loc["8b", "measured"]
    clear = cases_of(table(results(split_pools={"A": split(300)}, table2=gap)), "8b").iloc[0]
    assert "cannot decide" not in clear["why"]


def test_8b_scales_the_margin_to_the_split_words_frequency_contrast():
    """Split common words are rarer than Table 2's: frequency alone predicts a smaller gap
    among them, so the margin shrinks by the ratio of the two Zipf contrasts."""
    trip, pool = triples()
    trip = trip.assign(zipf=np.where(trip["kind"] == "rare", 2.0, 4.0))  # a contrast of 2
    split = pd.DataFrame(
        {
            "kind": ["rare"] * 400 + ["common"] * 400,
            "A": [True] * 200 + [False] * 200 + [True] * 250 + [False] * 150,
            "zipf": [2.0] * 400 + [3.0] * 400,
            "pieces": 2,
        }
    )
    df = table(results(trip=trip, pool=pool, split_pools={"A": split}, table2=table2(a=(10, 40))))
    case = cases_of(df, "8b").iloc[0]
    assert case["threshold"] == pytest.approx(0.5 * 60 * 0.5)  # half the gap, at half the contrast
    assert case["estimate"] == pytest.approx(12.5) and "(×0.50)" in df.loc["8b", "measured"]


def test_claim_10_reads_low_as_below_the_type_blind_coverage():
    """Each model is a case: covering fewer types than hits blind to the type would (below
    100 %) is for, more is against, one model above is a counterexample."""
    df = table(results(coverage_ratio=ratio(60, 110, 130)))
    assert evidence(df, "10") == ("differs", (1, 2, 0))
    assert list(cases_of(df, "10")["name"]) == [label(n) for n in MODELS]
    assert set(cases_of(df, "10")["unit"]) == {"test articles"}


def test_claim_11_reads_the_raw_gain_as_a_share_of_t1():
    case = C.more_types_case("m", est(2.0, pattern=1), est(10.0), 0.10)
    assert case.estimate == pytest.approx(1.0) and case.decision == "for"
    assert C.more_types_case("m", est(0.5, 0.1, pattern=1), est(10.0, 0.1), 0.10).decision == "against"
    assert C.more_types_case("m", zero(), zero(), 0.10).decision == "not applicable"


def test_the_source_passes_its_own_claims():
    """Issue 41, item 4: the paper's own printed numbers (each interval its printed precision)
    under the chapter's forms and case builders reproduce each claim they rest on; where they
    cannot (claim 10: it prints no hit rates per bin), the row says so."""
    margin = WS.reading_margin(PT.paper_readings(PT.paper_table1()))[0]
    rules = dataclasses.replace(RULES, margin=margin)
    found = C.source_cases(rules)
    assert set(found) == {"1", "2", "3", "4", "8a", "9", "11"}
    assert "it prints no hit rates to test" in table(rules=rules).loc["10", "measured"]
    for number, (form, cases) in found.items():
        assert form == FORMS[number], number
        verdict = LC.verdict(form, *LC.counts(cases))
        assert verdict == "reproduced", (number, [(c.name, c.decision) for c in cases])
    # claim 4 on the paper's Table 1: one pair found (GPT's lower ppx with its lower T1), five against
    assert LC.counts(found["4"][1]) == (1, 5, 0)
    assert [c.name for c in found["2"][1] if c.decision == "for"] == ["GPT/RoBERTa"]
    assert [c.name for c in found["3"][1] if c.decision == "for"] == ["GPT-2/RoBERTa", "GPT/BERT"]
    check = C.source_check(rules)
    assert list(check["claim"]) == list(found) and set(check["verdict"]) == {"reproduced"}


def test_printed_numbers_carry_their_precision():
    p = stats.printed(29.37, 2)
    assert (p.low, p.high) == pytest.approx((29.365, 29.375)) and p.replicates is None
    d = stats.difference(p, stats.printed(28.18, 2))
    assert (d.low, d.high) == pytest.approx((1.18, 1.20))
    assert C.at_level(p, 0.99) is p


def test_glued_values_and_thresholds():
    values = sections.values(C.SECTIONS, results(by_bin=by_bin(hits=(5, 0, 0))), RULES)
    assert values["n_pairs"] == 3 and values["bonferroni_pct"] == "98.33" and values["family_pct"] == "5"
    assert values["n_floor"] == 6 and values["n_tied"] == 1 and values["n_gave_up"] == 0
    assert (
        values["soft_share_pct"] == "10"
        and values["equal_points"] == "15"
        and values["explained_pct"] == "50"
    )
    assert values["source_passes"] == "1, 2, 3, 4, 8a, 9 and 11"
    assert [k.split(" = ")[0] for k in C.thresholds(RULES)] == [
        "margin",
        "equal_points",
        "explained_share",
        "alpha",
        "soft_share",
    ]


def test_a_size_comparison_is_measured_where_it_ran():
    df = table(results(size_rows=[{"model": "BPE-8k", "difference": est(4, half=1)}]))
    assert evidence(df, "13") == ("reproduced", (1, 0, 0))
    assert df.loc["13", "basis"] == "measured"
    assert df.loc["13", "measured"] == "BPE-8k: larger minus smaller T1/E₀[T1] 4.00 [3.00, 5.00]"


def test_the_hits_concentration_is_a_ratio_of_cluster_sums():
    t = pd.DataFrame(
        {
            "hit1": [True, True, False, True, False, False],
            "bin": [B0, B1, B0, B0, B2, B0],
            "article": [0, 0, 1, 1, 2, 2],
        }
    )
    res = WS.Resampler(t["article"], 50, 0)
    hits, positions = WS.hit_concentration(res, t)
    assert hits.value == pytest.approx(100 * 2 / 3) and positions.value == pytest.approx(100 * 4 / 6)


def test_the_bonferroni_interval_keeps_the_small_cluster_reference():
    """An estimate over 10 articles keeps Student's t at the corrected level."""
    e = stats.interval(1.0, PATTERNS[0], clusters=10)
    wide = C.at_level(e, stats.bonferroni(0.05, 15))
    assert wide.high - wide.value == pytest.approx(stats.quantile(stats.bonferroni(0.05, 15), 10))
    assert wide.high - wide.value > stats.quantile(stats.bonferroni(0.05, 15))


def test_8b_holds_the_number_of_pieces_fixed_where_it_is_known():
    """Rare words cut into more pieces, and more pieces failing more, make a raw rarity
    effect that vanishes within words of as many pieces: decided on the raw difference the
    claim would hold; within pieces it does not."""

    def words(with_pieces):
        rows = (
            [("rare", 2, True)] * 45
            + [("rare", 2, False)] * 5
            + [("rare", 4, True)] * 60
            + [("rare", 4, False)] * 140
            + [("common", 2, True)] * 180
            + [("common", 2, False)] * 20
            + [("common", 4, True)] * 15
            + [("common", 4, False)] * 35
        )
        df = pd.DataFrame(rows, columns=["kind", "pieces", "A"])
        return df if with_pieces else df.drop(columns="pieces")

    gap = table2(a=(25, 45))  # A's rare–common gap on Table 2's triples: 40 points, margin 20
    raw = cases_of(table(results(split_pools={"A": words(False)}, table2=gap)), "8b").iloc[0]
    within = cases_of(table(results(split_pools={"A": words(True)}, table2=gap)), "8b").iloc[0]
    assert raw["decision"] == "for" and raw["estimate"] == pytest.approx(100 * (195 / 250 - 105 / 250))
    assert within["decision"] == "against" and abs(within["estimate"]) < 2
    assert "within words cut into as many pieces" in within["why"]
    # no stratum holds both kinds: the raw difference decides
    apart = words(True).assign(pieces=lambda d: np.where(d["kind"] == "rare", 4, 2))
    alone = cases_of(table(results(split_pools={"A": apart}, table2=gap)), "8b").iloc[0]
    assert "Newcombe" in alone["why"] and alone["estimate"] == pytest.approx(raw["estimate"])


def test_the_stratified_difference_is_the_mantel_haenszel_one_with_satos_variance():
    # one stratum: the difference and the unpooled Wald interval
    e = T2.stratified_difference([60], [100], [40], [100])
    assert e.value == pytest.approx(20.0)
    assert e.high - e.value == pytest.approx(100 * 1.959964 * np.sqrt(0.6 * 0.4 / 100 * 2), rel=1e-6)
    # two strata: the weighted mean of their differences, weights n_a n_b / (n_a + n_b);
    # a stratum without one of the groups carries no weight
    e2 = T2.stratified_difference([60, 10, 5], [100, 20, 10], [40, 5, 0], [100, 50, 0])
    w = np.array([50, 20 * 50 / 70])
    assert e2.value == pytest.approx(100 * (w @ [0.2, 0.5 - 0.1]) / w.sum())
    with pytest.raises(ValueError, match="both groups"):
        T2.stratified_difference([1], [2], [0], [0])


def test_a_pair_counts_for_claims_2_to_4_only_where_every_training_run_of_the_family_shows_it():
    """Issue 60, item 11: each pair's case is the hull of its cases at every seed of the family
    (Case.across): a second run that shows it too keeps it for, one that does not opens it."""
    base = C.claims(results(), RULES).set_index("claim")
    same = C.claims(results(seeds={1: (table1(), pairs())}), RULES).set_index("claim")
    for number in ("2", "3", "4"):
        row = next(r for c, r in base.iterrows() if c.startswith(f"{number}."))
        again = next(r for c, r in same.iterrows() if c.startswith(f"{number}."))
        assert (row.verdict, row.n_for) == (again.verdict, again.n_for) and row.verdict == "reproduced", (
            number
        )
        assert "each pair over 2 training runs of the family" in again.measured
    # claim 4's pair at the second seed: the lower perplexity now goes with the higher T1
    flipped = pairs(**{"bpe1000/bpe8000": dict(dp=(-20, 5), dT=(-3, 0.5)), "bpe8000/byte": dict(dT=(3, 0.5))})
    four = {"pairs": pairs(**{"bpe1000/bpe8000": dict(dp=(-20, 5)), "bpe8000/byte": dict(dT=(3, 0.5))})}
    one = C.claims(results(**four), RULES).set_index("claim")
    two = C.claims(results(**four, seeds={1: (table1(), flipped)}), RULES).set_index("claim")
    r1 = next(r for c, r in one.iterrows() if c.startswith("4."))
    r2 = next(r for c, r in two.iterrows() if c.startswith("4."))
    assert r2.n_for < r1.n_for or r2.verdict != r1.verdict
    cases = two.attrs["cases"]
    mine = cases[(cases["claim"] == "4") & cases["why"].str.contains("hull over 2 training runs")]
    assert len(mine) == len(pairs())
