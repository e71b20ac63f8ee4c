"""Perplexity across segmentations (Mielke 2019): chapter 03 (and the models chapter's
comparability tables; chapter 04 reuses its importance samples).

- :mod:`.comparability` when perplexities of different segmentations can be compared
- :mod:`.marginal` a string's probability summed over its segmentations, exactly or by
  importance sampling
- :mod:`.cached` those importance samples, kept in the shared cache
- :mod:`.scoreboard` every model's test score, open and closed vocabularies (chapter 01)
- :mod:`.family` one architecture over several segmentations: its table, rankings and figure
- :mod:`.closed` the closed word vocabulary's advantage, by subset of sentences and by part
- :mod:`.pretrained` the pretrained models under the two conventions, and their prefix token
- :mod:`.strides` sliding-window scoring of long documents
- :mod:`.estimates` exact sums against importance sampling, and the sweep over draws
- :mod:`.claims` the source's claims and the rules that decide them (the claims table)

:data:`PARAMETERS` holds the ranges and allowed values of the chapter's own parameters, which
the runner checks before anything runs (:mod:`lmnotes.book.params`).
"""

from __future__ import annotations

from lmnotes.core import checks


#: The chapter's own parameters: name -> (check, what it allows).
PARAMETERS: dict[str, checks.Check] = {
    "segmentations": checks.each(checks.segmentation),
    "open_model": checks.segmentation.noting("of the family"),
    "stride_model": checks.segmentation.noting("of the family"),
    "marginal_model": checks.segmentation.noting("of the family"),
    "stride_fractions": checks.each(checks.between(0, 1, open_low=True)),
    "stride_pretrained_window": checks.at_least(2),
    "n_is_samples": checks.at_least(1),
    "is_sweep": checks.increasing,
    "n_coverage_runs": checks.at_least(2),
    "is_stay": checks.between(0, 1),
    "is_explore": checks.between(0, 1),
    "max_marginal_bytes": checks.at_least(1),
    "negligible_share": checks.between(0, 1, open_low=True),
    "negligible_share_alt": checks.between(0, 1, open_low=True),
}
