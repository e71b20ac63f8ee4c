"""make test never writes the tree (conftest.py): a notebook that nbval re-executes saves its claims into
a temporary folder, never into the claims/ beside it, even when nbval finds a differing output; and a
notebook computed with another arithmetic, or on a machine outside the pinned family, fails in one line."""

import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from lmnotes.core import numerics
from lmnotes.core.io import ROOT

PLANTED = """import pandas as pd
from lmnotes.report import claims
table = pd.read_csv("claims/03_segmentation.csv", keep_default_na=False)
claims.save(table.iloc[:2], "03_segmentation")  # what a chapter does, with a changed table
print(1 + 1)"""


def planted_book(folder, arithmetic):
    """A book folder of one notebook whose recorded output differs from what it computes, a claims/
    folder, and the project's conftest.py."""
    shutil.copy(ROOT / "conftest.py", folder)
    (folder / "claims").mkdir()
    for name in ("03_segmentation.csv", "03_segmentation.cases.csv"):
        shutil.copy(ROOT / "book" / "claims" / name, folder / "claims")
    cell = nbformat.v4.new_code_cell(
        PLANTED, outputs=[nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    )
    nb = nbformat.v4.new_notebook(
        cells=[cell],
        metadata={
            "lmnotes": {"arithmetic": arithmetic},
            "kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"},
        },
    )
    nbformat.write(nb, folder / "planted.ipynb")


def snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def nbval(folder):
    env = {k: v for k, v in os.environ.items() if k != "LMNOTES_CLAIMS"}
    env.update(PYTHONDONTWRITEBYTECODE="1", COLUMNS="500")  # the summary's lines whole
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--nbval",
            "--nbval-current-env",
            "-q",
            "planted.ipynb",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def git_status():
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        return None
    return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout


@pytest.mark.skipif(not numerics.in_family(), reason=numerics.outside_family_reason() or "")
def test_a_failing_nbval_run_leaves_the_tree_as_it_was(tmp_path):
    planted_book(tmp_path, numerics.describe())
    before, status = snapshot(tmp_path), git_status()
    out = nbval(tmp_path)
    assert out.returncode == 1, out.stdout[-2000:]
    assert "1 failed" in out.stdout and "3" in out.stdout  # the planted output was compared, and differed
    assert snapshot(tmp_path) == before  # claims/ untouched: the notebook saved elsewhere
    assert git_status() == status


def test_a_notebook_of_another_arithmetic_fails_in_one_line(tmp_path):
    planted_book(tmp_path, {"name": "some-other-arithmetic", "threads": 2})
    out = nbval(tmp_path)
    assert out.returncode == 1
    failures = [line for line in out.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failures) == 1 and "planted.ipynb" in failures[0]
    reason = numerics.outside_family_reason()
    assert (
        (reason in failures[0])
        if reason
        else ("computed with the arithmetic" in failures[0] and "re-execute it" in failures[0])
    )
    assert "Cell 0" not in out.stdout  # no cell was executed or compared
