"""Atomic writes (lmnotes.core.io): an interrupted write never leaves a half-written file."""

import pytest

from lmnotes.core import io


def _leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".")]


def test_write_replaces_whole_file(tmp_path):
    target = tmp_path / "sub" / "x.txt"
    io.write_text(target, "old")
    io.write_text(target, "new")
    assert target.read_text() == "new"
    assert _leftovers(target.parent) == []
    assert target.stat().st_mode & 0o777 == 0o666 & ~io._umask()  # not mkstemp's private 0600


def test_interrupted_write_keeps_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "x.pkl"
    io.write_pickle(target, {"a": 1})
    with pytest.raises(KeyboardInterrupt):
        with io.atomic_path(target) as tmp:
            tmp.write_bytes(b"half a pick")  # the writer dies here
            raise KeyboardInterrupt
    assert io.read_pickle(target) == {"a": 1}
    assert _leftovers(tmp_path) == []


def test_interrupted_first_write_leaves_nothing(tmp_path):
    target = tmp_path / "new.pkl"
    with pytest.raises(RuntimeError):
        with io.atomic_path(target, suffix=".ipynb") as tmp:
            assert tmp.name.startswith(".new.pkl.") and tmp.name.endswith(".ipynb")
            tmp.write_text("partial")
            raise RuntimeError("disk full")
    assert list(tmp_path.iterdir()) == []


def test_digest_is_stable_and_sensitive():
    assert io.digest("corpus", 1, [0.8, 0.1, 0.1]) == io.digest("corpus", 1, [0.8, 0.1, 0.1])
    assert io.digest("corpus", 1, [0.8, 0.1, 0.1]) != io.digest("corpus", 1, [0.7, 0.2, 0.1])
