"""The paper's algorithms and the authors' public code (``shiranD/word_level_evaluation``)
applied to our predictions, in the word-level chapter (05): how much Algorithm 1 (no
end-of-word check), Algorithm 2 (any path of top-10 tokens) and the code's T1 and ppx change
the numbers of Dudy & Bedrick (2020).

- the code's ppx, first commits: Σ p(ŵ)[ŵ = w] / N; last commits:
  [Σ_hits −ln p + 100 · #top-10 misses] / N, whose floor is 100 (1 − top-10);
- the code's T1: the types hit in its four bins over the types of its upper three, under the
  two mappings of its bins onto the paper's;
- Algorithm 2's top-10 and T10 against the exact top-10 on the same targets, the searches
  that give up counted both ways.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label, span

BERT_FLOOR = "BERT code's floor 100·(1 − top-1)"


def ppx_floor(paper_t1: pd.DataFrame) -> pd.DataFrame:
    """The paper's printed ppx against the floor 100 (1 − top-10) that its own top-10 sets
    under the last commit's formula, and for BERT and RoBERTa (whose top-10 hits that code
    never credits) the floor 100 (1 − top-1)."""
    floor = 100 - paper_t1["top-10"]
    return pd.DataFrame(
        {
            "printed ppx": paper_t1["ppx"],
            "floor 100·(1 − top-10)": floor,
            "printed − floor": paper_t1["ppx"] - floor,
            BERT_FLOOR: (100 - paper_t1["top-1"]).where(paper_t1.index.isin(["BERT", "RoBERTa"])),
        }
    )


def ppx_floor_sentence(ppx_check: pd.DataFrame) -> str:
    """The chapter's reading of :func:`ppx_floor`: which printed values lie below a floor."""
    below_floor = ppx_check.index[ppx_check["printed − floor"] < 0].tolist()
    return (
        (
            f"{', '.join(below_floor)}'s printed ppx lies below the floor that its "
            f"own top-10 sets, so it cannot come from the code as committed (unless "
            f"some positions count in ppx and not in top-10; the code counts top-10 "
            f"only over targets in its bin files and ppx over all)."
            if below_floor
            else "Every printed ppx lies above its floor."
        )
        + " "
        + (
            " and ".join(
                f"{m}'s printed ppx lies {gap_:.1f} points"
                for m, gap_ in (ppx_check[BERT_FLOOR] - ppx_check["printed ppx"]).dropna().items()
                if gap_ > 0
            )
            + " below the floor of the BERT code as committed since 19a214e: "
            "that code would need as many points of positions counted in ppx "
            "and not in top-1 (targets outside its bin files), so these values "
            "more likely come from an earlier or uncommitted version."
        )
    )


def code_t1(t: pd.DataFrame, upper: Sequence[str], low: str) -> float:
    """The code's T1 (percent): types hit in its four bins (``upper`` and ``low``) over the
    types of its upper three."""
    types = {b: set(t.loc[t["bin"] == b, "word"]) for b in WS.BINS_ALL}
    hit_types = {b: set(t.loc[(t["bin"] == b) & t["hit1"], "word"]) for b in WS.BINS_ALL}
    hit = set().union(*(hit_types[b] for b in list(upper) + [low]))
    return 100 * len(hit) / max(1, len(set().union(*(types[b] for b in upper))))


def code_row(t: pd.DataFrame, t1: float) -> dict:
    """One model's numbers under the paper's algorithms and the authors' code (percent): top-1,
    Algorithm 1, Algorithm 2's top-10, the exact top-10 where searched ("—" elsewhere), the
    BERT code's top-10 (its top-1), our T1 (``t1``), the code's T1 under both mappings of its
    bins, and the ppx of the first and the last commit."""
    ex = t["hit10_exact"].dropna()
    top10_only = t["hit10_dfs"] & ~t["hit1"]
    n = len(t)
    lp = t["logp"].fillna(0.0)
    return {
        "top-1": 100 * t["hit1"].mean(),
        "Alg. 1": 100 * t["hit1_alg1"].mean(),
        "Alg. 2 top-10": 100 * t["hit10_dfs"].mean(),
        "exact top-10": 100 * ex.mean() if len(ex) else "—",
        "Alg. 2 on the same": (100 * t.loc[ex.index, "hit10_dfs"].mean() if len(ex) else "—"),
        "BERT code top-10": 100 * t["hit1"].mean(),
        "T1": t1,
        "code T1, low [1,10)": code_t1(t, WS.PAPER_BINS, "[1,10)"),
        "code T1, low [10,100)": code_t1(t, WS.PAPER_BINS[:2], "[10,100)"),
        "ppx, first": float(np.sum(np.exp(t["conf"]) * t["hit1"]) / n),
        "ppx, last": float(
            (-t.loc[t["hit1"], "conf"].sum() - lp[top10_only].sum() + 100 * (~t["hit10_dfs"]).sum()) / n
        ),
    }


def inflation(bugs: pd.DataFrame, t: pd.DataFrame) -> str:
    """How much the code's second mapping multiplies our T1 (``bugs``: :func:`code_row` rows
    by model), explained by the types of the paper's bins in one model's table ``t``."""
    infl = (bugs["code T1, low [10,100)"] / bugs["T1"]).replace(np.inf, np.nan)
    n_paper = {b: t.loc[lambda t: t["bin"] == b, "word"].nunique() for b in WS.PAPER_BINS}  # noqa: B023
    return (
        f"{infl.min():.1f}"
        if round(infl.min(), 1) == round(infl.max(), 1)
        else f"{infl.min():.1f} to {infl.max():.1f}"
    ) + (
        f" (about the {sum(n_paper.values()):,} types of the three bins over "
        f"the {n_paper[WS.PAPER_BINS[0]] + n_paper[WS.PAPER_BINS[1]]:,} of the "
        "upper two: almost no type of the lowest is ever hit)"
    )


def byte_note(bugs: pd.DataFrame) -> str:
    """Where the byte model ranks on Algorithm 2's top-10 and on top-1 ("" without one)."""
    if "byte" not in bugs.index:
        return ""
    rank = {c: int((bugs[c] > bugs.loc["byte", c]).sum()) + 1 for c in ("Alg. 2 top-10", "top-1")}
    return (
        f"Our byte model ranks {rank['Alg. 2 top-10']} of "
        f"{len(bugs)} on Alg. 2 top-10 and {rank['top-1']} of "
        f"{len(bugs)} on top-1."
    )


def robust(t: pd.DataFrame, res: WS.Resampler, searched) -> dict | None:
    """Algorithm 2 against the exact top-10 on the targets of the sentences searched exactly
    (``searched``: their ids): {"top-10", "T10": (Alg. 2, exact with every search that gave up
    a miss, exact with every one a hit) estimates, "types": the T10 types of the three,
    "searched": targets, "gave up": searches that gave up after their budget of expansions};
    None where no search finished (a model not searched). A search that gives up is counted,
    both ways, never dropped: dropping it would compare the two on the easier targets."""
    sub = t[t["sentence"].isin(list(searched))]
    exact = sub["hit10_exact"]
    if not exact.notna().any():
        return None
    paper = sub["bin"].isin(WS.PAPER_BINS)
    variants = [
        sub["hit10_dfs"].to_numpy(dtype=bool),
        (exact.fillna(0.0) == 1).to_numpy(),
        (exact.fillna(1.0) == 1).to_numpy(),
    ]
    art, words = sub["article"], sub.loc[paper, "word"]
    return {
        "top-10": tuple(res.rate(h, art) for h in variants),
        "T10": tuple(res.coverage(words, h[paper.to_numpy()], sub.loc[paper, "article"]) for h in variants),
        "types": tuple(int(words[h[paper.to_numpy()]].nunique()) for h in variants),
        "searched": len(sub),
        "gave up": int(exact.isna().sum()),
    }


def robust_sentence(robust: dict, n_sentences_exact: int) -> str:
    """The chapter's reading of :func:`robust` for every model searched exactly."""

    def exact(r, what, digits=1):
        return span(r[what][1:] if what == "types" else [e.value for e in r[what][1:]], digits)

    gave_up = ", ".join(
        f"{r['gave up']} of {label(n)}'s {r['searched']}" for n, r in robust.items() if r["gave up"]
    )
    return "; ".join(
        f"{label(n)}'s Algorithm 2 finds {r['types'][0]} T10 types where the "
        f"exact top-10 finds {exact(r, 'types', 0)} (T10 "
        f"{r['T10'][0].value:.1f} % against {exact(r, 'T10')} %), with a "
        f"top-10 accuracy of {r['top-10'][0].value:.1f} % against "
        f"{exact(r, 'top-10')} %"
        for n, r in robust.items()
    ) + (
        f", on the first {n_sentences_exact} sentences"
        + (
            f" (the exact search gave up on {gave_up} targets; a range counts each as a miss, then as a hit)"
            if gave_up
            else ""
        )
        + ". Short tokens give "
        "Algorithm 2 many non-canonical paths to a word: where they inflate "
        "T10 and not accuracy, its diversity measure depends on the "
        "tokenization, which claim 12 tests."
        if robust
        else "No model was searched exactly in this run."
    )
