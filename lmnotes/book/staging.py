"""All or nothing for what one run writes into a book folder (``book/`` or ``book/gpu/``).

A chapter writes more than its page: its claims and cases files (``claims/NN.csv``,
``claims/NN.cases.csv``) are saved by a cell in the middle of the notebook, and the summary
pages that run after it read them. A run that failed in a later cell used to leave new claims
beside the old page, and the next run's first page then counted verdicts the chapter's page did
not show. So every notebook of a run is executed inside a hidden staging folder in the book
folder (on the same file system, so that moving a file into place is one rename): the pages
and the claims folder live there; everything else of the book folder is reachable through
links, read-only by convention. Only when every notebook of the run has succeeded are the new
pages and the changed claims files moved into the book folder, with Ctrl-C and SIGTERM held
back for those few renames. A failed, interrupted or killed run leaves the book folder byte for
byte as it was; a folder left by a killed run is removed by the next one. Used by
:func:`lmnotes.book.run.run`.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import signal
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

#: The hidden prefix of a staging folder (ignored by git and by jupyter-book).
PREFIX = ".run-"
CLAIMS = "claims"
OWNER = ".pid"  # the runner's process id, in its staging folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _clear_leftovers(folder: Path) -> None:
    """Remove the staging folders of runs killed without notice (SIGKILL, a power cut): those
    whose runner's process is gone; another runner's folder, still in use, stays."""
    for old in folder.glob(f"{PREFIX}*"):
        if not old.is_dir() or old.is_symlink():
            continue
        try:
            pid = int((old / OWNER).read_text())
        except (OSError, ValueError):
            pid = 0
        if not pid or not _alive(pid):
            shutil.rmtree(old, ignore_errors=True)
    for old in folder.glob(".*.ipynb.*"):  # the temporary page of a runner before this module
        old.unlink()


def _prepare(folder: Path, stage: Path) -> None:
    (stage / OWNER).write_text(str(os.getpid()))
    for entry in folder.iterdir():
        if entry.name.startswith(".") or entry.name == CLAIMS:
            continue
        (stage / entry.name).symlink_to(Path("..") / entry.name)
    (stage / CLAIMS).mkdir()
    if (folder / CLAIMS).is_dir():
        for f in (folder / CLAIMS).iterdir():
            if f.is_file() and not f.name.startswith("."):
                shutil.copy2(f, stage / CLAIMS / f.name)


def page(stage: Path, name: str) -> Path:
    """Where the run writes notebook ``name``'s page in the staging folder. Until the new page
    is complete, the path is a link to the book's current page, which the notebook may read
    as it runs (the status page takes every page's title, its own too); the finished page is
    renamed onto the link, which replaces the link and leaves the book's page as it was."""
    return stage / f"{name}.ipynb"


def _changes(stage: Path, folder: Path) -> tuple[list[tuple[Path, Path]], list[Path]]:
    """(source, destination) pairs to move and files to remove, to make ``folder`` what the
    run made of it."""
    moves = [(p, folder / p.name) for p in sorted(stage.glob("*.ipynb")) if not p.is_symlink()]
    new, old = stage / CLAIMS, folder / CLAIMS
    for f in sorted(new.iterdir()):
        if f.is_file() and (not (old / f.name).is_file() or not filecmp.cmp(f, old / f.name, shallow=False)):
            moves.append((f, old / f.name))
    gone = (
        [
            f
            for f in sorted(old.glob("*"))
            if f.is_file() and not f.name.startswith(".") and not (new / f.name).exists()
        ]
        if old.is_dir()
        else []
    )
    return moves, gone


def _commit(stage: Path, folder: Path) -> None:
    moves, gone = _changes(stage, folder)
    held = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)  # a Ctrl-C waits for the renames
    try:
        for source, target in moves:
            target.parent.mkdir(exist_ok=True)  # claims/, where a book folder has none yet
            with open(source, "rb+") as fh:  # the bytes on disk before the rename
                os.fsync(fh.fileno())
            os.replace(source, target)
        for f in gone:
            f.unlink()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


@contextmanager
def staged(folder: str | os.PathLike) -> Iterator[Path]:
    """Yield a staging folder for one run into ``folder``; when the body returns, move what it
    wrote into ``folder``; when it raises (a failed cell, Ctrl-C), keep nothing of it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _clear_leftovers(folder)
    stage = Path(tempfile.mkdtemp(prefix=PREFIX, dir=folder))
    try:
        _prepare(folder, stage)
        yield stage
        _commit(stage, folder)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
