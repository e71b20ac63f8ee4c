"""Rank–frequency and type–token statistics of word sequences. Corpus and tendencies chapters.

- Rank–frequency: the frequency of the r-th most frequent type against r; Zipf's law says it
  falls as r^(-s) (Meister & Cotterell 2021, §3.1).
- Type–token: the number of distinct types among the first n tokens, V(n); Heaps' law says it
  grows as K·n^β (Meister & Cotterell 2021, §3.1).

Both laws are fitted by maximum likelihood (the source's App. A), with numerical optimisation
of the one parameter that has no closed form:

- :func:`fit_zipf`: a discrete power law over ranks 1..K, p(k) = k^(-s) / H(K, s) (Eq. 4;
  Clauset et al. 2009, App. B). The source keeps the first 10,000 ranks; we normalise over
  exactly those ranks (the law of ``scipy.stats.zipfian``), so the fitted law is a
  distribution on the support its KS distance is computed on.
- :func:`fit_heaps`: the number of types u in a document of length n is Poisson with mean
  λ(n) = K·n^β, a non-homogeneous Poisson process (Eq. 5). For a fixed β the MLE of K is
  Σu / Σn^β, so the likelihood is maximised over β alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import optimize
from scipy import stats as ss


def rank_frequency(tokens: Iterable[str]) -> pd.DataFrame:
    """Types sorted by frequency: columns ``rank`` (1-based), ``type``, ``count``, ``freq``.

    Ties are broken by the type string, so the table is deterministic.
    """
    counts = Counter(tokens)
    if not counts:
        raise ValueError("rank_frequency needs at least one token")
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    df = pd.DataFrame(items, columns=["type", "count"])
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    df["freq"] = df["count"] / df["count"].sum()
    return df


def type_token_curve(tokens: Sequence[str], points: int | None = None) -> pd.DataFrame:
    """V(n), the number of distinct types among the first n tokens, for n = 1..len(tokens).

    Vectorised: a token is new at position i iff i is the first occurrence of its type, so
    V = cumsum(first-occurrence indicator). ``points`` keeps that many log-spaced n values.
    """
    if len(tokens) == 0:
        raise ValueError("type_token_curve needs at least one token")
    _, first = np.unique(np.asarray(tokens, dtype=object), return_index=True)
    new = np.zeros(len(tokens), dtype=np.int64)
    new[first] = 1
    types = np.cumsum(new)
    n = np.arange(1, len(tokens) + 1)
    if points is not None and points < len(n):
        keep = np.unique(np.geomspace(1, len(n), points).round().astype(int)) - 1
        n, types = n[keep], types[keep]
    return pd.DataFrame({"tokens": n, "types": types})


def fit_zipf(counts, max_rank: int | None = 10_000) -> float:
    """MLE of Zipf's exponent s (Meister & Cotterell 2021, Eq. 4 and Eqs. 17–19) from the type
    counts of a sample, over its first ``max_rank`` ranks: maximises
    Σ_k f_k log p(k), p(k) = k^(-s) / Σ_{j<=K} j^(-s), where f_k is the count of the k-th
    most frequent type."""
    f = np.sort(np.asarray(counts, dtype=float))[::-1]
    f = f[f > 0][:max_rank]
    if f.size < 2:
        raise ValueError("fitting Zipf's law needs at least two types")
    K, logk, N = f.size, np.log(np.arange(1, f.size + 1)), f.sum()  # noqa: F841

    def nll(s):  # −log L(s) = s Σ f_k log k + N log H(K, s)
        return s * (f @ logk) + N * np.log(np.exp(-s * logk).sum())

    res = optimize.minimize_scalar(nll, bounds=(1e-3, 10.0), method="bounded", options={"xatol": 1e-7})
    return float(res.x)


def zipf_pmf(s: float, max_rank: int) -> np.ndarray:
    """p(k) for k = 1..max_rank of the truncated Zipf law with exponent ``s`` (the pmf of
    ``scipy.stats.zipfian(s, max_rank)``, computed directly: scipy's evaluates the normaliser
    once per k, 10,000 times slower here)."""
    w = np.arange(1, max_rank + 1, dtype=float) ** -s
    return w / w.sum()


@dataclass(frozen=True)
class Heaps:
    """Heaps' law as an NHPP: types in a document of length n ~ Poisson(K n^β) (Eq. 5)."""

    K: float
    beta: float

    #: the search interval of the fit: an estimate on its edge is the optimiser's bound
    BOUNDS = (1e-3, 2.0)

    @property
    def at_bound(self) -> bool:
        """Whether β lies on the edge of the search interval (not an interior maximum)."""
        return bool(min(abs(self.beta - b) for b in self.BOUNDS) < 1e-6)

    def mean(self, n) -> np.ndarray:
        return self.K * np.asarray(n, dtype=float) ** self.beta

    def cdf(self, u, n) -> np.ndarray:
        """P(types <= u) for documents of length n (broadcast)."""
        return ss.poisson.cdf(u, self.mean(n))


def fit_heaps(lengths, types) -> Heaps:
    """MLE of Heaps' law as a non-homogeneous Poisson process (Meister & Cotterell 2021,
    Eq. 5 and Eqs. 20–22) from each document's length n_d and number of types u_d: maximises
    Σ_d [u_d log(K n_d^β) − K n_d^β], profiling K(β) = Σu / Σn^β."""
    n, u = np.asarray(lengths, dtype=float), np.asarray(types, dtype=float)
    if n.shape != u.shape or n.size == 0:
        raise ValueError("fit_heaps needs one length and one type count per document, at least one")
    if np.any(n < 1) or np.any(u < 0):
        raise ValueError("every document needs length >= 1 and a non-negative number of types")
    logn = np.log(n)

    def nll(beta):
        K = u.sum() / np.exp(beta * logn).sum()
        lam = K * np.exp(beta * logn)
        return -(u @ np.log(lam) - lam.sum())

    res = optimize.minimize_scalar(nll, bounds=Heaps.BOUNDS, method="bounded", options={"xatol": 1e-8})
    beta = float(res.x)
    return Heaps(K=float(u.sum() / np.exp(beta * logn).sum()), beta=beta)
