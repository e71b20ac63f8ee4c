"""Metrics of whole-word prediction (Dudy & Bedrick 2020, §2.4 and App. A), with cluster
bootstrap intervals over test articles. The word-level chapter.

The input is the table of :func:`lmnotes.studies.words.predict.evaluate` (one row per target word), with an
``article`` column (the cluster) and a ``bin`` column (the target's training-frequency bin).

- accuracy: hits / positions;
- type coverage T (the paper's T1/T10): the share of the target types of a bin that are hit
  at least once (App. A: the types of the bin that occur in the test positions);
- word perplexity exp(−mean log p(w | h));
- the size-corrected coverage: T against its expectation when hits ignore the type, with the
  hit rate of each frequency bin (beyond the paper), with a permutation null and as a ratio
  with a bootstrap interval;
- calibration: expected calibration error over equal-mass bins (Guo et al. 2017) and Brier,
  the calibration gap within groups of predictions, and a perfectly calibrated control;
- the margin of "similar" and "different" that the paper's own readings of its Table 1 imply.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmnotes.stats.inference import Estimate, bootstrap_weights, interval, n_clusters

#: Training-frequency bins: the paper's three ([10³,∞), [10²,10³), [10,10²)) and two more.
BINS = [
    ("[1000,∞)", 1000, np.inf),
    ("[100,1000)", 100, 1000),
    ("[10,100)", 10, 100),
    ("[1,10)", 1, 10),
    ("unseen", 0, 1),
]
PAPER_BINS = [b[0] for b in BINS[:3]]
BINS_ALL = [b[0] for b in BINS]


def frequency_bin(counts: pd.Series) -> pd.Series:
    """The bin label of each training count."""
    out = pd.Series("", index=counts.index, dtype=object)
    for name, lo, hi in BINS:
        out[(counts >= lo) & (counts < hi)] = name
    return out


class Resampler:
    """One set of cluster-bootstrap resamples of the test articles, shared by every
    statistic and model so that differences are paired."""

    def __init__(self, articles, n_boot: int, seed: int):
        self.labels = np.unique(np.asarray(articles))
        self.W = bootstrap_weights(len(self.labels), n_boot, np.random.default_rng(seed)).toarray()
        self.clusters = n_clusters(self.labels)  # the small-cluster reference of its intervals

    def interval(self, value, replicates) -> Estimate:
        """The interval of a statistic over these resamples (:func:`lmnotes.stats.interval`)."""
        return interval(value, replicates, clusters=self.clusters)

    def codes(self, articles) -> np.ndarray:
        return np.searchsorted(self.labels, np.asarray(articles))

    def sums(self, values, articles) -> tuple[float, np.ndarray]:
        """Total of ``values`` and its resampled totals."""
        per = np.bincount(
            self.codes(articles), weights=np.asarray(values, dtype=float), minlength=len(self.labels)
        )
        return float(per.sum()), self.W @ per

    def rate(self, hits, articles) -> Estimate:
        """Mean of ``hits`` (a ratio of cluster sums) with its interval, in percent."""
        h, hr = self.sums(hits, articles)
        n, nr = self.sums(np.ones(len(hits)), articles)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.interval(100 * h / n, 100 * hr / nr)

    def coverage(self, words, hits, articles) -> Estimate:
        """Type coverage in percent: types hit at least once over types present."""
        reps, value = self._coverage(words, hits, articles)
        return self.interval(value, reps)

    def _counts(self, words, hits, articles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each position's type index, and the positions and hits per article and type."""
        words, hits = np.asarray(words, dtype=object), np.asarray(hits, dtype=bool)
        _, t = np.unique(words, return_inverse=True)
        c = self.codes(articles)
        present = np.zeros((len(self.labels), int(t.max()) + 1 if len(t) else 0))
        hit = np.zeros_like(present)
        np.add.at(present, (c, t), 1)
        np.add.at(hit, (c, t), hits)
        return t, present, hit

    def _coverage(self, words, hits, articles):
        _, present, hit = self._counts(words, hits, articles)
        value = 100 * (hit.sum(0) > 0).sum() / max(1, present.shape[1])
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = 100 * ((self.W @ hit) > 0).sum(1) / ((self.W @ present) > 0).sum(1)
        return reps, value

    def coverage_ratio(self, words, hits, strata, articles) -> Estimate:
        """100 · T / E₀[T] (see :func:`expected_coverage`): the coverage as a share of what a
        type-blind model with the same hit rate per stratum would reach, with its interval
        (both recomputed on each resample of the articles)."""
        t, present, hit = self._counts(words, hits, articles)
        stratum = pd.Series(np.asarray(strata, dtype=object)).groupby(t).first().to_numpy()

        def ratio(W):
            P, H = W @ present, W @ hit
            seen = P > 0
            expected = np.zeros(len(W))
            for s in np.unique(stratum):
                cols = stratum == s
                with np.errstate(invalid="ignore", divide="ignore"):
                    h = H[:, cols].sum(1) / P[:, cols].sum(1)
                    expected += np.where(seen[:, cols], 1 - (1 - h[:, None]) ** P[:, cols], 0).sum(1)
            with np.errstate(invalid="ignore", divide="ignore"):
                return 100 * (H > 0).sum(1) / expected

        return self.interval(float(ratio(np.ones((1, len(self.labels))))[0]), ratio(self.W))

    def log_rate(self, logp, articles) -> Estimate:
        """Perplexity exp(−Σ log p / N) with the interval mapped from the nats scale."""
        s, sr = self.sums(logp, articles)
        n, nr = self.sums(np.ones(len(logp)), articles)
        est = self.interval(-s / n, -sr / nr)
        return Estimate(
            float(np.exp(est.value)),
            float(np.exp(est.low)),
            float(np.exp(est.high)),
            np.exp(-sr / nr),
            self.clusters,
        )  # replicates on the perplexity scale, for paired()

    def paired(self, a: Estimate, b: Estimate) -> Estimate:
        """a − b on the same resamples."""
        return self.interval(a.value - b.value, a.replicates - b.replicates)


def expected_coverage(words, hits, strata) -> float:
    """E₀[T] in percent: the coverage expected if each position were hit with its stratum's
    (frequency bin's) hit rate h_b regardless of its type,
    (1/|V|) Σ_b Σ_{w ∈ V_b} [1 − (1 − h_b)^{n_w}], n_w the test count of type w."""
    df = pd.DataFrame(
        {
            "w": np.asarray(words, dtype=object),
            "h": np.asarray(hits, dtype=float),
            "s": np.asarray(strata, dtype=object),
        }
    )
    rate = df.groupby("s")["h"].mean()
    n_w = df.groupby("w").agg(n=("h", "size"), s=("s", "first"))
    return float(100 * np.mean(1 - (1 - rate[n_w["s"]].to_numpy()) ** n_w["n"].to_numpy()))


def coverage_null(words, hits, strata, n_permutations: int, seed: int) -> tuple[float, float, float]:
    """Observed coverage, its mean under the permutation null (hits shuffled among the
    positions of each stratum: the same hit rate per bin and the same type counts, hits
    blind to the type) and the two-sided permutation p-value of the excess."""
    words = np.asarray(words, dtype=object)
    hits = np.asarray(hits, dtype=bool)
    strata = np.asarray(strata, dtype=object)
    _, t = np.unique(words, return_inverse=True)
    n_types = t.max() + 1 if len(t) else 1
    groups = [np.flatnonzero(strata == s) for s in np.unique(strata)]

    def cov(h):
        return 100 * np.count_nonzero(np.bincount(t, weights=h, minlength=n_types)) / n_types

    obs = cov(hits)
    rng = np.random.default_rng(seed)
    null = np.empty(n_permutations)
    for i in range(n_permutations):
        h = hits.copy()
        for g in groups:
            h[g] = hits[rng.permutation(g)]
        null[i] = cov(h)
    dev = np.abs(null - null.mean())
    p = (1 + np.sum(dev >= abs(obs - null.mean()) - 1e-12)) / (n_permutations + 1)
    return obs, float(null.mean()), float(p)


def calibration(conf, hits, n_bins: int = 10) -> tuple[float, float, pd.DataFrame]:
    """Expected calibration error over ``n_bins`` equal-mass bins of the confidence (Guo et
    al. 2017, Eq. 3), the Brier score, and the reliability table (mean confidence and
    accuracy per bin)."""
    conf, hits = np.asarray(conf, dtype=float), np.asarray(hits, dtype=float)
    if len(conf) == 0:
        raise ValueError("no predictions to calibrate")
    order = np.argsort(conf, kind="stable")
    groups = np.array_split(order, min(n_bins, len(conf)))
    rel = pd.DataFrame(
        {
            "confidence": [conf[g].mean() for g in groups],
            "accuracy": [hits[g].mean() for g in groups],
            "n": [len(g) for g in groups],
        }
    )
    ece = float(np.sum(rel["n"] / len(conf) * np.abs(rel["accuracy"] - rel["confidence"])))
    return ece, float(np.mean((conf - hits) ** 2)), rel


def relative_gap(a: float, b: float) -> float:
    """|a − b| as a share of the pair's mean (the paper reads its Table 1 this way)."""
    return abs(a - b) / ((a + b) / 2)


def reading_margin(readings: pd.DataFrame) -> tuple[float, float, float]:
    """The margin that separates the gaps a source calls "similar" from those it calls
    "different" (``readings`` has columns ``reading`` and ``share of mean``): the geometric
    mean of the widest similar and the narrowest different gap, returned with both. Raises
    ValueError when the readings overlap, since then no one margin agrees with them all."""
    shares = readings.groupby("reading")["share of mean"]
    if not {"similar", "different"} <= set(shares.groups):
        raise ValueError("the readings need gaps read as 'similar' and as 'different'")
    widest, narrowest = float(shares.max()["similar"]), float(shares.min()["different"])
    if not widest < narrowest:
        raise ValueError(
            f"a gap read as similar ({widest:.1%}) is as wide as one read as different "
            f"({narrowest:.1%}): no single margin agrees with the readings"
        )
    return float(np.sqrt(widest * narrowest)), widest, narrowest


def calibration_gap(res: Resampler, conf, hits, groups, articles) -> dict:
    """Mean confidence minus accuracy (percentage points) within each group of predictions,
    with its cluster-bootstrap interval: {group: Estimate}."""
    conf, hits = np.asarray(conf, dtype=float), np.asarray(hits, dtype=float)
    groups, articles = np.asarray(groups, dtype=object), np.asarray(articles)
    out = {}
    for g in pd.unique(groups):
        m = groups == g
        out[g] = res.paired(res.rate(conf[m], articles[m]), res.rate(hits[m], articles[m]))
    return out


def calibrated_control(conf, hits, pred_groups, target_groups, rng: np.random.Generator):
    """A perfectly calibrated predictor with the model's confidences, and the groups its
    targets would fall in (the control of the word-level chapter's calibration check).

    Each prediction is right with probability equal to its confidence. A simulated hit's
    target is the predicted word, so it takes the prediction's group; a simulated miss keeps
    the real target's group where the model missed too, and otherwise (the model hit, the
    control misses) takes the group of a target drawn from the model's misses. Grouped by
    the prediction, the control is calibrated in every group by construction; grouped by
    the target, it is not, since a group's hits are those targets that the predictions
    reached: the artefact this control exposes. Returns (hits, target groups)."""
    conf = np.asarray(conf, dtype=float)
    hits = np.asarray(hits, dtype=bool)
    pred_groups = np.asarray(pred_groups, dtype=object)
    target_groups = np.asarray(target_groups, dtype=object)
    if not (len(conf) == len(hits) == len(pred_groups) == len(target_groups)):
        raise ValueError("conf, hits and both groups must have one entry per prediction")
    if (~hits).sum() == 0:
        raise ValueError("the control draws missed targets from the model's misses; there are none")
    sim = rng.random(len(conf)) < conf
    target = target_groups.copy()
    target[sim] = pred_groups[sim]
    swap = ~sim & hits
    target[swap] = rng.choice(target_groups[~hits], int(swap.sum()))
    return sim, target


def hit_concentration(
    res: Resampler, table: pd.DataFrame, top_bin: str = PAPER_BINS[0]
) -> tuple[Estimate, Estimate]:
    """The share of a model's top-1 hits whose target lies in ``top_bin`` and that bin's share
    of all the targets, both in percent with their intervals: hits concentrate in the bin
    when the first exceeds the second (``table`` has ``hit1``, ``bin`` and ``article``)."""
    t = table
    share_hits = res.rate(t.loc[t["hit1"], "bin"].eq(top_bin).to_numpy(), t.loc[t["hit1"], "article"])
    share_pos = res.rate(t["bin"].eq(top_bin).to_numpy(), t["article"])
    return share_hits, share_pos
