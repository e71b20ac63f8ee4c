"""Decoding strategies, and drawing tokens from them fast and exactly. Used by every chapter
that samples (tendencies, distortion, models).

Each strategy turns the model's next-token logits into the distribution it actually samples
from:

- ancestral with temperature T: softmax(logits / T) (T = 1 is the model itself);
- top-k: keep the k largest logits, renormalise (Fan et al. 2018);
- nucleus (top-p): keep the smallest set of most probable tokens whose mass reaches p,
  renormalise (Holtzman et al. 2020; Meister & Cotterell 2021, Eq. 15);
- beam: beam sampling with ``beam`` hypotheses as fairseq runs it (best of ``beam``
  ancestral samples); beam-k2: the k-of-k² variant closer to beam search. Their candidates
  are drawn from the tempered distribution (:mod:`lmnotes.models.beam`).

Temperature is applied first, then top-k, then top-p, as in Hugging Face's
``generate``. :meth:`Strategy.warp` gives the full log-distribution (for tests and
analysis); :func:`draw` samples from it without materialising it.

Why :func:`draw` is written by hand: ``torch.multinomial`` over a full vocabulary was the
bottleneck of sampling (0.53 s for 1,024 rows of 8,000 probabilities on the project's CPU,
against 0.04 s for the output layer that produced them), and a full sort for nucleus
sampling costs as much again. :func:`draw` uses inverse-CDF sampling in two levels (block
masses, then one block), one exponential pass over the vocabulary, and ``topk`` instead of a
sort; probabilities are accumulated in float64, so every token is drawn with its exact
probability up to float64 rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

STRATEGIES = ("ancestral", "top-k", "nucleus", "beam", "beam-k2")


@dataclass(frozen=True)
class Strategy:
    """A decoding strategy: ``kind`` in STRATEGIES plus its settings."""

    kind: str = "ancestral"
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    beam: int | None = None

    def __post_init__(self):
        if self.kind not in STRATEGIES:
            raise ValueError(f"unknown strategy {self.kind!r}; the strategies are {list(STRATEGIES)}")
        if not self.temperature > 0:
            raise ValueError(f"temperature must be > 0, got {self.temperature}")
        if self.kind == "top-k" and not (isinstance(self.top_k, int) and self.top_k >= 1):
            raise ValueError(f"top-k sampling needs an integer top_k >= 1, got {self.top_k!r}")
        if self.kind == "nucleus" and not (self.top_p is not None and 0 < self.top_p <= 1):
            raise ValueError(f"nucleus sampling needs 0 < top_p <= 1, got {self.top_p!r}")
        if self.kind in ("beam", "beam-k2") and not (isinstance(self.beam, int) and self.beam >= 1):
            raise ValueError(f"beam sampling needs an integer beam >= 1, got {self.beam!r}")

    def warp(self, logits: torch.Tensor, logp: torch.Tensor | None = None) -> torch.Tensor:
        """Log-probabilities [..., V] of the sampling distribution for logits [..., V].

        ``logp``, if given, is log_softmax(logits) already computed (reused when T = 1).
        """
        if logp is None or self.temperature != 1.0:
            logp = torch.log_softmax(logits.float() / self.temperature, dim=-1)
        if self.kind == "top-k":
            logp = torch.log_softmax(top_k_filter(logp, self.top_k), dim=-1)  # renormalise
        elif self.kind == "nucleus":
            logp = torch.log_softmax(nucleus_filter(logp, self.top_p), dim=-1)
        return logp


def top_k_filter(logp: torch.Tensor, k: int) -> torch.Tensor:
    """Set all but the k largest entries of the last dimension to -inf."""
    k = min(k, logp.shape[-1])
    kth = torch.topk(logp, k, dim=-1).values[..., -1:]
    return logp.masked_fill(logp < kth, float("-inf"))


def nucleus_filter(logp: torch.Tensor, p: float, first_k: int = 256) -> torch.Tensor:
    """Keep the smallest set of most probable tokens whose probability mass reaches ``p``.

    A token is kept iff the mass of the tokens strictly more probable than it (in sorted
    order) is below p; so the most probable token is always kept, and the kept set's mass is
    the first cumulative sum >= p.

    Sorting the whole vocabulary at every step dominated sampling time (a full sort of 64 x 8k
    log-probs took 40% of a nucleus sampling step on the CPU), so the ``first_k`` most
    probable tokens are found with ``topk`` first: a row whose top ``first_k`` tokens hold
    mass >= p has its whole nucleus among them, and only the other rows are sorted in full.
    """
    V = logp.shape[-1]
    flat = logp.reshape(-1, V)
    top, idx = torch.topk(flat, min(first_k, V), dim=-1)  # sorted, descending
    mass = torch.cumsum(top.exp(), dim=-1)
    # the first token beyond the top first_k is dropped iff the mass before it reaches p: the
    # same running sum, to the last bit, as the full sort's (a prefix of the same scan)
    covered = mass[:, -1] >= p
    if not bool(covered.all()):  # rows whose nucleus reaches beyond the top first_k
        rest = (~covered).nonzero()[:, 0]
        out = flat.clone()
        out[rest] = _nucleus_by_sort(flat[rest], p)
        if bool(covered.any()):
            out[covered] = _nucleus_in_top(flat[covered], top[covered], idx[covered], mass[covered], p)
        return out.reshape(logp.shape)
    return _nucleus_in_top(flat, top, idx, mass, p).reshape(logp.shape)


def _mass_before(mass: torch.Tensor) -> torch.Tensor:
    """The probability of the tokens before each one in sorted order, from the running sum
    ``mass`` (0 for the most probable token): the running sum shifted by one place."""
    return torch.cat([torch.zeros_like(mass[..., :1]), mass[..., :-1]], dim=-1)


def _nucleus_in_top(
    logp: torch.Tensor, top: torch.Tensor, idx: torch.Tensor, mass: torch.Tensor, p: float
) -> torch.Tensor:
    """The nucleus of rows [N, V] whose sorted top entries ``top`` (at ``idx``, running sum
    ``mass``) reach p."""
    out = torch.full_like(logp, float("-inf"))
    return out.scatter(-1, idx, top.masked_fill(_mass_before(mass) >= p, float("-inf")))


def _nucleus_by_sort(logp: torch.Tensor, p: float) -> torch.Tensor:
    """The nucleus of rows [N, V] by a full sort of each row."""
    sorted_logp, order = torch.sort(logp, dim=-1, descending=True)
    mass_before = _mass_before(torch.cumsum(sorted_logp.exp(), dim=-1))  # [..., V]
    drop_sorted = mass_before >= p
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
    return logp.masked_fill(drop, float("-inf"))


# --------------------------------------------------------------------------------------------
# drawing tokens


@dataclass
class Draw:
    """Tokens drawn by :func:`draw`, each with its log-probability (float64, [B, n] each)."""

    tokens: torch.Tensor  # token ids
    logprob_sampling: torch.Tensor  # under the strategy's distribution
    logprob_model: torch.Tensor  # under the model (temperature 1, no truncation)


def _block(V: int) -> int:
    """Block size of the two-level inverse CDF: a power of two near sqrt(V), so that both
    levels are short (8,000 tokens: 125 blocks of 64)."""
    return 1 << max(3, round(math.log2(max(V, 1)) / 2))


def inverse_cdf(weights: torch.Tensor, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices drawn with probability proportional to ``weights`` [B, V] (non-negative, a
    positive sum per row), one for each uniform of ``u`` [B, n] in [0, 1); and the row sums.

    Two levels: the cumulative masses of blocks of about sqrt(V) tokens locate the block
    that holds ``u`` times the total, then the cumulative sum of that block alone locates the
    token. A token of weight zero is never drawn.
    """
    B, V = weights.shape
    bs = _block(V)
    nb = -(-V // bs)
    w = F.pad(weights, (0, nb * bs - V)).view(B, nb, bs) if nb * bs != V else weights.view(B, nb, bs)
    cum = w.sum(-1).double().cumsum(-1)  # [B, nb]; blocks summed in the weights' precision
    total = cum[:, -1:]
    target = u.double() * total  # [B, n]
    # the first block whose cumulative mass exceeds the target; never past the last block
    # with mass (rounding could otherwise step onto empty padding)
    b = torch.minimum(torch.searchsorted(cum, target, right=True), (cum < total).sum(-1, keepdim=True))
    rest = target - torch.where(b > 0, cum.gather(1, (b - 1).clamp(min=0)), 0.0)
    inner = w[torch.arange(B, device=w.device)[:, None], b].double().cumsum(-1)  # [B, n, bs]
    j = torch.searchsorted(inner, rest.unsqueeze(-1), right=True).squeeze(-1)
    j = torch.minimum(j, (inner < inner[..., -1:]).sum(-1))  # the last token with weight
    return b * bs + j, total[:, 0]


def _uniform(shape, generator: torch.Generator | None, device) -> torch.Tensor:
    return torch.rand(shape, generator=generator, dtype=torch.float64, device=device)


def _nucleus(probs: torch.Tensor, p: float, first_k: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    """The nucleus of each row of ``probs`` [B, V]: (token ids [B, K], their probabilities
    [B, K], zero outside the nucleus), most probable first. Rows are searched with ``topk`` of
    growing K (x8) until the K most probable tokens hold mass >= p; a token is kept iff the
    tokens before it hold less than p (so the most probable token is always kept)."""
    B, V = probs.shape
    ids = torch.zeros((B, 0), dtype=torch.long, device=probs.device)
    kept = torch.zeros((B, 0), dtype=torch.float64, device=probs.device)
    todo, k = torch.arange(B, device=probs.device), min(first_k, V)
    while True:
        vals, idx = torch.topk(probs[todo], k)
        vals = vals.double()
        cum = vals.cumsum(-1)
        done = cum[:, -1] >= p if k < V else torch.ones(len(todo), dtype=torch.bool, device=probs.device)
        if ids.shape[1] < k:  # widen the result to this K
            ids, kept = F.pad(ids, (0, k - ids.shape[1])), F.pad(kept, (0, k - kept.shape[1]))
        rows = todo[done]
        ids[rows] = idx[done]
        kept[rows] = torch.where(cum - vals < p, vals, 0.0)[done]
        todo = todo[~done]
        if len(todo) == 0:
            return ids, kept
        k = min(V, k * 8)


def _nucleus_sorted(probs: torch.Tensor, p: float) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`_nucleus` by one full sort of every row, without a host synchronisation (for
    a CUDA graph: :mod:`lmnotes.models.graphsample`); the same tokens kept, ``V`` columns."""
    vals, ids = torch.sort(probs, dim=-1, descending=True)
    vals = vals.double()
    return ids, torch.where(vals.cumsum(-1) - vals < p, vals, 0.0)


def draw(
    logits: torch.Tensor,
    strategy: Strategy,
    n: int = 1,
    generator: torch.Generator | None = None,
    u: torch.Tensor | None = None,
    sync_free: bool = False,
) -> Draw:
    """Draw ``n`` tokens per row of ``logits`` [B, V] from ``strategy``'s distribution
    (independently, with replacement), with their log-probabilities under it and under the
    model. Equivalent to ``torch.multinomial(strategy.warp(logits).exp(), n, True)`` in
    distribution, without a full-vocabulary multinomial or sort (see the module docstring).

    ``u`` [B, n], uniforms in [0, 1) drawn in advance, replaces drawing them from
    ``generator``; ``sync_free`` finds the nucleus by a full sort instead of growing top-k
    searches, so that nothing waits for the host (a CUDA graph's step).
    """
    x = logits if logits.dtype == torch.float64 else logits.float()
    B, V = x.shape
    T = strategy.temperature
    probs = torch.softmax(x / T if T != 1.0 else x, -1)  # one fused pass over the vocabulary
    if u is None:
        u = _uniform((B, n), generator, x.device)
    if strategy.kind == "top-k":
        vals, idx = torch.topk(probs, min(strategy.top_k, V))
        j, mass = inverse_cdf(vals, u)
        tokens = idx.gather(1, j)
        lp_sampling = vals.gather(1, j).double().log() - mass.log()[:, None]
    elif strategy.kind == "nucleus":
        ids, kept = (_nucleus_sorted if sync_free else _nucleus)(probs, strategy.top_p)
        j, mass = inverse_cdf(kept, u)
        tokens = ids.gather(1, j)
        lp_sampling = kept.gather(1, j).log() - mass.log()[:, None]
    else:  # ancestral, and the candidates of beam sampling
        tokens = inverse_cdf(probs, u)[0]
        lp_sampling = probs.gather(1, tokens).double().log()
    if T == 1.0:
        lp_model = (
            lp_sampling
            if strategy.kind in ("ancestral", "beam", "beam-k2")
            else probs.gather(1, tokens).double().log()
        )
    else:
        lp_model = torch.log_softmax(x, -1).gather(1, tokens).double()
    return Draw(tokens, lp_sampling, lp_model)
