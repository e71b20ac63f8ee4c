"""Perplexity and bits per token, word, character or byte: the one place where a
log-likelihood is turned into a per-unit measure. Every chapter that reports one uses it;
the segmentation chapter is about it.

A model's log-likelihood of a text, log p(x), does not depend on how the model segments x;
a per-unit measure divides it by a count of units, and only the count does (Mielke 2019):

    nats per unit     = -log p(x) / n
    bits per unit     = -log p(x) / (n ln 2)
    perplexity / unit = exp(-log p(x) / n)

so a measure per one unit converts to any other by recovering the total, -log p(x) =
n_from x (nats per unit), and dividing by n_to: :func:`convert`. Over a corpus the totals
and counts are summed before dividing (the perplexity of the corpus, not the mean of the
documents' perplexities).

Two conventions for what is counted (:data:`CONVENTIONS`):

- ``"string"`` (Mielke 2019, footnote 2): log p(x) is the probability of x as an entire
  string, end-of-sequence included, and EOS counts as one more unit (n + 1) for every unit;
  the per-token count is the number of predictions, EOS included.
- ``"harness"`` (the common evaluation harnesses' rolling log-likelihood, e.g. the
  lm-evaluation-harness's wikitext ``word_perplexity``, ``byte_perplexity`` and
  ``bits_per_byte``): the tokens of x are scored, EOS is not; words are the
  whitespace-separated strings of the original text, bytes its UTF-8 bytes.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from lmnotes.stats.inference import Estimate, bootstrap_weights, interval, n_clusters

UNITS = ("token", "word", "char", "byte")
MEASURES = ("perplexity", "bits", "nats")
CONVENTIONS = ("string", "harness")
LN2 = math.log(2)


def _check(measure: str) -> None:
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}; use one of {list(MEASURES)}")


def from_nats(nll, n, measure: str = "perplexity"):
    """A per-unit ``measure`` from a total negative log-likelihood ``nll`` (nats) over ``n``
    units (arrays broadcast)."""
    _check(measure)
    nll, n = np.asarray(nll, dtype=float), np.asarray(n, dtype=float)
    if np.any(n <= 0):
        raise ValueError("unit counts must be positive")
    rate = nll / n
    out = np.exp(rate) if measure == "perplexity" else rate / LN2 if measure == "bits" else rate
    return float(out) if out.ndim == 0 else out


def to_nats(value, n, measure: str = "perplexity"):
    """The total negative log-likelihood (nats) behind a per-unit ``value`` over ``n`` units."""
    _check(measure)
    value, n = np.asarray(value, dtype=float), np.asarray(n, dtype=float)
    rate = np.log(value) if measure == "perplexity" else value * LN2 if measure == "bits" else value
    out = rate * n
    return float(out) if out.ndim == 0 else out


def convert(value, n_from, n_to, measure_from: str = "perplexity", measure_to: str = "perplexity"):
    """A per-unit measure over ``n_from`` units re-expressed over ``n_to`` units (Mielke 2019:
    the total negative log-likelihood is recovered and divided by the other count)."""
    return from_nats(to_nats(value, n_from, measure_from), n_to, measure_to)


def counts(scores, unit: str, convention: str = "string") -> np.ndarray:
    """Units per string of a :class:`~lmnotes.models.base.Scores` under ``convention``."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; use one of {list(UNITS)}")
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown convention {convention!r}; use one of {list(CONVENTIONS)}")
    if unit == "token":  # n_tokens counts the predictions, EOS included
        return scores.n_tokens - (convention == "harness")
    n = {"word": scores.n_words, "char": scores.n_chars, "byte": scores.n_bytes}[unit]
    return n + (convention == "string")


def logprobs(scores, convention: str = "string") -> np.ndarray:
    """log p per string under ``convention`` (with or without the EOS prediction)."""
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown convention {convention!r}; use one of {list(CONVENTIONS)}")
    if convention == "string":
        return np.asarray(scores.logprob, dtype=float)
    return np.array([lp[:-1].sum() for lp in scores.token_logprobs])


def corpus_rate(scores, unit: str, measure: str = "perplexity", convention: str = "string") -> float:
    """The corpus-level per-``unit`` measure: total log p over total units."""
    return from_nats(-logprobs(scores, convention).sum(), counts(scores, unit, convention).sum(), measure)


def group_sums(values: Sequence[float], groups: Sequence) -> np.ndarray:
    """``values`` summed within each group (groups in order of first appearance)."""
    values, groups = np.asarray(values, dtype=float), np.asarray(groups)
    if values.shape != groups.shape:
        raise ValueError(f"{len(values)} values but {len(groups)} group labels")
    _, first, inverse = np.unique(groups, return_index=True, return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=values, minlength=len(first))
    return sums[np.argsort(np.argsort(first))] if len(first) else sums


def bootstrap_rate(
    logprob: Sequence[float],
    n: Sequence[float],
    measure: str = "perplexity",
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    groups: Sequence | None = None,
) -> Estimate:
    """The corpus-level measure -sum(logprob) / sum(n) with a bootstrap interval over the
    strings, or, with ``groups`` (one label per string, e.g. its article), over the groups
    (a cluster bootstrap: sentences of one article are resampled together, as they are not
    independent). Resampled with replacement; the interval is computed on the nats scale
    and mapped through the measure, which is monotone."""
    logprob, n = np.asarray(logprob, dtype=float), np.asarray(n, dtype=float)
    if logprob.shape != n.shape or logprob.ndim != 1 or len(n) == 0:
        raise ValueError("logprob and n must be 1-D arrays of the same, positive length")
    if groups is not None:
        logprob, n = group_sums(logprob, groups), group_sums(n, groups)
    if not np.isfinite(logprob).all():
        value = from_nats(-logprob.sum(), n.sum(), measure)
        return Estimate(value, value, value)  # a zero-probability string: infinite, no interval
    W = bootstrap_weights(len(n), n_resamples, np.random.default_rng(seed))
    reps = -(W @ logprob) / (W @ n)
    est = interval(-logprob.sum() / n.sum(), reps, level, clusters=n_clusters(groups))
    low, value, high = (from_nats(x, 1.0, measure) for x in (est.low, est.value, est.high))
    return Estimate(value, low, high, clusters=est.clusters)


def paired_difference(
    logprob_a: Sequence[float],
    n_a: Sequence[float],
    logprob_b: Sequence[float],
    n_b: Sequence[float],
    measure: str = "bits",
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    groups: Sequence | None = None,
) -> Estimate:
    """Rate of model a minus rate of model b on the same strings (e.g. bits per byte), with a
    paired bootstrap interval: both rates are recomputed on each resample of the strings, or of
    ``groups`` of them, so that what the strings share (their difficulty) cancels. An interval
    that contains 0 means the data do not tell the two models apart.

    (9 parameters: the two models' log-probabilities and unit counts, the measure, and the
    bootstrap's settings and units.)
    """
    arrays = [np.asarray(x, dtype=float) for x in (logprob_a, n_a, logprob_b, n_b)]
    if groups is not None:
        arrays = [group_sums(x, groups) for x in arrays]
    la, na, lb, nb = arrays
    W = bootstrap_weights(len(na), n_resamples, np.random.default_rng(seed))
    rate = lambda lp, n: from_nats(-lp, n, measure)  # noqa: E731
    reps = rate(W @ la, W @ na) - rate(W @ lb, W @ nb)
    return interval(
        rate(la.sum(), na.sum()) - rate(lb.sum(), nb.sum()), reps, level, clusters=n_clusters(groups)
    )


def rate_table(
    scores,
    units: Sequence[str] = UNITS,
    measures: Sequence[str] = ("perplexity", "bits"),
    convention: str = "string",
    n_resamples: int = 1000,
    seed: int = 0,
    groups: Sequence | None = None,
) -> dict[str, Estimate]:
    """``{"perplexity / word": Estimate, "bits / byte": ...}``: every unit x measure of one
    model's scores, with bootstrap intervals over the strings or over ``groups`` of them
    (:func:`bootstrap_rate`)."""
    lp = logprobs(scores, convention)
    out = {}
    for unit in units:
        n = counts(scores, unit, convention)
        for measure in measures:
            out[f"{measure} / {unit}"] = bootstrap_rate(lp, n, measure, n_resamples, seed, groups=groups)
    return out
