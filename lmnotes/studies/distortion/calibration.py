"""Too uniform? The distortion chapter's (06) test of LeBrun, Sordoni & O'Donnell's (2022)
conclusion that M spreads its mass too uniformly over Σ*.

The entropy gap ΔH = H(p_M(· | x_<t)) − H(p_L(· | x_<t)) per token cannot test it: for a
calibrated M (its entropy equals its cross-entropy on L's tokens in expectation), E[ΔH] is
the KL per token, > 0 for any M ≠ L. What can fail is the calibration gap ΔH − KL = H_M − CE_M
per token (> 0: flatter than its own log-loss warrants), and the temperature τ* that
minimises M's cross-entropy when its logits are divided by τ (:func:`.deficit.best_temperature`;
< 1: M would gain by sharpening).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmnotes.report import cases as lmcases
from lmnotes.report.glue import Prose
from lmnotes.studies.distortion import deficit as F
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion.resample import ci

#: The temperatures scanned: 0.5 … 2, evenly in log τ, with 1 at index 15.
TAUS = 2.0 ** (np.arange(-15, 16) / 15)


def truth(L, sub, temperature: float):
    """L's entropy summed over the contexts of each sequence of ``sub``."""
    return np.array([h.sum() for h in LG.entropies(L, sub.ids, temperature)])


def calibration(models: dict, sub, h_l, seq_rate: dict, seed: int = 0):
    """Each model's entropy gap ΔH, calibration gap ΔH − KL and τ* per token on ``sub`` (with
    intervals that resample sequences; ``h_l``: :func:`truth`), and the table with the KL per
    token, CE_M − H_L, and the entropy rate of its own samples minus L's (``seq_rate``, where
    known)."""
    sub_n = sub.lengths.astype(float)
    flat_rows, dh, gap, tau_star = [], {}, {}, {}
    for name, m in models.items():
        scan = LG.temperature_scan(m, sub.ids, TAUS)
        nll_m = scan["nll"][:, 15]  # at τ = 1
        dh[name] = F.ratio(scan["entropy"] - h_l, sub_n, seed=seed)
        gap[name] = F.ratio(scan["entropy"] - nll_m, sub_n, seed=seed)
        tau_star[name] = F.best_temperature(scan["nll"], TAUS, seed=seed)
        flat_rows.append(
            {
                "model": name,
                "ΔH per token": ci(dh[name]),
                "entropy rate of M's samples − h": ci(seq_rate[name]) if name in seq_rate else "—",
                # CE_M − H_L with L's exact entropies, so that ΔH − KL is the gap exactly
                "KL per token": (nll_m - h_l).sum() / sub_n.sum(),
                "calibration gap ΔH − KL": ci(gap[name]),
                "τ*": ci(tau_star[name], 4),
            }
        )
    return pd.DataFrame(flat_rows), dh, gap, tau_star


def link_text(learners, s_coef: dict, tau_star: dict) -> str:
    """Does the sign of the surprisal coefficient (the length section) follow τ*? Among the
    learners whose coefficient and τ* are both decided, how many agree; empty if none."""
    decided = [n for n in learners if lmcases.excludes(s_coef[n])]
    tau_sided = [n for n in decided if lmcases.excludes(tau_star[n], 1)]
    agree = [n for n in tau_sided if (s_coef[n].value < 0) == (tau_star[n].value > 1)]
    return (
        ""
        if not tau_sided
        else (
            f"The calibration also reads the length section's surprisal coefficients: "
            f"of the {len(tau_sided)} learners whose coefficient and τ* are both "
            f"decided, {len(agree)} lose most on surprising tokens when too sharp "
            "(τ* > 1) or least when too flat (τ* < 1)."
        )
    )


def of_learners(scores: dict, learners, main: str) -> dict:
    """The entries of ``scores`` (by model name) for the learners and the main learner's
    further seeds ("<main> seed <k>"), without the teachers and the distilled learner."""
    return {n: v for n, v in scores.items() if n in learners or n.startswith(f"{main} seed")}


def sorted_text(names, gap: dict, tau_star: dict) -> str:
    """Which learners are too uniform (calibration gap above 0 and τ* below 1, beyond their
    intervals), too sharp (below 0 and above 1), or neither, for prose."""
    kinds = {"too uniform": [], "too sharp": [], "neither beyond their intervals": []}
    for n in names:
        flat, sharp = lmcases.side("above", gap[n]), lmcases.side("above", tau_star[n], 1)
        kind = (
            "too uniform"
            if flat is True and sharp is False
            else "too sharp"
            if flat is False and sharp is True
            else "neither beyond their intervals"
        )
        kinds[kind].append(n)
    return "; ".join(f"{', '.join(ns)}: {kind}" for kind, ns in kinds.items() if ns)


def facts(
    learners,
    main: str,
    dh: dict,
    gap: dict,
    tau_star: dict,
    seq_rate: dict,
    h_rate,
    link: str,
    teacher_draws: int,
    distilled: str | None,
) -> dict:
    """What the chapter states about calibration, by name, in the order it glues them
    (``calib_link`` is Markdown); ``distilled``: the distilled learner's name, None if not
    run.

    (10 parameters: each is a result of an earlier cell of the chapter that a stated number depends
    on.)
    """
    return {
        "dh_main": ci(dh[main]),
        "seq_rate_all": "; ".join(f"{n} {ci(seq_rate[n])}" for n in learners),
        "h_rate": ci(h_rate),
        "gap_all": "; ".join(f"{n} {ci(gap[n])}" for n in learners),
        "tau_all": "; ".join(f"{n} {ci(tau_star[n], 4)}" for n in learners),
        "calib_sorted": sorted_text(of_learners(gap, learners, main), gap, tau_star),
        "calib_link": Prose(link),
        "ladder_note": f"k = {teacher_draws} here"
        if teacher_draws
        else "not run at this profile, where it costs another training run; the gpu profile runs k = 4",
        "gap_distilled": ci(gap[distilled]) if distilled else "not run",
        "tau_distilled": ci(tau_star[distilled], 4) if distilled else "not run",
    }


def ladder_table(boot, ladder, targets, errors: dict, tail: dict, gap: dict, tau_star: dict) -> pd.DataFrame:
    """From samples to distillation: for each learner of ``ladder`` (its training target in
    ``targets``), the share underestimated and mean error (from ``boot``, memoised by name),
    the tail beyond length, the calibration gap and τ*."""
    return pd.DataFrame(
        {
            "training target": targets,
            "share underestimated": [ci(boot.share_under(n, errors[n])) for n in ladder],
            "mean error": [ci(boot.mean_error(n, errors[n])) for n in ladder],
            "tail beyond length": [ci(tail[n]) for n in ladder],
            "calibration gap": [ci(gap[n]) for n in ladder],
            "τ*": [ci(tau_star[n], 4) for n in ladder],
        }
    )
