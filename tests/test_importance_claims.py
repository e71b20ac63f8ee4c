"""The claims table of chapter 04 (lmnotes.studies.importance.claims) on constructed evidence:
each rule must give the verdict the evidence calls for, and the measured text must count the
cases it was given."""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from lmnotes.stats import Estimate
from lmnotes.studies.importance import claims as IC
from lmnotes.studies.importance import switch_runs as SR

MODELS = ["fitted", "sticky"]
TEMPERATURES = [0.5, 0.9, 1.0, 1.1, 2.0]
DENSITY = [SR.NO_PEEKING] + [SR.peek_label(1, t) for t in TEMPERATURES]
LATENT = DENSITY + ["peek 2", SR.MEAN_FIELD]
N_TEST, N_RUNS = 50, 10

RULES = IC.Rules(converged_gap=0.001, bias_removed=0.5, overlap_shared=0.05, approx_share=0.25,
                 k_max=10000, n_runs=N_RUNS, peek_horizons=[0, 1, 2], temperatures=TEMPERATURES)


def _runs(rng):
    """Instance-level errors per run: every proposal below the truth, well apart, the better
    the closer to 1 its temperature (no peeking the worst), peek 2 best."""
    level = {SR.NO_PEEKING: -60.0, SR.MEAN_FIELD: -40.0, "peek 2": -1.0}
    level.update({SR.peek_label(1, t): -2.0 - 10 * abs(np.log(t)) for t in TEMPERATURES})
    return {(m, n): pd.DataFrame({"instance": level[n] + 0.01 * rng.standard_normal(N_RUNS)})
            for m in MODELS for n in LATENT}, level


def _tok(best_tau):
    """A tokenization table whose constrained proposal is best (clearly) at ``best_tau``."""
    rows = {("m", f"constrained, τ = {t:g}"): Estimate(-abs(t - best_tau) - 0.1, -abs(t - best_tau) - 0.12,
                                                      -abs(t - best_tau) - 0.08) for t in TEMPERATURES}
    rows["m", "guided"] = Estimate(-0.01, -0.02, 0.0)
    tab = pd.DataFrame({"instance level": rows})
    tab.index.names = ["model", "proposal"]
    return tab


def measured(**changes):
    """A Measured whose every claim has clear evidence, with ``changes`` applied."""
    rng = np.random.default_rng(0)
    runs, level = _runs(rng)
    keys = [(m, n) for m in MODELS for n in LATENT]
    sig = SimpleNamespace(statistic=0.8, pvalue=0.001)
    logp = {m: np.full(N_TEST, -30.0) for m in MODELS}
    base = dict(
        models=MODELS, runs=runs, latent_names=LATENT, density_names=DENSITY, n_test=N_TEST,
        n_tokens=1000.0, ic_ev=IC.Evidence(14, 0, 0), ic_runs=0.9, ic_min_gap=0.5, ic_max_gap=40.0,
        doc_ev=IC.Evidence(0, 8, 0),
        removed={k: {"instance": Estimate(0.9, 0.85, 0.95), "article": Estimate(0.2, 0.1, 0.3)}
                 for k in keys[:8]},
        article_tokens=5000.0, nonlatent_gap=0.0,
        tail_sub={k: 0.0 for k in keys}, gap_interval={k: Estimate(1e-4, 0.0, 2e-4) for k in keys},
        agree=True, mono_ev=IC.Evidence(6, 0, 2), mono_keys=keys[:4],
        curves={k: np.array([-5.0, -3.0, -1.0]) for k in keys[:4]}, falls_single=0, n_curve_steps=8,
        tau_rows={(m, f): {"τ* (χ²)": 1.3} for m in MODELS for f in ("peek 1", SR.MEAN_FIELD)},
        tok=_tok(1.1), sent_table=_tok(2.0),
        chi={(m, n): np.full(N_TEST, -level[n]) for m in MODELS for n in DENSITY},
        n_sep=9, n_separation=10,
        kendall={(m, c): sig for m in MODELS for c in ("χ²", "KL")}, top_pick={m: ("a", "a") for m in MODELS},
        single_pick={m: 0.7 for m in MODELS},
        best_paths={(m, k): np.full((N_TEST, k), -34.0) for m in MODELS for k in (1, 10)},
        logp=logp, share={(m, 10): np.full(N_TEST, 0.5) for m in MODELS}, k_top=10, beam_sizes=[1, 10],
        length_cases={m: True for m in MODELS}, short_long={m: Estimate(20.0, 10.0, 30.0) for m in MODELS},
        equal_size=[Estimate(5.0, 1.0, 9.0), Estimate(2.0, -1.0, 5.0)],
        invalid_cases=[True, True], n_words=12,
        ancestral_hits={"wiki/a": np.full(12, -np.inf), "wiki/b": np.full(12, -np.inf)},
        paper_lower=(18, 20), peek_vs={("instance", "KGLM", "τ = 1"): True, ("corpus", "KGLM", "τ = 5"): False},
        kglm_c=41.7, kglm_i=29.6)
    base.update(changes)
    return IC.Measured(**base)


def by_number(table):
    return table.set_index(table["claim"].str.split(".").str[0])


def test_constructed_evidence_gives_the_expected_verdicts():
    t = by_number(IC.claims(measured(), RULES))
    assert len(t) == 17
    expected = {"1": "reproduced", "2": "reproduced", "3a": "reproduced", "3b": "reproduced",
                "4": "contradicted", "5": "reproduced", "6": "contradicted", "7": "reproduced",
                "8": "reproduced", "9": "reproduced", "10": "reproduced", "11": "reproduced",
                "12": "reproduced", "13": "reproduced", "14": "reproduced", "15": "reproduced",
                "16": "differs"}
    assert t["verdict"].to_dict() == expected
    # claim 1: all 2 x 8 latent pairs below the truth; claim 4: every gap within the threshold
    assert "for 16 of 16 model–proposal pairs" in t.loc["1", "measured"]
    assert (t.loc["4", "n_against"], t.loc["4", "n_for"]) == (16, 0)
    # claim 9: peek 1 and peek 2 better than no peeking on both models; mean-field worse on neither
    assert "better in 4 of 4" in t.loc["9", "measured"]
    assert "worse on the neither model" in t.loc["9", "measured"]
    assert "peeking wins 1 of 1 cells at τ = 1, loses 1 of 2" in t.loc["9", "measured"]
    # claim 16: the direction and the size in points hold, the size in nats does not
    assert (t.loc["16", "n_for"], t.loc["16", "n_against"]) == (2, 1)
    assert "the size, 12.1, is within 25% of 10" in t.loc["16", "measured"]


def test_claim_11_counts_each_temperature_case():
    t = by_number(IC.claims(measured(), RULES))
    # 4 exact τ* of 1.3 and the two tokenization tables' best τ (1.1 and 2), apart from the
    # other temperatures: all in (1, 2]
    assert (t.loc["11", "n_for"], t.loc["11", "n_against"], t.loc["11", "n_unresolved"]) == (6, 0, 0)
    assert "words (m) 1.1, sentences (m) 2." in t.loc["11", "measured"]
    cold = {(m, f): {"τ* (χ²)": 0.7} for m in MODELS for f in ("peek 1", SR.MEAN_FIELD)}
    t = by_number(IC.claims(measured(tau_rows=cold, tok=_tok(1.1), sent_table=_tok(1.1)), RULES))
    assert (t.loc["11", "n_for"], t.loc["11", "n_against"]) == (2, 4)
    assert t.loc["11", "verdict"] == "differs"
    t = by_number(IC.claims(measured(tau_rows=cold, tok=_tok(0.5), sent_table=_tok(0.9)), RULES))
    assert t.loc["11", "verdict"] == "contradicted"
    assert "words (m) 0.5, sentences (m) 0.9" in t.loc["11", "measured"]


def test_open_cases_make_inconclusive_and_the_opposite_contradicted():
    straddle = {k: Estimate(5e-4, -1e-3, 2e-3) for k in measured().gap_interval}
    t = by_number(IC.claims(measured(gap_interval=straddle), RULES))
    assert t.loc["2", "verdict"] == "inconclusive"  # none resolved below converged_gap
    assert t.loc["4", "verdict"] == "inconclusive"
    t = by_number(IC.claims(measured(nonlatent_gap=1e-3), RULES))
    assert t.loc["7", "verdict"] == "contradicted"
    assert "0.001 nats" in t.loc["7", "measured"]
    t = by_number(IC.claims(measured(ic_ev=IC.Evidence(3, 0, 11)), RULES))
    assert t.loc["5", "verdict"] == "inconclusive"  # none against, but fewer for than open
    assert "in 3 of 14 pairs (open: 11)" in t.loc["5", "measured"]


def test_tail_proposals_are_no_case_of_claim_2():
    m0 = measured()
    tail = dict(m0.tail_sub)
    far = list(tail)[:5]
    tail.update({k: 0.1 for k in far})
    t = by_number(IC.claims(measured(tail_sub=tail), RULES))
    assert t.loc["2", "n_for"] == len(tail) - 5
    assert "the other 5 cannot reach the limit" in t.loc["2", "measured"]


def test_rising_curves_and_loose_beams_are_against():
    m0 = measured()
    curves = dict(m0.curves)
    k = next(iter(curves))
    curves[k] = np.array([-5.0, -1.0, -3.0])  # the error falls back: the perplexity rises
    t = by_number(IC.claims(measured(curves=curves), RULES))
    assert (t.loc["3b", "n_for"], t.loc["3b", "n_against"]) == (3, 1)
    assert t.loc["3b", "verdict"] == "differs"
    over = dict(m0.best_paths)
    over["sticky", 10] = np.full((N_TEST, 10), -29.0)  # a "bound" above the exact log p
    t = by_number(IC.claims(measured(best_paths=over), RULES))
    assert t.loc["14", "verdict"] == "contradicted"


def test_peeking_that_does_not_help_is_against():
    m0 = measured()
    runs = dict(m0.runs)
    for m in MODELS:  # peek 2 no better than no peeking, beyond the interval: worse
        runs[m, "peek 2"] = pd.DataFrame({"instance": runs[m, SR.NO_PEEKING]["instance"] - 5})
    t = by_number(IC.claims(measured(runs=runs), RULES))
    assert (t.loc["9", "n_for"], t.loc["9", "n_against"]) == (2, 2)
    assert t.loc["9", "verdict"] == "differs"


def test_overlapping_densities_are_against_claim_12():
    m0 = measured()
    runs = dict(m0.runs)
    for m in MODELS:  # no peeking as good as the best: the same runs
        best = max(DENSITY, key=lambda n: runs[m, n]["instance"].mean())
        runs[m, SR.NO_PEEKING] = runs[m, best].copy()
    t = by_number(IC.claims(measured(runs=runs), RULES))
    assert t.loc["12", "n_against"] >= 2
    assert "vs no peeking, overlap 0.00" not in t.loc["12", "measured"]


def test_rules_and_thresholds():
    shown = IC.thresholds(RULES)
    assert "converged_gap = 0.001" in shown and "approx_share = 0.25" in shown
    loose = dataclasses.replace(RULES, approx_share=0.1)  # 12.1 is beyond 10 % of 10
    t = by_number(IC.claims(measured(), loose))
    assert (t.loc["16", "n_for"], t.loc["16", "n_against"]) == (1, 2)
    assert "beyond 10% of 10" in t.loc["16", "measured"]
    assert IC.slightly(1.1) is True and IC.slightly(1.0) is False and IC.slightly(2.5) is False


def test_best_constrained_reads_the_best_temperature_and_whether_it_is_apart():
    assert IC.best_constrained(_tok(2.0), "m") == (2.0, True)
    tab = _tok(2.0)
    tab.loc[("m", "constrained, τ = 1.1"), "instance level"] = Estimate(-0.11, -0.2, 0.0)
    assert IC.best_constrained(tab, "m") == (2.0, False)


@pytest.mark.parametrize("bad", [{"kglm_c": 20.0}])
def test_a_reversed_direction_is_against(bad):
    t = by_number(IC.claims(measured(**bad), RULES))
    assert t.loc["16", "n_against"] >= 1
