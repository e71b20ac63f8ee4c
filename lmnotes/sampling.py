"""Decoding strategies as transformations of next-token logits. Used by every chapter that
samples (tendencies, distortion, models).

Each strategy turns the model's next-token logits into the log-probabilities of the
distribution it actually samples from:

- ancestral with temperature T: softmax(logits / T) (T = 1 is the model itself);
- top-k: keep the k largest logits, renormalise (Fan et al. 2018);
- nucleus (top-p): keep the smallest set of most probable tokens whose mass reaches p,
  renormalise (Holtzman et al. 2020; Meister & Cotterell 2021, Eq. 15);
- beam: stochastic beam sampling with ``beam`` hypotheses, whose candidates are drawn from
  the tempered distribution (:mod:`lmnotes.models.beam`).

Temperature is applied first, then top-k, then top-p, as in Hugging Face's
``generate``. The warped log-probabilities give each sample's log-probability under the
sampling distribution, beside its log-probability under the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

STRATEGIES = ("ancestral", "top-k", "nucleus", "beam")


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
        if self.kind == "beam" and not (isinstance(self.beam, int) and self.beam >= 1):
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
    covered = top.exp().sum(-1) >= p
    if not bool(covered.all()):  # rows whose nucleus reaches beyond the top first_k
        rest = (~covered).nonzero()[:, 0]
        out = flat.clone()
        out[rest] = _nucleus_by_sort(flat[rest], p)
        if bool(covered.any()):
            out[covered] = _nucleus_in_top(flat[covered], top[covered], idx[covered], p)
        return out.reshape(logp.shape)
    return _nucleus_in_top(flat, top, idx, p).reshape(logp.shape)


def _nucleus_in_top(logp: torch.Tensor, top: torch.Tensor, idx: torch.Tensor, p: float) -> torch.Tensor:
    """The nucleus of rows [N, V] whose sorted top entries ``top`` (at ``idx``) reach p."""
    mass_before = torch.cumsum(top.exp(), dim=-1) - top.exp()
    out = torch.full_like(logp, float("-inf"))
    return out.scatter(-1, idx, top.masked_fill(mass_before >= p, float("-inf")))


def _nucleus_by_sort(logp: torch.Tensor, p: float) -> torch.Tensor:
    """The nucleus of rows [N, V] by a full sort of each row."""
    sorted_logp, order = torch.sort(logp, dim=-1, descending=True)
    mass_before = torch.cumsum(sorted_logp.exp(), dim=-1) - sorted_logp.exp()  # [..., V]
    drop_sorted = mass_before >= p
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
    return logp.masked_fill(drop, float("-inf"))
