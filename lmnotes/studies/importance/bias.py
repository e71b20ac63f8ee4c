"""The bias of the log-estimate, bounded, predicted and corrected, and PSIS as a diagnostic:
chapter 04's section beyond the paper.

With one draw E log w = log p(x) − KL(q ‖ p(z|x)), and E log p̂_K only rises with K (Burda et
al. 2016), so −KL(q ‖ p(z|x)) is an exact floor on the bias at every K. The delta method
predicts −χ²/(2K) (Maddison et al. 2017), valid only where χ²/K is small; the plug-in and
jackknife corrections (:mod:`.estimators`; Nowozin 2018) remove most of it. PSIS k̂ (Vehtari
et al. 2024) flags the estimates whose weights are too heavy-tailed to trust.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from lmnotes.report import tables
from lmnotes.studies.importance import estimators as I
from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import switch_runs as SR
from lmnotes.report.glue import Prose
from lmnotes.studies.importance.summaries import mean_estimate


def bias_rows(
    runs: Mapping, chi: Mapping, props: Mapping, keys: Sequence, k_runs: int, n_sentences: int
) -> dict:
    """Per ``(model, proposal)``, nats per sentence: the exact floor −KL(q ‖ p), the delta
    method's −χ²/2K (None unless χ²/K ≤ 1 for every sentence), the measured bias of the runs
    and after the plug-in and jackknife corrections (95% intervals over the runs), the share
    of sentences with χ²/K > 1 and of runs whose jackknife estimate lies above the truth."""
    N_test = n_sentences
    rows = {}
    for m, name in keys:
        r = runs[m, name]
        predicted = I.delta_bias(chi[m, name], k_runs)
        small_chi = bool(np.all(-2 * predicted <= 1))  # chi^2 / K <= 1 everywhere
        floor = -L.divergence(props[m][name], props[m][SR.EXACT])[0]  # -KL(q || p)
        rows[m, name] = {
            "exact floor −KL(q‖p)": floor.sum() / N_test,
            "delta method −χ²/2K": predicted.sum() / N_test if small_chi else None,
            "measured": mean_estimate(r["instance"], N_test),
            "χ²/K > 1": float(np.mean(-2 * predicted > 1)),
            "plug-in": mean_estimate(r["plug-in"], N_test),
            "jackknife": mean_estimate(r["jackknife"], N_test),
            "runs above truth, jackknife": float(np.mean(r["jackknife"] > 0)),
        }
    return rows


def bias_values(rows: Mapping, chi: Mapping, k_runs: int, n_sentences: int, n_tokens: float) -> dict:
    """What the chapter quotes about :func:`bias_rows`, by name, in order: the cases above the
    floor, the delta method's hits where it applies and its worst prediction where it does not,
    the measured bias as a share of the floor, the corrections that reduce it, and Markov's
    factor at α = 0.05 (:func:`.estimators.markov_factor`)."""
    N_test = n_sentences
    values = {}
    above_floor = sum(v["measured"].low >= v["exact floor −KL(q‖p)"] for v in rows.values())
    values["n_above_floor"] = int(above_floor)
    with_delta = {k: v for k, v in rows.items() if v["delta method −χ²/2K"] is not None}
    delta_in = sum(
        v["measured"].low <= v["delta method −χ²/2K"] <= v["measured"].high for v in with_delta.values()
    )
    values["n_delta_shown"] = len(with_delta)
    values["n_delta_in"] = int(delta_in)
    floor_ratio = {
        k: v["measured"].value / v["exact floor −KL(q‖p)"]
        for k, v in rows.items()
        if v["exact floor −KL(q‖p)"] < 0
    }
    lo_k, hi_k = min(floor_ratio, key=floor_ratio.get), max(floor_ratio, key=floor_ratio.get)
    values["floor_ratio_lo"] = float(100 * floor_ratio[lo_k])
    values["floor_ratio_hi"] = float(100 * floor_ratio[hi_k])
    values["floor_lo_case"] = f"{lo_k[1]}, {lo_k[0]}"
    values["floor_hi_case"] = f"{hi_k[1]}, {hi_k[0]}"
    hidden = [
        I.delta_bias(chi[k], k_runs).sum() / N_test
        for k, v in rows.items()
        if v["delta method −χ²/2K"] is None
    ]
    values["delta_worst"] = tables.significant(2)(min(hidden)) if hidden else "–"
    better_jk = sum(abs(v["jackknife"].value) < abs(v["measured"].value) for v in rows.values())
    better_pi = sum(abs(v["plug-in"].value) < abs(v["measured"].value) for v in rows.values())
    values["n_jk_better"] = int(better_jk)
    values["n_pi_better"] = int(better_pi)
    values["n_bias_cases"] = len(rows)
    values["markov_factor"] = I.markov_factor(0.05, n_tokens)
    return values


def psis_rows(khat: Mapping, err_at_max: Mapping, keys: Sequence, threshold: float) -> dict:
    """Per ``(model, proposal)``: the share of sentences whose k̂ exceeds ``threshold`` (an
    undefined k̂ counts as flagged) and the root-mean-square error of log p̂ of the flagged and
    of the other sentences (None where a group is empty)."""
    rows = {}
    for k in keys:
        flagged = np.nan_to_num(khat[k], nan=np.inf) > threshold
        err = -err_at_max[k]
        rmse = lambda e: float(np.sqrt(np.mean(e**2))) if len(e) else None
        rows[k] = {
            "flagged": float(flagged.mean()),
            "RMSE if flagged": rmse(err[flagged]),
            "RMSE if not": rmse(err[~flagged]),
        }
    return rows


def psis_values(rows: Mapping) -> dict:
    """Where both groups exist, in how many cases the flagged sentences have the larger error,
    and the exceptions (a :class:`Prose` sentence)."""
    both = {
        k: r for k, r in rows.items() if r["RMSE if flagged"] is not None and r["RMSE if not"] is not None
    }
    larger = {k for k, r in both.items() if r["RMSE if flagged"] > r["RMSE if not"]}
    return {
        "n_psis_sep": len(larger),
        "n_psis_both": len(both),
        "psis_exceptions": Prose(
            "; ".join(
                f"{n} ({m}), {100 * both[m, n]['flagged']:.1f} % flagged"
                for m, n in both
                if (m, n) not in larger
            )
            or "none"
        ),
    }


#: The bias table's columns before the corrections, and the corrected estimates.
BIAS_COLUMNS = ["exact floor −KL(q‖p)", "delta method −χ²/2K", "measured", "χ²/K > 1"]
CORRECTED = ["measured", "plug-in", "jackknife"]


def bias_formats() -> dict:
    """How the chapter formats the bias table's columns (:data:`BIAS_COLUMNS`)."""
    return {
        "exact floor −KL(q‖p)": tables.significant(3),
        "delta method −χ²/2K": tables.significant(3),
        "measured": tables.significant(2),
        "χ²/K > 1": "{:.1%}",
    }


def correction_formats() -> dict:
    """How the chapter formats the corrected estimates and the share of runs above the truth."""
    return {**{c: tables.significant(2) for c in CORRECTED}, "runs above truth, jackknife": "{:.0%}"}


def psis_formats() -> dict:
    """How the chapter formats the PSIS table."""
    return {"flagged": "{:.1%}", **{c: tables.significant(2) for c in ["RMSE if flagged", "RMSE if not"]}}
