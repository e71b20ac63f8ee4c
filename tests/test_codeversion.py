"""A cache entry's code version (lmnotes.core.codeversion): the producing modules' code, without their
docstrings, comments and imports."""

import importlib
import sys

import pytest

from lmnotes.core import codeversion


@pytest.fixture
def module(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(text, name="cv_probe"):
        (tmp_path / f"{name}.py").write_text(text)
        importlib.invalidate_caches()
        sys.modules.pop(name, None)
        return name

    return write


BODY = "def f(x):\n    import math\n    return math.sqrt(x) + y(x)\n"


def test_moving_a_module_keeps_its_version_and_editing_it_does_not(module):
    before = codeversion.source_digest(module("from lmnotes.stats import y\n\n" + BODY))
    moved = codeversion.source_digest(module("from lmnotes.stats.weights import (\n    y,\n)\n\n" + BODY))
    assert moved == before
    edited = codeversion.source_digest(module("from lmnotes.stats import y\n\n" + BODY.replace("+", "-")))
    assert edited != before


def test_a_version_mixes_in_the_libraries_and_needs_a_module(module):
    name = module(BODY)
    assert codeversion.version([name], "2.0") != codeversion.version([name], "2.1")
    with pytest.raises(ModuleNotFoundError, match="no module"):
        codeversion.version(["lmnotes.no_such_module"])


def test_docstrings_comments_and_layout_keep_the_version_and_code_does_not(module):
    plain = "def f(x):\n    return x + 1\n\n\nclass A:\n    n = 2\n"
    documented = (
        '"""A module."""\n# a comment\ndef f(x):  # why\n    """Add one."""\n\n    return (x\n            + 1)\n'
        "\n\nclass A:\n    '''A class.'''\n    n = 2  # two\n"
    )
    assert codeversion.source_digest(module(documented)) == codeversion.source_digest(module(plain))
    assert codeversion.source_digest(module(plain.replace("+ 1", "+ 2"))) != codeversion.source_digest(
        module(plain)
    )
    # a string that is code, not a docstring, counts
    assert codeversion.code("x = 1\n'a'\n") != codeversion.code("x = 1\n'b'\n")


def _redocumented(source: str) -> str:
    """``source`` with every docstring rewritten and a comment on every line that can take one."""
    import ast

    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0].value.value = "Rewritten documentation, " + body[0].value.value[::-1]
    return "# a new first comment\n" + ast.unparse(tree) + "\n# a last comment\n"


def test_a_docstring_edit_of_any_module_keeps_every_cache_key(monkeypatch):
    """Every kind of cache entry keeps its version when every module of the package has its docstrings
    rewritten and its layout changed; a code edit of one producing module changes its kinds' versions."""
    import importlib
    import pkgutil
    from pathlib import Path

    import lmnotes
    from lmnotes.core import cache

    for info in pkgutil.walk_packages(lmnotes.__path__, "lmnotes."):  # every module registers its kinds
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)

    before = {kind: version() for kind, version in cache.KINDS.items()}
    assert {"corpus", "trained", "scores", "samples", "word2vec"} <= set(before)
    real = Path.read_bytes
    package = Path(codeversion.__file__).resolve().parents[1]

    def redocumented(path):
        data = real(path)
        return _redocumented(data.decode()).encode() if package in Path(path).resolve().parents else data

    monkeypatch.setattr(Path, "read_bytes", redocumented)
    assert {kind: version() for kind, version in cache.KINDS.items()} == before

    def edited(path):
        data = redocumented(path)
        return data + b"\nEDITED = 1\n" if Path(path).name == "train.py" else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    after = {kind: version() for kind, version in cache.KINDS.items()}
    assert after["trained"] != before["trained"]
    assert after["corpus"] == before["corpus"]  # the corpus is not made by models/train.py
