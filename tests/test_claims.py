"""Claims tables: the one verdict rule, the evidence every row records, the files the study
chapters save, and the summary on the first page."""

import re
from pathlib import Path

import pandas as pd
import pytest

from lmnotes.report import cases as lmcases, claims
from lmnotes.stats.inference import Estimate

ROOT = Path(__file__).resolve().parents[1]


def evidence(n_for: int = 0, n_against: int = 0, n_open: int = 0) -> list[lmcases.Case]:
    """Cases that decide as asked: intervals above 0, below it, and across it."""
    return (
        [lmcases.Case(f"for {i}", "above", 1.0, 0.5, 1.5, why="w") for i in range(n_for)]
        + [lmcases.Case(f"against {i}", "above", -1.0, -1.5, -0.5, why="w") for i in range(n_against)]
        + [lmcases.Case(f"open {i}", "above", 0.0, -1.0, 1.0, why="w") for i in range(n_open)]
    )


def test_bad_rows_are_refused():
    with pytest.raises(ValueError, match="unknown form"):
        claims.row("x", evidence(1), "m", form="majority")
    with pytest.raises(ValueError, match="unknown basis"):
        claims.row("x", evidence(1), "m", form="every", basis="obvious")
    with pytest.raises(ValueError, match="characters"):
        claims.row("x", evidence(1), "m" * (claims.MAX_MEASURED + 1), form="every")
    with pytest.raises(TypeError, match="is given its cases"):
        claims.row("x", [True], "m", form="every")
    t = claims.table([claims.row("1. x", evidence(1), "m", form="every")])
    t.loc[0, "n_for"] = -1
    with pytest.raises(ValueError, match="whole numbers"):
        claims.check(t)
    t.loc[0, ["n_for", "rule"]] = [1, "every case"]  # a rule that is no form
    with pytest.raises(ValueError, match="unknown form"):
        claims.check(t)


def test_cases_from_intervals():
    up, down, across = Estimate(1.0, 0.5, 1.5), Estimate(-1.0, -1.5, -0.5), Estimate(0.0, -1.0, 1.0)
    assert [lmcases.side("above", e) for e in (up, down, across)] == [True, False, None]
    assert [lmcases.side("below", e) for e in (up, down, across)] == [False, True, None]
    assert lmcases.side("above", up, 2.0) is False and lmcases.side("below", up, 2.0) is True
    assert lmcases.side("within", Estimate(0.1, -0.2, 0.3), 0.5) is True
    assert lmcases.side("within", up, 0.2) is False and lmcases.side("within", across, 0.5) is None
    assert lmcases.side("outside", up, 0.2) is True
    assert lmcases.excludes(up) and lmcases.excludes(down) and not lmcases.excludes(across)
    assert lmcases.excludes(up, 2.0) and not lmcases.excludes(up, 1.0)
    with pytest.raises(ValueError, match="not an interval test"):
        lmcases.side("holds", up)
    with pytest.raises(ValueError, match="margin must be positive"):
        lmcases.side("within", up, 0.0)
    # the decision of a kept case is the same comparison
    for e in (up, down, across):
        for test in ("above", "below"):
            kept = lmcases.Case.interval("c", test, e, why="w").decision
            assert {"for": True, "against": False, "open": None}[kept] is lmcases.side(test, e)


def _table(rows=slice(None)):
    return claims.table(
        [
            claims.row("1. x", evidence(2), "a, b", form="every"),
            claims.row("2. y", evidence(1, 0, 0), "c", form="identity", basis="by construction"),
            claims.row("3. z", evidence(0, 2, 1), "d", form="most"),
            claims.row("4. w", evidence(), "gpu only", form="every", basis="gpu profile only"),
        ][rows]
    )


def test_save_load_and_summary(tmp_path):
    t = _table()
    assert list(t["verdict"]) == ["reproduced", "reproduced", "contradicted", "not tested"]
    assert claims.save(t, "c", tmp_path / "none") is None  # no claims folder here: nothing written
    assert not (tmp_path / "none").exists()
    claims.save(_table(slice(0, 2)), "02_x", tmp_path)
    claims.save(_table(slice(2, None)), "03_y", tmp_path)
    found = claims.load_all(tmp_path)
    assert list(found["chapter"]) == ["02_x", "02_x", "03_y", "03_y"]
    assert found["n_unresolved"].tolist() == [0, 0, 1, 0]
    counts = claims.summary(found)
    assert counts.loc["02_x", "reproduced"] == 2 and counts.loc["02_x", "differs"] == 0
    assert counts.loc["03_y", "not tested"] == 1 and counts.loc["all chapters", "claims"] == 4
    assert list(counts.columns) == [*claims.VERDICTS, "claims"]
    bases = claims.summary(found, by="basis")
    assert bases.loc["all chapters", "by construction"] == 1 and bases.loc["03_y", "gpu profile only"] == 1


def test_a_verdict_that_does_not_follow_is_refused(tmp_path):
    t = _table()
    t.loc[0, "verdict"] = "contradicted"
    with pytest.raises(ValueError, match="does not follow"):
        claims.save(t, "c", tmp_path)
    with pytest.raises(ValueError, match="missing"):
        claims.save(t.drop(columns="rule"), "c", tmp_path)
    assert not list(tmp_path.iterdir())
    assert claims.load_all(tmp_path).empty


def test_the_chapters_show_the_evidence_beside_the_verdict():
    shown = claims.shown(_table())
    assert shown.loc[2, "cases for · against · open"] == "0 · 2 · 1"
    assert list(shown.columns)[:4] == ["no.", "claim", "verdict", "basis"]
    assert shown["no."].tolist() == ["1", "2", "3", "4"] and shown.loc[0, "claim"] == "x"


def _claims_cell(chapter):
    """The HTML of the claims table that chapter ``chapter`` of book/ shows."""
    import nbformat

    nb = nbformat.read(ROOT / "book" / f"{chapter}.ipynb", as_version=4)
    tables = [
        o["data"]["text/html"]
        for c in nb.cells
        for o in c.get("outputs", [])
        if "lmclaims.show(" in c.source and "text/html" in o.get("data", {})
    ]
    assert tables, f"{chapter}: no claims table shown"
    return tables[0]


def _chapters():
    return sorted(
        f.stem for f in (ROOT / "book" / "claims").glob("*.csv") if not f.name.endswith(claims.CASES)
    )


def test_every_claims_row_is_numbered_and_a_badge_can_link_to_it():
    """Each chapter's claims table shows the claims' numbers in a column of their own, and each
    row carries the id its badges link to (claim-02-7a), in the chapter and on the first page."""
    import html as html_lib

    for chapter in _chapters():
        table = claims.load_all(ROOT / "book" / "claims").query("chapter == @chapter")
        shown = _claims_cell(chapter)
        assert '<th class="col_heading level0 col0" >no.</th>' in shown, chapter
        for r in table.itertuples():
            row = re.search(rf'<tr id="{claims.anchor(chapter, r.claim)}">\s*<td[^>]*>([^<]*)</td>', shown)
            assert row and html_lib.unescape(row[1]) == claims.number(r.claim), (chapter, r.claim)
    assert claims.anchor("02_tendencies", "7a. the fit depends on the strategy") == "claim-02-7a"
    assert claims.link("02_tendencies", "7a") == "02_tendencies.html#claim-02-7a"
    found = claims.load_all(ROOT / "book" / "claims")
    overview = claims.overview(found)
    for r in found.itertuples():
        assert f"`{r.verdict} <{r.chapter}.html#{claims.anchor(r.chapter, r.claim)}>`" in overview, r.claim


def test_the_first_page_counts_the_verdicts_and_gives_the_decided_claims_in_words():
    t = claims.table(
        [
            claims.row("1. The model is good", evidence(2), "a", form="every"),
            claims.row("2a. More data helps", evidence(1), "b", form="every"),
            claims.row("2b. … and levels off", evidence(0, 1), "c", form="every"),
            claims.row("3. M is calibrated", evidence(1, 1), "d", form="every"),
            claims.row("4. it is slow", evidence(0, 0, 1), "e", form="every"),
        ]
    ).assign(chapter="02_x")
    total, blank, line = claims.headline(t).splitlines()
    assert (
        total
        == (
            "**5 claims of 1 study:** {bdg-success}`reproduced 2` {bdg-warning}`differs 1` "
            "{bdg-muted}`inconclusive 1` {bdg-danger}`contradicted 1`"
        )
        and blank == ""
    )
    assert line.startswith("- **{doc}`02_x`** (5 claims) {bdg-ref-success}`reproduced 2 <claims-02_x>` ")
    assert (
        "Reproduced: the model is good {bdg-link-success}`1 <02_x.html#claim-02-1>`; more data helps " in line
    )
    assert (
        "Contradicted: more data helps and levels off {bdg-link-danger}`2b <02_x.html#claim-02-2b>`" in line
    )
    assert (
        "M is calibrated" not in line and "not tested" not in line
    )  # counted; its words are in the overview
    key = claims.key()
    assert all(f"`{v}` {claims.MEANING[v]}" in key for v in claims.VERDICTS)


def test_a_claim_that_starts_with_a_name_keeps_its_capital_on_the_first_page():
    t = claims.table(
        [
            claims.row("3. Transformers fall off at long lengths", evidence(0, 1), "a", form="every"),
            claims.row("4. Most sequences are underestimated", evidence(1), "b", form="every"),
        ]
    )
    line = claims.headline(t.assign(chapter="02_x"))
    assert "Contradicted: Transformers fall off at long lengths" in line
    assert "Reproduced: most sequences are underestimated" in line


NUMBER = r"\d+[a-z]?\b(?!\s*%)"  # "claim 95 %" is the verb
CITED = re.compile(rf"\b[Cc]laims?\s+({NUMBER}(?:(?:\s*,\s*|\s*[–-]\s*|\s+and\s+|\s+or\s+){NUMBER})*)")


def cited(text: str) -> set[str]:
    """The claim numbers ``text`` cites: "claim 8", "claims 3, 5 and 7b", "claims 2a–2c"
    (each claim of a range)."""
    found = set()
    for m in CITED.finditer(text):
        numbers = re.findall(NUMBER, m[1])
        found.update(numbers)
        for a, b in re.findall(rf"({NUMBER})\s*[–-]\s*({NUMBER})", m[1]):
            (i, x), (j, y) = (re.match(r"(\d+)([a-z]?)", n).groups() for n in (a, b))
            if i == j and x and y:  # 2a–2c
                found.update(f"{i}{chr(c)}" for c in range(ord(x), ord(y) + 1))
            elif not x and not y:  # 2–4
                found.update(str(k) for k in range(int(i), int(j) + 1))
    return found


def test_cited_numbers_are_read_whole():
    assert cited("claim 8 and claims 3, 5 and 7b; Claims 2a–2c, claims 4–6, they claim 95 %") == {
        "8",
        "3",
        "5",
        "7b",
        "2a",
        "2b",
        "2c",
        "4",
        "6",
    }


def test_every_claim_a_chapter_cites_is_a_row_of_its_table():
    """A number the prose, the exercises or a parameter's comment cites ("claim 8") is the
    number of a row of the chapter's saved claims table (claim 2 of a table of 2a–2c is not)."""
    import jupytext

    for chapter in _chapters():
        numbers = set(
            pd.read_csv(ROOT / "book" / "claims" / f"{chapter}.csv", dtype=str, keep_default_na=False)[
                "claim"
            ].map(claims.number)
        )
        nb = jupytext.read(ROOT / "notebooks" / f"{chapter}.py")
        for cell in nb.cells:
            text = (
                cell.source
                if cell.cell_type == "markdown"
                else "\n".join(line.partition("#")[2] for line in cell.source.splitlines())
            )
            missing = cited(text) - numbers
            assert not missing, f"{chapter} cites claims {sorted(missing)}, not in its table: {text[:120]!r}"


def test_every_saved_verdict_recomputes_from_its_evidence():
    """Every claims file of the book: the vocabulary, the bases, and each verdict recomputed
    from its evidence columns by the one rule function."""
    files = sorted(f for f in (ROOT / "book" / "claims").glob("*.csv") if not f.name.endswith(claims.CASES))
    assert {f.stem for f in files} >= {
        "02_tendencies",
        "03_segmentation",
        "04_importance_sampling",
        "05_word_level",
        "06_distortion",
    }
    for f in files:
        df = pd.read_csv(f, keep_default_na=False)
        assert list(df.columns) == list(claims.COLUMNS), f.name
        assert set(df["verdict"]) <= set(claims.VERDICTS), f.name
        assert set(df["basis"]) <= set(claims.BASES), f.name
        for r in df.itertuples():
            assert r.verdict == lmcases.verdict(r.rule, r.n_for, r.n_against, r.n_unresolved), (
                f.name,
                r.claim,
            )
            assert len(r.measured) <= claims.MAX_MEASURED, (f.name, r.claim)
        # every study chapter decides its claims by their forms and saves the cases beside them
        assert set(df["rule"]) <= set(lmcases.FORMS), (f.name, sorted(set(df["rule"]) - set(lmcases.FORMS)))
        assert claims.load_cases(f.stem, f.parent) is not None, f"{f.name}: no cases file"


def test_no_notebook_types_a_verdict():
    """A verdict is computed, never typed: no string literal in a chapter's code starts with a
    verdict word."""
    words = "|".join(re.escape(v) for v in claims.VERDICTS)
    typed = re.compile(rf"""(?<![\w])[fFrRbB]?(["'])({words})\b""")
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        code = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
        hits = [line.strip() for line in code if typed.search(line)]
        assert not hits, f"{path.name} types a verdict: {hits[:3]}"


def test_titles_come_from_the_chapters(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A study\n\ntext")])
    nbformat.write(nb, tmp_path / "02_x.ipynb")
    assert claims.title("02_x", tmp_path) == "A study"
    assert claims.title("03_missing", tmp_path) == "03_missing"


def test_a_chapters_summary_sentence_holds_no_role_an_inline_glue_would_print_as_text():
    # the summary is glued inline ({glue:md}), where MyST roles are not parsed: a Markdown link only
    text = claims.in_words(_table())
    assert not re.search(r"\{[a-z:-]+\}`", text) and "](at_scale.html)" in text
