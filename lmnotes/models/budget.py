"""How much training each self-trained neural model got: optimiser steps, tokens seen, epochs
of its own training stream, whether it stopped early, and its train–valid gap. Models chapter
(the training table) and segmentation chapter (the family's budgets, equal in tokens, not in
text). :func:`at_epochs` trains a registered recipe for a number of epochs of its own stream
instead, so that a family can be compared at equal text seen; :func:`at_quality` stops that
run at a validation bits per byte, a probe of where a member reaches a common quality, and
:func:`at_level` trains the member on the shortest schedule of its own whose annealed end
reaches that quality, so that it can be compared at equal quality with weights that finished
their schedule (word-level chapter).

The figures come from the model's training history (:func:`lmnotes.models.train.train`) and the
recipe's :class:`~lmnotes.models.train.TrainConfig`; the training stream is re-encoded to count its
tokens (seconds), exactly as training built it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, replace
from typing import Mapping, NamedTuple, Sequence

import pandas as pd

from lmnotes.core import io
from lmnotes.text import segment as seglib
from lmnotes.models.base import LanguageModel, ModelError
from lmnotes.models.trained import SIZES, Recipe, on_ids
from lmnotes.models.train import TrainConfig, _blocks, _stream, lr_factor


#: Updates between evaluations of a run stopped at a quality (:func:`at_quality`).
EVAL_EVERY = 10


def training_budget(
    lm, train_texts: Sequence[str], config: TrainConfig, valid_texts: Sequence[str] = ()
) -> dict:
    """One model's budget as a dict (see the module docstring); ``lm.history`` must be set.
    With ``valid_texts`` (the validation split it was trained with), the best validation
    loss also in bits per byte (``valid bits per byte``): nats per token times the split's
    tokens over its bytes (a separator byte per text, as the token stream has one), over
    ln 2, which compares models that cut the text differently, if their vocabulary is open;
    a closed one predicts ``<unk>`` instead of spelling a word out, so it gets NaN."""
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
        # the schedule at the last update made, and its factors summed over the updates made
        "learning rate at stop": lr_factor(steps, config.warmup, planned),
        "Σ learning rate": float(sum(lr_factor(s, config.warmup, planned) for s in range(steps))),
        "best step": int(best["step"]),
        "tokens seen": steps * config.batch_size * block,
        "training tokens": n_blocks * block,
        "epochs": steps * config.batch_size / n_blocks,
        "train loss, last": float(last["train_loss"]),
        "valid loss, best": float(best["valid_loss"]),
        "valid − train": float(best["valid_loss"] - last["train_loss"]),
        "valid falling at the end": bool(
            history["valid_loss"].iloc[-1] < history["valid_loss"].iloc[:-1].min()
        )
        if len(history) > 1
        else True,
    } | (
        {"valid bits per byte": float(best["valid_loss"]) * bits_per_byte(lm, valid_texts)}
        if len(valid_texts)
        else {}
    )


def bits_per_byte(lm, texts: Sequence[str]) -> float:
    """What turns ``lm``'s mean loss on ``texts`` (nats per token of their training stream)
    into bits per byte: the stream's targets over the texts' bytes (a separator byte per
    text, as the stream has one), over ln 2. NaN for a closed vocabulary, which predicts
    ``<unk>`` instead of spelling a word out, so that its loss covers less than the text."""
    if not getattr(getattr(lm, "seg", None), "open_vocabulary", False):
        return math.nan
    return (len(_stream(lm, texts)) - 1) / (sum(len(t.encode()) + 1 for t in texts) * math.log(2))


def budget_table(models: Mapping[str, object], train_texts: Sequence[str], size: str = "cpu") -> pd.DataFrame:
    """:func:`training_budget` of every model that has a history, one row each, under the
    ``size`` profile's training configuration (lmnotes.models.trained.SIZES)."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; use one of {list(SIZES)}")
    config = SIZES[size]["train"]
    rows = {
        name: training_budget(lm, train_texts, config)
        for name, lm in models.items()
        if getattr(lm, "history", None) is not None and len(lm.history)
    }
    return pd.DataFrame(rows).T.infer_objects()


def epoch_config(size: str, epochs: int) -> TrainConfig:
    """The ``size`` profile's training configuration, bounded by ``epochs`` instead of steps."""
    return replace(SIZES[size]["train"], max_steps=10**9, max_epochs=epochs)


def at_epochs(
    recipe: Recipe,
    epochs: int,
    size: str = "cpu",
    seed: int = 0,
    corpus: str = "enwiki",
    device: str | None = "cpu",
    bits: float | None = None,
    eval_every: int = EVAL_EVERY,
) -> LanguageModel:
    """A neural ``recipe`` trained like the registered ``wiki/...`` models (same segmentation,
    network, optimiser, schedule and seed) but for ``epochs`` passes over its own training
    stream instead of the profile's fixed number of steps: the cosine schedule spans those
    passes, and early stopping on the validation split still applies.

    The `cpu` profile gives every segmentation the same tokens (400 steps of 16 × 128), so a
    byte model sees 0.41 of the text and an 8k BPE model 1.67 times it; at equal epochs every
    model sees every training sentence equally often, and the number of updates differs
    instead. Trained through :func:`lmnotes.models.trained.on_ids` (kept in the shared cache);
    the segmentation is trained exactly as :func:`~lmnotes.models.trained.build` trains it.
    """
    if recipe.arch not in ("lstm", "transformer"):
        raise ModelError(f"only neural models train for a number of epochs, not {recipe.arch!r}")
    if size not in SIZES:
        raise ModelError(f"unknown size {size!r}; use one of {list(SIZES)}")
    if not (isinstance(epochs, int) and epochs >= 1):
        raise ValueError(f"epochs must be a whole number of passes, at least 1, not {epochs!r}")
    if bits is not None and not (isinstance(bits, (int, float)) and bits > 0):
        raise ValueError(f"bits must be a positive number of bits per byte, not {bits!r}")
    if bits is not None and not (isinstance(eval_every, int) and eval_every >= 1):
        raise ValueError(f"eval_every must be a whole number of updates, at least 1, not {eval_every!r}")
    seg, train_texts, valid_texts, key = _prepared(recipe, corpus)
    config = epoch_config(size, epochs)
    name = f"wiki/{recipe.arch}-{recipe.segmentation}{recipe.vocab_size or ''}@{epochs}ep"
    if bits is not None:
        if not config.eval_every or config.eval_every % eval_every:
            raise ValueError(
                f"eval_every={eval_every} must divide the {size} size's evaluation interval "
                f"({config.eval_every}), so that the stopped run passes every evaluation of the whole one"
            )
        config = replace(config, eval_every=eval_every, patience=10**9)
        name += f"@{bits:.3f}bpb"
    stop = None if bits is None else _stop_loss(seg, valid_texts, bits)
    return on_ids(
        recipe.arch,
        seg,
        [seg.encode(t) for t in train_texts],
        [seg.encode(t) for t in valid_texts],
        name,
        SIZES[size][recipe.arch],
        config,
        key,
        seed=seed,
        device=device,
        stop_below=stop,
    )


def _prepared(recipe: Recipe, corpus: str) -> tuple:
    """What a run of ``recipe`` on ``corpus`` trains on: the segmentation trained exactly as
    :func:`~lmnotes.models.trained.build` trains it, the training and validation texts, and
    the key of the segmentation's data."""
    from lmnotes.text import corpus as corpora

    data = corpora.load(corpus)
    train_texts, valid_texts = data["train"].sentences, data["valid"].sentences
    seg = seglib.train(
        recipe.segmentation, train_texts, vocab_size=recipe.vocab_size, min_count=recipe.min_count
    )
    return seg, train_texts, valid_texts, io.digest("segmentation", asdict(recipe), io.digest(train_texts))


def shortened(config: TrainConfig, updates: int, planned: int) -> TrainConfig:
    """The schedule ``config`` (``planned`` updates) shortened to ``updates``: its
    warm-up the same share of its updates (at least one), its cosine reaching 0 at its end,
    evaluated there only."""
    if not 1 <= updates <= planned:
        raise ValueError(f"a shortened schedule has 1..{planned} updates, not {updates!r}")
    warmup = max(1, round(config.warmup * updates / planned))
    return replace(config, max_steps=updates, warmup=warmup, eval_every=0, patience=10**9)


class Level(NamedTuple):
    """A member at a quality (:func:`at_level`): the model, its schedule, the update at which
    its probe reached the level, and every (updates, end bits per byte) schedule tried."""

    model: LanguageModel
    config: TrainConfig
    probe_update: int
    tried: list[tuple[int, float]]


def at_level(
    recipe: Recipe,
    epochs: int,
    bits: float,
    size: str = "cpu",
    seed: int = 0,
    corpus: str = "enwiki",
    device: str | None = "cpu",
    grid: int = EVAL_EVERY,
    tolerance: float = 0.01,
) -> Level:
    """A member of a family at a quality ``bits`` (validation bits per byte), on a schedule
    that finishes there: the shortest schedule of ``epochs`` passes :func:`shortened` to a
    multiple of ``grid`` updates whose annealed end reaches ``bits``, found by bisection below
    the update at which a probe (:func:`at_quality`'s run of as many passes, evaluated every
    ``grid`` updates and stopped at ``bits``) reached it, and stopped early at a run that ends
    within ``tolerance`` bits below the level. A shortened schedule of the probe's length
    anneals but sums a smaller learning rate than the probe had there, so its end may lie
    above the level: the search then doubles, up to the whole schedule. A model that never
    reached the level is the whole schedule's, its end above ``bits``.

    (9 parameters: :func:`at_epochs`'s, the level, and the search's grid and tolerance.)
    """
    if not (isinstance(grid, int) and grid >= 1):
        raise ValueError(f"grid must be a whole number of updates, at least 1, not {grid!r}")
    probe = at_quality(
        recipe, epochs, bits, size=size, seed=seed, corpus=corpus, device=device, eval_every=grid
    )
    seg, train_texts, valid_texts, key = _prepared(recipe, corpus)
    per_byte = bits_per_byte(probe, valid_texts)
    whole = epoch_config(size, epochs)
    planned = training_budget(probe, train_texts, whole)["steps planned"]
    train_ids, valid_ids = [seg.encode(t) for t in train_texts], [seg.encode(t) for t in valid_texts]
    runs: dict[int, tuple[LanguageModel, TrainConfig, float]] = {}

    def run(updates: int) -> float:
        config = shortened(whole, updates, planned)
        name = f"wiki/{recipe.arch}-{recipe.segmentation}{recipe.vocab_size or ''}@{updates}up-annealed"
        lm = on_ids(
            recipe.arch,
            seg,
            train_ids,
            valid_ids,
            name,
            SIZES[size][recipe.arch],
            config,
            key,
            seed=seed,
            device=device,
        )
        runs[updates] = lm, config, float(lm.history["valid_loss"].iloc[-1]) * per_byte
        return runs[updates][2]

    reached = int(probe.history["step"].iloc[-1])
    lo, hi = 0, min(planned, max(grid, grid * -(-reached // grid)))
    while run(hi) > bits and hi < planned:  # lo: the longest schedule known not to reach it
        lo, hi = hi, min(planned, 2 * hi)
    while hi - lo > grid and not bits - tolerance <= runs[hi][2] <= bits:
        mid = grid * round((lo + hi) / 2 / grid)
        if mid in (lo, hi):
            break
        if run(mid) <= bits:
            hi = mid
        else:
            lo = mid
    lm, config, _ = runs[hi]
    return Level(lm, config, reached, [(u, b) for u, (_, _, b) in sorted(runs.items())])


def _stop_loss(seg, valid_texts: Sequence[str], bits: float) -> float:
    """The validation loss in nats per token that ``bits`` bits per byte are for a model
    over ``seg`` (the inverse of :func:`bits_per_byte`)."""
    if not seg.open_vocabulary:
        raise ModelError("a closed vocabulary has no bits per byte to stop at (it predicts <unk>)")
    n_targets = sum(len(seg.encode(t)) + 1 for t in valid_texts)
    return bits * math.log(2) * (sum(len(t.encode()) + 1 for t in valid_texts)) / n_targets


def at_quality(
    recipe: Recipe,
    epochs: int,
    bits: float,
    size: str = "cpu",
    seed: int = 0,
    corpus: str = "enwiki",
    device: str | None = "cpu",
    eval_every: int = EVAL_EVERY,
) -> LanguageModel:
    """The checkpoint of :func:`at_epochs`'s run (``epochs`` passes) at the first
    evaluation, every ``eval_every`` updates, whose validation bits per byte is at most
    ``bits``: the member of a family at a quality it shares with the others. Its weights
    are those of a run stopped part-way through its schedule (the learning rate not yet
    annealed), which the caller prints with :func:`training_budget`."""
    return at_epochs(
        recipe, epochs, size=size, seed=seed, corpus=corpus, device=device, bits=bits, eval_every=eval_every
    )
