"""More data, and which architecture uses it better (LeBrun, Sordoni & O'Donnell 2022, Fig. 3,
claims 6–7), as the distortion chapter (06) measures it: the main learner and the LSTM trained
on nested subsets of the training sequences, each kept at the end of a schedule of its own
annealed to 0, with at most the summed learning rate of a probe on the full set's schedule
(:func:`lmnotes.studies.distortion.schedule.learn_size`).

The relative change between successive sizes N′ < N is r_N = (ē_N − ē_N′)/|ē_N′| (the paper's
Fig. 3 inset), per stratum of log p_L.
"""

from __future__ import annotations

from functools import partial

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from lmnotes.report import plots
from lmnotes.report.glue import Prose
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion import schedule as SC
from lmnotes.studies.distortion.resample import ci


def learn_sizes(
    lang,
    models: dict,
    learners,
    train,
    valid,
    test,
    sizes,
    epochs: int,
    config,
    seed: int,
    tag: str,
    device: str,
) -> dict:
    """``(learner, N)`` -> :func:`errors` of each learner at each smaller size of ``sizes`` (the
    first N sequences of ``train``; each annealed at the end of its own schedule,
    :func:`SC.learn_size`) and at the full size (its model in ``models``, trained for
    ``epochs`` passes on ``config``).

    (12 parameters: the language, the learners and the splits, and the chapter's training
    parameters, passed through.)
    """
    err_n, total = {}, train.lengths.sum()
    for name in learners:
        err_n[name, len(train)] = errors(models[name], test, SC.summary(models[name], config.warmup, epochs))
        for N in sizes:
            learn = partial(LG.learn, lang, name, train.take(0, N), valid, seed=seed, tag=tag, device=device)
            model, got, other = SC.learn_size(learn, train.take(0, N).lengths.sum() / total, epochs, config)
            err_n[name, N] = errors(model, test, got, other)
    return err_n


def errors(model, test, got: dict, other: dict | None = None) -> tuple:
    """A learner's test errors, what its training got (:func:`SC.summary`) and what its
    probe got (None for the full set)."""
    return (D.estimation_error(LG.model_logprob(model, test.ids), test.logp), got, other)


def by_stratum(err_n: dict, main: str, sizes, strata: np.ndarray) -> pd.DataFrame:
    """The main learner's mean error per stratum and size, with its relative change r_N."""
    data_df = pd.DataFrame(
        [
            {"N": N, "stratum": b, "error": err_n[main, N][0][strata == b].mean()}
            for N in sizes
            for b in range(strata.max() + 1)
        ]
    )
    data_df["relative change"] = data_df.groupby("stratum")["error"].transform(
        lambda e: e.diff() / e.shift().abs()
    )
    return data_df


def doubling_gains(boot, err_n: dict, main: str, sizes):
    """The error gained by each step N → N′ (an interval from ``boot``), and the gain as a
    share of the error at N."""
    step_gain = {
        (a, b): boot.mean_ci(err_n[main, b][0] - err_n[main, a][0]) for a, b in zip(sizes, sizes[1:])
    }
    rel_step = {k: v.value / abs(err_n[main, k[0]][0].mean()) for k, v in step_gain.items()}
    return step_gain, rel_step


def plot(boot, data_df: pd.DataFrame, err_n: dict, main: str, arch, sizes, n_strata: int, color):
    """Fig. 3: the main learner's error per stratum by N with the inset r_N (left), and each
    architecture's mean error by N with intervals from ``boot`` (right)."""
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.4))
    palette = sns.color_palette("rocket", n_strata)
    inset = axes[0].inset_axes([0.45, 0.08, 0.5, 0.38])
    for b, g in data_df.groupby("stratum"):
        axes[0].plot(g["N"], g["error"], marker=".", color=palette[b], lw=1.2)
        inset.plot(g["N"], g["relative change"], color=palette[b], lw=1)
    axes[0].set(xlabel="training sequences N", ylabel="mean error (nats)", title=f"{main} by N")
    plots.plain_log(axes[0], "x", ticks=sizes)
    inset.set_xscale("log")
    inset.minorticks_off()
    inset.set_xticks(sizes[1:], [f"{N:,}" for N in sizes[1:]])
    inset.set_title("relative change", fontsize="small")
    inset.tick_params(labelsize="small")
    for name in [main] + arch:
        e = [boot.mean_ci(err_n[name, N][0]) for N in sizes]
        axes[1].errorbar(
            sizes,
            [x.value for x in e],
            yerr=[[x.value - x.low for x in e], [x.high - x.value for x in e]],
            marker=".",
            label=name,
            color=color(name),
        )
    axes[1].set(xlabel="training sequences N", ylabel="mean test error", title="By architecture")
    plots.plain_log(axes[1], "x", ticks=sizes)
    axes[1].legend()
    return fig


def table(boot, err_n: dict, main: str, arch, sizes) -> pd.DataFrame:
    """The mean test error (intervals from ``boot``) by size and architecture."""
    return pd.DataFrame(
        {"N": sizes}
        | {f"mean error ({n})": [ci(boot.mean_ci(err_n[n, N][0])) for N in sizes] for n in [main] + arch}
    )


def training_table(err_n: dict, learners, sizes) -> pd.DataFrame:
    """What each learner got at each size (:func:`SC.summary`): the schedule kept, the update
    kept of those planned, the learning rate there as a share of its peak, the summed
    learning rate up to it and its probe's, its validation loss and its probe's
    (:func:`SC.learn_size`)."""
    rows = []
    for n in learners:
        for N in sizes:
            _, g, other = err_n[n, N]
            rows.append(
                {
                    "learner": n,
                    "N": N,
                    "schedule kept": g.get("schedule", "full set's"),
                    "kept update": f"{g['kept update']} of {g['updates planned']}",
                    "learning rate kept": g["learning rate kept"],
                    "Σ learning rate": g["Σ learning rate"],
                    "probe's Σ learning rate": other["Σ learning rate"] if other else np.nan,
                    "valid loss": g["valid loss"],
                    "probe's valid loss": other["valid loss"] if other else np.nan,
                }
            )
    return pd.DataFrame(rows)


def gain_table(step_gain: dict, rel_step: dict) -> pd.DataFrame:
    """The error gained by each doubling, in nats and as a share."""
    return pd.DataFrame(
        {
            "from N": [a for a, _ in step_gain],
            "to N": [b for _, b in step_gain],
            "error gained (nats)": [ci(v) for v in step_gain.values()],
            "error reduced by": [f"{r:.1%}" for r in rel_step.values()],
        }
    )


def architectures(boot, err_n: dict, main: str, arch, sizes, parameters: dict | None = None):
    """The Transformer's mean error minus the LSTM's (``arch[0]``; positive: the Transformer
    is closer to L), intervals from ``boot``: against the LSTM on the next N (``ahead``, a
    stricter criterion) and on the same N (``same_n``, the paper's), and the texts the
    chapter states, by name (with ``parameters``, learner -> count, the two counts). Without
    an LSTM (``arch`` empty), no comparisons and texts that say so."""
    if not arch:
        return (
            [],
            [],
            {k: "not run (no LSTM among the learners)" for k in ("arch_same", "arch_ahead", "arch_params")},
        )
    lstm = arch[0]
    # data efficiency: the Transformer on N against the LSTM on the next N
    ahead = [boot.mean_ci(err_n[main, a][0] - err_n[lstm, b][0]) for a, b in zip(sizes, sizes[1:])]
    # the paper's criterion: both architectures on the same data
    same_n = [boot.mean_ci(err_n[main, N][0] - err_n[lstm, N][0]) for N in sizes]
    values = [e.value for e in same_n]
    trend = (
        ": the lead narrows as N grows, the LSTM gaining more per doubling"
        if all(a > b for a, b in zip(values, values[1:]))
        else ": the lead widens as N grows"
        if all(a < b for a, b in zip(values, values[1:]))
        else ""
    )
    texts = {
        "arch_same": "; ".join(f"N = {N:,}: {ci(e)}" for N, e in zip(sizes, same_n)) + trend,
        "arch_ahead": "; ".join(
            f"{a:,} vs {b:,}: {ci(e)}" for (a, b), e in zip(zip(sizes, sizes[1:]), ahead)
        ),
    }
    if parameters is not None:
        texts["arch_params"] = f"{parameters[main]:,} and {parameters[lstm]:,}"
    return ahead, same_n, texts


def schedule_note(err_n: dict, learner: str, smaller) -> str:
    """What the schedules of ``learner``'s smaller sizes came to, for prose: each size kept at
    the end of its own annealed schedule (:func:`SC.learn_size`), its validation loss against
    its probe's and the learning rate at its kept weights; and whether any size is compared at
    weights that were never annealed."""
    parts, unannealed = [], []
    for N in smaller:
        _, g, probe = err_n[learner, N]
        parts.append(
            f"at N = {N:,} {learner} is kept at the end of its {g['schedule'].replace('own,', 'own schedule,')}, "
            f"summed learning rate {g['Σ learning rate']:.0f} against {probe['Σ learning rate']:.0f} where the "
            f"{probe['schedule']} schedule validated best (validation loss {g['valid loss']:.3f} against "
            f"{probe['valid loss']:.3f}; learning rate {g['learning rate kept']:.2f} of its peak at the kept weights)"
        )
        if g["learning rate kept"] > 0.05:
            unannealed.append(f"{N:,}")
    text = "; ".join(parts)
    return (
        text[:1].upper()
        + text[1:]
        + ". "
        + (
            f"So N = {', '.join(unannealed)} {'is' if len(unannealed) == 1 else 'are'} compared at "
            "weights taken before the learning rate decayed, because its own schedule still "
            "validated best before its end; the full set's weights are annealed, and part of each "
            "doubling's gain may be that annealing."
            if unannealed
            else "Every size is compared at weights taken where its learning rate had decayed."
        )
    )


def facts(full: dict, epochs: int, step_gain: dict, rel_step: dict) -> dict:
    """What the chapter states about the data sizes, by name, in the order it glues them
    (``full_note`` is Markdown; ``full``: what the full set's training got, :func:`SC.summary`,
    in ``epochs`` passes)."""
    return {
        "updates_txt": f"{full['updates planned']:,}",
        "full_note": Prose(
            "The full set's best epoch is its last, where its schedule anneals to zero."
            if full["best epoch"] == epochs
            else "The full set peaked before its last epoch."
        ),
        "gain_first": ci(list(step_gain.values())[0]),
        "gain_last": ci(list(step_gain.values())[-1]),
        "rel_last": f"{list(rel_step.values())[-1]:.0%}",
    }
