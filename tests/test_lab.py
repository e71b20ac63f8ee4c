"""A lab a class can open (README, "A lab for a class"): `make lab` serves the chapters in
JupyterLab with jupytext, and a chapter opened there runs from a lecturer's imported cache
without training anything."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from lmnotes.core.io import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def test_make_lab_serves_the_chapters_as_notebooks_with_this_environments_kernel(tmp_path):
    port, token = _free_port(), "lab-test"
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token}"
    env = {
        **os.environ,
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg"),
    }
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "data")  # no kernelspec of the user's own
    # -o: the environment as it is (a pyproject.toml newer than the venv's stamp would rebuild it)
    lab = subprocess.Popen(
        [
            "make",
            "--no-print-directory",
            "-o",
            ".venv/.installed",
            "-o",
            ".venv/.wordnet",
            "lab",
            f"LAB_ARGS={args}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}/api"
        for _ in range(120):
            try:
                chapter = _get(f"{base}/contents/03_segmentation.ipynb?token={token}&content=1")
                break
            except OSError:
                assert lab.poll() is None, lab.stderr.read().decode()[-2000:]
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not answer within 60 s")
        # the executed chapter, its parameters cell holding the book's values
        assert chapter["type"] == "notebook"
        cell = next(c for c in chapter["content"]["cells"] if "parameters" in c["metadata"].get("tags", []))
        assert '"gemma3-270m"' not in cell["source"]  # the cell's literal default; the book ran without it
        kernels = _get(f"{base}/kernelspecs?token={token}")
        python = kernels["kernelspecs"][kernels["default"]]["spec"]["argv"][0]
        assert Path(python).resolve().is_relative_to((ROOT / ".venv").resolve()) or python in (
            "python",
            "python3",
        )
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)


@pytest.mark.shared_cache  # the lecturer's cache is this machine's
def test_a_student_runs_a_chapter_from_the_imported_class_cache_without_training(tmp_path):
    """The lecturer exports the cache; a student imports it into an empty one and runs chapter
    02 as the lab runs it (the executed notebook in book/, whose parameters cell holds the
    book's values, cell by cell, its exercise solutions included): nothing is trained, no
    score or sample is computed, only SmolLM2's weights are converted from their package
    (each machine does that itself)."""
    import nbformat
    from nbclient import NotebookClient

    from lmnotes.core import cache

    archive = tmp_path / "class.tar.gz"
    exported = subprocess.run(
        [sys.executable, "-m", "lmnotes.book", "cache", "--export", str(archive)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert exported.returncode == 0, exported.stderr[-2000:]
    if "samples" not in exported.stdout:
        pytest.skip("this machine's cache holds no chapter's samples yet (make book builds them)")
    student = {**os.environ, "LMNOTES_CACHE": str(tmp_path / "student")}
    imported = subprocess.run(
        [sys.executable, "-m", "lmnotes.book", "cache", "--import", str(archive)],
        cwd=tmp_path,
        env=student,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert imported.returncode == 0 and "refused 0" in imported.stdout, imported.stderr[-2000:]

    def held():
        root = tmp_path / "student"
        return {p.relative_to(root).as_posix() for p in root.glob(f"*/*{cache._SEP}*") if p.is_dir()}

    before = held()
    nb = nbformat.read(ROOT / "book" / "02_tendencies.ipynb", as_version=4)
    old = {k: os.environ.get(k) for k in ("LMNOTES_CACHE", "LMNOTES_CLAIMS")}
    os.environ["LMNOTES_CACHE"] = student["LMNOTES_CACHE"]  # the kernel inherits them
    os.environ["LMNOTES_CLAIMS"] = str(tmp_path / "claims")  # the student's claims table, not book/'s
    (tmp_path / "claims").mkdir()
    try:
        t0 = time.perf_counter()
        NotebookClient(
            nb, timeout=1200, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "book")}}
        ).execute()
        seconds = time.perf_counter() - t0
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    added = held() - before
    assert all(entry.startswith("pretrained/") for entry in added), sorted(added)
    assert any(
        c.get("metadata", {}).get("tags", []) == ["solution"]
        or "solution" in c.get("metadata", {}).get("tags", [])
        for c in nb.cells
        if c.cell_type == "code"
    )
    assert seconds < 600, seconds
    # and the student's verdicts are the book's, to the byte
    assert (tmp_path / "claims" / "02_tendencies.csv").read_bytes() == (
        ROOT / "book" / "claims" / "02_tendencies.csv"
    ).read_bytes()
