"""Rank–frequency and type–token statistics of word sequences. Corpus and tendencies chapters.

- Rank–frequency: the frequency of the r-th most frequent type against r; Zipf's law says it
  falls as r^(-s) (Meister & Cotterell 2021, §3.1).
- Type–token: the number of distinct types among the first n tokens, V(n); Heaps' law says it
  grows as K·n^β (Meister & Cotterell 2021, §3.2).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

import numpy as np
import pandas as pd


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
