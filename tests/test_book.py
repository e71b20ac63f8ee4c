"""The runner (lmnotes.book): profiles, parameters, atomic execution, paired notebooks."""

import json
import os
import shutil

import jupytext
import nbformat
import pandas as pd
import pytest

from lmnotes.book import run as book, timing
from lmnotes.core import cache
from lmnotes.book.run import BookError


def test_every_notebook_is_paired_executed_and_in_the_toc():
    toc = (book.io.ROOT / "_toc.yml").read_text()
    assert book.notebook_names(), "no notebooks found"
    for name in book.notebook_names():
        py = jupytext.read(book.NOTEBOOKS / f"{name}.py")
        ipynb = nbformat.read(book.NOTEBOOKS / f"{name}.ipynb", as_version=4)
        assert [c.source for c in py.cells] == [c.source for c in ipynb.cells], (
            f"{name}: run `python -m lmnotes.book sync`"
        )
        assert all(not c.get("outputs") for c in ipynb.cells if c.cell_type == "code")
        executed = nbformat.read(book.BOOK / f"{name}.ipynb", as_version=4)
        assert executed.metadata["lmnotes"]["profile"] == "default"
        assert f"book/{name}" in toc


def test_every_executed_notebook_was_executed_from_its_source():
    """Each page of book/ holds its source's cells, its parameters cell included: the book runs
    at the values the chapters' parameters cells hold (the default profile overrides nothing),
    so that opening a chapter and running it gives its page. A source edited after its page
    ran, prose or a default, fails here."""

    def cells(nb):
        return [(c.cell_type, c.source) for c in nb.cells]

    for name in book.notebook_names():
        py = jupytext.read(book.NOTEBOOKS / f"{name}.py")
        executed = nbformat.read(book.BOOK / f"{name}.ipynb", as_version=4)
        assert cells(executed) == cells(py), (
            f"{name}: book/{name}.ipynb is older than notebooks/{name}.py; run it"
        )


def test_no_executed_notebook_shows_nan():
    # empty cells are shown as tables.MISSING: a table that skips tables.show shows NaN
    import re

    for name in book.notebook_names():
        executed = nbformat.read(book.BOOK / f"{name}.ipynb", as_version=4)
        for i, cell in enumerate(executed.cells):
            for out in cell.get("outputs", []):
                text = out.get("data", {}).get("text/plain", "") + out.get("data", {}).get("text/html", "")
                assert not re.search(r"\bNaN\b|>nan<", text), f"{name}, cell {i}: a table shows NaN"


FOLDED = ("hide-input", "remove-input", "remove-cell", "hide-cell")


def test_executed_notebooks_read_like_a_book():
    """What a reader sees: one parameters cell (papermill's injected one is merged into it),
    no raw Series or DataFrame repr (tables go through lmnotes.report.tables.show), no stderr output
    (progress bars, warnings), and visible code that fits the column."""
    for name in book.notebook_names():
        executed = nbformat.read(book.BOOK / f"{name}.ipynb", as_version=4)
        tags = [c.metadata.get("tags", []) for c in executed.cells]
        assert sum("parameters" in t for t in tags) == 1, name
        assert not any("injected-parameters" in t for t in tags), name
        for i, cell in enumerate(executed.cells):
            if cell.cell_type != "code":
                continue
            for out in cell.get("outputs", []):
                assert not (out["output_type"] == "stream" and out["name"] == "stderr"), (
                    f"{name}, cell {i}: stderr output {out['text'][:200]!r}"
                )
                html = out.get("data", {}).get("text/html", "")
                plain = out.get("data", {}).get("text/plain", "")
                assert not html or "lmnotes-table" in html, (
                    f"{name}, cell {i}: a table not shown by tables.show"
                )
                assert "dtype:" not in plain, f"{name}, cell {i}: a raw Series"
            if not any(t in FOLDED for t in cell.metadata.get("tags", [])):
                long = [line for line in cell.source.splitlines() if len(line) > 76]
                assert not long, f"{name}, cell {i}: visible code runs past the column: {long[0]!r}"


def test_glued_numbers_format_and_no_role_needs_api_docs():
    # the book's build treats warnings as errors: a glued numpy scalar prints as
    # "np.float64(...)", which {glue:text}`x:.3f` cannot format, and the book has no API pages
    # for {mod} or {func} roles to point to
    import re

    for name in book.notebook_names():
        executed = nbformat.read(book.BOOK / f"{name}.ipynb", as_version=4)
        for cell in executed.cells:
            for out in cell.get("outputs", []):
                value = out.get("data", {}).get("application/papermill.record/text/plain", "")
                assert not str(value).startswith("np."), (
                    f"{name}: glue {out['metadata']}: {value} (glue a float)"
                )
            if cell.cell_type == "markdown":
                assert not re.search(r"\{(mod|func|class|meth)\}`", cell.source), (
                    f"{name}: a py role without API docs"
                )


def test_default_profile_is_the_parameters_cells():
    """The book's profile overrides nothing: the chapters' literals are its run."""
    values = book.resolve_parameters(book.notebook_names(), "default", {})
    assert values and all(v == {} for v in values.values()), values
    assert book.declared_parameters("00_corpus")["corpus"] == "enwiki"
    over = book.resolve_parameters(["00_corpus"], "gpu", {"n_samples": 3})
    assert over["00_corpus"]["n_samples"] == 3


def test_every_profile_passes_the_checks():
    for profile in book.profiles():
        values = book.resolve_parameters(book.notebook_names(), profile, {})
        assert set(values) == set(book.notebook_names())


def test_unknown_profile():
    with pytest.raises(BookError, match=r"unknown profile 'nope'.*'default'"):
        book.resolve_parameters(["00_corpus"], "nope", {})


def test_unknown_parameter_override():
    with pytest.raises(BookError, match=r"unknown parameter\(s\) \['n_sample'\]"):
        book.resolve_parameters(["00_corpus"], "default", {"n_sample": 3})


def test_unknown_notebook():
    with pytest.raises(BookError, match="unknown notebook"):
        book.run(["99_nothing"])


@pytest.mark.parametrize(
    "text, message",
    [
        ("common:\n  nonsense_knob: 1\n", "no notebook declares"),
        ("notebooks:\n  00_corpus:\n    n_sample: 1\n", "unknown parameter"),
        ("notebooks:\n  77_missing:\n    x: 1\n", "unknown notebooks"),
        ("knobs:\n  x: 1\n", "sections"),
        ("notebooks: [unclosed\n", "is not valid YAML"),
        ("notebooks:\n  00_corpus:\n    n_samples: many\n", "n_samples must be an integer"),
    ],
)
def test_bad_profiles(tmp_path, monkeypatch, text, message):
    (tmp_path / "bad.yaml").write_text(text)
    monkeypatch.setattr(book, "PARAMS", tmp_path)
    with pytest.raises(BookError, match=message):
        book.resolve_parameters(["00_corpus"], "bad", {})


def test_cli_reports_errors_with_exit_code(capsys):
    assert book.main(["run", "00_corpus", "--profile", "nope"]) == 2
    assert "unknown profile 'nope'" in capsys.readouterr().err
    assert book.main(["run", "00_corpus", "-p", "bogus", "1"]) == 2
    assert "bogus" in capsys.readouterr().err


TOY = """# %% tags=["parameters"]
x = 1  # a number
fail = False  # raise in the second cell

# %%
assert not fail, "asked to fail"
print(x * 2)
"""


@pytest.fixture
def toy_book(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))  # where the timings go
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "params").mkdir()
    (tmp_path / "notebooks" / "00_toy.py").write_text(TOY)
    (tmp_path / "params" / "default.yaml").write_text("notebooks:\n  00_toy:\n    x: 5\n")
    for attr in ("NOTEBOOKS", "BOOK", "PARAMS"):
        monkeypatch.setattr(book, attr, tmp_path / attr.lower())
    return tmp_path


def test_run_executes_with_profile_and_overrides(toy_book, capsys):
    book.run(profile="default", overrides={"x": 21})
    nb = nbformat.read(toy_book / "book" / "00_toy.ipynb", as_version=4)
    assert nb.cells[-1].outputs[0]["text"] == "42\n"
    # one parameters cell, holding the value used with its comment; no injected cell
    assert len(nb.cells) == 2 and nb.cells[0].source.startswith("x = 21  # a number\n")
    assert "start_time" not in json.dumps(nb.metadata) and "duration" not in json.dumps(
        [c.metadata for c in nb.cells]
    )
    assert "timings" not in nb.metadata["lmnotes"] and "parameters" not in nb.metadata["papermill"]
    assert "[1/1] 00_toy" in capsys.readouterr().out
    timings = timing.read()["00_toy [x=21]"]  # beside the cache, not in the notebook; a value
    # that differs from the profile's is timed apart
    assert list(timings) == ["warm"] and timings["warm"]["seconds"] > 0  # it built no cache entry

    first = (toy_book / "book" / "00_toy.ipynb").read_bytes()
    paired = (toy_book / "notebooks" / "00_toy.ipynb").read_bytes()
    book.run(profile="default", overrides={"x": 21})
    # same parameters, same file, byte for byte
    assert (toy_book / "book" / "00_toy.ipynb").read_bytes() == first
    assert (toy_book / "notebooks" / "00_toy.ipynb").read_bytes() == paired
    listed = timing.table(book.notebook_names())
    assert pd.isna(listed.loc["00_toy", "warm (s)"])  # not a plain run: a row of its own
    assert listed.loc["00_toy [x=21]", "warm (s)"] > 0
    book.run(profile="default")
    table = timing.table(book.notebook_names())
    assert table.loc["00_toy", "warm (s)"] > 0 and pd.isna(table.loc["00_toy", "cold measured"])


def test_a_run_that_builds_cache_entries_is_timed_as_cold(toy_book):
    book.run(profile="default")  # warm: builds nothing
    (toy_book / "notebooks" / "00_toy.py").write_text(
        TOY
        + """
# %%
from lmnotes.core import cache
cache.register_kind("toy", lambda: "1")
cache.fetch("toy", "t", "k", lambda f: (f / "x").write_text("1"), lambda f: 1)
cache.fetch("toy", "u", "k", lambda f: (f / "x").write_text("1"), lambda f: 1)
"""
    )
    book.run(profile="default")
    timings = timing.read()["00_toy"]
    assert set(timings) == {"cold", "warm"} and timings["cold"]["built"] == {"toy": 2}
    cold = timings["cold"]
    # one of the two entries gone: the run builds one and finds the other, which is not cold
    for e in cache.entries():
        if e.name == "u":
            shutil.rmtree(e.path)
    book.run(profile="default")
    timings = timing.read()["00_toy"]
    assert timings["cold"] == cold and timings["partial"]["built"] == {"toy": 1}
    # more entries of another kind than the cold run built in all is still not cold
    (toy_book / "notebooks" / "00_toy.py").write_text(
        TOY
        + """
# %%
from lmnotes.core import cache
cache.register_kind("toy", lambda: "1")
cache.register_kind("other", lambda: "1")
cache.fetch("toy", "t", "k", lambda f: (f / "x").write_text("1"), lambda f: 1)
cache.fetch("toy", "u", "k", lambda f: (f / "x").write_text("1"), lambda f: 1)
for name in "abc":
    cache.fetch("other", name, "k", lambda f: (f / "x").write_text("1"), lambda f: 1)
"""
    )
    book.run(profile="default")
    timings = timing.read()["00_toy"]
    assert timings["cold"] == cold and timings["partial"]["built"] == {"other": 3}


def test_failing_cell_keeps_old_notebook_and_shows_traceback(toy_book):
    stale = toy_book / "book" / ".run-abc123"  # as a SIGKILLed run leaves its staging folder
    stale.mkdir()
    (stale / "00_toy.ipynb").write_text("{half a notebook")
    live = toy_book / "book" / ".run-live"  # another runner's, still at work (this process)
    live.mkdir()
    (live / ".pid").write_text(str(os.getpid()))
    book.run(profile="default")
    assert not stale.exists() and live.exists()
    shutil.rmtree(live)
    target = toy_book / "book" / "00_toy.ipynb"
    before = target.read_bytes()
    with pytest.raises(BookError, match="^00_toy: AssertionError: asked to fail\n  \\(cell 2 failed"):
        book.run(profile="default", overrides={"fail": True})
    assert target.read_bytes() == before
    assert sorted(p.name for p in (toy_book / "book").iterdir()) == ["00_toy.ipynb"]


def _unshown_tables(source: str) -> list[str]:
    """The ``tables.show(...)`` calls of a code cell whose table a reader never sees: a call
    is shown when it is the cell's last expression, an argument of ``display`` or a function's
    return value (whose caller shows it)."""
    import ast

    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.startswith(("%", "!"))))
    shown = set()
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        shown.add(id(tree.body[-1].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "display":
            shown.update(id(a) for a in node.args)
        if isinstance(node, ast.Return) and node.value is not None:
            shown.add(id(node.value))
    return [
        ast.unparse(node)[:80]
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "show"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "tables"
        and id(node) not in shown
    ]


def test_every_table_a_cell_builds_is_shown():
    """A table built with tables.show in the middle of a cell is computed and thrown away
    (the prose may cite it): it must be the cell's last expression or go through display()."""
    assert _unshown_tables("t = tables.show(df)\nx = 1") and _unshown_tables("tables.show(a)\ntables.show(b)")
    assert not _unshown_tables("display(tables.show(a))\ntables.show(b)")
    for name in book.notebook_names():
        for i, cell in enumerate(jupytext.read(book.NOTEBOOKS / f"{name}.py").cells):
            if cell.cell_type == "code":
                assert not _unshown_tables(cell.source), (
                    f"{name}, cell {i}: a table never shown: {_unshown_tables(cell.source)}"
                )


def test_the_kernels_own_stderr_stays_off_the_console(toy_book, capfd):
    """What a kernel writes on its own standard error (libzmq or tornado as it shuts down) never
    reaches the console, where it would come before the runner's error line; if the kernel dies,
    its last words are in the error."""
    quiet = TOY.replace(
        'assert not fail, "asked to fail"',
        'import os\nos.write(2, b"kernel noise\\n")\n'
        'if fail:\n    os.write(2, b"last words\\n")\n    os._exit(1)',
    )
    (toy_book / "notebooks" / "00_toy.py").write_text(quiet)
    book.run(profile="default")
    assert "kernel noise" not in capfd.readouterr().err
    with pytest.raises(BookError, match="(?s)^00_toy: .*the kernel's last words:.*last words"):
        book.run(profile="default", overrides={"fail": True})
    assert "last words" not in capfd.readouterr().err


def test_a_corrupt_cache_entry_is_rebuilt_without_a_word_in_the_notebook(toy_book, monkeypatch, capfd):
    """The warning about a corrupt entry reaches the console, and the executed notebook is
    byte-identical to the one of the run that built the entry."""
    monkeypatch.delenv("LMNOTES_PROGRESS", raising=False)  # the runner relays to its stderr
    (toy_book / "notebooks" / "00_toy.py").write_text(
        TOY
        + """
# %%
from lmnotes.core import cache
cache.register_kind("toy", lambda: "1")
print(cache.fetch("toy", "t", "k", lambda f: (f / "x").write_text("hello"), lambda f: (f / "x").read_text()))
"""
    )
    book.run(profile="default")
    first = (toy_book / "book" / "00_toy.ipynb").read_bytes()
    entry = next(e for e in cache.entries() if e.name == "t")
    (entry.path / "x").write_text("jello")  # one byte changed
    capfd.readouterr()
    book.run(profile="default")
    assert (toy_book / "book" / "00_toy.ipynb").read_bytes() == first
    err = capfd.readouterr().err
    assert "warning: cache entry" in err and "is corrupt" in err


def test_a_value_only_some_chapters_declare_is_named_and_timings_keep_corpora_apart(toy_book, capsys):
    (toy_book / "notebooks" / "01_other.py").write_text(
        TOY.replace("x = 1  # a number", "y = 2  # a number").replace("print(x * 2)", "print(y)")
    )
    (toy_book / "params" / "default.yaml").write_text("notebooks:\n  00_toy:\n    x: 5\n")
    book.run(["00_toy", "01_other"], overrides={"x": 3})
    out = capsys.readouterr().out
    assert "note: -p x applies to ['00_toy'] only; ['01_other'] do not declare it" in out
    # the time of a run on another corpus or profile is kept under its own name
    assert timing.key("00_toy", "default", {"x": 3}) == "00_toy"
    assert timing.key("00_toy", "default", {"corpus": "/my/texts"}) == "00_toy [corpus=/my/texts]"
    assert timing.key("00_toy", "gpu", {"corpus": "enwiki"}) == "00_toy [profile=gpu]"


def _glued(nb, name):
    """The data a notebook glued under ``name`` (myst-nb's record), as text."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("metadata", {}).get("scrapbook", {}).get("name") == name:
                return next(iter(out["data"].values()))
    raise AssertionError(f"nothing glued as {name!r}")


def test_each_study_chapter_opens_with_its_findings_and_ends_with_a_summary():
    from lmnotes.report import claims as lmclaims

    for path in sorted(
        p for p in (book.BOOK / "claims").glob("*.csv") if not p.name.endswith(lmclaims.CASES)
    ):
        name = path.stem
        table = lmclaims.load_all(book.BOOK / "claims").query("chapter == @name")
        nb = nbformat.read(book.BOOK / f"{name}.ipynb", as_version=4)
        md = [c.source for c in nb.cells if c.cell_type == "markdown"]
        assert (
            md[1].startswith(":::{admonition} What this chapter found\n") and "{glue:md} findings" in md[1]
        ), name
        findings = _glued(nb, "findings")
        assert findings.count("\n- {bdg-") + findings.startswith("- {bdg-") == len(table), name
        for r in table.itertuples():  # each badge links to its claim's row of the claims table
            assert (
                f"{{bdg-link-{lmclaims.BADGES[r.verdict]}}}`{r.verdict} <#{lmclaims.anchor(name, r.claim)}>`"
                in findings
            )
        assert f"<{lmclaims.label(name)}>" in findings and f"({lmclaims.label(name)})=" in "\n".join(md)
        summary = next(m for m in md if "## Summary" in m)  # the end of the lesson, before the exercises
        assert "{glue:md}`summary`" in summary and md.index(summary) > len(md) - 10, name
        assert f"Of the {len(table)} claims of this chapter" in _glued(nb, "summary")


def test_the_status_page_and_list_show_the_committed_times(capsys):
    record = timing.status_record(book.BOOK)
    for name in book.chapter_names():
        assert {"cold", "warm"} <= set(record["notebooks"][name]), name
    nb = nbformat.read(book.BOOK / "status.ipynb", as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells])
    warm01 = book.progress.duration(record["notebooks"]["01_models"]["warm"]["seconds"])
    assert warm01 in text and "02_tendencies" not in text.split("The models")[0][-200:]
    assert book.main(["list"]) == 0
    assert (
        f"01_models: cold {book.progress.duration(record['notebooks']['01_models']['cold']['seconds'])}, "
        f"warm {warm01} (book/status.json)" in capsys.readouterr().out
    )


def test_the_own_model_page_lists_every_model_parameter():
    nb = nbformat.read(book.BOOK / "own_model.ipynb", as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells])
    for name in ("model_names", "pretrained", "others", "tokenization_models", "sentence_models"):
        assert name in text
    assert "at least one self-trained model" in text


def test_a_run_with_another_model_keeps_its_time_apart():
    """A chapter's time with a value that differs from the profile's (another model) is kept
    under its own key, so that it never stands for the next plain run's."""
    plain = book.profile_values("05_word_level", "default")
    assert book.timing.key("05_word_level", "default", plain, plain) == "05_word_level"
    mine = plain | {"pretrained": ["/m/x.gguf"]}
    assert (
        book.timing.key("05_word_level", "default", mine, plain) == "05_word_level [pretrained=['/m/x.gguf']]"
    )
    assert (
        book.timing.key("05_word_level", "default", plain | {"corpus": "t.txt"}, plain)
        == "05_word_level [corpus=t.txt]"
    )


SAVES = """# %% tags=["parameters"]
x = 1  # a number
fail = False  # raise in the last cell

# %%
from pathlib import Path
Path("claims/00_toy.csv").write_text(f"claim,verdict\\n1,{x}\\n")
Path("claims/00_toy.cases.csv").unlink(missing_ok=True)

# %%
assert not fail, "asked to fail"
"""

SUMMARY = """# %% tags=["parameters"]
y = 0  # unused

# %%
from pathlib import Path
print(Path("claims/00_toy.csv").read_text())
"""


def _files(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_run_writes_pages_claims_and_summaries_together_or_nothing(toy_book, monkeypatch):
    """A chapter saves its claims in a middle cell; a failure after it, in this chapter or in
    any later notebook of the run, leaves the book folder byte for byte as it was: page, claims,
    cases files and summary pages (a failed run of chapter 02 used to leave new claims, which
    the next run's first page counted)."""
    (toy_book / "notebooks" / "00_toy.py").write_text(SAVES)
    (toy_book / "notebooks" / "intro.py").write_text(SUMMARY)
    (toy_book / "params" / "default.yaml").write_text("notebooks:\n  00_toy:\n    x: 5\n")
    book.run(profile="default")
    claims = toy_book / "book" / "claims"
    assert (claims / "00_toy.csv").read_text() == "claim,verdict\n1,5\n"
    intro = nbformat.read(toy_book / "book" / "intro.ipynb", as_version=4)
    assert "1,5" in intro.cells[-1].outputs[0]["text"]  # the summary read this run's claims
    (claims / "00_toy.cases.csv").write_text("case\n")  # the chapter removes it when it runs
    before = _files(toy_book / "book")
    with pytest.raises(BookError, match="asked to fail"):
        book.run(profile="default", overrides={"x": 7, "fail": True})
    assert _files(toy_book / "book") == before
    # the last notebook of a run fails: the chapter that succeeded before it is not written either
    monkeypatch.setattr(book, "SUMMARIES", ("intro",))
    (toy_book / "notebooks" / "intro.py").write_text(SUMMARY + "\n# %%\nraise ValueError('late')\n")
    with pytest.raises(BookError, match="late"):
        book.run(profile="default", overrides={"x": 7})
    assert _files(toy_book / "book") == before
    # an interruption (Ctrl-C, SIGTERM) between two notebooks: nothing written
    real = book.execute

    def interrupted(name, *args, **kwargs):
        if name == "intro":
            raise KeyboardInterrupt
        return real(name, *args, **kwargs)

    monkeypatch.setattr(book, "execute", interrupted)
    with pytest.raises(KeyboardInterrupt):
        book.run(profile="default", overrides={"x": 7})
    assert _files(toy_book / "book") == before
    assert not list((toy_book / "book").glob(".run-*"))
    # and a run that succeeds writes all of it: the new claims, the stale cases file gone
    monkeypatch.setattr(book, "execute", real)
    (toy_book / "notebooks" / "intro.py").write_text(SUMMARY)
    book.run(profile="default", overrides={"x": 7})
    assert (claims / "00_toy.csv").read_text() == "claim,verdict\n1,7\n"
    assert not (claims / "00_toy.cases.csv").exists()
    assert (
        "1,7" in nbformat.read(toy_book / "book" / "intro.ipynb", as_version=4).cells[-1].outputs[0]["text"]
    )


def test_a_run_says_first_what_it_runs_and_about_how_long(toy_book, capsys):
    """The forecast gives each mode only from times of that mode (a cold time given as the warm
    one forecast a minute for a 7-s run), and a run with -p values from the plain run's times
    (it left out the chapter asked for)."""
    book.run(profile="default", overrides={"x": 3})
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0] == "running 1 notebook(s), profile default: 00_toy; no earlier run to estimate the time from"
    )
    assert out[-1].startswith("written: ") and "claims" not in out[-1]  # 00_toy has no claims table
    book.run(profile="default", overrides={"x": 3})
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("running 1 notebook(s), profile default: 00_toy; about ")
    assert "with everything in the cache" in first and "if it must be built" not in first  # warm only
    book.run(profile="default")
    capsys.readouterr()
    book.run(profile="default", overrides={"x": 4})  # never run with x = 4: the plain run's time
    plan = capsys.readouterr().out.splitlines()[0]
    assert (
        "with everything in the cache" in plan and "00_toy from its runs at the profile's own values" in plan
    )


def test_a_notebook_reads_the_books_current_pages_while_it_runs(toy_book):
    """The status page takes every page's title, its own too: while a run is staged, each page
    of the book (the running notebook's own included) is there to read, as it was before."""
    (toy_book / "notebooks" / "00_toy.py").write_text(
        TOY
        + """
# %%
from pathlib import Path
print(sorted(p.name for p in Path(".").glob("*.ipynb") if not p.name.startswith(".")))
"""
    )
    book.run(profile="default")
    book.run(profile="default")
    nb = nbformat.read(toy_book / "book" / "00_toy.ipynb", as_version=4)
    assert nb.cells[-1].outputs[0]["text"] == "['00_toy.ipynb']\n"


def test_consecutive_outputs_of_one_stream_are_joined():
    """How a kernel chunks what a cell prints depends on timing: chapter 04 came out with one
    stdout block on an Intel Xeon and three on a loaded AMD EPYC, the same text. The runner
    joins them, as nbval does when it compares, so that the committed file is the same."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    out = [
        nbformat.v4.new_output("stream", name="stdout", text="a\n"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("stream", name="stderr", text="w\n"),
        nbformat.v4.new_output("stream", name="stdout", text="c\n"),
    ]
    nb.cells = [nbformat.v4.new_code_cell("print()", outputs=out), nbformat.v4.new_markdown_cell("x")]
    book._coalesce_streams(nb)
    assert [(o["name"], o["text"]) for o in nb.cells[0].outputs] == [
        ("stdout", "a\nb\n"),
        ("stderr", "w\n"),
        ("stdout", "c\n"),
    ]


def test_a_value_that_restates_the_parameters_cell_is_timed_as_the_plain_run():
    from lmnotes.book import timing

    default = book.declared_parameters("00_corpus")["n_samples"]
    values = book.resolve_parameters(["00_corpus"], "default", {"n_samples": default})["00_corpus"]
    assert timing.key("00_corpus", "default", values, book.run_values("00_corpus", "default")) == "00_corpus"
    other = book.resolve_parameters(["00_corpus"], "default", {"n_samples": default + 1})["00_corpus"]
    assert timing.key("00_corpus", "default", other, book.run_values("00_corpus", "default")) != "00_corpus"


def test_no_source_holds_an_empty_cell():
    # a blank line after "# %% [markdown]" makes jupytext write an empty cell of its own
    for name in book.notebook_names():
        nb = jupytext.read(book.NOTEBOOKS / f"{name}.py")
        assert all(c.source.strip() for c in nb.cells), name
