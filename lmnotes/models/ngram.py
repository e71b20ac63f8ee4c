"""Count-based n-gram language models over a segmentation. Models and tendencies chapters.

Two estimators of p(w | h) for histories h of n-1 tokens (sequences are padded on the left
with n-1 ``<s>`` symbols and end with ``<s>``, which doubles as EOS):

- ``mle``: the unsmoothed maximum-likelihood model of the tendencies study's trigram,
  p(w | h) = c(h w) / c(h •). It gives **zero probability** to a continuation never seen
  after a seen history: such strings score log p = -inf (their perplexity is infinite), which
  callers must handle; it is not an error. A history never seen in training has no MLE, so
  the model backs off to the longest seen suffix of it (the bigram, then the unigram MLE),
  which keeps every conditional a normalised distribution.
- ``kn``: interpolated Kneser–Ney (Chen & Goodman 1998, Eq. 26; Jurafsky & Martin, Eq. 3.35),
  with one absolute discount per order, D = n1 / (n1 + 2 n2) (Ney et al. 1994; 0.5 where an
  order has no singletons, which only tiny corpora produce), continuation
  counts N1+(• h w) for the lower orders, and the unigram interpolated with the uniform
  distribution, so that every token has a positive, finite probability.

Both are :class:`~lmnotes.models.base.LanguageModel` s: the state at a position is its
history of n-1 token ids and the head returns the log of the conditional distribution, so
scoring, next-token distributions and sampling work as for neural models. Rows are built
from sparse count matrices (scipy.sparse), a chunk of histories at a time.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp
import torch

from lmnotes.text import segment as seglib
from lmnotes.models.base import LanguageModel, RowCache

ESTIMATORS = ("mle", "kn")


class _Table:
    """Counts of order-k n-grams: a CSR matrix [distinct histories, V] and sorted history keys;
    and the n-gram keys (history key x V + word, sorted) with their counts, for looking up
    c(h w) of many pairs at once (:meth:`count`)."""

    def __init__(self, hist_keys: np.ndarray, words: np.ndarray, counts: np.ndarray, V: int):
        self.keys, inverse = np.unique(hist_keys, return_inverse=True)
        self.matrix = sp.csr_matrix((counts.astype(np.float64), (inverse, words)), shape=(len(self.keys), V))
        self.total = np.asarray(self.matrix.sum(1)).ravel()  # c(h •)
        self.types = np.diff(self.matrix.indptr).astype(np.float64)  # N1+(h •)
        order = np.argsort(hist_keys * V + words, kind="stable")
        self.gram_keys = (hist_keys * V + words)[order]
        self.gram_counts = counts.astype(np.float64)[order]
        self.V = V

    def rows(self, keys: np.ndarray) -> np.ndarray:
        """Row index of each history key, -1 where the history was never seen."""
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, len(self.keys) - 1)
        return np.where(self.keys[pos] == keys, pos, -1) if len(self.keys) else np.full(len(keys), -1)

    def count(self, keys: np.ndarray, words: np.ndarray) -> np.ndarray:
        """c(h w) for history keys ``keys`` and words ``words`` (0 where never seen)."""
        if not len(self.gram_keys):
            return np.zeros(len(keys))
        want = keys * self.V + words
        pos = np.minimum(np.searchsorted(self.gram_keys, want), len(self.gram_keys) - 1)
        return np.where(self.gram_keys[pos] == want, self.gram_counts[pos], 0.0)


class NGramModel(LanguageModel):
    """An order-``order`` n-gram model; call :meth:`fit` on a list of strings."""

    def __init__(
        self, seg: seglib.Segmentation, order: int = 3, estimator: str = "kn", name: str | None = None
    ):
        if estimator not in ESTIMATORS:
            raise ValueError(f"unknown n-gram estimator {estimator!r}; use one of {list(ESTIMATORS)}")
        if not 1 <= order <= 4:
            raise ValueError(f"order must be 1 to 4 (history keys are int64), got {order}")
        self.seg, self.order, self.estimator = seg, order, estimator
        self.name = name or f"{order}-gram-{seg.kind}-{estimator}"
        self.segmentation = seg.kind
        self.vocab_size = seg.vocab_size
        self.bos_id = self.eos_id = seglib.BOS
        self.pad_id = seglib.PAD
        self.max_length = 1 << 30  # no context window: the state is the last n-1 tokens
        self.device = torch.device("cpu")

    # --- training ---------------------------------------------------------------------------
    def _key(self, hist: np.ndarray) -> np.ndarray:
        """int64 key of histories [N, k] (base-V digits)."""
        key = np.zeros(len(hist), dtype=np.int64)
        for j in range(hist.shape[1]):
            key = key * self.vocab_size + hist[:, j]
        return key

    def fit(self, texts: Sequence[str]) -> "NGramModel":
        n, V = self.order, self.vocab_size
        seqs = [
            np.array([seglib.BOS] * (n - 1) + self.seg.encode(t) + [seglib.EOS], dtype=np.int64)
            for t in texts
        ]
        if not seqs:
            raise ValueError("an n-gram model needs at least one training string")
        # all n-grams (with their n-1 left neighbours) as rows [M, n]
        grams = np.concatenate([np.lib.stride_tricks.sliding_window_view(s, n) for s in seqs])
        self.tables: list[_Table | None] = [None] * (n + 1)  # index k = order k
        self.discount = np.zeros(n + 1)
        for k in range(n, 0, -1):
            if k == n or self.estimator == "mle":
                keys, counts = np.unique(self._key(grams[:, n - k :]), return_counts=True)
            else:  # continuation counts: distinct left neighbours of each k-gram, N1+(• h w)
                keys, counts = np.unique(
                    self._key(np.unique(grams[:, n - k - 1 :], axis=0)[:, 1:]), return_counts=True
                )
            hist, word = keys // V, keys % V
            self.tables[k] = _Table(hist, word, counts, V)
            n1, n2 = np.sum(counts == 1), np.sum(counts == 2)
            self.discount[k] = (
                n1 / (n1 + 2 * n2) if n1 > 0 else 0.5
            )  # no singletons: D = 0 would leave no mass for unseen tokens
        self.n_train_tokens = int(sum(len(s) - (n - 1) for s in seqs))
        return self

    # --- the LanguageModel interface --------------------------------------------------------
    @property
    def n_parameters(self) -> int:
        """Stored counts (non-zero entries of all count tables)."""
        return int(sum(t.matrix.nnz for t in self.tables[1:]))

    def encode(self, text: str) -> list[int]:
        return self.seg.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self.seg.decode(ids)

    def _hidden(self, ids: torch.Tensor, past: Any = None, use_cache: bool = False):
        # the state of a position is its history of n-1 tokens; the cache holds the last n-2
        h = self.order - 1
        B = ids.shape[0]
        before = (
            past.tensors[0]
            if past is not None
            else torch.full((B, max(h - 1, 0)), seglib.BOS, dtype=torch.long)
        )
        full = torch.cat([before, ids.cpu()], 1)  # [B, h-1+T]
        states = full.unfold(1, h, 1) if h > 0 else torch.zeros((B, ids.shape[1], 0), dtype=torch.long)
        new_past = RowCache((full[:, full.shape[1] - max(h - 1, 0) :],)) if use_cache else None
        return states, new_past  # [B, T, n-1]

    def _head(self, states: torch.Tensor) -> torch.Tensor:
        with np.errstate(divide="ignore"):  # log 0 = -inf: the MLE's zero probabilities
            return torch.from_numpy(np.log(self.conditional(states.cpu().numpy())).astype(np.float32))

    def _unigram(self) -> np.ndarray:
        """p(·) of the lowest order [V]: the MLE, or (KN) the continuation counts interpolated
        with the uniform over non-PAD types."""
        V, t1 = self.vocab_size, self.tables[1]
        if self.estimator == "mle":
            return t1.matrix.toarray()[0] / t1.total[0]
        D = self.discount[1]
        cont = t1.matrix.toarray()[0]
        uniform = np.full(V, 1.0 / (V - 1))
        uniform[seglib.PAD] = 0.0
        return np.maximum(cont - D, 0) / t1.total[0] + D * t1.types[0] / t1.total[0] * uniform

    def conditional(self, hist: np.ndarray) -> np.ndarray:
        """p(· | h) for histories [N, n-1]: a dense float64 array [N, V] whose rows sum to 1."""
        N, V = len(hist), self.vocab_size
        p = np.broadcast_to(self._unigram(), (N, V)).copy()
        for k in range(2, self.order + 1):
            table = self.tables[k]
            rows = table.rows(self._key(hist[:, self.order - k :]))
            seen = rows >= 0
            if not seen.any():
                continue
            r = rows[seen]
            counts = table.matrix[r].toarray()
            total = table.total[r][:, None]
            if self.estimator == "mle":
                p[seen] = counts / total
            else:
                D = self.discount[k]
                lam = D * table.types[r][:, None] / total
                p[seen] = np.maximum(counts - D, 0) / total + lam * p[seen]
        return p

    def probability(self, hist: np.ndarray, words: np.ndarray) -> np.ndarray:
        """p(w | h) for histories [N, n-1] and words [N], float64: the entries ``words`` of
        :meth:`conditional`'s rows, by the same arithmetic, without building the rows (each
        order's counts looked up in sorted arrays of n-gram keys)."""
        p = self._unigram()[words]
        for k in range(2, self.order + 1):
            table = self.tables[k]
            keys = self._key(hist[:, self.order - k :])
            rows = table.rows(keys)
            seen = rows >= 0
            if not seen.any():
                continue
            r = rows[seen]
            counts = table.count(keys[seen], words[seen])
            total = table.total[r]
            if self.estimator == "mle":
                p[seen] = counts / total
            else:
                D = self.discount[k]
                lam = D * table.types[r] / total
                p[seen] = np.maximum(counts - D, 0) / total + lam * p[seen]
        return p

    def _score_sequences(
        self, encoded: list[list[int]], temperature: float, stride: int | None, batch_tokens: int | None
    ) -> list[np.ndarray]:
        """log p of each token of BOS + ids + EOS given its n-1 predecessors, in float64 from
        :meth:`probability` (the neural models' path builds every row of V probabilities:
        10-20x slower here, and its log-probabilities are float32). At a temperature other
        than 1 the rows are needed to renormalise, and that path is taken."""
        if temperature != 1.0:
            return super()._score_sequences(encoded, temperature, stride, batch_tokens)
        h = self.order - 1
        hists, words, lengths = [], [], []
        for ids in encoded:
            seq = np.array([seglib.BOS] * h + list(ids) + [self.eos_id], dtype=np.int64)
            # the history of each target: the h tokens before it ([BOS]*h pads the start)
            hists.append(
                np.lib.stride_tricks.sliding_window_view(seq[:-1], h)
                if h
                else np.zeros((len(seq), 0), dtype=np.int64)
            )
            words.append(seq[h:])
            lengths.append(len(seq) - h)
        if not lengths:
            return []
        with np.errstate(divide="ignore"):  # log 0 = -inf: the MLE's zero probabilities
            lp = np.log(self.probability(np.concatenate(hists), np.concatenate(words)))
        return np.split(lp, np.cumsum(lengths)[:-1])
