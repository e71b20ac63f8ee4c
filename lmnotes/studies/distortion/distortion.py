"""Distributional distortion of a model M against a known language L (LeBrun, Sordoni &
O'Donnell 2022): the statistics of the distortion chapter (the language and its learners are
in :mod:`lmnotes.studies.distortion.language`).

- :func:`estimation_error`: error(x) = log p_M(x) − log p_L(x) (the paper's Eq. 2); its mean
  under L is −KL(p_L ‖ p_M) ≤ 0 for any M (Gibbs' inequality), so only its median and its
  shape are findings;
- :func:`tvd_from_l` and :func:`tvd_from_m`: the total variation estimated from samples of
  either side, E_L[(1 − e^{error})₊] = E_M[(1 − e^{−error})₊]; two estimates that must agree;
- :func:`perturb`: the paper's PERTURB (§4.3): swap, delete, insert or substitute one token;
- :func:`random_sequences`: sequences from Σ* (Poisson(10) lengths, uniform tokens, App. A.1);
- :func:`equal_width_bins` (footnote 3: bins with more than 10 sequences) and
  :func:`equal_count_bins` (§4.2), and :func:`bin_means` with percentile bootstrap intervals;
- :func:`good_turing` (Eqs. 3–4) and :func:`missing_mass` (the exact one, where p_L is known),
  and their curves over N (:func:`good_turing_curve`, :func:`missing_mass_curve`);
- the length law, calibration and where the mass goes are in :mod:`lmnotes.studies.distortion.deficit`; the
  length confound's regression is :func:`lmnotes.stats.bootstrap_ols`.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import special

#: The paper's four edit operations (§4.3).
OPERATIONS = ("swap", "delete", "insert", "substitute")


def estimation_error(logp_model, logp_language) -> np.ndarray:
    """error(x) = log p_M(x) − log p_L(x) (Eq. 2): negative where M underestimates x. A
    sequence outside L's support (log p_L = −∞) gets +∞, never NaN."""
    m, lang = np.asarray(logp_model, dtype=float), np.asarray(logp_language, dtype=float)
    if m.shape != lang.shape:
        raise ValueError(f"{m.shape} model scores but {lang.shape} language scores")
    with np.errstate(invalid="ignore"):
        err = m - lang
    err[np.isneginf(lang) & ~np.isneginf(m)] = np.inf
    err[np.isneginf(lang) & np.isneginf(m)] = 0.0
    return err


def tvd_from_l(error) -> float:
    """TVD(p_L, p_M) from sequences drawn from L: E_L[(1 − e^{error})₊]."""
    return float(np.mean(np.clip(1 - np.exp(np.minimum(np.asarray(error, dtype=float), 50)), 0, None)))


def tvd_from_m(error) -> float:
    """TVD(p_L, p_M) from sequences drawn from M (error = log p_M − log p_L on them):
    E_M[(1 − e^{−error})₊]."""
    return float(np.mean(np.clip(1 - np.exp(-np.maximum(np.asarray(error, dtype=float), -50)), 0, None)))


def _token(rng: np.random.Generator, vocab: Sequence[int], avoid: int | None = None) -> int:
    while True:
        u = int(vocab[rng.integers(len(vocab))])
        if u != avoid or len(vocab) == 1:
            return u


def perturb(seq: Sequence[int], vocab: Sequence[int], rng: np.random.Generator) -> list[int]:
    """One PERTURB step: an operation drawn uniformly among those that can change ``seq``
    (swap two positions holding different tokens, delete a token, insert or substitute a
    token drawn uniformly from ``vocab``, the non-special ids). The result always differs
    from the input; an empty sequence can only grow."""
    seq = list(seq)
    vocab = list(vocab)
    if not vocab:
        raise ValueError("perturb needs a non-empty vocabulary of non-special ids")
    ops = ["insert"]
    if len(seq) >= 1:
        ops += ["delete"]
        if len(vocab) > 1:
            ops += ["substitute"]
    if len(set(seq)) > 1:
        ops += ["swap"]
    op = ops[rng.integers(len(ops))]
    if op == "insert":
        i = int(rng.integers(len(seq) + 1))
        return seq[:i] + [_token(rng, vocab)] + seq[i:]
    if op == "delete":
        i = int(rng.integers(len(seq)))
        return seq[:i] + seq[i + 1 :]
    if op == "substitute":
        i = int(rng.integers(len(seq)))
        return seq[:i] + [_token(rng, vocab, avoid=seq[i])] + seq[i + 1 :]
    while True:  # swap two positions with different tokens
        i, j = (int(x) for x in rng.choice(len(seq), 2, replace=False))
        if seq[i] != seq[j]:
            seq[i], seq[j] = seq[j], seq[i]
            return seq


def perturbation_ladder(
    seqs: Sequence[Sequence[int]], vocab: Sequence[int], levels: Sequence[int], seed: int = 0
) -> dict[int, list[list[int]]]:
    """D⁽ⁱ⁾ = PERTURB(D⁽ⁱ⁻¹⁾) applied recursively, kept at the given ``levels`` (0 is the
    input); deterministic for a seed."""
    levels = sorted(set(int(level) for level in levels))
    if levels and levels[0] < 0:
        raise ValueError(f"perturbation levels must be ≥ 0, got {levels}")
    rng = np.random.default_rng(seed)
    current = [list(s) for s in seqs]
    out, done = {}, 0
    for level in levels:
        while done < level:
            current = [perturb(s, vocab, rng) for s in current]
            done += 1
        out[level] = [list(s) for s in current]
    return out


def random_sequences(
    n: int, vocab: Sequence[int], mean_length: float = 10.0, seed: int = 0
) -> list[list[int]]:
    """``n`` sequences from Σ*: lengths Poisson(``mean_length``) conditioned on ≥ 1, tokens
    uniform over ``vocab`` (App. A.1)."""
    if n < 0 or mean_length <= 0:
        raise ValueError(f"need n ≥ 0 and a positive mean length, got {n} and {mean_length}")
    rng = np.random.default_rng(seed)
    vocab = np.asarray(vocab)
    out = []
    while len(out) < n:
        k = int(rng.poisson(mean_length))
        if k >= 1:
            out.append([int(t) for t in vocab[rng.integers(len(vocab), size=k)]])
    return out


def equal_width_bins(x, n_bins: int = 20, min_count: int = 11) -> np.ndarray:
    """Bin index of each value over ``n_bins`` equal-width bins of [min, max], −1 for values in
    bins with fewer than ``min_count`` of them (the paper's footnote 3 keeps bins with more
    than 10 sequences)."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0 or n_bins < 1:
        raise ValueError("need at least one value and one bin")
    edges = np.linspace(x.min(), x.max(), n_bins + 1)
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, n_bins - 1)
    counts = np.bincount(idx, minlength=n_bins)
    return np.where(counts[idx] >= min_count, idx, -1)


def equal_count_bins(x, n_bins: int = 20, min_count: int = 11) -> np.ndarray:
    """Bin index of each value over quantile bins (§4.2); fewer bins, with a warning, when
    there are fewer than ``min_count`` values per bin. Ties stay in one bin."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0 or n_bins < 1:
        raise ValueError("need at least one value and one bin")
    if len(x) < n_bins * min_count:
        fewer = max(1, len(x) // min_count)
        warnings.warn(f"{len(x)} values for {n_bins} bins of at least {min_count}: using {fewer} bins")
        n_bins = fewer
    return (
        pd.Series(x)
        .rank(method="min")
        .pipe(lambda r: pd.qcut(r, n_bins, labels=False, duplicates="drop"))
        .to_numpy(dtype=int)
    )


def bin_means(values, bins, n_boot: int = 10_000, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """Mean of ``values`` per bin (bins ≥ 0) with a percentile bootstrap interval that
    resamples the bin's own values (the paper's; the sequences are independent draws)."""
    values, bins = np.asarray(values, dtype=float), np.asarray(bins)
    rng = np.random.default_rng(seed)
    rows = []
    for b in np.unique(bins[bins >= 0]):
        v = values[bins == b]
        boots = v[rng.integers(len(v), size=(n_boot, len(v)))].mean(1)
        lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2])
        rows.append({"bin": int(b), "n": len(v), "mean": v.mean(), "low": lo, "high": hi})
    return pd.DataFrame(rows, columns=["bin", "n", "mean", "low", "high"])  # no bin: no rows


def good_turing(sample: Sequence) -> float:
    """The Good–Turing estimate of the missing mass, P̂_N = N₁/N (Eq. 4): the share of the
    sample made of items seen exactly once."""
    counts = pd.Series(list(sample), dtype=object).value_counts()
    if counts.empty:
        raise ValueError("Good–Turing needs a non-empty sample")
    return float((counts == 1).sum() / counts.sum())


def missing_mass(sample: Sequence, probability: dict) -> float:
    """The exact missing mass M₀ = 1 − Σ_{x seen} p(x), where p is known."""
    seen = set(sample)
    return float(1 - sum(probability[x] for x in seen))


def good_turing_curve(sample: Sequence, sizes: Sequence[int]) -> np.ndarray:
    """P̂_N = N₁/N (Eq. 4) on the first N items of ``sample``, for each N in ``sizes``."""
    codes = pd.factorize(pd.Series(list(sample), dtype=object))[0]
    out = []
    for n in sizes:
        if not 1 <= n <= len(codes):
            raise ValueError(f"sizes must lie in [1, {len(codes)}], got {n}")
        counts = np.bincount(codes[:n])
        out.append((counts == 1).sum() / n)
    return np.array(out)


def expected_good_turing_curve(sample: Sequence, sizes: Sequence[int]) -> np.ndarray:
    """The expectation of P̂_N = N₁/N (Eq. 4) over the orders of ``sample``: on a random
    subsample of N of its T items (without replacement) an item type seen f times in the
    whole sample is seen exactly once with probability f·C(T − f, N − 1)/C(T, N), so
    E[N₁] = Σ_f V_f · f · C(T − f, N − 1)/C(T, N), with V_f the number of types seen f times
    (the rarefaction of ecology, Hurlbert 1971, for singletons). Unlike
    :func:`good_turing_curve` on one order, it does not move with the order drawn, so a
    statistic of the curve's shape has no ordering noise. At N = T it is N₁/T."""
    counts = pd.Series(list(sample), dtype=object).value_counts().to_numpy()
    total = len(counts) and int(counts.sum())
    f, v = np.unique(counts, return_counts=True)
    out = []
    for n in sizes:
        if not 1 <= n <= total:
            raise ValueError(f"sizes must lie in [1, {total}], got {n}")
        ok = total - f >= n - 1
        log_ratio = _log_choose(total - f[ok], n - 1) - _log_choose(total, n)
        out.append(float(np.sum(v[ok] * f[ok] * np.exp(log_ratio))) / n)
    return np.array(out)


def _log_choose(a, b):
    """ln C(a, b), elementwise."""
    return (
        special.gammaln(np.asarray(a) + 1.0)
        - special.gammaln(b + 1.0)
        - special.gammaln(np.asarray(a) - b + 1.0)
    )


def missing_mass_curve(sample: Sequence, probability: Sequence[float], sizes: Sequence[int]) -> np.ndarray:
    """The exact missing mass M₀ = 1 − Σ_{x among the first N} p(x) for each N in ``sizes``,
    where ``probability[i]`` is the known probability of item i of ``sample``."""
    codes = pd.factorize(pd.Series(list(sample), dtype=object))[0]
    p = np.asarray(probability, dtype=float)
    first = np.full(codes.max() + 1, len(codes))
    np.minimum.at(first, codes, np.arange(len(codes)))  # where each distinct item first appears
    p_first = np.zeros(len(codes))
    p_first[first] = p[first]
    seen = np.cumsum(p_first)
    return np.array([1 - seen[n - 1] for n in sizes])
