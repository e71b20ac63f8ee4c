"""Is "rare" just "long"? The distortion chapter's (06) tests of what the length law
error ≈ −k·n ≈ (k/h)·log p_L (:func:`.deficit.length_law`) leaves out, beyond LeBrun, Sordoni &
O'Donnell (2022), in every setting the chapter trains:

- the tail beyond length (:func:`.deficit.residual_contrast`) and the bend of the error in
  log p_L (:func:`.deficit.curvature`), per setting (:func:`law_table`);
- the OLS of the error on the length n and the mean per-token surprisal s̄ = −log p_L / n, which
  split log p_L = −n·s̄ exactly (:func:`regression`, :func:`lmnotes.stats.bootstrap_ols`);
- the deficit per token within length quartiles (:func:`quartiles`) and by position in the
  sequence (:func:`by_position`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmnotes import stats
from lmnotes.report import tables
from lmnotes.report.glue import Prose
from lmnotes.studies.distortion import deficit as F
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion.resample import ci, num

#: The spans of token positions (1: the first token after BOS) of :func:`by_position`.
SPANS = [(1, 1), (2, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 128)]


def law_row(name: str, e, x, n_tok, n_bins: int, seed: int = 0) -> dict:
    """The length law of one setting (errors ``e``, log p_L ``x``, lengths ``n_tok``) and what
    it leaves out: k and h, the end bins against −k·n̄, the tail beyond length and the slope
    change."""
    law = F.length_law(e, x, n_tok)
    bins = D.equal_count_bins(x, n_bins)
    ends_ = [e[bins == b].mean() for b in (bins.min(), bins.max())]
    n_ends = [n_tok[bins == b].mean() for b in (bins.min(), bins.max())]
    return {
        "setting": name,
        "k": law.k,
        "h": law.h,
        "rarest bin": ends_[0],
        "law −k·n̄": -law.k * n_ends[0],
        "most probable bin": ends_[1],
        "law −k·n̄ ": -law.k * n_ends[1],
        "tail beyond length": F.residual_contrast(e, n_tok, bins, seed=seed),
        "slope change": F.curvature(e, x, seed=seed),
    }


def law_table(settings: dict, n_bins: int, seed: int = 0):
    """:func:`law_row` for every setting (name -> (errors, log p_L, lengths)), and the table
    as shown (intervals and significant digits)."""
    law_tab = pd.DataFrame([law_row(k, *v, n_bins, seed=seed) for k, v in settings.items()])
    shown = law_tab.assign(
        **{c: law_tab[c].map(ci) for c in ("tail beyond length", "slope change")}
        | {
            c: law_tab[c].map(tables.significant(3))
            for c in ("k", "h", "rarest bin", "law −k·n̄", "most probable bin", "law −k·n̄ ")
        }
    )
    return law_tab, shown


def law_facts(
    law_tab: pd.DataFrame, learners, main: str, linear_margin: float, low_name: str, outlier: bool
) -> dict:
    """What the chapter states about the law in every setting, by name, in the order it glues
    them (``outlier_law`` is Markdown)."""
    tail = dict(zip(law_tab["setting"], law_tab["tail beyond length"]))
    bend = dict(zip(law_tab["setting"], law_tab["slope change"]))
    return {
        "tail_main": ci(tail[main]),
        "bend_main": ci(bend[main]),
        "n_tail_below": f"{sum(tail[n].high < 0 for n in learners)} of {len(learners)}",
        "n_settings": len(law_tab),
        "n_set_tail": sum(t.high < 0 for t in tail.values()),
        "n_set_bent": sum(b.low > linear_margin or b.high < -linear_margin for b in bend.values()),
        "bend_width": num(np.median([b.high - b.low for b in bend.values()]), 2),
        "law_worst": num(
            np.abs(
                law_tab[["rarest bin", "most probable bin"]].to_numpy()
                - law_tab[["law −k·n̄", "law −k·n̄ "]].to_numpy()
            ).max(),
            2,
        ),
        "outlier_law": Prose(
            f"the one sequence {low_name} derails on (above) moves its "
            "k, and so its contrast, by several nats whenever a resample holds "
            "it, hence its wide interval, and the wide partial R² intervals of "
            "its regression"
            if outlier
            else "no single sequence stands out (above) to widen a setting's interval"
        ),
    }


def regression(err: dict, test, learners, seed: int = 0) -> pd.DataFrame:
    """Each learner's OLS of the error on the length n and the per-token surprisal s̄, with
    bootstrap intervals of the coefficients and partial R² (the intercept left out)."""
    surprisal = -test.logp / test.lengths
    reg_rows = []
    for name in learners:
        reg = stats.bootstrap_ols(
            err[name], {"length n": test.lengths, "per-token surprisal s̄": surprisal}, n_boot=1000, seed=seed
        )
        for r in reg.itertuples(index=False):
            if r.term == "intercept":
                continue
            reg_rows.append(
                {
                    "model": name,
                    "term": r.term,
                    "coefficient": stats.Estimate(r.coefficient, r.low, r.high),
                    "partial R²": stats.Estimate(r[2], r[5], r[6]),
                }
            )
    return pd.DataFrame(reg_rows)


def coefficients(reg_all: pd.DataFrame, term: str) -> dict:
    """learner -> the estimate of one term's coefficient in :func:`regression`."""
    return {r.model: r.coefficient for r in reg_all.itertuples() if r.term == term}


def quartiles(err: dict, test, learners, seed: int = 0) -> pd.DataFrame:
    """The deficit per token k within each length quartile (flat if length is all)."""
    len_strata = D.equal_count_bins(test.lengths, 4, min_count=50)
    return pd.DataFrame(
        {
            "tokens": [
                f"{test.lengths[len_strata == q].min()}–{test.lengths[len_strata == q].max()}"
                for q in range(4)
            ]
        }
        | {
            f"k, {n}": [
                ci(F.ratio(-err[n][len_strata == q], test.lengths[len_strata == q], seed=seed))
                for q in range(4)
            ]
            for n in learners
        }
    )


def by_position(models: dict, test, lp_l_all, learners, seed: int = 0):
    """The mean per-token error δ_t in each span of positions, per learner (an estimate that
    resamples sequences, None where a span holds 10 sequences or fewer), and the table."""
    pos_cols = {}
    for name in learners:
        lp_m_all = models[name].score_ids(test.ids)
        deltas = [m_ - l_ for m_, l_ in zip(lp_m_all, lp_l_all)]
        col = []
        for a, b in SPANS:
            num_ = np.array([d[a - 1 : b].sum() for d in deltas])
            den = np.array([len(d[a - 1 : b]) for d in deltas], dtype=float)
            keep = den > 0
            col.append(F.ratio(num_[keep], den[keep], seed=seed) if keep.sum() > 10 else None)
        pos_cols[name] = col
    positions = pd.DataFrame(
        {
            "positions": [f"{a}" if a == b else f"{a}–{b}" for a, b in SPANS],
            "tokens": [int(sum(max(0, min(b, len(d)) - a + 1) for d in lp_l_all)) for a, b in SPANS],
        }
        | {f"mean δ_t, {n}": [ci(c) if c else "—" for c in col] for n, col in pos_cols.items()}
    )
    return pos_cols, positions


def packing_text(pos_cols: dict, positions: pd.DataFrame, main: str) -> str:
    """The paragraph on what the deficit by position says about packed training blocks."""
    first_worse = {n: col[0].high < min(c.low for c in col[1:] if c) for n, col in pos_cols.items()}
    worst_span = min((c.value, lab) for c, lab in zip(pos_cols[main], positions["positions"]) if c)[1]
    return (
        (
            "The first position is worse than every later span for "
            + ", ".join(n for n, w in first_worse.items() if w)
            + ", a sign that "
            "packing costs something there."
            if any(first_worse.values())
            else "The first position is no worse than the later spans for any learner, so "
            "the most direct trace of packing is absent."
        )
        + " This cannot rule "
        "packing out: blocks seldom start at a sequence's BOS, so the mismatch "
        f"touches every position, and positions {worst_span} carry the main "
        "learner's largest deficit. Only a learner trained one sequence per row would settle it; "
        "training code outside this chapter would have to change for that, and "
        "it is not done here."
    )


def regression_facts(s_coef: dict, n_coef: dict, main: str) -> dict:
    """The main learner's coefficients of surprisal and length, and every learner's of
    surprisal, as the chapter states them."""
    return {
        "reg_s": ci(s_coef[main]),
        "reg_n": ci(n_coef[main]),
        "reg_s_all": "; ".join(f"{n} {ci(c)}" for n, c in s_coef.items()),
    }
