"""Sequential Monte Carlo (a particle filter) for the switch-LM of :mod:`lmnotes.studies.importance.latent`: the
estimator Logan, Gardner & Singh (2020, Sec. 5) point to for tighter bounds, measured here
against plain importance sampling at equal cost. Importance-sampling chapter (04), beyond the
paper.

K particles per instance are drawn from the same Markov proposal q(z | x) as importance
sampling draws its K paths, a step at a time; each carries the weight of its path so far,

    w_t = w_{t-1} * A_{z_{t-1} z_t} e_t(z_t) / q_t(z_t | z_{t-1}).

Where the weights degenerate (effective sample size below ``resample_below`` * K), the
particles are resampled in proportion to their weights (systematic resampling) and the mean
weight is banked into the estimate. The estimate of p(x) is the product of the banked means and
the final mean weight; it is unbiased for p(x) like Eq. 2's (Del Moral 2004; Doucet & Johansen
2011, Sec. 3.5), so its log is again a stochastic lower bound (Eq. 4), but resampling keeps
the particles on paths that explain the text so far, so its variance grows with the length of
the text far more slowly. Without resampling (``resample_below = 0``) it *is* importance
sampling. A step costs what a step of :func:`lmnotes.studies.importance.latent.draw` costs, plus the
resampling.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from lmnotes.studies.importance import latent as L


def _systematic(log_w: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Ancestor indices ``[M, K]`` for M weight vectors ``log_w [M, K]`` (systematic
    resampling, one uniform ``u [M]`` per vector). The rows' cumulative sums are laid end to end
    (row m spans [m, m + 1]) so that one sorted search serves every row."""
    M, K = log_w.shape
    p = np.exp(log_w - logsumexp(log_w, axis=1, keepdims=True))
    cum = np.cumsum(p, axis=1)
    cum[:, -1] = 1.0  # rounding must not leave a position past the last particle
    offset = np.arange(M)[:, None]
    pos = (u[:, None] + np.arange(K)[None, :]) / K + offset  # in [m, m + 1)
    flat = np.searchsorted((cum + offset).ravel(), pos.ravel(), side="right")
    return np.minimum(flat.reshape(M, K) - offset * K, K - 1)


def smc(
    model: L.SwitchLM,
    em: L.Emissions,
    q: L.Chain,
    n_particles: int,
    n_runs: int = 1,
    seed: int = 0,
    resample_below: float = 0.5,
    max_elements: int = 1 << 20,
) -> np.ndarray:
    """``n_runs`` independent particle filters of ``n_particles`` particles per instance,
    proposing from ``q``; returns log p^(x) per instance and run, ``[N, n_runs]``.
    Deterministic for a seed."""
    model._check(em)
    if int(n_particles) != n_particles or n_particles < 1:
        raise ValueError(f"the number of particles K must be a positive whole number, got {n_particles}")
    if int(n_runs) != n_runs or n_runs < 1:
        raise ValueError(f"the number of runs must be a positive whole number, got {n_runs}")
    if not 0 <= resample_below <= 1:
        raise ValueError(f"resample_below (a share of K) must lie in [0, 1], got {resample_below}")
    L._check_support(model, em, q)
    rng = np.random.default_rng(seed)
    N, T, C = em.shape
    R, K = int(n_runs), int(n_particles)
    inc0, inc, cdf0, cdf = L._steps(model, em, q)  # as importance sampling draws them
    out = np.zeros((N, R))
    order = np.argsort(em.lengths, kind="stable")
    block = max(1, max_elements // (R * K))
    log_K = np.log(K)
    for a in range(0, N, block):
        rows = order[a : a + block]  # ascending lengths: the rows still running are a suffix
        lengths = em.lengths[rows]
        b = len(rows)
        z = L._pick(cdf0[rows][:, None, :], rng.random((b, R * K)))  # [b, R*K]
        lw = np.take_along_axis(inc0[rows], z, 1).reshape(b, R, K)
        z = z.reshape(b, R, K)
        log_z = np.zeros((b, R))  # the banked log mean weights
        for t in range(1, lengths.max()):
            s = int(np.searchsorted(lengths, t, side="right"))  # rows[s:] have a token t
            live_w, live_z = lw[s:], z[s:]
            ess_log = 2 * logsumexp(live_w, axis=2) - logsumexp(2 * live_w, axis=2)
            need = (
                ess_log < np.log(resample_below * K) if resample_below > 0 else np.zeros(ess_log.shape, bool)
            )
            if need.any():
                sub = live_w[need]  # [M, K]
                log_z[s:][need] += logsumexp(sub, axis=1) - log_K
                anc = _systematic(sub, rng.random(len(sub)))
                live_z[need] = np.take_along_axis(live_z[need], anc, 1)
                live_w[need] = 0.0
            zf = live_z.reshape(b - s, R * K)
            flat = (np.arange(b - s)[:, None]) * C + zf  # row of the [b - s, C] blocks
            c = cdf[rows[s:], t].reshape(-1, C)[flat]  # [b - s, R*K, C]
            new = L._pick(c, rng.random((b - s, R * K)))
            live_w += inc[rows[s:], t].reshape(-1, C)[flat, new].reshape(b - s, R, K)
            live_z[...] = new.reshape(b - s, R, K)
        out[rows] = log_z + logsumexp(lw, axis=2) - log_K
    return out
