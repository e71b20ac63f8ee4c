"""The estimation error by the target's probability (LeBrun, Sordoni & O'Donnell 2022, Eq. 2
and Fig. 1), as the distortion chapter (06) shows it: per-bin means of the error placed at
the bin's mean log p_L, the joint histogram and the curves, the summary of underestimation
(share, median, trimmed mean, −KL), and the length law's predictions at the end bins.

error(x) = log p_M(x) − log p_L(x); its mean under L is −KL(p_L ‖ p_M) ≤ 0 by Gibbs'
inequality, so the median and the shape are the findings. The length law error ≈ −k·|x| ≈
(k/h)·log p_L is :func:`lmnotes.studies.distortion.deficit.length_law`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats as ss

from lmnotes.report import plots
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion.resample import bin_estimate, ci, negated, num

#: The paper's two binnings of log p_L: equal widths (footnote 3) and equal counts (§4.2).
BINNINGS = ("equal width", "equal count")


def by_bin(values, bins, x, n_boot: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Per-bin means of ``values`` with percentile bootstrap intervals
    (:func:`.distortion.bin_means`), placed at the bin's mean of ``x`` (column "log p_L")."""
    out = D.bin_means(values, bins, n_boot=n_boot, seed=seed)
    out["log p_L"] = [x[bins == b].mean() for b in out["bin"]]
    return out


def plot_error(test, logp_m: dict, main: str, learners, curves: dict, laws: dict, color):
    """Fig. 1: the joint histogram of log p_L and the main learner's log p_M (left), and each
    learner's mean error per bin in both binnings with its bands and its length law (right)."""
    line_x = np.linspace(test.logp.min(), test.logp.max(), 50)
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.6))
    axes[0].hist2d(test.logp, logp_m[main], bins=40, cmap="Blues", cmin=1)
    lo = min(test.logp.min(), logp_m[main].min())
    axes[0].plot([lo, 0], [lo, 0], ls="--", color=plots.REFERENCE_COLOR, lw=1)
    axes[0].set(xlabel="log p_L(x)", ylabel=f"log p_M(x), {main}", title="Joint histogram (test)")
    for name in learners:
        for kind, style in (("equal width", "-"), ("equal count", ":")):
            c = curves[name, kind]
            axes[1].plot(
                c["log p_L"], c["mean"], style, marker=".", color=color(name), label=f"{name}, {kind}"
            )
            axes[1].fill_between(c["log p_L"], c["low"], c["high"], alpha=0.2, color=color(name))
        axes[1].plot(line_x, laws[name].slope * line_x, "--", lw=0.8, color=color(name))
    axes[1].axhline(0, color=plots.REFERENCE_COLOR, lw=1)
    axes[1].set(xlabel="log p_L(x) (bin mean)", ylabel="mean error (nats)", title="Mean error by bin")
    axes[1].legend(fontsize="small")
    return fig


def rank_correlations(curves: dict) -> dict:
    """Spearman's ρ between each curve's bin log p_L and its mean error."""
    return {k: ss.spearmanr(c["log p_L"], c["mean"]).statistic for k, c in curves.items()}


def underestimation(boot, learners, err: dict, laws: dict):
    """Each learner's share of underestimated test sequences, KL (= −mean error), median and
    5 % trimmed mean error, with their intervals from ``boot``
    (:class:`.resample.Bootstrap`, drawn in that order), and the table of them with k."""
    share = {n: boot.share_under(n, err[n]) for n in learners}
    kl = {n: negated(boot.mean_error(n, err[n])) for n in learners}
    median = {n: boot.stat(err[n], lambda v: np.median(v, axis=1)) for n in learners}
    trimmed = {n: boot.stat(err[n], lambda v: ss.trim_mean(v, 0.05, axis=1)) for n in learners}
    table = pd.DataFrame(
        {
            "model": learners,
            "share underestimated": [ci(share[n]) for n in learners],
            "median error": [ci(median[n]) for n in learners],
            "5 % trimmed mean": [ci(trimmed[n]) for n in learners],
            "mean error = −KL": [ci(negated(kl[n])) for n in learners],
            "KL per token k": [laws[n].k for n in learners],
        }
    )
    return share, kl, median, table


def worst_error(learners, err: dict) -> tuple[str, int]:
    """The learner with the lowest error on any test sequence, and that sequence's index."""
    low_name = min(learners, key=lambda k: err[k].min())
    return low_name, int(np.argmin(err[low_name]))


#: A sequence "stands out" when its error is at least this many times its learner's mean
#: deficit (a derailed LSTM gave 117; the lowest error of a learner that does not derail is a
#: few times its mean, as long sequences are).
OUTLIER_TIMES = 20


def stands_out(low_name: str, low_i: int, err: dict, kl: dict) -> bool:
    """Whether the worst sequence (:func:`worst_error`) is an outlier by :data:`OUTLIER_TIMES`."""
    return -err[low_name][low_i] / kl[low_name].value >= OUTLIER_TIMES


def outlier_text(low_name: str, low_i: int, err: dict, test, kl: dict) -> str:
    """The sentence on the single worst sequence: whether it drives a learner's mean."""
    what = (
        f"{num(err[low_name][low_i], 4)} nats (log p_L = {num(test.logp[low_i])}, "
        f"{test.lengths[low_i]} tokens), "
        f"{-err[low_name][low_i] / kl[low_name].value:.0f} times its mean deficit"
    )
    if stands_out(low_name, low_i, err, kl):
        return (
            f"One sequence stands out: {low_name} gives it an error of {what}; it makes "
            f"{low_name}'s dip in the equal-width bin holding it, and it is why the table "
            "gives a median and a trimmed mean beside the mean, which a few such values "
            "dominate."
        )
    return (
        f"No sequence stands out: the lowest error, {low_name}'s, is {what}, no more than "
        f"a long sequence's share ({OUTLIER_TIMES} times would mark an outlier); the table "
        "still gives a median and a trimmed mean beside the mean, which such values move."
    )


def end_bins(curves: dict, learners) -> dict:
    """Each learner's rarest and most probable equal-count bins (rows of :func:`by_bin`)."""
    return {n: (curves[n, "equal count"].iloc[0], curves[n, "equal count"].iloc[-1]) for n in learners}


def law_at_ends(ends: dict, laws: dict, learners):
    """The length law (k/h)·log p_L against the end bins: the table, its largest miss (nats)
    and in how many end bins it falls inside the bin's interval."""
    table = pd.DataFrame(
        {
            "model": learners,
            "rarest bin": [ci(bin_estimate(ends[n][0])) for n in learners],
            "law there": [laws[n].slope * ends[n][0]["log p_L"] for n in learners],
            "most probable bin": [ci(bin_estimate(ends[n][1])) for n in learners],
            "law there ": [laws[n].slope * ends[n][1]["log p_L"] for n in learners],
            "k (nats/token)": [laws[n].k for n in learners],
            "h (nats/token)": [laws[n].h for n in learners],
        }
    )
    law_miss = max(
        abs(laws[n].slope * ends[n][i]["log p_L"] - ends[n][i]["mean"]) for n in learners for i in (0, 1)
    )
    law_inside = sum(
        ends[n][i]["low"] <= laws[n].slope * ends[n][i]["log p_L"] <= ends[n][i]["high"]
        for n in learners
        for i in (0, 1)
    )
    return table, law_miss, law_inside
