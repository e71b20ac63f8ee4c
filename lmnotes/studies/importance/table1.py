"""The experiment behind chapter 04's version of the paper's Table 1: many independent runs of
K draws per sentence for every proposal on both switch-LMs, aggregated per sentence (Eq. 5),
over the corpus (Eq. 6), per article and per block of sentences
(:func:`lmnotes.studies.importance.switch_runs.repeated`); and the same for a model without a
latent variable, where every weight equals p(x) and the two aggregations must agree.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from lmnotes.core.progress import note
from lmnotes.report import plots
from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import cached
from lmnotes.studies.importance import switch_runs as SR


def run_names(temperatures: Sequence[float], horizons: Sequence[int]) -> list[str]:
    """The proposals of the table: no peeking, peek 1 at every temperature, the longer
    horizons, mean-field and the exact posterior."""
    return (
        [SR.NO_PEEKING]
        + [SR.peek_label(1, t) for t in temperatures]
        + [SR.peek_label(h) for h in horizons if h > 1]
        + [SR.MEAN_FIELD, SR.EXACT]
    )


@cached.remembered
def run_all(
    switch: Mapping,
    em,
    props: Mapping,
    names: Sequence[str],
    article: Sequence,
    grains: Mapping,
    grain_names: Sequence[str],
    n_runs: int,
    k_runs: int,
    seed: int,
) -> dict:
    """``runs[(model, name)]``: :func:`.switch_runs.repeated` of each proposal, seeded
    ``seed * 1000 + 500 + i`` for the i-th name, grouped by article, and for the proposals of
    ``grain_names`` also by each grouping of ``grains`` (``{name: labels}``).

    (10 parameters: the switch-LM's parts, the aggregations and the chapter's parameters of the
    runs.)
    """
    runs = {}
    for m, s in switch.items():
        for i, name in enumerate(names):
            note(f"runs {m}, {name}: {n_runs} x {k_runs} draws per sentence")
            runs[m, name] = SR.repeated(
                s,
                em,
                props[m][name],
                n_runs,
                k_runs,
                seed=seed * 1000 + 500 + i,
                groups={"article": article, **(grains if name in grain_names else {})},
            )
    return runs


def nonlatent(em, component: str, article: Sequence, n_runs: int, k_runs: int, seed: int) -> pd.DataFrame:
    """The same runs for the first component alone (a switch-LM with C = 1, no latent
    variable): the largest |error| over the runs at each level and of their difference."""
    plain = L.SwitchLM(np.ones(1), np.ones((1, 1)))
    single = em.component(0)
    plain_runs = SR.repeated(
        plain, single, L.lookahead(plain, single, 0), n_runs, k_runs, seed=seed, groups=article
    )
    return pd.DataFrame(
        {
            "instance level": [float(np.abs(plain_runs["instance"]).max())],
            "corpus level": [float(np.abs(plain_runs["corpus"]).max())],
            "instance − corpus": [float(np.abs(plain_runs["instance"] - plain_runs["corpus"]).max())],
        },
        index=pd.Index([plots.label(component)], name="non-latent LM"),
    )
