"""The estimates against the number of draws K on the switch-LM (the paper's Figs. 2-3):
one long run of K draws per sentence and proposal, and what the same draws give besides
(disjoint runs for E log p̂_K, the Monte Carlo variance, PSIS k̂, the public KGLM code's
estimate). Importance-sampling chapter (04).
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from lmnotes.core.progress import note
from lmnotes.report import plots
from lmnotes.studies.importance import estimators as I
from lmnotes.studies.importance import cached
from lmnotes.studies.importance import switch_runs as SR


@cached.remembered
def measure(
    switch: Mapping,
    logp: Mapping,
    props: Mapping,
    em_sub,
    art_sub: np.ndarray,
    sub: np.ndarray,
    sizes: Sequence[int],
    names: Sequence[str],
    seed: int,
    kglm_samples_per_batch: int,
    offset: int = 0,
) -> tuple[dict, ...]:
    """One run of max(``sizes``) draws for each sentence ``sub`` of the test split (emissions
    ``em_sub``, articles ``art_sub``), model of ``switch`` and proposal of ``names`` (from
    ``props[model][name]``), seeded ``seed * 1000 + offset + i`` for the i-th proposal (an
    ``offset`` of the proposals measured before: the seeds they would have had in one call). Returns seven
    dicts keyed ``(model, proposal)``: ``curves`` (log p̂ − log p summed over the sentences,
    per K: :func:`.switch_runs.curve`), ``expect`` (:func:`.switch_runs.expected` at K = 1, 10,
    100, 1000), ``khat`` (PSIS k̂ per sentence), ``kglm`` (``{"sentences" | "articles":
    (the public KGLM code's log-estimate, the right one)}``, summed), ``err_at_max`` (the error
    per sentence at the largest K), ``mc_var`` (Var(log p̂) per sentence,
    :func:`.estimators.mc_variance`) and ``err10`` (the summed error of each disjoint run of
    10 draws).

    (11 parameters: the switch-LM's parts (model, emissions, articles, proposals) and the run's
    settings.)
    """
    curves, expect, khat, kglm, err_at_max, mc_var, err10 = {}, {}, {}, {}, {}, {}, {}
    for m, s in switch.items():
        lp_sub = logp[m][sub]
        for i, name in enumerate(names):
            note(f"curve {m}, {name}: {len(sub):,} sentences x {max(sizes):,} draws")
            q = props[m][name].subset(sub)
            err, logw = SR.curve(s, em_sub, q, sizes, seed=seed * 1000 + offset + i)
            curves[m, name] = err.sum(1)  # nats over the subset, per K
            err_at_max[m, name] = err[-1]  # per sentence, K = k_max
            mc_var[m, name] = I.mc_variance(logw)  # Var(log p^) per sentence
            # the summed error of each disjoint run of 10 draws (a cheap experiment)
            err10[m, name] = (I.log_mean(I.runs(logw, 10)) - lp_sub[:, None]).sum(0)
            expect[m, name] = SR.expected(logw, lp_sub, [1, 10, 100, 1000])
            with np.errstate(divide="ignore", invalid="ignore"):
                khat[m, name] = I.pareto_k(logw)
            by_article = np.stack([logw[art_sub == a].sum(0) for a in np.unique(art_sub)])
            b = kglm_samples_per_batch
            kglm[m, name] = {
                unit: (I.kglm_estimate(w, b).sum(), I.log_mean(w).sum())
                for unit, w in [("sentences", logw), ("articles", by_article)]
            }
            del logw, by_article
    return curves, expect, khat, kglm, err_at_max, mc_var, err10


def excess_curves(
    models: Sequence[str],
    sizes: Sequence[int],
    curves: Mapping,
    ppl_of: Callable,
    names: Sequence[str],
    colors: Mapping,
    title: str,
):
    """PPL^/PPL - 1 against K for each proposal, a panel per model (symlog: 0 is exact, a
    curve may dip below it); ``ppl_of(m, err)`` is the perplexity of an error in nats. The
    figure, closed."""
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.4), sharey=True)
    for ax, m in zip(axes, models):
        for name in names:
            ax.plot(sizes, ppl_of(m, curves[m, name]) / ppl_of(m, 0.0) - 1, color=colors[name], label=name)
        ax.axhline(0, color=plots.REFERENCE_COLOR, lw=1, label="exact")
        ax.set(title=f"{m} switch-LM")
        ax.set_yscale("symlog", linthresh=1e-4)
        plots.plain_log(ax, "x", [1, 10, 100, 1000, 10000])
    plots.figure_legend(fig, axes, ncol=3)
    fig.supxlabel("samples per sentence K")
    fig.supylabel(title)
    plt.close(fig)
    return fig
