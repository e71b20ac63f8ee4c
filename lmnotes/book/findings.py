"""What the book found, in plain Markdown: the verdict counts of every claims table and one
line per study, written into the README between two markers by ``python -m lmnotes.book
readme`` (``tests/test_project.py`` fails when the README's block is not what the claims
files give), so that the README's findings cannot go stale. The book's first page shows the
same counts with badges (:func:`lmnotes.report.claims.headline`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lmnotes.core import io
from lmnotes.report import claims

#: The source of each study chapter, as the README names it.
SOURCES = {
    "02_tendencies": "Meister & Cotterell 2021",
    "03_segmentation": "Mielke 2019",
    "04_importance_sampling": "Logan, Gardner & Singh 2020",
    "05_word_level": "Dudy & Bedrick 2020",
    "06_distortion": "LeBrun, Sordoni & O'Donnell 2022",
}
BEGIN = "<!-- findings: generated from book/claims by `python -m lmnotes.book readme` -->"
END = "<!-- end of the generated findings -->"


def counted(counts: pd.Series) -> str:
    """``"reproduced 26, differs 12, inconclusive 24, contradicted 3, not tested 3"``: the
    verdicts of ``counts`` (a verdict -> number mapping) that occur, each spelt as the book
    spells it, in the order of :data:`lmnotes.report.claims.VERDICTS`."""
    parts = [f"*{v}* {int(counts[v])}" for v in claims.VERDICTS if counts.get(v, 0)]
    return ", ".join(parts) if parts else "no verdict"


def block(folder: Path) -> str:
    """The README's findings: the counts over all chapters, then one line per study with its
    title, source and counts, and the words of each claim that was contradicted."""
    found = claims.load_all(folder / claims.FOLDER)
    total = found["verdict"].value_counts()
    lines = [
        BEGIN,
        "",
        f"**{len(found)} claims of {found['chapter'].nunique()} studies:** {counted(total)} "
        f"(`book/claims/`).",
        "",
    ]
    for chapter, group in found.groupby("chapter", sort=True):
        texts = list(group["claim"])
        against = [
            claims.in_sentence(texts, i) for i, v in enumerate(group["verdict"]) if v == "contradicted"
        ]
        line = (
            f"- **{chapter[:2]} {claims.title(chapter, folder)}** ({SOURCES.get(chapter, 'the source')}): "
            f"{len(group)} claims: {counted(group['verdict'].value_counts())}"
        )
        lines.append(line + (f"; contradicted: {'; '.join(against)}" if against else "") + ".")
    return "\n".join([*lines, "", END])


def update(readme: Path, folder: Path) -> Path:
    """Replace the findings block of ``readme`` by :func:`block` of the book in ``folder``."""
    text = readme.read_text()
    head, found, rest = text.partition(BEGIN)
    _, ended, tail = rest.partition(END)
    if not (found and ended):
        raise ValueError(f"{readme} has no block between {BEGIN!r} and {END!r}")
    io.write_text(readme, head + block(folder) + tail)
    return readme
