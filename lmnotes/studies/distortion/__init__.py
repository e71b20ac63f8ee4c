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
PARAMETERS: dict[str, checks.Rule] = {
    "language": (checks.segmentation, "a segmentation of chapter 03's family"),
    "temperature": (checks.positive, "> 0"),
    "n_train": (checks.at_least(1), "≥ 1"),
    "n_valid": (checks.at_least(1), "≥ 1"),
    "n_test": (checks.at_least(22), "≥ 22 (two bins of more than 10)"),
    "n_real": (checks.at_least(1), "≥ 1"),
    "learners": (checks.all_of(checks.each(checks.one_of(_learners)), checks.nonempty("learner")),
                 "learners of lmnotes.studies.distortion.language.LEARNERS, at least one"),
    "learner_seeds": (checks.nonempty("seed"), "at least one seed"),
    "epochs": (checks.at_least(1), "≥ 1"),
    "data_sizes": (checks.increasing, "increasing, ≥ 1"),
    "teacher_draws": (checks.at_least(0), "≥ 0 (0: skip)"),
    "n_watch": (checks.at_least(20), "≥ 20"),
    "n_strata": (checks.at_least(2), "≥ 2"),
    "language_temperatures": (checks.all_of(checks.each(checks.positive), lambda v: None if len(v) >= 2 else "must hold at least two"),
                              "each > 0, at least two"),
    "n_train_temperature": (checks.at_least(1), "≥ 1"),
    "temperature_patience": (checks.at_least(1), "≥ 1"),
    "n_test_temperature": (checks.at_least(22), "≥ 22"),
    "n_bins": (checks.at_least(2), "≥ 2"),
    "n_perturb": (checks.at_least(1), "≥ 1"),
    "perturb_levels": (lambda v: None if v and v[0] == 0 and all(a < b for a, b in zip(v, v[1:])) else
                       "must start at 0 and be strictly increasing", "increasing, from 0"),
    "n_random": (checks.at_least(1), "≥ 1"),
    "n_reverse": (checks.at_least(1), "≥ 1"),
    "prefix_lengths": (checks.increasing, "increasing, ≥ 1"),
    "size_margin": (checks.between(0, 1), "[0, 1] (0: twice the paper's own GPT2-small → medium gain)"),
    "temperature_seeds": (checks.nonempty("seed"), "at least one seed"),
    "lnre_doublings": (checks.positive, "> 0"),
    "linear_margin": (checks.between(0, 1, open_low=True), "(0, 1]"),
    "near_zero_nats": (checks.positive, "> 0"),
    "lnre_share": (checks.between(0, 1, open_low=True), "(0, 1]"),
    "level_margin": (checks.between(0, 1, open_low=True), "(0, 1]"),
    "pretrained_language": (lambda v: None if v == "" else checks.model_of("pretrained")(v),
                            "a pretrained model, or empty to skip"),
    "n_train_pretrained": (checks.at_least(1), "≥ 1"),
    "n_test_pretrained": (checks.at_least(22), "≥ 22"),
}
