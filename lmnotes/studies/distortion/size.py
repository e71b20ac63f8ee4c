"""Does model size matter (LeBrun, Sordoni & O'Donnell 2022, claim 3: GPT2-medium is only
slightly better than GPT2-small)? The distortion chapter (06) compares two Transformer
learners on the same test sequences: the paired per-bin difference of their errors, the
difference of their mean errors as a share of their mean, the paper's own metric (the gain
in mean PP, Eq. 1), and the paper's criterion (the unpaired per-bin intervals overlap).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes.report import plots
from lmnotes.stats import scaled
from lmnotes.studies.distortion.resample import ci, est


def compare(
    rng: np.random.Generator,
    err: dict,
    logp_m: dict,
    test,
    curves: dict,
    main: str,
    tiny: str,
    paired: pd.DataFrame,
    n_boot: int = 2000,
) -> dict:
    """The two sizes compared: ``pp_gain`` (1 − mean PP of ``main`` / mean PP of ``tiny``) and
    ``rel`` (the difference of the mean errors over their mean), both with intervals from the
    same ``n_boot`` resamples of the test sequences drawn from ``rng``; ``n_overlap`` of
    ``n_bins`` equal-count bins whose unpaired intervals overlap, and ``n_resolved`` of
    ``n_paired`` bins whose paired interval excludes zero.

    (9 parameters: each is a result of an earlier cell of the chapter.)
    """
    # the paired difference as a share of the two models' mean error,
    # resampling the test sequences for numerator and denominator alike
    idx = rng.integers(len(test), size=(n_boot, len(test)))
    a_b, t_b = err[main][idx].mean(1), err[tiny][idx].mean(1)
    a_m, t_m = err[main].mean(), err[tiny].mean()
    rel = est((a_m - t_m) / abs(a_m + t_m) * 2, (a_b - t_b) / np.abs(a_b + t_b) * 2)
    pp_gain = gain_in_pp(logp_m, test, main, tiny, idx)  # the paper's own metric, same resamples
    # the paper's criterion: the two curves' (unpaired) per-bin intervals
    # overlap in most bins; and the paired one: few bins resolve a difference
    c_a, c_b = curves[main, "equal count"], curves[tiny, "equal count"]
    n_overlap = int(((c_a["low"] <= c_b["high"]) & (c_b["low"] <= c_a["high"])).sum())
    n_resolved = int(((paired["low"] > 0) | (paired["high"] < 0)).sum())
    return {
        "tiny": tiny,
        "pp_gain": pp_gain,
        "rel": rel,
        "n_overlap": n_overlap,
        "n_bins": len(c_a),
        "n_resolved": n_resolved,
        "n_paired": len(paired),
    }


def gain_in_pp(logp_m: dict, test, main: str, tiny: str, idx: np.ndarray):
    """The paper's metric of model size: 1 − mean PP of ``main`` / mean PP of ``tiny`` (its
    Eq. 1, the mean over test sequences of each one's perplexity), with its percentile
    interval over the resamples ``idx`` (rows of test-sequence indices)."""
    pp_seq = {k: np.exp(-logp_m[k] / test.lengths) for k in (main, tiny)}
    return est(
        1 - pp_seq[main].mean() / pp_seq[tiny].mean(),
        1 - pp_seq[main][idx].mean(1) / pp_seq[tiny][idx].mean(1),
    )


def table(size: dict, main: str, paper_size_gain: float) -> pd.DataFrame:
    """Model size in both metrics, ours against the paper's (in %)."""
    return pd.DataFrame(
        {
            "metric": ["gain in mean PP (Eq. 1)", "difference of mean errors, % of their mean"],
            f"ours: {size['tiny']} → {main}": [
                ci(scaled(size["pp_gain"], 100)),
                ci(scaled(size["rel"], 100)),
            ],
            "paper: GPT2-small → medium": [f"{100 * paper_size_gain:.2f}", "not derivable"],
        }
    )


def plot_paired(paired: pd.DataFrame, main: str, tiny: str, color):
    """The paired difference of the two sizes' errors per equal-count bin, with intervals."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 2.8))
    ax.errorbar(
        paired["log p_L"],
        paired["mean"],
        yerr=[paired["mean"] - paired["low"], paired["high"] - paired["mean"]],
        fmt="o",
        ms=3,
        color=color,
    )
    ax.axhline(0, color=plots.REFERENCE_COLOR, lw=1)
    ax.set(xlabel="log p_L(x) (equal-count bin mean)", ylabel=f"error({main}) − error({tiny})")
    return fig


def plot_one(curve: pd.DataFrame, main: str, color):
    """The main learner's error alone, where only one Transformer size was trained."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 2.8))
    ax.plot(curve["log p_L"], curve["mean"], marker=".", color=color)
    ax.set(xlabel="log p_L(x) (equal-count bin mean)", ylabel=f"error({main})")
    return fig


def text(size: dict, paired: pd.DataFrame, main: str, parameters: dict, paper_size_gain: float) -> str:
    """The chapter's paragraph on model size."""
    tiny, rel, pp_gain = size["tiny"], size["rel"], size["pp_gain"]
    return (
        f"The larger learner ({main}, "
        f"{parameters[main]:,} parameters, "
        f"{parameters[main] / parameters[tiny]:.1f}× "
        f"{tiny}'s) is closer to L: the paired difference of mean errors is "
        f"{ci(scaled(rel, 100))}"
        f" % of the two models' mean error, and it is better in "
        f"{int((paired['low'] > 0).sum())} of {len(paired)} bins beyond its "
        "paired interval. In the paper's own metric, the gain in mean "
        f"perplexity is {ci(scaled(pp_gain, 100))} %,"
        f" against the paper's {100 * paper_size_gain:.2f} % for a "
        "GPT2-small → medium step it calls slight. The mean error weighs "
        "long sequences more and shows the step as larger; the paper's "
        "tables cannot give it, since it needs L's probability of each "
        "test sequence, which they do not print. By the paper's own "
        "criterion, the unpaired per-bin intervals of the two curves "
        f"overlap in {size['n_overlap']} of {size['n_bins']} bins; paired, "
        f"{size['n_resolved']} of {len(paired)} bins resolve a difference."
    )
