"""The claims of Logan, Gardner & Singh (2020), each with the form its words give it and the
cases that decide it: chapter 04.

:data:`SECTIONS` lists the chapter's sections that decide claims and what each reads of what
the chapter measured (:data:`READS`); :data:`CLAIMS` lists the paper's claims, each with the
section that decides it. :func:`claims` turns what the chapter measured (a
:class:`lmnotes.report.sections.Measured`: the repeated runs of every proposal on the two
switch-LMs, the curves against K, the exact divergences, the beam bounds,
the tokenization experiments and the paper's own Table 1) and the chapter's thresholds
(:class:`Rules`) into the claims table: one row per claim of the source, with its form
(:data:`lmnotes.report.cases.FORMS`) and its cases (:class:`lmnotes.report.cases.Case`), from
which :func:`lmnotes.report.claims.row` computes the verdict. A universal claim ("a bound",
"uniformly", "in all settings") holds in *every* case, an exact fact (an identity, the
source's code) is an *identity*, and the source's "≈ 10 nats" is an *effect* of a sign and a
size.

Where the source prints the numbers a claim rests on (its Table 1: claims 5, 9, 11 and 16),
:func:`source_cases` builds that claim's cases from them with the same code the chapter's
cases come from, the printed digit as the interval (:func:`printed`), and the claim's row says
what its own numbers give by the claim's form. :func:`thresholds` states the thresholds the
table shows.
"""

from __future__ import annotations

import dataclasses

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss
from scipy.special import logsumexp

from lmnotes.report import cases as lmcases, claims as lmclaims, plots
from lmnotes.report.sections import Measured, Section, reading
from lmnotes import stats
from lmnotes.stats.inference import Estimate
from lmnotes.studies.importance import aggregation as AG
from lmnotes.studies.importance import paper as PA
from lmnotes.studies.importance import switch_runs as SR
from lmnotes.studies.importance.summaries import fmt, mean_estimate, overlap

Case = lmcases.Case

#: The paper's temperatures (its Table 1) and the window its "τ ∈ [1.1, 2]" spans at their
#: resolution (claim 11): a τ nearer, on a log scale, to 1.1 than to 1 and to 2 than to 5.
PAPER_TEMPERATURES = (0.5, 0.9, 1.0, 1.1, 2.0, 5.0)
WINDOW = (math.sqrt(1.0 * 1.1), math.sqrt(2.0 * 5.0))
#: Below this an exact difference is floating-point noise (claims 7 and 14).
EXACT_ZERO = 1e-9


@dataclass(frozen=True)
class Rules:
    """The chapter's thresholds and the settings its claims name: ``converged_gap`` (claims 2
    and 4: a relative perplexity gap below it has converged), ``bias_removed`` (claim 6:
    "most" of the corpus-level bias), ``overlap_shared`` (claim 12: densities sharing this
    much mass overlap; "clearly" separated below half of it), ``approx_share`` (claim 16: "≈
    10" holds within this share of 10), ``tau_tolerance`` (claim 11: a temperature whose mean
    1 + χ² is within this share of the best's is as good), ``beam_share_margin`` (claim 15:
    two beams holding shares of p(x) within this many points are equally tight); ``k_max``
    the draws per sentence on the curves, ``n_runs`` the runs per proposal, and the
    ``peek_horizons`` and ``temperatures`` of the proposals."""

    converged_gap: float
    bias_removed: float
    overlap_shared: float
    approx_share: float
    tau_tolerance: float
    beam_share_margin: float
    k_max: int
    n_runs: int
    peek_horizons: Sequence[int]
    temperatures: Sequence[float]


#: What the sections read, each name with what it is. Keys ``(model, proposal)`` name a
#: switch-LM (``models``, in order) and a proposal (:mod:`.switch_runs` labels).
READS = {
    "models": "the switch-LMs, in order",
    "runs": "per (model, proposal), the repeated runs: a column instance, log p̂_I − log p per run "
    "(nats over the n_test sentences)",
    "n_test": "the test sentences",
    "latent_names": "the proposals other than the exact posterior",
    "density_names": "the proposals of the density figure",
    "rank_names": "the proposals the ranking orders (the density figure's and more temperatures)",
    "ic_cases": "instance against corpus level (aggregation.instance_vs_corpus)",
    "ic_runs": "the share of single runs where instance level is better",
    "ic_min_gap": "the smallest gap, in % of the perplexity",
    "ic_max_gap": "the largest gap, in % of the perplexity",
    "doc_cases": "the share of the corpus-level bias removed per instance unit (cases)",
    "removed": "the share of the corpus-level bias removed per instance unit",
    "article_tokens": "the tokens of an article-length instance",
    "nonlatent_gap": "the largest |instance − corpus| of a non-latent LM",
    "tail_sub": "per key, the share of sentences beyond e^KL > k_max",
    "gap_interval": "per key, the relative gap at k_max",
    "agree": "whether the tail and the gap pick the same proposals",
    "mono_cases": "E log p̂_K rising (convergence.monotone_cases)",
    "mono_keys": "the keys of the plotted curves",
    "curves": "per key, the summed error per K",
    "falls_single": "the curves that never rise",
    "n_curve_steps": "the steps of a curve",
    "expect": "per key, E log p̂_K − log p from disjoint runs (switch_runs.expected), on the "
    "curves' sentences sub",
    "sub": "the curves' sentences",
    "tau_grid": "the temperatures of the divergence grid",
    "tau_div": "per (model, family), mean KL and mean log(1 + χ²) per temperature (temperature.divergences)",
    "tok": "the tokenization table (instance-level estimates)",
    "sent_table": "the sentence-level tokenization table ((model, proposal) index)",
    "chi": "per key, log(1 + χ²) per test sentence",
    "kendall": "per (model, criterion), the Kendall τ of the ranking (scipy results)",
    "single_pick": "per model, the share of single runs picking the χ²-best",
    "best_paths": "per (model, k), log p(x, z) of the k best paths",
    "logp": "per model, exact log p(x)",
    "share": "per (model, k), the share of p(x) in the beam under q",
    "k_top": "the largest beam",
    "beam_sizes": "the beam sizes",
    "short_long": "per model, the beam's share on the shortest minus the longest sentences",
    "equal_size": "sticky − fitted share per length bin",
    "length_bins": "the length bins' labels",
    "invalid_cases": "claim 10's cases (tokenization.word_values)",
    "n_words": "the words of the tokenization study",
    "ancestral_hits": "per model, the ancestral proposal's valid structures",
    "kglm_code": "what the KGLM code's lines aggregate over (paper.aggregation_of of paper.kglm_master)",
    "paper": "the paper's Table 1 as printed (paper.TABLE1)",
}


# --------------------------------------------------------------------------------------------
# the cases, built the same way from the chapter's runs and from the paper's printed numbers


def peeking_better(gains: Mapping[str, Estimate], why: str) -> list[Case]:
    """Claim 9: a case per peeking proposal, for if it is better than no peeking beyond the
    interval (``gains[name]`` > 0: how much better, in the unit ``why`` names)."""
    return [Case.interval(name, "above", g, why=why) for name, g in gains.items()]


def tied_range(scores: Mapping[float, Estimate]) -> tuple[float, float, float]:
    """The best temperature by ``scores`` (higher is better) and the range of the temperatures
    not apart from it (their interval reaches the best's)."""
    best = max(scores, key=lambda t: scores[t].value)
    tied = [t for t, e in scores.items() if e.high >= scores[best].low]
    return float(best), float(min(tied)), float(max(tied))


def near_range(grid: np.ndarray, values: np.ndarray, tolerance: float) -> tuple[float, float, float]:
    """The temperature of ``grid`` that minimises ``values`` (a mean log(1 + χ²)) and the range
    of those within log(1 + ``tolerance``) of the minimum: as good, to that tolerance."""
    values = np.asarray(values, dtype=float)
    best = int(np.nanargmin(values))
    near = np.asarray(grid)[values <= values[best] + math.log1p(tolerance)]
    return float(grid[best]), float(near.min()), float(near.max())


def tau_window(name: str, best: float, low: float, high: float, why: str) -> Case:
    """Claim 11's case: the best temperature and the range of those as good, on the log scale
    centred on :data:`WINDOW`, within its half-width: for if the whole range lies inside the
    window, against if it lies wholly outside."""
    centre, half = math.sqrt(WINDOW[0] * WINDOW[1]), 0.5 * math.log(WINDOW[1] / WINDOW[0])
    return Case(
        name,
        "within",
        math.log(best / centre),
        math.log(low / centre),
        math.log(high / centre),
        half,
        why=f"log(τ / {centre:.2f}) of the best τ, {best:.2g}, and of the range as good, "
        f"{low:.2g}–{high:.2g} ({why}); within ±{half:.2f}: τ in ({WINDOW[0]:.2f}, {WINDOW[1]:.2f})",
    )


def kglm_gap(corpus: Estimate, instance: Estimate, approx_share: float) -> list[Case]:
    """Claim 16, an effect: its sign (instance level below corpus level, perplexity points)
    and its size, the gap in perplexity points relative to the source's 10 (gap / 10 − 1)
    clearly within ``approx_share`` (the source calls perplexities "nats": "the perplexity of
    43 nats"; "≈" fixes no margin, so the buffer applies)."""
    gap = stats.unpaired(corpus, instance)
    return [
        Case.apart(
            "the sign, instance below corpus level",
            "above",
            corpus,
            instance,
            why="perplexity points, corpus minus instance level, as printed (± half the last digit)",
        ),
        Case(
            "the size, ≈ 10",
            "clearly within",
            gap.value / 10 - 1,
            gap.low / 10 - 1,
            gap.high / 10 - 1,
            approx_share,
            why="the gap in perplexity points (the source's 'nats' of perplexity) relative to 10: gap / 10 − 1",
        ),
    ]


#: The family-wise level of a case that sums up several comparisons (Bonferroni over them).
ALPHA = 0.05


def welch(a: tuple[float, float, float], b: tuple[float, float, float], k: int = 1) -> Estimate:
    """a − b for two means ``(mean, standard error, runs)`` of independent runs, with its Welch
    interval at the level that keeps ``k`` such comparisons at :data:`ALPHA` in all
    (Bonferroni; 95 % for one)."""
    (ma, sa, na), (mb, sb, nb) = a, b
    var = sa**2 + sb**2
    if var == 0:
        return Estimate(ma - mb, ma - mb, ma - mb)
    dof = var**2 / (sa**4 / (na - 1) + sb**4 / (nb - 1))
    half = ss.t.ppf(stats.bonferroni(ALPHA, k, quantile=True), dof) * math.sqrt(var)
    return Estimate(ma - mb, ma - mb - half, ma - mb + half)


def order_cases(model: str, quality: Mapping[str, float], score: Mapping[str, tuple], why: str) -> list[Case]:
    """Claims 12 and 13: the proposals ordered by an exact ``quality`` (lower is better), a
    case per neighbouring pair, for if the better one's ``score`` (mean, standard error, runs;
    higher is better) is higher beyond the Welch interval, against if lower (every neighbour
    in order is the whole order)."""
    ranked = sorted(quality, key=quality.get)
    return [
        Case.interval(f"{model}: {a} ahead of {b}", "above", welch(score[a], score[b]), why=why)
        for a, b in zip(ranked, ranked[1:])
    ]


def weakest(name: str, diffs: Mapping[str, Estimate], why: str) -> Case:
    """One case that needs several differences above 0 at once, decided on the weakest: the
    smallest estimate with the interval [least lower end, least upper end], which lies above 0
    exactly when every interval does and below it exactly when some interval does; ``diffs``
    at the level corrected for their number (:func:`welch` with ``k``)."""
    low = min(diffs, key=lambda k: diffs[k].low)
    return Case.weakest(
        name,
        "above",
        list(diffs.values()),
        why=f"{why} ({len(diffs)} comparisons, the weakest, {low}'s lower end; each interval at "
        f"{100 * stats.bonferroni(ALPHA, len(diffs)):.2f} %, Bonferroni)",
    )


# --------------------------------------------------------------------------------------------
# the source's own numbers


#: The claims whose numbers the source prints (Table 1), with their forms.
SOURCE_FORMS = {"5": "every", "9": "most", "11": "most", "16": "effect"}


def source_cases(paper: pd.DataFrame, rules: Rules) -> dict[str, list[Case]]:
    """The cases of claims 5, 9, 11 and 16 from the paper's Table 1 as printed (``paper``:
    :data:`.paper.TABLE1`), each value ± half its last digit, by the code that builds the
    chapter's cases (:func:`.aggregation.instance_lower`, :func:`peeking_better`,
    :func:`tied_range` and :func:`tau_window`, :func:`kglm_gap`): instance below corpus level per
    cell (5), the untempered peeking proposal
    against no peeking per cell (9, RNNG has no such row), the best temperature of each model
    and level and those not apart from it (11), and KGLM's gap at τ = 1.1 (16)."""
    t1 = PA.read_table1(paper)
    lower = {
        f"{m}, {p}": stats.unpaired(
            stats.printed(paper.loc[("corpus", p), m], half=PA.PRINTED_HALF),
            stats.printed(paper.loc[("instance", p), m], half=PA.PRINTED_HALF),
        )
        for p in paper.loc["instance"].index
        for m in paper.columns
        if pd.notna(paper.loc[("instance", p), m]) and pd.notna(paper.loc[("corpus", p), m])
    }
    peek = {
        f"{lvl}, {m}": stats.unpaired(
            stats.printed(paper.loc[(lvl, SR.NO_PEEKING), m], half=PA.PRINTED_HALF),
            stats.printed(paper.loc[(lvl, "τ = 1"), m], half=PA.PRINTED_HALF),
        )
        for lvl in ("corpus", "instance")
        for m in paper.columns
        if pd.notna(paper.loc[(lvl, SR.NO_PEEKING), m])
    }
    taus = []
    for lvl in ("instance", "corpus"):
        for m in paper.columns:
            scores = {
                t: stats.printed(-paper.loc[(lvl, f"τ = {t:g}"), m], half=PA.PRINTED_HALF)
                for t in PAPER_TEMPERATURES
            }
            taus.append(
                tau_window(
                    f"{m}, {lvl} level",
                    *tied_range(scores),
                    why="the perplexities as printed; as good: not apart by their last digit",
                )
            )
    unit = "perplexity points as printed (± half the last digit)"
    return {
        "5": AG.instance_lower(lower, why=f"corpus minus instance level, {unit}"),
        "9": peeking_better(peek, why=f"no peeking minus the peeking proposal at τ = 1, {unit}"),
        "11": taus,
        "16": kglm_gap(
            stats.printed(t1["kglm_c"], half=PA.PRINTED_HALF),
            stats.printed(t1["kglm_i"], half=PA.PRINTED_HALF),
            rules.approx_share,
        ),
    }


def source_text(number: str, paper: pd.DataFrame, rules: Rules) -> str:
    """What the source's own numbers give by claim ``number``'s form: its verdict and counts,
    and, where it does not reproduce its claim, that its words go beyond its table (or, left
    open, that its digits do not decide it)."""
    cases = source_cases(paper, rules)[number]
    n_for, n_against, n_open = lmcases.counts(cases)
    verdict = lmcases.verdict(SOURCE_FORMS[number], n_for, n_against, n_open)
    text = f"the paper's Table 1 by this rule: {verdict} ({n_for} of {len(cases)} for"
    if verdict != "reproduced":
        return (
            text
            + "; not "
            + ", ".join(c.name for c in cases if c.decision != "for")
            + (
                "): its digits leave it open"
                if verdict == "inconclusive"
                else "): its words go beyond its table"
            )
        )
    return text + ")"


def peeking_summary(table: pd.DataFrame) -> str:
    """Claim 9 in words, from the claims ``table``'s cases: which peeking proposals lose to no
    peeking, beyond the interval, and on which model."""
    cases = table.attrs["cases"]
    worse = cases[(cases["claim"] == "9") & (cases["decision"] == "against")]["name"].tolist()
    if not worse:
        return "every peeking proposal beats no peeking, mean-field included"
    return "yet " + "; ".join(
        f"{n.rpartition(', ')[0]} loses to no peeking on the {n.rpartition(', ')[2]} model" for n in worse
    )


def source_summary(paper: pd.DataFrame, rules: Rules) -> str:
    """In words, what the source's own printed numbers give the claims that rest on them, by
    the chapter's rules: those it reproduces, those where its words go beyond its table, and
    those its digits leave open, with the cases that are not for."""
    passes, beyond, left = [], [], []
    for number, cases in source_cases(paper, rules).items():
        verdict = lmcases.verdict(SOURCE_FORMS[number], *lmcases.counts(cases))
        if verdict == "reproduced":
            passes.append(number)
        else:
            not_for = [f"“{c.name}”" for c in cases if c.decision != "for"]
            (left if verdict == "inconclusive" else beyond).append((number, not_for))

    def listed(items):
        return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]

    def claims_of(found):
        numbers = listed([n for n, _ in found])
        why = "; ".join(
            f"{'its' if len(found) == 1 else f'claim {n}’s'} case{'s' * (len(nf) > 1)} {listed(nf)} "
            f"{'are' if len(nf) > 1 else 'is'} not for"
            for n, nf in found
        )
        return f"claim{'s' * (len(found) > 1)} {numbers}", why

    parts = [
        f"by its own Table 1 the source reproduces claim{'s' * (len(passes) > 1)} {listed(passes)}"
    ] * bool(passes)
    if beyond:
        numbers, why = claims_of(beyond)
        parts.append(f"its words go beyond its table in {numbers} ({why})")
    if left:
        numbers, why = claims_of(left)
        parts.append(f"its digits leave {numbers} open ({why})")
    return "; ".join(parts)


# --------------------------------------------------------------------------------------------
# the table


def thresholds(rules: Rules) -> dict[str, str]:
    """The thresholds the claims table shows, ``{parameter = value: what it decides}``."""
    return {
        f"converged_gap = {rules.converged_gap:g}": "claims 2 and 4: a perplexity within half this share of "
        "the truth has converged, one beyond twice it has not (the paper fixes no threshold: open between)",
        f"bias_removed = {rules.bias_removed:g}": "claim 6: 'most' of the corpus-level bias",
        f"tau_tolerance = {rules.tau_tolerance:g}": "claim 11: a temperature whose mean log(1 + χ²) is within "
        "log(1 + this) of the best's is as good (the range of τ a case spans)",
        f"τ in ({WINDOW[0]:.2f}, {WINDOW[1]:.2f})": "claim 11: the paper's 'slightly above 1, τ ∈ [1.1, 2]' at "
        "the resolution of its temperatures (nearer 1.1 than 1, nearer 2 than 5, on a log scale)",
        f"overlap_shared = {rules.overlap_shared:g}": "claim 12: two densities sharing less than half this "
        "mass are clearly separated, more than twice it not (the paper fixes no threshold)",
        f"beam_share_margin = {rules.beam_share_margin:g}": "claim 15: at equal length, two beams whose shares "
        "of p(x) lie within half this many points are equally tight, beyond twice it not; a share falls "
        "when by more than twice it (open between)",
        f"approx_share = {rules.approx_share:g}": "claim 16: '≈ 10' holds within half this share of 10, not "
        "beyond twice it (open between)",
    }


# --------------------------------------------------------------------------------------------
# the claims, each decided by its function from what the chapter measured (r) and its rules


def counted(cases, decision="for") -> int:
    """How many of ``cases`` are so decided."""
    return sum(c.decision == decision for c in cases)


def named(cases, decision, most=2) -> str:
    """The names of the cases so decided, at most ``most`` of them, "none" if none."""
    names = [c.name for c in cases if c.decision == decision]
    return "; ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "") or "none"


def upper_bound(r: Measured, rules: Rules):
    """Claim 1: a stochastic upper bound, every model-proposal pair."""
    runs, N_test = r.runs, r.n_test
    latent_cases = [(m, n) for m in r.models for n in r.latent_names]
    ub = {k: mean_estimate(runs[k]["instance"], N_test) for k in latent_cases}
    c1 = [
        Case.interval(
            f"{n}, {m}",
            "below",
            ub[m, n],
            why=f"E log p̂ − log p per sentence (nats) over {rules.n_runs} runs of K draws, Student-t "
            "interval; < 0: the perplexity estimate lies above the truth on average",
        )
        for m, n in latent_cases
    ]
    below_truth = np.mean([np.mean(runs[k]["instance"] > 0) for k in latent_cases])
    return c1, (
        f"E log p̂ − log p per sentence over {rules.n_runs} runs below 0 beyond the interval for {counted(c1)} of "
        f"{len(c1)} model–proposal pairs"
        + (
            f"; open: {named(c1, 'open')}, too close to the posterior for the runs to resolve its bias"
            if counted(c1, "open")
            else ""
        )
        + f"; {100 * below_truth:.0f} % of single runs fall below the truth: a bound on average, not run by run."
    )


def consistent(r: Measured, rules: Rules):
    """Claim 2: the gap left at K = k_max; a proposal whose sentences need more draws cannot
    reach the limit at this K (open unless its gap is already below the threshold)."""
    k_max, converged_gap = rules.k_max, rules.converged_gap
    c2 = []
    for (m, n), share in r.tail_sub.items():
        g = r.gap_interval[m, n]
        if share == 0:
            c2.append(
                Case.interval(
                    f"{n}, {m}",
                    "clearly below",  # converged_gap is the chapter's, not the source's
                    g,
                    converged_gap,
                    why=f"relative perplexity gap at K = {k_max:,}, Monte Carlo interval; every "
                    "sentence needs fewer than K draws (e^KL)",
                )
            )
        else:
            c2.append(
                Case(
                    f"{n}, {m}",
                    "clearly below",
                    g.value,
                    -np.inf,
                    g.high,
                    converged_gap,
                    why=f"relative perplexity gap at K = {k_max:,}; {100 * share:.1f} % of its sentences need "
                    "more than K draws (e^KL): the limit is out of reach at this K, so the gap can show "
                    "convergence (its upper end below the threshold) but not its absence (no lower end)",
                )
            )
    n_tail = sum(v > 0 for v in r.tail_sub.values())
    bounded_open = [c for c, v in zip(c2, r.tail_sub.values()) if v == 0 and c.decision == "open"]
    return c2, (
        f"relative perplexity gap at K = {k_max:,} below half of {converged_gap:.1%} beyond its interval for "
        f"{counted(c2)} of the {len(c2)} curves; {n_tail} have sentences that need more than K draws (e^KL), "
        f"cannot reach the limit at this K, and are open unless already below"
        + (f"; also open: {named(bounded_open, 'open')}" if bounded_open else "")
        + "."
    )


def monotone_in_expectation(r: Measured, rules: Rules):
    """Claim 3a: the runs' mean rises at every step whose predicted rise they can resolve."""
    return r.mono_cases, (
        f"E log p̂_K rises beyond the intervals at every step whose predicted rise the runs can resolve in "
        f"{counted(r.mono_cases)} of {len(r.mono_cases)} model–proposal pairs, falls in "
        f"{counted(r.mono_cases, 'against')} (a theorem, Burda et al.: it can fail only by noise or a bug)."
    )


def monotone_curves(r: Measured, rules: Rules):
    """Claim 3b: each plotted single running curve never rises ("in all settings": every curve, one
    case each, an exact count)."""
    curve_rises = {k: int(np.sum(np.diff(r.curves[k]) < 0)) for k in r.mono_keys}
    steps = len(next(iter(r.curves.values()))) - 1
    c3b = [
        Case(
            f"{n}, {m}",
            "less",
            v,
            threshold=1,
            why=f"steps of the single running curve, of {steps}, at which its perplexity rises",
        )
        for (m, n), v in curve_rises.items()
    ]
    return c3b, (
        f"single running curves whose perplexity never rises: {counted(c3b)} of {len(c3b)}; they rise "
        f"{r.falls_single} times in {r.n_curve_steps} steps in all (a run, unlike its expectation, "
        "need not fall)."
    )


def no_convergence(r: Measured, rules: Rules):
    """Claim 4: the gap at K = k_max above the convergence threshold."""
    k_max, converged_gap = rules.k_max, rules.converged_gap
    c4 = [
        Case.interval(
            f"{n}, {m}",
            "clearly above",
            r.gap_interval[m, n],
            converged_gap,
            why=f"relative perplexity gap at K = {k_max:,}, Monte Carlo interval; above twice the threshold: "
            "no convergence; below half of it: converged",
        )
        for m, n in r.tail_sub
    ]
    return c4, (
        f"perplexity still above the truth by more than twice {converged_gap:.1%} at K = {k_max:,} for "
        f"{counted(c4)} of {len(c4)} model–proposal pairs, below half of it (converged) for "
        f"{counted(c4, 'against')}, between for {counted(c4, 'open')}; "
        f"exp(KL), the draws a sentence needs, decides which ({'exactly' if r.agree else 'nearly'})."
    )


def instance_lower(r: Measured, rules: Rules):
    """Claim 5: the instance-level estimate below the corpus-level one, per cell; a pair whose
    theory pins the gap tighter than its runs resolve ties at the floor, not counted."""
    tied = [c.name for c in r.ic_cases if c.decision == "not applicable"]
    return r.ic_cases, (
        f"lower beyond the runs' interval in {counted(r.ic_cases)} of {len(r.ic_cases) - len(tied)} pairs (open: "
        f"{counted(r.ic_cases, 'open')}), in {100 * r.ic_runs:.0f} % of single runs"
        + (
            f"; {'one pair ties' if len(tied) == 1 else f'{len(tied)} pairs tie'} at the floor ({'; '.join(tied)}: "
            "theory pins the gap below Table 1's last digit; not counted)"
            if tied
            else ""
        )
        + "; "
        + source_text("5", r.paper, rules)
        + ". 'By a wide margin' is not counted (the source fixes no "
        f"margin): from {fmt(r.ic_min_gap, 2)} to {fmt(r.ic_max_gap, 2)} % of the perplexity."
    )


def documents_as_instances(r: Measured, rules: Rules):
    """Claim 6: not tested, for the source does not state it: its first recommendation
    ("aggregate importance samples at the instance level") presumes that instance-level
    aggregation removes the bias also where an instance is an article (its KGLM). What the
    runs show is reported, not counted: the share of the corpus-level bias removed with
    articles as instances."""
    return [], (
        "not tested: the source's advice presumes it and never states it. Not counted: articles "
        f"({r.article_tokens:,.0f} tokens) as instances remove less than {rules.bias_removed:.0%} of the bias "
        f"beyond the interval in {counted(r.doc_cases, 'against')} of {len(r.doc_cases)} pairs, more in "
        f"{counted(r.doc_cases)}; sentences {min(v['instance'].value for v in r.removed.values()):.0%} or more."
    )


def non_latent_equal(r: Measured, rules: Rules):
    """Claim 7: the two aggregations equal to floating-point precision for the Transformer alone."""
    gap = r.nonlatent_gap
    cases = [
        Case(
            "the Transformer alone (no latent state)",
            "less",
            gap,
            threshold=EXACT_ZERO,
            why=f"the largest |instance − corpus| over {rules.n_runs} runs, nats; below {EXACT_ZERO:g}: equal to "
            "floating-point precision",
        )
    ]
    return cases, f"largest |instance − corpus| over {rules.n_runs} runs: {gap:.2g} nats"


def kglm_corpus_level(r: Measured, rules: Rules):
    """Claim 8: the lines of KGLM's evaluation read from its code."""
    lines = f"lines {PA.KGLM_LINES[0]}–{PA.KGLM_LINES[1]}"
    path = PA.KGLM_FILE.replace("/", "/\u200b")  # a long path may break after a slash
    where = f"{PA.KGLM_REPO} @ {PA.KGLM_COMMIT[:7]} (master), {path}, {lines}"
    cases = [
        Case(
            where,
            "holds",
            int(r.kglm_code == "corpus"),
            why="the lines, transcribed (paper.kglm_master), give Eq. 6's corpus-level estimate on random "
            "weights, not Eq. 5's: one weight per sample summed over every batch, then logsumexp",
        )
    ]
    return cases, (
        f"read from the code, {where} (file last changed in {PA.KGLM_FILE_COMMIT[:7]}): they aggregate over "
        f"the {r.kglm_code}; the acl-2020-updates branch aggregates per instance."
    )


def peeking_helps(r: Measured, rules: Rules):
    """Claim 9: each peeking proposal (and mean-field) against no peeking on the same chain."""
    runs, N_test = r.runs, r.n_test
    peekers = [SR.peek_label(h) for h in rules.peek_horizons if h > 0] + [SR.MEAN_FIELD]
    gains = {
        f"{n}, {m}": mean_estimate(runs[m, n]["instance"] - runs[m, SR.NO_PEEKING]["instance"], N_test)
        for m in r.models
        for n in peekers
    }
    c9 = peeking_better(
        gains,
        why="log p̂ per sentence, the peeking proposal minus no peeking (the same chain), "
        f"{rules.n_runs} runs each, Student-t interval; mean-field counts: it reads all of x and "
        "forgets the state, as KGLM's proposal (kglm_disc.py, master) samples every token's "
        "mention type at once (parallel_sample)",
    )
    worse = [c.name for c in c9 if c.decision == "against"]
    return c9, (
        f"peek h (h = {', '.join(str(h) for h in rules.peek_horizons if h)}) and mean-field against no peeking: "
        f"better in {counted(c9)} of {len(c9)}"
        + (f", worse: {'; '.join(worse)}" if worse else "")
        + "; "
        + source_text("9", r.paper, rules)
        + "."
    )


def invalid_structures(r: Measured, rules: Rules):
    """Claim 10: unconstrained samples that spell none of the words."""
    hits = "; ".join(
        f"{plots.label(n)} {int(np.isneginf(v).sum())} of {len(v)} never spelled"
        for n, v in r.ancestral_hits.items()
    )
    return r.invalid_cases, (
        f"unconstrained samples that spell none of the {r.n_words} words: {hits}; a sample "
        "spells x with probability p(x)."
    )


def best_temperature(r: Measured, rules: Rules):
    """Claim 11: the best τ and the range as good inside the paper's window, per model and family."""
    ranges = []  # (label, best, low, high, why)
    for (m, fam), (_, chis) in r.tau_div.items():
        ranges.append(
            (
                f"{fam} ({m})",
                *near_range(r.tau_grid, chis, rules.tau_tolerance),
                f"exact mean log(1 + χ²) over the curves' sentences, a grid of {len(r.tau_grid)} τ; as "
                "good: within log(1 + tau_tolerance) of the best",
            )
        )
    for lab, tab in (("words", r.tok), ("sentences", r.sent_table)):
        for mm in tab.index.get_level_values(0).unique():
            err = tab.xs(mm)["instance level"].filter(like="constrained")
            scores = {float(i.split("τ = ")[1]): e for i, e in err.items()}
            ranges.append(
                (
                    f"{lab} ({mm}), constrained",
                    *tied_range(scores),
                    "the tokenization runs' error at each of the paper's τ; as good: an interval that "
                    "reaches the best's",
                )
            )
    c11 = [
        # the χ² ranges are exact (the claim's unit); the tokenization ranges come from sampled runs
        tau_window(label, best, lo, hi, why)
        if not label.endswith(", constrained")
        else dataclasses.replace(tau_window(label, best, lo, hi, why), unit="tokenization runs")
        for label, best, lo, hi, why in ranges
    ]

    def listed(decision: str, most: int = 2) -> str:
        found = [
            f"{label.replace(', constrained', '')} {best:.3g} ({lo:.3g}–{hi:.3g})"
            for c, (label, best, lo, hi, _) in zip(c11, ranges)
            if c.decision == decision
        ]
        more = f" and {len(found) - most} more" if len(found) > most else ""
        return f"; {decision}: {'; '.join(found[:most])}{more}" if found else ""

    return c11, (
        f"the best τ and the range as good inside ({WINDOW[0]:.2f}, {WINDOW[1]:.2f}) for {counted(c11)} of "
        f"{len(c11)}" + listed("against") + listed("open") + "; " + source_text("11", r.paper, rules) + "."
    )


def stable_modes(r: Measured, rules: Rules):
    """Claim 12: "the order of the modes matches the order reported in Table 1", where the
    source's Table 1 is one estimate per cell and its Fig. 4 the density of repeated ones: the
    proposals ordered by the first half of the runs (a Table 1 of their own), each neighbouring
    pair tested on the other half (the densities), which are independent of it; and the
    separation of τ = 0.5 and no peeking from the best. The order of the exact χ² is reported,
    not counted (claim 13 tests the ranking against it)."""
    runs, N_test = r.runs, r.n_test
    c12, chi_cases = [], []
    for m in r.models:
        per_sentence = {n: runs[m, n]["instance"].to_numpy() / N_test for n in r.density_names}
        half = {n: len(x) // 2 for n, x in per_sentence.items()}
        table1 = {n: -float(np.mean(x[: half[n]])) for n, x in per_sentence.items()}
        densities = {
            n: (
                float(np.mean(x[half[n] :])),
                float(np.std(x[half[n] :], ddof=1) / math.sqrt(len(x) - half[n])),
                len(x) - half[n],
            )
            for n, x in per_sentence.items()
        }
        c12 += order_cases(
            m,
            table1,
            densities,
            why="the mean log p̂ per sentence at K = 100 over the second half of the runs, the better in the first "
            "half's order (a Table 1 of its own) minus the next, Welch interval",
        )
        every = {
            n: (float(np.mean(x)), float(np.std(x, ddof=1) / math.sqrt(len(x))), len(x))
            for n, x in per_sentence.items()
        }
        chi_cases += order_cases(
            m, {n: float(np.mean(r.chi[m, n])) for n in r.density_names}, every, why="χ² order"
        )
    c12_order = len(c12)
    for m in r.models:
        best = max(r.density_names, key=lambda n: runs[m, n]["instance"].mean())
        for worse_ in (SR.NO_PEEKING, SR.peek_label(1, 0.5)):
            x, y = runs[m, best]["instance"] / N_test, runs[m, worse_]["instance"] / N_test
            c12.append(
                Case(
                    f"{m}: {worse_} apart from {best}",
                    "clearly below",
                    overlap(x.to_numpy(), y.to_numpy()),
                    threshold=rules.overlap_shared,
                    why="overlap of the two densities of log p̂ (1: identical, 0: apart); the paper's "
                    "'clearly' fixes no threshold",
                )
            )
    return c12, (
        f"neighbours in the first half of the runs' order in the same order in the second half beyond the "
        f"interval: {counted(c12[:c12_order])} of {c12_order}, reversed: {named(c12[:c12_order], 'against')}"
        f"; clearly separated from the best: {counted(c12[c12_order:])} of {len(c12) - c12_order}; not counted: "
        f"in the exact χ²'s order {counted(chi_cases)} of {len(chi_cases)}, reversed {counted(chi_cases, 'against')}."
    )


def ranking_preserved(r: Measured, rules: Rules):
    """Claim 13: the ranking at K = 10 against the exact χ² on the same sentences, neighbour by
    neighbour, and whether K = 10 picks the χ²-best."""
    c13, picks = [], []
    for m in r.models:
        quality = {n: float(np.mean(r.chi[m, n][r.sub])) for n in r.rank_names}
        k10 = {n: r.expect[m, n].loc[10] for n in r.rank_names}
        score = {n: (-abs(e["mean"]), e["se"], e["runs"]) for n, e in k10.items()}
        c13 += order_cases(
            m,
            quality,
            score,
            why="|E log p̂₁₀ − log p| summed over the curves' sentences, from disjoint runs "
            "of 10 draws: the χ²-worse minus the χ²-better (χ² on the same sentences), Welch "
            "interval",
        )
        best = min(quality, key=quality.get)
        others = [n for n in r.rank_names if n != best]
        picks.append(
            weakest(
                f"{m}: {best}, the χ²-best, best at K = 10",
                {n: welch(score[best], score[n], len(others)) for n in others},
                why="every other proposal's |E log p̂₁₀ − log p| minus the χ²-best's, Welch "
                "intervals; > 0: a few draws pick it",
            )
        )
    n_order = len(c13)
    kendall = "; ".join(f"{m} {t.statistic:.2f}" for (m, c), t in r.kendall.items() if c == "χ²")
    return c13 + picks, (
        f"neighbours in the order of the exact χ² ({len(r.rank_names)} proposals) in the same order at K = 10: "
        f"{counted(c13)} of {n_order}, reversed: {named(c13, 'against')} (Kendall τ {kendall}, not counted); "
        f"K = 10 picks the χ²-best on {counted(picks)} of {len(picks)} models; one run of 10 draws in "
        + " and ".join(f"{100 * v:.0f} %" for v in r.single_pick.values())
        + " of runs."
    )


def beam_upper_bounds(r: Measured, rules: Rules):
    """Claim 14: every beam and k-best bound at most the exact marginal."""
    c14 = []
    for m in r.models:
        exact = max(float(np.max(logsumexp(r.best_paths[m, k], axis=1) - r.logp[m])) for k in r.beam_sizes)
        with np.errstate(divide="ignore"):  # a share that underflows to 0: log 0 = −∞, below
            beam = max(float(np.max(np.log(r.share[m, k]))) for k in r.beam_sizes)
        for what, v in (("exact k best", exact), ("beam under q", beam)):
            c14.append(
                Case(
                    f"{m}: {what}",
                    "less",
                    v,
                    threshold=EXACT_ZERO,
                    why=f"the largest log Σ_k p(x, z) − log p(x) over the sentences and k = "
                    f"{', '.join(map(str, r.beam_sizes))}; below {EXACT_ZERO:g}: a lower bound on p(x)",
                )
            )
    return c14, "every beam and k-best bound ≥ the exact perplexity: a sum over a subset of the paths."


def beams_tight(r: Measured, rules: Rules):
    """Claim 15: per model, the beam's share of p(x) falls from the shortest to the longest sentences
    (the latent space grows), beyond the margin (the source's observation); and at equal length (the
    same space), the sticky model's beam share minus the fitted one's within the margin."""
    equal = [
        Case.interval(
            f"{b} tokens",
            "clearly within",  # beam_share_margin is the chapter's, not the source's
            e,
            rules.beam_share_margin,
            why=f"share of p(x) on the beam's {r.k_top} paths, sticky minus fitted, points (95 % "
            "interval over test articles); the same 3^T paths: within the margin, equally tight",
        )
        for b, e in zip(r.length_bins, r.equal_size)
    ]
    falls = [
        Case.interval(
            f"{m}: shortest minus longest",
            "clearly above",
            r.short_long[m],
            rules.beam_share_margin,
            why=f"share of p(x) on the beam's {r.k_top} paths, shortest minus longest sentences, points "
            "(95 % interval over test articles): the share falls as the latent space grows (the source's "
            "observation) beyond the margin",
        )
        for m in r.models
    ]
    return equal + falls, (
        f"the beam's share falls from the shortest to the longest sentences beyond twice {rules.beam_share_margin:g} "
        f"points in {counted(falls)} of {len(falls)} models ("
        + "; ".join(f"{m} {fmt(r.short_long[m], 2)}" for m in r.models)
        + "); at equal length (the same space) the sticky model's beam holds more than the fitted one's "
        f"beyond twice the margin in {counted(equal, 'against')} of {len(equal)} bins ("
        + ", ".join(f"{e.value:+.0f}" for e in r.equal_size)
        + "): the source's explanation, the size of the space, is not all that decides."
    )


def kglm_arithmetic(r: Measured, rules: Rules):
    """Claim 16: the source's KGLM gap at τ = 1.1, its sign and its size (:func:`kglm_gap`)."""
    t1 = PA.read_table1(r.paper)
    kglm_c, kglm_i = t1["kglm_c"], t1["kglm_i"]
    c16 = kglm_gap(
        stats.printed(kglm_c, half=PA.PRINTED_HALF),
        stats.printed(kglm_i, half=PA.PRINTED_HALF),
        rules.approx_share,
    )
    return c16, (
        f"the direction holds ({kglm_c:.1f} > {kglm_i:.1f}); the gap is {kglm_c - kglm_i:.1f} points of "
        f"perplexity (the source's 'nats'), {abs((kglm_c - kglm_i) / 10 - 1):.0%} from 10, against half and twice "
        f"{rules.approx_share:.0%}; per token, ln({kglm_c:.1f}/{kglm_i:.1f}) = {math.log(kglm_c / kglm_i):.2f} nats "
        "(not counted)."
    )


#: The chapter's sections that decide claims.
K = "Estimates against the number of samples (the paper's Figs. 2–3)"
TABLE1 = "Instance-level against corpus-level estimates (the paper's Table 1)"
DENSITIES = "Densities of repeated estimates (the paper's Fig. 4)"
TEMPERATURE = "Temperature"
RANKING = "Does the ranking of proposals hold as K grows?"
BEAMS = "Beam marginalisation (the paper's Table 2)"
TOKENIZATION = "Tokenization as the latent variable"


#: The chapter's sections that decide claims, and what each reads of what it measured.
SECTIONS = [
    Section(
        K,
        reading(
            READS,
            "models",
            "runs",
            "n_test",
            "latent_names",
            "tail_sub",
            "gap_interval",
            "agree",
            "mono_cases",
            "mono_keys",
            "curves",
            "falls_single",
            "n_curve_steps",
        ),
    ),
    Section(
        TABLE1,
        reading(
            READS,
            "models",
            "runs",
            "n_test",
            "ic_cases",
            "ic_runs",
            "ic_min_gap",
            "ic_max_gap",
            "doc_cases",
            "removed",
            "article_tokens",
            "nonlatent_gap",
            "kglm_code",
            "paper",
        ),
    ),
    Section(DENSITIES, reading(READS, "models", "runs", "n_test", "density_names", "chi")),
    Section(TEMPERATURE, reading(READS, "tau_grid", "tau_div", "tok", "sent_table", "paper")),
    Section(
        RANKING, reading(READS, "models", "rank_names", "chi", "expect", "sub", "kendall", "single_pick")
    ),
    Section(
        BEAMS,
        reading(
            READS,
            "models",
            "best_paths",
            "logp",
            "share",
            "k_top",
            "beam_sizes",
            "short_long",
            "equal_size",
            "length_bins",
        ),
    ),
    Section(TOKENIZATION, reading(READS, "invalid_cases", "n_words", "ancestral_hits")),
]


#: The paper's claims, in the chapter's numbering: words, form, basis and the function that
#: decides each (:class:`lmnotes.report.claims.Claim`).
CLAIMS = [
    lmclaims.Claim(
        "1",
        "The IS estimate of perplexity is a stochastic upper bound (Eq. 4)",
        upper_bound,
        K,
        basis="in expectation",
        unit="runs",
    ),
    lmclaims.Claim(
        "2",
        "The estimates are consistent: they converge as K grows (§2)",
        consistent,
        K,
        basis="in expectation",
        unit="draws K",
    ),
    lmclaims.Claim(
        "3a",
        "Estimates fall monotonically as K grows, in expectation (Figs. 2–3)",
        monotone_in_expectation,
        K,
        basis="in expectation",
        unit="disjoint runs of K draws",
    ),
    lmclaims.Claim(
        "3b",
        "The plotted curves fall monotonically as K grows, in all settings (Figs. 2–3)",
        monotone_curves,
        K,
    ),
    lmclaims.Claim("4", "No sign of convergence even at K = 10⁴ (Fig. 3)", no_convergence, K, unit="draws K"),
    lmclaims.Claim(
        "5",
        "Instance-level estimates are uniformly lower than corpus-level ones (Table 1)",
        instance_lower,
        TABLE1,
        basis="in expectation",
        unit="runs",
    ),
    lmclaims.Claim(
        "6",
        "(Presumed by the advice to aggregate per instance) instance-level aggregation removes most "
        "of the corpus-level bias, also with article-length documents as instances (KGLM)",
        documents_as_instances,
        TABLE1,
        unit="runs",
    ),
    lmclaims.Claim(
        "7",
        "The two aggregations coincide for a non-latent LM",
        non_latent_equal,
        TABLE1,
        form="identity",
        basis="by construction",
    ),
    lmclaims.Claim(
        "8",
        "KGLM's evaluation aggregates over the corpus (§3)",
        kglm_corpus_level,
        TABLE1,
        form="identity",
        basis="source code",
    ),
    lmclaims.Claim(
        "9",
        "In general, peeking proposals give better estimates",
        peeking_helps,
        TABLE1,
        form="most",
        unit="runs",
    ),
    lmclaims.Claim(
        "10",
        "A proposal that does not peek produces invalid structures (no non-peeking RNNG)",
        invalid_structures,
        TOKENIZATION,
        basis="by construction",
        unit="unconstrained samples",
    ),
    lmclaims.Claim(
        "11",
        "A temperature slightly above 1 (e.g. τ ∈ [1.1, 2]) is best; the ideal varies across models",
        best_temperature,
        TEMPERATURE,
        form="most",
        unit=lmcases.NOT_SAMPLED,  # ranges of τ as good as the best, on a grid
    ),
    lmclaims.Claim(
        "12",
        "Repeated estimates are stable: the order of their modes matches Table 1's, and "
        "τ = 0.5 and no peeking are clearly separated from the best (Fig. 4)",
        stable_modes,
        DENSITIES,
        unit="runs",
    ),
    lmclaims.Claim(
        "13",
        "The ranking of proposals is mostly preserved as K grows: a few samples find good ones",
        ranking_preserved,
        RANKING,
        form="most",
        unit="disjoint runs of 10 draws",
    ),
    lmclaims.Claim(
        "14",
        "Beam marginalisation gives strict upper bounds (Table 2)",
        beam_upper_bounds,
        BEAMS,
        form="identity",
        basis="by construction",
    ),
    lmclaims.Claim(
        "15",
        "Beam bounds are tight only where the latent space is small (Table 2)",
        beams_tight,
        BEAMS,
        unit="test articles",
    ),
    lmclaims.Claim(
        "16",
        "The source's arithmetic: KGLM instance level ≈ 10 nats below corpus level at τ = 1.1",
        kglm_arithmetic,
        TABLE1,
        form="effect",
        unit=lmcases.NOT_SAMPLED,  # the printed digits, ± half the last
    ),
]


def claims(measured: Measured, rules: Rules) -> pd.DataFrame:
    """The claims table of chapter 04: each claim of :data:`CLAIMS` with its form and its cases,
    from what the chapter measured and its rules."""
    return lmclaims.decide_all(CLAIMS, SECTIONS, measured, rules)
