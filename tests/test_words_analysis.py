"""The word-level chapter's analysis moved out of its notebook: short names, the soft-match
gains, the paraphrase statistics (Table 2), the authors' code on our predictions, calibration
by frequency bin and the diversity-against-tokenization comparison, on constructed inputs."""

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats as ss

from lmnotes import stats
from lmnotes.studies.words import authors as AC
from lmnotes.studies.words import calgaps as CG
from lmnotes.studies.words import diversity as DV
from lmnotes.studies.words import paraphrase as P
from lmnotes.studies.words import softgain as SG
from lmnotes.studies.words import table2 as T2
from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label, named, names, signed

B0, B1, B2 = WS.PAPER_BINS


def est(value, half=0.5, reps=None):
    return stats.Estimate(
        value, value - half, value + half, value + np.array([-0.1, 0.0, 0.1]) if reps is None else reps
    )


def test_short_names_and_signed_numbers():
    assert label("bpe8000") == "BPE-8k" and label("bpe1000") == "BPE-1k"
    assert label("wiki/kn3-word") == "KN trigram"
    assert names(["bpe4000", "byte"]) == "BPE-4k, byte" and names([]) == "no member"
    assert signed(-0.5, 1) == "−0.5" and signed(0.25, 2) == "+0.25"
    assert list(named(pd.DataFrame({"model": ["bpe8000"]}))["model"]) == ["BPE-8k"]
    assert list(named(pd.DataFrame({"x": [1]}, index=["bpe1000"])).index) == ["BPE-1k"]


def test_rounded_removes_float_noise_and_keeps_the_replicates():
    reps = np.array([1.0, 2.0])
    e = SG.rounded(stats.Estimate(0.1 + 0.2 - 0.3, -1e-17, 2.0000000000001, reps))
    assert (e.value, e.low, e.high) == (0.0, 0.0, 2.0) and e.replicates is reps
    assert str(e.low) == "0.0"  # not −0.0


class Ranks:
    """Neighbour ranks from a table: the rank of a prediction among a target's neighbours."""

    def __init__(self, table):
        self.table = table

    def rank(self, preds, words):
        return np.array([self.table.get((p, w), 10**6) for p, w in zip(preds, words)])


def test_soft_match_counts_near_misses_above_chance():
    # four articles, one miss each whose prediction is the target's first neighbour
    t = pd.DataFrame(
        {
            "word": ["a", "b", "c", "d", "a", "b"],
            "pred": ["a", "x", "c", "y", "a", "z"],
            "hit1": [True, False, True, False, True, False],
            "bin": [B0] * 6,
            "article": [0, 1, 2, 3, 0, 1],
        }
    )
    nn = Ranks({("x", "b"): 1, ("y", "d"): 1, ("z", "b"): 1})
    res = WS.Resampler(t["article"], 200, 0)
    rows, gains = SG.soft_match(
        t, nn, lambda preds, words: np.zeros(len(list(words)), bool), res, [1], 3, np.random.default_rng(0)
    )
    assert [r["k"] for r in rows] == ["1", "WordNet"]
    assert rows[0]["soft top-1"] == pytest.approx(100.0)  # every miss is a first neighbour
    assert rows[1]["soft top-1"] == pytest.approx(50.0) and rows[1]["chance"] == pytest.approx(50.0)
    # the chance baseline shuffles the misses' predictions within the bin: x, y, z stay among
    # themselves, and only x and z are neighbours of b
    assert 0 <= gains[1][0].value <= 50
    assert gains["WordNet"][0].value == 0 and gains["WordNet"][1].value == 0
    # the raw T1 gain, the paper's measure: every miss is a neighbour, so every type is hit
    # (b and d, missed, join a and c): T1 goes from 50 % to 100 %
    assert gains[1][2].value == pytest.approx(50.0) and rows[0]["T1 gain"].value == pytest.approx(50.0)
    assert gains["WordNet"][2].value == 0


def test_table2_recomputes_the_papers_tests():
    row = T2.table2_stats(14, 40, 50, 50)
    tab = [[14, 36], [40, 10]]
    assert row["Fisher p"] == pytest.approx(ss.fisher_exact(tab).pvalue)
    assert row["χ²"] > row["χ² (Yates)"] and row["p"] < 0.001
    trip = pd.DataFrame({"kind": ["rare", "rare", "common", "common"], "A": [True, False, True, True]})
    t2 = T2.table2(trip, ["A"], 2)
    assert list(t2["source"]) == ["paper", "paper", "ours"]
    assert t2.iloc[-1][["rare hits", "common hits"]].tolist() == [1, 2]


def test_encoder_difference_is_mcnemar_and_a_paired_interval():
    a = np.array([True] * 6 + [False] * 4)
    b = np.array([True] * 2 + [False] * 4 + [True] * 1 + [False] * 3)
    b01, b10, p, d = T2.encoder_difference(a, b)
    assert (b01, b10) == (4, 1)
    assert p == pytest.approx(ss.binomtest(4, 5).pvalue)
    assert d.value == pytest.approx(30.0)
    se = 100 * np.sqrt(5 - 9 / 10) / 10
    assert d.high - d.value == pytest.approx(ss.norm.ppf(0.975) * se)
    assert T2.encoder_difference(a, a)[2] == 1.0  # no discordant pair


def test_split_tables_count_hits_by_split_and_whole_words():
    pool = pd.DataFrame(
        {
            "kind": ["common"] * 6,
            "A": [True, True, False, True, True, True],
            "A split": [True, True, True, False, False, False],
        }
    )
    df = T2.split_table(["A"], {"pool": pool})
    assert df[["x is", "hits", "n"]].values.tolist() == [["split", 2, 3], ["whole", 3, 3]]
    own = pd.DataFrame({"kind": ["rare", "common"], "A": [False, True], "A split": True})
    df = T2.split_table(["A"], {"pool": pool}, {"A": own, "B": own})
    assert df["set"].tolist() == ["pool", "pool", "its split words", "its split words"]
    assert df.iloc[2:][["kind", "hits", "n"]].values.tolist() == [["rare", 0, 1], ["common", 1, 1]]
    p = T2.split_fisher(pool, ["A"])["A"]
    assert p == pytest.approx(ss.fisher_exact([[2, 1], [3, 0]]).pvalue)
    assert T2.split_fisher(pool.assign(**{"A split": True}), ["A"]) == {}
    text = T2.split_sentence(pool.assign(kind="rare"), ["A"], {"A": p}, 6)
    assert text.endswith("confounded with it.")
    own = pd.DataFrame({"kind": ["rare", "rare", "common"], "A": [True, False, True], "pieces": [3, 4, 2]})
    more = T2.split_sentence(pool.assign(kind="rare"), ["A"], {"A": p}, 6, {"A": own})
    assert (
        "Among the words each encoder splits (claim 8b), A hits 1 of 2 rare and 1 of 1 common ones, "
        "cut into 3.50 and 2.00 pieces on average."
    ) in more
    assert text.startswith("A splits 3 of the 6 rare words and 0 of the 6 common ones; among the pool's")


def test_ppx_floor_of_the_last_commits_formula():
    paper = pd.DataFrame(
        {"top-1": [30.0, 20.0], "top-10": [60.0, 50.0], "ppx": [35.0, 60.0]}, index=["GPT", "BERT"]
    )
    check = AC.ppx_floor(paper)
    assert check["printed − floor"].tolist() == [-5.0, 10.0]
    assert np.isnan(check.loc["GPT", AC.BERT_FLOOR]) and check.loc["BERT", AC.BERT_FLOOR] == 80.0
    text = AC.ppx_floor_sentence(check)
    assert text.startswith("GPT's printed ppx lies below the floor")
    assert "BERT's printed ppx lies 20.0 points below the floor of the BERT code" in text


def predictions():
    return pd.DataFrame(
        {
            "word": ["the", "the", "cat", "ox", "yak", "gnu"],
            "bin": [B0, B0, B1, B2, "[1,10)", "[1,10)"],
            "hit1": [True, False, True, False, True, False],
            "hit1_alg1": [True, True, True, False, True, False],
            "hit10_dfs": [True, True, True, False, True, True],
            "hit10_exact": [1.0, 0.0, np.nan, np.nan, np.nan, np.nan],
            "conf": np.log([0.5, 0.5, 0.25, 0.1, 0.2, 0.2]),
            "logp": np.log([0.5, 0.1, 0.25, np.nan, 0.2, 0.05]),
            "article": [0, 0, 1, 1, 2, 2],
        }
    )


def test_the_codes_t1_and_ppx():
    t = predictions()
    # types hit in the upper bins and [1,10) (the, cat, yak) over the paper's three bins' types
    assert AC.code_t1(t, WS.PAPER_BINS, "[1,10)") == pytest.approx(100 * 3 / 3)
    assert AC.code_t1(t, WS.PAPER_BINS[:2], "[10,100)") == pytest.approx(100 * 2 / 2)
    row = AC.code_row(t, 12.5)
    assert row["top-1"] == pytest.approx(50.0) and row["Alg. 1"] == pytest.approx(400 / 6)
    assert row["exact top-10"] == pytest.approx(50.0) and row["Alg. 2 on the same"] == pytest.approx(100.0)
    assert row["ppx, first"] == pytest.approx((0.5 + 0.25 + 0.2) / 6)
    # hits' −ln p(ŵ), top-10-only hits' −ln p(w), 100 per top-10 miss
    last = (-np.log([0.5, 0.25, 0.2]).sum() - np.log([0.1, 0.05]).sum() + 100) / 6
    assert row["ppx, last"] == pytest.approx(last)
    assert AC.code_row(t.assign(hit10_exact=np.nan), 1.0)["exact top-10"] == "—"


def test_byte_rank_and_robustness():
    bugs = pd.DataFrame(
        {"Alg. 2 top-10": [60.0, 40.0, 50.0], "top-1": [20.0, 30.0, 10.0]},
        index=["byte", "bpe1000", "bpe8000"],
    )
    assert AC.byte_note(bugs) == "Our byte model ranks 1 of 3 on Alg. 2 top-10 and 2 of 3 on top-1."
    assert AC.byte_note(bugs.drop(index="byte")) == ""
    res = WS.Resampler([0, 1, 2], 50, 0)
    t = predictions().assign(sentence=[0, 0, 1, 1, 2, 2])
    r = AC.robust(t, res, [0])
    assert r["top-10"][0].value == pytest.approx(100.0) and r["top-10"][1].value == pytest.approx(50.0)
    assert r["types"] == (1, 1, 1) and (r["searched"], r["gave up"]) == (2, 0)
    assert AC.robust(t.assign(hit10_exact=np.nan), res, [0]) is None
    text = AC.robust_sentence({"bpe8000": r}, 60)
    assert text.startswith("BPE-8k's Algorithm 2 finds 1 T10 types where the exact top-10 finds 1")
    assert "gave up" not in text
    assert AC.robust_sentence({}, 60) == "No model was searched exactly in this run."
    # a search that gave up is counted, as a miss and as a hit, never dropped
    r = AC.robust(t, res, [0, 1])
    assert (r["searched"], r["gave up"]) == (4, 2)
    assert [e.value for e in r["top-10"]] == pytest.approx([75.0, 25.0, 75.0])
    assert r["types"] == (2, 1, 3)
    assert (
        "(the exact search gave up on 2 of BPE-8k's 4 targets; a range counts each as a miss, then as a hit)"
        in AC.robust_sentence({"bpe8000": r}, 60)
    )
    assert "T10 66.7 % against 33.3–100.0 %" in AC.robust_sentence({"bpe8000": r}, 60)


def test_calibration_gaps_by_bin():
    t = predictions().assign(pred_bin=[B0, B0, B0, B1, B0, B2])
    res = WS.Resampler(t["article"], 50, 0)
    g = CG.bin_gaps(res, t)
    # the most frequent target bin: confidences 0.5, 0.5 against one hit of two
    assert g["target"][B0].value == pytest.approx(0.0)
    assert g["prediction"][B1].value == pytest.approx(10.0)  # confidence 0.1, a miss
    table = CG.gap_table({("m", "target"): g["target"], ("m", "prediction"): g["prediction"]}, "target")
    assert list(table.columns) == WS.PAPER_BINS and list(table.index) == ["m"]
    # over- and underconfidence weighted by the bins' shares: the smaller of the two
    gaps = {B0: est(4.0), B1: est(-10.0), B2: est(0.1, half=1)}
    share = pd.Series({B0: 0.5, B1: 0.2, B2: 0.3})
    assert CG.cancelled(gaps, share) == pytest.approx(2.0)


def test_lower_higher_and_the_budget_table():
    div = {
        ("equal tokens", "a"): {"T1 / E₀[T1]": est(50)},
        ("equal tokens", "b"): {"T1 / E₀[T1]": est(40)},
        ("equal tokens", "bpe8000"): {"T1 / E₀[T1]": est(45)},
    }
    lo, hi, d = DV.lower_higher(div, ["a", "b", "bpe8000"], "equal tokens", "bpe8000")
    assert lo == ["b"] and hi == ["a"] and d["a"].value == pytest.approx(5.0)
    spent = {("equal tokens", "a"): {"epochs": 0.25, "steps": 400, "valid loss, best": 3.2}}
    tok = DV.budget_table(div, spent, "bpe8000")
    assert tok.loc[("equal tokens", "a"), "epochs"] == 0.25
    assert np.isnan(tok.loc[("equal tokens", "b"), "epochs"])
    assert tok.loc[("equal tokens", "BPE-8k"), "ratio − BPE-8k"] == "—"
    assert DV.epochs_text(spent, "a") == "0.25" and DV.epochs_text(spent, "b") == "—"


def test_each_encoder_gets_the_candidates_it_splits():
    import torch

    def embed(sentences):  # a word's states: its letters counted, so similar words match
        return [
            torch.tensor([[w.count(c) + 0.1 for c in "aeiou"] for w in t.split()], dtype=torch.float32)
            for t in sentences
        ]

    cands = pd.DataFrame(
        {
            "kind": ["rare", "rare", "common", "common", "common"],
            "x": ["poodle", "beagle", "dog", "cat", "horse"],
            "x_h": ["dog", "dog", "animal", "animal", "animal"],
            "x_a": ["cat", "cat", "plant", "plant", "plant"],
            "s_x": ["a poodle ran", "a beagle ran", "a dog ran", "a cat ran", "a horse ran"],
        }
    )
    identify = lambda df: P.identified(embed, df)  # noqa: E731
    pools = T2.split_pools(
        cands,
        {"A": identify, "B": identify},
        {"A": lambda ws: [1 + (len(w) > 3) for w in ws], "B": lambda ws: [2] * len(ws)},
        1,
        0,
    )
    assert sorted(pools["A"]["x"]) == ["horse", "poodle"] or sorted(pools["A"]["x"]) == ["beagle", "horse"]
    assert list(pools["A"]["kind"]) == ["rare", "common"] and pools["A"]["A split"].all()
    assert len(pools["B"]) == 2 and pools["B"]["B"].dtype == bool
    assert set(pools["B"]["s_h"]) >= {s.replace(x, h) for s, x, h in pools["B"][["s_x", "x", "x_h"]].values}


def test_an_encoders_hits_are_kept_per_encoder_and_triples(tmp_path, monkeypatch):
    from lmnotes.studies.words.cached import identifier

    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))
    calls = []

    def embed(sentences):  # one state per word: its length, so "longer" words match
        calls.append(len(sentences))
        return [torch.tensor([[float(len(w))] for w in t.split()]) for t in sentences]

    trip = pd.DataFrame(
        {
            "s_h": ["a dog ran", "a bird sang"],
            "s_x": ["a poodle ran", "a wren sang"],
            "s_a": ["a cat ran", "a fish sang"],
        }
    )
    identify = identifier(embed, "pytest")  # an installed package names the encoder
    first = identify(trip)
    assert np.array_equal(first, P.identified(embed, trip)) and first.dtype == bool
    n = len(calls)
    assert np.array_equal(identify(trip), first) and len(calls) == n  # read back, not computed
    identify(trip.iloc[:1])  # other triples: computed
    assert len(calls) > n
    m = len(calls)
    identifier(embed, "pip")(trip)  # another encoder: computed too
    assert len(calls) > m
    with pytest.raises(ValueError, match="cache key"):
        identifier(embed, type("LM", (), {"name": "m", "cache_key": None})())


def test_the_tokenization_reading_says_what_it_could_have_detected():
    e = stats.Estimate
    assert DV.detectable({"a": e(1, -2, 4), "b": e(-1, -6, 3), "c": e(9, 8, 10)}) == (6, 4)
    assert DV.detectable({"c": e(9, 8, 10)}) is None
    div = {
        ("equal tokens", n): {DV.RATIO: est(v, reps=np.array(r))}
        for n, v, r in (
            ("a", 30, [29.0, 30.0, 31.0]),
            ("b", 31, [20.0, 31.0, 42.0]),
            ("bpe8000", 30, [30.0, 30.0, 30.0]),
        )
    }
    spent = {
        ("equal tokens", "a"): {"valid bits per byte": 2.634},
        ("equal tokens", "b"): {"valid bits per byte": np.nan},  # a closed vocabulary
        ("equal tokens", "bpe8000"): {"valid bits per byte": 2.2},
    }
    null_df = pd.DataFrame({"model": ["x"], DV.RATIO: [est(50)]})
    text = DV.tok_sentence(div, {"equal tokens": ["a", "b", "bpe8000"]}, "bpe8000", {}, {}, null_df, spent)
    least = DV.detectable(DV.lower_higher(div, ["a", "b", "bpe8000"], "equal tokens", "bpe8000")[2])
    assert least[0] > 10  # b's differences spread widely
    assert (
        f"lie within ±{least[0]:.1f} points, the narrowest within ±{least[1]:.1f}; validation "
        "bits per byte of the open vocabularies 2.20 to 2.63)"
    ) in text
    assert DV.quality_range({}, "equal tokens") == "not recorded"


def test_the_budgets_are_named_matched_and_read_from_their_training():
    """The family's budgets (word-level chapter): the registered budget named by what
    training did, the equal-quality target (the worst open member's best bits per byte),
    how far each budget was from convergence, wall times, and a credit that needs every
    budget, which a closed vocabulary cannot reach."""
    row = lambda early, falling=True, bits=np.nan: {
        "stopped early": early,
        "valid falling at the end": falling,
        "valid bits per byte": bits,
    }
    assert DV.tokens_budget({"a": row(False), "b": row(False)}) == "equal tokens"
    assert DV.tokens_budget({"a": row(True), "b": row(True)}) == "early-stopped"
    assert DV.tokens_budget({"a": row(True), "b": row(False)}) == "equal tokens, some stopped early"
    spent = {
        ("E", "byte"): row(False, True, 2.63),
        ("E", "bpe8000"): row(False, False, 2.41),
        ("E", "word"): row(True, False),
        ("T", "byte"): row(False, True, 3.2),
    }
    assert DV.matched_target(spent, ["E"]) == (2.63, "byte", "E")
    assert DV.matched_target({("E", "word"): row(False)}, ["E"]) is None
    # each member's best over its runs: byte's one-pass run beats its registered one, and
    # BPE-8k's registered run (T) is its only one
    spent_t = {
        ("T", "byte"): row(False, True, 3.2),
        ("T", "bpe8000"): row(False, False, 2.34),
        ("E", "byte"): row(False, True, 2.63),
    }
    assert DV.matched_target(spent_t, ["T", "E"]) == (2.63, "byte", "E")
    assert DV.matched_target(spent_t, ["T"]) == (3.2, "byte", "T")
    epochs = {
        ("T", "byte"): {"epochs": 0.41},
        ("T", "bpe1000"): {"epochs": 1.02},
        ("E", "word"): {"epochs": 0.5},
    }
    assert DV.passes_short(epochs, "T", 1) == ["byte"] and DV.passes_short(epochs, "T", 2) == [
        "byte",
        "bpe1000",
    ]
    assert "(byte) are trained again for 1 pass" in DV.epochs_sentence(["byte"], 1, False)
    assert "no view compares the whole family at equal epochs" in DV.epochs_sentence(["byte"], 1, False)
    assert "*equal epochs*" in DV.epochs_sentence(["byte", "word"], 1, True)
    assert "none is trained again" in DV.epochs_sentence([], 1, False)
    assert "no member again" in DV.epochs_sentence([], 0, False)
    assert DV.convergence_note(spent, ["E"]) == (
        "At E, the validation loss of 1 of the 3 members (byte) still fell at the last "
        "evaluation, and word stopped early."
    )
    text = DV.matched_sentence((2.63, "byte", "equal epochs (1)"), "equal bpb (2.63)", 20)
    assert (
        "2.63 on the validation split, the best that byte reaches (in its run of 1 pass, kept whole" in text
    )
    assert "no equal-quality view" in DV.matched_sentence(None, None, 20)
    lm = type("M", (), {"train_seconds": 90.0})()
    text = DV.wall_sentence({("E", "byte"): lm, ("Q", "byte"): lm, ("Q", "word"): object()})
    assert text.endswith("whole one): at E, byte 1.5 min of training.")
    # b is lower than the reference at two budgets; at the third, where the closed word
    # member is absent, it is not resolved: nothing is credited, and word cannot be
    div = {}
    for kind, b_low in (("T", True), ("E", True), ("Q", False)):
        div[kind, "b"] = {
            DV.RATIO: est(
                20.0 if b_low else 30.0,
                reps=np.array([19.0, 20.0, 21.0]) if b_low else np.array([20.0, 30.0, 40.0]),
            )
        }
        div[kind, "bpe8000"] = {DV.RATIO: est(30.0, reps=np.array([30.0, 30.0, 30.0]))}
        if kind != "Q":
            div[kind, "word"] = {DV.RATIO: est(30.0, reps=np.array([25.0, 30.0, 35.0]))}
    null_df = pd.DataFrame({"model": ["x"], DV.RATIO: [est(50)]})
    members = {"T": ["b", "word", "bpe8000"], "E": ["b", "word", "bpe8000"], "Q": ["b", "bpe8000"]}
    text = DV.tok_sentence(div, members, "bpe8000", {}, {}, null_df)
    assert "No difference is resolved in the same direction at every budget" in text
    # lower at two budgets and higher at the third: resolved at every budget, but the order
    # turns, and it is not credited either
    div["Q", "b"] = {DV.RATIO: est(40.0, reps=np.array([39.0, 40.0, 41.0]))}
    turned = DV.tok_sentence(div, members, "bpe8000", {}, {}, null_df)
    assert "the differences of b, resolved at every budget but in opposite directions" in turned
    assert "resolved at some budgets only" not in turned
    div["Q", "b"] = {DV.RATIO: est(30.0, reps=np.array([20.0, 30.0, 40.0]))}
    assert "the differences of b, resolved at some budgets only, cannot be credited" in text
    assert "word cannot be compared at equal quality" in text
    both = DV.tok_sentence(div, {"T": members["T"], "E": members["E"]}, "bpe8000", {}, {}, null_df)
    assert "Only the difference of b is resolved at both budgets" in both
    div["Q", "b"] = div["T", "b"]
    every = DV.tok_sentence(div, members, "bpe8000", {}, {}, null_df)
    assert "Only the difference of b is resolved at every budget" in every
    stop = {"steps": 80, "steps planned": 80, "learning rate at stop": 0.0, "Σ learning rate": 41.2}
    short = DV.matched_sentence(
        (2.63, "byte", "E"),
        "Q",
        10,
        {
            ("Q", "bpe1000"): row(False, True, 2.70) | stop,
            ("Q", "bpe4000"): row(False, True, 2.632) | stop,
            ("Q", "bpe8000"): row(False, True, 2.60) | stop | {"steps": 40, "Σ learning rate": 20.4},
        },
        ["word"],
        probes={"bpe4000": 120, "bpe8000": 70},
    )
    assert "whose cosine decay reaches 0 at its end" in short and "on a grid of 10 updates" in short
    assert (
        "BPE-4k 80 updates (annealed to 0, summed learning rate 41; its probe reached the level at update "
        "120); BPE-8k 40 updates (annealed to 0, summed learning rate 20; its probe reached the level at "
        "update 70)"
    ) in short
    assert (
        "; BPE-1k never came down to it, and keeps its whole pass; BPE-8k ended more than 0.01 bits per byte "
        "better than the level (see the table's bpb), so a difference from it is one of quality as well; word, "
        "with a closed"
    ) in short


def test_diversity_and_unk_shares():
    t = predictions().assign(pred=["the", "<unk>", "cat", "<unk>", "yak", "x"])
    res = WS.Resampler(t["article"], 50, 0)
    d = DV.diversity(t, res)
    assert d["top-1"].value == pytest.approx(50.0)
    assert d["T1"].value == pytest.approx(100 * 2 / 3)  # the, cat hit; ox not
    assert DV.unk_shares({"m": t}, ["m", "absent"]) == {"m": pytest.approx(2 / 6)}


def all_predictions():
    """Two models' predictions at three targets: m2 cannot decode the second."""
    rows = []
    for model, decodable in (("m1", [True, True, True]), ("m2", [True, False, True])):
        for i, (w, ok) in enumerate(zip(["the", "cat", "ox"], decodable)):
            rows.append(
                {
                    "model": model,
                    "sentence": 0,
                    "index": i,
                    "word": w,
                    "pred": "the",
                    "decodable": ok,
                    "oov": False,
                    "n_tokens": 1 if ok else 0,
                    "hit1": w == "the",
                    "hit10_dfs": True,
                    "logp": -1.0,
                    "logp_prefix": -0.5,
                    "article": i,
                }
            )
    return pd.DataFrame(rows)


def test_targets_shared_by_every_model():
    from lmnotes.studies.words import targets as TG

    pos = TG.with_bins(all_predictions(), pd.Series({"the": 5000, "cat": 50}))
    assert pos.loc[:2, "bin"].tolist() == [B0, B2, "unseen"]
    assert set(pos["pred_bin"]) == {B0}
    TG.mark_common(pos, ["m1", "m2"])
    assert pos["common"].tolist() == [True, False, True] * 2
    assert TG.mark_all_decodable(pos, ["m1"]) == 3 and pos["all_decodable"].all()  # m2 is not compared
    assert TG.mark_all_decodable(pos, ["m1", "m2"]) == 2
    cover = TG.shares(pos)
    assert cover.loc["m2", "straddle"] == pytest.approx(1 / 3)
    assert cover.loc["m2", "ends inside"] == pytest.approx(0)
    ev = TG.evaluated(pos, ["m1", "m2", "m3"], ["m1", "m2"])
    assert len(ev["m1"]) == 2 and len(ev["m3"]) == 0
    assert TG.straddle_sentence(pos, ["byte"]) == "no member of this family uses BPE."
    text = TG.straddle_sentence(pos.assign(model="bpe8000"), ["bpe1000", "bpe8000"])
    assert text.startswith("BPE-8k's most frequent straddled targets are `cat` (1), punctuation")


def test_table1_and_the_papers_reading_of_pairs():
    from lmnotes.studies.words import table1 as PT
    from lmnotes.studies.words import targets as TG

    pos = TG.with_bins(all_predictions(), pd.Series({"the": 5000, "cat": 500, "ox": 50}))
    TG.mark_common(pos, ["m1", "m2"])
    TG.mark_all_decodable(pos, ["m1", "m2"])
    res = WS.Resampler(pos["article"], 100, 0)
    table = PT.table1(TG.evaluated(pos, ["m1", "m2"], ["m1", "m2"]), res)
    assert table["words"].tolist() == [2, 2]
    assert table.loc["m1", "top-1"].value == pytest.approx(50.0)
    assert table.loc["m1", "word ppl"].value == pytest.approx(np.e)
    assert table.loc["m1", "Eq. 2 ppl"].value == pytest.approx(np.exp(0.5))
    assert PT.eq2_sentence(table).startswith("Eq. 2 gives the higher perplexity for 0 of the 2 models:")
    # the same hits: a difference of exactly 0 on every resample, similar in both measures
    pairs = PT.pair_table(table, ["m1", "m2"], res, 0.2)
    assert pairs["pair"].tolist() == ["m1 − m2"] and pairs["Δ top-1"][0].value == 0
    assert pairs["top-1 alike"].tolist() == [True] and pairs[["top-1", "T1"]].values.tolist() == [
        ["similar"] * 2
    ]
    # a margin of the pair's mean that no interval fits in leaves it undecided or different
    pos.loc[pos["model"] == "m2", "hit1"] = False
    table = PT.table1(TG.evaluated(pos, ["m1", "m2"], ["m1", "m2"]), res)
    pairs = PT.pair_table(table, ["m1", "m2"], res, 0.2)
    assert pairs["Δ top-1"][0].value == pytest.approx(50.0) and pairs["top-1 alike"][0] is not True


def test_by_bin_and_differences_from_a_reference():
    from lmnotes.studies.words import bins as BN

    t = predictions()
    res = WS.Resampler(t["article"], 50, 0)
    bins = BN.by_bin({"a": t, "b": t.assign(hit1=True)}, ["a", "b"], res)
    assert bins["a", B0]["n"] == 2 and bins["a", B0]["types"] == 1 and bins["a", B0]["hits"] == 1
    assert ("a", "unseen") not in bins
    sizes = BN.bin_sizes(bins, "a")
    assert list(sizes.index) == [B0, B1, B2, "[1,10)"] and sizes["positions"].sum() == 6
    diff = BN.differences(bins, ["a", "b"], "b", "acc", res)
    assert list(diff.columns) == ["a"] and diff.loc[B0, "a"].value == pytest.approx(-50.0)


def test_calibration_table_and_the_coverage_null():
    t = predictions()
    cal, rel = CG.calibration_table({"m": t}, ["m"])
    assert cal.loc[0, "mean confidence"] == pytest.approx(np.mean([0.5, 0.5, 0.25, 0.1, 0.2, 0.2]))
    assert cal.loc[0, "accuracy"] == pytest.approx(0.5) and len(rel["m"]) == 6
    text = CG.cal_sentence(cal.set_index("model"), ["m"], ["absent"])
    assert (
        text == f"The neural models are close to calibrated overall (ECE {cal.loc[0, 'ECE']:.3f}–"
        f"{cal.loc[0, 'ECE']:.3f})."
    )
    res = WS.Resampler(t["article"], 50, 0)
    null = DV.coverage_null_table({"m": t}, ["m"], res, 99, 0)
    # the paper's bins: the (hit, miss), cat (hit), ox (miss): two of three types
    assert null.loc[0, "T1"] == pytest.approx(100 * 2 / 3)
    assert 0 < null.loc[0, "p"] <= 1


def test_size_comparison_orders_larger_and_smaller():
    class LM:
        def __init__(self, n):
            self.n_parameters = n

    this, other = {"T1 / E₀[T1]": est(50)}, {"T1 / E₀[T1]": est(40)}
    row, case = DV.size_comparison("bpe8000", this, other, LM(10), LM(100), this_is_larger=False)
    assert row["parameters, larger"] == 100 and row["difference"].value == pytest.approx(-10.0)
    assert case is False  # the larger is less diverse
    row, case = DV.size_comparison("bpe8000", this, other, LM(10), LM(100), this_is_larger=True)
    assert row["model"] == "BPE-8k" and case is True


def test_the_papers_encoder_comparison_is_computed_from_its_counts():
    from scipy.stats import fisher_exact

    from lmnotes.studies.words import table2 as T2

    assert T2.paper_encoders_p() == fisher_exact([[14, 36], [11, 39]]).pvalue  # Table 2: 14 and 11 of 50
