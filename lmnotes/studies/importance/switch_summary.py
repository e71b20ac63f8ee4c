"""The switch-LMs of chapter 04 and their headline numbers: the emissions of each split, their
size, their exact perplexities against the components', the memory of their chains, and the
gain of the latent state over a static mixture of the same components (a paired ratio of
perplexities with its interval over test articles, the cluster bootstrap of
:func:`lmnotes.stats.bootstrap_weights`).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from lmnotes import stats
from lmnotes.report import cases as lmcases
from lmnotes.stats import units
from lmnotes.studies.importance import components as CP
from lmnotes.studies.importance import latent as L
from lmnotes.report.glue import Prose
from lmnotes.studies.importance.summaries import fmt, percent


def state_gain(
    logp_fitted: np.ndarray,
    logp_static: np.ndarray,
    n_tokens: np.ndarray,
    article: Sequence,
    n_boot: int,
    seed: int,
) -> stats.Estimate:
    """1 − PPL_fitted / PPL_static (a share; positive: the state lowers the perplexity), with
    its 95% interval over test articles (``n_boot`` resamples seeded ``seed``)."""
    T = n_tokens.sum()
    W_test = stats.bootstrap_weights(len(n_tokens), n_boot, np.random.default_rng(seed), groups=article)
    d_static = logp_fitted - logp_static
    return stats.interval(
        -np.expm1(-d_static.sum() / T),
        -np.expm1(-(W_test @ d_static) / (W_test @ n_tokens)),
        clusters=stats.n_clusters(article),
    )


def state_sentence(gain: stats.Estimate) -> str:
    """What the state adds over the static mixture, in a sentence of the chapter."""
    return (
        f"So all of the gain comes from mixing: the latent *state*, which lets the component of "
        f"one token depend on the last, adds nothing detectable on top (the fitted switch-LM's "
        f"perplexity relative to the static mixture's: "
        f"{fmt(percent(stats.Estimate(-gain.value, -gain.high, -gain.low)), 2)} %"
        ", 95% interval over test articles). The fitted chain is a latent LM all the same, a mixture "
        "whose component per token must be summed out, but one whose posterior a one-token peek "
        "nearly reaches; the sticky chain below is the one with a state that matters."
        if lmcases.side("above", gain) is None
        else f"The latent *state*, which lets the component of one token depend on the last, "
        f"{'lowers' if gain.value > 0 else 'raises'} the perplexity by a further "
        f"{fmt(percent(stats.Estimate(abs(gain.value), *sorted(map(abs, (gain.low, gain.high))))), 2)} % "
        "(95% interval over test articles)."
    )


def model_values(
    lengths: np.ndarray,
    article: Sequence,
    switch: Mapping,
    static,
    stickiness: float,
    ppl_rows: Mapping,
    names: Sequence[str],
    logp: Mapping,
    logp_static: np.ndarray,
    n_tokens: np.ndarray,
    n_boot: int,
    seed: int,
) -> dict:
    """The numbers the chapter quotes about its models, by name, in the order it glues them:
    the test split's size, the chains' memory, the perplexities (``ppl_rows``: estimates by
    row name of the perplexity table) and the state's gain as a :class:`Prose` sentence.

    (12 parameters: each is a result of an earlier cell that a quoted number depends on.)
    """
    fitted = switch["fitted"]
    values = {
        "n_test_sentences": len(lengths),
        "n_test_tokens": int(n_tokens.sum()),
        "n_articles": len(set(article)),
        "memory_fitted": fitted.memory(),
        "memory_sticky": switch["sticky"].memory(),
        "rho": stickiness,
        "ppl_fitted": float(ppl_rows["switch-LM, fitted"].value),
        "ppl_sticky": float(ppl_rows["switch-LM, sticky"].value),
    }
    best_component = min(names, key=lambda n: ppl_rows[n].value)
    values["best_component"] = best_component
    values["ppl_best_component"] = float(ppl_rows[best_component].value)
    values["ppl_static"] = float(ppl_rows["static mixture (fixed weights)"].value)
    gain = state_gain(logp["fitted"], logp_static, n_tokens, article, n_boot, seed)
    values["state_sentence"] = Prose(state_sentence(gain))
    values["memory_static"] = static.memory()
    return values


SHORT_NAMES = {"wiki/transformer-word": "Transformer (word)", "wiki/kn3-word": "Kneser–Ney trigram (word)"}


def split_emissions(lms: Sequence, splits: Mapping, log_uni: np.ndarray, cache_mu: float) -> dict:
    """The switch-LM's emissions (:func:`.components.emissions`, the document cache last) of
    each split by name (``splits[name]`` has ``sentences`` and ``article_ids()``)."""
    em = {}
    for split, d in splits.items():
        per_sentence, _ = CP.emissions(lms, d.sentences, d.article_ids(), log_uni, cache_mu)
        em[split] = L.Emissions.stack(per_sentence)
    return em


def perplexity_rows(
    em,
    names: Sequence[str],
    logp: Mapping,
    logp_static: np.ndarray,
    n_tokens: np.ndarray,
    article: Sequence,
    n_boot: int,
    seed: int,
) -> dict:
    """The exact test perplexity of each component alone (by ``names``), of the static mixture
    and of each switch-LM (``logp[model]``), with 95% intervals over test articles
    (:func:`lmnotes.stats.units.bootstrap_rate`)."""
    ppl_rows = {}
    mask = L.Emissions.mask(em.lengths, em.shape[1])
    for k, name in enumerate(names):
        lp = (em.log_e[..., k] * mask).sum(1)
        ppl_rows[name] = units.bootstrap_rate(lp, n_tokens, "perplexity", n_boot, seed, groups=article)
    ppl_rows["static mixture (fixed weights)"] = units.bootstrap_rate(
        logp_static, n_tokens, "perplexity", n_boot, seed, groups=article
    )
    for m in logp:
        ppl_rows[f"switch-LM, {m}"] = units.bootstrap_rate(
            logp[m], n_tokens, "perplexity", n_boot, seed, groups=article
        )
    return ppl_rows
