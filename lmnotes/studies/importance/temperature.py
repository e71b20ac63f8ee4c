"""The best proposal temperature on the switch-LM: the exact divergences of tempered
proposals from the posterior over a grid of temperatures, the best τ by each, and the best
of the runs at the paper's temperatures. Importance-sampling chapter (04), its version of the
paper's temperature sweep (Table 1, Fig. 4).

For Markov proposals KL(p(z|x) ‖ q) and log(1 + χ²(p(z|x) ‖ q)) are exact
(:func:`lmnotes.studies.importance.latent.divergence`); τ* minimises the mean over sentences
of log(1 + χ²), which sets the bias once the draws are many (the delta method's χ²/2K).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy import stats as ss

from lmnotes.core.progress import note
from lmnotes.report import plots, tables
from lmnotes.report.glue import Prose
from lmnotes.stats import inference as stats
from lmnotes.studies.importance import cached
from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import switch_runs as SR


@cached.remembered
def divergences(
    props: Mapping, models: Sequence[str], families: Sequence[str], sub: np.ndarray, grid: np.ndarray
) -> dict:
    """``{(model, family): (mean KL, mean log(1 + χ²))}`` over the sentences ``sub``, one value
    per temperature of ``grid``, of each proposal family ``props[model][family]`` tempered
    (:func:`lmnotes.studies.importance.latent.temper`) from the exact posterior."""
    tau_div = {}  # (model, family) -> (mean KL, mean log(1 + chi^2)) over tau_grid
    for m in models:
        for fam in families:
            note(f"exact divergences of {fam} ({m}) at {len(grid)} temperatures")
            post_sub, fam_sub = props[m][SR.EXACT].subset(sub), props[m][fam].subset(sub)
            d = [L.divergence(post_sub, L.temper(fam_sub, t)) for t in grid]
            tau_div[m, fam] = (np.array([k.mean() for k, _ in d]), np.array([c.mean() for _, c in d]))
    return tau_div


def figure(models: Sequence[str], families: Sequence[str], grid: np.ndarray, tau_div: Mapping):
    """Mean log(1 + χ²) (solid) and KL (dashed) per sentence against τ, a panel per model, the
    best τ by χ² dotted. The figure, open (the caller glues and closes it)."""
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.4), sharey=True)
    fam_colors = dict(zip(families, sns.color_palette("colorblind", 3)))
    for ax, m in zip(axes, models):
        for fam in families:
            kls, chis = tau_div[m, fam]
            ax.plot(grid, chis, color=fam_colors[fam], label=f"{fam}: log(1 + χ²)")
            ax.plot(grid, kls, color=fam_colors[fam], ls="--", label=f"{fam}: KL")
            best = int(np.argmin(chis))
            ax.plot(grid[best], chis[best], "o", color=fam_colors[fam])
        ax.set(title=f"{m} switch-LM", yscale="log")
        plots.plain_log(ax, "x", [0.5, 1, 2, 5])
    plots.figure_legend(fig, axes, ncol=3)
    fig.supxlabel("proposal temperature τ")
    fig.supylabel("nats per sentence")
    return fig


def best_temperatures(
    tau_div: Mapping,
    grid: np.ndarray,
    runs: Mapping,
    models: Sequence[str],
    families: Sequence[str],
    temperatures: Sequence[float],
    n_tokens: float,
    n_runs: int,
    k_runs: int,
) -> dict:
    """Per ``(model, family)``: τ* by χ² and by KL on ``grid``, log(1 + χ²) at τ = 1 and at
    τ*; for peek 1 also the best of the runs at the paper's ``temperatures`` (the highest mean
    instance-level log-estimate per token) and the temperatures tied with it (their difference
    within 1.96 standard errors).

    (9 parameters: the divergences and runs computed earlier and the chapter's parameters.)
    """
    tau_rows = {}
    for m in models:
        for fam in families:
            kls, chis = tau_div[m, fam]
            at1 = int(np.argmin(np.abs(grid - 1)))
            best = int(np.argmin(chis))
            tau_rows[m, fam] = {
                "τ* (χ²)": grid[best],
                "τ* (KL)": grid[int(np.argmin(kls))],
                "log(1 + χ²) at τ = 1": chis[at1],
                "at τ*": chis[best],
            }
        # the runs at the paper's temperatures (peek 1): the best, and those tied with it
        means = {t: runs[m, SR.peek_label(1, t)]["instance"].mean() / n_tokens for t in temperatures}
        ses = {
            t: runs[m, SR.peek_label(1, t)]["instance"].std(ddof=1) / n_tokens / np.sqrt(n_runs)
            for t in temperatures
        }
        best_run = max(means, key=means.get)
        tied = [
            t
            for t in temperatures
            if means[best_run] - means[t] <= stats.Z95 * np.hypot(ses[best_run], ses[t])
        ]
        tau_rows[m, "peek 1"].update(
            {
                f"best τ of the runs (K = {k_runs})": best_run,
                "tied with it": ", ".join(f"{t:g}" for t in tied),
            }
        )
    return tau_rows


def temperature_values(
    grid: np.ndarray,
    tau_rows: Mapping,
    runs: Mapping,
    models: Sequence[str],
    temperatures: Sequence[float],
    n_sentences: int,
) -> dict:
    """The sentences and numbers the chapter quotes about the best temperature, by name, in
    order: the grid, τ* per family, the runs' bias at τ = 2 against τ = 1 (nats per sentence)
    and how much tempering buys at τ* (share of log(1 + χ²) at τ = 1), in a sentence and, for
    mean-field and no peeking on the last model, in %."""
    values = {"n_tau_grid_used": len(grid), "tau_lo": float(grid.min()), "tau_hi": float(grid.max())}
    values["tau_summary"] = Prose(
        "; ".join(f"{fam} ({m}): τ* = {r['τ* (χ²)']:.2g}" for (m, fam), r in tau_rows.items())
    )
    bias_at = {
        (m, t): runs[m, SR.peek_label(1, t)]["instance"].mean() / n_sentences
        for m in models
        for t in temperatures
    }
    values["tau2_sentence"] = Prose(
        "; ".join(
            f"{m}: {tables.significant(2)(bias_at[m, 2.0])} nats per sentence at "
            f"τ = 2 against {tables.significant(2)(bias_at[m, 1.0])} at τ = 1"
            for m in models
        )
        if {1.0, 2.0} <= set(temperatures)
        else ""
    )
    gain_far = {k: 100 * (1 - r["at τ*"] / r["log(1 + χ²) at τ = 1"]) for k, r in tau_rows.items()}
    values["tau_gain_sentence"] = Prose(
        "; ".join(f"{fam} ({m}) {g:.0f} %" for (m, fam), g in gain_far.items())
    )
    # what tempering buys the most confidently wrong proposal and the merely diffuse prior
    # on the model whose chain keeps its state
    if ("sticky", SR.MEAN_FIELD) in gain_far:
        values["tau_gain_mf_sticky"] = float(gain_far["sticky", SR.MEAN_FIELD])
    if ("sticky", SR.NO_PEEKING) in gain_far:
        values["tau_gain_prior_sticky"] = float(gain_far["sticky", SR.NO_PEEKING])
    return values


@cached.remembered
def law(fitted: L.SwitchLM, em, stickiness: Sequence[float], horizons: Sequence[int], grid: np.ndarray):
    """The best temperature τ* (on ``grid``, by the mean log(1 + χ²)) of each proposal family
    (every peek horizon, mean-field) and its mean KL from the posterior at τ = 1, on the
    sentences ``em``, for the fitted chain made sticky by each ρ of ``stickiness``
    (A_ρ = ρ I + (1 − ρ) A). A row per (ρ, family), families in order."""
    families = [SR.peek_label(h) for h in horizons] + [SR.MEAN_FIELD]
    law_rows = []
    for rho in stickiness:
        model = fitted.sticky(rho) if rho > 0 else fitted
        post = L.posterior(model, em)
        base = {SR.peek_label(h): L.lookahead(model, em, h) for h in horizons}
        base[SR.MEAN_FIELD] = L.mean_field(model, em)
        for fam in families:
            chis = np.array([L.divergence(post, L.temper(base[fam], t))[1].mean() for t in grid])
            kl1 = L.divergence(post, base[fam])[0].mean()
            law_rows.append(
                {
                    "ρ": rho,
                    "memory |λ₂|": model.memory(),
                    "proposal": fam,
                    "KL at τ = 1": kl1,
                    "τ*": grid[int(np.argmin(chis))],
                }
            )
    return pd.DataFrame(law_rows)


def law_figure(law_table, families: Sequence[str]):
    """τ* against the KL at τ = 1, a line per family through the values of ρ. The figure,
    open."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.2))
    law_colors = dict(zip(families, sns.color_palette("colorblind", len(families))))
    for fam, g in law_table.groupby("proposal", sort=False):
        ax.plot(g["KL at τ = 1"], g["τ*"], marker="o", ms=3, color=law_colors[fam], label=fam)
    ax.set(
        xscale="symlog",
        yscale="log",
        xlabel="KL(p(z|x) ‖ q) per sentence at τ = 1 (nats)",
        ylabel="best temperature τ*",
    )
    ax.axhline(1, color=plots.REFERENCE_COLOR, lw=1)
    plots.plain_log(ax, "y", [0.5, 1, 2, 5])
    plots.figure_legend(fig, ax, ncol=3)
    return fig


def law_values(law_table, n_sentences: int) -> dict:
    """What the chapter quotes about the law, by name, in order: Spearman's ρ between the KL
    and τ* (descriptive: the cells share their sentences), the largest τ* within half a nat of
    the posterior, mean-field's largest τ* and the prior's range."""
    law = law_table
    fit_law = law[law["KL at τ = 1"] > 0]
    law_slope = ss.spearmanr(fit_law["KL at τ = 1"], fit_law["τ*"])  # descriptive only
    values = {
        "n_law_used": n_sentences,
        "law_spearman": float(law_slope.statistic),
        "n_law_points": len(fit_law),
    }
    near = law[law["KL at τ = 1"] < 0.5]
    values["tau_near_max"] = float(near["τ*"].max()) if len(near) else float("nan")
    mf_law, prior_law = (law[law["proposal"] == f] for f in (SR.MEAN_FIELD, SR.NO_PEEKING))
    values["tau_mf_max"] = float(mf_law["τ*"].max())
    values["tau_prior_range"] = f"{prior_law['τ*'].min():.2g} to {prior_law['τ*'].max():.2g}"
    values["kl_prior_range"] = f"{prior_law['KL at τ = 1'].min():.1f} to {prior_law['KL at τ = 1'].max():.1f}"
    return values


def grid(n: int, temperatures: Sequence[float]) -> np.ndarray:
    """``n`` temperatures spaced geometrically from 0.5 to 5, and the paper's ``temperatures``."""
    return np.unique(np.concatenate([np.geomspace(0.5, 5, n), temperatures]))
