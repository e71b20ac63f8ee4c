"""The claims tables: each study chapter ends with one (the source's claim, what this report
measured, the verdict) and saves it as a small data file; the intro reads them all into one
summary of every verdict. Used by every study chapter and the intro.

A chapter calls :func:`save` with its table; the file goes to ``claims/<chapter>.csv`` under
the directory the notebook runs in (``book/`` when the runner executes it), written
atomically, where that folder exists. :func:`load_all` reads them back; :func:`summary` counts the verdicts.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import io

#: The outcomes a verdict starts with, in the order the summary shows them.
VERDICTS = ("reproduced", "contradicted", "differs", "inconclusive")
COLUMNS = ("claim", "verdict", "measured")
FOLDER = Path("claims")


def outcome(verdict: str) -> str:
    """The outcome of a verdict: its first word ('reproduced (by construction)' -> 'reproduced')."""
    word = verdict.split()[0] if verdict.strip() else ""
    if word not in VERDICTS:
        raise ValueError(f"a verdict must start with one of {list(VERDICTS)}, got {verdict!r}")
    return word


def save(table: pd.DataFrame, chapter: str, folder: str | Path = FOLDER) -> Path | None:
    """Write a chapter's claims table (a ``claim`` index or column, ``verdict`` and ``measured``
    columns) to ``folder/<chapter>.csv`` and return the path, where that folder exists (the
    book's, ``book/claims``, when the runner executes a chapter); elsewhere (a chapter run with
    papermill in a folder of one's own) check the table and write nothing."""
    df = table.reset_index() if "claim" not in table.columns else table.copy()
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"a claims table needs the columns {list(COLUMNS)}; {missing} are missing")
    for v in df["verdict"]:
        outcome(v)
    if not Path(folder).is_dir():
        return None
    path = Path(folder) / f"{chapter}.csv"
    io.write_text(path, df[list(COLUMNS)].to_csv(index=False))
    return path


def load_all(folder: str | Path = FOLDER) -> pd.DataFrame:
    """Every saved claims table, one row per claim, with its ``chapter`` and ``outcome``."""
    files = sorted(Path(folder).glob("*.csv"))
    if not files:
        return pd.DataFrame(columns=["chapter", *COLUMNS, "outcome"])
    df = pd.concat([pd.read_csv(f, dtype=str).assign(chapter=f.stem) for f in files], ignore_index=True)
    df["outcome"] = df["verdict"].map(outcome)
    return df[["chapter", *COLUMNS, "outcome"]]


def summary(claims: pd.DataFrame) -> pd.DataFrame:
    """Counts of each outcome per chapter (rows) and in all (last row)."""
    counts = pd.crosstab(claims["chapter"], pd.Categorical(claims["outcome"], categories=VERDICTS),
                         dropna=False).reindex(columns=list(VERDICTS), fill_value=0)
    counts.columns = list(VERDICTS)
    counts["claims"] = counts.sum(axis=1)
    counts.loc["all chapters"] = counts.sum()
    counts.index.name = "chapter"
    return counts.astype(int)


def title(chapter: str, folder: str | Path = ".") -> str:
    """A chapter's title: the first heading of ``folder/<chapter>.ipynb`` (its name if none)."""
    import nbformat

    path = Path(folder) / f"{chapter}.ipynb"
    if path.is_file():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown" and cell.source.startswith("# "):
                return cell.source.splitlines()[0][2:].strip()
    return chapter
