"""Are the executed chapters the same as at another commit? Compares, cell by cell, the
outputs of every code cell of ``book/*.ipynb`` and the bytes of every claims file
``book/claims/*.csv`` with those a git revision holds. For changes that must not change what
the reader sees (moving code between the package and the chapters): only the code cells'
sources may differ.

``python -m lmnotes.book.compare [REV]`` (default ``HEAD``) prints one line per file and
exits with 1 if any output differs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from lmnotes.core.io import ROOT


@dataclass(frozen=True)
class Difference:
    """What differs in one file: the code cells (by position) whose outputs differ, or why the
    file cannot be compared cell by cell."""

    path: str
    cells: tuple[int, ...] = ()
    why: str = ""


def outputs(notebook: dict) -> list[str]:
    """Each code cell's outputs, as canonical JSON, in order."""
    return [
        json.dumps(c.get("outputs", []), sort_keys=True)
        for c in notebook["cells"]
        if c["cell_type"] == "code"
    ]


def compare_notebooks(path: str, before: dict, after: dict) -> Difference | None:
    """The code cells whose outputs differ between two versions of one notebook, else None."""
    a, b = outputs(before), outputs(after)
    if len(a) != len(b):
        return Difference(path, why=f"{len(a)} code cells before, {len(b)} after")
    cells = tuple(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
    return Difference(path, cells) if cells else None


def _at(rev: str, path: str, root: Path) -> bytes | None:
    done = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True)
    return done.stdout if done.returncode == 0 else None


def compare(rev: str = "HEAD", book: str = "book", root: Path = ROOT) -> tuple[list[str], list[Difference]]:
    """The files compared and the differences between the working tree's ``book/`` and
    ``rev``'s, in the repository at ``root``."""
    folder = root / book
    compared, differences = [], []
    files = sorted(folder.glob("*.ipynb")) + sorted((folder / "claims").glob("*.csv"))
    for path in (p for p in files if not p.name.startswith(".")):  # not a run's temporary file
        rel = path.relative_to(root).as_posix()
        old = _at(rev, rel, root)
        compared.append(rel)
        if old is None:
            differences.append(Difference(rel, why=f"not in {rev}"))
        elif path.suffix == ".csv":
            if old != path.read_bytes():
                differences.append(Difference(rel, why="the claims file differs"))
        elif (d := compare_notebooks(rel, json.loads(old), json.loads(path.read_text()))) is not None:
            differences.append(d)
    return compared, differences


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    rev = argv[0] if argv else "HEAD"
    compared, differences = compare(rev)
    bad = {d.path: d for d in differences}
    for rel in compared:
        d = bad.get(rel)
        print(
            f"{rel}: "
            + ("same outputs" if d is None else d.why or f"outputs differ in code cells {list(d.cells)}")
        )
    print(f"{len(compared) - len(bad)} of {len(compared)} files have the outputs of {rev}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
