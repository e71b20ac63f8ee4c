"""Loaded by pytest for every test, unit tests and nbval runs of book/ alike: importing lmnotes
pins the numerical environment (lmnotes.numerics) of this process and of the notebook kernels
that nbval starts from it, so that re-executed notebooks compute the committed bits."""

import os
import tempfile

import lmnotes  # noqa: F401

# Progress lines (lmnotes.progress) of the tests and of the notebooks nbval runs go to a log
# file, never into a notebook's outputs (where a cold cache would put lines a warm one does not).
if "LMNOTES_PROGRESS" not in os.environ:
    os.environ["LMNOTES_PROGRESS"] = os.path.join(tempfile.gettempdir(), "lmnotes-tests-progress.log")
    open(os.environ["LMNOTES_PROGRESS"], "w").close()  # this session's lines only
