"""Repeated importance-sampling runs on the switch-LM (:mod:`lmnotes.studies.importance.latent`) and what each
run estimates: the experiments of the importance-sampling chapter (04) behind its versions of
Logan, Gardner & Singh's (2020) Table 1, Figs. 2-4 and its bias study.

The exact log p(x) of every instance is known, so each run's estimate is reported as an
error against the truth; a run of K draws per instance costs array arithmetic only (the
components were scored once), so hundreds of runs take seconds.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from lmnotes.studies.importance import estimators as I
from lmnotes.studies.importance import latent as L

NO_PEEKING = "no peeking"
EXACT = "exact posterior"
MEAN_FIELD = "mean-field"


def peek_label(h: int | None, tau: float = 1.0) -> str:
    """The name of a proposal: "no peeking", "peek 2", "peek 1, τ = 1.1", "exact posterior"."""
    base = EXACT if h is None else NO_PEEKING if h == 0 else f"peek {h}"
    return base if tau == 1 else f"{base}, τ = {tau:g}"


def proposals(
    model: L.SwitchLM,
    em: L.Emissions,
    horizons: Sequence[int],
    temperatures: Sequence[float],
    tempered: int = 1,
) -> dict[str, L.Chain]:
    """The chapter's proposals by name: each peek horizon and the mean-field proposal at
    tau = 1, the exact posterior, and the proposal that peeks ``tempered`` tokens ahead at
    every temperature (the paper's sweep of its peeking proposal)."""
    out = {peek_label(h): L.lookahead(model, em, h) for h in horizons}
    out[MEAN_FIELD] = L.mean_field(model, em)
    out[EXACT] = L.posterior(model, em)
    base = out.get(peek_label(tempered)) or L.lookahead(model, em, tempered)
    for tau in temperatures:
        out.setdefault(peek_label(tempered, tau), L.temper(base, tau))
    return out


def repeated(
    model: L.SwitchLM,
    em: L.Emissions,
    q: L.Chain,
    n_runs: int,
    K: int,
    seed: int,
    groups: Sequence | Mapping[str, Sequence],
) -> pd.DataFrame:
    """``n_runs`` independent runs of K draws per instance. One row per run, in nats summed
    over the corpus, minus the exact log p(x_C): the instance-level (Eq. 5) and corpus-level
    (Eq. 6) estimates, one column per grouping of ``groups`` (``{name: labels}``: the instances
    with one label aggregated as one instance, e.g. an article's sentences; a plain sequence
    of labels is named ``article``), and the instance-level estimate with the plug-in and
    jackknife corrections (K >= 2); and the effective sample size of the corpus-level weights
    (``corpus ESS``)."""
    if K < 2:
        raise ValueError("the jackknife needs K >= 2 draws per run")
    if not isinstance(groups, Mapping):
        groups = {"article": groups}
    truth = model.logprob(em).sum()
    logw = I.runs(L.draw(model, em, q, n_runs * K, seed=seed), K)  # [N, R, K]
    rows = []
    for r in range(n_runs):
        w = logw[:, r]
        rows.append(
            {
                "instance": I.instance_level(w),
                "corpus": I.corpus_level(w),
                **{name: I.grouped(w, labels) for name, labels in groups.items()},
                "plug-in": I.plug_in(w).sum(),
                "jackknife": I.jackknife(w).sum(),
            }
        )
    out = pd.DataFrame(rows) - truth
    out["corpus ESS"] = I.effective_sample_size(logw.sum(0))
    return out


def blocks(articles: Sequence, size: int) -> np.ndarray:
    """Labels that cut each article's consecutive instances into blocks of ``size`` (the last
    block of an article may be shorter): instances of a given granularity, from sentences
    (size 1) towards whole articles."""
    articles = np.asarray(articles)
    if size < 1:
        raise ValueError(f"a block holds at least one instance, got {size}")
    labels = np.empty(len(articles), dtype=object)
    for a in pd.unique(articles):
        at = np.flatnonzero(articles == a)
        for j, i in enumerate(at):
            labels[i] = (a, j // size)
    return np.array([f"{a}/{b}" for a, b in labels])


def curve(
    model: L.SwitchLM, em: L.Emissions, q: L.Chain, sizes: Sequence[int], seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """One run of max(sizes) draws per instance: log p^ - log p per instance from its first K
    draws, ``[len(sizes), N]`` (the paper's curves against K), and the log weights."""
    logw = L.draw(model, em, q, int(max(sizes)), seed=seed)
    return I.running(logw, sizes) - model.logprob(em)[None, :], logw


def expected(logw: np.ndarray, logp: np.ndarray, sizes: Sequence[int]) -> pd.DataFrame:
    """E[log p^_K] - log p summed over instances, estimated from disjoint runs of K draws
    (``logw [N, total]``), with the standard error over the runs, for each K with at least
    two runs."""
    rows = []
    for K in sizes:
        if 2 * K > logw.shape[1]:
            continue
        r = I.runs(logw, K)
        err = (I.log_mean(r) - logp[:, None]).sum(0)  # [runs]
        rows.append(
            {"K": K, "runs": r.shape[1], "mean": err.mean(), "se": err.std(ddof=1) / np.sqrt(len(err))}
        )
    return pd.DataFrame(rows).set_index("K")
