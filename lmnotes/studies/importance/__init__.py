"""Importance-sampled perplexity of latent language models (Logan, Gardner & Singh 2020):
chapter 04.

- :mod:`.estimators` instance- and corpus-level estimates (Eq. 2–6), bias corrections, diagnostics
- :mod:`.latent` a switch-LM whose marginal is exact, and its proposals
- :mod:`.components` the switch-LM's components from the shared models
- :mod:`.switch_runs` repeated runs on the switch-LM and their summaries
- :mod:`.smc` a particle filter at equal cost, beyond the paper
- :mod:`.paper` the source's own numbers (Tables 1 and 2) and the KGLM code's aggregation, quoted and transcribed
- :mod:`.switch_summary` the switch-LMs and their headline numbers
- :mod:`.divergences` each proposal's exact KL from the posterior
- :mod:`.table1` repeated runs behind the chapter's Table 1; :mod:`.aggregation` instance-
  against corpus-level estimates; :mod:`.summaries` summaries of repeated estimates
- :mod:`.curves`, :mod:`.convergence` the estimates against the number of draws (Figs. 2–3)
- :mod:`.densities` densities of repeated estimates (Fig. 4)
- :mod:`.temperature` tempered proposals; :mod:`.ranking` whether the proposals' order holds
- :mod:`.beams` beam marginalisation (Table 2); :mod:`.bias` the log-estimate's bias and PSIS
- :mod:`.coverage` the intervals' coverage in a known case; :mod:`.smc_runs` SMC against IS
- :mod:`.tokenization` tokenization as the latent variable
- :mod:`.claims` the source's claims, their forms and the cases that decide them (the claims table)

:data:`PARAMETERS` holds the ranges and allowed values of the chapter's own parameters, which
the runner checks before anything runs (:mod:`lmnotes.book.params`).
"""

from __future__ import annotations

from lmnotes.core import checks


#: The chapter's own parameters: name -> (check, what it allows).
PARAMETERS: dict[str, checks.Check] = {
    "components": checks.each(checks.model).noting("sharing one vocabulary"),
    "tokenization_models": checks.each(checks.model),
    "cache_mu": checks.positive,
    "em_iterations": checks.at_least(1),
    "stickiness": checks.between(0, 0.999),
    "temperatures": checks.all_of(checks.each(checks.positive), checks.containing(1.0)),
    "peek_horizons": checks.all_of(checks.each(checks.at_least(0)), checks.containing(0, 1, 2)),
    "n_runs": checks.at_least(2),
    "k_runs": checks.at_least(2),
    "k_max": checks.at_least(100),
    "beam_sizes": checks.increasing,
    "n_words": checks.at_least(1),
    "word_letters": checks.Check(
        lambda v: (
            None if len(v) == 2 and 1 <= v[0] <= v[1] else "must be [fewest, most] letters, 1 ≤ fewest ≤ most"
        ),
        "[fewest, most], 1 ≤ fewest",
    ),
    "n_is": checks.at_least(2),
    "n_ancestral": checks.at_least(1),
    "sentence_models": checks.each(checks.model),
    "n_sentences_tokenization": checks.at_least(1),
    "max_sentence_bytes": checks.at_least(1),
    "k_reference": checks.at_least(100),
    "tok_runs": checks.at_least(2),
    "n_coverage": checks.at_least(10),
    "block_sizes": checks.all_of(checks.increasing, checks.starting_at(1).noting("sentences")),
    "n_tau_grid": checks.at_least(3),
    "law_stickiness": checks.all_of(checks.each(checks.between(0, 0.999)), checks.nonempty("ρ")),
    "n_law_sentences": checks.at_least(0).noting("0: all"),
    "n_smc_runs": checks.at_least(2),
    "converged_gap": checks.between(0, 1, open_low=True),
    "bias_removed": checks.between(0, 1, open_low=True),
    "overlap_shared": checks.between(0, 1, open_low=True),
    "approx_share": checks.between(0, 1, open_low=True),
    "tau_tolerance": checks.between(0, 1, open_low=True),
    "beam_share_margin": checks.between(0, 100, open_low=True).noting("points"),
    "ranking_temperatures": checks.each(checks.positive).noting("may be empty"),
}
