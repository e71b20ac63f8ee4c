"""The numbers LeBrun, Sordoni & O'Donnell (2022) print, which the distortion chapter (06)
sets its own beside: the mean perplexity (their Eq. 1, the mean of per-sequence perplexities)
of each model on the artificial language and on real OpenWebText sentences (App. A.4,
Tables 4–7), and what follows from them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: GPT-2's vocabulary (§3.1 misprints it as 57,256).
GPT2_VOCAB = 50257


def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables 4 and 5 (mean PP by model, on L and on real text) and Tables 6 and 7
    (GPT2-medium by temperature), with the log of Table 6 in nats."""
    paper = pd.DataFrame(
        {
            "model": [
                "LSTM",
                "GPT2-small",
                "GPT2-medium",
                "LSTM (more data)",
                "GPT2-medium (more data)",
                "L (the ground truth)",
            ],
            "PP on L (Table 4)": [36.53, 26.66, 25.42, 35.01, 21.60, np.nan],
            "PP on OpenWebText (Table 5)": [158.31, 129.84, 132.56, 149.02, 94.03, 73.79],
        }
    )
    paper_t = pd.DataFrame(
        {
            "T": [0.70, 0.85, 1.00, 1.15],
            "PP on L (Table 6)": [11.61, 25.42, 75.30, 290.69],
            "PP on OpenWebText (Table 7)": [223.60, 132.56, 106.21, 106.29],
        }
    )
    paper_t["log PP on L (nats)"] = np.log(paper_t["PP on L (Table 6)"])
    return paper, paper_t


def size_gain(paper: pd.DataFrame) -> float:
    """GPT2-medium's gain over GPT2-small in mean PP on L (Table 4): the step the paper calls
    slight (claim 3)."""
    p4 = paper.set_index("model")
    return 1 - (p4.loc["GPT2-medium", "PP on L (Table 4)"] / p4.loc["GPT2-small", "PP on L (Table 4)"])


def facts(paper: pd.DataFrame, paper_t: pd.DataFrame) -> dict:
    """What the chapter states about the paper's tables, by name, in the order it glues them:
    the gains from more data, the size step, L on real text, whether the tables agree where
    they overlap, the log PP by temperature, and GPT-2's vocabulary."""
    p4 = paper.set_index("model")
    gain = {
        m: 1 - p4.loc[f"{m} (more data)", "PP on L (Table 4)"] / p4.loc[m, "PP on L (Table 4)"]
        for m in ["LSTM", "GPT2-medium"]
    }
    return {
        "p_gain_lstm": f"{gain['LSTM']:.1%}",
        "p_gain_gpt": f"{gain['GPT2-medium']:.1%}",
        "p_small_medium": f"{size_gain(paper):.2%}",
        "p_L_real": f"{p4.loc['L (the ground truth)', 'PP on OpenWebText (Table 5)']}",
        "p_t6_t4": _in_both(paper_t.loc[1, "PP on L (Table 6)"], p4.loc["GPT2-medium", "PP on L (Table 4)"]),
        "p_t7_t5": _in_both(
            paper_t.loc[1, "PP on OpenWebText (Table 7)"],
            p4.loc["GPT2-medium", "PP on OpenWebText (Table 5)"],
        ),
        "p_logpp": ", ".join(f"{v:.2f}" for v in paper_t["log PP on L (nats)"]),
        "gpt2_vocab": f"{GPT2_VOCAB:,}",
    }


def _in_both(a: float, b: float) -> str:
    """The value two of the paper's tables print for one model, or both where they differ."""
    return f"{a:g} in both" if a == b else f"{a:g} in one and {b:g} in the other"


def two_decimals(x) -> str:
    """The paper's values as it prints them (two decimals); — where none."""
    return "—" if np.isnan(x) else f"{x:.2f}"
