"""The version of the code that produces a kind of cache entry (:mod:`lmnotes.core.cache`):
a hash of the producing modules' code, read as Python reads it. Every chapter, through the
kinds it caches (the prepared corpus, trained models, scores, samples).

A module's code is its syntax tree without its docstrings and its import statements, written
back as source by :func:`ast.unparse`: comments, docstrings, blank lines, line breaks and
quoting do not count, so a documentation fix or a reformatting never recomputes anything,
and moving a module from one package to another (which rewrites its imports and nothing
else) keeps every entry it made. An edit to the code itself gives a new version, and the
cache builds new entries. The one edit this misses: an import that binds a different object
under the same name; change the code that uses it as well, or the kind's own version
constant.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from pathlib import Path
from typing import Any, Sequence

from lmnotes.core import io


def code(source: str | bytes) -> str:
    """``source``'s code: its syntax tree without docstrings and imports, as ``ast.unparse``
    writes it."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        node.body = [n for n in body if not isinstance(n, (ast.Import, ast.ImportFrom))] or [ast.Pass()]
        for field in ("orelse", "finalbody"):
            if getattr(node, field, None):
                setattr(
                    node,
                    field,
                    [n for n in getattr(node, field) if not isinstance(n, (ast.Import, ast.ImportFrom))]
                    or [ast.Pass()],
                )
    return ast.unparse(tree)


def source_digest(module: str) -> str:
    """SHA-256 of ``module``'s :func:`code`."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no module {module!r} to take the code version of")
    return hashlib.sha256(code(Path(spec.origin).read_bytes()).encode()).hexdigest()


def version(modules: Sequence[str], *extra: Any) -> str:
    """The version of the code in ``modules`` (dotted names), with ``extra`` (library
    versions, a format constant) mixed in."""
    return io.digest([source_digest(m) for m in modules], *extra)
