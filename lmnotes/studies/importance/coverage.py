"""How well do the chapter's intervals over test articles cover? A known case for chapter 04:
the population is the articles of the validation and test splits with the fitted switch-LM's
exact perplexity; a simulated test split draws as many articles as the real one holds, and
its 95% interval from the cluster bootstrap (:func:`lmnotes.stats.bootstrap_weights`,
:func:`lmnotes.stats.interval`, with the small-cluster reference of as many articles) is built
as the chapter builds its own. With few, unequal clusters the normal interval is known to be
too narrow (Cameron, Gelbach & Miller 2008); the simulation shows what the reference mends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from lmnotes import stats


@dataclass
class Coverage:
    """The simulated coverage: ``cover`` the share of intervals that hold the population's
    perplexity, ``half`` the half-width of its 95% (normal) interval, ``n_draw`` articles per
    simulated split out of ``n_population``."""

    cover: float
    half: float
    n_draw: int
    n_population: int


def simulate(
    logp: np.ndarray,
    tokens: np.ndarray,
    articles: Sequence,
    n_draw: int,
    n_coverage: int,
    n_boot: int,
    seed: int,
) -> Coverage:
    """``n_coverage`` simulated test splits of ``n_draw`` articles drawn with replacement from
    the population (sentences' exact ``logp`` and ``tokens``, labelled by ``articles``), each
    with its interval from ``n_boot`` resamples; the random stream is seeded ``[seed, 10]``."""
    pop_ids, pop_of = np.unique(articles, return_inverse=True)
    lp_a = np.bincount(pop_of, logp)  # per article: log p and tokens
    tok_a = np.bincount(pop_of, tokens)
    true_ppl = np.exp(-lp_a.sum() / tok_a.sum())
    rng_cov = np.random.default_rng([seed, 10])
    covered = []
    for _ in range(n_coverage):
        pick = rng_cov.integers(len(pop_ids), size=n_draw)  # a simulated test split
        W_sim = stats.bootstrap_weights(n_draw, n_boot, rng_cov)
        est = stats.interval(
            np.exp(-lp_a[pick].sum() / tok_a[pick].sum()),
            np.exp(-(W_sim @ lp_a[pick]) / (W_sim @ tok_a[pick])),
            clusters=n_draw,
        )
        covered.append(est.low <= true_ppl <= est.high)
    cover = float(np.mean(covered))
    return Coverage(cover, stats.Z95 * np.sqrt(cover * (1 - cover) / n_coverage), n_draw, len(pop_ids))


def table(cov: Coverage) -> pd.DataFrame:
    """The nominal and the simulated coverage in %, with the latter's 95% interval."""
    cover, cover_half = cov.cover, cov.half
    return pd.DataFrame(
        {
            "nominal": [95.0],
            "actual": [stats.Estimate(100 * cover, 100 * (cover - cover_half), 100 * (cover + cover_half))],
        },
        index=pd.Index([f"{cov.n_draw} articles of {cov.n_population}"], name="simulated test split"),
    )


def population(
    logp_valid: np.ndarray,
    logp_test: np.ndarray,
    tokens_valid: np.ndarray,
    tokens_test: np.ndarray,
    articles_valid: Sequence,
    articles_test: Sequence,
) -> tuple:
    """The population of :func:`simulate`: the sentences of the validation and test splits,
    their exact log p and tokens, and article labels kept apart by split."""
    pop_logp = np.concatenate([logp_valid, logp_test])
    pop_tokens = np.concatenate([tokens_valid, tokens_test]).astype(float)
    pop_article = np.concatenate(
        [[f"valid {a}" for a in articles_valid], [f"test {a}" for a in articles_test]]
    )
    return pop_logp, pop_tokens, pop_article
