"""A string's probability summed over all its segmentations (Mielke 2019, footnote 6).
Segmentation chapter.

A subword model gives probability to token sequences, and many sequences spell the same
string: ``rain|ing``, ``r|ain|ing``, ``r|a|i|n|i|n|g`` (all in an open vocabulary). The
probability of the string is the sum over its segmentations S(x),

    p(x) = sum_{s in S(x)} p(s),                                                    (1)

of which the tokenizer's canonical segmentation s*(x) is one term, so log p(s*) is a lower
bound. |S(x)| grows exponentially with the length of x; for short strings (1) can be
enumerated (:func:`exact_logmarginal`), for longer ones it is estimated by importance
sampling (:func:`importance_logweights`).

The proposal q walks the string left to right and draws each next token from the model's
own next-token distribution restricted to the tokens that continue the string,

    q(t_i | t_<i) = p(t_i | t_<i) / Z_i,   Z_i = sum_{t continues x after t_<i} p(t | t_<i),

until the string is spelled out; end-of-sequence then has no alternative. The importance
weight of a sampled segmentation s is therefore

    w(s) = p(s) / q(s) = (prod_i Z_i) p(EOS | s),                                    (2)

and E_q[w] = sum_s q(s) p(s) / q(s) = p(x): the estimate mean(w) is unbiased in
probability; its logarithm is biased low (Jensen) and consistent. Every segmentation has
q(s) > 0 (the model gives every token positive probability), so the estimator covers (1).
A proposal of this kind is the "constrained" sampler of Cao & Rimell (2021, "You should
evaluate your language model on marginal likelihood over tokenisations").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from scipy.special import logsumexp

from .stats import Estimate, interval

LN2 = np.log(2)


class Lattice:
    """The tokens that match a string at each byte offset: ``edges[j]`` lists (id, length).

    Built from the model's :meth:`~lmnotes.models.base.LanguageModel.token_bytes`; several
    ids may spell the same bytes (Gemma's ``<0x41>`` and ``A``), each is a segmentation.
    """

    def __init__(self, text: str, index: dict[bytes, list[int]], max_len: int):
        self.data = text.encode("utf-8")
        n = len(self.data)
        if n == 0:
            raise ValueError("the empty string has one segmentation, the empty one; nothing to sum")
        self.edges = [[(i, L) for L in range(1, min(max_len, n - j) + 1)
                       for i in index.get(self.data[j:j + L], ())] for j in range(n)]
        reach = np.zeros(n + 1, dtype=bool)
        reach[0] = True
        for j in range(n):
            if reach[j]:
                for _, L in self.edges[j]:
                    reach[j + L] = True
        if not reach[n]:
            raise ValueError(f"the vocabulary cannot spell {text[:40]!r}")

    def __len__(self) -> int:
        return len(self.data)

    def log_count(self) -> float:
        """log |S(x)|, by dynamic programming over offsets (the count overflows floats)."""
        n = len(self.data)
        logc = np.full(n + 1, -np.inf)
        logc[n] = 0.0
        for j in range(n - 1, -1, -1):
            if self.edges[j]:
                logc[j] = logsumexp([logc[j + L] for _, L in self.edges[j]])
        return float(logc[0])

    def segmentations(self, limit: int = 10_000) -> list[list[int]]:
        """Every segmentation as a list of ids; an error if there are more than ``limit``."""
        if self.log_count() > np.log(limit):
            raise ValueError(f"{np.exp(self.log_count()):.3g} segmentations exceed the limit of {limit}")
        out, n = [], len(self.data)

        def walk(j: int, prefix: list[int]) -> None:
            if j == n:
                out.append(list(prefix))
                return
            for i, L in self.edges[j]:
                prefix.append(i)
                walk(j + L, prefix)
                prefix.pop()

        walk(0, [])
        return out


def byte_index(lm) -> tuple[dict[bytes, list[int]], int]:
    """The model's vocabulary as {bytes: ids} and its longest token in bytes."""
    index: dict[bytes, list[int]] = {}
    for i, b in enumerate(lm.token_bytes()):
        if b:
            index.setdefault(b, []).append(i)
    return index, max(map(len, index))


def lattices(lm, texts: Sequence[str]) -> list[Lattice]:
    index, max_len = byte_index(lm)
    return [Lattice(t, index, max_len) for t in texts]


def exact_logmarginal(lm, text: str, limit: int = 10_000) -> tuple[float, int]:
    """log p(x) by Eq. (1), scoring every segmentation; returns it and |S(x)|."""
    segs = lattices(lm, [text])[0].segmentations(limit)
    lps = lm.score_ids(segs)
    return float(logsumexp([lp.sum() for lp in lps])), len(segs)


@torch.inference_mode()
def importance_logweights(lm, texts: Sequence[str], n_samples: int, seed: int = 0,
                          batch_size: int = 64) -> np.ndarray:
    """log w of Eq. (2) for ``n_samples`` segmentations of each text drawn from the
    constrained proposal: an array [len(texts), n_samples]. Deterministic for a seed.

    Rows (text, sample) are batched ``batch_size`` at a time with the model's key-value
    cache, one forward step per token; rows that have spelled their string wait, fed
    padding, until the batch is done.
    """
    if n_samples < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}")
    lats = lattices(lm, texts)
    too_long = [len(x) for x in lats if len(x) + 1 > lm.max_length]
    if too_long:
        raise ValueError(f"a string of {max(too_long)} bytes may need {max(too_long) + 1} positions "
                         f"(one token per byte), more than the model's window of {lm.max_length}")
    rows = [(d, k) for d in range(len(texts)) for k in range(n_samples)]
    out = np.zeros((len(texts), n_samples))
    dev = lm.device
    gen = torch.Generator(device=dev).manual_seed(seed)
    for a in range(0, len(rows), batch_size):
        batch = rows[a:a + batch_size]
        R = len(batch)
        lat = [lats[d] for d, _ in batch]
        pos = np.zeros(R, dtype=int)
        logw = np.zeros(R)
        done = np.zeros(R, dtype=bool)
        states, past = lm._hidden(torch.full((R, 1), lm.bos_id, device=dev), use_cache=True)
        while True:
            logp = torch.log_softmax(lm._head(states[:, -1]).float(), dim=-1)  # [R, V]
            spelled = ~done & (pos == np.array([len(x) for x in lat]))
            if spelled.any():  # the string is complete: only EOS continues it
                logw[spelled] += logp[torch.from_numpy(np.flatnonzero(spelled)).to(dev), lm.eos_id].cpu().numpy()
                done |= spelled
            if done.all():
                break
            live = np.flatnonzero(~done)
            K = max(len(lat[r].edges[pos[r]]) for r in live)
            ids = np.full((R, K), lm.pad_id)
            lens = np.zeros((R, K), dtype=int)
            ok = np.zeros((R, K), dtype=bool)
            for r in live:
                e = lat[r].edges[pos[r]]
                ids[r, :len(e)] = [i for i, _ in e]
                lens[r, :len(e)] = [L for _, L in e]
                ok[r, :len(e)] = True
            cand = logp.gather(1, torch.from_numpy(ids).to(dev))
            cand = cand.masked_fill(~torch.from_numpy(ok).to(dev), -torch.inf)
            cand[torch.from_numpy(done).to(dev)] = 0.0  # finished rows draw a dummy column
            logZ = torch.logsumexp(cand, dim=1)
            pick = torch.multinomial(torch.softmax(cand, dim=1), 1, generator=gen)[:, 0].cpu().numpy()
            logw[live] += logZ.cpu().numpy()[live]
            step = lens[np.arange(R), pick]
            feed = np.where(done, lm.pad_id, ids[np.arange(R), pick])
            pos = np.where(done, pos, pos + step)
            states, past = lm._hidden(torch.from_numpy(feed[:, None]).to(dev), past, use_cache=True)
        for (d, k), w in zip(batch, logw):
            out[d, k] = w
    return out


def log_mean_exp(logw: np.ndarray, axis: int = -1) -> np.ndarray:
    """log of the mean of exp(logw): the log of the importance-sampling estimate."""
    logw = np.asarray(logw, dtype=float)
    return logsumexp(logw, axis=axis) - np.log(logw.shape[axis])


def effective_sample_size(logw: np.ndarray, axis: int = -1) -> np.ndarray:
    """(sum w)^2 / sum w^2 (Kong 1992): how many independent draws the weights are worth."""
    logw = np.asarray(logw, dtype=float)
    return np.exp(2 * logsumexp(logw, axis=axis) - logsumexp(2 * logw, axis=axis))


@dataclass(frozen=True)
class Gap:
    """The marginal's gain over the canonical segmentation, in bits per character."""

    bits_per_char: Estimate  # (log p(x) - log p(s*)) summed over strings / characters / ln 2
    per_string: np.ndarray  # log p̂(x) - log p(s*) per string, nats


def gap(logw: np.ndarray, canonical: np.ndarray, n_chars: np.ndarray, n_resamples: int = 1000,
        seed: int = 0, level: float = 0.95) -> Gap:
    """Sum over strings of log p̂(x) - log p(s*(x)), per character (``n_chars`` per string,
    EOS counted as the caller decides), in bits, with a bootstrap interval that resamples
    the strings and, within each string, its importance samples (both sources of error)."""
    logw, canonical, n_chars = np.asarray(logw), np.asarray(canonical, float), np.asarray(n_chars, float)
    D, N = logw.shape
    per = log_mean_exp(logw) - canonical
    rng = np.random.default_rng(seed)
    reps = np.empty(n_resamples)
    for a in range(0, n_resamples, 100):  # batches bound the [b, D, N] index array
        b = min(100, n_resamples - a)
        docs = rng.integers(0, D, size=(b, D))
        draws = rng.integers(0, N, size=(b, D, N))
        est = log_mean_exp(logw[docs[..., None], draws]) - canonical[docs]  # [b, D]
        reps[a:a + b] = est.sum(1) / n_chars[docs].sum(1) / LN2
    return Gap(interval(per.sum() / n_chars.sum() / LN2, reps, level), per)
