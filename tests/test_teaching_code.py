"""The chapters read as teaching code (issue 30): short cells that call the study packages, and
a claims table that comes from one function of its study, never built row by row in a notebook."""

import importlib

import jupytext
import pytest

from lmnotes.book import run as book

#: The longest code cell, in lines of code (blank lines and comments not counted).
MAX_CELL = 40
#: About this many lines of code per chapter source at most, its parameters cell aside (a list of
#: literals, the chapter's interface, which papermill overrides: not code a reader follows).
MAX_CHAPTER = 420
#: The study chapters and the study package whose ``claims.claims`` builds their claims table.
STUDIES = {"02_tendencies": "tendencies", "03_segmentation": "segmentation",
           "04_importance_sampling": "importance", "05_word_level": "words", "06_distortion": "distortion"}


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
    analysis = sum(n for c, n in zip(code, lengths) if "parameters" not in c.metadata.get("tags", []))
    assert analysis <= MAX_CHAPTER, f"{name}: {analysis} lines of code besides the parameters (at most {MAX_CHAPTER})"


@pytest.mark.parametrize("name, study", STUDIES.items())
def test_claims_come_from_the_study(name, study):
    module = importlib.import_module(f"lmnotes.studies.{study}.claims")
    assert callable(module.claims) and module.claims.__doc__
    source = "\n".join(c.source for c in cells(name))
    assert ".claims(" in source, f"{name} does not call its study's claims function"
    for built_here in ("lmclaims.row(", "lmclaims.table("):
        assert built_here not in source, f"{name} builds claims rows itself ({built_here})"
