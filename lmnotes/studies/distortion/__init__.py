"""Distributional distortion (LeBrun, Sordoni & O'Donnell 2022): chapter 06.

- :mod:`.language` the artificial language L, its learners and their training
- :mod:`.distortion` estimation error by target probability, over training, size, temperature
- :mod:`.deficit` what length and calibration explain of the error
- :mod:`.paper` the numbers the source prints; :mod:`.resample` the chapter's bootstrap
- :mod:`.overview` L's samples and the learners at a glance
- :mod:`.error` the error by target probability (Eq. 2); :mod:`.size` model size
- :mod:`.mass` where a learner's mass goes; :mod:`.training` the error over training
- :mod:`.data_size` more data, and which architecture uses it; :mod:`.perturbation` perturbed
  and random sequences; :mod:`.temperature` the language's temperature
- :mod:`.pretrained` a pretrained ground truth; :mod:`.control` the distillation control
- :mod:`.lengths` is rare just long?; :mod:`.calibration` too uniform?; :mod:`.lnre` the LNRE zone
- :mod:`.claims` the source's claims and the rules that decide them (the claims table)

:data:`PARAMETERS` holds the ranges and allowed values of the chapter's own parameters, which
the runner checks before anything runs (:mod:`lmnotes.book.params`).
"""

from __future__ import annotations

from lmnotes.core import checks


def _learners():
    from lmnotes.studies.distortion.language import LEARNERS

    return list(LEARNERS)


#: The chapter's own parameters: name -> (check, what it allows).
PARAMETERS: dict[str, checks.Check] = {
    "language": checks.segmentation.noting("of chapter 03's family"),
    "temperature": checks.positive,
    "n_train": checks.at_least(1),
    "n_valid": checks.at_least(1),
    "n_test": checks.at_least(22).noting("two bins of more than 10"),
    "n_real": checks.at_least(1),
    "learners": checks.all_of(
        checks.each(checks.one_of(_learners, "lmnotes.studies.distortion.language.LEARNERS")),
        checks.nonempty("learner"),
    ),
    "learner_seeds": checks.all_of(checks.nonempty("seed"), checks.ascending),
    "epochs": checks.at_least(1),
    "data_sizes": checks.increasing,
    "teacher_draws": checks.at_least(0).noting("0: skip"),
    "n_watch": checks.at_least(20),
    "n_strata": checks.at_least(2),
    "language_temperatures": checks.all_of(checks.each(checks.positive), checks.at_least_items(2)),
    "n_train_temperature": checks.at_least(1),
    "temperature_patience": checks.at_least(1),
    "n_test_temperature": checks.at_least(22),
    "n_bins": checks.at_least(2),
    "n_perturb": checks.at_least(1),
    "perturb_levels": checks.all_of(checks.starting_at(0), checks.ascending),
    "n_random": checks.at_least(1),
    "n_reverse": checks.at_least(1),
    "prefix_lengths": checks.increasing,
    "size_margin": checks.between(0, 1).noting("0: twice the paper's own GPT2-small → medium gain"),
    "temperature_seeds": checks.nonempty("seed"),
    "lnre_doublings": checks.positive,
    "linear_margin": checks.between(0, 1, open_low=True),
    "near_zero_nats": checks.positive,
    "lnre_share": checks.between(0, 1, open_low=True),
    "level_margin": checks.between(0, 1, open_low=True),
    "pretrained_language": checks.or_empty(checks.model_of("pretrained"), "skip"),
    "n_train_pretrained": checks.at_least(1),
    "n_test_pretrained": checks.at_least(22),
}
