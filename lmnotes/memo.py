"""Scores, samples and importance samples kept in the shared cache, so that no chapter
computes the same thing twice and a re-run with a warm cache skips the models. Every chapter
that scores or samples.

``memo.score(lm, texts, ...)`` and ``memo.sample(lm, n, strategy, ...)`` return what
:meth:`LanguageModel.score` and :meth:`LanguageModel.sample` return, from the cache
(:mod:`lmnotes.cache`) when the same model (its ``cache_key``: weights, dtype and device), the
same inputs and settings and the same scoring or sampling code made it before; otherwise
they compute it and store it. ``memo.importance_sample`` does the same for
:func:`lmnotes.marginal.importance_sample` (the segmentation chapter's marginal over
segmentations), and ``memo.word_predictions`` for the whole-word decoders of
:mod:`lmnotes.words` (the word-level chapter). A model without a ``cache_key`` (a local
folder, a hub id) is simply run.

The key covers the whole call (all strings, every setting, the batch size), so a cached
result is bit for bit what the call would compute; chapters share results by making the
same call (the models chapter and the segmentation chapter score the same test split).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

import numpy as np

from . import cache as lmcache
from . import io, marginal, words
from .progress import duration, note
from .models.base import LanguageModel, Samples, Scores
from .sampling import Strategy

#: The code whose edits change scores (relative to the package); samples also depend on the
#: decoders (SAMPLING), importance samples on lmnotes.marginal as well.
CODE = ("models/base.py", "models/hf.py", "models/neural.py", "models/kvcache.py", "numerics.py")
SAMPLING = ("models/beam.py", "sampling.py")


def code_version(extra: tuple[str, ...] = ()) -> str:
    import torch
    import transformers

    here = Path(__file__).resolve().parent
    return io.digest([io.file_digest(here / f) for f in CODE + extra], torch.__version__, transformers.__version__)


#: The code version of each kind.
VERSIONS = {"scores": code_version, "samples": lambda: code_version(SAMPLING),
            "draws": lambda: code_version(SAMPLING + ("marginal.py",)),
            "words": lambda: code_version(("words.py",))}
for _kind, _version in VERSIONS.items():
    lmcache.register_kind(_kind, _version)


def _cached(kind: str, lm: LanguageModel, call: list, compute, what: str = ""):
    """``compute()``, kept in the shared cache under ``kind``; ``what`` tells the console
    what is being computed when it is not found there."""
    if lm.cache_key is None:
        return compute()
    key = io.digest(kind, lm.cache_key, lm.device.type, call, VERSIONS[kind]())

    def build(folder: Path):
        t0 = time.perf_counter()
        note(f"{lm.name}: {what or kind} ...")
        value = compute()
        note(f"{lm.name}: {what or kind} done in {duration(time.perf_counter() - t0)}")
        io.write_pickle(folder / f"{kind}.pkl", value)
        return value

    return lmcache.fetch(kind, lm.name, key, build, lambda folder: io.read_pickle(folder / f"{kind}.pkl"))


def score(lm: LanguageModel, texts: Sequence[str], temperature: float = 1.0, stride: int | None = None,
          batch_tokens: int | None = None) -> Scores:
    """:meth:`LanguageModel.score`, remembered in the shared cache."""
    texts = list(texts)
    call = [io.digest(texts), len(texts), temperature, stride, batch_tokens]
    return _cached("scores", lm, call, lambda: lm.score(texts, temperature=temperature, stride=stride,
                                                         batch_tokens=batch_tokens),
                   f"scoring {len(texts):,} texts")


def sample(lm: LanguageModel, n: int, strategy: Strategy | str = "ancestral", max_tokens: int = 128,
           prefix: str = "", seed: int = 0, batch_size: int = 32, **settings) -> Samples:
    """:meth:`LanguageModel.sample`, remembered in the shared cache."""
    if isinstance(strategy, str):
        strategy = Strategy(strategy, **settings)
    elif settings:
        raise TypeError("give the settings inside the Strategy or pass its kind as a string")
    call = [n, repr(strategy), max_tokens, prefix, seed, batch_size]
    return _cached("samples", lm, call, lambda: lm.sample(n, strategy, max_tokens=max_tokens, prefix=prefix,
                                                          seed=seed, batch_size=batch_size),
                   f"sampling {n:,} documents ({strategy.kind}, at most {max_tokens} tokens)")


def importance_sample(lm: LanguageModel, texts: Sequence[str], n_samples: int, seed: int = 0, stay: float = 0.5,
                      explore: float = 0.5, batch_size: int = 128, temperature: float = 1.0) -> marginal.Draws:
    """:func:`lmnotes.marginal.importance_sample`, remembered in the shared cache."""
    texts = list(texts)
    call = [io.digest(texts), len(texts), n_samples, seed, stay, explore, batch_size, temperature]
    return _cached("draws", lm, call, lambda: marginal.importance_sample(
        lm, texts, n_samples, seed=seed, stay=stay, explore=explore, batch_size=batch_size,
        temperature=temperature),
        f"{n_samples:,} importance samples for each of {len(texts):,} texts")


def word_predictions(lm: LanguageModel, sentences: Sequence[str], sentence_ids: Sequence[int],
                     max_steps: int = 24, dfs_depth: int = 5, exact_sentences: int = 0):
    """:func:`lmnotes.words.evaluate` (and, on the first ``exact_sentences`` sentences,
    :func:`lmnotes.words.exact_topk_hits` as column ``hit10_exact``), remembered in the
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
    return _cached("words", lm, call, compute, f"whole-word prediction on {len(sentences):,} sentences")
