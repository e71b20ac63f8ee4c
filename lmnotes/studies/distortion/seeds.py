"""The comparisons between trained learners repeated at other seeds (LeBrun, Sordoni &
O'Donnell 2022; chapter 06, claims 3, 6a, 6b and 7).

A learner trained once carries one training run's luck: a claim that compares two trained
learners, or one learner on two training sets, is not yet a finding if another seed could
move it. :func:`repeat` trains every learner those comparisons need afresh at one more seed
(initialisation and batch order), on the same splits and schedules as the first
(:func:`lmnotes.studies.distortion.schedule.learn_size`), and recomputes what each claim
compares on them, with intervals over the same test sequences from a generator of its own
(the chapter's other intervals draw in order from theirs, so a repeat added here moves none
of them). Each seed's comparison is then a case of the claim: a verdict holds only if every
seed's case holds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmnotes.stats import scaled
from lmnotes.studies.distortion import data_size as DS
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion import size as SZ
from lmnotes.studies.distortion.resample import Bootstrap, ci


def repeat(
    lang,
    names: dict,
    splits: tuple,
    data_sizes,
    epochs: int,
    config,
    seed: int,
    tag: str,
    device: str,
    n_boot: int = 2000,
) -> dict:
    """Claims 3, 6 and 7's comparisons with every learner trained at ``seed``: ``names`` holds
    the ``main`` learner, the ``arch`` learners (LSTMs; may be empty) and the smaller ``tiny``
    Transformer (None: not trained), ``splits`` the (train, valid, test) sets. Returns
    ``step_gain`` and ``rel_step`` (:func:`DS.doubling_gains`), ``error_at`` (N -> |mean
    error|), ``steps`` (N -> what the main learner's training got), ``same_n`` (the main
    learner minus the LSTM at each N; empty without an LSTM) and ``pp_gain``
    (:func:`SZ.gain_in_pp`; None without ``tiny``).

    (10 parameters: the language, the learners and splits, and the chapter's training
    parameters, passed through.)
    """
    main, arch, tiny = names["main"], list(names["arch"]), names["tiny"]
    train, valid, test = splits
    boot = Bootstrap(np.random.default_rng([seed, len(test)]))
    trained = [main, *arch] + ([tiny] if tiny else [])
    models = {
        n: LG.learn(lang, n, train, valid, epochs, config, seed=seed, tag=tag, device=device) for n in trained
    }
    err_n = DS.learn_sizes(
        lang, models, [main] + arch, train, valid, test, data_sizes, epochs, config, seed, tag, device
    )
    sizes = sorted(set(data_sizes) | {len(train)})
    step_gain, rel_step = DS.doubling_gains(boot, err_n, main, sizes)
    out = {
        "step_gain": step_gain,
        "rel_step": rel_step,
        "error_at": {N: abs(err_n[main, N][0].mean()) for N in sizes},
        "steps": {N: err_n[main, N][1] for N in sizes},
        "same_n": DS.architectures(boot, err_n, main, arch, sizes)[1],
        "pp_gain": None,
    }
    if tiny:
        logp = {n: LG.model_logprob(models[n], test.ids) for n in (main, tiny)}
        idx = boot.rng.integers(len(test), size=(n_boot, len(test)))
        out["pp_gain"] = SZ.gain_in_pp(logp, test, main, tiny, idx)
    return out


def table(
    seeds: dict, sizes, first_seed: int, step_gain: dict, same_n: list, size: dict | None
) -> pd.DataFrame:
    """One row per seed of the learners: the error gained by each doubling of N, the main
    learner minus the LSTM at each N, and the larger Transformer's gain in mean PP (%), from
    the chapter's own learners (seed ``first_seed``: its ``step_gain``, ``same_n`` and
    ``size`` comparison, None if one size was trained) and ``seeds`` (:func:`repeat` by
    seed); a comparison not run is left out."""
    first = {"step_gain": step_gain, "same_n": same_n, "pp_gain": size["pp_gain"] if size else None}
    rows = []
    for s, v in ({first_seed: first} | dict(seeds)).items():
        row = {"seed": s}
        row |= {f"gain {a:,} → {b:,}": ci(g) for (a, b), g in v["step_gain"].items()}
        row |= {f"minus LSTM at {N:,}": ci(e) for N, e in zip(sizes, v["same_n"])}
        if v["pp_gain"] is not None:
            row["mean-PP gain (%)"] = ci(scaled(v["pp_gain"], 100))
        rows.append(row)
    return pd.DataFrame(rows)
