"""A string's probability summed over all its segmentations (Mielke 2019, footnote 6).
Segmentation chapter.

A subword model gives probability to token sequences, and many sequences spell the same
string: ``rain|ing``, ``r|ain|ing``, ``r|a|i|n|i|n|g`` (all in an open vocabulary). The
probability of the string is the sum over its segmentations S(x),

    p(x) = sum_{s in S(x)} p(s),                                                    (1)

of which the tokenizer's canonical segmentation s*(x) is one term, so log p(s*) is a lower
bound. |S(x)| grows exponentially with the length of x; for short strings (1) can be
enumerated (:func:`exact_logmarginal`), for longer ones it is estimated by importance
sampling (:func:`importance_sample`).

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

That proposal is myopic: it prefers " per" to " perplexity" because " per" is the likelier
*token*, though the model, trained on canonical segmentations only, gives almost nothing to
what follows " per" here. It then rarely draws s* itself, which holds most of p(x), and
mean(w) falls far below p(s*), the lower bound of what it estimates (the segmentation
chapter measures it against exact sums). Two changes, written for this report, fix this (Chirkova et al. 2023,
"Should you marginalize over possible tokenizations?", counter the same myopia differently,
by drawing a block of characters' tokens at a time). The *guided* proposal mixes in the
canonical token wherever the walk stands on a boundary of s*, and a uniform draw over the
candidates C_j (the tokens that continue the string at byte offset j) everywhere:

    q(t_i | t_<i) = a [t_i = c(j)] + (1 - a) ((1 - e) p(t_i | t_<i) / Z_i + e / |C_j|),  (2')

where c(j) is the canonical token starting at j (a = 0 off s*'s boundaries),
a = stay^(1/|s*|), so that s* is drawn with probability at least ``stay``, and e =
``explore`` is the uniform share (a defensive mixture, Hesterberg 1995: SmolLM2 puts 38% of
" perplexity" on " per|plex|ity", which the restricted model, preferring " " as a first
token, almost never draws). The weight is p(s)/q(s) as in (2) with this q. The
*stratified* estimator computes the canonical term exactly and samples only the rest:

    p̂(x) = p(s*) + (1/N) sum_k w(s_k) [s_k != s*],                                 (3)

unbiased (E_q[w [s != s*]] = sum_{s != s*} p(s)) and never below p(s*). Its logarithm is
biased low (Jensen), the more so the fewer the draws: :func:`sweep` shows the estimate
against N. A bound that needs no estimate is the partial sum of (1) over s* and the distinct
segmentations drawn (:meth:`Draws.certified`): always below log p(x), and rising to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import torch
from scipy.special import logsumexp

from lmnotes.stats.inference import Estimate, interval
from lmnotes.stats.weights import log_mean, log_mean_exp

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
        self.edges = [
            [(i, L) for L in range(1, min(max_len, n - j) + 1) for i in index.get(self.data[j : j + L], ())]
            for j in range(n)
        ]
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


def segmentation_logprobs(lm, text: str, limit: int = 10_000) -> np.ndarray:
    """log p(s) of every segmentation s of ``text`` (EOS included), most probable first."""
    segs = lattices(lm, [text])[0].segmentations(limit)
    return np.sort([lp.sum() for lp in lm.score_ids(segs)])[::-1]


def exact_logmarginal(lm, text: str, limit: int = 10_000) -> tuple[float, int]:
    """log p(x) by Eq. (1), scoring every segmentation; returns it and |S(x)|."""
    lps = segmentation_logprobs(lm, text, limit)
    return float(logsumexp(lps)), len(lps)


@dataclass(frozen=True)
class Draws:
    """Importance samples of segmentations, ``[strings, samples]`` arrays, and the exact
    log-probability of each string's canonical segmentation."""

    logw: np.ndarray  # log p(s) / q(s) of each draw
    canonical: np.ndarray  # bool: the draw is the tokenizer's canonical segmentation s*
    log_canonical: np.ndarray  # [strings] log p(s*)
    logp: np.ndarray  # log p(s) of each draw (EOS included)
    tokens: np.ndarray  # object array: the token ids of each draw, a tuple

    def subset(self, columns) -> "Draws":
        """The same strings with only the draws in ``columns`` (a slice or index array)."""
        return Draws(
            self.logw[:, columns],
            self.canonical[:, columns],
            self.log_canonical,
            self.logp[:, columns],
            self.tokens[:, columns],
        )

    def logmarginal(self) -> np.ndarray:
        """log p̂(x) per string by the stratified estimator (3)."""
        return stratified(self.logw, self.canonical, self.log_canonical)

    def plain(self) -> np.ndarray:
        """log p̂(x) per string by the plain estimator, mean(w)."""
        return log_mean_exp(self.logw)

    def certified(self) -> np.ndarray:
        """A certain lower bound on log p(x) per string: log of the sum of p(s) over s* and
        the distinct segmentations drawn, a partial sum of Eq. (1) (no estimate, no bias)."""
        out = np.empty(len(self.log_canonical))
        for i, (lc, lp, toks, canon) in enumerate(
            zip(self.log_canonical, self.logp, self.tokens, self.canonical)
        ):
            seen = {t: p for t, p, c in zip(toks, lp, canon) if not c}
            out[i] = np.logaddexp(lc, logsumexp(list(seen.values()))) if seen else lc
        return out

    def best_alternative(self, i: int) -> tuple[tuple, float]:
        """The most probable non-canonical segmentation drawn for string ``i`` and its log p(s)
        (``((), -inf)`` when every draw was s*)."""
        off = np.flatnonzero(~self.canonical[i])
        if not len(off):
            return (), -np.inf
        k = off[np.argmax(self.logp[i, off])]
        return self.tokens[i, k], float(self.logp[i, k])


def stratified(logw: np.ndarray, canonical: np.ndarray, log_canonical: np.ndarray) -> np.ndarray:
    """Eq. (3): log( p(s*) + mean_k w_k [s_k != s*] ) over the last axis (``log_canonical``
    broadcast against the other axes)."""
    rest = np.where(canonical, -np.inf, logw)
    with np.errstate(divide="ignore"):  # every draw canonical: the rest estimates 0
        return np.logaddexp(log_canonical, log_mean_exp(rest))


@torch.inference_mode()
def importance_sample(
    lm,
    texts: Sequence[str],
    n_samples: int,
    seed: int = 0,
    stay: float = 0.5,
    explore: float = 0.5,
    batch_size: int = 128,
    temperature: float = 1.0,
) -> Draws:
    """``n_samples`` segmentations of each text drawn from the guided proposal (2') with
    their weights p(s)/q(s); deterministic for a seed. ``stay`` = ``explore`` = 0 gives the
    constrained proposal and the weights (2); ``stay`` in (0, 1) is the lower bound on the
    probability of drawing s* itself, ``explore`` the uniform share off s*.

    Rows (text, sample) are batched ``batch_size`` at a time with the model's key-value
    cache, one forward step per token, and a step is array arithmetic over the batch (the
    lattices are padded arrays). Rows that have spelled their string are fed padding until a
    quarter of the batch has, then leave the batch and the cache, as in
    :meth:`~lmnotes.models.base.LanguageModel.sample`.
    """
    if n_samples < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}")
    if not 0 <= stay < 1:
        raise ValueError(f"stay must lie in [0, 1), got {stay}")
    if not 0 <= explore < 1:
        raise ValueError(f"explore must lie in [0, 1), got {explore}")
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"the proposal temperature must be a positive number, got {temperature}")
    lats = lattices(lm, texts)
    too_long = [len(x) for x in lats if len(x) + 1 > lm.max_length]
    if too_long:
        raise ValueError(
            f"a string of {max(too_long)} bytes may need {max(too_long) + 1} positions "
            f"(one token per byte), more than the model's window of {lm.max_length}"
        )
    spelled_by = lm.token_bytes()
    canon_ids = [lm.encode(t) for t in texts]
    canon_at = []  # byte offset -> the canonical token that starts there
    for t, ids in zip(texts, canon_ids):
        if b"".join(spelled_by[i] or b"" for i in ids) != t.encode("utf-8"):
            raise ValueError(
                f"the tokenizer's own segmentation of {t[:40]!r} does not spell its bytes "
                "(a normalising tokenizer): it is not one of the segmentations summed"
            )
        offsets = np.cumsum([0] + [len(spelled_by[i]) for i in ids])
        canon_at.append(dict(zip(offsets[:-1].tolist(), ids)))
    log_explore = np.log(explore) if explore else -np.inf
    alpha = np.array([stay ** (1 / max(1, len(ids))) if stay else 0.0 for ids in canon_ids])
    # The lattices as padded arrays, so that a step is array arithmetic over the batch:
    # cand_id[d, j, k], cand_len[d, j, k] (k-th token matching text d at byte offset j; length
    # 0 = no token) and guide_col[d, j] (the column of the canonical token starting at j, or -1)
    n_bytes = np.array([len(x) for x in lats])
    width = max(len(e) for x in lats for e in x.edges)
    cand_id = np.full((len(texts), n_bytes.max() + 1, width), lm.pad_id)
    cand_len = np.zeros((len(texts), n_bytes.max() + 1, width), dtype=int)
    guide_col = np.full((len(texts), n_bytes.max() + 1), -1)
    for d, (x, at) in enumerate(zip(lats, canon_at)):
        for j, e in enumerate(x.edges):
            if e:
                cand_id[d, j, : len(e)], cand_len[d, j, : len(e)] = zip(*e)
            hit = np.flatnonzero(cand_id[d, j] == at.get(j, -1))
            if len(hit):
                guide_col[d, j] = hit[0]
    rows = [(d, k) for d in range(len(texts)) for k in range(n_samples)]
    logw_out = np.zeros((len(texts), n_samples))
    logp_out = np.zeros((len(texts), n_samples))
    canon_out = np.zeros((len(texts), n_samples), dtype=bool)
    tokens_out = np.empty((len(texts), n_samples), dtype=object)
    dev = lm.device
    gen = torch.Generator(device=dev).manual_seed(seed)
    for a in range(0, len(rows), batch_size):
        doc = np.array([d for d, _ in rows[a : a + batch_size]])
        smp = np.array([k for _, k in rows[a : a + batch_size]])
        pos = np.zeros(len(doc), dtype=int)
        logw, logp_s = np.zeros(len(doc)), np.zeros(len(doc))
        toks = [[] for _ in doc]
        canon = np.ones(len(doc), dtype=bool)  # every step so far took the canonical token
        capacity = int(n_bytes[doc].max()) + 1  # BOS and at most one token per byte are fed
        states, past = lm._hidden(
            torch.full((len(doc), 1), lm.bos_id, device=dev), lm._new_cache(capacity), use_cache=True
        )
        done = np.zeros(len(doc), dtype=bool)
        while True:
            logp = torch.log_softmax(lm._head(states[:, -1]).double(), dim=-1)  # [R, V]
            spelled = ~done & (pos == n_bytes[doc])
            if spelled.any():  # the string is complete: only EOS continues it; the row is done
                at = np.flatnonzero(spelled)
                eos = logp[torch.from_numpy(at).to(dev), lm.eos_id].cpu().numpy()
                logw[at] += eos
                logp_s[at] += eos
                logw_out[doc[at], smp[at]] = logw[at]
                logp_out[doc[at], smp[at]] = logp_s[at]
                canon_out[doc[at], smp[at]] = canon[at]
                for r in at:
                    tokens_out[doc[r], smp[r]] = tuple(toks[r])
                done |= spelled
            if done.all():
                break
            if done.sum() >= max(1, len(doc) // 4):  # finished rows leave the batch and the cache
                keep = np.flatnonzero(~done)
                doc, smp, pos, logw, canon, done = (
                    doc[keep],
                    smp[keep],
                    pos[keep],
                    logw[keep],
                    canon[keep],
                    done[keep],
                )
                logp_s, toks = logp_s[keep], [toks[r] for r in keep]
                logp = logp[torch.from_numpy(keep).to(dev)]
                past = lm._select_rows(past, torch.from_numpy(keep).to(dev))
            live = np.flatnonzero(~done)  # the rows still spelling; the others are fed padding
            d_, p_ = doc[live], pos[live]
            ids, lens, guide = cand_id[d_, p_], cand_len[d_, p_], guide_col[d_, p_]
            ok = lens > 0
            cand = logp[torch.from_numpy(live).to(dev)].gather(1, torch.from_numpy(ids).to(dev))
            cand = cand.masked_fill(~torch.from_numpy(ok).to(dev), -torch.inf).cpu().numpy()
            tempered = cand if temperature == 1 else cand / temperature
            logZ = logsumexp(tempered, axis=1)
            a_r = np.where(guide >= 0, alpha[d_], 0.0)
            # off the canonical token: the restricted model, mixed with a uniform draw over the
            # candidates (a defensive mixture, Hesterberg 1995) so that no continuation the
            # model prefers only later is starved
            log_off = np.logaddexp(
                np.log1p(-explore) + tempered - logZ[:, None],
                np.where(ok, log_explore - np.log(np.maximum(ok.sum(1), 1))[:, None], -np.inf),
            )
            q = (1 - a_r)[:, None] * np.exp(log_off)
            on = np.flatnonzero(guide >= 0)
            q[on, guide[on]] += a_r[on]
            pick = torch.multinomial(torch.from_numpy(q).to(dev), 1, generator=gen)[:, 0].cpu().numpy()
            at = np.arange(len(live))
            # log q of the pick, computed in logs: a restricted probability may underflow
            log_rest = np.log1p(-a_r) + log_off[at, pick]
            log_q = np.where(pick == guide, np.logaddexp(np.log(np.maximum(a_r, 1e-300)), log_rest), log_rest)
            logw[live] += cand[at, pick] - log_q
            logp_s[live] += cand[at, pick]
            for r, t in zip(live, ids[at, pick].tolist()):
                toks[r].append(t)
            canon[live] &= pick == guide
            pos[live] += lens[at, pick]
            feed = np.full(len(doc), lm.pad_id)
            feed[live] = ids[at, pick]
            states, past = lm._hidden(torch.from_numpy(feed[:, None]).to(dev), past, use_cache=True)
    return Draws(logw_out, canon_out, lm.score(texts).logprob.astype(float), logp_out, tokens_out)


def ancestral(samples, texts: Sequence[str]) -> np.ndarray:
    """log p^(x) per text from unconstrained ancestral samples of the model, the proposal that
    does not peek at x: q = p over token sequences, so a draw's weight is 1 if it spells x and 0
    otherwise, and p^(x) = hits / K. -inf (with a warning, never NaN) for a text that no draw
    spelled; E[hits] = K p(x), so about 1 / p(x) draws are needed for one hit."""
    spelled = np.array([[s == t for s in samples.texts] for t in texts], dtype=bool)
    hit = spelled & np.asarray(samples.finished, dtype=bool)[None, :]
    with np.errstate(divide="ignore"):
        return log_mean(np.log(hit.astype(float)))


@dataclass(frozen=True)
class Gap:
    """The marginal's gain over the canonical segmentation, in bits per character."""

    bits_per_char: Estimate  # (log p(x) - log p(s*)) summed over strings / characters / ln 2
    per_string: np.ndarray  # log p̂(x) - log p(s*) per string, nats


def gap(
    draws: Draws, n_chars: np.ndarray, n_resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> Gap:
    """Sum over strings of log p̂(x) - log p(s*(x)) by (3), per character (``n_chars`` per
    string, EOS counted as the caller decides), in bits, with a bootstrap interval that
    resamples the strings and, within each string, its importance samples (both sources of
    error). Never negative: (3) adds the other segmentations' estimated mass to p(s*)."""
    logw, canon, logc = draws.logw, draws.canonical, draws.log_canonical
    n_chars = np.asarray(n_chars, float)
    D, N = logw.shape
    per = draws.logmarginal() - logc
    rng = np.random.default_rng(seed)
    reps = np.empty(n_resamples)
    for a in range(0, n_resamples, 100):  # batches bound the [b, D, N] index array
        b = min(100, n_resamples - a)
        docs = rng.integers(0, D, size=(b, D))
        picks = rng.integers(0, N, size=(b, D, N))
        est = stratified(logw[docs[..., None], picks], canon[docs[..., None], picks], logc[docs]) - logc[docs]
        reps[a : a + b] = est.sum(1) / n_chars[docs].sum(1) / LN2
    return Gap(interval(per.sum() / n_chars.sum() / LN2, reps, level, floor=0.0), per)


def sweep(draws: Draws, n_chars: np.ndarray, sizes: Sequence[int]) -> pd.DataFrame:
    """The gap's estimate and its certified lower bound against the number of draws N.

    For each N the draws are cut into ``total // N`` disjoint groups of N, each an independent
    run of the estimator: the estimate's mean over the groups shows its downward bias (the log
    of an unbiased estimate is biased low, by Jensen's inequality, less as N grows), its
    minimum and maximum the spread of one run. The certified bound uses the first N draws.
    Bits per character (``n_chars`` per string)."""
    n_chars = np.asarray(n_chars, float)
    total = draws.logw.shape[1]
    rows = []
    for n in sizes:
        if not 1 <= n <= total:
            raise ValueError(f"N = {n} draws asked for, but there are {total}")
        per = [
            (draws.subset(slice(g * n, (g + 1) * n)).logmarginal() - draws.log_canonical).sum()
            for g in range(total // n)
        ]
        per = np.array(per) / n_chars.sum() / LN2
        certified = (draws.subset(slice(0, n)).certified() - draws.log_canonical).sum() / n_chars.sum() / LN2
        rows.append(
            {
                "N": n,
                "runs": len(per),
                "estimate, mean": per.mean(),
                "estimate, min": per.min(),
                "estimate, max": per.max(),
                "certified lower bound": certified,
            }
        )
    return pd.DataFrame(rows).set_index("N")


def segmentation_diff(lm, a: Sequence[int], b: Sequence[int]) -> tuple[str, str]:
    """Where two segmentations (token ids) of one string differ, widened to whole
    space-delimited words, each written with ``|`` between its tokens: (" avoid|s",
    " av|o|ids"). Empty strings when they do not differ."""
    spell = lm.token_bytes()
    text = b"".join(spell[i] for i in a)
    if b"".join(spell[i] for i in b) != text:
        raise ValueError("the two token sequences spell different strings")

    def cuts(ids):
        return set(np.cumsum([len(spell[i]) for i in ids])[:-1].tolist())

    ca, cb = cuts(a), cuts(b)
    differ = sorted(ca ^ cb)
    if not differ:
        return "", ""
    start = max(text.rfind(b" ", 0, differ[0]), 0)
    end = text.find(b" ", differ[-1])
    end = len(text) if end < 0 else end

    def render(cs):
        edges = [start, *sorted(c for c in cs if start < c < end), end]
        return "|".join(text[x:y].decode("utf-8", errors="replace") for x, y in zip(edges, edges[1:]))

    return render(ca), render(cb)
