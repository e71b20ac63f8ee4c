"""Is the distortion learned from samples? The distortion chapter's (06) control, beyond
LeBrun, Sordoni & O'Donnell (2022): the main learner trained on the same sequences with L's
full next-token distribution as its target (word-level knowledge distillation; the loss is
KL(p_L(· | x_<t) ‖ p_M(· | x_<t)) up to L's entropy) instead of the sampled token, compared
with the learner trained on samples.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from lmnotes.report import plots
from lmnotes.studies.distortion.resample import bin_estimate, ci


def table(
    boot, share_main, err_main, err_d, curve: pd.DataFrame, d_curve: pd.DataFrame, main: str, d_name: str
) -> pd.DataFrame:
    """The two targets side by side: share underestimated, mean error, and the rarest and
    most probable equal-count bins (intervals from ``boot``, memoised by name)."""
    return pd.DataFrame(
        {
            "training target": ["sampled tokens", "L's distributions"],
            "share underestimated": [ci(share_main), ci(boot.share_under(d_name, err_d))],
            "mean error": [ci(boot.mean_error(main, err_main)), ci(boot.mean_error(d_name, err_d))],
            "rarest bin": [ci(bin_estimate(curve.iloc[0])), ci(bin_estimate(d_curve.iloc[0]))],
            "most probable bin": [ci(bin_estimate(curve.iloc[-1])), ci(bin_estimate(d_curve.iloc[-1]))],
        }
    )


def text(
    boot,
    share_main,
    err_main,
    err_d,
    curve: pd.DataFrame,
    d_curve: pd.DataFrame,
    d_gain: pd.DataFrame,
    d_name: str,
) -> str:
    """The chapter's paragraph on the control: how much smaller the deficit is overall, in
    the rarest and in the most probable bin, and in how many bins the paired difference
    ``d_gain`` is resolved either way."""
    rare_cut = 1 - d_curve.iloc[0]["mean"] / curve.iloc[0]["mean"]
    all_cut = 1 - err_d.mean() / err_main.mean()
    top_cut = 1 - d_curve.iloc[-1]["mean"] / curve.iloc[-1]["mean"]
    return (
        f"Trained on L's distributions, the learner "
        f"underestimates a share {ci(boot.share_under(d_name, err_d))} of the test "
        f"sequences (against {ci(share_main)} from samples). Its mean "
        f"deficit is {all_cut:.0%} smaller overall, {rare_cut:.0%} "
        f"smaller in the rarest bin and {top_cut:.0%} in the most probable "
        "one: distillation does not help the tail especially; if anything, "
        "the most probable sequences gain most. It is closer to L in "
        f"{int((d_gain['low'] > 0).sum())} "
        f"of {len(d_gain)} bins beyond the paired interval and farther in "
        f"{int((d_gain['high'] < 0).sum())}."
    )


def plot(curve: pd.DataFrame, d_curve: pd.DataFrame | None, main: str, color):
    """The main learner's mean error by equal-count bin, trained on sampled tokens (solid) and,
    if run, on L's distributions (dashed)."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.0))
    pairs = [(curve, "sampled tokens", "-")]
    pairs += [(d_curve, "L's distributions", "--")] if d_curve is not None else []
    for c, lab, ls in pairs:
        ax.plot(c["log p_L"], c["mean"], ls, marker=".", color=color, label=lab)
        ax.fill_between(c["log p_L"], c["low"], c["high"], alpha=0.2, color=color)
    ax.axhline(0, color=plots.REFERENCE_COLOR, lw=1)
    ax.set(xlabel="log p_L(x) (equal-count bin mean)", ylabel="mean error (nats)")
    ax.legend(title=f"{main} trained on")
    return fig
