"""Loaded by pytest for every test, unit tests and nbval runs of book/ alike: importing lmnotes
pins the numerical environment (lmnotes.numerics) of this process and of the notebook kernels
that nbval starts from it, so that re-executed notebooks compute the committed bits."""

import lmnotes  # noqa: F401
