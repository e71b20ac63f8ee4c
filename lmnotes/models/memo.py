"""Scores and samples kept in the shared cache, so that no chapter computes the same thing
twice and a re-run with a warm cache skips the models. Every chapter that scores or samples.

``memo.score(lm, texts, ...)`` and ``memo.sample(lm, n, strategy, ...)`` return what
:meth:`LanguageModel.score` and :meth:`LanguageModel.sample` return, from the cache
(:mod:`lmnotes.core.cache`) when the same model (its ``cache_key``: weights, dtype and
device), the same inputs and settings and the same scoring or sampling code made it before;
otherwise they compute it and store it. :func:`cached` does the same for a study's own
computation on a model (importance samples over segmentations,
:mod:`lmnotes.studies.segmentation.cached`; whole-word predictions,
:mod:`lmnotes.studies.words.cached`). A model without a ``cache_key`` (a local folder, a hub
id) is simply run.

The key covers the whole call (all strings, every setting, the batch size), so a cached
result is bit for bit what the call would compute; chapters share results by making the
same call (the models chapter and the segmentation chapter score the same test split).
"""

from __future__ import annotations

from typing import Sequence

from lmnotes.core import cache as lmcache
from lmnotes.core import codeversion, io
from lmnotes.core.remember import kept
from lmnotes.models.base import LanguageModel, Samples, Scores, cuda_precision
from lmnotes.models.sampling import Strategy

#: The modules whose edits change scores; samples also depend on the decoders (SAMPLING).
#: A study that caches its own computation on a model adds its modules (:func:`register`).
CODE = (
    "lmnotes.models.base",
    "lmnotes.models.hf",
    "lmnotes.models.neural",
    "lmnotes.models.kvcache",
    "lmnotes.core.numerics",
    "lmnotes.core.kernels",
)
SAMPLING = ("lmnotes.models.beam", "lmnotes.models.sampling")
#: The sampler that runs on CUDA alone (the CPU samples step by step): it keys only what is
#: sampled on CUDA, so that an edit to it leaves the CPU edition's samples in the cache.
CUDA_SAMPLING = ("lmnotes.models.graphsample", "lmnotes.models.static")
#: kind -> the modules that decide it on CUDA besides those of its code version
_ON_CUDA: dict[str, tuple[str, ...]] = {}


def code_version(extra: tuple[str, ...] = ()) -> str:
    import torch
    import transformers

    return codeversion.version(CODE + extra, torch.__version__, transformers.__version__)


def register(kind: str, modules: tuple[str, ...], cuda: tuple[str, ...] = ()) -> None:
    """Declare a kind of cached result computed from a model by the code of ``modules`` (and
    the scoring code, :data:`CODE`), and on CUDA also by that of ``cuda``, for :func:`cached`."""
    lmcache.register_kind(kind, lambda: code_version(modules))
    if cuda:
        _ON_CUDA[kind] = cuda


register("scores", ())
register("samples", SAMPLING, cuda=CUDA_SAMPLING)


def cached(kind: str, lm: LanguageModel, call: list, compute, what: str = ""):
    """``compute()``, kept in the shared cache under ``kind`` (:func:`register`) for model
    ``lm`` and the JSON-able description ``call`` of everything else that decides it;
    ``what`` tells the console what is being computed when it is not found there."""
    if lm.cache_key is None:
        return compute()
    # on CUDA the precision settings decide the numbers too (lmnotes.models.base.cuda_precision),
    # and the code that runs there alone
    device = lm.device.type
    if device == "cuda":
        device = [
            device,
            cuda_precision(),
            *([codeversion.version(_ON_CUDA[kind])] if kind in _ON_CUDA else []),
        ]
    key = io.digest(kind, lm.cache_key, device, call, lmcache.KINDS[kind]())
    return kept(kind, lm.name, key, compute, f"{lm.name}: {what or kind}", f"{kind}.pkl")


def score(
    lm: LanguageModel,
    texts: Sequence[str],
    temperature: float = 1.0,
    stride: int | None = None,
    batch_tokens: int | None = None,
) -> Scores:
    """:meth:`LanguageModel.score`, remembered in the shared cache."""
    texts = list(texts)
    call = [io.digest(texts), len(texts), temperature, stride, batch_tokens]
    return cached(
        "scores",
        lm,
        call,
        lambda: lm.score(texts, temperature=temperature, stride=stride, batch_tokens=batch_tokens),
        f"scoring {len(texts):,} texts",
    )


def sample(
    lm: LanguageModel,
    n: int,
    strategy: Strategy | str = "ancestral",
    max_tokens: int = 128,
    prefix: str = "",
    seed: int = 0,
    batch_size: int = 32,
    **settings,
) -> Samples:
    """:meth:`LanguageModel.sample`, remembered in the shared cache."""
    if isinstance(strategy, str):
        strategy = Strategy(strategy, **settings)
    elif settings:
        raise TypeError("give the settings inside the Strategy or pass its kind as a string")
    call = [n, repr(strategy), max_tokens, prefix, seed, batch_size]
    return cached(
        "samples",
        lm,
        call,
        lambda: lm.sample(
            n, strategy, max_tokens=max_tokens, prefix=prefix, seed=seed, batch_size=batch_size
        ),
        f"sampling {n:,} documents ({strategy.kind}, at most {max_tokens} tokens)",
    )
