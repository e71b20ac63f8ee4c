"""Shared fixtures: the embedded corpus (prepared once per test session, from the shared
cache), and a guard that keeps unit tests from filling the user's shared cache by accident."""

from pathlib import Path

import pytest

from lmnotes.core import cache
from lmnotes.text import corpus as lmcorpus

#: What a unit test may add to the shared cache: what the chapters prepare the same way (the
#: corpus, the converted pretrained models, WordNet's copy, the registered self-trained models).
SHARED_KINDS = ("corpus", "pretrained", "wordnet")


def _shared(entry: Path) -> bool:
    from lmnotes import models

    name = entry.name.rsplit("--", 1)[0].replace("__", "/")
    return entry.parent.name in SHARED_KINDS or (entry.parent.name == "trained" and name in models.names())


@pytest.fixture(scope="session")
def enwiki():
    return lmcorpus.load()


def _entries(root: Path) -> set[Path]:
    return {p for p in root.glob("*/*") if not p.name.startswith(".") and p.suffix != ".lock"}


@pytest.fixture(autouse=True)
def no_accidental_cache_writes(request):
    """A test that builds anything else (a model of its own, scores, samples) must point
    LMNOTES_CACHE at a temporary folder, or say that it fills the shared cache (the marker
    ``shared_cache``: a chapter run at a tiny profile with the trained models); it fails
    here if it wrote into the shared cache unannounced."""
    if "shared_cache" in request.keywords:
        yield
        return
    root = cache.root()
    before = _entries(root)
    yield
    extra = sorted(str(p.relative_to(root)) for p in _entries(root) - before if not _shared(p))
    assert not extra, (
        f"the test wrote {extra} into the shared cache {root}; give it a temporary LMNOTES_CACHE"
    )
