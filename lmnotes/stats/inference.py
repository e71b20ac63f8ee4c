"""Statistical distances, permutation tests and bootstrap intervals between samples of
documents. Tendencies chapter (Meister & Cotterell 2021, §4); the bootstrap serves every
chapter that reports an interval.

Everything here works on **weighted histograms**: a sample of documents is a matrix ``X``
(documents x categories, e.g. one-hot lengths, or word counts per document), and a
resample of it is a vector of document multiplicities ``w`` (all ones for the sample
itself; multinomial counts for a bootstrap resample). The histogram of a resample is
``w @ X``, so B bootstrap resamples are one (sparse) matrix product ``W @ X`` and every
distance is computed for all of them at once. This is why the distances are written here
rather than taken from scipy, which computes one sample at a time; the tests check them
against scipy (``ks_2samp``) on the unweighted sample.

- Kolmogorov–Smirnov metric between two distributions over ordered categories (Eq. 10):
  sup_x |F1(x) - F2(x)|, for empirical and theoretical cdfs alike (exact for discrete
  variables, unlike the one-sample ``scipy.stats.kstest``, which assumes a continuous cdf).
- Total variation distance between categorical distributions (Eq. 11): ½ Σ |p - q|.
- Two-sample permutation test of the difference of means (§4.1, App. B), Monte Carlo.
- Bootstrap intervals over documents, or over clusters of documents (the articles a test
  split's sentences come from: sentences of one article are not independent, so they are
  resampled together; :func:`bootstrap_weights` with ``groups``): the normal interval θ̂ ± z·sd*(θ), with sd* the
  standard deviation of the statistic over resamples of the documents. Over fewer than
  :data:`FEW_CLUSTERS` clusters (the test split has 10 articles) the normal quantile is too
  narrow: :func:`interval` then takes Student's t with G − 1 degrees of freedom and the
  small-sample factor √(G/(G − 1)) (the one place the book chooses a small-cluster reference). Not the percentile
  interval: distances between finite samples are biased upward (two samples of the same
  text have a positive distance), and statistics that count distinct types are biased by a
  resample's repeated documents, so the percentile interval of such a statistic can miss
  its own estimate; the normal interval states the sampling spread around the estimate,
  and the chapters judge bias against a human-vs-human baseline. The interval is therefore
  an interval around a biased estimate, not around the population distance. The
  replicates are kept (:attr:`Estimate.replicates`) so that two distances to one reference,
  bootstrapped with the same seed, give a paired interval of their difference
  (:func:`excess`).
- Tests for clustered documents are in :mod:`lmnotes.stats.clusters`.
- Least squares with partial R² and a bootstrap (:func:`ols`, :func:`bootstrap_ols`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse
from scipy import stats as ss


def _rows(h) -> np.ndarray:
    """A histogram or a stack of them as a float array of rows [B, K]."""
    h = h.toarray() if sparse.issparse(h) else np.asarray(h, dtype=float)
    return np.atleast_2d(h).astype(float, copy=False)


def _normalise(h: np.ndarray) -> np.ndarray:
    total = h.sum(axis=1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError("a distribution has no mass: an empty sample?")
    return h / total


def ks_distance(h1, h2) -> np.ndarray:
    """Kolmogorov–Smirnov metric (Meister & Cotterell 2021, Eq. 10) between distributions
    over the same ordered categories, given as histograms or pmfs (rows of ``h1`` and ``h2``
    broadcast against each other). Returns one distance per row."""
    f1 = np.cumsum(_normalise(_rows(h1)), axis=1)
    f2 = np.cumsum(_normalise(_rows(h2)), axis=1)
    return np.abs(f1 - f2).max(axis=1)


def tvd(h1, h2) -> np.ndarray:
    """Total variation distance (Meister & Cotterell 2021, Eq. 11), ½ Σ_x |p(x) - q(x)|,
    between categorical distributions over the same categories; one per row, in [0, 1]."""
    return 0.5 * np.abs(_normalise(_rows(h1)) - _normalise(_rows(h2))).sum(axis=1)


def one_hot(values, support: np.ndarray | None = None) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Documents x categories indicator matrix of a per-document value (length, a fraction),
    over ``support`` (sorted; default: the values' own unique values). Returns (X, support)."""
    values = np.asarray(values)
    if values.size == 0:
        raise ValueError("no documents")
    support = np.unique(values) if support is None else np.asarray(support)
    idx = np.searchsorted(support, values)
    if np.any(idx >= len(support)) or np.any(support[np.minimum(idx, len(support) - 1)] != values):
        raise ValueError("a value is not in the support")
    X = sparse.csr_matrix(
        (np.ones(len(values)), (np.arange(len(values)), idx)), shape=(len(values), len(support))
    )
    return X, support


def ks_two_sample(x, y) -> float:
    """Two-sample KS statistic of two 1-D samples (ties handled exactly): the metric of
    Eq. 10 between their empirical cdfs. Agrees with ``scipy.stats.ks_2samp(x, y).statistic``."""
    support = np.union1d(np.asarray(x), np.asarray(y))
    return float(ks_distance(one_hot(x, support)[0].sum(0), one_hot(y, support)[0].sum(0))[0])


def bootstrap_weights(
    n_docs: int, n_resamples: int, rng: np.random.Generator, size: int | None = None, groups=None
) -> sparse.csr_matrix:
    """Document multiplicities of ``n_resamples`` bootstrap resamples: a sparse [B, n_docs]
    matrix of counts.

    Without ``groups`` each resample draws ``size`` documents (by default ``n_docs``) with
    replacement. A ``size`` other than ``n_docs`` rescales the resamples' spread to what a
    sample of that size from the same distribution would show (for smooth statistics; a
    supremum such as a KS distance only roughly, where its maximum nearly ties).

    With ``groups`` (one label per document, e.g. its article) it is a cluster bootstrap:
    each resample draws as many clusters as there are, with replacement, and every document
    of a drawn cluster counts once per draw (Davison & Hinkley 1997, §3.8).
    """
    if n_docs < 1:
        raise ValueError("no documents to resample")
    if groups is not None:
        if size is not None:
            raise ValueError("a cluster bootstrap resamples whole clusters: give size or groups, not both")
        groups = np.asarray(groups)
        if groups.shape != (n_docs,):
            raise ValueError(f"{n_docs} documents but {groups.size} group labels")
        _, inverse = np.unique(groups, return_inverse=True)
        G = int(inverse.max()) + 1
        picks = rng.integers(0, G, size=(n_resamples, G))
        M = sparse.csr_matrix(
            (np.ones(picks.size), (np.repeat(np.arange(n_resamples), G), picks.ravel())),
            shape=(n_resamples, G),
        )
        return sparse.csr_matrix(M.toarray()[:, inverse.ravel()])
    size = n_docs if size is None else size
    if size < 1:
        raise ValueError(f"a resample needs at least one document, got size {size}")
    picks = rng.integers(0, n_docs, size=(n_resamples, size))
    rows = np.repeat(np.arange(n_resamples), size)
    W = sparse.csr_matrix((np.ones(picks.size), (rows, picks.ravel())), shape=(n_resamples, n_docs))
    W.sum_duplicates()
    return W


@dataclass(frozen=True)
class Estimate:
    """A statistic with its bootstrap 95% interval."""

    value: float
    low: float
    high: float
    #: the bootstrap replicates behind the interval (for :func:`excess`), if kept
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: the number of clusters the replicates resampled, if fewer than :data:`FEW_CLUSTERS`
    #: (the interval then has the small-cluster reference of :func:`quantile`)
    clusters: int | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}]"


#: The normal quantile of a two-sided 95% interval.
Z95 = ss.norm.ppf(0.975)
#: Below this many resampled clusters an interval takes the small-cluster reference (:func:`quantile`).
FEW_CLUSTERS = 30


def n_clusters(groups) -> int | None:
    """The number of clusters of a cluster bootstrap with ``groups`` (one label per document),
    if fewer than :data:`FEW_CLUSTERS` (None without groups, or with that many or more): what
    :func:`interval` takes as ``clusters``."""
    if groups is None:
        return None
    G = len(np.unique(np.asarray(groups)))
    return G if G < FEW_CLUSTERS else None


def fewest(*clusters: int | None) -> int | None:
    """The smallest of some estimates' cluster counts (None if none has one): a statistic of two
    samples is as uncertain as its side with the fewest clusters."""
    known = [g for g in clusters if g is not None]
    return min(known) if known else None


def quantile(level: float = 0.95, clusters: int | None = None) -> float:
    """The factor of the bootstrap standard deviation in a two-sided interval at ``level``:
    the normal quantile, or, over ``clusters`` = G < :data:`FEW_CLUSTERS` resampled clusters,
    the quantile of Student's t with G − 1 degrees of freedom times √(G/(G − 1)). The bootstrap
    variance of a mean over G clusters is the plug-in one (divisor G); the factor makes it the
    usual unbiased one, and t(G − 1) is then the exact reference for normal cluster means
    (Cameron & Miller 2015, §VI.C; their CR1 correction with G − 1 degrees of freedom).
    ``tests/test_stats.py`` checks the coverage at G = 10."""
    if not 0 < level < 1:
        raise ValueError(f"a level lies in (0, 1), got {level}")
    if clusters is None or clusters >= FEW_CLUSTERS:
        return float(ss.norm.ppf(0.5 + level / 2))
    if clusters < 1:
        raise ValueError(f"an interval over resampled clusters needs a cluster, got {clusters}")
    if clusters == 1:
        return math.inf  # one cluster says nothing about the spread between clusters
    return float(ss.t.ppf(0.5 + level / 2, clusters - 1) * np.sqrt(clusters / (clusters - 1)))


def interval(
    value: float,
    replicates: np.ndarray,
    level: float = 0.95,
    floor: float | None = None,
    clusters: int | None = None,
) -> Estimate:
    """Normal bootstrap interval value ± z·sd(replicates) (Efron & Tibshirani 1993, §13.3),
    cut at ``floor`` (0 for distances); over ``clusters`` < :data:`FEW_CLUSTERS` resampled
    clusters, z is the small-cluster :func:`quantile`."""
    replicates = np.asarray(replicates, dtype=float)  # NaN: a replicate without the statistic (left out)
    clusters = clusters if clusters is not None and clusters < FEW_CLUSTERS else None
    q = quantile(level, clusters)
    half = math.inf if q == math.inf else float(q * np.nanstd(replicates, ddof=1))
    low = float(value) - half
    return Estimate(
        float(value), low if floor is None else max(floor, low), float(value) + half, replicates, clusters
    )


def excess(a: Estimate, b: Estimate, level: float = 0.95) -> Estimate:
    """``a - b`` with the normal interval of the paired replicates: for two statistics whose
    bootstraps shared their resamples of a common sample (two distances to one reference,
    computed with the same seed), the interval of the difference accounts for the shared
    reference's noise once. With the small-cluster reference of the one with fewer clusters."""
    if a.replicates is None or b.replicates is None or a.replicates.shape != b.replicates.shape:
        raise ValueError("both estimates need bootstrap replicates of the same shape")
    return interval(
        a.value - b.value, a.replicates - b.replicates, level, clusters=fewest(a.clusters, b.clusters)
    )


def printed(value: float, decimals: int | None = None, half: float | None = None) -> Estimate:
    """A number as a source prints it, as an estimate whose interval is its printed precision:
    ± half its last digit (``decimals`` after the point), or ± ``half``. The chapters decide a
    claim on the source's own numbers with it."""
    if (decimals is None) == (half is None):
        raise ValueError("give the printed decimals or the half-width, one of them")
    half = 0.5 * 10.0**-decimals if half is None else half
    return Estimate(float(value), float(value) - half, float(value) + half)


def unpaired(a, b) -> Estimate:
    """a − b for two estimates without shared resamples, its interval the span of the differences
    of their intervals, [a.low − b.high, a.high − b.low]: it lies wholly below 0 exactly when a's
    interval lies wholly below b's (conservative)."""
    return Estimate(a.value - b.value, a.low - b.high, a.high - b.low)


def difference(a, b) -> Estimate:
    """a − b: paired (:func:`excess`) where both estimates carry replicates of the same
    resamples, else unpaired (:func:`unpaired`: printed numbers, which share none)."""
    if a.replicates is not None and b.replicates is not None:
        return excess(a, b)
    return unpaired(a, b)


def bonferroni(alpha: float, n: int, quantile: bool = False) -> float:
    """The level of each of ``n`` intervals (or tests) among which a claim looks for one case
    (Bonferroni's correction): 1 − α/n, so that the chance of any false find stays below α;
    with ``quantile``, the upper quantile that bounds each of them two-sided, 1 − α/(2n)."""
    return 1 - alpha / ((2 if quantile else 1) * max(n, 1))


def bootstrap_streams(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The two random streams of a two-sample bootstrap with ``seed``: one for the sample,
    one for the reference. Every bootstrap of this project that resamples a reference draws
    it from the second stream, so that two statistics against one reference bootstrapped with
    one seed resample it alike (paired, see :func:`excess`)."""
    return np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])


def bootstrap_distance(
    distance,
    X,
    Y,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    x_size: int | None = None,
    x_groups=None,
    y_groups=None,
) -> Estimate:
    """``distance(hx, hy)`` between the histograms of two document samples (``X``, ``Y``:
    documents x categories) with a bootstrap interval that resamples the documents of both
    samples independently (by cluster, for a sample with ``*_groups``). ``Y`` may also be a
    fixed 1-D pmf (a fitted law), which is not resampled. ``x_size`` resamples that many
    documents of ``X`` (see :func:`bootstrap_weights`): the interval's half-width then
    estimates the spread with a sample of that size, around the same (size-n) estimate.

    The resamples of ``X`` and of ``Y`` come from :func:`bootstrap_streams`.

    (9 parameters: the distance, the two samples, the bootstrap's settings (resamples, seed, level)
    and each side's sampling units.)
    """
    rx, ry = bootstrap_streams(seed)
    X = sparse.csr_matrix(X)
    hx = np.asarray(X.sum(0))
    fixed = not sparse.issparse(Y) and np.ndim(Y) == 1
    hy = np.asarray(Y)[None] if fixed else np.asarray(sparse.csr_matrix(Y).sum(0))
    value = distance(hx, hy)[0]
    reps = []
    for a in range(0, n_resamples, 250):  # batches bound the memory of dense [B, K] histograms
        b = min(250, n_resamples - a)
        bx = (bootstrap_weights(X.shape[0], b, rx, size=x_size, groups=x_groups) @ X).toarray()
        by = (
            hy
            if fixed
            else (bootstrap_weights(Y.shape[0], b, ry, groups=y_groups) @ sparse.csr_matrix(Y)).toarray()
        )
        reps.append(distance(bx, by))
    return interval(
        value,
        np.concatenate(reps),
        level,
        floor=0.0,
        clusters=fewest(n_clusters(x_groups), None if fixed else n_clusters(y_groups)),
    )


@dataclass(frozen=True)
class PermutationResult:
    statistic: float  # mean(x) - mean(y)
    pvalue: float  # two-sided Monte Carlo p-value, (1 + #{|t*| >= |t|}) / (1 + B)
    null_distribution: np.ndarray


def permutation_test(x, y, n_resamples: int = 10_000, seed: int = 0, batch: int = 1000) -> PermutationResult:
    """Two-sample permutation test of the difference of means (Meister & Cotterell 2021,
    §4.1 and App. B), by Monte Carlo over ``n_resamples`` random relabellings.

    Vectorised: each relabelling is a random permutation of the pooled values (a row of a
    [batch, n] matrix shuffled with ``Generator.permuted``), the first len(x) of which form
    the new x. The p-value counts the observed statistic as one of the resamples (Phipson &
    Smyth 2010), as ``scipy.stats.permutation_test`` does.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size == 0 or y.size == 0:
        raise ValueError("both samples need at least one value")
    rng = np.random.default_rng(seed)
    pooled, n = np.concatenate([x, y]), len(x)
    observed = x.mean() - y.mean()
    total = pooled.sum()
    null = []
    for a in range(0, n_resamples, batch):
        b = min(batch, n_resamples - a)
        perm = rng.permuted(np.broadcast_to(pooled, (b, len(pooled))), axis=1)
        sx = perm[:, :n].sum(axis=1)
        null.append(sx / n - (total - sx) / len(y))
    null = np.concatenate(null)
    # a relative tolerance so that relabellings equal to the observed one count as extreme
    extreme = np.abs(null) >= np.abs(observed) * (1 - 1e-12)
    return PermutationResult(float(observed), float((1 + extreme.sum()) / (1 + n_resamples)), null)


def stars(pvalue: float) -> str:
    """Significance marks as the source's appendix: ** p < 0.01, * p < 0.05."""
    return "**" if pvalue < 0.01 else "*" if pvalue < 0.05 else ""


def ols(y, columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """OLS of ``y`` on an intercept and ``columns``, with each term's partial R² (the share of
    the residual variance without it that it explains). Distortion (06) and importance-sampling
    (04) chapters. numpy's least squares: the book has
    no regression package, and a point fit is all it needs here (intervals come from
    :func:`bootstrap_ols`)."""
    y = np.asarray(y, dtype=float)
    names = list(columns)
    X = np.column_stack([np.ones(len(y))] + [np.asarray(columns[c], dtype=float) for c in names])

    def rss(A):
        beta = np.linalg.lstsq(A, y, rcond=None)[0]
        return float(((y - A @ beta) ** 2).sum()), beta

    full, beta = rss(X)
    rows = [{"term": "intercept", "coefficient": beta[0], "partial R²": np.nan}]
    for j, c in enumerate(names, start=1):
        reduced, _ = rss(np.delete(X, j, axis=1))
        rows.append({"term": c, "coefficient": beta[j], "partial R²": 1 - full / reduced})
    return pd.DataFrame(rows)


def bootstrap_ols(
    y, columns: dict[str, np.ndarray], n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> pd.DataFrame:
    """:func:`ols` with percentile bootstrap intervals, resampling the (independent) rows."""
    y = np.asarray(y, dtype=float)
    cols = {c: np.asarray(v, dtype=float) for c, v in columns.items()}
    point = ols(y, cols)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(len(y), size=len(y))
        boots.append(ols(y[i], {c: v[i] for c, v in cols.items()})[["coefficient", "partial R²"]].to_numpy())
    boots = np.array(boots)
    q = [(1 - level) / 2, (1 + level) / 2]
    point["low"], point["high"] = np.quantile(boots[:, :, 0], q, axis=0)
    point["R² low"], point["R² high"] = np.quantile(boots[:, :, 1], q, axis=0)
    return point


def scaled(e: Estimate, factor: float) -> Estimate:
    """An estimate with its value and interval multiplied by ``factor`` (100: a share in %;
    the ends swap for a negative one). Its replicates are not kept."""
    low, high = sorted((factor * e.low, factor * e.high))
    return Estimate(factor * e.value, low, high)
