"""How much training each learner of the distortion chapter (06) got, and the budgets that make
training comparable across the data sizes and the temperatures of the language (LeBrun,
Sordoni & O'Donnell 2022 train every model to its best validation loss; claims 6–7 and 11).

- A smaller training set trains on two schedules (:func:`learn_size`): the full set's, as
  many updates as the full set gets with the set repeated (:func:`same_updates`), whose best
  epoch is kept wherever it falls; and a schedule of its own over the full set's passes,
  its cosine reaching 0 at its end (:func:`own_schedule`). The one with the lower
  validation loss is kept, so that no size is compared only at weights that were never
  annealed while the full set's were.
- The temperature learners plan the main learner's updates (rounded to whole passes) and
  stop at their best validation loss (early stopping), each where it converges.

:func:`summary` reports what a learner got: updates planned and made, the update whose
weights were kept, the learning rate there as a share of its peak, the summed learning-rate
factor up to it, and its validation loss.
"""

from __future__ import annotations

from dataclasses import replace

from lmnotes.models.train import TrainConfig, improves, lr_factor


def _checked(share: float) -> float:
    if not share > 0:
        raise ValueError(f"the training set's share of the main learner's must be > 0, not {share!r}")
    return share


def same_updates(epochs: int, share: float) -> int:
    """The whole passes over a training set ``share`` times as large as the main learner's (in
    tokens) that come nearest the main learner's updates in ``epochs`` passes; at least one."""
    return max(1, round(epochs / _checked(share)))


def own_schedule(config: TrainConfig, share: float) -> TrainConfig:
    """The main learner's ``config`` for a training set ``share`` times as large, trained for
    the main learner's passes: a schedule of its own, its warm-up the same share of its
    updates (``share`` times as long, at least one update)."""
    return replace(config, warmup=max(1, round(config.warmup * _checked(share))))


def kept_row(valid_losses) -> int:
    """The position of the validation loss whose weights training keeps: the last that
    improves on every one before it (:func:`lmnotes.models.train.improves`)."""
    best, kept = float("inf"), 0
    for i, v in enumerate(valid_losses):
        if improves(v, best):
            best, kept = v, i
    return kept


def summary(model, warmup: int, epochs: int) -> dict:
    """What ``model`` (trained by :func:`lmnotes.studies.distortion.language.learn` for
    ``epochs`` passes, ``warmup`` warm-up updates, evaluated at each pass's end) got: its
    updates planned and made, the epoch and update whose weights were kept, the learning rate
    at that update as a share of its peak, the summed learning-rate factor up to it, and its
    validation loss."""
    h = model.history.dropna(subset=["valid_loss"]).reset_index(drop=True)
    first = h.iloc[0]
    planned = int(first["step"] / first["epoch"]) * epochs
    best = h.iloc[kept_row(h["valid_loss"])]
    kept = int(best["step"])
    return {
        "updates planned": planned,
        "updates": int(h["step"].max()),
        "best epoch": int(best["epoch"]),
        "kept update": kept,
        "learning rate kept": lr_factor(kept, warmup, planned),
        "Σ learning rate": float(sum(lr_factor(s, warmup, planned) for s in range(kept))),
        "valid loss": float(best["valid_loss"]),
    }


def learn_size(learn, share: float, epochs: int, config: TrainConfig) -> tuple:
    """A smaller training set (``share`` of the main learner's tokens) trained on both
    schedules (``learn(passes, config)`` trains it): the model with the lower validation
    loss, its :func:`summary` with the schedule's name (``schedule``), and the other's."""
    passes = same_updates(epochs, share)
    own = own_schedule(config, share)
    tried = [
        ("full set's", learn(passes, config), config.warmup, passes),
        (f"own, {epochs} passes", learn(epochs, own), own.warmup, epochs),
    ]
    got = [(m, summary(m, w, e) | {"schedule": name}) for name, m, w, e in tried]
    got.sort(key=lambda g: g[1]["valid loss"])
    return got[0][0], got[0][1], got[1][1]
