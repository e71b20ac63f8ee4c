"""The error over training, by stratum of log p_L (LeBrun, Sordoni & O'Donnell 2022, Fig. 2,
claims 4–5), as the distortion chapter (06) measures it: after every epoch the main learner
scores a fixed subset of its training sequences and of the test sequences (``watch``), and
each equal-count stratum's mean error traces a curve.

The gap between strata is the most probable stratum's mean error minus the rarest's; the
test gap beyond length is :func:`lmnotes.studies.distortion.deficit.residual_contrast`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from lmnotes.report import cases as lmcases, plots
from lmnotes.studies.distortion import deficit as F
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion.resample import ci, est, negated, num


def best_epoch(model) -> int:
    """The epoch whose weights are kept (the least validation loss)."""
    return int(model.history["valid_loss"].idxmin()) + 1


def strata_curves(history: pd.DataFrame, watch, n_strata: int) -> pd.DataFrame:
    """Mean error per epoch and stratum, for the watched train and test subsets (``watch``:
    the two sample sets; ``history``: a learner's per-epoch record with their errors)."""
    out = []
    for part, sub in (("train", watch[0]), ("test", watch[1])):
        bins = D.equal_count_bins(sub.logp, n_strata)
        for _, row in history.iterrows():
            e = np.asarray(row[f"{part}_error"])
            for b in np.unique(bins):
                out.append(
                    {
                        "part": part,
                        "epoch": int(row["epoch"]),
                        "stratum": int(b),
                        "error": e[bins == b].mean(),
                    }
                )
    return pd.DataFrame(out)


def plot_strata(curves: pd.DataFrame, history: pd.DataFrame, n_strata: int):
    """Fig. 2: one curve per stratum (darker: rarer) on training and test sequences, the best
    validation epoch dotted."""
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.2), sharey=True)
    palette = sns.color_palette("rocket", n_strata)
    for ax, part in zip(axes, ["train", "test"]):
        d = curves[curves["part"] == part]
        for b, g in d.groupby("stratum"):
            ax.plot(g["epoch"], g["error"], color=palette[b], lw=1.2)
        ax.axhline(0, color=plots.REFERENCE_COLOR, lw=1)
        best = int(history["valid_loss"].idxmin()) + 1
        ax.axvline(best, color=plots.REFERENCE_COLOR, ls=":", lw=1)
        ax.set(xlabel="epoch", title=f"{part} sequences")
    axes[0].set_ylabel("mean error (nats)")
    return fig


def epoch_errors(history: pd.DataFrame, watch, part: str, epoch: int, n_strata: int):
    """The watched subset's errors after an epoch, and its strata."""
    sub = watch[0] if part == "train" else watch[1]
    row = history.query("epoch == @epoch").iloc[0]
    return (np.asarray(row[f"{part}_error"]), D.equal_count_bins(sub.logp, n_strata))


def spread(boot, history, watch, part: str, epoch: int, n_strata: int):
    """Mean error of the most probable stratum minus the rarest's: its value and bootstrap
    replicates (from ``boot``, :class:`.resample.Bootstrap`)."""
    e, bins = epoch_errors(history, watch, part, epoch, n_strata)
    top, bottom = e[bins == bins.max()], e[bins == 0]
    return top.mean() - bottom.mean(), boot.means(top) - boot.means(bottom)


def over_training(boot, history: pd.DataFrame, watch, n_strata: int, seed: int = 0) -> dict:
    """What the curves show, with intervals: ``last`` and ``mid`` epochs, the ``final`` mean
    error of each part, the strata ``gaps`` at epochs 1, mid and last, ``apart`` (the test gap
    minus the training gap at the last epoch), ``gap_beyond`` (the test gap's residual beyond
    the length law), ``rarest_train`` (the rarest training stratum's mean error), ``m2`` (the
    mean errors after epoch 2) and the ``table`` the chapter shows."""
    last = int(history["epoch"].max())
    mid = max(1, last // 2)
    final = {
        part: boot.mean_ci(epoch_errors(history, watch, part, last, n_strata)[0])
        for part in ("train", "test")
    }
    spreads = {
        (part, e): spread(boot, history, watch, part, e, n_strata)
        for part in ("train", "test")
        for e in (1, mid, last)
    }
    gaps = {k: est(*v) for k, v in spreads.items()}
    # test strata apart while the training strata close: gap(test) − gap(train)
    apart = est(
        spreads["test", last][0] - spreads["train", last][0],
        spreads["test", last][1] - spreads["train", last][1],
    )
    e_last, b_last = epoch_errors(history, watch, "train", last, n_strata)
    # the test strata gap beyond what length alone gives (the length law):
    # the rarest stratum's residual minus the most probable one's, < 0 beyond it
    e_test, b_test = epoch_errors(history, watch, "test", last, n_strata)
    gap_beyond = F.residual_contrast(e_test, watch[1].lengths, b_test, seed=seed)
    rarest_train = boot.mean_ci(e_last[b_last == 0])
    table = pd.DataFrame(
        {
            "sequences": ["train", "test"],
            f"mean error, epoch {last}": [ci(final[p]) for p in ("train", "test")],
        }
        | {
            f"strata gap, epoch {e}": [ci(gaps[p, e]) for p in ("train", "test")]
            for e in sorted({1, mid, last})
        }
    )
    m2 = {p: np.mean(epoch_errors(history, watch, p, min(2, last), n_strata)[0]) for p in ("train", "test")}
    return {
        "last": last,
        "mid": mid,
        "final": final,
        "gaps": gaps,
        "apart": apart,
        "gap_beyond": gap_beyond,
        "rarest_train": rarest_train,
        "m2": m2,
        "table": table,
    }


def strata_end(gap) -> str:
    """How the training strata end, read from the last epoch's gap (most probable stratum's
    mean error minus the rarest's) and its interval: they cross (the rarest overestimated),
    stay apart, or meet (the interval holds 0)."""
    if gap.high < 0:
        return "cross"
    return "stay apart" if gap.low > 0 else "meet"


def facts(t: dict, n_best_last: int, n_models: int) -> dict:
    """What the chapter states after the gap beyond length, in the order it glues them: the
    final errors, the gaps, the rarest training stratum, how the training strata end, how far
    apart the test strata keep, how many learners are best at their last epoch, and the
    errors after epoch 2; ``beyond_length``: what the test gap's residual beyond the length
    law (the most probable stratum's minus the rarest one's) says."""
    final, gaps, last, mid = t["final"], t["gaps"], t["last"], t["mid"]
    end = strata_end(gaps["train", last])
    return {
        "train_strata": {
            "cross": "the training strata cross, the rarest ending up overestimated",
            "meet": "the training strata meet (their gap's interval holds 0)",
            "stay apart": "the training strata stay apart",
        }[end],
        "train_strata_paper": {
            "cross": "ours cross at our last epoch, the rarest training sequences ending up overestimated",
            "meet": "ours meet too, though the gap's interval is wide",
            "stay apart": "ours stay apart at our last epoch",
        }[end],
        "beyond_length": {
            True: "a gap beyond length",
            False: "less of a gap than length alone predicts",
            None: "its interval holds 0, so the gap that persists is what length alone predicts",
        }[lmcases.side("above", negated(t["gap_beyond"]))],
        "train_final": ci(final["train"]),
        "test_final": ci(final["test"]),
        "gap_train_last": ci(gaps["train", last]),
        "gap_test_last": ci(gaps["test", last]),
        "gap_test_first": ci(gaps["test", 1]),
        "gap_test_mid": ci(gaps["test", mid]),
        "mid": mid,
        "rarest_train": ci(t["rarest_train"]),
        "apart": ci(t["apart"]),
        "best_last": f"{n_best_last} of {n_models}",
        "m2_train": num(t["m2"]["train"]),
        "m2_test": num(t["m2"]["test"]),
    }
