"""How much training each learner of the distortion chapter (06) got, and the schedules that
make training comparable across the data sizes and the temperatures of the language (LeBrun,
Sordoni & O'Donnell 2022 train every model to its best validation loss; claims 6–7 and 11).

Every learner that a claim compares is kept at the end of a schedule of its own whose cosine
reaches 0 there (:func:`annealed`), so that no learner is compared at weights taken while its
learning rate was still high and another's annealed, and with as much training as its probe
got where it validated best where it can take it, measured as the summed learning rate (the
area under the schedule, which the updates at a high rate dominate; :func:`equal_sum`):

- A smaller training set first trains on the full set's schedule, as many updates as the
  full set gets with the set repeated (:func:`same_updates`); that run is a probe of where
  the set stops improving. The kept learner trains again on a schedule of its own, the
  fewest whole passes whose annealed schedule sums to the probe's learning rate up to its
  best epoch, its warm-up the same share of its updates as the main learner's, shortened
  to its own best epoch until that is its last (:func:`anneal_like`, :func:`learn_size`).
- The temperature learners probe the main learner's schedule (rounded to whole passes) with
  early stopping, find their own schedules in the same way, and are then compared on one
  schedule for all, the shortest of their own, shortened until every one's best epoch is its
  last (:func:`anneal_together`): equal updates, tokens and summed learning rate.

Where an annealed run still validates best before its end (it overfits as its rate decays),
shortening it gives it less summed learning rate than its probe had: the learner is kept at
its convergence on an annealed schedule, with at most its probe's training, and
:func:`summary` says how much it got.

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


def annealed(config: TrainConfig, passes: int, own: int) -> TrainConfig:
    """The schedule of its own of ``own`` passes for a learner probed on ``passes`` passes of
    ``config``: ``config``, its warm-up the same share of its updates (at least one), its
    cosine reaching 0 at the end of the ``own`` passes (the caller trains it for as many)."""
    if not 1 <= own <= passes:
        raise ValueError(f"a schedule of its own has 1..{passes} passes, not {own!r}")
    return replace(config, warmup=max(1, round(config.warmup * own / passes)))


def schedule_sum(updates: int, warmup: int) -> float:
    """The summed learning-rate factor of a whole schedule of ``updates`` updates with
    ``warmup`` warm-up updates (:func:`lmnotes.models.train.lr_factor`)."""
    return float(sum(lr_factor(s, warmup, updates) for s in range(updates)))


def equal_sum(config: TrainConfig, passes: int, per_pass: int, target: float) -> int:
    """The fewest whole passes (at most ``passes``) whose :func:`annealed` schedule, of
    ``per_pass`` updates a pass, sums to at least ``target`` (a probe's summed learning rate
    up to its kept weights): as much training as the probe had, ending annealed."""
    for own in range(1, passes + 1):
        if schedule_sum(own * per_pass, annealed(config, passes, own).warmup) >= target:
            return own
    return passes


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


def anneal_like(learn, probe, passes: int, config: TrainConfig, name: str) -> tuple:
    """A learner trained again on a schedule of its own annealed to 0 at its end, of as many
    passes as :func:`equal_sum` gives for ``probe``'s summed learning rate up to its kept
    weights (``probe``: a run of ``passes`` passes on ``config``; ``learn(passes, config)``
    trains). Where that run still validates best before its end (it overfits as its rate
    decays), it is trained again over as many passes as its best epoch, until the best epoch
    of a run is its last: the learner kept ends its schedule, annealed, at its convergence.
    Returns the learner, its :func:`summary` with the schedule's name, and the probe's
    (``name``). A probe whose best epoch is its last already ends annealed: its schedule is
    the same, and ``learn`` finds it in the cache."""
    got = summary(probe, config.warmup, passes) | {"schedule": name}
    per_pass = got["updates planned"] // passes
    own = (
        passes if got["best epoch"] == passes else equal_sum(config, passes, per_pass, got["Σ learning rate"])
    )
    while True:
        schedule = annealed(config, passes, own)
        model = learn(own, schedule)
        mine = summary(model, schedule.warmup, own)
        if mine["best epoch"] in (own, 1):
            break
        own = mine["best epoch"]  # fewer passes each time: ends
    return model, mine | {"schedule": f"own, annealed over {own} passes"}, got


def own_passes(got: dict, probe: dict, passes: int) -> int:
    """The passes of the schedule a learner's :func:`summary` ``got`` was trained on, its
    probe's (``probe``) of ``passes`` passes giving the updates in one pass."""
    return got["updates planned"] // (probe["updates planned"] // passes)


def anneal_together(learns: dict, probes: dict, passes: int, config: TrainConfig) -> tuple:
    """Learners compared with one another at equal training: one schedule for all, annealed
    to 0 at its end. ``learns``: key -> ``learn(passes, config)`` on training sets of equal
    tokens (equal updates a pass); ``probes``: key -> its run of ``passes`` passes on
    ``config``. Each first finds its own (:func:`anneal_like`); the common schedule has as
    many passes as the shortest of these, and where a learner still validates best before its
    end there, all train again over as many passes as the latest such best epoch, until every
    learner's best epoch is its last: equal updates, tokens and summed learning rate, each
    kept annealed at its best validation loss on that schedule. Returns by key the learner, its
    :func:`summary` with the schedule's name, and its probe's."""
    found = {k: anneal_like(learn, probes[k], passes, config, "early-stopped") for k, learn in learns.items()}
    common = min(own_passes(mine, probe, passes) for _, mine, probe in found.values())
    while True:
        schedule = annealed(config, passes, common)
        models = {k: learn(common, schedule) for k, learn in learns.items()}
        mine = {k: summary(m, schedule.warmup, common) for k, m in models.items()}
        if len({g["updates planned"] for g in mine.values()}) > 1:
            raise ValueError(
                "learners compared together need training sets of equal updates a pass, got "
                f"{sorted({g['updates planned'] for g in mine.values()})} updates over {common} passes"
            )
        early = [g["best epoch"] for g in mine.values() if g["best epoch"] < common]
        if not early:
            break
        common = max(early)  # fewer passes each time: ends
    name = f"common, annealed over {common} passes"
    return {k: (models[k], mine[k] | {"schedule": name}, found[k][2]) for k in learns}


def learn_size(learn, share: float, epochs: int, config: TrainConfig) -> tuple:
    """A smaller training set (``share`` of the main learner's tokens; ``learn(passes,
    config)`` trains it): probed on the full set's schedule, then trained again on a
    schedule of its own annealed to 0 with at most the probe's summed learning rate
    (:func:`anneal_like`): the annealed learner, its :func:`summary` and the probe's."""
    passes = same_updates(epochs, share)
    return anneal_like(learn, learn(passes, config), passes, config, "full set's")
