"""Summaries of repeated estimates that the importance-sampling chapter (04) reads its claims
from: the mean over independent runs with a Student-t interval, the overlap of two runs'
densities (the paper's Fig. 4), and perplexities from errors against an exact log p.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss

from lmnotes.report import tables
from lmnotes.stats import inference as stats


def runs_interval(x) -> stats.Estimate:
    """The mean over runs with its 95% interval (runs are independent; Student's t, since
    there are tens of runs or fewer)."""
    x = np.asarray(x, dtype=float)
    half = ss.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return stats.Estimate(x.mean(), x.mean() - half, x.mean() + half)


def mean_estimate(x, n_instances: int) -> stats.Estimate:
    """The mean over runs per instance (``x`` summed over ``n_instances``), with its 95%
    interval (:func:`runs_interval`)."""
    return runs_interval(np.asarray(x) / n_instances)


def overlap(a, b, grid: int = 2048) -> float:
    """The overlapping coefficient of two densities, ∫ min(f_a, f_b) (Inman & Bradley 1989),
    each a Gaussian kernel density estimate (scipy's, Scott's bandwidth) on a grid of
    ``grid`` points spanning both samples; 1 for identical samples, 0 for disjoint ones. Two
    constant samples overlap fully if equal and not at all otherwise."""
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float(np.isclose(a.mean(), b.mean()))
    xs = np.linspace(min(a.min(), b.min()), max(a.max(), b.max()), grid)
    fa, fb = ss.gaussian_kde(a)(xs), ss.gaussian_kde(b)(xs)
    return float(np.minimum(fa, fb).sum() * (xs[1] - xs[0]))


def perplexity_of(
    logp: Mapping[str, np.ndarray], truth_sub: Mapping[str, float], tokens_sub: float
) -> Callable:
    """``ppl_of(m, err_nats, tokens=None)``: the perplexity (Eq. 1) from an error in nats
    against model m's exact log p: of the subset (``truth_sub[m]`` over ``tokens_sub``
    tokens) by default, of the whole split (``logp[m]`` summed) over ``tokens`` tokens."""

    def ppl_of(m, err_nats, tokens=None):
        if tokens is None:
            return np.exp(-(truth_sub[m] + err_nats) / tokens_sub)
        return np.exp(-(logp[m].sum() + err_nats) / tokens)

    return ppl_of


#: A number or an estimate with its interval, to ``digits`` significant digits.
fmt = tables.text


def p_text(p: float) -> str:
    """A p-value in prose: "p = 0.011", "p < 0.001"."""
    shown = tables.pvalue(p)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def percent(e: stats.Estimate) -> stats.Estimate:
    """An estimate (a share) in percent."""
    return stats.Estimate(100 * e.value, 100 * e.low, 100 * e.high)


def run_estimate(ppl_of: Callable, m: str, err, n_tokens: float) -> stats.Estimate:
    """The perplexity of the mean log-estimate over runs (errors ``err`` in nats against model
    m's exact log p, over ``n_tokens``), with the range of the middle 95% of single runs."""
    lo, hi = np.quantile(err, [0.975, 0.025])  # a higher log p: a lower perplexity
    return stats.Estimate(ppl_of(m, err.mean(), n_tokens), ppl_of(m, lo, n_tokens), ppl_of(m, hi, n_tokens))


def level_table(runs: Mapping, models, names, level: str, ppl_of: Callable, n_tokens: float) -> pd.DataFrame:
    """The paper's Table 1 at one aggregation ``level`` (a column of ``runs[(model, name)]``):
    :func:`run_estimate` per proposal (rows) and model (columns), and the exact perplexity."""
    t1 = pd.DataFrame(
        {m: {n: run_estimate(ppl_of, m, runs[m, n][level], n_tokens) for n in names} for m in models}
    )
    t1.loc["exact (no sampling)"] = [ppl_of(m, 0.0, n_tokens) for m in models]
    t1.index.name = "proposal"
    return t1


def by_pair(rows: Mapping, names: Sequence[str] = ("model", "proposal")) -> pd.DataFrame:
    """A table of ``{(model, proposal): {column: value}}`` rows, its index levels named."""
    table = pd.DataFrame(rows).T
    table.index.names = list(names)
    return table
