"""Speed of the switch-LM's importance sampling (``lmnotes.studies.importance.latent.draw``), measured in one run.

Run by hand (not in CI):
    .venv/bin/python bench/switch_is_speed.py --sentences 1790 --draws 1000

The importance-sampling chapter draws millions of latent paths per proposal. After one scoring
pass of the component models, a draw is array arithmetic over the ``[N, T, C]`` emissions.
This script times, on the same synthetic emissions with the test split's sentence lengths
(or any ``--sentences`` of lengths drawn like them) and C = 3 states:

- ``draw``: the library's sampler (the cdf of every proposal row and every weight increment
  computed once, blocks of instances sorted by length, only the rows still running advance);
- ``naive``: the straightforward vectorised sampler, written here as the reference: each
  step gathers the proposal rows of every path, exponentiates and accumulates them, draws,
  and adds log A + log e - log q, over all instances padded to the longest;
- the exact forward algorithm (one pass gives log p(x) for every sentence).

It prints paths per second and the ratio of ``draw`` to ``naive``; both give weights with
the same distribution (the check at the end compares their means per sentence).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lmnotes.studies.importance import latent as L


def naive_draw(model: L.SwitchLM, em: L.Emissions, q: L.Chain, K: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    N, T, C = em.shape
    r = np.arange(N)[:, None]
    log_pi, log_A = np.log(model.pi), np.log(model.A)
    lw = np.zeros((N, K))
    z = np.zeros((N, K), dtype=np.intp)
    for t in range(T):
        lq = np.broadcast_to(q.log_init[:, None, :], (N, K, C)) if t == 0 else q.log_trans[:, t][r, z]
        cdf = np.cumsum(np.exp(lq), axis=-1)
        u = (1.0 - rng.random((N, K)))[..., None] * cdf[..., -1:]
        new = (u > cdf[..., :-1]).sum(-1)
        step = (
            (log_pi[new] if t == 0 else log_A[z, new])
            + em.log_e[:, t][r, new]
            - np.take_along_axis(lq, new[..., None], -1)[..., 0]
        )
        live = (t < em.lengths)[:, None]
        lw += np.where(live, step, 0.0)
        z = np.where(live, new, z)
    return lw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=1790)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    # lengths like the test split's sentences (mean 28 tokens, a long tail)
    lengths = np.clip(rng.gamma(2.2, 12.8, size=args.sentences).astype(int) + 1, 1, 130)
    log_e = np.log(rng.dirichlet(np.ones(200), size=(args.sentences, lengths.max(), 3))[..., 0])
    em = L.Emissions(log_e, lengths)
    model = L.SwitchLM(
        np.array([0.3, 0.6, 0.1]), np.array([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    )
    q = L.lookahead(model, em, 1)
    paths = args.sentences * args.draws
    print(
        f"{args.sentences:,} sentences (mean {lengths.mean():.1f} tokens), {args.draws:,} draws each, C = 3"
    )
    t0 = time.perf_counter()
    model.logprob(em)
    t_fwd = time.perf_counter() - t0
    t0 = time.perf_counter()
    fast = L.draw(model, em, q, args.draws, seed=args.seed)
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = naive_draw(model, em, q, args.draws, seed=args.seed)
    t_slow = time.perf_counter() - t0
    print(f"forward algorithm (exact log p of every sentence): {t_fwd:.2f} s")
    print(f"draw : {t_fast:6.2f} s, {paths / t_fast:12,.0f} paths/s")
    print(f"naive: {t_slow:6.2f} s, {paths / t_slow:12,.0f} paths/s")
    print(f"ratio draw / naive: {t_slow / t_fast:.1f}x")
    gap = np.abs(fast.mean(1) - slow.mean(1)) / np.sqrt(
        fast.var(1) / args.draws + slow.var(1) / args.draws + 1e-300
    )
    print(
        f"check: mean log w per sentence agrees within 4 standard errors for {np.mean(gap < 4):.1%} of sentences"
    )


if __name__ == "__main__":
    main()
