"""The paper's Table 1 on our models, in the word-level chapter (05): whole-word top-1 and
top-10 accuracy, type coverage T1 and T10 (Dudy & Bedrick 2020, §2.4 and App. A), the word
perplexity and the paper's Eq. 2, each with its cluster-bootstrap interval; and the paired
differences between models, read as the paper reads its table (similar, different or
undecided within a margin of the pair's mean).

The paper's own numbers are here too (:func:`paper_table1`, :data:`PAPER_COVERAGE`, its
readings :func:`paper_readings`), with :func:`lmnotes.stats.printed`, a printed number as an estimate whose
interval is its printed precision: the chapter shows them, and the claims apply their rules
to them (:func:`lmnotes.studies.words.claims.source_check`).
"""

from __future__ import annotations

import itertools
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from lmnotes.report import cases as lmcases
from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label

#: The paper's models, in its Table 1's order.
PAPER_MODELS = ("GPT-2", "GPT", "RoBERTa", "BERT")
#: The paper's Table 1 as printed (percent; ppx its Eq. 2).
PAPER_TABLE1 = {
    "top-1": (35.63, 29.37, 28.18, 22.11),
    "top-10": (67.76, 60.89, 59.55, 50.98),
    "T1": (26.60, 15.96, 24.73, 15.59),
    "T10": (47.27, 30.80, 42.63, 29.61),
    "ppx": (34.8, 37.9, 42.2, 50.7),
}
#: The decimals each column of Table 1 is printed with.
PAPER_DECIMALS = {"top-1": 2, "top-10": 2, "T1": 2, "T10": 2, "ppx": 1}
#: GPT-2's type coverage per bin (percent), which §3.1 calls low: "only 50%, 14%, and 7%".
PAPER_COVERAGE = dict(zip(WS.PAPER_BINS, (50.0, 14.0, 7.0)))
#: How §3.1 reads six gaps of its Table 1: the pair, the measure, the reading, its words.
PAPER_READINGS = (
    ("GPT", "RoBERTa", "top-1", "similar", "similar hit rates (28.18, 29.37)"),
    ("GPT", "BERT", "T1", "similar", "share similar diversity rate"),
    ("GPT-2", "RoBERTa", "T1", "similar", "not so different in diversity"),
    ("GPT", "RoBERTa", "T1", "different", "much more diverse than GPT"),
    ("GPT", "BERT", "top-1", "different", "a higher prediction accuracy"),
    ("GPT-2", "GPT", "top-1", "different", "GPT-2 had the highest hit rate"),
)


def paper_table1() -> pd.DataFrame:
    """The paper's Table 1 as printed, a row per model (:data:`PAPER_TABLE1`)."""
    return pd.DataFrame(PAPER_TABLE1, index=pd.Index(PAPER_MODELS, name="model"))


def paper_readings(paper: pd.DataFrame) -> pd.DataFrame:
    """§3.1's readings of Table 1 (:data:`PAPER_READINGS`), each gap as a share of the pair's
    mean (``share of mean``), from ``paper`` (:func:`paper_table1`)."""
    readings = pd.DataFrame(PAPER_READINGS, columns=["a", "b", "measure", "reading", "the paper's words"])
    readings.insert(
        4,
        "share of mean",
        [
            WS.relative_gap(paper.loc[a, m], paper.loc[b, m])
            for a, b, m in zip(readings["a"], readings["b"], readings["measure"])
        ],
    )
    return readings


#: Table 1's accuracies and the prediction columns they count.
HIT = {"top-1": "hit1", "top-10 (Alg. 2)": "hit10_dfs"}
PPL = ["word ppl", "Eq. 2 ppl"]
#: The reading of a difference: similar, different or undecided.
READ = {True: "similar", False: "different", None: "undecided"}


def metrics(t: pd.DataFrame, res: WS.Resampler) -> dict:
    """One model's row of Table 1 (percent; perplexities): accuracies over its decodable and
    out-of-vocabulary targets, T1 and T10 over the paper's bins, and the perplexities over the
    targets every self-trained model decodes (``all_decodable``). Greedy predictions alone
    (no ``hit10_dfs`` column: :func:`.diversity.on_targets`) give top-1, T1 and the
    perplexities, and NaN for the top-10 measures."""
    ok = t[t["decodable"] | t["oov"]]
    paper = ok[ok["bin"].isin(WS.PAPER_BINS)]
    scored = ok[ok["decodable"] & ok["all_decodable"]]
    logp, art = scored["logp"], scored["article"]
    searched = "hit10_dfs" in t
    out = {name: res.rate(ok[c].to_numpy(), ok["article"]) if c in t else np.nan for name, c in HIT.items()}
    out["T1"] = res.coverage(paper["word"], paper["hit1"], paper["article"])
    out["T10"] = res.coverage(paper["word"], paper["hit10_dfs"], paper["article"]) if searched else np.nan
    out["word ppl"] = res.log_rate(logp, art)
    out["Eq. 2 ppl"] = res.log_rate(scored["logp_prefix"], art)
    return out


def table1(evaluated: Mapping[str, pd.DataFrame], res: WS.Resampler) -> pd.DataFrame:
    """Table 1: a row of :func:`metrics` per model, after its number of ``words``."""
    table = pd.DataFrame({n: metrics(t, res) for n, t in evaluated.items()}).T
    table.insert(0, "words", [len(evaluated[n]) for n in table.index])
    return table


def eq2_sentence(table: pd.DataFrame) -> str:
    """The chapter's reading of the two perplexities: for how many models Eq. 2's is higher."""
    eq2_higher = [n for n in table.index if table.loc[n, "Eq. 2 ppl"].value > table.loc[n, "word ppl"].value]
    return (
        f"Eq. 2 gives the higher perplexity for "
        f"{len(eq2_higher)} of the {len(table)} models"
        + (f" ({', '.join(label(n) for n in eq2_higher)})" if 0 < len(eq2_higher) < len(table) else "")
        + ": it drops the end-of-word factor, which lowers p(w), and the "
        "division by P(start), which raises it; here the second weighs "
        + ("more." if len(eq2_higher) > len(table) / 2 else "less.")
    )


def pair_table(table: pd.DataFrame, models: Sequence[str], res: WS.Resampler, margin: float) -> pd.DataFrame:
    """A row per pair of ``models`` (a − b): the paired differences of top-1, top-10, T1 and
    word perplexity, and for top-1 and T1 the reading (``<measure> alike``: True similar,
    False different, None undecided, by :func:`lmnotes.report.cases.side` against ± the
    margin times the pair's mean) and its word."""

    def paired(a, b, col):  # NaN where a model has no such measure (greedy predictions only)
        x, y = table.loc[a, col], table.loc[b, col]
        return np.nan if pd.isna(x) or pd.isna(y) else res.paired(x, y)

    pair_rows = []
    for a, b in itertools.combinations(models, 2):
        d1, dT = paired(a, b, "top-1"), paired(a, b, "T1")
        dp = paired(a, b, "word ppl")
        pair_rows.append(
            {
                "pair": f"{label(a)} − {label(b)}",
                "Δ top-1": d1,
                "Δ top-10 (Alg. 2)": paired(a, b, "top-10 (Alg. 2)"),
                "Δ T1": dT,
                "Δ word ppl": dp,
                "a": a,
                "b": b,
            }
        )
    pair_df = pd.DataFrame(pair_rows)

    def alike(e, a, b, col):
        mean = (table.loc[a, col].value + table.loc[b, col].value) / 2
        return lmcases.side("within", e, margin * mean)

    for col in ("top-1", "T1"):
        pair_df[f"{col} alike"] = [alike(r[f"Δ {col}"], r["a"], r["b"], col) for _, r in pair_df.iterrows()]
        pair_df[col] = pair_df[f"{col} alike"].map(READ)
    return pair_df
