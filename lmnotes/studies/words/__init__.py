"""Word-level prediction diversity (Dudy & Bedrick 2020): chapter 05.

- :mod:`.predict` whole-word prediction from models of any segmentation
- :mod:`.cached` those predictions, kept in the shared cache
- :mod:`.wordstats` accuracy, coverage by frequency bin, with cluster intervals
- :mod:`.softmatch` soft-match accuracy with word2vec neighbours
- :mod:`.paraphrase` the paraphrase case study, with WordNet
- :mod:`.labels` the models' short names and number formats
- :mod:`.targets` which test words each model is scored on
- :mod:`.table1` the paper's Table 1: top-1 and coverage, and the pairs of models; the
  paper's own printed numbers, with their printed precision
- :mod:`.bins` accuracy and coverage by training-frequency bin (Figs. 1–2)
- :mod:`.softgain` the soft-match gains above chance (Fig. 3)
- :mod:`.table2` the paraphrase case study's tests (Table 2)
- :mod:`.authors` the paper's algorithms and the authors' public code, checked
- :mod:`.calgaps` calibration by frequency bin
- :mod:`.diversity` does tokenization cause diversity? training budget and size
- :mod:`.claims` the source's claims, each with its form and cases (the claims table), and
  the same rules on the paper's own numbers

:data:`PARAMETERS` holds the ranges and allowed values of the chapter's own parameters, which
the runner checks before anything runs (:mod:`lmnotes.book.params`).
"""

from __future__ import annotations

from lmnotes.core import checks


#: The chapter's own parameters: name -> (check, what it allows).
PARAMETERS: dict[str, checks.Check] = {
    "family": checks.all_of(checks.each(checks.segmentation), checks.nonempty("segmentation")),
    "others": checks.each(checks.model_of("self-trained")),
    "exact_models": checks.each(checks.segmentation).noting("of the family"),
    "encoder_model": checks.model_of("pretrained").noting("a transformers model"),
    "max_word_tokens": checks.at_least(1),
    "dfs_depth": checks.at_least(1),
    "soft_k": checks.increasing,
    "w2v_epochs": checks.at_least(1),
    "w2v_min_count": checks.at_least(1),
    "n_chance": checks.at_least(1),
    "n_triples": checks.at_least(2),
    "n_split_words": checks.at_least(1),
    "rare_zipf": checks.between(0, 8).noting("a Zipf frequency"),
    "common_zipf": checks.between(0, 8).noting("a Zipf frequency"),
    "similar_share": checks.between(0, 1).noting("0: from the paper's readings"),
    "size_compare": checks.each(checks.segmentation).noting("of the family"),
    "equal_points": checks.between(0, 100, open_low=True).noting("percentage points"),
    "family_seeds": checks.all_of(checks.starting_at(0), checks.ascending).noting(
        "0: the registered models' seed"
    ),
}
