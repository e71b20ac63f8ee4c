"""The importance-sampling chapter's (04) heavy arithmetic kept in the shared cache: the
repeated runs, the curves to K = 10⁴, the coverage simulation and the other computations on
the switch-LM draw hundreds of millions of latent paths in numpy, which took most of the
chapter's ten warm minutes. :func:`remembered` wraps such a function: its value is computed
once for the same inputs (arrays, chains and tables hashed by content,
:func:`lmnotes.core.io.content_digest`), the same code (every module of this study but its
claims, and numpy's version) and the same arguments, and read back from the cache after.

Every wrapped function is deterministic given its inputs (its seeds are arguments), so a
value read back is bit for bit the one it would compute.
"""

from __future__ import annotations

import functools
import time
import pkgutil
from pathlib import Path
from typing import Callable, TypeVar

from lmnotes.core import cache as lmcache
from lmnotes.core import codeversion, io
from lmnotes.core.progress import duration, note

F = TypeVar("F", bound=Callable)

#: The modules whose code decides the cached values: this study's, but for its claims (which
#: read the values and compute none), and the numerics they use.
def _modules(package: str, folder: Path, leave_out: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(f"{package}.{m.name}" for m in pkgutil.iter_modules([str(folder)]) if m.name not in leave_out)


MODULES = (_modules("lmnotes.studies.importance", Path(__file__).parent, ("claims",))
           + _modules("lmnotes.stats", Path(__file__).parents[2] / "stats") + ("lmnotes.core.numerics",))


def _version() -> str:
    import numpy
    import scipy

    return codeversion.version(MODULES, numpy.__version__, scipy.__version__)


lmcache.register_kind("latent", _version)


def remembered(fn: F) -> F:
    """``fn``, its values kept in the shared cache under the kind ``latent``, keyed by its name,
    the content of its arguments and :data:`MODULES`' code."""
    name = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def inner(*args, **kwargs):
        key = io.digest("latent", name, io.content_digest(list(args), kwargs), lmcache.KINDS["latent"]())

        def build(folder: Path):
            note(f"{fn.__qualname__} ...")
            t0 = time.perf_counter()
            value = fn(*args, **kwargs)
            note(f"{fn.__qualname__} done in {duration(time.perf_counter() - t0)}")
            io.write_pickle(folder / "value.pkl", value)
            return value

        return lmcache.fetch("latent", fn.__qualname__, key, build, lambda folder: io.read_pickle(folder / "value.pkl"))

    return inner  # type: ignore[return-value]
