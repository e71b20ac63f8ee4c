"""The distortion chapter's (06) bootstrap of independent test sequences, and how it writes
numbers and intervals for prose and tables.

The chapter draws every percentile interval from one generator, in the order its cells run,
so that a statistic computed twice is one interval: :class:`Bootstrap` holds that generator
and a memo of the statistics several tables share. The interval is the percentile bootstrap
(Efron & Tibshirani 1993, §13.3): the 2.5 % and 97.5 % quantiles of the replicates.
"""

from __future__ import annotations

import math

import numpy as np

from lmnotes import stats
from lmnotes.report import tables


#: A number for prose (significant digits, a true minus), and an estimate with its interval,
#: "value [low, high]".
num = ci = tables.text


def grown(x: float) -> str:
    """A decay exponent's doublings (the LNRE zone) for prose: two decimals, a true minus
    sign, ∞ for a decay that reached 0."""
    return "∞" if math.isinf(x) else f"{x:.2f}".replace("-", "−")


def negated(e) -> stats.Estimate:
    """−e: the value negated and the interval's ends swapped (a deficit from an error)."""
    return stats.Estimate(-e.value, -e.high, -e.low)


def bin_estimate(row) -> stats.Estimate:
    """A bin's mean with its interval, from a row of :func:`.distortion.bin_means`."""
    return stats.Estimate(*row[["mean", "low", "high"]])


def est(value, boots) -> stats.Estimate:
    """A statistic with the percentile interval of its replicates."""
    return stats.Estimate(value, *np.quantile(boots, [0.025, 0.975]))


class Bootstrap:
    """Percentile bootstrap intervals of statistics of independent values, all drawn from one
    generator ``rng`` in the order they are asked for, and a memo (:meth:`once`) so that every
    table that shows a statistic shows the same interval."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self._once: dict = {}

    def means(self, v, n: int = 2000) -> np.ndarray:
        """Bootstrap replicates of the mean of independent values."""
        v = np.asarray(v, dtype=float)
        return v[self.rng.integers(len(v), size=(n, len(v)))].mean(1)

    def mean_ci(self, v) -> stats.Estimate:
        """The mean of independent values with its percentile bootstrap interval."""
        v = np.asarray(v, dtype=float)
        return est(float(v.mean()), self.means(v))

    def stat(self, v, fn, n: int = 2000) -> stats.Estimate:
        """A statistic of independent values with its percentile interval (``fn`` maps rows
        of resampled values to one number each)."""
        v = np.asarray(v, dtype=float)
        rows = v[self.rng.integers(len(v), size=(n, len(v)))]
        return est(float(fn(v[None])[0]), fn(rows))

    def once(self, key, make):
        """A statistic with its interval, computed once: every table that shows it shows the
        same interval."""
        if key not in self._once:
            self._once[key] = make()
        return self._once[key]

    def share_under(self, name: str, e) -> stats.Estimate:
        """The share of sequences a model underestimates (error < 0), with its interval."""
        return self.once(("share", name), lambda: self.mean_ci(e < 0))

    def mean_error(self, name: str, e) -> stats.Estimate:
        """A model's mean error (−KL), with its interval."""
        return self.once(("mean", name), lambda: self.mean_ci(e))
