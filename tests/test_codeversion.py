"""A cache entry's code version: the producing modules' source without their imports."""

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


def test_an_entry_pickled_before_its_module_moved_still_loads(tmp_path):
    import pickle

    from lmnotes.core import io
    from lmnotes.stats import Estimate
    from lmnotes.studies.segmentation.marginal import Gap

    value = Gap(Estimate(1.0, 0.5, 1.5), None)
    new = b"lmnotes.studies.segmentation.marginal\n"
    blob = pickle.dumps(value, protocol=0)  # text protocol: the module is named by a line
    assert new in blob
    (tmp_path / "old.pkl").write_bytes(blob.replace(new, b"lmnotes.marginal\n"))
    with pytest.raises(ModuleNotFoundError):
        pickle.loads((tmp_path / "old.pkl").read_bytes())
    assert io.read_pickle(tmp_path / "old.pkl") == value
