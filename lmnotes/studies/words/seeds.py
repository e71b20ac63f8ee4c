"""The family of chapter 05 at further seeds (Dudy & Bedrick 2020, Table 1; claims 2–4).

Claims 2–4 read Table 1 in pairs of models, and a pair's reading compares trained models: a
reading that one training run's luck moves is not yet a finding. :func:`table_at` gives Table
1 with every member of the family trained again at another seed (initialisation and batch
order; the same recipe, data and budget), its rows from greedy predictions on the chapter's
targets (:func:`lmnotes.studies.words.diversity.on_targets`: top-1, T1 and the perplexities;
the top-10 search is run at the first seed only), on the same resamples of the test articles
as the first, so that its pairs are paired too. The claims combine each pair over the seeds
(:func:`lmnotes.studies.words.claims.at_seeds`).
"""

from __future__ import annotations

from typing import Callable, Mapping

import pandas as pd

from lmnotes.studies.words import table1 as TAB1
from lmnotes.studies.words import targets as TG
from lmnotes.studies.words import wordstats as WS

#: What a target's run at the first seed gives its run at another: whether the segmentation
#: can decode it at all, and whether every self-trained model can (properties of the
#: segmentations, not of the weights).
FLAGS = ["decodable", "oov", "all_decodable"]


def table_at(
    members: Mapping[str, object],
    predict: Callable,
    evaluated: Mapping[str, pd.DataFrame],
    table1,
    res: WS.Resampler,
) -> pd.DataFrame:
    """``table1`` with the row of each of ``members`` (name -> the model trained at another
    seed) replaced by the :func:`lmnotes.studies.words.table1.metrics` of its greedy
    predictions ``predict(model)`` on the chapter's targets, each target's :data:`FLAGS`
    those of the member's run at the first seed (``evaluated``); its top-10 measures are NaN."""
    out = table1.copy()
    for n, lm in members.items():
        greedy = predict(lm).drop(columns=["hit10_dfs", *FLAGS], errors="ignore")
        greedy = greedy.merge(evaluated[n][TG.KEY + FLAGS], on=TG.KEY, how="inner")
        for column, value in TAB1.metrics(greedy, res).items():
            out.at[n, column] = value
    return out
