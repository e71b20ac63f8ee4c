"""Short names and number formats of the word-level chapter (05): the Transformer family by its
segmentation ("BPE-8k"), the other models by the plots' short names, and signed numbers with
a typographic minus, as the chapter's tables and sentences print them.
"""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from lmnotes.report import plots

#: Short names of the chapter's models that the plots do not name.
OTHER_LABELS = {"wiki/kn3-word": "KN trigram"}


def label(name: str) -> str:
    """Short names: the family by its segmentation (``bpe8000`` → ``BPE-8k``), others by the
    plots' (:func:`lmnotes.report.plots.label`)."""
    if name.startswith("bpe"):
        return f"BPE-{int(name[3:]) // 1000}k"
    return OTHER_LABELS.get(name, plots.label(name))


def named(df: pd.DataFrame) -> pd.DataFrame:
    """A table with its models by their short names: the ``model`` column if it has one, else
    the index."""
    if "model" in df.columns:
        return df.assign(model=df["model"].map(label))
    return df.rename(index=label)


def names(models: Iterable[str]) -> str:
    """Models by their short names, joined by commas ("no member" for none)."""
    return ", ".join(label(n) for n in models) or "no member"


def span(values: Iterable[float], digits: int = 1) -> str:
    """The least and largest of some values as a range ("0.6–4.9"), one value where both
    print alike."""
    lo, hi = (f"{v:.{digits}f}" for v in (min(values), max(values)))
    return lo if lo == hi else f"{lo}–{hi}"


def signed(x: float, digits: int = 3) -> str:
    """A signed number with a typographic minus (−0.5 rather than -0.5)."""
    return f"{x:+.{digits}f}".replace("-", "−")
