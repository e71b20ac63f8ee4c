"""Claims tables saved by the study chapters and summarised on the first page."""

import pandas as pd
import pytest

from lmnotes import claims


def test_save_load_and_summary(tmp_path):
    assert claims.save(pd.DataFrame({"claim": ["1"], "verdict": ["reproduced"], "measured": ["x"]}), "c",
                       tmp_path / "none") is None  # no claims folder here: nothing written
    assert not (tmp_path / "none").exists()
    a = pd.DataFrame({"claim": ["1. x", "2. y"], "verdict": ["reproduced (by construction)", "contradicted"],
                      "measured": ["a, b", "c"]}).set_index("claim")
    b = pd.DataFrame({"claim": ["1. z"], "verdict": ["inconclusive"], "measured": ["d"]})
    claims.save(a, "02_x", tmp_path)
    claims.save(b, "03_y", tmp_path)
    found = claims.load_all(tmp_path)
    assert list(found["chapter"]) == ["02_x", "02_x", "03_y"]
    assert list(found["outcome"]) == ["reproduced", "contradicted", "inconclusive"]
    counts = claims.summary(found)
    assert counts.loc["02_x", "reproduced"] == 1 and counts.loc["02_x", "differs"] == 0
    assert counts.loc["all chapters", "claims"] == 3
    assert list(counts.columns) == [*claims.VERDICTS, "claims"]


def test_bad_tables_are_refused(tmp_path):
    with pytest.raises(ValueError, match="must start with one of"):
        claims.save(pd.DataFrame({"claim": ["1"], "verdict": ["maybe"], "measured": ["x"]}), "c", tmp_path)
    with pytest.raises(ValueError, match="missing"):
        claims.save(pd.DataFrame({"claim": ["1"], "verdict": ["reproduced"]}), "c", tmp_path)
    assert not list(tmp_path.iterdir())
    assert claims.load_all(tmp_path).empty


def test_the_book_saves_a_claims_table_per_study_chapter():
    from lmnotes import book

    found = claims.load_all(book.BOOK / "claims")
    assert {"02_tendencies", "03_segmentation"} <= set(found["chapter"])


def test_titles_come_from_the_chapters(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A study\n\ntext")])
    nbformat.write(nb, tmp_path / "02_x.ipynb")
    assert claims.title("02_x", tmp_path) == "A study"
    assert claims.title("03_missing", tmp_path) == "03_missing"
