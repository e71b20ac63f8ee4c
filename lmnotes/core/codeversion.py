"""The version of the code that produces a kind of cache entry (:mod:`lmnotes.core.cache`):
a hash of the producing modules' source with their import statements left out. Every
chapter, through the kinds it caches (the prepared corpus, trained models, scores, samples).

Modules are named, not located, and their imports do not count, so moving a module from one
package to another (which rewrites its imports and nothing else) keeps every entry it made.
An edit to the code itself gives a new version, and the cache builds new entries. The one
edit this misses: an import that binds a different object under the same name; change the
code that uses it as well, or the kind's own version constant.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from pathlib import Path
from typing import Any, Sequence

from lmnotes.core import io

# Versions that compute the same bits as an earlier one map to it, so that no entry is
# rebuilt; a later edit to the code gives a version absent from this table.
# - Entries made before the package was laid out in layers were keyed by the raw bytes of
#   their producing files. The layout moved code between modules and rewrote imports, but
#   computes the same bits (the book's outputs were compared cell by cell).
# - Samples and draws were keyed by the CUDA sampler too (models.graphsample, models.static),
#   which the CPU never runs; since 2026-11-27 only what is sampled on CUDA is
#   (models.memo.CUDA_SAMPLING), and the CPU's versions without them map to those with them.
# - The learning-rate schedule's formula moved from a lambda into models.train.lr_factor
#   (the same arithmetic, 2026-11-27).
# - Training's improvement rule named (models.train.improves) and an optional stop at a
#   validation loss (stop_below, off unless asked for, and then part of the key), 2026-11-28.
# - The gpu size's training settings (12 epochs, an evaluation every 250 steps), 2026-11-29:
#   the cpu size's bits are unchanged, and a gpu-size entry's key holds its settings itself.
_SAME_BITS: dict[str, str] = {
    "1fc7abf74db5b8e3": "0ea2fcfaeb7de76a",  # corpus
    "e2a157cb4e7be02c": "18386415a35a7a0f",  # draws
    "d33b7cc9c773b2e6": "575da24666c126bd",  # samples
    "99e2e2270a1abf26": "f1237a5c7a247b7f",  # scores
    "2ac265eca21c208d": "e5c479d6e012d123",  # trained
    "ecb09adb5323beaa": "1009b35dcdd2396a",  # word2vec
    "900431dc176faf84": "1f9033b2b695c23a",  # words
    "0eab2a3bf81f7247": "3b2b08cfe0202a3f",  # samples, without the CUDA sampler
    "1c884a4d2a62ec0a": "114eb1af1464c3bf",  # draws, without the CUDA sampler
    "0c5b8a4ff5216e28": "8aa232986675ac61",  # trained: the schedule's formula as lr_factor
    "794c8b2c6eca05fd": "8aa232986675ac61",  # trained: improves() named, stop_below
    "3f1547f96f731536": "8aa232986675ac61",  # trained: the gpu size's epochs and evaluations
}


def source_digest(module: str) -> str:
    """SHA-256 of ``module``'s source without its import statements (at any depth)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no module {module!r} to take the code version of")
    source = Path(spec.origin).read_bytes()
    imports: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.update(range(node.lineno, node.end_lineno + 1))
    lines = source.splitlines(keepends=True)
    kept = b"".join(line for n, line in enumerate(lines, 1) if n not in imports)
    return hashlib.sha256(kept).hexdigest()


def version(modules: Sequence[str], *extra: Any) -> str:
    """The version of the code in ``modules`` (dotted names), with ``extra`` (library
    versions, a format constant) mixed in."""
    now = io.digest([source_digest(m) for m in modules], *extra)
    return _SAME_BITS.get(now, now)
