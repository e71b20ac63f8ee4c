"""The shared cache (lmnotes.core.cache): where it lives, building once, locking, corrupt and
interrupted entries, errors that name LMNOTES_CACHE, listing and pruning. Every test here uses
a temporary cache folder."""

import errno
import json
import multiprocessing
import time

import pytest

from lmnotes.core import cache
from lmnotes.core import io


@pytest.fixture(autouse=True)
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(cache.KINDS, "thing", lambda: "v1")
    return tmp_path / "cache"


def writer(text, calls):
    def build(folder):
        calls.append(1)
        (folder / "data.txt").write_text(text)
        return text

    return build


def read(folder):
    return (folder / "data.txt").read_text()


def test_root_follows_the_conventions(tmp_path, monkeypatch):
    assert cache.root() == tmp_path / "cache"
    monkeypatch.delenv("LMNOTES_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.root() == tmp_path / "xdg" / "lmnotes"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.root() == tmp_path / "home" / ".cache" / "lmnotes"


def test_builds_once_then_loads(tmp_cache):
    calls = []
    assert cache.fetch("thing", "a/b", "k1", writer("x", calls), read) == "x"
    assert cache.fetch("thing", "a/b", "k1", writer("y", calls), read) == "x"
    assert len(calls) == 1
    folder = tmp_cache / "thing" / "a__b--k1"
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["version"] == "v1" and meta["files"]["data.txt"]["bytes"] == 1
    assert [p.name for p in (tmp_cache / "thing").iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("damage", ["truncate", "flip", "meta", "unloadable"])
def test_a_corrupt_entry_is_removed_and_rebuilt_with_a_warning(tmp_cache, damage, tmp_path, monkeypatch):
    # the warning is a progress line for the console (lmnotes.core.progress), not a Python
    # warning, which a notebook would show among its outputs
    log = tmp_path / "progress.log"
    monkeypatch.setenv("LMNOTES_PROGRESS", str(log))
    calls = []
    cache.fetch("thing", "a", "k", writer("hello", calls), read)
    folder = tmp_cache / "thing" / "a--k"
    if damage == "truncate":
        (folder / "data.txt").write_text("hel")
    elif damage == "flip":
        (folder / "data.txt").write_text("jello")
    elif damage == "meta":
        (folder / "meta.json").write_text("{")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loader = read if damage != "unloadable" else (lambda f: (_ for _ in ()).throw(EOFError("bad pickle")))
        assert cache.fetch("thing", "a", "k", writer("hello", calls), loader) == "hello"
    assert len(calls) == 2 and read(folder) == "hello"
    assert f"lmnotes: warning: cache entry {folder} is corrupt" in log.read_text()


def test_an_interrupted_build_leaves_nothing(tmp_cache):
    def dies(folder):
        (folder / "data.txt").write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cache.fetch("thing", "a", "k", dies, read)
    assert [p.name for p in (tmp_cache / "thing").iterdir() if not p.name.endswith(".lock")] == []
    calls = []
    assert cache.fetch("thing", "a", "k", writer("whole", calls), read) == "whole"


def _slow_fetch(root, out):
    import os

    os.environ["LMNOTES_CACHE"] = root
    cache.KINDS["thing"] = lambda: "v1"

    def build(folder):
        with open(out, "a") as fh:
            fh.write("built\n")
        time.sleep(1.0)
        (folder / "data.txt").write_text("shared")
        return "shared"

    assert cache.fetch("thing", "a", "k", build, read) == "shared"


def test_two_processes_build_an_entry_once(tmp_cache, tmp_path):
    out = tmp_path / "builds.txt"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_slow_fetch, args=(str(tmp_cache), str(out))) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    assert out.read_text() == "built\n"


def test_unwritable_or_full_cache_names_the_variable(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("LMNOTES_CACHE", str(blocker / "cache"))
    with pytest.raises(cache.CacheError, match="LMNOTES_CACHE"):
        cache.root()
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "ok"))

    def full(folder):
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(cache.CacheError, match="disk is full.*LMNOTES_CACHE"):
        cache.fetch("thing", "a", "k", full, read)


def test_listing_and_pruning(tmp_cache, monkeypatch):
    cache.fetch("thing", "old", "k", writer("o", []), read)
    monkeypatch.setitem(cache.KINDS, "thing", lambda: "v2")  # the producing code changed
    cache.fetch("thing", "new", "k", writer("n", []), read)
    (tmp_cache / "thing" / ".new--k2.abc.tmp").mkdir()  # left by a killed build
    (tmp_cache / "gone").mkdir()
    (tmp_cache / "gone" / "x--k").mkdir()  # a kind the code no longer has
    (tmp_cache / "thing" / "half--k").mkdir()  # no meta.json
    monkeypatch.setitem(cache.FILES, "kept.json", "a file its code registered")
    (tmp_cache / "kept.json").write_text("{}")
    (tmp_cache / "stray.json").write_text("{}")  # a file nobody registered
    status = {(e.kind, e.name): e.status for e in cache.entries()}
    assert status == {
        ("thing", "old"): "stale",
        ("thing", "new"): "current",
        ("thing", ".new--k2.abc.tmp"): "temporary",
        ("gone", "x"): "unknown kind",
        ("thing", "half"): "incomplete",
        ("-", "kept.json"): "kept",
        ("-", "stray.json"): "unknown kind",
    }
    removed = {(e.kind, e.name) for e in cache.prune()}
    assert removed == set(status) - {("thing", "new"), ("-", "kept.json")}
    assert [(e.kind, e.name, e.status) for e in cache.entries()] == [
        ("thing", "new", "current"),
        ("-", "kept.json", "kept"),
    ]
    # a build in progress (its entry's lock held) keeps its temporary folder
    (tmp_cache / "thing" / ".busy--k.xyz.tmp").mkdir()
    with cache._lock(tmp_cache / "thing" / "busy--k"):
        assert cache.prune() == []
    assert (tmp_cache / "thing" / ".busy--k.xyz.tmp").is_dir()
    assert [e.name for e in cache.prune()] == [".busy--k.xyz.tmp"]  # once the builder is gone
    assert not list((tmp_cache / "thing").glob("old*.lock"))


def test_export_and_import_share_entries_and_refuse_bad_ones(tmp_cache, tmp_path, monkeypatch):
    """A lecturer's cache goes to a student's machine as a tarball; an entry whose file was
    altered, or that other code made, is refused, and the rest arrive intact."""
    import tarfile

    calls = []
    cache.fetch("thing", "a", "k1", writer("hello", calls), read)
    cache.fetch("thing", "b", "k2", writer("world", calls), read)
    monkeypatch.setitem(cache.KINDS, "other", lambda: "v1")
    cache.fetch("other", "c", "k3", writer("not shared", calls), read)
    tarball = tmp_path / "class.tar.gz"
    assert {e.name for e in cache.export(tarball, kinds=("thing",))} == {"a", "b"}

    # a student's empty cache
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "student"))
    added, refused, present = cache.import_(tarball)
    assert sorted(added) == ["thing/a--k1", "thing/b--k2"] and refused == [] and present == []
    assert cache.fetch("thing", "a", "k1", writer("rebuilt", calls), read) == "hello" and len(calls) == 3
    assert cache.import_(tarball) == ([], [], ["thing/a--k1", "thing/b--k2"])  # already there: kept

    # altered bytes and other code's version are refused
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(tarball) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    (tmp_path / "x" / "thing" / "a--k1" / "data.txt").write_text("jello")
    with tarfile.open(bad, "w:gz") as tar:
        tar.add(tmp_path / "x" / "thing", arcname="thing")
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "other-student"))
    monkeypatch.setitem(cache.KINDS, "thing", lambda: "v2")
    added, refused, _ = cache.import_(bad)
    assert added == [] and len(refused) == 2
    assert any("data.txt does not match its SHA-256" in r for r in refused)
    assert any("made by other code" in r for r in refused)


def test_an_exported_archive_is_readable_by_others_and_a_reimport_says_what_was_there(
    tmp_cache, tmp_path, monkeypatch
):
    """The tarball is for other people: it gets a new file's usual mode, not mkstemp's 0600.
    Importing it a second time says how many entries were already present."""
    import os

    from lmnotes.book import run as book

    cache.fetch("thing", "a", "k1", writer("hello", []), read)
    cache.fetch("thing", "b", "k2", writer("world", []), read)
    tarball = tmp_path / "class.tar.gz"
    old = os.umask(0o022)
    try:
        cache.export(tarball, kinds=("thing",))
    finally:
        os.umask(old)
    assert tarball.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left

    monkeypatch.setattr(book, "_register_every_kind", lambda: None)  # "thing" is registered here
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "student"))
    assert "imported 2 entries" in book.share_cache(import_=str(tarball))
    again = book.share_cache(import_=str(tarball))
    assert "imported 0 entries" in again and "2 already present" in again and "refused 0" in again


def test_an_import_that_refuses_an_entry_or_finds_none_is_an_error(tmp_cache, tmp_path, monkeypatch):
    """A tampered entry, or a tar archive that holds no cache entry, was "imported 0 entries" with
    exit code 0: a student would then train what the lecturer meant to share. Both are a
    BookError (one error line and exit code 2), which says what was refused and why."""
    import tarfile

    from lmnotes.book import run as book

    entry = cache.fetch("thing", "a", "k1", writer("hello", []), read)
    tampered = tmp_path / "tampered.tar.gz"
    path = cache.entry_path("thing", "a", "k1")
    (path / "data.txt").write_text("changed")
    cache.export(tampered, kinds=("thing",))
    plain = tmp_path / "plain.tar"
    (tmp_path / "notes.txt").write_text("a tar archive, but no cache\n")
    with tarfile.open(plain, "w") as tar:
        tar.add(tmp_path / "notes.txt", arcname="notes.txt")
    monkeypatch.setattr(book, "_register_every_kind", lambda: None)
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "student"))
    with pytest.raises(book.BookError, match=r"refused 1 entry \(thing/a--k1: data.txt has 7 bytes, not 5"):
        book.share_cache(import_=str(tampered))
    with pytest.raises(book.BookError, match="it holds no cache entry"):
        book.share_cache(import_=str(plain))
    assert not list((tmp_path / "student").glob("thing/*--*"))
    assert entry is not None


def test_importing_a_file_that_is_no_archive_is_a_cache_error(tmp_cache, tmp_path):
    """A text file, or an archive cut short, is one CacheError naming the file (the command
    line makes it one error line and exit code 2), not a tarfile traceback."""
    cache.fetch("thing", "a", "k1", writer("hello " * 20000, []), read)
    tarball = tmp_path / "class.tar.gz"
    cache.export(tarball, kinds=("thing",))
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(tarball.read_bytes()[: tarball.stat().st_size // 2])
    text = tmp_path / "notes.txt"
    text.write_text("not an archive\n")
    for bad in (text, cut):
        with pytest.raises(cache.CacheError, match=f"{bad} is not a cache archive"):
            cache.import_(bad)


def test_content_digests_see_inside_arrays_dataclasses_and_tables():
    import dataclasses

    import numpy as np
    import pandas as pd

    @dataclasses.dataclass(frozen=True)
    class Pair:
        a: np.ndarray
        b: int

    x = np.arange(2000.0)  # longer than numpy's printed repr, which elides the middle
    y = x.copy()
    y[1000] += 1e-9
    d = io.content_digest
    assert d(x, {"k": 1}) == d(x.copy(), {"k": 1})
    assert d(x) != d(y) and d(x) != d(x.astype(np.float32)) and d(x) != d(x.reshape(40, 50))
    assert d(Pair(x, 1)) == d(Pair(x.copy(), 1)) != d(Pair(x, 2))
    t = pd.DataFrame({"u": [1, 2], "v": ["a", "b"]})
    assert d(t) == d(t.copy()) != d(t.assign(v=["a", "c"]))
    assert d([1, 2]) != d((1, 2)) and d({"a": 1, "b": 2}) == d({"b": 2, "a": 1})
    with pytest.raises(TypeError, match="content digest of a object"):
        d(object())


def test_a_remembered_computation_runs_once_per_input(tmp_cache):
    import numpy as np

    from lmnotes.studies.importance import cached

    calls = []

    @cached.remembered
    def total(a, scale=1.0):
        calls.append(1)
        return float(a.sum() * scale)

    a = np.arange(5.0)
    assert total(a) == total(a.copy()) == 10.0 and len(calls) == 1
    assert total(a, scale=2.0) == 20.0 and total(a + 1) == 15.0 and len(calls) == 3
    assert [e.kind for e in cache.entries()].count("latent") == 3
