"""Loaded by pytest for every test, unit tests and nbval runs of book/ alike: importing lmnotes
pins the numerical environment (lmnotes.numerics) of this process and of the notebook kernels
that nbval starts from it, so that re-executed notebooks compute the committed bits."""

import os
import tempfile

import lmnotes  # noqa: F401

# Progress lines (lmnotes.progress) of the tests and of the notebooks nbval runs go to a log
# file, never into a notebook's outputs (where a cold cache would put lines a warm one does not).
os.environ.setdefault("LMNOTES_PROGRESS", os.path.join(tempfile.gettempdir(), "lmnotes-tests-progress.log"))
