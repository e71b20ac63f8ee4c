"""Does the estimate converge, and does it fall monotonically as K grows? The evidence behind
claims 2-4 of the importance-sampling chapter (04): the relative perplexity gap left at the
largest K with its Monte Carlo interval, the share of sentences that need more draws than
that (e^KL > K, Chatterjee & Diaconis 2018), and the cases of E log p̂_K rising with K
(Burda et al. 2016) from disjoint runs, against the delta method's predicted rise.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss

from lmnotes.report import cases as lmcases, tables
from lmnotes.stats import inference as stats
from lmnotes.studies.importance import estimators as I
from lmnotes.studies.importance import switch_runs as SR


def gap_intervals(err_at_max: Mapping, mc_var: Mapping, keys: Sequence, n_tokens: float) -> dict:
    """The gap left at the largest K per token, as a relative perplexity PPL^/PPL − 1, with a
    95% interval for the Monte Carlo question it asks about these sentences: the draws within
    each sentence are what varies (the closed-form bootstrap of the draws,
    :func:`.estimators.mc_variance`; sentences are independent). ``err_at_max[key]`` is
    log p̂ − log p per sentence, ``mc_var[key]`` Var(log p̂) per sentence."""
    gap_interval = {}
    for k in keys:
        e = -err_at_max[k].sum()  # log p - log p^, summed over the sentences
        half = stats.Z95 * np.sqrt(mc_var[k].sum())
        gap_interval[k] = stats.Estimate(*np.expm1(np.array([e, e - half, e + half]) / n_tokens))
    return gap_interval


def tail_shares(kl: Mapping, sub: np.ndarray, k_max: int, keys: Sequence) -> dict:
    """The share of the sentences ``sub`` that need more than ``k_max`` draws by e^KL, per
    ``(model, proposal)`` (``kl[key]`` the exact KL(p(z|x) ‖ q) per sentence)."""
    return {k: float(np.mean(kl[k][sub] > np.log(k_max))) for k in keys}


def tail_sentence(tail_sub: Mapping, gap_interval: Mapping, converged_gap: float) -> tuple[bool, str]:
    """Whether the proposals still above the truth beyond ``converged_gap`` (claim 4's cases
    for) are exactly those with sentences beyond the draws, and the sentence that says so (or
    names the exceptions)."""
    unconverged = {k for k in tail_sub if lmcases.side("above", gap_interval[k], converged_gap)}
    with_tail = {k for k, v in tail_sub.items() if v > 0}
    agree = unconverged == with_tail
    return agree, (
        f"The proposals whose estimate is still more than {converged_gap:.1%} above the truth "
        "beyond its interval are exactly those with sentences beyond that many draws"
        if agree
        else "The match is not exact: "
        + "; ".join(
            f"{n}, {m}: {100 * tail_sub[m, n]:.1f} % of the curves' sentences beyond, "
            f"gap {'resolved' if (m, n) in unconverged else 'not resolved'}"
            for m, n in sorted(unconverged ^ with_tail)
        )
    )


def monotone_cases(
    expect: Mapping, chi: Mapping, curves: Mapping, keys: Sequence, sub: np.ndarray
) -> tuple[list[lmcases.Case], int]:
    """One case per ``(model, proposal)`` of ``keys`` (claim 3a), on the step from one K to the
    next that decides it: E log p̂_K (``expect[key]``, :func:`.switch_runs.expected`) must rise
    beyond its interval (each at the level corrected for the steps' number, Bonferroni) at
    every step whose rise, predicted by the delta method from the exact log(1 + χ²)
    ``chi[key][sub]``, exceeds the interval (at every step, where none does). The case is the
    step that falls lowest if one falls beyond its interval (against), otherwise the least
    resolved of those steps: for if even it rises beyond its interval, open if not. Also the
    number of steps at which the single running curves ``curves[key]`` turn up (their
    perplexity rises)."""

    def predicted_bias(k, K):
        """The delta method's bias of the summed log-estimate with K draws."""
        return I.delta_bias(chi[k][sub], K).sum()

    mono_cases, falls_single = [], 0
    for k in keys:
        e = expect[k]
        Ks = e.index.to_numpy()
        diffs = np.diff(e["mean"].to_numpy())
        # each step at the level that keeps the steps at 5 % in all (Bonferroni)
        runs = np.minimum(e["runs"].to_numpy()[1:], e["runs"].to_numpy()[:-1])
        tq = ss.t.ppf(stats.bonferroni(0.05, len(diffs), quantile=True), runs - 1)
        half = tq * np.hypot(e["se"].to_numpy()[1:], e["se"].to_numpy()[:-1])
        effect = np.array([predicted_bias(k, b) - predicted_bias(k, a) for a, b in zip(Ks, Ks[1:])])
        falls_single += int(np.sum(np.diff(curves[k]) < 0))
        testable = ~(effect <= half)  # NaN: chi^2 overflowed, the effect is huge
        if np.any(diffs + half < 0):
            i, which = int(np.argmin(diffs + half)), "the step that falls lowest"
        elif testable.any():
            at = np.flatnonzero(testable)
            i = int(at[np.argmin((diffs - half)[at])])
            which = "the least resolved of the steps whose predicted rise (delta method) exceeds the interval"
        else:
            i = int(np.argmin(diffs - half))
            which = "the least resolved step (no predicted rise exceeds the interval)"
        mono_cases.append(
            lmcases.Case(
                f"{k[1]}, {k[0]}",
                "above",
                diffs[i],
                diffs[i] - half[i],
                diffs[i] + half[i],
                why=f"the rise of E log p̂_K − log p (summed nats) from K = {Ks[i]:,} to {Ks[i + 1]:,}, {which}; "
                f"Student-t interval over the disjoint runs at {100 * stats.bonferroni(0.05, len(diffs)):.1f} % "
                f"({len(diffs)} steps, Bonferroni)",
            )
        )
    return mono_cases, falls_single


def expected_table(expect: Mapping, keys: Sequence) -> pd.DataFrame:
    """E[log p̂_K] − log p summed over the sentences (:func:`.switch_runs.expected`) with its
    95% Student-t interval over the runs, a row per ``(model, proposal)``, a column per K."""
    mono_rows = {}
    for k in keys:
        e = expect[k]
        mono_rows[k] = {
            f"K = {K}": stats.Estimate(
                r["mean"],
                r["mean"] - ss.t.ppf(0.975, r["runs"] - 1) * r["se"],
                r["mean"] + ss.t.ppf(0.975, r["runs"] - 1) * r["se"],
            )
            for K, r in e.iterrows()
        }
    mono = pd.DataFrame(mono_rows).T
    mono.index.names = ["model", "proposal"]
    return mono


def gap_values(ppl_of: Callable, curves: Mapping) -> dict:
    """The relative perplexity gap PPL^/PPL − 1 in % at the largest K that the chapter quotes,
    by name: no peeking on both models, peek 1 on the sticky one, peek 2 on the fitted one
    (``curves[(model, proposal)]`` the summed error per K; ``ppl_of(m, err)`` the perplexity
    of an error)."""
    gap = {
        k: ppl_of(k[0], curves[k][-1]) / ppl_of(k[0], 0.0) - 1
        for k in [
            ("sticky", SR.NO_PEEKING),
            ("fitted", SR.NO_PEEKING),
            ("sticky", "peek 1"),
            ("fitted", "peek 2"),
        ]
    }
    return {
        "gap_nopeek_sticky_pct": float(100 * gap["sticky", SR.NO_PEEKING]),
        "gap_nopeek_fitted_pct": float(100 * gap["fitted", SR.NO_PEEKING]),
        "gap_peek1_sticky_pct": float(100 * gap["sticky", "peek 1"]),
        "gap_peek2_fitted_pct": tables.significant(2)(100 * gap["fitted", "peek 2"]),
    }
