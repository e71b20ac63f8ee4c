"""Scoring speed of the n-gram models: looking up p(w | h) alone against building every row of
V probabilities (the path every other model takes), measured in one run, with the largest
difference of a token's log-probability between the two.

Run by hand (not in CI):
    .venv/bin/python bench/ngram_speed.py                       # wiki/kn3-word and the MLE trigram, 1,790 texts
    .venv/bin/python bench/ngram_speed.py --models wiki/kn3-word --n 500

The texts are the first ``--n`` sentences of the embedded corpus's test split (chapter 04
scores 1,790 of them with the Kneser-Ney trigram). The row path is
``LanguageModel._score_sequences``, which builds float64 rows, takes their logarithm in float32
and normalises them; the lookup path (``NGramModel._score_sequences``) computes the same float64
probabilities for the scored tokens only, so the two differ by the row path's float32 rounding.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lmnotes import models
from lmnotes.models.base import LanguageModel
from lmnotes.text import corpus


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", default=["wiki/kn3-word", "wiki/trigram-word-mle"])
    ap.add_argument("--n", type=int, default=1790)
    args = ap.parse_args(argv)
    texts = corpus.load()["test"].sentences[: args.n]
    for name in args.models:
        lm = models.load(name)
        encoded = [lm.encode(t) for t in texts]
        t = time.perf_counter()
        rows = LanguageModel._score_sequences(lm, encoded, 1.0, None, None)
        t_rows = time.perf_counter() - t
        t = time.perf_counter()
        lookup = lm._score_sequences(encoded, 1.0, None, None)
        t_lookup = time.perf_counter() - t
        a, b = np.concatenate(lookup), np.concatenate(rows)
        same_inf = bool(np.array_equal(np.isneginf(a), np.isneginf(b)))
        finite = np.isfinite(b)
        print(
            f"{name}: {len(texts):,} texts, {len(a):,} tokens; rows {t_rows:.2f} s, lookup {t_lookup:.3f} s, "
            f"{t_rows / t_lookup:,.0f}x; zero probabilities in the same places: {same_inf}; largest difference "
            f"of a token's log-probability {np.abs(a[finite] - b[finite]).max():.1e} nats",
            flush=True,
        )


if __name__ == "__main__":
    main()
