"""Loaded by pytest for every test, unit tests and nbval runs of book/ alike.

- Importing lmnotes pins the arithmetic (lmnotes.core.numerics) of this process and of the
  notebook kernels that nbval starts from it, so that re-executed notebooks compute the
  committed bits.
- The chapters that nbval re-executes save their claims into a temporary folder
  ($LMNOTES_CLAIMS), never into book/claims: a test run leaves the tree as it was, whatever it
  finds.
- On a machine that cannot compute the book's bits (outside the pinned family, or a notebook
  executed with another arithmetic), nbval's items of that notebook become one failure that
  says so in one line, instead of hundreds of differing outputs.
"""

import json
import os
import tempfile
from pathlib import Path

import pytest

import lmnotes  # noqa: F401
from lmnotes.core import numerics

# Progress lines (lmnotes.core.progress) of the tests and of the notebooks nbval runs go to a log
# file, never into a notebook's outputs (where a cold cache would put lines a warm one does not).
if "LMNOTES_PROGRESS" not in os.environ:
    os.environ["LMNOTES_PROGRESS"] = os.path.join(tempfile.gettempdir(), "lmnotes-tests-progress.log")
    open(os.environ["LMNOTES_PROGRESS"], "w").close()  # this session's lines only

if not os.environ.get("LMNOTES_CLAIMS"):
    os.environ["LMNOTES_CLAIMS"] = tempfile.mkdtemp(prefix="lmnotes-claims-")


class CannotReproduce(pytest.Item):
    """One failing item in place of a notebook's nbval items, with the reason in one line."""

    def __init__(self, *, reason: str, **kwargs):
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self):
        pytest.fail(self.reason, pytrace=False)

    def reportinfo(self):
        return self.path, None, self.name


def _recorded(notebook: Path) -> dict:
    with open(notebook, encoding="utf-8") as fh:
        return json.load(fh).get("metadata", {}).get("lmnotes", {}).get("arithmetic", {})


def pytest_collection_modifyitems(session, config, items):
    outside = numerics.outside_family_reason()
    here = numerics.describe()
    kept, replaced = [], {}
    for item in items:
        path = Path(str(item.path))
        if path.suffix != ".ipynb":
            kept.append(item)
            continue
        if path not in replaced:
            recorded = _recorded(path)
            if outside:
                reason = f"{path.name} cannot be reproduced bit for bit here: {outside}"
            elif recorded != here:
                reason = (f"{path.name} was computed with the arithmetic {recorded or 'of an older version'}, "
                          f"this machine computes {here}: re-execute it (python -m lmnotes.book run {path.stem})")
            else:
                reason = None
            replaced[path] = reason
            if reason:
                kept.append(CannotReproduce.from_parent(item.parent, name=f"{path.name}::bits", reason=reason))
        if replaced[path] is None:
            kept.append(item)
    items[:] = kept
