"""What length and calibration explain of a learner's distortion: the per-token deficit law
and its residuals, the learner's calibration, and where its surplus mass lies. The distortion
chapter, beyond LeBrun, Sordoni & O'Donnell (2022).

A sequence's error is a sum over its tokens, error(x) = Σ_t δ_t with E_L[δ_t | x_<t] = −KL_t
≤ 0. If the expected deficit per token k does not depend on how surprising the tokens are,

    error(x) ≈ −k·|x| ≈ (k / h)·log p_L(x),

with h the language's entropy rate per token: the paper's "the rarer, the worse" would then be
"the longer, the worse", a straight line in log p_L.

- :func:`length_law` fits the two numbers k and h; :func:`residual_contrast` tests what the law
  leaves in the tail (the rarest bin's residual minus the most probable bin's, k refitted in
  every resample); :func:`curvature` tests whether the error is linear in log p_L at all;
- :func:`ratio` is the token-weighted mean Σa/Σb with an interval that resamples sequences
  (the calibration gap H_M − CE_M, per-position deficits, entropy rates), and
  :func:`independent_difference` the difference of two such statistics of independent samples;
- :func:`best_temperature` finds the temperature τ* that minimises M's cross-entropy on L's
  samples (below 1: M is too flat; above 1: too sharp);
- :func:`mass_by_bin` compares the mass that M and L put on bins of a partition of Σ*;
- :func:`decay_exponent` is the local slope −d ln P̂ / d ln N of a Good–Turing curve.

Every interval resamples sequences, the independent unit, with ``n_boot`` replicates.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmnotes.stats.inference import Estimate, bootstrap_weights


@functools.lru_cache(maxsize=4)
def _counts(n: int, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap multiplicities [n_boot, n] of n independent units, dense (the chapter tests
    many statistics of one test set with one seed: the matrix is built once and not written to)."""
    W = bootstrap_weights(n, n_boot, np.random.default_rng(seed)).toarray()
    W.flags.writeable = False
    return W


def _interval(value: float, replicates: np.ndarray) -> Estimate:
    """A statistic with the percentile interval of its replicates (kept, for differences)."""
    lo, hi = np.nanquantile(replicates, [0.025, 0.975])
    return Estimate(float(value), float(lo), float(hi), np.asarray(replicates))


def independent_difference(a: Estimate, b: Estimate) -> Estimate:
    """a − b for two statistics of independent samples, from their replicates (drawn with
    different seeds)."""
    return _interval(a.value - b.value, a.replicates - b.replicates)


@dataclass(frozen=True)
class Law:
    """error(x) ≈ −k·|x|: k the KL per token (nats), h L's entropy rate (nats per token)."""

    k: float
    h: float

    @property
    def slope(self) -> float:
        """The slope k / h of the law's line in log p_L (error ≈ slope · log p_L)."""
        return self.k / self.h

    def predict(self, lengths) -> np.ndarray:
        """The error the law expects of sequences of these lengths (EOS included)."""
        return -self.k * np.asarray(lengths, dtype=float)


def length_law(error, logp, lengths) -> Law:
    """The two numbers of the length law, from test sequences of L: k = −Σ error / Σ n and
    h = −Σ log p_L / Σ n (n counts EOS)."""
    error, logp, n = (np.asarray(a, dtype=float) for a in (error, logp, lengths))
    if not (error.shape == logp.shape == n.shape) or len(n) == 0:
        raise ValueError("error, log p_L and lengths must be non-empty and of one length")
    if not np.isfinite(error).all():
        raise ValueError("the length law needs finite errors (sequences inside L's support)")
    return Law(float(-error.sum() / n.sum()), float(-logp.sum() / n.sum()))


def residual_contrast(error, lengths, bins, n_boot: int = 2000, seed: int = 0) -> Estimate:
    """What the length law leaves in the tail: the mean residual error + k·n in the lowest bin
    (the rarest sequences) minus that in the highest, with k refitted in every resample.
    Negative: the rarest sequences are underestimated beyond their length. The law's k makes
    the residuals average zero overall, not within bins, so the contrast can take either sign."""
    error, n, bins = np.asarray(error, dtype=float), np.asarray(lengths, dtype=float), np.asarray(bins)
    low, high = bins == bins[bins >= 0].min(), bins == bins.max()

    def contrast(w):
        k = -(w @ error) / (w @ n)
        mean = lambda m: (w[..., m] @ error[m] + k * (w[..., m] @ n[m])) / w[..., m].sum(-1)  # noqa: E731
        return mean(low) - mean(high)

    return _interval(contrast(np.ones(len(error))), contrast(_counts(len(error), n_boot, seed)))


def curvature(error, x, n_boot: int = 2000, seed: int = 0, span=(0.025, 0.975)) -> Estimate:
    """Is the error linear in x = log p_L? The quadratic least-squares fit error ≈ a + b·x + c·x²
    and the relative change of its slope across the central ``span`` of x:
    2c·(x_hi − x_lo) / (b + 2c·x_mid). Zero for a straight line; 0.5: the slope at the rare end
    and the probable end differ by half the slope in the middle."""
    y, x = np.asarray(error, dtype=float), np.asarray(x, dtype=float)
    lo, hi = np.quantile(x, span)
    z = (x - (lo + hi) / 2) / (hi - lo)  # centred and scaled: the span is z in [−½, ½]
    powers = np.stack([z**p for p in range(5)], 1)  # 1, z, …, z⁴
    moments = np.stack([y, z * y, z * z * y], 1)

    def change(w):
        w = np.atleast_2d(w)
        P, M = w @ powers, w @ moments
        A = np.stack([P[:, i : i + 3] for i in range(3)], 1)  # the normal equations' matrices
        a, b, c = np.linalg.solve(A, M[..., None])[..., 0].T
        return 2 * c / b  # (slope at z = ½ − slope at z = −½) / slope at z = 0

    return _interval(change(np.ones(len(y)))[0], change(_counts(len(y), n_boot, seed)))


def ratio(numerator, denominator, n_boot: int = 2000, seed: int = 0) -> Estimate:
    """Σ numerator / Σ denominator over independent units (per-sequence sums), with the
    percentile interval of resampled units: a token-weighted mean of per-token values."""
    a, b = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    if a.shape != b.shape or len(a) == 0:
        raise ValueError("numerator and denominator need one non-empty length")
    W = _counts(len(a), n_boot, seed)
    return _interval(a.sum() / b.sum(), (W @ a) / (W @ b))


def _argmin_log(taus: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """The minimiser of each row of ``totals`` over the grid ``taus``, refined by a parabola
    through the grid minimum and its neighbours in log τ (an edge minimum stays on the edge)."""
    u = np.log(taus)
    totals = np.atleast_2d(totals)
    i = np.clip(totals.argmin(1), 1, len(u) - 2)
    y0, y1, y2 = (totals[np.arange(len(i)), i + d] for d in (-1, 0, 1))
    h = u[1] - u[0]
    denom = y0 - 2 * y1 + y2
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(denom > 0, 0.5 * h * (y0 - y2) / denom, 0.0)
    out = np.exp(u[i] + np.clip(step, -h, h))
    edge = totals.argmin(1)
    return np.where((edge == 0) | (edge == len(u) - 1), taus[edge], out)


def best_temperature(nll, taus, n_boot: int = 2000, seed: int = 0) -> Estimate:
    """τ* = argmin_τ Σ_x NLL_x(τ), the temperature at which M's cross-entropy on L's samples is
    least: ``nll`` is [sequences, τ] (each sequence's negative log-likelihood under M with its
    logits divided by τ), ``taus`` an evenly spaced grid in log τ. Below 1, sharpening M would
    help (M is too flat); above 1, flattening would (too sharp). The interval resamples
    sequences."""
    nll, taus = np.asarray(nll, dtype=float), np.asarray(taus, dtype=float)
    if nll.ndim != 2 or nll.shape[1] != len(taus) or len(taus) < 3:
        raise ValueError("nll must be [sequences, len(taus)] with at least three temperatures")
    if not np.allclose(np.diff(np.log(taus)), np.log(taus[1] / taus[0])):
        raise ValueError("the temperatures must be evenly spaced in log τ")
    return _interval(
        _argmin_log(taus, nll.sum(0))[0], _argmin_log(taus, _counts(len(nll), n_boot, seed) @ nll)
    )


def mass_by_bin(bins_m, bins_l, labels, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Where M's mass goes: P_M(B) from M's samples and P_L(B) from L's for each bin B of a
    partition of Σ* (``bins_m`` and ``bins_l`` give each sample's bin, an index of ``labels``),
    and P_M(B) − P_L(B) with an interval that resamples both sample sets independently. The
    positive differences sum to at most the total variation."""
    bins_m, bins_l = np.asarray(bins_m), np.asarray(bins_l)
    K = len(labels)
    share = lambda b: np.stack([(b == k).astype(float) for k in range(K)], 1)  # noqa: E731
    Sm, Sl = share(bins_m), share(bins_l)
    Wm, Wl = _counts(len(bins_m), n_boot, seed), _counts(len(bins_l), n_boot, seed + 1)
    bm, bl = (Wm @ Sm) / len(bins_m), (Wl @ Sl) / len(bins_l)
    pm, pl = Sm.mean(0), Sl.mean(0)
    rows = []
    for k, label in enumerate(labels):
        d = _interval(pm[k] - pl[k], bm[:, k] - bl[:, k])
        rows.append({"bin": label, "P_L(B)": pl[k], "P_M(B)": pm[k], "P_M(B) − P_L(B)": d})
    return pd.DataFrame(rows)


def decay_exponent(sizes, values, at: float, span: float = 10**0.5) -> float:
    """−d ln P̂ / d ln N between N = at / span and N = at, interpolating the curve (sizes,
    values) linearly in log-log: constant for a power law P̂ ∝ N^−α, growing like N / K for a
    fair K-faced die (P̂ ≈ e^{−N/K}). Infinite once P̂ reaches 0."""
    sizes, values = np.asarray(sizes, dtype=float), np.asarray(values, dtype=float)
    if not (sizes[0] <= at / span and at <= sizes[-1]):
        raise ValueError(f"the curve covers N = {sizes[0]:g} … {sizes[-1]:g}, not {at / span:g} … {at:g}")
    with np.errstate(divide="ignore"):
        logv = np.log(values)
    if not np.isfinite(logv).all():
        first_zero = sizes[~np.isfinite(logv)].min()
        if first_zero <= at:
            return float("inf")
    a, b = np.interp(np.log([at / span, at]), np.log(sizes), logv)
    return float(-(b - a) / np.log(span))
