"""The check that a change left every executed chapter's outputs as they were."""

from lmnotes.book import compare


def _nb(*cells):
    return {
        "cells": [
            {"cell_type": kind, "source": src, "outputs": outs}
            if kind == "code"
            else {"cell_type": kind, "source": src}
            for kind, src, outs in cells
        ]
    }


OUT = [{"output_type": "stream", "name": "stdout", "text": "42\n"}]


def test_a_changed_source_with_the_same_outputs_is_the_same():
    before = _nb(("markdown", "# t", None), ("code", "x = 6 * 7\nprint(x)", OUT))
    after = _nb(("markdown", "# t", None), ("code", "from m import answer\nprint(answer())", OUT))
    assert compare.compare_notebooks("a.ipynb", before, after) is None


def test_a_changed_output_is_named_by_its_code_cell():
    before = _nb(("code", "a", []), ("markdown", "m", None), ("code", "b", OUT))
    after = _nb(
        ("code", "a", []),
        ("markdown", "m", None),
        ("code", "b", [{"output_type": "stream", "name": "stdout", "text": "41\n"}]),
    )
    d = compare.compare_notebooks("a.ipynb", before, after)
    assert d is not None and d.cells == (1,)


def test_a_cell_more_or_less_cannot_be_compared_cell_by_cell():
    d = compare.compare_notebooks(
        "a.ipynb", _nb(("code", "a", OUT)), _nb(("code", "a", OUT), ("code", "b", []))
    )
    assert d is not None and d.cells == () and "1 code cells before, 2 after" in d.why


def test_a_commit_and_a_working_tree_compare_by_outputs_and_claims_bytes(tmp_path):
    import json
    import subprocess

    (tmp_path / "book" / "claims").mkdir(parents=True)
    nb, csv = tmp_path / "book" / "01_x.ipynb", tmp_path / "book" / "claims" / "01_x.csv"
    nb.write_text(json.dumps(_nb(("code", "print(42)", OUT))))
    csv.write_text("claim,verdict\na,reproduced\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "book"], check=True)

    nb.write_text(json.dumps(_nb(("code", "print(6 * 7)", OUT))))  # the source only
    assert compare.compare("HEAD", root=tmp_path) == (["book/01_x.ipynb", "book/claims/01_x.csv"], [])
    csv.write_text("claim,verdict\na,differs\n")
    nb.write_text(json.dumps(_nb(("code", "print(41)", []))))
    _, differences = compare.compare("HEAD", root=tmp_path)
    assert [(d.path, d.cells, bool(d.why)) for d in differences] == [
        ("book/01_x.ipynb", (0,), False),
        ("book/claims/01_x.csv", (), True),
    ]
