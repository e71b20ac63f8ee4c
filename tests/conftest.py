"""Shared fixtures: the embedded corpus, prepared once per test session (from the cache)."""

import pytest

from lmnotes import corpus as lmcorpus


@pytest.fixture(scope="session")
def enwiki():
    return lmcorpus.load()
