"""The statistics of the paraphrase case study in the word-level chapter (05): which triples an
encoder gets right and the tests of the paper's Table 2 (Dudy & Bedrick 2020, §3.3), the
paired comparison of two encoders, and whether the failures on rare words are failures on
words the tokenizer cuts into pieces.

A triple (x, x_h, x_a) is a *hit* when BERTScore finds the sentence with the hypernym x_h
closer to the sentence with x than to the one with the sibling x_a. A word is *split* when
the encoder's tokenizer cuts it into more than one token. Among common words split and whole
ones occur both, so a pool of common triples separates splitting from rarity.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss

from lmnotes import stats
from lmnotes.report import tables
from lmnotes.studies.words import paraphrase as P


def table2_stats(hits_rare: int, hits_common: int, n_r: int, n_c: int) -> dict:
    """The tests of a Table 2 row: χ² with and without Yates's correction and Fisher's exact
    test on the 2×2 table of hits and misses of ``n_r`` rare and ``n_c`` common triples."""
    tab = np.array([[hits_rare, n_r - hits_rare], [hits_common, n_c - hits_common]])
    yates = ss.chi2_contingency(tab, correction=True)
    plain = ss.chi2_contingency(tab, correction=False)
    return {
        "χ² (Yates)": yates.statistic,
        "p (Yates)": yates.pvalue,
        "χ²": plain.statistic,
        "p": plain.pvalue,
        "Fisher p": ss.fisher_exact(tab).pvalue,
    }


def encoder_difference(a, b) -> tuple[int, int, float, stats.Estimate]:
    """Two encoders' hits on the same triples (boolean arrays): the triples only ``a`` gets
    right and those only ``b`` does, McNemar's exact p (a binomial test of the discordant
    pairs) and the difference of the hit rates in points with its normal 95% interval, from
    the standard error of a paired difference of proportions,
    √(b01 + b10 − (b01 − b10)²/n)/n (Agresti 2002, ch. 10: dependent proportions)."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    b01 = int(np.sum(a & ~b))
    b10 = int(np.sum(~a & b))
    mcnemar = ss.binomtest(b01, b01 + b10).pvalue if b01 + b10 else 1.0
    d_enc = (a.mean() - b.mean()) * 100
    se_enc = 100 * np.sqrt(b01 + b10 - (b01 - b10) ** 2 / len(a)) / len(a)
    return b01, b10, mcnemar, stats.Estimate(d_enc, d_enc - stats.Z95 * se_enc, d_enc + stats.Z95 * se_enc)


def rate_difference(hits_a: int, n_a: int, hits_b: int, n_b: int, level: float = 0.95) -> stats.Estimate:
    """The difference of two independent hit rates, hits_a/n_a − hits_b/n_b, in points, with
    Newcombe's hybrid score interval (1998, his method 10: the two Wilson intervals combined),
    which stays within ±100 and keeps a width at 0 or n hits, where the Wald interval has none."""
    z = ss.norm.ppf(0.5 + level / 2)

    def wilson(h, n):
        p = h / n
        centre, half = (p + z * z / (2 * n)), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return p, (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)

    (pa, la, ua), (pb, lb, ub) = wilson(hits_a, n_a), wilson(hits_b, n_b)
    d = pa - pb
    return stats.Estimate(
        100 * d, 100 * (d - np.hypot(pa - la, ub - pb)), 100 * (d + np.hypot(ua - pa, pb - lb))
    )


def stratified_difference(hits_a, n_a, hits_b, n_b, level: float = 0.95) -> stats.Estimate:
    """The common difference of two hit rates across strata (arrays, a stratum each),
    hits_a/n_a − hits_b/n_b, in points: the Mantel–Haenszel weighted mean of the strata's
    differences, weights n_a·n_b/(n_a + n_b) (Greenland & Robins 1985), with Sato's
    (1989) variance, which holds with many small strata as with few large ones. A stratum
    missing either group carries no weight. Where every stratum is all hits or all misses
    in both groups, the variance is 0 and so is the interval's width (the caller's case is
    then open). Written out because scipy has no stratified risk difference (metafor's
    rma.mh and epiR compute the same)."""
    xa, na, xb, nb = (np.asarray(v, dtype=float) for v in (hits_a, n_a, hits_b, n_b))
    keep = (na > 0) & (nb > 0)
    xa, na, xb, nb = xa[keep], na[keep], xb[keep], nb[keep]
    if not len(na):
        raise ValueError("no stratum holds both groups")
    n = na + nb
    w = na * nb / n
    d = float(np.sum(w * (xa / na - xb / nb)) / w.sum())
    p = np.sum((na**2 * xb - nb**2 * xa + na * nb * (nb - na) / 2) / n**2)
    q = np.sum((xa * (nb - xb) + xb * (na - xa)) / (2 * n))
    half = ss.norm.ppf(0.5 + level / 2) * np.sqrt(max(d * p + q, 0.0)) / w.sum()
    return stats.Estimate(100 * d, 100 * (d - half), 100 * (d + half))


def piece_strata(pieces) -> np.ndarray:
    """The strata of claim 8b's adjusted difference: words cut into 2, 3, and 4 or more
    pieces."""
    return np.minimum(np.asarray(pieces, dtype=int), 4)


def split_table(
    encoders: Sequence[str], sets: Mapping[str, pd.DataFrame], own: Mapping[str, pd.DataFrame] | None = None
) -> pd.DataFrame:
    """Hits per encoder, set of triples, kind (rare, common) and whether x is split or whole:
    hits, n and the hit rate (percent). Each set has ``kind``, a hit column per encoder and a
    ``<encoder> split`` column; ``own``: {encoder: a set of its own} (its split words), shown
    after the shared sets as "its split words"."""
    split_rows = []
    for name in encoders:
        mine = {"its split words": own[name]} if own and name in own else {}
        for what, df in (sets | mine).items():
            for kind in ("rare", "common"):
                d = df[df["kind"] == kind]
                for cut, part in ((True, "split"), (False, "whole")):
                    h = d.loc[d[name + " split"] == cut, name]
                    if len(h):
                        split_rows.append(
                            {
                                "encoder": name,
                                "set": what,
                                "kind": kind,
                                "x is": part,
                                "hits": int(h.sum()),
                                "n": len(h),
                                "hit rate": 100 * h.mean(),
                            }
                        )
    return pd.DataFrame(split_rows)


def split_pools(
    candidates: pd.DataFrame,
    encoders: Mapping[str, Callable],
    pieces: Mapping[str, Callable],
    n: int,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """Claim 8b's words, per encoder: up to ``n`` rare and ``n`` common triples drawn
    (:func:`lmnotes.studies.words.paraphrase.pick`, ``seed``) from the ``candidates`` whose
    word x the encoder's tokenizer cuts into more than one token (``pieces[name]``: words ->
    token counts), with the encoder's hits (``encoders[name]``: triples -> hits, such as
    :func:`lmnotes.studies.words.paraphrase.identified` of its embedding), the number of
    ``pieces`` and a ``<encoder> split`` column."""
    out = {}
    for name, identify in encoders.items():
        cut = np.asarray(pieces[name](list(candidates["x"])))
        own = candidates[cut > 1].assign(pieces=cut[cut > 1])
        df = P.pick(own, {k: min(n, int((own["kind"] == k).sum())) for k in ("rare", "common")}, seed)
        df[name] = identify(df)
        df[name + " split"] = True
        out[name] = df
    return out


def split_fisher(pool: pd.DataFrame, encoders: Sequence[str]) -> dict[str, float]:
    """Fisher's exact p of split against whole words' hits in the common pool, per encoder
    (only where the pool holds both)."""
    split_p = {}
    for name in encoders:
        c = pool.groupby(name + " split")[name].agg(["sum", "size"])
        if {True, False} <= set(c.index):
            split_p[name] = ss.fisher_exact(
                [
                    [c.loc[True, "sum"], c.loc[True, "size"] - c.loc[True, "sum"]],
                    [c.loc[False, "sum"], c.loc[False, "size"] - c.loc[False, "sum"]],
                ]
            ).pvalue
    return split_p


def split_sentence(
    trip: pd.DataFrame,
    encoders: Sequence[str],
    split_p: Mapping[str, float],
    n_triples: int,
    own: Mapping[str, pd.DataFrame] | None = None,
) -> str:
    """The chapter's sentence on how many rare and common words each encoder splits, and
    what each encoder's own split words (``own``: :func:`split_pools`) show: their hits and
    their mean number of pieces by kind."""

    def n_split(name, kind):
        return int(trip.loc[trip["kind"] == kind, name + " split"].sum())

    text = (
        "; ".join(
            f"{n} splits {n_split(n, 'rare')} of the {n_triples} rare words and "
            f"{n_split(n, 'common')} of the {n_triples} common ones"
            + (
                f"; among the pool's common words alone, split against whole has "
                f"Fisher p {tables.pvalue(split_p[n])}"
                if n in split_p
                else ""
            )
            for n in encoders
        )
        + ". Where splitting alone separates common words "
        "beyond chance, Table 2's rare/common contrast is confounded with it."
    )
    if not own:
        return text
    parts, more = [], []
    for n, df in own.items():
        g = df.groupby("kind")
        hits, size, cuts = g[n].sum(), g.size(), g["pieces"].mean()
        if cuts.get("rare", np.nan) > cuts.get("common", np.nan):
            more.append(n)
        parts.append(
            f"{n} hits {hits.get('rare', 0)} of {size.get('rare', 0)} rare and "
            f"{hits.get('common', 0)} of {size.get('common', 0)} common ones, cut into "
            f"{cuts.get('rare', np.nan):.2f} and {cuts.get('common', np.nan):.2f} pieces on average"
        )
    return (
        text
        + " Among the words each encoder splits (claim 8b), "
        + "; ".join(parts)
        + ". "
        + (
            f"For {', '.join(more[:-1]) + ' and ' if len(more) > 1 else ''}{more[-1]} "
            "the rare words are cut into more pieces, and"
            if more
            else "Where rare words are cut into more pieces,"
        )
        + " a word cut into more pieces may be identified less often for that alone, so "
        "claim 8b compares rare and common words within words cut into as many pieces "
        "(2, 3, 4 or more) and pools those differences (Mantel–Haenszel)."
    )


#: The paper's Table 2: hits of BERT and RoBERTa on its 50 rare and 50 common triples.
PAPER = {"BERT": (14, 40), "RoBERTa": (11, 39)}
PAPER_TRIPLES = 50


def paper_encoders_p() -> float:
    """Fisher's exact test of BERT's against RoBERTa's rare-word hits in the paper's Table 2
    (hits and misses of :data:`PAPER_TRIPLES` triples each)."""
    hits = [PAPER[name][0] for name in ("BERT", "RoBERTa")]
    return ss.fisher_exact([[h, PAPER_TRIPLES - h] for h in hits]).pvalue


def table2(trip: pd.DataFrame, encoders: Sequence[str], n_triples: int) -> pd.DataFrame:
    """The paper's Table 2 recomputed from its counts, then ours (``trip``: the triples, with
    ``kind`` and a hit column per encoder), with the tests of :func:`table2_stats`."""
    t2 = []
    for name, (r, c) in PAPER.items():
        t2.append(
            {
                "source": "paper",
                "encoder": name,
                "rare hits": r,
                "common hits": c,
                **table2_stats(r, c, PAPER_TRIPLES, PAPER_TRIPLES),
            }
        )
    for name in encoders:
        r = int(trip.loc[trip["kind"] == "rare", name].sum())
        c = int(trip.loc[trip["kind"] == "common", name].sum())
        t2.append(
            {
                "source": "ours",
                "encoder": name,
                "rare hits": r,
                "common hits": c,
                **table2_stats(r, c, n_triples, n_triples),
            }
        )
    return pd.DataFrame(t2)
