"""The LNRE zone (LeBrun, Sordoni & O'Donnell 2022, App. A.5, claim 13), as the distortion
chapter (06) tests it: the Good–Turing estimate of the unseen mass P̂_N = N₁/N (the paper's
Eqs. 3–4, :func:`.distortion.good_turing_curve`) against the sample size N for L's sequences,
real sentences and words, a power law and fair dice (controls) and L's k-token prefixes,
with the exact missing mass M₀ = 1 − Σ_{x seen} p(x) where the probabilities are known (dice,
prefixes).

A process is in the large-number-of-rare-events zone while P̂_N stays well above zero as N
grows; the level at one N cannot tell a power law P̂ ∝ N^−α from a finite die (P̂ ≈ e^{−N/K}),
the local decay exponent −d ln P̂ / d ln N (:func:`.deficit.decay_exponent`) can: it stays put
for a power law and grows like N/K for a fair K-faced die, tenfold in a decade of N whatever K
is, until P̂ reaches 0. Its growth is therefore measured as a ratio, in doublings over the
last decade (log₂ of the exponent at N over the one at N/10): 0 for a power law, log₂ 10 ≈
3.3 for a die, on the same scale whatever the level of the exponent (an absolute rise is
not: it grows with the level, and a steep power law can rise more than a die with few
draws). The doublings test the claim's "unlike dice" (a power-law decay rather than a
die's); being in the zone is the level of P̂_N's. Where nearly every item is unique, every
law's exponent grows in proportion to N, and the doublings cannot tell laws apart.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from lmnotes.report import plots
from lmnotes.studies.distortion import deficit as F
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion.resample import grown, num

#: The sample sizes of every curve (each also ends at its whole sample).
GRID = np.unique(np.geomspace(10, 10**7, 25).astype(int))
#: The power-law control: a Zipf law p_r ∝ r^−a, whose unseen mass falls as N^(1/a − 1),
#: here N^−1/3, near the words' own exponent.
ZIPF_A = 1.5


def curve(label: str, items, sizes, exact=None, over_orders: bool = False) -> list[dict]:
    """Rows (process, N, P̂_N, exact M₀ or NaN) of one process at the ``sizes`` below its
    length and at its whole length; ``exact`` gives each item's probability. With
    ``over_orders``, P̂_N is its expectation over the orders of the items
    (:func:`.distortion.expected_good_turing_curve`), for items with no order of their own."""
    sizes = [int(x) for x in sizes if x < len(items)] + [len(items)]
    gt = (D.expected_good_turing_curve if over_orders else D.good_turing_curve)(items, sizes)
    m0 = D.missing_mass_curve(items, exact, sizes) if exact is not None else [np.nan] * len(sizes)
    return [{"process": label, "N": n_, "P̂_N = N₁/N": g, "exact M₀": m} for n_, g, m in zip(sizes, gt, m0)]


def curves(sentences, all_ids, L, lang, prefix_lengths, seed: int = 0, grid=GRID) -> pd.DataFrame:
    """Every process's curve: L's sequences (independent draws, in the order drawn), the
    real sentences and their whitespace words (corpus order is not random: their curves
    are expectations over orders, so that the decay exponent carries no ordering noise),
    the controls (``seed``): 10⁶ draws of a Zipf law (:data:`ZIPF_A`, in the zone by
    construction; its curve too over orders, so that its exponent's growth is the law's,
    not the noise of one order) and of fair dice with 10³ and 10⁶ faces (out of it), and L's
    first-k-token prefixes (EOS included, exact probability the product of the first k
    conditionals)."""
    words = [w for s in sentences for w in s.split()]
    gt_curves = []
    gt_curves += curve("L's sequences", [tuple(s) for s in all_ids], grid)
    gt_curves += curve("real sentences", sentences, grid, over_orders=True)
    gt_curves += curve("real words", words, grid, over_orders=True)
    zipf = np.random.default_rng(seed).zipf(ZIPF_A, size=10**6)
    gt_curves += curve(f"power law, N^−{1 - 1 / ZIPF_A:.2g}", zipf, grid, over_orders=True)
    for faces in (10**3, 10**6):
        dice = np.random.default_rng(seed).integers(faces, size=10**6)
        gt_curves += curve(f"fair die, {faces:,} faces", dice, grid, exact=np.full(len(dice), 1 / faces))
    tok_lp = lang.token_logprobs(all_ids)
    for k in prefix_lengths:
        items = [tuple((list(s) + [L.eos_id])[:k]) for s in all_ids]
        probs = np.exp([lp[:k].sum() for lp in tok_lp])
        gt_curves += curve(f"L's {k}-token prefixes", items, grid, exact=probs)
    return pd.DataFrame(gt_curves)


def plot(gt_df: pd.DataFrame):
    """P̂_N (solid) and the exact M₀ (dotted, where known) against N, one colour a process."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.6))
    for i, (label, g) in enumerate(gt_df.groupby("process", sort=False)):
        shade = sns.color_palette("colorblind", 10)[i % 10]
        ax.plot(g["N"], g["P̂_N = N₁/N"], marker=".", ms=3, color=shade, label=label)
        if g["exact M₀"].notna().any():
            ax.plot(g["N"], g["exact M₀"], ls=":", color=shade)
    ax.set(xlabel="sample size N", ylabel="P̂_N (solid), exact M₀ (dotted)")
    plots.plain_log(ax, "x", ticks=[10**k for k in range(1, 8)])
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.legend(fontsize="small", ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


def decay_shape(gt_df: pd.DataFrame) -> pd.DataFrame:
    """Each process's local decay exponent over the half-decade below N/10 and below its
    largest N, and its growth between the two in doublings, log₂ of their ratio (∞ once P̂
    reaches 0; NaN where the curve is too short or an exponent is not above 0: no decay to
    compare)."""
    shape = []
    for label, g in gt_df.groupby("process", sort=False):
        alpha = exponents(g, g["N"].max())
        shape.append(
            {
                "process": label,
                "decay exponent, N/10": alpha[0],
                "decay exponent, N": alpha[1],
                "doublings": doublings(*alpha),
            }
        )
    return pd.DataFrame(shape)


def exponents(g: pd.DataFrame, top: float) -> tuple[float, float]:
    """One curve's local decay exponents over the half-decades below ``top``/10 and ``top``
    (NaN where the curve does not reach that far down)."""
    return tuple(
        F.decay_exponent(g["N"], g["P̂_N = N₁/N"], at) if at / 10**0.5 >= g["N"].min() else np.nan
        for at in (top / 10, top)
    )


def doublings(before: float, after: float) -> float:
    """How many times a decay exponent doubled from ``before`` (at N/10) to ``after`` (at N):
    log₂(after / before); ∞ once P̂ reached 0 (``after`` infinite), NaN unless both are
    above 0."""
    if np.isinf(after):
        return float("inf")
    if not (before > 0 and after > 0):
        return float("nan")
    return float(np.log2(after / before))


def at_largest(gt_df: pd.DataFrame, shape: pd.DataFrame) -> pd.DataFrame:
    """Each process at its largest N, with its decay shape."""
    last_gt = gt_df.groupby("process", sort=False).last().reset_index()
    return last_gt.merge(shape, on="process")


def facts(gt_df: pd.DataFrame, last_gt: pd.DataFrame, grew, n_sentences: int) -> dict:
    """What the chapter states about the curves, by name, in the order it glues them: the
    doublings of the words', the power law's and the million-faced die's decay exponents
    (``grew``: process -> doublings), the words' over the decade before (at a tenth of
    their N, by the same expectation over orders), the sentences, that die's P̂_N, and the
    largest gap between Good–Turing and the exact missing mass over the points with
    N ≥ 1,000."""
    checked = gt_df.dropna(subset=["exact M₀"]).query("N >= 1000")
    bias = checked["P̂_N = N₁/N"] - checked["exact M₀"]
    power = next(p for p in grew.index if p.startswith("power law"))
    words = gt_df[gt_df["process"] == "real words"]
    return {
        "grew_words_tenth": grown(doublings(*exponents(words, words["N"].max() / 10))),
        "grew_words": grown(grew["real words"]),
        "grew_power": grown(grew[power]),
        "grew_die6": grown(grew["fair die, 1,000,000 faces"]),
        "n_sent_gt": f"{n_sentences:,}",
        "die6": num(last_gt.set_index("process").loc["fair die, 1,000,000 faces", "P̂_N = N₁/N"]),
        "gt_bias_max": f"{bias.abs().max():.4f}",
        "gt_points": len(checked),
    }


def shown(last_gt: pd.DataFrame) -> pd.DataFrame:
    """The table as shown: the exact missing mass to four decimals (— where unknown)."""
    out = last_gt.copy()
    out["exact M₀"] = out["exact M₀"].map(lambda v: "—" if np.isnan(v) else f"{max(v, 0):.4f}")
    return out
