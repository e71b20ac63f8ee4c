"""How much training each learner of the distortion chapter (06) got, and the budgets that make
training equal across the data sizes and the temperatures of the language (LeBrun, Sordoni &
O'Donnell 2022 train every model to its best validation loss; claims 6–7 and 11).

Every learner runs as many updates as the main learner, whatever the size of its training set
(:func:`same_updates`: a smaller set is repeated), so its cosine schedule is the main
learner's, warm-up included. The data sizes run the whole schedule, which completes (the
learning rate reaches 0 at its last update); the temperature learners stop at convergence on
their own validation sets. An earlier design stopped the smaller data sizes early, keeping
weights from mid-schedule while the full set's were annealed; one that gave each size the
main learner's passes instead left the smaller sizes short of convergence.
:func:`summary` reports what a trained learner got: updates planned and made, the summed
learning-rate factor, the update whose weights were kept, the learning rate there, and its
validation loss.
"""

from __future__ import annotations

from lmnotes.models.train import lr_factor


def same_updates(epochs: int, share: float) -> int:
    """The passes over a training set ``share`` times as large as the main learner's (in
    tokens) that give it as many updates as the main learner's ``epochs``; at least one."""
    if not share > 0:
        raise ValueError(f"the training set's share of the main learner's must be > 0, not {share!r}")
    return max(1, round(epochs / share))


def summary(model, warmup: int, epochs: int) -> dict:
    """What ``model`` (trained by :func:`lmnotes.studies.distortion.language.learn` for
    ``epochs`` passes, ``warmup`` warm-up updates, evaluated at each pass's end) got: its
    updates planned and made, the summed learning-rate factor over those made, the epoch and
    update whose weights were kept (the best validation loss), the learning rate at that
    update as a share of its peak, and that validation loss."""
    h = model.history.dropna(subset=["valid_loss"])
    first = h.iloc[0]
    planned = int(first["step"] / first["epoch"]) * epochs
    made = int(h["step"].max())
    best = h.loc[h["valid_loss"].idxmin()]
    kept = int(best["step"])
    return {"updates planned": planned, "updates": made,
            "Σ learning rate": float(sum(lr_factor(s, warmup, planned) for s in range(made))),
            "best epoch": int(best["epoch"]), "kept update": kept,
            "learning rate kept": lr_factor(kept, warmup, planned),
            "valid loss": float(best["valid_loss"])}
