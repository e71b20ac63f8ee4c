"""The distortion chapter's analysis modules (lmnotes.studies.distortion: resample, overview,
error, size, mass, training, data_size, temperature, lengths, calibration, lnre, control) on
constructed inputs whose answers are known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lmnotes.stats import Estimate, scaled
from lmnotes.studies.distortion import calibration as CB
from lmnotes.studies.distortion import control as CT
from lmnotes.studies.distortion import data_size as DS
from lmnotes.studies.distortion import error as E
from lmnotes.studies.distortion import lengths as LN
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion import lnre as LR
from lmnotes.studies.distortion import mass as MS
from lmnotes.studies.distortion import overview as OV
from lmnotes.studies.distortion import resample as R
from lmnotes.studies.distortion import schedule as SC
from lmnotes.studies.distortion import size as SZ
from lmnotes.studies.distortion import temperature as TP
from lmnotes.studies.distortion import training as TR
from lmnotes.studies.distortion.language import SampleSet


def sample_set(lengths, logp):
    return SampleSet([[1] * (n - 1) for n in lengths], np.asarray(logp, dtype=float), len(lengths), 0, 0)


# -- resample ------------------------------------------------------------------------------


def test_intervals_are_formatted_with_a_true_minus_and_scaled_exactly():
    e = Estimate(-0.0123, -0.02, -0.005)
    assert R.ci(e) == "−0.0123 [−0.0200, −0.00500]"
    assert R.num(1234.5678) == "1,230"  # three significant digits
    assert scaled(Estimate(0.01, 0.0, 0.02), 100) == Estimate(1.0, 0.0, 2.0)
    assert R.negated(e) == Estimate(0.0123, 0.005, 0.02)
    row = pd.Series({"mean": 1.0, "low": 0.5, "high": 2.0, "n": 3})
    assert R.bin_estimate(row) == Estimate(1.0, 0.5, 2.0)


def test_the_bootstrap_draws_in_order_from_one_generator_and_memoises():
    v = np.random.default_rng(1).normal(size=200)
    a, b = R.Bootstrap(np.random.default_rng(0)), R.Bootstrap(np.random.default_rng(0))
    first = a.mean_ci(v)
    assert first.low < v.mean() < first.high and first.value == pytest.approx(v.mean())
    assert b.mean_ci(v) == first  # same seed, same order: same interval
    assert a.mean_ci(v) != first  # the generator moved on
    share = a.share_under("m", v)
    assert a.share_under("m", v * 0) is share  # memoised by name, not recomputed
    assert share.value == pytest.approx((v < 0).mean())
    med = a.stat(v, lambda x: np.median(x, axis=1))
    assert med.value == pytest.approx(np.median(v)) and med.low <= med.value <= med.high


# -- overview ------------------------------------------------------------------------------


def test_mean_pp_is_the_mean_of_per_sequence_perplexities_not_the_corpus_one():
    logp, n = np.array([-2.0, -8.0]), np.array([2, 2])
    assert OV.mean_pp(logp, n) == pytest.approx((np.e**1 + np.e**4) / 2)
    assert OV.mean_pp(logp, n) > np.exp(-logp.sum() / n.sum())  # Jensen


def test_split_keeps_the_order_and_refuses_a_short_draw():
    draw = sample_set([2] * 10, -np.arange(10.0))
    train, valid, test = OV.split(draw, 5, 2, 3)
    assert (len(train), len(valid), len(test)) == (5, 2, 3)
    assert test.logp.tolist() == [-7.0, -8.0, -9.0]
    with pytest.raises(ValueError, match="finished samples"):
        OV.split(sample_set([2] * 5, np.zeros(5)), 4, 2, 4)


# -- error ---------------------------------------------------------------------------------


def test_by_bin_places_each_bin_at_its_mean_log_p():
    x = np.repeat([-10.0, -2.0], 20)
    out = E.by_bin(np.where(x < -5, -3.0, -1.0), (x > -5).astype(int), x, n_boot=200)
    assert out["log p_L"].tolist() == [-10.0, -2.0]
    assert out["mean"].tolist() == [-3.0, -1.0]


def test_the_length_law_at_the_end_bins():
    class Law:
        slope, k, h = 0.5, 1.0, 2.0

    row = lambda mean, lo, hi, x: pd.Series({"mean": mean, "low": lo, "high": hi, "log p_L": x})  # noqa: E731
    ends = {"m": (row(-5.0, -6.0, -4.0, -10.0), row(-1.5, -1.6, -1.4, -2.0))}
    table, miss, inside = E.law_at_ends(ends, {"m": Law()}, ["m"])
    # the law gives −5 at log p_L = −10 (inside [−6, −4]) and −1 at −2 (outside, off by 0.5)
    assert miss == pytest.approx(0.5) and inside == 1
    assert table["law there"].tolist() == [-5.0]


def test_worst_error_finds_the_learner_and_the_sequence():
    err = {"a": np.array([-1.0, -2.0]), "b": np.array([-0.5, -9.0, 0.0])}
    assert E.worst_error(["a", "b"], err) == ("b", 1)


# -- size ----------------------------------------------------------------------------------


def test_size_comparison_counts_overlapping_and_resolved_bins():
    n = 400
    rng = np.random.default_rng(0)
    logp = -rng.uniform(5, 50, n)
    lengths = np.full(n, 10)
    test = sample_set(lengths, logp)
    err = {"big": np.full(n, -1.0) + rng.normal(0, 0.1, n), "small": np.full(n, -2.0)}
    logp_m = {k: logp + err[k] for k in err}
    curve = lambda lo, hi: pd.DataFrame({"low": lo, "high": hi})  # noqa: E731
    curves = {
        ("big", "equal count"): curve([0, 0, 5], [1, 1, 6]),
        ("small", "equal count"): curve([0.5, 2, 5.5], [2, 3, 7]),
    }
    paired = pd.DataFrame({"low": [0.1, -1.0, 0.2], "high": [0.3, 1.0, 0.4]})
    out = SZ.compare(np.random.default_rng(1), err, logp_m, test, curves, "big", "small", paired)
    assert (out["n_overlap"], out["n_bins"], out["n_resolved"], out["n_paired"]) == (2, 3, 2, 3)
    # mean errors −1 and −2: the difference is 1 over their mean 1.5
    assert out["rel"].value == pytest.approx(2 / 3, rel=0.02)
    # per-sequence PP falls by the factor e^(−1/10) with a constant error of −1 against −2
    assert out["pp_gain"].value == pytest.approx(1 - np.exp(-0.1), rel=0.05)
    assert out["pp_gain"].low < out["pp_gain"].value < out["pp_gain"].high


# -- mass ----------------------------------------------------------------------------------


def test_mass_bins_put_samples_past_the_cap_and_below_the_rarest_test_sequence_apart():
    test = sample_set(np.arange(2, 12), -np.arange(1.0, 11.0))
    b = MS.mass_bins(test, np.array([-100.0, -0.5, -5.5]), np.array([3, 3, 3]), 2, "log p_L")
    assert b.tolist() == [1, 6, 4, 0, 0]
    assert MS.mass_bins(test, test.logp, test.lengths, 0, "length").tolist() == [2, 2, 3, 3, 4, 4, 5, 5, 6, 6]


def test_the_notes_on_the_checks_count_what_they_say():
    inside, outside = Estimate(0.0, -0.1, 0.1), Estimate(0.2, 0.1, 0.3)
    assert MS.tv_note({"a": inside, "b": inside}, 0.5, 0.5, 0.6).startswith(
        "Every interval includes zero. The check is blind"
    )
    note = MS.tv_note({"a": outside, "b": inside}, 0.5, 0.5001, 0.6)
    assert note.startswith("1 of these 2 intervals excludes zero") and "probability 10%" in note
    assert "by only 0.0001" in note
    assert MS.head_text({"a": inside}, ["a"]).startswith("No learner")
    assert "a, b put more mass" in MS.head_text({"a": outside, "b": outside}, ["a", "b"])


# -- training ------------------------------------------------------------------------------


def test_over_training_measures_the_gaps_between_strata():
    n, epochs = 40, 4
    watch = (
        sample_set([5] * n, -np.arange(n, dtype=float)),
        sample_set(list(range(2, 2 + n)), -np.arange(n, dtype=float)),
    )
    rank = np.arange(n)  # 0: the most probable
    rows = []
    for ep in range(1, epochs + 1):
        rows.append(
            {
                "epoch": ep,
                "valid_loss": 5 - ep,
                "train_error": np.where(rank >= 20, -2.0 / ep, 0.0),  # closes
                "test_error": np.where(rank >= 20, -2.0, 0.0),
            }
        )  # stays
    history = pd.DataFrame(rows)
    out = TR.over_training(R.Bootstrap(np.random.default_rng(0)), history, watch, 2)
    assert (out["last"], out["mid"]) == (4, 2)
    assert out["gaps"]["test", 4].value == pytest.approx(2.0)
    assert out["gaps"]["train", 4].value == pytest.approx(0.5)
    assert out["apart"].value == pytest.approx(1.5)
    assert out["m2"]["train"] == pytest.approx(-0.5)
    curves = TR.strata_curves(history, watch, 2)
    assert len(curves) == 2 * epochs * 2
    facts = TR.facts(out, 1, 3)
    assert facts["mid"] == 2 and facts["best_last"] == "1 of 3" and facts["m2_train"] == "−0.500"
    model = type("M", (), {"history": history})()
    assert TR.best_epoch(model) == 4


# -- data size -----------------------------------------------------------------------------


def test_every_learner_gets_the_main_learners_updates_and_reports_its_training():
    assert SC.same_updates(8, 0.25) == 32 and SC.same_updates(8, 1.0) == 8
    assert SC.same_updates(8, 1e3) == 1
    with pytest.raises(ValueError, match="> 0"):
        SC.same_updates(8, 0.0)
    config = LG.TRAINING["cpu"]
    own = SC.annealed(config, 8, 2)
    assert own.warmup == round(config.warmup / 4) and own.lr == config.lr
    assert SC.annealed(config, 8, 8) == config and SC.annealed(config, 10**6, 1).warmup == 1
    for bad in (0, 9):
        with pytest.raises(ValueError, match="1..8 passes"):
            SC.annealed(config, 8, bad)
    # a schedule's summed learning rate, and the fewest passes whose annealed schedule reaches a sum
    assert SC.schedule_sum(4, 2) == pytest.approx(
        sum(min(1, (s + 1) / 2) * 0.5 * (1 + np.cos(np.pi * s / 4)) for s in range(4))
    )
    need = SC.schedule_sum(30, round(config.warmup * 3 / 8))
    assert SC.equal_sum(config, 8, 10, need) == 3 and SC.equal_sum(config, 8, 10, need + 1e-6) == 4
    assert SC.equal_sum(config, 8, 10, 1e9) == 8
    # training keeps the first loss more than 1e-4 below all before it
    assert SC.kept_row([3.0, 2.0, 1.99995, 2.5]) == 1 and SC.kept_row([3.0, 2.0, 1.5]) == 2
    # 10 updates a pass, 4 passes planned, warm-up 5; best at epoch 3
    history = pd.DataFrame(
        {"step": [10, 20, 30, 40], "epoch": [1, 2, 3, 4], "valid_loss": [3.0, 2.0, 1.5, 1.6]}
    )
    got = SC.summary(type("M", (), {"history": history})(), warmup=5, epochs=4)
    assert (got["updates planned"], got["updates"], got["kept update"]) == (40, 40, 30)
    assert got["learning rate kept"] == pytest.approx(0.5 * (1 + np.cos(np.pi * 30 / 40)))
    assert got["valid loss"] == 1.5 and got["best epoch"] == 3
    # the factors of the 30 updates up to the kept weights
    assert got["Σ learning rate"] == pytest.approx(
        sum(min(1, (s + 1) / 5) * 0.5 * (1 + np.cos(np.pi * s / 40)) for s in range(30))
    )
    history.loc[3, "valid_loss"] = 1.0
    assert SC.summary(type("M", (), {"history": history})(), 5, 4)["learning rate kept"] == 0.0
    # stopped early: planned for 8 passes, the schedule's rate at the kept update is high
    early = SC.summary(type("M", (), {"history": history.iloc[:3]})(), 5, 8)
    assert (early["updates planned"], early["updates"]) == (80, 30)
    assert early["learning rate kept"] == pytest.approx(0.5 * (1 + np.cos(np.pi * 30 / 80)))


def test_a_smaller_set_is_kept_annealed_with_its_probes_summed_learning_rate():
    def model(losses, steps_per_pass):
        return type(
            "M",
            (),
            {
                "history": pd.DataFrame(
                    {
                        "step": [steps_per_pass * (i + 1) for i in range(len(losses))],
                        "epoch": range(1, len(losses) + 1),
                        "valid_loss": losses,
                    }
                )
            },
        )()

    trained = {}
    config = LG.TRAINING["cpu"]

    def learn(passes, schedule):  # the full set's schedule overfits after 2 passes
        trained[passes] = schedule
        return model([3.0, 2.0, 2.5, 2.6] * 2, 50) if passes == 8 else model([2.9] * (passes - 1) + [1.8], 50)

    m, got, probe = SC.learn_size(learn, 0.5, 4, config)
    own = SC.equal_sum(config, 8, 50, probe["Σ learning rate"])
    assert (
        set(trained) == {8, own} and trained[8] == config and 2 < own < 8
    )  # more passes than its best epoch
    assert trained[own].warmup == round(config.warmup * own / 8)
    assert got["schedule"] == f"own, annealed over {own} passes" and got["valid loss"] == 1.8
    assert (got["updates planned"], got["kept update"], got["learning rate kept"]) == (
        50 * own,
        50 * own,
        0.0,
    )
    assert (
        got["Σ learning rate"]
        >= probe["Σ learning rate"]
        > SC.schedule_sum(50 * (own - 1), round(config.warmup * (own - 1) / 8))
    )
    assert probe["schedule"] == "full set's" and probe["valid loss"] == 2.0 and probe["best epoch"] == 2
    err_n = {("m", 3): (None, got, probe)}
    note = DS.schedule_note(err_n, "m", [3])
    assert note.startswith(
        f"At N = 3 m is kept at the end of its own schedule, annealed over {own} passes, summed learning rate "
    )
    assert "where the full set's schedule validated best (validation loss 1.800 against 2.000" in note
    assert note.endswith("Every size is compared at weights taken where its learning rate had decayed.")
    # a kept learner whose own schedule still peaked early is named
    err_n = {("m", 3): (None, probe, got)}
    assert "So N = 3 is compared at weights taken before" in DS.schedule_note(err_n, "m", [3])
    rows = DS.training_table(err_n, ["m"], [3])
    assert rows.loc[0, "kept update"] == "100 of 400" and rows.loc[0, "probe's valid loss"] == 1.8

    # an own schedule that still validates best before its end is shortened to that epoch
    def overfits(passes, schedule):
        trained[passes] = schedule
        if passes == 8:
            return model([3.0, 2.0, 2.5, 2.6] * 2, 50)
        return model(([3.0, 2.5, 1.5] + [1.7] * (passes - 3)) if passes > 3 else [3.0, 2.5, 1.5][:passes], 50)

    trained.clear()
    m, got, probe = SC.learn_size(overfits, 0.5, 4, config)
    assert set(trained) == {8, own, 3} and got["schedule"] == "own, annealed over 3 passes"
    assert (got["best epoch"], got["learning rate kept"]) == (3, 0.0)

    # a probe whose best epoch is its last is already annealed: the same schedule again
    def peaks_last(passes, schedule):
        trained[passes] = schedule
        return model([3.0, 2.0, 1.5, 1.4, 1.3, 1.2, 1.1, 1.0], 50)

    trained.clear()
    SC.learn_size(peaks_last, 0.5, 4, config)
    assert set(trained) == {8} and trained[8] == config


def test_learners_compared_together_share_one_annealed_schedule_that_each_ends_at_its_best():
    config, trained = LG.TRAINING["cpu"], []

    def model(passes, best):  # validates best at epoch `best`, worse after
        losses = [3.0 - 0.1 * i for i in range(best)] + [3.0 + 0.1 * i for i in range(passes - best)]
        return type(
            "M",
            (),
            {
                "history": pd.DataFrame(
                    {
                        "step": [50 * (i + 1) for i in range(passes)],
                        "epoch": range(1, passes + 1),
                        "valid_loss": losses,
                    }
                )
            },
        )()

    def learner(key, best):  # best(passes) -> its best epoch on an annealed schedule of that many
        def learn(passes, schedule):
            trained.append((key, passes, schedule.warmup))
            return model(passes, best(passes))

        return learn

    learns = {
        "a": learner("a", lambda p: min(p, 4)),  # overfits after 4 passes
        "b": learner("b", lambda p: p),  # never overfits
        "c": learner("c", lambda p: 3 if p == 4 else p),  # peaks early on 4 passes only
    }
    probes = {k: model(8, 3) for k in learns}  # each probe peaks at epoch 3 of 8
    kept = SC.anneal_together(learns, probes, 8, config)
    own = SC.equal_sum(config, 8, 50, SC.summary(probes["a"], config.warmup, 8)["Σ learning rate"])
    assert own > 4  # a's own schedule is shortened to 4, the shortest: c peaks early there
    assert {k: g["schedule"] for k, (_, g, _) in kept.items()} == dict.fromkeys(
        learns, "common, annealed over 3 passes"
    )
    for _, got, probe in kept.values():
        assert (got["updates planned"], got["kept update"], got["learning rate kept"]) == (150, 150, 0.0)
        assert probe["best epoch"] == 3 and probe["schedule"] == "early-stopped"
    # equal training: one summed learning rate, below the probes' where a learner overfits sooner
    assert len({round(g["Σ learning rate"], 9) for _, g, _ in kept.values()}) == 1
    four = SC.annealed(config, 8, 4).warmup
    assert ("a", 4, four) in trained and ("c", 4, four) in trained
    assert SC.own_passes(kept["a"][1], kept["a"][2], 8) == 3
    # training sets of unequal updates a pass cannot be compared at equal training
    learns["d"] = lambda passes, schedule: type(
        "M", (), {"history": model(passes, passes).history.assign(step=lambda h: h["step"] * 2)}
    )()
    probes["d"] = model(8, 3)
    with pytest.raises(ValueError, match="equal updates a pass"):
        SC.anneal_together(learns, probes, 8, config)


def test_doubling_gains_and_relative_change():
    err_n = {
        ("m", 1): (np.full(50, -4.0), 0, 0),
        ("m", 2): (np.full(50, -3.0), 0, 0),
        ("m", 4): (np.full(50, -2.7), 0, 0),
    }
    gain, rel = DS.doubling_gains(R.Bootstrap(np.random.default_rng(0)), err_n, "m", [1, 2, 4])
    assert gain[1, 2].value == pytest.approx(1.0) and rel[2, 4] == pytest.approx(0.1)
    df = DS.by_stratum(err_n, "m", [1, 2, 4], np.repeat([0, 1], 25))
    assert df.query("stratum == 0")["relative change"].tolist()[1:] == pytest.approx([0.25, 0.1])


# -- temperature ---------------------------------------------------------------------------


def test_colder_minus_warmer_per_seed():
    per_tok = {
        (T, s): (v, np.full(10, v))
        for (T, s), v in {(0.7, 0): -0.3, (1.0, 0): -0.1, (0.7, 1): -0.2, (1.0, 1): -0.2}.items()
    }
    out = TP.colder_minus_warmer(per_tok, [1.0, 0.7], [0, 1])
    assert list(out) == [(0.7, 1.0, 0), (0.7, 1.0, 1)]
    assert out[0.7, 1.0, 0].value == pytest.approx(-0.2) and out[0.7, 1.0, 1].value == 0
    assert TP.colder_text(out).startswith("T = 0.7 − T = 1.0, seed 0: −0.200")


def test_compare_bins_keeps_bins_where_both_languages_have_more_than_ten():
    x = np.linspace(-10, -1, 400)
    temp_err = {
        0.7: (x, np.full(400, -2.0), np.full(400, 8)),
        1.0: (x[::2], np.full(200, -1.0), np.full(200, 4)),
    }
    out = TP.compare_bins(R.Bootstrap(np.random.default_rng(0)), temp_err, 0.7, 1.0, 100)
    assert len(out) >= 8 and (out["difference"] == -1.0).all()
    assert (out["tokens (T=0.7)"] == 8).all() and (out["high"] < 0).all()


def test_a_bin_is_decided_only_where_every_seed_decides_it():
    """Two seeds: one whose colder learner is worse by 1 nat, one with no difference. The seeds'
    mean differs by 0.5 everywhere, but each bin's interval spans the second seed's: open."""
    rng = np.random.default_rng(1)
    x = np.linspace(-10, -1, 400)
    worse, same = -2.0 + rng.normal(0, 0.1, 400), -1.0 + rng.normal(0, 0.1, 400)
    warm = -1.0 + rng.normal(0, 0.1, 400)
    temp_err = {0.7: (x, (worse + same) / 2, np.full(400, 8)), 1.0: (x, warm, np.full(400, 4))}
    seed_err = {0.7: np.array([worse, same]), 1.0: np.array([warm, warm])}
    boot = R.Bootstrap(np.random.default_rng(0))
    pooled = TP.compare_bins(boot, temp_err, 0.7, 1.0, 200)
    spanned = TP.compare_bins(boot, temp_err, 0.7, 1.0, 200, seed_err)
    assert (pooled["high"] < 0).all() and (spanned["difference"] == pooled["difference"]).all()
    assert ((spanned["low"] < -0.8) & (spanned["high"] > 0)).all()


# -- lengths -------------------------------------------------------------------------------


def test_a_constant_deficit_per_token_leaves_no_tail():
    rng = np.random.default_rng(0)
    n_tok = rng.integers(2, 40, 600).astype(float)
    x = -1.5 * n_tok + rng.normal(0, 0.5, 600)
    row = LN.law_row("s", -0.2 * n_tok, x, n_tok, n_bins=10)
    assert row["k"] == pytest.approx(0.2)
    assert row["rarest bin"] == pytest.approx(row["law −k·n̄"])
    assert row["tail beyond length"].value == pytest.approx(0, abs=1e-9)


def test_the_packing_paragraph_names_the_worst_span():
    e = lambda v: Estimate(v, v - 0.01, v + 0.01)  # noqa: E731
    pos = {"m": [e(-0.5), e(-0.1), None, e(-0.2)]}
    positions = pd.DataFrame({"positions": ["1", "2–4", "5–8", "9–16"]})
    text = LN.packing_text(pos, positions, "m")
    assert text.startswith("The first position is worse than every later span for m,")
    assert "positions 1 carry" in text


# -- calibration ---------------------------------------------------------------------------


def test_calibration_reads_the_surprisal_coefficient_only_where_both_are_decided():
    e = lambda v, lo, hi: Estimate(v, lo, hi)  # noqa: E731
    s_coef = {"a": e(-1, -2, -0.5), "b": e(1, 0.5, 2), "c": e(0, -1, 1)}
    tau = {"a": e(1.2, 1.1, 1.3), "b": e(1.2, 1.1, 1.3), "c": e(0.8, 0.7, 0.9)}
    text = CB.link_text(["a", "b", "c"], s_coef, tau)
    assert "of the 2 learners whose coefficient and τ* are both decided, 1 lose" in text
    assert CB.link_text(["c"], s_coef, tau) == ""
    assert CB.TAUS[15] == 1.0 and CB.TAUS[0] == 0.5 and CB.TAUS[-1] == 2.0


# -- LNRE ----------------------------------------------------------------------------------


def test_good_turing_curves_of_a_die_leave_the_zone_and_match_the_exact_mass():
    dice = np.random.default_rng(0).integers(100, size=20_000)
    rows = LR.curve("die", dice, [10, 100, 1000, 10_000, 10**6], exact=np.full(len(dice), 0.01))
    df = pd.DataFrame(rows)
    assert df["N"].tolist() == [10, 100, 1000, 10_000, 20_000]
    assert df["P̂_N = N₁/N"].iloc[-1] == 0 and df["exact M₀"].iloc[-1] == pytest.approx(0)
    shape = LR.decay_shape(pd.concat([df, df.assign(process="copy")]))
    assert np.isinf(shape["doublings"]).all()
    assert LR.shown(df.assign(**{"exact M₀": [np.nan, 0.5, -1e-12, 0, 0]}))["exact M₀"].tolist() == [
        "—",
        "0.5000",
        "0.0000",
        "0.0000",
        "0.0000",
    ]


def test_doublings_keep_a_power_law_at_0_and_put_a_die_at_log2_10_whatever_its_size():
    sizes = np.unique(np.geomspace(10, 10**6, 25).astype(int))
    rows = [{"process": "power", "N": n, "P̂_N = N₁/N": n**-0.3} for n in sizes]
    rows += [{"process": "steep power", "N": n, "P̂_N = N₁/N": n**-0.9} for n in sizes]
    for k in (10**7, 10**9):  # dice far larger than the sample: still ten times the exponent
        rows += [{"process": f"die {k}", "N": n, "P̂_N = N₁/N": np.exp(-n / k)} for n in sizes]
    grew = LR.decay_shape(pd.DataFrame(rows)).set_index("process")["doublings"]
    assert grew["power"] == pytest.approx(0, abs=1e-9) and grew["steep power"] == pytest.approx(0, abs=1e-9)
    # about log2 10 (3.32; the half-decade slopes are read off a grid)
    assert grew["die 10000000"] == pytest.approx(np.log2(10), abs=0.1)
    assert grew["die 1000000000"] == pytest.approx(np.log2(10), abs=0.1)
    assert LR.doublings(0.0, 0.1) != LR.doublings(0.0, 0.1)  # no decay at N/10: NaN
    assert LR.doublings(0.2, np.inf) == np.inf


def test_the_power_law_control_is_a_power_law_over_orders():
    rows = LR.curve("zipf", np.random.default_rng(0).zipf(LR.ZIPF_A, size=10**5), LR.GRID, over_orders=True)
    grew = LR.decay_shape(pd.DataFrame(rows))["doublings"].iloc[0]
    assert abs(grew) < 0.1  # far below the one doubling the claim allows, far from a die's 3.3


# -- control -------------------------------------------------------------------------------


def test_the_control_paragraph_reports_the_cuts():
    boot = R.Bootstrap(np.random.default_rng(0))
    curve = pd.DataFrame({"mean": [-10.0, -1.0], "low": [-11, -1.1], "high": [-9, -0.9]})
    d_curve = pd.DataFrame({"mean": [-8.0, -0.5], "low": [-9, -0.6], "high": [-7, -0.4]})
    gain = pd.DataFrame({"low": [0.1, -1.0], "high": [0.5, 1.0]})
    text = CT.text(
        boot, Estimate(0.8, 0.7, 0.9), np.full(50, -4.0), np.full(50, -3.0), curve, d_curve, gain, "d"
    )
    assert "25% smaller overall, 20% smaller in the rarest bin and 50% in the most" in text
    assert "closer to L in 1 of 2 bins beyond the paired interval and farther in 0." in text


# -- the paper's numbers, the pretrained check, facts ---------------------------------------


def test_the_papers_tables_agree_where_they_overlap():
    from lmnotes.studies.distortion import paper as PA

    paper, paper_t = PA.tables()
    facts = PA.facts(paper, paper_t)
    assert facts["p_t6_t4"] == "25.42 in both" and facts["p_t7_t5"].endswith(" in both")
    assert PA._in_both(25.42, 25.5) == "25.42 in one and 25.5 in the other"
    assert PA.size_gain(paper) == pytest.approx(1 - 25.42 / 26.66)
    assert facts["p_small_medium"] == "4.65%" and facts["gpt2_vocab"] == "50,257"
    assert facts["p_gain_gpt"] == f"{1 - 21.60 / 25.42:.1%}"
    assert PA.two_decimals(np.nan) == "—" and PA.two_decimals(36.5) == "36.50"


def test_the_pretrained_checks_keep_the_end_bins():
    from lmnotes.studies.distortion import pretrained as PR

    curve = pd.DataFrame({"mean": [-30.0, -2.0], "low": [-32.0, -2.5], "high": [-28.0, -1.5]})
    p = PR.summary("lm", Estimate(0.8, 0.7, 0.9), Estimate(-1.0, -1.5, -0.5), curve)
    assert (p["rarest"], p["top"]) == (-30.0, -2.0)
    assert p["rarest_bin"]["high"] == -28.0 and p["top_bin"]["low"] == -2.5
    assert PR.text(p, 500, 2).startswith(
        "with lm as L, the learner underestimates a share 0.800 [0.700, 0.900] of 500 test sequences"
    )


def test_architectures_compare_at_equal_and_doubled_data():
    err_n = {
        ("tf", 1): (np.full(30, -2.0),),
        ("tf", 2): (np.full(30, -1.0),),
        ("lstm", 1): (np.full(30, -3.0),),
        ("lstm", 2): (np.full(30, -1.5),),
    }
    boot = R.Bootstrap(np.random.default_rng(0))
    ahead, same_n, texts = DS.architectures(boot, err_n, "tf", ["lstm"], [1, 2], {"tf": 1000, "lstm": 2000})
    assert [e.value for e in same_n] == [1.0, 0.5] and [e.value for e in ahead] == [-0.5]
    assert texts["arch_same"] == (
        "N = 1: 1.00 [1.00, 1.00]; N = 2: 0.500 [0.500, 0.500]: the lead narrows as N grows, the LSTM gaining "
        "more per doubling"
    )
    assert texts["arch_params"] == "1,000 and 2,000"
    none = DS.architectures(boot, err_n, "tf", [], [1, 2])
    assert none[:2] == ([], []) and set(none[2].values()) == {"not run (no LSTM among the learners)"}
    f = DS.facts(
        {"best epoch": 8, "updates planned": 488}, 8, {(1, 2): Estimate(1.0, 0.5, 1.5)}, {(1, 2): 0.25}
    )
    assert list(f) == ["updates_txt", "full_note", "gain_first", "gain_last", "rel_last"]
    assert f["full_note"].startswith("The full set's best epoch is its last")
    assert f["rel_last"] == "25%"


def test_temperature_facts_relate_the_largest_difference_to_the_seed_spread():
    colder = {(0.7, 1.0, 0): Estimate(-0.3, -0.4, -0.2), (0.7, 1.0, 1): Estimate(0.1, 0, 0.2)}
    temps = pd.DataFrame({"seed spread": [0.1, 0.05]})
    temp_err = {0.7: (None, np.full(5, -3.0), None), 1.0: (None, np.full(5, -1.0), None)}
    f = TP.facts(colder, temps, temp_err, [0.7, 1.0], 2)
    assert f["t_patience"] == 2
    assert f["t_ratio"] == "3.0" and f["t_maxdiff"] == "0.30"
    assert f["t_per_seq"].endswith(
        "the language at T = 1.0 is estimated best; its sequences are not the shortest."
    )
    t_cmp = pd.DataFrame({"low": [-2.0, 0.5, -1.0], "high": [-1.0, 1.0, 1.0]})
    assert TP.bin_facts(t_cmp, 0.7) == {"t_worse": "1 of 3", "t_better": 1, "lo_t": 0.7}


def test_the_random_sequences_table_has_one_column_a_learner():
    from lmnotes.studies.distortion import perturbation as PT

    rand_df = pd.DataFrame(
        {
            "bin": [0, 1, 0, 1],
            "log p_L": [-9.0, -5.0, -9.0, -5.0],
            "n": [20, 30, 20, 30],
            "mean": [1.0, 2.0, 3.0, 4.0],
            "low": [0.5, 1.5, 2.5, 3.5],
            "high": [1.5, 2.5, 3.5, 4.5],
            "model": ["a", "a", "b", "b"],
        }
    )
    tab = PT.random_table(rand_df, ["b", "a"])
    assert list(tab.columns) == ["log p_L", "n", "b", "a"]
    assert tab["a"].tolist() == ["1.00 [0.500, 1.50]", "2.00 [1.50, 2.50]"]
    assert "error" not in rand_df  # the claims read the bins unchanged


def test_the_recipe_of_the_language():
    from lmnotes.models.recipes import transformer

    r = transformer("bpe1000")
    assert (r.arch, r.segmentation, r.vocab_size) == ("transformer", "bpe", 1000)
    assert (transformer("word").segmentation, transformer("word").vocab_size) == ("word", None)


def test_the_heat_map_says_so_when_no_bin_holds_enough_sequences():
    """A small n_perturb leaves every bin of log p_L under the heat map's 11 sequences: the
    figure says so instead of failing on an empty colour scale."""
    import matplotlib.pyplot as plt

    from lmnotes.studies.distortion import perturbation as PT

    pert = pd.DataFrame(
        {"model": "m", "level": [0, 0, 1], "bin": [0, 1, 0], "log p_L": [-5.0, -3.0, -5.0], "error": np.nan}
    )
    fig = PT.plot_heat(pert, "m")
    assert "no bin of log p_L" in fig.axes[0].texts[0].get_text()
    plt.close(fig)


def test_a_pretrained_language_whose_samples_rarely_end_is_skipped_with_the_reason():
    """App. A.2's split: too few draws that end within max_tokens gives the sentence that
    says so (the section and its claim are skipped), enough gives three sets in order."""
    from lmnotes.studies.distortion import pretrained as PR
    from lmnotes.studies.distortion.language import NoneEnded, SampleSet

    class Lang:
        max_tokens = 64

        def __init__(self, ended):
            self.ended = ended

        def sample(self, n, seed=0):
            if not self.ended:
                raise NoneEnded("none of 25 samples ended within 64 tokens; raise max_tokens")
            return SampleSet([[i] for i in range(self.ended)], np.zeros(self.ended), n, n - self.ended, 0)

    assert PR.draw(Lang(0), 10, 5, 10).startswith("only 0 of 25 draws ended within 64 tokens")
    assert PR.draw(Lang(19), 10, 5, 10).startswith("only 19 of 25")
    train, valid, test = PR.draw(Lang(20), 10, 5, 10)
    assert (len(train), len(valid), len(test)) == (10, 5, 5) and test.ids[0] == [15]


def test_the_training_strata_end_as_their_interval_says():
    """'cross' only when the last gap is resolved below 0, 'stay apart' above, 'meet' else;
    the chapter's sentence follows (AMD and Intel CPUs gave one each in the book)."""
    assert TR.strata_end(Estimate(-2.8, -5.0, -0.66)) == "cross"
    assert TR.strata_end(Estimate(0.14, -1.9, 2.4)) == "meet"
    assert TR.strata_end(Estimate(1.0, 0.2, 1.8)) == "stay apart"


def test_a_sequence_stands_out_only_far_beyond_its_mean_deficit():
    """The outlier sentence and the length law's clause say 'derails' only for an error at
    least OUTLIER_TIMES the learner's mean deficit."""
    test = sample_set([54, 100], [-212.0, -405.0])
    kl = {"lstm": Estimate(18.5, 18.0, 19.0)}
    far = {"lstm": np.array([-2163.0, -30.0])}
    near = {"lstm": np.array([-10.0, -85.3])}
    name, i = E.worst_error(["lstm"], far)
    assert E.stands_out(name, i, far, kl) and E.outlier_text(name, i, far, test, kl).startswith(
        "One sequence stands out"
    )
    name, i = E.worst_error(["lstm"], near)
    assert i == 1 and not E.stands_out(name, i, near, kl)
    assert E.outlier_text(name, i, near, test, kl).startswith("No sequence stands out")


def test_the_seeds_table_has_a_row_per_seed_and_leaves_out_what_did_not_run():
    from lmnotes.stats import Estimate as Est
    from lmnotes.studies.distortion import seeds as SD

    first = {
        "step_gain": {(1000, 2000): Est(1.0, 0.5, 1.5), (2000, 4000): Est(0.2, 0.1, 0.3)},
        "same_n": [Est(0.1, 0.05, 0.15)] * 3,
        "pp_gain": Est(0.11, 0.1, 0.12),
    }
    other = first | {"same_n": [], "pp_gain": None}
    size = {"pp_gain": first["pp_gain"]}
    t = SD.table({1: other}, [1000, 2000, 4000], 0, first["step_gain"], first["same_n"], size)
    assert list(t["seed"]) == [0, 1]
    assert list(t.columns) == [
        "seed",
        "gain 1,000 → 2,000",
        "gain 2,000 → 4,000",
        "minus LSTM at 1,000",
        "minus LSTM at 2,000",
        "minus LSTM at 4,000",
        "mean-PP gain (%)",
    ]
    assert t.loc[0, "mean-PP gain (%)"] == "11.0 [10.0, 12.0]" and pd.isna(t.loc[1, "mean-PP gain (%)"])
    assert t.loc[1, "gain 1,000 → 2,000"] == "1.00 [0.500, 1.50]"
