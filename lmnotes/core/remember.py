"""Pure computations kept in the shared cache (:mod:`lmnotes.core.cache`): a :class:`Store`
wraps a function whose value depends only on its arguments (arrays, tables, dataclasses and
JSON scalars, hashed by content with :func:`lmnotes.core.io.content_digest`; its seeds among
them) and on the code of the modules it names, and reads the value back when the same call
was made before. The studies whose warm runs were mostly their own arithmetic use it: the
importance-sampling chapter (04, kind ``latent``) and the tendencies chapter's calibration
checks (02, kind ``calibration``).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from lmnotes.core import cache as lmcache
from lmnotes.core import codeversion, io
from lmnotes.core.progress import duration, note

F = TypeVar("F", bound=Callable)
T = TypeVar("T")


def kept(kind: str, label: str, key: str, compute: Callable[[], T], what: str, file: str = "value.pkl") -> T:
    """``compute()``, kept in the shared cache as entry ``label`` of ``kind`` under ``key``
    (pickled into ``file``); the console hears ``what`` is computed, and how long it took,
    when it is not found there. Every cached computation goes through here: a :class:`Store`
    and :func:`lmnotes.models.memo.cached`."""

    def build(folder: Path):
        note(f"{what} ...")
        t0 = time.perf_counter()
        value = compute()
        note(f"{what} done in {duration(time.perf_counter() - t0)}")
        io.write_pickle(folder / file, value)
        return value

    return lmcache.fetch(kind, label, key, build, lambda folder: io.read_pickle(folder / file))


class Store:
    """The cache kind ``kind`` (registered here) for the values of functions computed by the
    code of ``modules`` (dotted names) with numpy and scipy; decorate each such function with
    the store."""

    def __init__(self, kind: str, modules: Sequence[str]):
        self.kind, self.modules = kind, tuple(modules)
        lmcache.register_kind(kind, self.version)

    def version(self) -> str:
        import numpy
        import scipy

        return codeversion.version(self.modules, numpy.__version__, scipy.__version__)

    def __call__(self, fn: F) -> F:
        name = f"{fn.__module__}.{fn.__qualname__}"
        kind = self.kind

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            key = io.digest(kind, name, io.content_digest(list(args), kwargs), lmcache.KINDS[kind]())
            return kept(kind, fn.__qualname__, key, lambda: fn(*args, **kwargs), fn.__qualname__)

        return inner  # type: ignore[return-value]


def package_modules(package: str, leave_out: Sequence[str] = ()) -> tuple[str, ...]:
    """The dotted names of ``package``'s modules (one level), but for those in ``leave_out``."""
    import importlib
    import pkgutil

    folder = Path(importlib.import_module(package).__file__).parent
    return tuple(
        f"{package}.{m.name}" for m in pkgutil.iter_modules([str(folder)]) if m.name not in leave_out
    )
