"""The shared figure style and table display of the book. Every chapter calls :func:`use_style`
once; tables with empty cells go through :func:`dash_missing`."""

from __future__ import annotations

import matplotlib as mpl
import pandas as pd
import seaborn as sns

#: One colour per split, the same in every chapter.
SPLIT_COLORS = {"train": "#1b6ca8", "valid": "#e08a1e", "test": "#3a9a4a"}


def use_style() -> None:
    """Seaborn's white-grid theme, the paper context, and deterministic SVG-free PNG output."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    mpl.rcParams.update({
        "figure.figsize": (6.4, 4.0),
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "axes.titleweight": "bold",
        "svg.hashsalt": "lmnotes",  # stable ids if a figure is ever written as SVG
    })


#: What a table shows in a cell that has no value (a statistic that does not apply to the row).
MISSING = "–"


def dash_missing(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its missing cells shown as :data:`MISSING` instead of NaN (for display)."""
    return table.astype(object).where(table.notna(), MISSING)
