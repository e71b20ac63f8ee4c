"""The paper's Table 1 on our models, in the word-level chapter (05): whole-word top-1 and
top-10 accuracy, type coverage T1 and T10 (Dudy & Bedrick 2020, §2.4 and App. A), the word
perplexity and the paper's Eq. 2, each with its cluster-bootstrap interval; and the paired
differences between models, read as the paper reads its table (similar, different or
undecided within a margin of the pair's mean).
"""

from __future__ import annotations

import itertools
from typing import Mapping, Sequence

import pandas as pd

from lmnotes.report import claims as lmclaims
from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label

#: Table 1's accuracies and the prediction columns they count.
HIT = {"top-1": "hit1", "top-10 (Alg. 2)": "hit10_dfs"}
PPL = ["word ppl", "Eq. 2 ppl"]
#: The reading of a difference: similar, different or undecided.
READ = {True: "similar", False: "different", None: "undecided"}


def metrics(t: pd.DataFrame, res: WS.Resampler) -> dict:
    """One model's row of Table 1 (percent; perplexities): accuracies over its decodable and
    out-of-vocabulary targets, T1 and T10 over the paper's bins, and the perplexities over the
    targets every self-trained model decodes (``all_decodable``)."""
    ok = t[t["decodable"] | t["oov"]]
    paper = ok[ok["bin"].isin(WS.PAPER_BINS)]
    scored = ok[ok["decodable"] & ok["all_decodable"]]
    logp, art = scored["logp"], scored["article"]
    out = {name: res.rate(ok[c].to_numpy(), ok["article"])
           for name, c in HIT.items()}
    out["T1"] = res.coverage(paper["word"], paper["hit1"], paper["article"])
    out["T10"] = res.coverage(paper["word"], paper["hit10_dfs"],
                              paper["article"])
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
    eq2_higher = [n for n in table.index if table.loc[n, "Eq. 2 ppl"].value
                  > table.loc[n, "word ppl"].value]
    return (
        f"Eq. 2 gives the higher perplexity for "
        f"{len(eq2_higher)} of the {len(table)} models"
        + (f" ({', '.join(label(n) for n in eq2_higher)})"
           if 0 < len(eq2_higher) < len(table) else "")
        + ": it drops the end-of-word factor, which lowers p(w), and the "
        "division by P(start), which raises it; here the second weighs "
        + ("more." if len(eq2_higher) > len(table) / 2 else "less."))


def pair_table(table: pd.DataFrame, models: Sequence[str], res: WS.Resampler,
               margin: float) -> pd.DataFrame:
    """A row per pair of ``models`` (a − b): the paired differences of top-1, top-10, T1 and
    word perplexity, and for top-1 and T1 the reading (``<measure> alike``: True similar,
    False different, None undecided, by :func:`lmnotes.report.claims.within` against ± the
    margin times the pair's mean) and its word."""
    def paired(a, b, col):
        return res.paired(table.loc[a, col], table.loc[b, col])

    pair_rows = []
    for a, b in itertools.combinations(models, 2):
        d1, dT = paired(a, b, "top-1"), paired(a, b, "T1")
        dp = paired(a, b, "word ppl")
        pair_rows.append({"pair": f"{label(a)} − {label(b)}",
                          "Δ top-1": d1, "Δ top-10 (Alg. 2)": paired(
                              a, b, "top-10 (Alg. 2)"), "Δ T1": dT,
                          "Δ word ppl": dp,
                          "a": a, "b": b})
    pair_df = pd.DataFrame(pair_rows)

    def alike(e, a, b, col):
        mean = (table.loc[a, col].value + table.loc[b, col].value) / 2
        return lmclaims.within(e, margin * mean)

    for col in ("top-1", "T1"):
        pair_df[f"{col} alike"] = [alike(r[f"Δ {col}"], r["a"], r["b"], col)
                                   for _, r in pair_df.iterrows()]
        pair_df[col] = pair_df[f"{col} alike"].map(READ)
    return pair_df
