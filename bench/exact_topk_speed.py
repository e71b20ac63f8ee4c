"""The exact top-10 search of the word-level chapter (lmnotes.studies.words.predict.exact_topk_hits): paths
expanded one per forward pass against eight per pass, on the BPE-1k and byte Transformers of
the segmentation family and the first 15 of the chapter's test sentences. Prints the time of
each and their ratio, measured in one run, and checks that both give the same hits.

    .venv/bin/python bench/exact_topk_speed.py
"""

import functools
import time

import numpy as np

from lmnotes.text import corpus
from lmnotes.studies.words import predict as W
from lmnotes.models.trained import Recipe, on_corpus

test = corpus.load("enwiki")["test"].sentences
rng = np.random.default_rng(0)  # the chapter's sentence sample (seed 0, 300 sentences)
chosen = np.sort(rng.choice(len(test), 300, replace=False))
sentences = [test[i] for i in chosen[rng.permutation(len(chosen))]][:15]
for recipe in (Recipe("transformer", "bpe", 1000), Recipe("transformer", "byte")):
    lm = on_corpus(recipe)
    table = W.evaluate(lm, sentences, dfs_depth=1)
    seconds, hits = {}, {}
    for batch in (1, 8):
        search = W._best_first
        W._best_first = functools.partial(search, batch=batch)
        try:
            t0 = time.perf_counter()
            hits[batch] = W.exact_topk_hits(lm, sentences, table)
            seconds[batch] = time.perf_counter() - t0
        finally:
            W._best_first = search
    same = hits[1].fillna(-1).equals(hits[8].fillna(-1))
    print(
        f"{lm.name}: one path per pass {seconds[1]:.1f} s, eight {seconds[8]:.1f} s, "
        f"ratio {seconds[1] / seconds[8]:.2f}; same hits: {same}"
    )
