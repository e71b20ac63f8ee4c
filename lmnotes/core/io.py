"""Atomic file writes and content digests. Used by every chapter (the shared cache of derived
files is :mod:`lmnotes.core.cache`).

A cache entry or an executed notebook is first written to a temporary file in the same folder,
flushed to disk, and then moved into place with :func:`os.replace`, which is atomic on POSIX
and Windows: a reader sees either the old file or the complete new one, never a half-written
file, and an interrupted run leaves at most a stray ``*.tmp`` file that nothing loads.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, Iterator

#: The repository root (parent of the package), used to find ``data/`` and ``params/``.
ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success move it onto ``path`` atomically.

    If the body raises, the temporary file is removed and ``path`` is left untouched. The
    temporary name is hidden (leading dot) and ends in ``suffix``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:  # make the bytes durable before the rename
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))


def write_pickle(path: str | os.PathLike, obj: Any) -> None:
    """Pickle ``obj`` to ``path`` atomically."""
    write_bytes(path, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def read_pickle(path: str | os.PathLike) -> Any:
    """Load a pickle written by :func:`write_pickle`."""
    with open(path, "rb") as fh:
        return pickle.load(fh)


def digest(*parts: Any) -> str:
    """A short stable hash of JSON-serialisable ``parts``, used as a cache key."""
    blob = json.dumps(parts, sort_keys=True, default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def content_digest(*parts: Any) -> str:
    """A short stable hash of ``parts`` that may hold numpy arrays (their dtype, shape and
    bytes), dataclasses (their class and fields), pandas objects, mappings and sequences of
    them, and JSON scalars: the key of a computation on arrays. Written by hand because
    :func:`digest`'s JSON cannot see inside an array (it would hash a truncated repr)."""
    import dataclasses

    import numpy as np
    import pandas as pd

    h = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, np.ndarray):
            a = np.ascontiguousarray(x)
            if a.dtype == object:
                feed(a.tolist())
                return
            h.update(f"array {a.dtype.str} {a.shape}".encode())
            h.update(a.tobytes())
        elif isinstance(x, pd.DataFrame):
            h.update(b"DataFrame")
            feed(x.index)
            for c in x.columns:
                feed(c)
                feed(x[c].to_numpy())
        elif isinstance(x, pd.Series):
            h.update(b"Series")
            feed(x.name)
            feed(x.index)
            feed(x.to_numpy())
        elif isinstance(x, pd.Index):
            h.update(b"Index")
            feed(x.to_numpy())
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            h.update(f"dataclass {type(x).__qualname__}".encode())
            for f in dataclasses.fields(x):
                feed(f.name)
                feed(getattr(x, f.name))
        elif isinstance(x, dict):
            h.update(f"dict {len(x)}".encode())
            for k in sorted(x, key=repr):
                feed(k)
                feed(x[k])
        elif isinstance(x, list) and all(type(v) is str for v in x):  # a document's tokens: at once
            h.update(b"strings " + json.dumps(x).encode())
        elif isinstance(x, (list, tuple, range)):
            h.update(f"{type(x).__name__} {len(x)}".encode())
            for v in x:
                feed(v)
        elif isinstance(x, np.generic):
            feed(x.item())
        elif x is None or isinstance(x, (str, int, float, bool)):
            h.update(f"{type(x).__name__} {x!r}".encode())
        else:
            raise TypeError(f"cannot take the content digest of a {type(x).__name__}")

    feed(list(parts))
    return h.hexdigest()[:16]


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes (hex), so that a changed input invalidates the cache."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
