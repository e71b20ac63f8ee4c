"""The chapters read as teaching code (issue 30): short cells that call the study packages, and
a claims table that comes from one function of its study, never built row by row in a notebook."""

import importlib

import jupytext
import pytest

from lmnotes.book import run as book

#: The longest code cell, in lines of code (blank lines and comments not counted).
MAX_CELL = 40
#: About this many lines of code per chapter source at most, its parameters cell aside (a list of
#: literals, the chapter's interface, which papermill overrides: not code a reader follows) and
#: the exercises' solutions.
MAX_CHAPTER = 420
#: The study chapters and the study package whose ``claims.claims`` builds their claims table.
STUDIES = {
    "02_tendencies": "tendencies",
    "03_segmentation": "segmentation",
    "04_importance_sampling": "importance",
    "05_word_level": "words",
    "06_distortion": "distortion",
}


def code_lines(source: str) -> int:
    return sum(1 for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def cells(name):
    return [c for c in jupytext.read(book.NOTEBOOKS / f"{name}.py").cells if c.cell_type == "code"]


@pytest.mark.parametrize("name", book.notebook_names())
def test_cells_and_chapters_are_short(name):
    code = cells(name)
    lengths = [code_lines(c.source) for c in code]
    long = [(i, n) for i, n in enumerate(lengths) if n > MAX_CELL]
    assert not long, f"{name}: code cells (index, lines) over {MAX_CELL} lines: {long}"
    # the exercises' solutions are the reader's work, folded under each exercise, not the chapter's
    analysis = sum(
        n for c, n in zip(code, lengths) if not {"parameters", "solution"} & set(c.metadata.get("tags", []))
    )
    assert analysis <= MAX_CHAPTER, (
        f"{name}: {analysis} lines of code besides the parameters (at most {MAX_CHAPTER})"
    )


@pytest.mark.parametrize("name, study", STUDIES.items())
def test_claims_come_from_the_study(name, study):
    module = importlib.import_module(f"lmnotes.studies.{study}.claims")
    assert callable(module.claims) and module.claims.__doc__
    source = "\n".join(c.source for c in cells(name))
    assert ".claims(" in source, f"{name} does not call its study's claims function"
    for built_here in ("lmclaims.row(", "lmclaims.table("):
        assert built_here not in source, f"{name} builds claims rows itself ({built_here})"


@pytest.mark.parametrize("name", list(STUDIES))
def test_each_study_chapter_ends_with_exercises_and_their_solutions(name):
    """Two or three exercises (sphinx-exercise), each a prediction to make and a short piece
    of code, its solution folded and executed with the chapter (so nbval runs it too)."""
    import re

    nb = jupytext.read(book.NOTEBOOKS / f"{name}.py")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    labels = re.findall(r"^```\{exercise\}\n:label: (\S+)", text, re.M)
    assert 2 <= len(labels) <= 3, f"{name}: {len(labels)} exercises"
    assert "## Exercises" in text and text.index("## Exercises") > text.index("## Summary")
    for label in labels:
        assert f"```{{solution-start}} {label}\n:class: dropdown\n```" in text, label
        assert "predict" in text.split(f":label: {label}")[1].split("```")[0].lower(), (
            f"{label}: no prediction asked"
        )
    assert text.count("```{solution-end}") == len(labels)
    solutions = [c for c in nb.cells if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) == len(labels) and all(0 < code_lines(c.source) <= 10 for c in solutions)
