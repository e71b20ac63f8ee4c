"""Importance samples over segmentations kept in the shared cache (:func:`lmnotes.models.memo.cached`),
so that the segmentation chapter (03) and the importance-sampling chapter (04), which draw the
same samples, draw them once.
"""

from __future__ import annotations

from typing import Sequence

from lmnotes.core import io
from lmnotes.models import memo
from lmnotes.models.base import LanguageModel
from lmnotes.studies.segmentation import marginal

memo.register("draws", memo.SAMPLING + ("lmnotes.studies.segmentation.marginal",), cuda=memo.CUDA_SAMPLING)


def importance_sample(
    lm: LanguageModel,
    texts: Sequence[str],
    n_samples: int,
    seed: int = 0,
    stay: float = 0.5,
    explore: float = 0.5,
    batch_size: int = 128,
    temperature: float = 1.0,
) -> marginal.Draws:
    """:func:`lmnotes.studies.segmentation.marginal.importance_sample`, remembered in the shared cache."""
    texts = list(texts)
    call = [io.digest(texts), len(texts), n_samples, seed, stay, explore, batch_size, temperature]
    return memo.cached(
        "draws",
        lm,
        call,
        lambda: marginal.importance_sample(
            lm,
            texts,
            n_samples,
            seed=seed,
            stay=stay,
            explore=explore,
            batch_size=batch_size,
            temperature=temperature,
        ),
        f"{n_samples:,} importance samples for each of {len(texts):,} texts",
    )
