"""Where the missing mass goes, by perturbation (LeBrun, Sordoni & O'Donnell 2022, §4.3 and
Fig. 4, claim 9), as the distortion chapter (06) measures it: test sequences perturbed
recursively, D⁽ⁱ⁾ = PERTURB(D⁽ⁱ⁻¹⁾) (:func:`.distortion.perturbation_ladder`), scored by L and
by the learners. A sequence pushed past the length cap is outside p_L′'s support: it is
counted, not averaged.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from lmnotes import stats
from lmnotes.report import plots
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion.error import by_bin
from lmnotes.studies.distortion.resample import ci, num

#: Equal-width bins of log p_L over all perturbed sequences, in the heat map.
N_BINS = 10


def errors(boot, ladder: dict, lang, models: dict, names) -> tuple[pd.DataFrame, dict]:
    """The learners' errors on each level of the ladder: per level, model and equal-width bin
    of the sequence's own log p_L (mean error where the bin holds more than 10 sequences, else
    NaN), and over each level (``bin`` −1: mean, share overestimated and ``ci``, an interval
    from ``boot``); and the number of sequences outside the support per level."""
    pert_rows = []
    lp_pert = {level: lang.logprob(seqs) for level, seqs in ladder.items()}
    finite = np.concatenate([v[np.isfinite(v)] for v in lp_pert.values()])
    edges_p = np.linspace(finite.min(), finite.max(), N_BINS + 1)
    outside = {}
    for level, seqs in ladder.items():
        lp_l = lp_pert[level]
        inside = np.isfinite(lp_l)
        outside[level] = int((~inside).sum())
        own_bin = np.clip(np.searchsorted(edges_p, lp_l, side="right") - 1, 0, N_BINS - 1)
        for name in names:
            e = D.estimation_error(LG.model_logprob(models[name], seqs), lp_l)
            for b in range(N_BINS):
                keep = (own_bin == b) & inside
                pert_rows.append(
                    {
                        "model": name,
                        "level": level,
                        "bin": b,
                        "log p_L": (edges_p[b] + edges_p[b + 1]) / 2,
                        "error": e[keep].mean() if keep.sum() > 10 else np.nan,
                        "n": keep.sum(),
                    }
                )
            ok = e[inside]
            pert_rows.append(
                {
                    "model": name,
                    "level": level,
                    "bin": -1,
                    "error": ok.mean(),
                    "n": len(ok),
                    "share overestimated": (ok > 0).mean(),
                    "ci": boot.mean_ci(ok),
                }
            )
    return pd.DataFrame(pert_rows), outside


def plot_heat(pert: pd.DataFrame, main: str):
    """Fig. 4: the main learner's mean error by number of perturbations (rows) and log p_L
    (columns), brown underestimated, blue-green overestimated (the paper's colours)."""
    heat = (
        pert[(pert["model"] == main) & (pert["bin"] >= 0)]
        .pivot(index="level", columns="log p_L", values="error")
        .dropna(axis=1, how="all")
    )
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.4))
    if heat.empty:  # a small n_perturb: no bin holds more than 10 sequences
        ax.text(
            0.5,
            0.5,
            "no bin of log p_L holds more than 10 perturbed sequences",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.set_axis_off()
        return fig
    lim = np.nanmax(np.abs(heat.to_numpy()))
    sns.heatmap(
        heat.iloc[::-1],
        cmap="BrBG",
        center=0,
        vmin=-lim,
        vmax=lim,
        ax=ax,
        cbar_kws={"label": "mean error (nats)"},
        xticklabels=[num(c) for c in heat.columns],
    )
    ax.set(xlabel="log p_L of the sequence (bin centre)", ylabel="perturbations")
    return fig


def table(overall: pd.DataFrame, outside: dict, names) -> pd.DataFrame:
    """Each level's mean error per model (with intervals) and how many sequences left the
    support (``overall``: the rows of :func:`errors` over each level)."""
    pert_tab = overall.pivot(index="level", columns="model", values="ci")[names].map(ci).reset_index()
    pert_tab.insert(1, "outside the support", [outside[lv] for lv in pert_tab["level"]])
    return pert_tab


def random_errors(boot, lang, models: dict, names, n_random: int, n_boot: int = 10_000, seed: int = 0):
    """The learners' errors on ``n_random`` sequences from Σ* (App. A.1,
    :func:`.distortion.random_sequences`): the mean error per equal-width bin of log p_L (10
    bins, with intervals; column ``model``), and the share overestimated per learner (an
    interval from ``boot``)."""
    rand = D.random_sequences(n_random, lang.vocabulary, seed=seed)
    lp_rand = lang.logprob(rand)
    rand_bins = D.equal_width_bins(lp_rand, 10)
    rand_rows = []
    for name in names:
        e = D.estimation_error(LG.model_logprob(models[name], rand), lp_rand)
        r = by_bin(e, rand_bins, lp_rand, n_boot=n_boot, seed=seed)
        r["model"] = name
        rand_rows.append(r)
    rand_df = pd.concat(rand_rows)
    rand_over = {
        name: boot.mean_ci(D.estimation_error(LG.model_logprob(models[name], rand), lp_rand) > 0)
        for name in names
    }
    return rand_df, rand_over


def random_table(rand_df: pd.DataFrame, names) -> pd.DataFrame:
    """The random sequences' mean error (with its interval) per bin, one column a learner."""
    rand_df = rand_df.copy()
    rand_df["error"] = [
        ci(stats.Estimate(*r)) for r in rand_df[["mean", "low", "high"]].itertuples(index=False)
    ]
    return (
        rand_df.pivot(index=["bin", "log p_L", "n"], columns="model", values="error")[names]
        .reset_index()
        .drop(columns="bin")
    )
