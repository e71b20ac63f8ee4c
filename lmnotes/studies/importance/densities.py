"""Densities of repeated estimates (the paper's Fig. 4) on the switch-LM: the instance-level
perplexity estimates of many independent runs per proposal, how far apart neighbouring
proposals are (the overlap of their densities, :func:`.summaries.overlap`, and Welch's t-test
of equal means), and where the exact perplexity falls among them. Chapter 04.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy import stats as ss

from lmnotes.report import plots, tables
from lmnotes.studies.importance.summaries import overlap


def figure(
    models: Sequence[str], names: Sequence[str], runs: Mapping, ppl_of: Callable, n_tokens: float, k_runs: int
):
    """A violin per proposal of the runs' instance-level perplexity (log scale), each run a
    point, a panel per model, with the exact perplexity. The figure, open."""
    T = n_tokens
    tau_colors = dict(zip(names, sns.color_palette("colorblind", len(names))))
    fig, axes = plt.subplots(2, 1, figsize=(plots.COLUMN, 5.0), sharey=True)
    for ax, m in zip(axes, models):
        est = pd.DataFrame({name: ppl_of(m, runs[m, name]["instance"].to_numpy(), T) for name in names}).melt(
            var_name="proposal", value_name="estimate"
        )
        sns.violinplot(
            data=est,
            x="estimate",
            y="proposal",
            hue="proposal",
            palette=tau_colors,
            ax=ax,
            inner="point",
            density_norm="width",
            cut=0,
            linewidth=0.6,
            log_scale=True,
            legend=False,
        )
        ax.axvline(ppl_of(m, 0.0, T), color=plots.REFERENCE_COLOR, lw=1, label="exact perplexity")
        ax.set(title=f"{m} switch-LM", xlabel="", ylabel="")
        plots.plain_log(ax, "x", [160, 170, 180, 200, 220, 250, 300, 400, 500])
        ax.set_xlim(min(est["estimate"].min(), ppl_of(m, 0.0, T)) / 1.01, est["estimate"].max() * 1.01)
    plots.figure_legend(fig, axes, ncol=1)
    fig.supxlabel(f"instance-level perplexity estimate, K = {k_runs} (log scale)")
    return fig


def separation(runs: Mapping, models: Sequence[str], names: Sequence[str], n_tokens: float) -> pd.DataFrame:
    """Neighbouring proposals in the order of their mean estimates, per model: the overlap of
    their densities of log p̂ per token and Welch's p-value (shown, and in ``_p``)."""
    T = n_tokens
    sep_rows = []
    for m in models:
        ranked = sorted(names, key=lambda n: runs[m, n]["instance"].mean(), reverse=True)
        for a, b in zip(ranked, ranked[1:]):
            x, y = runs[m, a]["instance"] / T, runs[m, b]["instance"] / T
            t_res = ss.ttest_ind(x, y, equal_var=False)
            sep_rows.append(
                {
                    "model": m,
                    "better": a,
                    "next": b,
                    "overlap": overlap(x.to_numpy(), y.to_numpy()),
                    "p-value (Welch)": tables.pvalue(t_res.pvalue),
                    "_p": t_res.pvalue,
                }
            )
    return pd.DataFrame(sep_rows)


def straddle_sentence(runs: Mapping, models: Sequence[str], names: Sequence[str]) -> str:
    """Where the exact perplexity lies among the runs: the share of each proposal's runs whose
    estimate falls below it (a log-estimate above the truth)."""
    below = {(m, n): float(np.mean(runs[m, n]["instance"] > 0)) for m in models for n in names}
    straddle = {k: v for k, v in below.items() if v > 0}
    return (
        "every run lies above it"
        if not straddle
        else "the worse proposals' runs lie above it, while the best straddle it: "
        + "; ".join(f"{100 * v:.0f} % of the runs of {n} ({m}) fall below" for (m, n), v in straddle.items())
    )
