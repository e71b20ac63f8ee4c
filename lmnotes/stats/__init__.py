"""Shared statistics: distances, permutation tests and bootstrap intervals (:mod:`.inference`,
whose names this package re-exports: ``stats.interval``, ``stats.Estimate``), cluster
intervals and tests (:mod:`.clusters`), rates per token, word, character and byte with their
intervals (:mod:`.units`), Zipf and Heaps fits (:mod:`.laws`), and importance weights
(:mod:`.weights`). Imports :mod:`lmnotes.text` and :mod:`lmnotes.core` at most.
"""

from lmnotes.stats.inference import (
    ks_distance,
    tvd,
    one_hot,
    ks_two_sample,
    bootstrap_weights,
    Estimate,
    interval,
    excess,
    bootstrap_streams,
    bootstrap_distance,
    PermutationResult,
    permutation_test,
    stars,
    ols,
    bootstrap_ols,
    Z95,
    FEW_CLUSTERS,
    n_clusters,
    fewest,
    quantile,
    printed,
    unpaired,
    difference,
    bonferroni,
    scaled,
)
