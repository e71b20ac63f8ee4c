"""Importance weights: the log of their mean and their effective sample size, unchecked (for
draws known to be finite) and checked. Segmentation chapter (03, the marginal over
segmentations) and importance-sampling chapter (04, Logan, Gardner & Singh 2020, Eq. 2).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import logsumexp


def log_mean_exp(logw: np.ndarray, axis: int = -1) -> np.ndarray:
    """log of the mean of exp(logw): the log of the importance-sampling estimate."""
    logw = np.asarray(logw, dtype=float)
    return logsumexp(logw, axis=axis) - np.log(logw.shape[axis])


def effective_sample_size(logw: np.ndarray, axis: int = -1) -> np.ndarray:
    """(sum w)^2 / sum w^2 (Kong 1992): how many independent draws the weights are worth."""
    logw = np.asarray(logw, dtype=float)
    return np.exp(2 * logsumexp(logw, axis=axis) - logsumexp(2 * logw, axis=axis))


def checked(logw) -> np.ndarray:
    logw = np.asarray(logw, dtype=float)
    if logw.ndim < 1 or logw.shape[-1] < 1:
        raise ValueError("no draws: K must be at least 1")
    if np.isnan(logw).any():
        raise ValueError("a log weight is NaN: the proposal or the model gave an undefined probability")
    if (logw == np.inf).any():
        raise ValueError(
            "a weight is infinite: the proposal drew a state it gives probability 0 "
            "(its support misses the model's)"
        )
    return logw


def log_mean(logw, axis: int = -1) -> np.ndarray:
    """log (1/K) sum_k w_k (Eq. 2), per instance; -inf (not NaN) when every weight is 0, with
    a warning (no draw explained the instance: a non-peeking proposal that never spelled it)."""
    logw = checked(logw)
    with np.errstate(divide="ignore"):
        out = log_mean_exp(logw, axis=axis)
    if np.isneginf(out).any():
        warnings.warn(
            f"{int(np.isneginf(out).sum())} instance(s) got weight 0 in every draw: "
            "their estimate is log 0 = -inf and the perplexity infinite; the proposal "
            "never drew a latent state that explains them (peek, or draw more)",
            stacklevel=2,
        )
    return out
