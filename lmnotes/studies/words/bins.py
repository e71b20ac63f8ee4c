"""Accuracy and type coverage by training-frequency bin, in the word-level chapter (05): the
paper's Figs. 1 and 2 (Dudy & Bedrick 2020, §3.1) on our models, with cluster-bootstrap
intervals, and the paired bin-by-bin differences from a reference model.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes.report import plots
from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label


def by_bin(evaluated: Mapping[str, pd.DataFrame], models: Sequence[str], res: WS.Resampler) -> dict:
    """{(model, bin): {"acc": top-1 accuracy, "cov": T1 (estimates, percent), "n": positions,
    "types": types, "hits": top-1 hits}} over every bin of :data:`WS.BINS_ALL` a model's
    targets fall in."""
    out = {}
    for name in models:
        t = evaluated[name]
        for b in WS.BINS_ALL:
            tb = t[t["bin"] == b]
            if len(tb):
                out[name, b] = dict(
                    acc=res.rate(tb["hit1"].to_numpy(), tb["article"]),
                    cov=res.coverage(tb["word"], tb["hit1"], tb["article"]),
                    n=len(tb),
                    types=tb["word"].nunique(),
                    hits=int(tb["hit1"].sum()),
                )
    return out


def plot_bins(bins: Mapping[tuple, dict], models: Sequence[str], color):
    """The paper's Figs. 1 and 2: T1 (left) and top-1 accuracy (right) per bin, a bar per
    model with its 95% interval (``color`` names a model's colour). Returns the figure."""
    bin_names = WS.BINS_ALL
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.2), sharex=True)
    width = 0.8 / len(models)
    for k, name in enumerate(models):
        for ax, what in zip(axes, ("cov", "acc")):
            xs = [i for i, b in enumerate(bin_names) if (name, b) in bins]
            e = [bins[name, bin_names[i]][what] for i in xs]
            ax.bar(
                np.array(xs) + (k - len(models) / 2 + 0.5) * width,
                [x.value for x in e],
                width,
                yerr=[[x.value - x.low for x in e], [x.high - x.value for x in e]],
                color=color(name),
                label=label(name),
                error_kw=dict(lw=0.6),
            )
    for ax, title in zip(axes, ("type coverage T1 (%)", "top-1 accuracy (%)")):
        ax.set_xticks(range(len(bin_names)), bin_names, rotation=30)
        ax.set_xlabel("training count of the target")
        ax.set_ylabel(title)
    plots.figure_legend(fig, axes)
    return fig


def bin_sizes(bins: Mapping[tuple, dict], model: str) -> pd.DataFrame:
    """One model's target positions and types per bin (the bins it has targets in)."""
    n_types = {b: bins[model, b]["types"] for b in WS.BINS_ALL if (model, b) in bins}
    return pd.DataFrame(
        {"positions": {b: bins[model, b]["n"] for b in n_types}, "types": n_types}
    ).rename_axis("bin")


def differences(
    bins: Mapping[tuple, dict], models: Sequence[str], ref: str, what: str, res: WS.Resampler
) -> pd.DataFrame:
    """``what`` ("acc" or "cov") of every model minus ``ref``'s, bin by bin, on the same
    resamples: a column per model (short names), a row per bin both have."""
    return pd.DataFrame(
        {
            label(n): {
                b: res.paired(bins[n, b][what], bins[ref, b][what])
                for b in WS.BINS_ALL
                if (n, b) in bins and (ref, b) in bins
            }
            for n in models
            if n != ref
        }
    ).rename_axis("bin")
