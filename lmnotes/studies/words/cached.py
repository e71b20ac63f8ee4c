"""Whole-word predictions kept in the shared cache (:func:`lmnotes.models.memo.cached`), so that
a re-run of the word-level chapter (05) with a warm cache skips the decoders.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from lmnotes.core import io
from lmnotes.models import memo
from lmnotes.models.base import LanguageModel
from lmnotes.studies.words import predict as words

memo.register("words", ("lmnotes.studies.words.predict",))


def word_predictions(lm: LanguageModel, sentences: Sequence[str], sentence_ids: Sequence[int],
                     max_steps: int = 24, dfs_depth: int = 5, exact_sentences: int = 0):
    """:func:`lmnotes.studies.words.predict.evaluate` (and, on the first ``exact_sentences`` sentences,
    :func:`lmnotes.studies.words.predict.exact_topk_hits` as column ``hit10_exact``), remembered in the
    shared cache."""
    sentences, sentence_ids = list(sentences), [int(i) for i in sentence_ids]

    def compute():
        table = words.evaluate(lm, sentences, sentence_ids, max_steps=max_steps, dfs_depth=dfs_depth)
        table["hit10_exact"] = np.nan
        if exact_sentences:
            part = table[table["sentence"].isin(sentence_ids[:exact_sentences])]
            table.loc[part.index, "hit10_exact"] = words.exact_topk_hits(
                lm, sentences[:exact_sentences], part, max_steps=max_steps)
        return table

    call = [io.digest(sentences), sentence_ids, max_steps, dfs_depth, exact_sentences]
    return memo.cached("words", lm, call, compute, f"whole-word prediction on {len(sentences):,} sentences")
