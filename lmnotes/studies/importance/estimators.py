"""Importance-sampling estimates of a corpus's log-probability and perplexity from the log
weights of K draws per instance, their bias corrections and their diagnostics.
Importance-sampling chapter (04, Logan, Gardner & Singh 2020).

Every function takes ``logw[n, k]`` = log p(x_n, z_nk) - log q(z_nk | x_n) for N instances
(sentences) and K draws z_nk ~ q(z | x_n) each (any latent LM: :mod:`lmnotes.studies.importance.latent` draws
them for the switch-LM, :mod:`lmnotes.studies.segmentation.marginal` for segmentations). The estimate of one
instance's probability is the mean weight (Eq. 2), unbiased for p(x_n) (Eq. 3); its log is
biased low (Eq. 4, Jensen). Over a corpus the paper's two aggregations are

    instance level (Eq. 5):  log p^_I = sum_n log (1/K) sum_k w_nk
    corpus level   (Eq. 6):  log p^_C = log (1/K) sum_k prod_n w_nk

both unbiased in probability for p(x_C) = prod_n p(x_n); p^_I is p^_C averaged over the
independent shuffles of each instance's draws (Rao-Blackwellised), so its log is biased less.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from lmnotes.stats.weights import checked, log_mean
from lmnotes.stats.weights import effective_sample_size as _ess


def instance_level(logw) -> float:
    """log p^_I(x_C), Eq. (5): the sum over instances of each instance's log mean weight."""
    return float(np.sum(log_mean(logw)))


def corpus_level(logw) -> float:
    """log p^_C(x_C), Eq. (6): draw k of every instance forms one corpus-level draw."""
    logw = checked(logw)
    return float(log_mean(logw.sum(axis=0)))


def grouped(logw, groups) -> float:
    """Between the two: instances in the same group (an article's sentences) are aggregated at
    the corpus level (Eq. 6) within the group, groups at the instance level (Eq. 5)."""
    logw = checked(logw)
    groups = np.asarray(groups)
    _, inverse = np.unique(groups, return_inverse=True)
    sums = np.zeros((inverse.max() + 1, logw.shape[1]))
    np.add.at(sums, inverse, logw)
    return float(np.sum(log_mean(sums)))


def perplexity(logprob, n_tokens) -> np.ndarray:
    """exp(-log p / T) (Eq. 1), elementwise; inf for probability 0."""
    n_tokens = np.asarray(n_tokens, dtype=float)
    if (n_tokens <= 0).any():
        raise ValueError("a perplexity needs at least one token (T_C = 0)")
    with np.errstate(over="ignore"):
        return np.exp(-np.asarray(logprob, dtype=float) / n_tokens)


def running(logw, sizes) -> np.ndarray:
    """log p^ per instance from the first K draws, for each K in ``sizes``: ``[len(sizes), N]``
    (one run's curve against K, nested as in the paper's Figs. 2-3)."""
    logw = checked(logw)
    K = logw.shape[1]
    sizes = np.asarray(sizes)
    if sizes.min() < 1 or sizes.max() > K:
        raise ValueError(f"sample sizes must lie in 1..{K}, got {sizes.min()}..{sizes.max()}")
    acc = np.logaddexp.accumulate(logw, axis=1)
    return (acc[:, sizes - 1] - np.log(sizes)).T


def runs(logw, K: int) -> np.ndarray:
    """Cut each instance's draws into disjoint runs of K: ``[N, runs, K]`` (independent runs of
    the estimator with K draws)."""
    logw = checked(logw)
    if not 1 <= K <= logw.shape[1]:
        raise ValueError(f"K = {K} draws per run asked for, but there are {logw.shape[1]}")
    R = logw.shape[1] // K
    return logw[:, : R * K].reshape(logw.shape[0], R, K)


def effective_sample_size(logw, axis: int = -1) -> np.ndarray:
    """(sum w)^2 / sum w^2 (Kong 1992), for checked weights."""
    return _ess(checked(logw), axis=axis)


def mc_variance(logw) -> np.ndarray:
    """The Monte Carlo variance of log p^ per instance from its own K draws, by the delta
    method: Var(p^)/p^2 = 1/ESS - 1/K. It is the limit of the bootstrap that resamples an
    instance's draws (with B -> infinity resamples, linearised), in closed form; like that
    bootstrap it understates the variance when a few heavy weights dominate (PSIS k^ says
    when)."""
    logw = checked(logw)
    return 1 / effective_sample_size(logw) - 1 / logw.shape[-1]


def plug_in(logw) -> np.ndarray:
    """Delta-method correction of log p^ (Maddison+ 2017; Nowozin 2018): the bias is about
    -cv^2 / (2K), with cv^2 = Var(w) / E[w]^2 estimated by K / ESS - 1, so
    log p^ + (1/ESS - 1/K) / 2."""
    return log_mean(logw) + 0.5 * mc_variance(logw)


def jackknife(logw) -> np.ndarray:
    """The jackknife correction of log p^ (JVI, Nowozin 2018), bias O(K^-2):
    K log p^_K - (K - 1)/K sum_i log p^_{K-1}^(-i). The leave-one-out sums come from prefix and
    suffix log-sum-exps, so a dominant weight costs no precision."""
    logw = checked(logw)
    K = logw.shape[-1]
    if K < 2:
        raise ValueError("the jackknife needs K >= 2 draws")
    pre = np.logaddexp.accumulate(logw, axis=-1)
    suf = np.flip(np.logaddexp.accumulate(np.flip(logw, -1), axis=-1), -1)
    pad = np.full(logw.shape[:-1] + (1,), -np.inf)
    loo = np.logaddexp(np.concatenate([pad, pre[..., :-1]], -1), np.concatenate([suf[..., 1:], pad], -1))
    loo = loo - np.log(K - 1)
    return K * log_mean(logw) - (K - 1) / K * loo.sum(-1)


def delta_bias(log1p_chi2, K) -> np.ndarray:
    """The delta method's prediction of the bias of log p^ with K draws, -chi^2 / (2K), from the
    exact chi^2(p(z|x) || q) (Maddison+ 2017, Prop. 1; Domke & Sheldon 2018)."""
    with np.errstate(over="ignore"):  # chi^2 beyond 1e308: the prediction is -inf
        return -np.expm1(np.asarray(log1p_chi2, float)) / (2 * np.asarray(K, float))


def _gpd_shape(x: np.ndarray) -> float:
    """Shape k of a generalised Pareto fitted to exceedances ``x`` (sorted, ascending) by the
    empirical-Bayes estimator of Zhang & Stephens (2009) with the weak prior of Vehtari+ (2024,
    App. C). Written here: scipy's ``genpareto.fit`` is maximum likelihood, which is unstable on
    the 20-300 largest weights PSIS fits and is not the estimator its thresholds are set for;
    arviz, which has it, would bring xarray and netCDF for one function."""
    n = len(x)
    m = 30 + int(math.sqrt(n))
    b = 1 - np.sqrt(m / (np.arange(1, m + 1) - 0.5))
    b = b / (3 * x[int(n / 4 + 0.5) - 1]) + 1 / x[-1]
    k = np.log1p(-b[:, None] * x).mean(axis=1)
    L = n * (np.log(-b / k) - k - 1)
    with np.errstate(over="ignore"):  # a far worse b gets weight 1 / inf = 0
        w = 1 / np.exp(L - L[:, None]).sum(axis=1)
    keep = w >= 10 * np.finfo(float).eps
    w = w[keep] / w[keep].sum()
    b_post = np.sum(b[keep] * w)
    k_post = np.log1p(-b_post * x).mean()
    return float((n * k_post + 10 * 0.5) / (n + 10))


def pareto_k(logw) -> np.ndarray:
    """PSIS k^ (Vehtari+ 2024) per instance: the Pareto shape of the largest
    M = ceil(min(K/5, 3 sqrt K)) weights. Above :func:`pareto_k_threshold` the weights' variance
    is too heavy-tailed for the estimate to be trusted, whatever its standard error says."""
    logw = np.atleast_2d(checked(logw))
    K = logw.shape[1]
    M = int(math.ceil(min(K / 5, 3 * math.sqrt(K))))
    if M < 5:
        raise ValueError(f"PSIS needs more draws: K = {K} leaves {M} tail weights (at least 5)")
    out = np.full(len(logw), np.nan)
    for n, row in enumerate(logw):
        tail = np.sort(row)[-(M + 1) :]
        if not np.isfinite(tail[0]) or tail[-1] - tail[0] < 1e-12:
            out[n] = -np.inf if np.isfinite(tail[0]) else np.nan  # equal weights: no tail at all
            continue
        x = np.exp(tail[1:] - tail[-1]) - np.exp(tail[0] - tail[-1])
        x = x[x > 0]  # ties with the threshold (a path drawn again) are not exceedances
        out[n] = _gpd_shape(x / x[-1]) if len(x) >= 5 else -np.inf
    return out


def pareto_k_threshold(K: int) -> float:
    """k^ above min(1 - 1/log10 K, 0.7) marks an unreliable estimate (Vehtari+ 2024, Sec. 3.2)."""
    return min(1 - 1 / math.log10(K), 0.7)


def markov_factor(alpha: float, n_tokens: float) -> float:
    """With probability at least 1 - alpha, PPL <= PPL^ * alpha^(-1/T): Markov's inequality
    P(p^ >= p / alpha) <= alpha holds for any non-negative unbiased p^, the instance-level
    product included; the factor turns the stochastic bound into a bound that holds with
    known probability."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return float(alpha ** (-1 / n_tokens))


def kglm_estimate(logw, samples_per_batch: int) -> np.ndarray:
    """What the public kglm-model code computes for an instance (``evaluate_perplexity.py``,
    branch ``acl-2020-updates``): ``logsumexp(weights) - log(samples_per_batch)``, which divides
    by the batch's sample count, not by K; too high by log(K / samples_per_batch)."""
    logw = checked(logw)
    return logsumexp(logw, axis=-1) - math.log(samples_per_batch)
