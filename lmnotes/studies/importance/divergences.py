"""How far each proposal is from the posterior: the exact KL(p(z|x) ‖ q) and
log(1 + χ²(p(z|x) ‖ q)) per sentence (:func:`lmnotes.studies.importance.latent.divergence`),
and the share of sentences that need more than K draws by e^KL (Chatterjee & Diaconis 2018).
Chapter 04's table of its proposals.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import switch_runs as SR


def exact(props: Mapping, models: Sequence[str], names: Sequence[str]) -> tuple[dict, dict]:
    """``kl[(model, name)]`` and ``chi[(model, name)]`` (log(1 + χ²)) per sentence of each
    proposal ``props[model][name]`` from the exact posterior."""
    kl, chi = {}, {}
    for m in models:
        for name in names:
            kl[m, name], chi[m, name] = L.divergence(props[m][SR.EXACT], props[m][name])
    return kl, chi


def table(kl: Mapping, models: Sequence[str], names: Sequence[str], k_max: int) -> pd.DataFrame:
    """The mean KL per sentence (nats) and the share of sentences with e^KL > ``k_max``, a row
    per proposal, a column of each per model."""
    beyond = {k: float(np.mean(v > np.log(k_max))) for k, v in kl.items()}
    return pd.DataFrame(
        {
            **{f"KL, {m}": [kl[m, n].mean() for n in names] for m in models},
            **{f"exp(KL) > {k_max:,}, {m}": [beyond[m, n] for n in names] for m in models},
        },
        index=pd.Index(names, name="proposal"),
    )


def values(kl: Mapping, models: Sequence[str]) -> dict:
    """What the chapter quotes about the divergences, by name, in order: means, the corpus's
    sum and the largest for no peeking on the sticky model, peek 1 and mean-field, and the
    draws a median sentence needs, e^median KL, per model."""
    out = {
        "kl_nopeek_sticky": float(kl["sticky", SR.NO_PEEKING].mean()),
        "kl_corpus_nopeek_sticky": float(kl["sticky", SR.NO_PEEKING].sum()),
        "kl_peek1_fitted": float(kl["fitted", "peek 1"].mean()),
        "kl_peek1_sticky": float(kl["sticky", "peek 1"].mean()),
        "kl_mf_sticky": float(kl["sticky", SR.MEAN_FIELD].mean()),
        "max_kl_nopeek": float(kl["sticky", SR.NO_PEEKING].max()),
    }
    # the draws a median sentence needs, without peeking and peeking one token ahead
    median = {
        (m, name): float(np.exp(np.median(kl[m, name]))) for m in models for name in (SR.NO_PEEKING, "peek 1")
    }
    out["median_k_nopeek_fitted"] = median["fitted", SR.NO_PEEKING]
    out["median_k_peek1_fitted"] = median["fitted", "peek 1"]
    out["median_k_nopeek_sticky"] = median["sticky", SR.NO_PEEKING]
    out["median_k_peek1_sticky"] = median["sticky", "peek 1"]
    return out
