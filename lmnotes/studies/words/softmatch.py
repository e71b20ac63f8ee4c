"""Soft-match accuracy (Dudy & Bedrick 2020, §2.4.2): a miss counts as a hit when the
predicted word is *similar* to the target. The word-level chapter.

SoftMatch(a, b, s) = [a = b] ∨ s(a, b), with two similarity functions:

- s_k(a, b) = a ∈ kNN_k(b): word2vec (Mikolov et al. 2013) trained on the training split,
  50 dimensions, window 5, as the paper; exact cosine neighbours (the paper used Annoy's
  approximate ones), the target itself excluded;
- WordNet synonymy (the paper's suggestion, §1.3): a and b share a synset.

A chance baseline keeps only the gain above chance: each miss's prediction is replaced by
another miss's prediction from the same frequency bin (the model's own marginal of
predictions, which keeps the hubs that frequent predictions are).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Sequence

import numpy as np

from lmnotes.core import cache as lmcache
from lmnotes.core import codeversion, io


def stable_hash(text: str) -> int:
    """A hash that does not change between processes (Python's ``hash`` of a string does,
    with PYTHONHASHSEED), for gensim's seeding of each word's initial vector."""
    return zlib.crc32(text.encode("utf-8"))


def _w2v_version() -> str:
    import gensim

    return codeversion.version(("lmnotes.studies.words.softmatch",), gensim.__version__)


lmcache.register_kind("word2vec", _w2v_version)


def word2vec(
    sentences: Sequence[Sequence[str]],
    dim: int = 50,
    window: int = 5,
    min_count: int = 5,
    epochs: int = 5,
    seed: int = 0,
    name: str = "train",
):
    """Word vectors (gensim KeyedVectors) trained on tokenized sentences with one worker and
    a fixed hash, so that they are the same bit for bit on every run; kept in the cache."""
    from gensim.models import KeyedVectors, Word2Vec

    sentences = [list(s) for s in sentences]
    if not any(sentences):
        raise ValueError("word2vec needs at least one non-empty sentence")
    key = io.digest("w2v", dim, window, min_count, epochs, seed, io.digest(["\n".join(s) for s in sentences]))

    def build(folder: Path):
        model = Word2Vec(
            sentences,
            vector_size=dim,
            window=window,
            min_count=min_count,
            epochs=epochs,
            seed=seed,
            workers=1,
            hashfxn=stable_hash,
            sg=0,
        )
        model.wv.save(str(folder / "vectors.kv"))
        return model.wv

    return lmcache.fetch(
        "word2vec", name, key, build, lambda folder: KeyedVectors.load(str(folder / "vectors.kv"))
    )


class Neighbours:
    """Exact cosine nearest neighbours in a set of word vectors."""

    def __init__(self, vectors):
        self.index = vectors.key_to_index
        V = np.asarray(vectors.vectors, dtype=np.float64)
        self.unit = V / np.linalg.norm(V, axis=1, keepdims=True).clip(1e-12)

    def rank(self, predictions: Sequence[str], targets: Sequence[str], chunk: int = 2048) -> np.ndarray:
        """For each pair, the rank of the prediction among the target's neighbours (1 = the
        nearest, the target itself excluded); ∞ where either word has no vector or they are
        the same word."""
        out = np.full(len(targets), np.inf)
        ok = [
            i
            for i, (a, b) in enumerate(zip(predictions, targets))
            if a in self.index and b in self.index and a != b
        ]
        for s in range(0, len(ok), chunk):
            rows = ok[s : s + chunk]
            b = np.array([self.index[targets[i]] for i in rows])
            a = np.array([self.index[predictions[i]] for i in rows])
            sims = self.unit[b] @ self.unit.T  # [n, V]
            sims[np.arange(len(rows)), b] = -np.inf  # the target is not its own neighbour
            own = sims[np.arange(len(rows)), a]
            out[rows] = 1 + (sims > own[:, None]).sum(1)
        return out

    def neighbours(self, word: str, k: int) -> list[str]:
        keys = list(self.index)
        sims = self.unit @ self.unit[self.index[word]]
        sims[self.index[word]] = -np.inf
        return [keys[i] for i in np.argsort(-sims, kind="stable")[:k]]


class Synonyms:
    """s(a, b): two different words share a WordNet synset (case-insensitive)."""

    def __init__(self, wordnet):
        self.wordnet, self.synsets = wordnet, {}

    def _of(self, word: str) -> frozenset:
        if word not in self.synsets:
            self.synsets[word] = frozenset(self.wordnet.synsets(word))
        return self.synsets[word]

    def __call__(self, predictions: Sequence[str], targets: Sequence[str]) -> np.ndarray:
        return np.array(
            [
                a.lower() != b.lower() and bool(self._of(a.lower()) & self._of(b.lower()))
                for a, b in zip(predictions, targets)
            ],
            dtype=bool,
        )


def chance_predictions(predictions: Sequence[str], strata: Sequence, rng: np.random.Generator) -> np.ndarray:
    """The predictions shuffled within each stratum (frequency bin): the chance baseline."""
    predictions, strata = np.asarray(predictions, dtype=object), np.asarray(strata, dtype=object)
    out = predictions.copy()
    for s in np.unique(strata):
        idx = np.flatnonzero(strata == s)
        out[idx] = predictions[rng.permutation(idx)]
    return out
