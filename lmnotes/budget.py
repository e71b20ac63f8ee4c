"""How much training each self-trained neural model got: optimiser steps, tokens seen, epochs
of its own training stream, whether it stopped early, and its train–valid gap. Models chapter
(the training table) and segmentation chapter (the family's budgets, equal in tokens, not in
text).

The figures come from the model's training history (:func:`lmnotes.train.train`) and the
recipe's :class:`~lmnotes.train.TrainConfig`; the training stream is re-encoded to count its
tokens (seconds), exactly as training built it.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

from .models.trained import SIZES
from .train import TrainConfig, _blocks, _stream


def training_budget(lm, train_texts: Sequence[str], config: TrainConfig) -> dict:
    """One model's budget as a dict (see the module docstring); ``lm.history`` must be set."""
    history = getattr(lm, "history", None)
    if history is None or not len(history):
        raise ValueError(f"{lm.name} has no training history (an n-gram model, or not trained here)")
    block = min(config.block, lm.max_length)
    n_blocks = len(_blocks(_stream(lm, train_texts), block))
    per_epoch = -(-n_blocks // config.batch_size)
    planned = min(config.max_steps, per_epoch * config.max_epochs)
    steps = int(history["step"].iloc[-1])
    best = history.loc[history["valid_loss"].idxmin()]
    last = history.iloc[-1]
    return {
        "parameters": lm.n_parameters,
        "steps": steps,
        "steps planned": planned,
        "stopped early": steps < planned,
        "best step": int(best["step"]),
        "tokens seen": steps * config.batch_size * block,
        "training tokens": n_blocks * block,
        "epochs": steps * config.batch_size / n_blocks,
        "train loss, last": float(last["train_loss"]),
        "valid loss, best": float(best["valid_loss"]),
        "valid − train": float(best["valid_loss"] - last["train_loss"]),
        "valid falling at the end": bool(history["valid_loss"].iloc[-1] < history["valid_loss"].iloc[:-1].min())
        if len(history) > 1 else True,
    }


def budget_table(models: Mapping[str, object], train_texts: Sequence[str], size: str = "cpu") -> pd.DataFrame:
    """:func:`training_budget` of every model that has a history, one row each, under the
    ``size`` profile's training configuration (lmnotes.models.trained.SIZES)."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; use one of {list(SIZES)}")
    config = SIZES[size]["train"]
    rows = {name: training_budget(lm, train_texts, config) for name, lm in models.items()
            if getattr(lm, "history", None) is not None and len(lm.history)}
    return pd.DataFrame(rows).T.infer_objects()
