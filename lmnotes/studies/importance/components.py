"""The components of the importance-sampling chapter's switch-LM (:mod:`lmnotes.studies.importance.latent`) on
the corpus: per-token log-probabilities of language models that share one vocabulary, and of
a document cache over the same ids. Importance-sampling chapter (04).

The cache is the unigram cache of Kuhn & De Mori (1990) with a Dirichlet prior on the
training unigram (MacKay & Peto 1995):

    p_c(w | x_<t) = (c(w) + mu p_uni(w)) / (n + mu),

with c(w) the count of w among the n tokens of the article before position t (its earlier
sentences and the current sentence's prefix, end-of-sequence included) and p_uni the
add-one unigram of the training split. It plays the role of KGLM's and EntityNLM's "copy a
mention seen earlier" state; the Transformer is the "vocabulary" state and the n-gram a local
one. Written here: no library keeps such a cache over a model's own ids.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from lmnotes.models import memo


def unigram(lm, texts: Sequence[str]) -> np.ndarray:
    """log p_uni over ``lm``'s ids: add-one counts of the ids of ``texts``, EOS once per text."""
    counts = np.ones(lm.vocab_size)
    for t in texts:
        np.add.at(counts, lm.encode(t), 1)
    counts[lm.eos_id] += len(texts)
    return np.log(counts / counts.sum())


def cache_logprobs(
    ids: Sequence[Sequence[int]], groups: Sequence, log_unigram: np.ndarray, mu: float = 100.0
) -> list[np.ndarray]:
    """log p_c of every token of each sentence (``ids`` end with EOS), the cache emptied where
    ``groups`` (the article of each sentence, sentences in reading order) changes."""
    if mu <= 0:
        raise ValueError(f"the cache's prior weight mu must be positive, got {mu}")
    prior = mu * np.exp(log_unigram)
    out, counts, n, previous = [], {}, 0, object()
    for seq, g in zip(ids, groups):
        if g != previous:
            counts, n, previous = {}, 0, g
        lp = np.empty(len(seq))
        for t, w in enumerate(seq):
            lp[t] = np.log((counts.get(w, 0) + prior[w]) / (n + mu))
            counts[w] = counts.get(w, 0) + 1
            n += 1
        out.append(lp)
    return out


def emissions(
    lms: Sequence, texts: Sequence[str], groups: Sequence, log_unigram: np.ndarray, mu: float = 100.0
) -> tuple[list[np.ndarray], list[list[int]]]:
    """``[T_n, C]`` log-emissions of each text: the models' token log-probabilities (remembered
    in the shared cache), then the document cache as the last component; and the ids (with
    EOS). The models must split every text into the same ids."""
    texts = list(texts)
    ids = [list(lms[0].encode(t)) + [lms[0].eos_id] for t in texts]
    for lm in lms[1:]:
        if lm.vocab_size != lms[0].vocab_size or any(
            list(lm.encode(t)) + [lm.eos_id] != i for t, i in zip(texts, ids)
        ):
            raise ValueError(
                f"{lm.name} and {lms[0].name} do not share a vocabulary: a switch "
                "between them needs the same tokens"
            )
    scores = [memo.score(lm, texts).token_logprobs for lm in lms]
    cache = cache_logprobs(ids, groups, log_unigram, mu)
    return [np.column_stack([s[n] for s in scores] + [cache[n]]) for n in range(len(texts))], ids
