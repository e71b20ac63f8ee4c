"""Calibration by frequency bin in the word-level chapter (05): the gap between the mean
confidence and the accuracy of greedy whole-word predictions within each training-frequency
bin, grouped by the *target*'s bin and by the *predicted* word's, for the models and for a
perfectly calibrated control (:func:`lmnotes.studies.words.wordstats.calibrated_control`).

Grouping by the target groups by the outcome (a frequent target is hit when the prediction
reached it), so even a calibrated predictor shows gaps there; grouping by the prediction
does not. The chapter also asks how much of a model's miscalibration cancels across bins:
the smaller of its over- and underconfidence, each weighted by its bins' share of the
predictions (gaps beyond their intervals only). Before the bins, the overall calibration:
the expected calibration error over equal-mass bins (Guo et al. 2017) and a reliability
diagram.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes.report import cases as lmcases, plots
from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label, signed

CONTROL = "calibrated control"


def bin_gaps(res: WS.Resampler, t: pd.DataFrame, hits=None, target_bin=None) -> dict:
    """Mean confidence minus accuracy (points) per bin of the target and of the prediction:
    {"target": {bin: Estimate}, "prediction": {bin: Estimate}}. The confidence is
    exp(``conf``); ``hits`` and ``target_bin`` default to ``t``'s (a control passes its own)."""
    conf = np.exp(t["conf"].to_numpy())
    hits = t["hit1"] if hits is None else hits
    target_bin = t["bin"] if target_bin is None else target_bin
    return {
        "target": WS.calibration_gap(res, conf, hits, target_bin, t["article"]),
        "prediction": WS.calibration_gap(res, conf, hits, t["pred_bin"], t["article"]),
    }


def gap_table(gaps: Mapping[tuple, dict], by: str) -> pd.DataFrame:
    """The gaps grouped ``by`` "target" or "prediction": a row per model, a column per paper
    bin (``gaps``: {(model, by): {bin: Estimate}})."""
    return pd.DataFrame(
        {b: {m: g[b] for (m, how), g in gaps.items() if how == by and b in g} for b in WS.PAPER_BINS}
    ).rename_axis("model")


#: Whether a gap's interval excludes 0.
beyond = lmcases.excludes


def cancelled(gaps: Mapping[str, dict], share: pd.Series) -> float:
    """How much of one model's error cancels across the bins (points): the smaller of its over-
    and underconfidence, each gap weighted by its bin's share of the predictions (``share``),
    gaps beyond their intervals only (``gaps``: {bin: Estimate}, by the predicted word)."""
    w = [share.get(b, 0) * g.value for b, g in gaps.items() if beyond(g)]
    return min(sum(x for x in w if x > 0), -sum(x for x in w if x < 0))


def bins_sentence(
    gaps: Mapping[tuple, dict],
    share_pred: Mapping[str, pd.Series],
    neural: Sequence[str],
    control_ece: float,
    ece_pts: float,
) -> str:
    """The chapter's reading of the gaps: the control's pattern by the target's bin, the
    neural models' gaps by the predicted word's bin (where most predictions fall and beyond
    their intervals elsewhere), and the error that cancels across bins against the smallest
    overall ECE (``ece_pts``, points)."""
    frequent = WS.PAPER_BINS[0]
    g_freq = [gaps[m, "prediction"][frequent] for m in neural if frequent in gaps[m, "prediction"]]
    elsewhere = [
        100 * share_pred[m].get(b, 0)
        for m in neural
        for b, g in gaps[m, "prediction"].items()
        if b in WS.PAPER_BINS[1:] and beyond(g)
    ]
    cancel = {m: cancelled(gaps[m, "prediction"], share_pred[m]) for m in neural}
    worst = max(cancel, key=cancel.get)
    ctl_t = gaps[CONTROL, "target"]
    return (
        f"The control, calibrated (ECE {control_ece:.3f}), shows the target-bin "
        f"pattern: {signed(ctl_t[frequent].value, 1)} points in the most "
        f"frequent bin and {signed(ctl_t[WS.PAPER_BINS[-1]].value, 1)} in "
        f"{WS.PAPER_BINS[-1]}, as large as the models': the target-bin table "
        "shows a model's miscalibration only where its gap exceeds the "
        "control's. Grouped by the predicted word, the "
        f"neural models' gap in {frequent}, which holds "
        f"{min(100 * share_pred[m].get(frequent, 0) for m in neural):.0f}–"
        f"{max(100 * share_pred[m].get(frequent, 0) for m in neural):.0f} % of "
        f"their predictions, is {signed(min(g.value for g in g_freq), 1)} to "
        f"{signed(max(g.value for g in g_freq), 1)} points"
        + (
            f"; {len(elsewhere)} of their gaps in the other two bins lie beyond "
            f"their intervals, in bins holding at most {max(elsewhere):.1f} % of a "
            "model's predictions"
            if elsewhere
            else "; in the other two bins no gap lies beyond its interval"
        )
        + f". Weighted by their share of the predictions (in every bin, the "
        f"predictions of unseen words and `<unk>` included), the over- and "
        f"underconfidence that cancel across bins amount to at most "
        f"{cancel[worst]:.2f} points ({worst}), against overall ECEs from "
        f"{ece_pts:.2f} points: "
        + (
            "small beside the ECE itself, so the overall calibration is not an average of errors that cancel."
            if cancel[worst] < ece_pts
            else "as large as the ECE itself, so part of the overall calibration comes "
            "from errors that cancel."
        )
    )


def calibration_table(
    evaluated: Mapping[str, pd.DataFrame], models: Sequence[str]
) -> tuple[pd.DataFrame, dict]:
    """Per model, the calibration of its greedy whole-word predictions (confidence
    exp(``conf``)): ECE, Brier, mean confidence and accuracy (:func:`WS.calibration`), and
    {model: reliability table}."""
    cal_rows, rel = [], {}
    for name in models:
        t = evaluated[name]
        conf = np.exp(t["conf"].to_numpy())
        ece, brier, r = WS.calibration(conf, t["hit1"])
        rel[name] = r
        cal_rows.append(
            {
                "model": name,
                "ECE": ece,
                "Brier": brier,
                "mean confidence": conf.mean(),
                "accuracy": t["hit1"].mean(),
            }
        )
    return pd.DataFrame(cal_rows), rel


def plot_reliability(rel: Mapping[str, pd.DataFrame], color):
    """Reliability diagram: accuracy against mean confidence per equal-mass bin, a line per
    model (``color`` names a model's colour), and the diagonal. Returns the figure."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN * 0.6, 3.2))
    for name, r in rel.items():
        ax.plot(r["confidence"], r["accuracy"], marker="o", ms=3, color=color(name), label=label(name))
    ax.plot([0, 1], [0, 1], color=plots.REFERENCE_COLOR, lw=0.8)
    ax.set_xlabel("confidence p(predicted word)")
    ax.set_ylabel("accuracy")
    ax.legend(fontsize="small")
    return fig


def cal_sentence(cal_i: pd.DataFrame, family: Sequence[str], others: Sequence[str]) -> str:
    """The chapter's reading of the calibration table (``cal_i``: by model): the family's
    range of ECE, and each other model's ECE, confidence and accuracy."""
    return (
        f"The neural models are close to calibrated overall (ECE "
        f"{cal_i.loc[family, 'ECE'].min():.3f}–"
        f"{cal_i.loc[family, 'ECE'].max():.3f})"
        + "".join(
            f"; {label(n)}'s ECE is {cal_i.loc[n, 'ECE']:.3f}, with a "
            f"mean confidence of {cal_i.loc[n, 'mean confidence']:.3f} "
            f"against an accuracy of {cal_i.loc[n, 'accuracy']:.3f}"
            for n in others
            if n in cal_i.index
        )
        + "."
    )
