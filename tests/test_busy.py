"""Tests that hold on a busy machine: nbval of a chapter and the CLI's error line, each beside a
CPU hog (two processes that keep two cores busy), as on a student's laptop with a browser
open or a CI machine shared with other jobs."""

import os
import subprocess
import sys
import tomllib

import pytest

from lmnotes.core import io
from test_cli import _error_line, book_unchanged, cli  # noqa: F401 (a fixture)


@pytest.fixture
def cpu_hog():
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for h in hogs:
        h.kill()
        h.wait()


def test_the_cell_timeout_is_the_projects_own_and_generous():
    opts = tomllib.loads((io.ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    timeout = int(opts.split("--nbval-cell-timeout=")[1].split()[0])
    assert timeout >= 3 * 33 * 60 // 2, "the slowest cold cell takes over 33 min on a loaded machine"


def test_nbval_of_a_chapter_passes_beside_a_cpu_hog(cpu_hog):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "book/00_corpus.ipynb"],
        cwd=io.ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ},
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout.splitlines()[-1]


def test_the_clis_error_comes_first_beside_a_cpu_hog(cpu_hog, tmp_path, book_unchanged):  # noqa: F811
    docs = tmp_path / "texts"  # enough documents to pass the checks; one the notebook refuses
    docs.mkdir()
    for i in range(8):
        (docs / f"{i}.txt").write_text(f"Document number {i} has a few words in it. " * 5 + "\n")
    (docs / "latin1.txt").write_bytes(b"Caf\xe9 au lait is a drink. " * 5)
    result = cli(
        "run",
        "00_corpus",
        "-p",
        "corpus",
        "texts",
        cwd=tmp_path,
        env={"LMNOTES_CACHE": str(tmp_path / "cache")},
    )
    assert _error_line(result).startswith("error: 00_corpus: CorpusError: ")
    assert "is not UTF-8 text" in _error_line(result)
    assert result.stderr.lstrip().startswith("error: 00_corpus: CorpusError"), result.stderr[:500]
