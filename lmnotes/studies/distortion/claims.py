"""The claims table of the distortion chapter (06): the claims of LeBrun, Sordoni & O'Donnell
(2022), each decided from the intervals the chapter measured, by the book's rule
(:func:`lmnotes.report.claims.verdict`).

:func:`claims` builds the whole table from ``results`` (what the chapter measured, a mapping
whose keys :data:`RESULTS` names) and ``rules`` (the chapter's thresholds, :data:`RULES`);
:func:`thresholds` states those thresholds under the table.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Mapping

import pandas as pd

from lmnotes.report import claims as lmclaims
from lmnotes.studies.distortion.resample import bin_estimate, ci, negated, num, scaled
from lmnotes.studies.distortion.training import strata_end

#: The keys of ``results`` and what each holds (an "estimate" has value, low and high).
RESULTS = {
    "main": "the main learner's name", "learners": "the learners' names, the main first",
    "arch": "the LSTM learners' names (empty: none trained)",
    "parameters": "learner name -> number of parameters",
    "n_models": "how many learners were trained in all (seeds included)",
    "under": "model name -> estimate of the share of test sequences it underestimates",
    "ends": "learner -> (rarest, most probable) equal-count bin rows: mean, low, high",
    "law_miss": "the length law's largest miss at those end bins (nats)",
    "tail": "setting -> estimate of the rarest-minus-most-probable residual of the length law",
    "s_coef": "learner -> estimate of the OLS coefficient of per-token surprisal",
    "bend": "setting -> estimate of the relative slope change across log p_L",
    "size": "None (one size trained), or a mapping: tiny, pp_gain and rel (estimates, as "
            "shares), n_overlap, n_bins, n_resolved, n_paired",
    "paper_size_gain": "the paper's GPT2-small -> medium gain in mean PP (a share)",
    "final": "part ('train', 'test') -> estimate of the mean error at the last epoch",
    "gaps": "(part, epoch) -> estimate of the most probable minus the rarest stratum's error",
    "last": "the last epoch", "mid": "the middle epoch",
    "n_best_last": "how many learners have their best validation epoch last",
    "gap_beyond": "estimate of the test strata gap's residual beyond length (< 0: beyond it)",
    "apart": "estimate of the test gap minus the training gap at the last epoch",
    "step_gain": "(N, 2N) -> estimate of the error gained by the doubling",
    "rel_step": "(N, 2N) -> the gain as a share of the error at N",
    "steps": "N -> the main learner's training steps at N", "sizes": "the training sizes N",
    "n_train": "the full training size",
    "same_n": "estimates of the Transformer's minus the LSTM's error at each N (empty: no LSTM)",
    "ahead": "estimates of the Transformer on N minus the LSTM on the next N",
    "head_mass": "learner -> estimate of P_M(B) − P_L(B) on L's most probable fifth",
    "perturbed": "rows (model, ci) of the mean error after the most perturbations",
    "top_level": "the most perturbations",
    "random_bins": "rows (low, high) of the random sequences' mean error per bin and model",
    "models_random": "the models scored on random sequences",
    "t_cmp": "bins of log p_L with the coldest minus warmest language's error (low, high)",
    "colder": "(T, T′, seed) -> estimate of the colder minus the warmer error per token",
    "lo_t": "the coldest temperature",
    "t_share": "(T, seed) -> estimate of the share underestimated",
    "temperatures": "the language temperatures", "temperature_seeds": "the seeds per temperature",
    "pretrained": "None (not run), why it was skipped (a sentence), or a mapping: language, "
                  "checks (for, against), share and rand (estimates), rarest and top (the end "
                  "bins' mean errors)",
    "lnre": "process -> its Good–Turing estimate at the largest N ('P̂_N = N₁/N')",
    "rise": "process -> the rise of its decay exponent over the last decade",
    "gap": "learner -> estimate of the calibration gap ΔH − KL per token",
    "seq_rate": "learner -> estimate of the entropy rate of M's samples minus L's",
}
#: The keys of ``rules``: the chapter's thresholds.
RULES = {
    "size_cut": "size matters little when the mean-PP gain is below this (a share)",
    "size_margin": "the parameter behind size_cut (0: the paper's own gain)",
    "linear_margin": "linear in log p_L when the slope changes by less than this share",
    "near_zero_nats": "a training error within this many nats of 0 has converged",
    "level_margin": "data levels off when a doubling gains less than this share",
    "lnre_share": "LNRE zone: Good–Turing unseen mass above this at the largest N",
    "lnre_acceleration": "… and a decay exponent rising by less than this over a decade",
}


def in_lnre_zone(share: float, rise: float, rules: Mapping) -> bool:
    """A process is in the LNRE zone when its Good–Turing unseen mass at the largest N exceeds
    ``lnre_share`` and its decay exponent rises by less than ``lnre_acceleration`` over the
    last decade (App. A.5, with the chapter's test of the decay's shape)."""
    return bool(share > rules["lnre_share"] and rise < rules["lnre_acceleration"])


def claims(results: Mapping, rules: Mapping) -> pd.DataFrame:
    """The chapter's claims table: one row per claim of the paper (and its conclusion), its
    verdict computed from the cases by :func:`lmnotes.report.claims.row`."""
    missing = [k for k in RESULTS if k not in results] + [k for k in RULES if k not in rules]
    if missing:
        raise ValueError(f"the claims need {missing} (see RESULTS and RULES)")
    r, q = SimpleNamespace(**results), SimpleNamespace(**rules)
    main, learners, arch = r.main, r.learners, r.arch
    case, above, below, within = lmclaims.case, lmclaims.above, lmclaims.below, lmclaims.within
    rows = []

    def claim(text_, cases, measured, basis="measured"):
        """A row of the claims table, its verdict computed from the cases."""
        rows.append(lmclaims.row(text_, cases if isinstance(cases, lmclaims.Evidence)
                                 else lmclaims.Evidence.of(cases), measured, basis=basis))

    ends = r.ends
    claim("M underestimates most test sequences",
          [above(v, 0.5) for v in r.under.values()],
          "; ".join(f"{n} {ci(v)}" for n, v in r.under.items()))
    claim("The rarer the sequence, the worse the underestimation (binned)",
          [case(ends[n][0]["high"] < ends[n][1]["low"],
                ends[n][0]["low"] > ends[n][1]["high"]) for n in learners],
          "rarest vs most probable equal-count bin: " + "; ".join(
              f"{n} {num(ends[n][0]['mean'])} vs {num(ends[n][1]['mean'])}"
              for n in learners) + f"; a constant deficit per token predicts "
          f"both ends within {num(r.law_miss, 2)} nats")
    claim("Rare sequences are underestimated beyond their length",
          [below(r.tail[n]) for n in learners] + [below(r.s_coef[n]) for n in learners],
          "rarest minus most probable bin, residual of the length law: "
          + "; ".join(f"{n} {ci(r.tail[n])}" for n in learners)
          + "; OLS coefficient of per-token surprisal at equal length: "
          + "; ".join(f"{n} {ci(r.s_coef[n])}" for n in learners))
    claim("The error falls non-linearly with log p_L",
          [case(b.low > q.linear_margin or b.high < -q.linear_margin,
                -q.linear_margin < b.low and b.high < q.linear_margin)
           for b in (r.bend[n] for n in learners)],
          "relative slope change across the central 95 % of log p_L: "
          + "; ".join(f"{n} {ci(r.bend[n])}" for n in learners))
    if r.size is not None:
        s = SimpleNamespace(**r.size)
        claim("Model size matters little",
              [case(2 * s.n_overlap > s.n_bins, 2 * s.n_overlap < s.n_bins),
               case(2 * s.n_resolved < s.n_paired, 2 * s.n_resolved > s.n_paired),
               below(s.pp_gain, q.size_cut)],
              f"{main} vs {s.tiny} ({r.parameters[main] / 1e6:.2f} M vs "
              f"{r.parameters[s.tiny] / 1e6:.2f} M parameters): mean-PP gain "
              f"{ci(scaled(s.pp_gain, 100))}"
              f" % against the paper's {100 * r.paper_size_gain:.2f} % (its "
              "'slight'); mean errors differ by "
              f"{ci(scaled(s.rel, 100))}"
              f" % of their mean; unpaired per-bin intervals overlap in "
              f"{s.n_overlap} of {s.n_bins} bins (the paper's criterion); the "
              f"paired difference is resolved in {s.n_resolved} of {s.n_paired}")
    else:
        claim("Model size matters little", [], "one size trained")
    final, gaps, last, mid = r.final, r.gaps, r.last, r.mid
    near = [final["train"], gaps["train", last]]
    claim("Training error converges to ≈ 0 in every stratum",
          [within(e, q.near_zero_nats) for e in near],
          f"epoch {last}: mean train error {ci(final['train'])} nats, gap "
          f"between strata {ci(gaps['train', last])} (the strata {strata_end(gaps['train', last])}); best "
          f"validation epoch = last for {r.n_best_last} of {r.n_models} learners")
    claim("Test strata gaps persist while the training strata close",
          [below(r.gap_beyond), above(r.apart),
           within(gaps["train", last], q.near_zero_nats)],
          f"epoch {last}: test strata gap {ci(gaps['test', last])} (epoch 1: "
          f"{ci(gaps['test', 1])}; epoch {mid}: {ci(gaps['test', mid])}), of "
          f"which {ci(negated(r.gap_beyond))}"
          f" beyond length; exceeding the training gap by {ci(r.apart)}; "
          f"training strata gap {ci(gaps['train', last])}")
    step_gain = r.step_gain
    first, lastg = list(step_gain.values())[0], list(step_gain.values())[-1]
    last_rel = list(r.rel_step.values())[-1]
    # "levels off" can be shown, not refuted, by runs that stop at the largest N:
    # a last doubling that still helps is an open case
    claim("More data helps but levels off",
          [case(all(v.low > 0 for v in step_gain.values()),
                any(v.high < 0 for v in step_gain.values())),
           case(last_rel < q.level_margin, False)],
          f"every doubling helps (first {ci(first)}, last {ci(lastg)} nats), "
          f"the last still by {last_rel:.0%}; every N allowed "
          f"{r.steps[r.n_train]} updates, the smaller stopped early at "
          + ", ".join(f"{r.steps[N]}" for N in r.sizes if N != r.n_train)
          + "; levelling off can be shown here, not refuted")
    same_n = r.same_n
    claim("The Transformer uses data more efficiently than the LSTM",
          [above(e) for e in same_n],
          f"{main} minus {arch[0]} at equal N (positive: {main} closer to L): "
          + "; ".join(f"N = {N:,}: {ci(e)}" for N, e in zip(r.sizes, same_n))
          + "; against the LSTM on 2N (not counted): "
          + "; ".join(ci(e) for e in r.ahead) if same_n else "no LSTM trained")
    claim("The mass does not go to the head",
          [below(bin_estimate(ends[n][1])) for n in learners]
          + [below(r.head_mass[n]) for n in learners],
          "mean error in the most probable twentieth (equal-count bin): " + "; ".join(
              f"{n} {ci(bin_estimate(ends[n][1]))}" for n in learners)
          + "; M's mass minus L's on L's most probable fifth, from M's samples: "
          + "; ".join(f"{n} {ci(r.head_mass[n])}" for n in learners))
    claim("Perturbed sequences end up overestimated",
          [above(e) for e in r.perturbed["ci"]],
          f"after {r.top_level} perturbations: " + "; ".join(
              f"{p.model} {ci(p.ci)}" for p in r.perturbed.itertuples()))
    rand_df = r.random_bins
    claim("Random Σ* sequences are overestimated whatever p_L",
          [above(b) for b in rand_df.itertuples()],
          f"bins above zero: {int((rand_df['low'] > 0).sum())} of {len(rand_df)}"
          f" ({', '.join(r.models_random)})")
    t_cmp = r.t_cmp
    binned_for = (t_cmp["high"] < 0).sum() > len(t_cmp) / 2
    binned_against = (t_cmp["low"] > 0).sum() > len(t_cmp) / 2
    claim("Lower-entropy languages suffer more",
          [below(c) for c in r.colder.values()]
          + [case(binned_for, binned_against)],
          "per token, colder minus warmer, by seed: " + "; ".join(
              ci(c) for c in r.colder.values()) + f"; at equal log p_L, T = "
          f"{r.lo_t} worse in {int((t_cmp['high'] < 0).sum())} of {len(t_cmp)} "
          "bins (longer sequences there); equal training tokens")
    warm = [T for T in r.temperatures if T == 1.0]
    claim("The underestimation holds at T = 1 (App. A.3)",
          [above(r.t_share[1.0, s], 0.5) for s in r.temperature_seeds] if warm
          else [], "share underestimated at T = 1, by seed: " + "; ".join(
              ci(r.t_share[1.0, s]) for s in r.temperature_seeds) if warm
          else "T = 1 not among the language temperatures")
    if isinstance(r.pretrained, str):
        claim("The findings hold with a pretrained ground truth", [],
              f"skipped: {r.pretrained}")
    elif r.pretrained:
        p = SimpleNamespace(**r.pretrained)
        claim("The findings hold with a pretrained ground truth",
              lmclaims.Evidence(*p.checks, 3 - sum(p.checks)),
              f"{p.language} at T = 1: underestimated {ci(p.share)}; "
              f"rarest bin {num(p.rarest)} vs most probable "
              f"{num(p.top)}; random sequences {ci(p.rand)}")
    else:
        claim("The findings hold with a pretrained ground truth", [],
              "not run at this profile (the gpu profile's pretrained L)",
              basis="gpu profile only")
    lnre, rise = r.lnre, r.rise
    in_zone = {k: in_lnre_zone(lnre[k], rise[k], rules) for k in lnre}
    language_side = [k for k in ("real sentences", "real words") if k in in_zone]
    dice = [k for k in in_zone if k.startswith("fair die")]
    claim("Natural language is in the LNRE zone, unlike dice",
          [case(in_zone[k], not in_zone[k]) for k in language_side]
          + [case(not in_zone[k], in_zone[k]) for k in dice],
          "P̂_N and the decay exponent's rise over the last decade: " + "; ".join(
              f"{k} {num(lnre[k])}, {num(rise[k], 2)}"
              for k in language_side + dice))
    claim("M spreads its mass too uniformly (conclusion)",
          [above(r.gap[n]) for n in learners] + [above(r.seq_rate[n]) for n in learners],
          "calibration gap ΔH − KL per token: " + "; ".join(
              f"{n} {ci(r.gap[n])}" for n in learners) + "; entropy rate of M's "
          "samples minus L's: " + "; ".join(f"{n} {ci(r.seq_rate[n])}"
                                             for n in learners)
          + "; ΔH > 0 for any calibrated learner, not counted")
    return lmclaims.table(rows)


def thresholds(rules: Mapping, paper_size_gain: float) -> dict[str, str]:
    """The chapter's thresholds as the claims table states them, "name = value" -> meaning."""
    q = SimpleNamespace(**rules)
    return {
        f"size_margin = {q.size_margin:g}": "size matters little when the larger "
        "model's gain in mean PP is below this (0: the paper's own "
        f"GPT2-small → medium gain, {100 * paper_size_gain:.2f} %)",
        f"linear_margin = {q.linear_margin:g}": "the error is linear in log p_L when "
        "its slope changes by less than this share across the central 95 % of "
        "log p_L, non-linear when by more",
        f"lnre_acceleration = {q.lnre_acceleration:g}": "a process is in the LNRE "
        "zone when, besides lnre_share, its decay exponent rises by less than "
        "this over the last decade of N",
        f"level_margin = {q.level_margin:g}": "data levels off when a doubling "
        "gains less than this share",
        f"near_zero_nats = {q.near_zero_nats:g}": "a training error within this "
        "many nats of 0 has converged",
        f"lnre_share = {q.lnre_share:g}": "a process is in the LNRE zone when the "
        "Good–Turing share of unseen mass exceeds this at the largest N"}
