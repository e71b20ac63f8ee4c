"""The soft-match gains of the word-level chapter (05, the paper's Fig. 3): how much counting
a near miss as a hit raises a model's top-1 accuracy and its type coverage T1, above the
chance baseline of :mod:`lmnotes.studies.words.softmatch` (Dudy & Bedrick 2020, §2.4.2).

For each k (neighbours counted as a match) and for WordNet synonymy, a miss contributes its
soft hit (0 or 1) to the soft accuracy; the gain above chance contributes the soft hit minus
its mean over ``n_chance`` shuffles of the predictions within each frequency bin. The raw T1
gain (the soft T1 minus the exact one) is the paper's own measure, which its §3.2 reports as
a share of T1 (:data:`PAPER_SHARES`). Every gain is a paired difference on the chapter's
cluster-bootstrap resamples.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes import stats
from lmnotes.report import plots
from lmnotes.studies.words import softmatch as S
from lmnotes.studies.words import wordstats as WS

#: §3.2's soft-match gains at k = 100, as shares of T1 (percent, printed without decimals):
#: "14% (@100) additional unique types" and "only 11% more types" (the second model, which
#: the text calls GPT-2 again, is GPT: the figure compares the two).
PAPER_SHARES = {"GPT-2": 14.0, "GPT": 11.0}
#: The k of the paper's shares.
PAPER_K = 100


def rounded(e: stats.Estimate, digits: int = 9) -> stats.Estimate:
    """An estimate without float noise (a difference of equal sums), with its replicates and
    cluster count."""
    return stats.Estimate(
        *(round(float(x), digits) + 0.0 for x in (e.value, e.low, e.high)), e.replicates, e.clusters
    )


def soft_match(
    t: pd.DataFrame,
    nn: S.Neighbours,
    synonym: S.Synonyms,
    res: WS.Resampler,
    soft_k: Sequence[int],
    n_chance: int,
    crng: np.random.Generator,
) -> tuple[list[dict], dict]:
    """One model's soft match: a row per k (and ``"WordNet"``) with the soft top-1 accuracy,
    its chance level (percent), the accuracy gain above chance, the T1 gain above chance and
    the raw T1 gain (points, on the paper's bins), and {k: (accuracy gain above chance, T1
    gain above chance, raw T1 gain)}. ``t`` is the model's
    prediction table (``word``, ``pred``, ``hit1``, ``bin``, ``article``); ``crng`` draws the
    chance baseline's shuffles."""
    rows, gains = [], {}
    miss = t[~t["hit1"]]
    words_ = list(miss["word"])
    rank = nn.rank(list(miss["pred"]), words_)
    syn = synonym(miss["pred"], words_)
    shuffled = [list(S.chance_predictions(miss["pred"], miss["bin"], crng)) for _ in range(n_chance)]
    chance = [nn.rank(c, words_) for c in shuffled]
    syn_chance = np.mean([synonym(c, words_) for c in shuffled], axis=0)
    syn_each = [synonym(c, words_) for c in shuffled]
    for k in list(soft_k) + ["WordNet"]:
        if k == "WordNet":
            soft, base, each = syn, syn_chance, syn_each
        else:
            soft = rank <= k
            each = [c <= k for c in chance]
            base = np.mean(each, axis=0)
        hits = t["hit1"].to_numpy(dtype=float)
        extra = hits.copy()
        extra[~t["hit1"].to_numpy()] = soft
        above = hits.copy()
        above[~t["hit1"].to_numpy()] = soft - base
        gain = res.paired(res.rate(above, t["article"]), res.rate(hits, t["article"]))
        in_bins = t["bin"].isin(WS.PAPER_BINS).to_numpy()
        tw, ta = t["word"][in_bins], t["article"][in_bins]

        def soft_cov(s_hits):
            h = t["hit1"].to_numpy().copy()
            h[~t["hit1"].to_numpy()] = s_hits
            return res.coverage(tw, h[in_bins], ta)  # noqa: B023

        by_chance = [soft_cov(c) for c in each]
        exact_cov = res.coverage(tw, t["hit1"].to_numpy()[in_bins], ta)
        chance_cov = stats.Estimate(
            np.mean([c.value for c in by_chance]),
            np.nan,
            np.nan,
            np.mean([c.replicates for c in by_chance], axis=0),
        )
        soft_t1 = soft_cov(soft)
        tgain = res.paired(soft_t1, chance_cov)
        raw = res.paired(soft_t1, exact_cov)
        gain, tgain, raw = rounded(gain), rounded(tgain), rounded(raw)
        gains[k] = (gain, tgain, raw)
        rows.append(
            {
                "k": str(k),
                "soft top-1": 100 * extra.mean(),
                "chance": 100 * (hits.sum() + base.sum()) / len(t),
                "gain above chance": gain,
                "T1 gain above chance": tgain,
                "T1 gain": raw,
            }
        )
    return rows, gains


def plot_gains(soft_gain: dict, models: Sequence[str], soft_k: Sequence[int], color, label):
    """The paper's Fig. 3 as gains above chance: top-1 accuracy (left) and T1 (right) against
    k, one line per model with its 95% intervals (``color`` and ``label`` name a model's
    colour and short name). Returns the figure."""
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.0))
    for name in models:
        g = [soft_gain[name, k] for k in soft_k]
        for ax, j in zip(axes, (0, 1)):
            ax.errorbar(
                soft_k,
                [x[j].value for x in g],
                yerr=[[x[j].value - x[j].low for x in g], [x[j].high - x[j].value for x in g]],
                marker="o",
                ms=3,
                color=color(name),
                label=label(name),
            )
    for ax, lab in zip(axes, ("top-1 gain above chance (points)", "T1 gain above chance (points)")):
        plots.plain_log(ax, "x", soft_k)
        ax.axhline(0, color=plots.REFERENCE_COLOR, lw=0.8)
        ax.set_xlabel("neighbours k counted as a match")
        ax.set_ylabel(lab)
    plots.figure_legend(fig, axes)
    return fig
