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


#: What each chapter teaches, shown as a visible cell beside its equation: a piece of the
#: cell's code that computes it, and what the markdown just above it must hold. Chapter 06's
#: estimation error (Eq. 2) is still computed only inside its study (`distortion.estimation_error`).
MECHANISMS = {
    "02_tendencies": ("def heaps_loglik(beta):", "Eqs. 20–22"),
    "03_segmentation": ("nll = n_token * np.log(ppl_token)", "bits per byte"),
    "04_importance_sampling": ("log_p_I = np.sum(logsumexp(log_w, axis=1) - np.log(K))", "Eq. 6"),
    "05_word_level": ("log_start = ", "P(\\text{start} \\mid h)"),
    "06_distortion": ("error = logp_m[main] - test.logp", "Eq. 2"),
}


@pytest.mark.parametrize("name, mechanism", MECHANISMS.items())
def test_the_mechanism_is_visible_beside_its_equation(name, mechanism):
    """The lines that implement what the chapter teaches are a visible code cell (no fold, no
    removal), after the markdown that states them, and the chapter's page shows what they print."""
    import nbformat

    code, stated = mechanism
    nb = jupytext.read(book.NOTEBOOKS / f"{name}.py")
    at = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and code in c.source]
    assert len(at) == 1, f"{name}: {len(at)} cells hold {code!r}"
    cell = nb.cells[at[0]]
    assert not set(cell.metadata.get("tags", [])) & {"hide-input", "remove-cell", "remove-input", "hide-cell"}
    before = [c.source for c in nb.cells[: at[0]] if c.cell_type == "markdown"][-2:]
    assert any(stated in s for s in before), f"{name}: the markdown before the cell does not state it"
    page = nbformat.read(book.BOOK / f"{name}.ipynb", as_version=4).cells[at[0]]
    assert page.source == cell.source and any(o.get("name") == "stdout" for o in page.get("outputs", []))


def test_every_glued_value_is_written_under_a_literal_key():
    """Each value the pages' prose reads ({glue:text}`key`, a glued figure) is glued under a key
    written as a literal where it is measured, in the package or the chapter, so that a search
    finds it; none is built at run time (an f-string key)."""
    import ast
    import re

    literals = set()

    def collect(source):
        literals.update(
            n.value
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        )

    for path in (book.io.ROOT / "lmnotes").rglob("*.py"):
        collect(path.read_text())
    read = {}
    for name in book.notebook_names():
        for c in jupytext.read(book.NOTEBOOKS / f"{name}.py").cells:
            if c.cell_type == "code":
                collect(c.source)
            else:
                for key in re.findall(r"\{glue(?::\w+)?\}`([^`:]+)|```\{glue(?::\w+)?\} (\S+)", c.source):
                    read.setdefault(key[0] or key[1], name)
    assert len(read) > 500
    built = {k: v for k, v in read.items() if k not in literals}
    assert not built, f"glue keys the prose reads but no code writes literally: {built}"


def test_no_alias_means_two_modules():
    """A chapter imports a study's module under its name or under an alias that means that
    module in every chapter (chapter 04's ``CG`` is never chapter 05's)."""
    import ast

    meaning = {}
    for name in book.notebook_names():
        for c in cells(name):
            for node in ast.walk(ast.parse(c.source)):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lmnotes"):
                    for a in node.names:
                        if a.asname:
                            meaning.setdefault(a.asname, set()).add(f"{node.module}.{a.name}")
    assert meaning and not {a: m for a, m in meaning.items() if len(m) > 1}


@pytest.mark.parametrize("name, study", STUDIES.items())
def test_every_study_is_sections_and_claims_that_name_them(name, study):
    """Each study lists its sections by its chapter's headings, each reading declared names,
    and each claim of its list names one of them."""
    import importlib
    import re

    claims = importlib.import_module(f"lmnotes.studies.{study}.claims")
    headings = set(re.findall(r"^# #{2,3} (.+)$", (book.NOTEBOOKS / f"{name}.py").read_text(), re.M))
    names = [s.name for s in claims.SECTIONS]
    assert set(names) <= headings, f"{name}: sections that are no heading: {set(names) - headings}"
    assert len(set(names)) == len(names) and all(s.reads for s in claims.SECTIONS)
    assert {c.section for c in claims.CLAIMS} == set(names), (
        f"{name}: a section decides no claim, or a claim none"
    )
