"""The claims of Logan, Gardner & Singh (2020) and the rules that decide them: chapter 04.

:func:`claims` turns what the chapter measured (:class:`Measured`: the repeated runs of every
proposal on the two switch-LMs, the curves against K, the beam bounds, the tokenization
experiments and the paper's own Table 1) and the chapter's thresholds (:class:`Rules`) into
the claims table, one row per claim of the source, each verdict computed by
:func:`lmnotes.report.claims.verdict` from cases decided by 95% intervals or tests at 5%.
Claims that a theorem guarantees in every case (1, 2, 3a, 5) are judged by "none against",
the empirical ones by "every case". :func:`thresholds` states the thresholds the table shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss
from scipy.special import logsumexp

from lmnotes.report import claims as lmclaims, plots
from lmnotes.studies.importance import switch_runs as SR
from lmnotes.studies.importance.summaries import fmt, mean_estimate, overlap, p_text

Evidence, case, above, below = lmclaims.Evidence, lmclaims.case, lmclaims.above, lmclaims.below


@dataclass(frozen=True)
class Rules:
    """The chapter's thresholds and the settings its claims name: ``converged_gap`` (claims 2
    and 4: a relative perplexity gap below it has converged), ``bias_removed`` (claim 6:
    "most" of the corpus-level bias), ``overlap_shared`` (claim 12: densities sharing this
    much mass overlap), ``approx_share`` (claim 16: "≈ 10" holds within this share of 10);
    ``k_max`` the draws per sentence on the curves, ``n_runs`` the runs per proposal, and the
    ``peek_horizons`` and ``temperatures`` of the proposals."""

    converged_gap: float
    bias_removed: float
    overlap_shared: float
    approx_share: float
    k_max: int
    n_runs: int
    peek_horizons: Sequence[int]
    temperatures: Sequence[float]


@dataclass
class Measured:
    """What chapter 04 measured. Keys ``(model, proposal)`` name a switch-LM (``models``, in
    order) and a proposal (:mod:`.switch_runs` labels).

    Repeated runs: ``runs[key]`` has a column ``instance`` (log p̂_I − log p per run, nats
    over the ``n_test`` sentences, ``n_tokens`` tokens); ``latent_names`` are the proposals
    other than the exact posterior; ``density_names`` those of the density figure;
    ``ic_ev``, ``ic_runs``, ``ic_min_gap``, ``ic_max_gap``: instance against corpus level
    (evidence, share of single runs, the range of the gap in % of the perplexity);
    ``doc_ev``, ``removed``, ``article_tokens``: the share of the corpus-level bias removed
    per instance unit; ``nonlatent_gap``: the largest |instance − corpus| of a non-latent LM.

    Curves against K: ``tail_sub[key]`` the share of sentences beyond e^KL > k_max,
    ``gap_interval[key]`` the relative gap at k_max, ``agree`` whether they pick the same
    proposals; ``mono_ev`` (E log p̂_K rising), ``mono_keys``, ``curves[key]`` (summed error
    per K), ``falls_single``, ``n_curve_steps``.

    Temperature and ranking: ``tau_rows[key]`` with ``"τ* (χ²)"``; ``tok``, ``sent_table``: the
    tokenization tables (``instance level`` estimates, ``(model, proposal)`` index);
    ``chi[key]``: log(1 + χ²) per sentence; ``n_sep``, ``n_separation``: neighbouring pairs
    apart and in all; ``kendall[(model, criterion)]`` (scipy results), ``top_pick[model]``
    (best at K = 10, χ²-best), ``single_pick[model]`` (share of single runs picking it).

    Beams: ``best_paths[(model, k)]`` log p(x, z) of the k best paths, ``logp[model]`` exact
    log p(x), ``share[(model, k)]`` p(x) share of the beam under q, ``k_top``, ``beam_sizes``;
    ``length_cases``, ``short_long`` (per model), ``equal_size`` (sticky − fitted per bin).

    Tokenization and the paper: ``invalid_cases`` (claim 10), ``n_words``,
    ``ancestral_hits[model]``; ``paper_lower`` (n_lower, n_pairs), ``peek_vs`` (the paper's
    peeking against no peeking by (level, model, τ label)), ``kglm_c``, ``kglm_i`` (KGLM's
    corpus- and instance-level perplexity at τ = 1.1).
    """

    models: Sequence[str]
    runs: Mapping
    latent_names: Sequence[str]
    density_names: Sequence[str]
    n_test: int
    n_tokens: float
    ic_ev: lmclaims.Evidence
    ic_runs: float
    ic_min_gap: float
    ic_max_gap: float
    doc_ev: lmclaims.Evidence
    removed: Mapping
    article_tokens: float
    nonlatent_gap: float
    tail_sub: Mapping
    gap_interval: Mapping
    agree: bool
    mono_ev: lmclaims.Evidence
    mono_keys: Sequence
    curves: Mapping
    falls_single: int
    n_curve_steps: int
    tau_rows: Mapping
    tok: pd.DataFrame
    sent_table: pd.DataFrame
    chi: Mapping
    n_sep: int
    n_separation: int
    kendall: Mapping
    top_pick: Mapping
    single_pick: Mapping
    best_paths: Mapping
    logp: Mapping
    share: Mapping
    k_top: int
    beam_sizes: Sequence[int]
    length_cases: Mapping
    short_long: Mapping
    equal_size: Sequence
    invalid_cases: Sequence
    n_words: int
    ancestral_hits: Mapping
    paper_lower: tuple[int, int]
    peek_vs: Mapping
    kglm_c: float
    kglm_i: float


def slightly(t: float) -> bool | None:
    """Claim 11's case for a best temperature: for in (1, 2], against elsewhere."""
    return case(1 < t <= 2, not 1 < t <= 2)


def best_constrained(tab: pd.DataFrame, model: str) -> tuple[float, bool]:
    """The constrained proposal's best temperature (its mean error closest to 0) and whether
    its interval separates it from every other temperature's."""
    err = tab.xs(model)["instance level"].filter(like="constrained")
    best = max(err.index, key=lambda i: err[i].value)
    apart = all(err[best].low > err[i].high for i in err.index if i != best)
    return float(best.split("τ = ")[1]), apart


def thresholds(rules: Rules) -> dict[str, str]:
    """The thresholds the claims table shows, ``{parameter = value: what it decides}``."""
    return {
        f"converged_gap = {rules.converged_gap:g}": "claims 2 and 4: a perplexity within this share of "
        "the truth has converged",
        f"bias_removed = {rules.bias_removed:g}": "claim 6: 'most' of the corpus-level bias",
        f"overlap_shared = {rules.overlap_shared:g}": "claim 12: two densities overlap when they share "
        "this much mass",
        f"approx_share = {rules.approx_share:g}": "claim 16: '≈ 10' holds within this share of 10",
        "τ* in (1, 2]": "claim 11: the paper's 'slightly above 1' (its range [1.1, 2]); "
        "any other τ* is against"}


def claims(results: Measured, rules: Rules) -> pd.DataFrame:
    """The claims table of chapter 04 (:func:`lmnotes.report.claims.table`), from what it
    measured and its rules."""
    r = results
    switch, runs, T, N_test = r.models, r.runs, r.n_tokens, r.n_test
    k_max, n_runs, converged_gap = rules.k_max, rules.n_runs, rules.converged_gap
    peek_horizons, temperatures = rules.peek_horizons, rules.temperatures
    rows = []

    def claim(text, evidence, measured, **kw):
        """A row of the claims table, its verdict computed from the evidence."""
        rows.append(lmclaims.row(text, evidence if isinstance(evidence, Evidence)
                                 else Evidence.of(evidence), measured, **kw))

    latent_cases = [(m, n) for m in switch for n in r.latent_names]
    ub = {k: mean_estimate(runs[k]["instance"], N_test) for k in latent_cases}
    below_truth = np.mean([np.mean(runs[k]["instance"] > 0) for k in latent_cases])
    worst_ub = max(ub, key=lambda k: ub[k].high)
    claim("1. The IS estimate of perplexity is a stochastic upper bound (Eq. 4)",
          [below(ub[k]) for k in latent_cases],
          f"E log p̂ − log p per sentence over {n_runs} runs, below 0 beyond the interval for "
          f"{sum(below(e) is True for e in ub.values())} of {len(ub)} model–proposal pairs (closest: "
          f"{worst_ub[1]}, {worst_ub[0]}, {fmt(ub[worst_ub], 2)}); {100 * below_truth:.0f} % of single "
          "runs fall below the truth: a bound on average, not run by run.", basis="in expectation",
          rule="none against")

    tail_sub, gap_interval = r.tail_sub, r.gap_interval
    near_names = [k for k, v in tail_sub.items() if v == 0]
    claim("2. The estimates are consistent: they converge as K grows (§2)",
          [below(gap_interval[k], converged_gap) for k in near_names],
          f"relative perplexity gap at K = {k_max:,} below {converged_gap:.1%} beyond its interval "
          f"for {sum(below(gap_interval[k], converged_gap) is True for k in near_names)} of the "
          f"{len(near_names)} proposals whose sentences all need fewer than K draws (e^KL); the "
          f"other {len(tail_sub) - len(near_names)} cannot reach the limit at this K and are no case.",
          rule="none against")

    mono_ev = r.mono_ev
    claim("3a. Estimates fall monotonically as K grows, in expectation (Figs. 2–3)", mono_ev,
          f"E log p̂_K rises beyond the intervals at every step from one K to the next whose "
          f"predicted rise the runs can resolve, in {mono_ev.n_for} of {mono_ev.n} model–proposal pairs, "
          f"open in {mono_ev.n_unresolved} (a theorem, Burda et al.: "
          "it can fail only by noise or a bug).", basis="in expectation", rule="none against")
    curve_rises = {k: int(np.sum(np.diff(r.curves[k]) < 0)) for k in r.mono_keys}
    claim("3b. The plotted curves fall monotonically as K grows (Figs. 2–3)",
          [case(v == 0, v > 0) for v in curve_rises.values()],
          f"single running curves whose perplexity never rises: "
          f"{sum(v == 0 for v in curve_rises.values())} of {len(curve_rises)}; they rise "
          f"{r.falls_single} times in {r.n_curve_steps} steps in all.")

    conv_cases = [above(gap_interval[k], converged_gap) for k in tail_sub]
    claim("4. No sign of convergence even at K = 10⁴ (Fig. 3)", conv_cases,
          f"perplexity still above the truth by more than {converged_gap:.1%} at K = {k_max:,} for "
          f"{conv_cases.count(True)} of {len(conv_cases)} model–proposal pairs, within it for "
          f"{conv_cases.count(False)}; exp(KL), the draws a sentence needs, decides which "
          f"({'exactly' if r.agree else 'nearly'}).")

    ic_ev = r.ic_ev
    n_lower, n_pairs = r.paper_lower
    claim("5. Instance-level estimates are uniformly lower than corpus-level ones (Table 1)",
          ic_ev, f"lower beyond the runs' interval in {ic_ev.n_for} of {ic_ev.n} pairs (open: "
          f"{ic_ev.n_unresolved}), in {100 * r.ic_runs:.0f} % of single runs; the paper's table: {n_lower} "
          f"of {n_pairs}. The direction is a theorem (Rao–Blackwell); the margin is wide only far "
          f"from the posterior (from {fmt(r.ic_min_gap, 2)} to {fmt(r.ic_max_gap, 2)} % of the perplexity).",
          basis="by construction", rule="none against")

    doc_ev = r.doc_ev
    claim("6. (Presumed by recommendation 1) aggregating per instance removes most of the "
          "corpus-level bias, also with article-length documents as instances (KGLM)", doc_ev,
          f"share of the corpus-level bias removed with articles ({r.article_tokens:,.0f} "
          f"tokens) as instances: below {rules.bias_removed:.0%} beyond the interval in "
          f"{doc_ev.n_against} of {doc_ev.n} pairs, above in {doc_ev.n_for}; with sentences "
          f"{min(v['instance'].value for v in r.removed.values()):.0%} or more.")

    gap = r.nonlatent_gap
    claim("7. The two aggregations coincide for a non-latent LM",
          [case(gap < 1e-9, gap >= 1e-9)],
          f"largest |instance − corpus| over {n_runs} runs: "
          f"{gap:.2g} nats", basis="by construction")

    claim("8. KGLM's evaluation aggregates over the corpus (§3)", Evidence(1),
          "read from the code (no run): kglm-model, branch master, evaluate_perplexity.py "
          "(36ba9cd): one weight per sample summed over every batch of the corpus, then "
          "logsumexp over samples (Eq. 6); the acl-2020-updates branch aggregates per instance.")

    peek_vs = r.peek_vs
    peek_at1 = [v for (_, _, t), v in peek_vs.items() if t == "τ = 1"]
    peek_loses = [k for k, v in peek_vs.items() if not v]
    peekers = [SR.peek_label(h) for h in peek_horizons if h > 0]
    peek_cases = {(m, n): mean_estimate(runs[m, SR.NO_PEEKING]["instance"] - runs[m, n]["instance"], N_test)
                  for m in switch for n in peekers + [SR.MEAN_FIELD]}
    mf_worse = [m for m in switch if peek_cases[m, SR.MEAN_FIELD].low > 0]
    claim("9. Peeking proposals give better estimates",
          [below(peek_cases[m, n]) for m in switch for n in peekers],
          f"peek h vs no peeking (the same chain, h = {', '.join(str(h) for h in peek_horizons if h)}): "
          f"better in {sum(below(peek_cases[m, n]) is True for m in switch for n in peekers)} of "
          f"{len(switch) * len(peekers)}. Not cases: mean-field (forgets the state, unlike the paper's "
          f"proposals) is worse on the {' and '.join(mf_worse) or 'neither'} model, as is peek 1 at "
          f"τ = {max(temperatures):g}; the paper's table: peeking wins {sum(peek_at1)} of "
          f"{len(peek_at1)} cells at τ = 1, loses {len(peek_loses)} of {len(peek_vs)} at other τ.")

    claim("10. A proposal that does not peek produces invalid structures (no non-peeking RNNG)",
          r.invalid_cases, f"unconstrained samples that spell none of the {r.n_words} words: "
          + "; ".join(f"{plots.label(n)} {int(np.isneginf(v).sum())} of {len(v)} never spelled"
                      for n, v in r.ancestral_hits.items())
          + "; a sample spells x with probability p(x).", basis="by construction")

    tok_best_tau = {f"{lab} ({mm})": best_constrained(tab, mm)
                    for lab, tab in (("words", r.tok), ("sentences", r.sent_table))
                    for mm in tab.index.get_level_values(0).unique()}
    tau_cases = ([slightly(row["τ* (χ²)"]) for row in r.tau_rows.values()]
                 + [slightly(t) if apart else None for t, apart in tok_best_tau.values()])
    claim("11. A temperature slightly above 1 (τ ∈ [1.1, 2]) is best", tau_cases,
          "exact τ* by χ²: " + "; ".join(f"{fam} ({m}) {row['τ* (χ²)']:.2g}"
                                        for (m, fam), row in r.tau_rows.items())
          + "; the constrained tokenization proposal's best τ: " + ", ".join(
              f"{lab} {t:g}{'' if apart else ' (open)'}" for lab, (t, apart) in tok_best_tau.items())
          + ".")

    sep_cases, sep_text = [], []
    for m in switch:
        ranked = sorted(r.density_names, key=lambda n: runs[m, n]["instance"].mean(), reverse=True)
        best = ranked[0]
        # the paper's check: the order of the modes follows the order of the proposals'
        # quality, here their exact χ² (Kendall τ over the density figure's proposals)
        order_tau = ss.kendalltau([runs[m, n]["instance"].mean() for n in r.density_names],
                                  [-r.chi[m, n].mean() for n in r.density_names])
        sep_cases.append(case(order_tau.pvalue < 0.05 and order_tau.statistic > 0,
                              order_tau.pvalue < 0.05 and order_tau.statistic < 0))
        sep_text.append(f"{m}: order vs χ², Kendall τ {order_tau.statistic:.2f}")
        for worse in (SR.NO_PEEKING, SR.peek_label(1, 0.5)):
            x, y = runs[m, best]["instance"] / T, runs[m, worse]["instance"] / T
            p_ = ss.ttest_ind(x, y, equal_var=False).pvalue
            ov = overlap(x.to_numpy(), y.to_numpy())
            sep_cases.append(case(p_ < 0.05 and ov < rules.overlap_shared, ov >= rules.overlap_shared))
            sep_text.append(f"vs {worse}, overlap {ov:.2f}")
    claim("12. Repeated estimates are stable: their modes follow the proposals' quality, and "
          "τ = 0.5 and no peeking are clearly separated from the best (Fig. 4)", sep_cases,
          "the modes' order and the separation (overlap < overlap_shared) from the best: "
          + "; ".join(sep_text)
          + f"; {r.n_sep} of {r.n_separation} neighbouring pairs differ (Welch p < 0.05).")

    kendall, top_pick = r.kendall, r.top_pick
    rank_cases = [case(t.pvalue < 0.05 and t.statistic > 0, t.pvalue < 0.05 and t.statistic < 0)
                  for (m, c), t in kendall.items() if c in ("χ²", "KL")]
    rank_cases += [case(a == b, a != b) for a, b in top_pick.values()]
    claim("13. The ranking of proposals holds as K grows: a few samples choose the best", rank_cases,
          "Kendall τ between the ranks at K = 10 and the exact ones: " + "; ".join(
              f"{m} vs {c} {t.statistic:.2f} ({p_text(t.pvalue)})"
              for (m, c), t in kendall.items() if c in ("χ²", "KL"))
          + f"; the best at K = 10 is the χ²-best on {sum(a == b for a, b in top_pick.values())} of "
          f"{len(top_pick)} models; one run of 10 draws picks it in "
          + " and ".join(f"{100 * v:.0f} %" for v in r.single_pick.values()) + " of runs.")

    beam_strict = all(np.all(logsumexp(r.best_paths[m, k], axis=1) <= r.logp[m] + 1e-9)
                      and np.all(np.log(r.share[m, r.k_top]) <= 1e-9) for m in switch for k in r.beam_sizes)
    claim("14. Beam marginalisation gives strict upper bounds (Table 2)",
          [case(beam_strict, not beam_strict)],
          "every beam and k-best bound ≥ the exact perplexity: a sum over a subset of the paths.",
          basis="by construction")
    claim("15. Beam bounds are tight only where the latent space is small (Table 2)",
          list(r.length_cases.values()),
          "share of p(x) on the beam, shortest minus longest sentences: " + "; ".join(
              f"{m} {fmt(r.short_long[m], 2)} points" for m in switch)
          + f"; yet at equal length the sticky model's beam holds more beyond the interval in "
          f"{sum(above(e) is True for e in r.equal_size)} of {len(r.equal_size)} bins: where 'small' "
          "ends depends on the posterior's concentration.")

    kglm_c, kglm_i, approx_share = r.kglm_c, r.kglm_i, rules.approx_share
    kglm_gap = kglm_c - kglm_i
    claim("16. The source's arithmetic: KGLM instance level ≈ 10 nats below corpus level at τ = 1.1",
          [case(kglm_i < kglm_c, kglm_i > kglm_c),
           case(abs(kglm_gap / 10 - 1) <= approx_share, abs(kglm_gap / 10 - 1) > approx_share),
           case(abs(np.log(kglm_c / kglm_i) / 10 - 1) <= approx_share,
                abs(np.log(kglm_c / kglm_i) / 10 - 1) > approx_share)],
          f"the direction holds ({kglm_c:.1f} > {kglm_i:.1f}); the size, {kglm_gap:.1f}, is "
          f"{'within' if abs(kglm_gap / 10 - 1) <= approx_share else 'beyond'} {approx_share:.0%} of "
          f"10, but in perplexity points: the unit is wrong, in nats per token the gap is "
          f"ln({kglm_c:.1f}/{kglm_i:.1f}) = {np.log(kglm_c / kglm_i):.2f}.")

    return lmclaims.table(rows)
