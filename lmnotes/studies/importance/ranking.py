"""Does the ranking of proposals hold as K grows? Chapter 04's test of the paper's advice to
choose a proposal (its temperature) with few samples: the proposals ranked by their absolute
error expected at K = 10, by one run at the largest K, and by the exact divergences from the
posterior (χ², which sets the error once the draws are many, and KL, the draws needed), with
Kendall's τ between the rankings.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss

from lmnotes.report import tables
from lmnotes.report.glue import Prose
from lmnotes.studies.importance.summaries import p_text


def rank_proposals(
    expect: Mapping,
    curves: Mapping,
    kl: Mapping,
    chi: Mapping,
    err10: Mapping,
    models: Sequence[str],
    names: Sequence[str],
    k_max: int,
    sub: np.ndarray | None = None,
) -> tuple[dict, dict, dict, dict]:
    """Per model, the proposals ``names`` ranked (1: best) at K = 10 (``expect[key].loc[10]``),
    by the single run at ``k_max`` (``curves[key][-1]``) and by the exact mean KL and χ² over
    the sentences ``sub`` the runs drew for (every sentence of ``kl`` and ``chi`` if None);
    Kendall's τ of the K = 10 ranking against each (scipy results, by ``(model, "χ²" | "KL" |
    "K = …")``); the best at K = 10 and by χ² (``top_pick[model]``); and the share of single
    runs of 10 draws (``err10[key]``) that pick the χ²-best (``single_pick[model]``).

    (9 parameters: the inputs of the three rankings (runs, curves, exact divergences) and the
    chapter's parameters that select them.)
    """
    rank_rows, kendall, top_pick, single_pick = {}, {}, {}, {}
    for m in models:
        small = pd.Series({n: abs(expect[m, n].loc[10, "mean"]) for n in names})
        large = pd.Series({n: abs(curves[m, n][-1]) for n in names})
        at = slice(None) if sub is None else sub
        by_kl = pd.Series({n: kl[m, n][at].mean() for n in names})
        by_chi = pd.Series({n: chi[m, n][at].mean() for n in names})
        for crit, exact_rank in (("χ²", by_chi), ("KL", by_kl)):
            kendall[m, crit] = ss.kendalltau(small, exact_rank)
        kendall[m, f"K = {k_max:,}"] = ss.kendalltau(small, large)
        top_pick[m] = (small.idxmin(), by_chi.idxmin())  # best at K = 10 and by exact χ²
        # one cheap experiment per proposal: a single run of 10 draws each
        errs = np.stack([np.abs(err10[m, n]) for n in names])  # [proposals, runs]
        picks = np.array(names)[errs.argmin(0)]
        single_pick[m] = float(np.mean(picks == by_chi.idxmin()))
        for n in names:
            rank_rows[m, n] = {
                "rank at K = 10": int(small.rank()[n]),
                f"rank at K = {k_max:,}": int(large.rank()[n]),
                "rank by exact χ²": int(by_chi.rank()[n]),
                "rank by exact KL": int(by_kl.rank()[n]),
            }
    return rank_rows, kendall, top_pick, single_pick


def agreement_table(kendall: Mapping) -> pd.DataFrame:
    """Kendall's τ and its p-value (as tables show it) of each ranking against the K = 10 one."""
    agreement = pd.DataFrame(
        {
            "Kendall τ": {k: r.statistic for k, r in kendall.items()},
            "p-value": {k: tables.pvalue(r.pvalue) for k, r in kendall.items()},
        }
    )
    agreement.index.names = ["model", "K = 10 against"]
    return agreement


def ranking_values(
    rank_rows: Mapping, kendall: Mapping, top_pick: Mapping, single_pick: Mapping, k_max: int
) -> dict:
    """The sentences and numbers the chapter quotes about the rankings, by name, in order."""
    values = {
        "kendall_sentence": Prose(
            "; ".join(
                f"{m} against {c}: {r.statistic:.2f} ({p_text(r.pvalue)})"
                for (m, c), r in kendall.items()
                if c in ("χ²", "KL")
            )
        )
    }
    flattered = [
        (m, n, r["rank by exact χ²"] - r["rank at K = 10"])
        for (m, n), r in rank_rows.items()
        if abs(r["rank by exact χ²"] - r["rank at K = 10"]) >= 2
    ]
    values["flattered_sentence"] = Prose(
        "; ".join(
            f"{n} ({m}) {'looks better' if d > 0 else 'looks worse'} at K = 10 than by χ² "
            f"(rank {rank_rows[m, n]['rank at K = 10']} against "
            f"{rank_rows[m, n]['rank by exact χ²']})"
            for m, n, d in flattered
        )
        or "no proposal moves by two ranks or more"
    )
    moved_large = [
        (m, n) for (m, n), r in rank_rows.items() if r[f"rank at K = {k_max:,}"] != r["rank by exact χ²"]
    ]
    values["n_large_moved"] = len(moved_large)
    values["top_pick_sentence"] = Prose(
        "; ".join(
            f"{m}: {a} at K = 10, {b} by χ²" + (" (the same)" if a == b else "")
            for m, (a, b) in top_pick.items()
        )
    )
    values["single_pick_sentence"] = Prose(
        " and ".join(f"{100 * v:.0f} % of the runs ({m})" for m, v in single_pick.items())
    )
    values["n_ranked"] = len(rank_rows)
    return values
