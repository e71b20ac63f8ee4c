"""Statistical tendencies of generated text (Meister & Cotterell 2021): chapter 02.

- :mod:`.measures` the type–token, unigram, length and stopword tendencies, their distances
  (KS, TVD) and permutation tests, and the calibration of those tests
- :mod:`.claims` the source's claims and the rules that decide them (the claims table)

:data:`PARAMETERS` holds the ranges and allowed values of the chapter's own parameters, which
the runner checks before anything runs (:mod:`lmnotes.book.params`).
"""

from __future__ import annotations

from lmnotes.core import checks


def _strategies():
    from lmnotes.models.sampling import STRATEGIES

    return list(STRATEGIES)


#: The chapter's own parameters: name -> (check, what it allows).
PARAMETERS: dict[str, checks.Check] = {
    "strategies": checks.each(checks.one_of(_strategies, "the strategies of lmnotes.models.sampling")),
    "top_p": checks.between(0, 1, open_low=True),
    "calibration_permutations": checks.at_least(1),
    "calibration_splits": checks.at_least(1),
    "calibration_articles": checks.at_least(1),
    "beam": checks.at_least(1),
    "batch_size": checks.at_least(1),
    "max_tokens_pretrained": checks.at_least(1),
    "max_rank": checks.at_least(2),
    "rank_support": checks.at_least(2),
    "top_types": checks.at_least(1),
    "length_bins": checks.increasing,
    "power_sizes": checks.increasing,
    "power_repeats": checks.at_least(1),
    "floor_repeats": checks.at_least(1),
    "long_length": checks.at_least(1),
    "small_unigram_tvd": checks.between(0, 1, open_low=True),
    "close_length_ks": checks.between(0, 1, open_low=True),
}
