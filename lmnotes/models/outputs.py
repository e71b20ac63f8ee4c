"""What a language model returns: :class:`Scores` of strings and :class:`Samples` drawn from
it (:class:`lmnotes.models.base.LanguageModel`, the decoders of :mod:`lmnotes.models.beam`).
Every chapter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Scores:
    """The result of :meth:`LanguageModel.score`, one entry per input string.

    ``token_logprobs[i]`` holds log p of each token of string i given its prefix, the last
    entry being end-of-sequence, so ``logprob[i] == token_logprobs[i].sum()`` and
    ``n_tokens[i] == len(token_logprobs[i])``. ``n_words`` counts whitespace-separated words,
    ``n_chars`` Unicode characters and ``n_bytes`` UTF-8 bytes of the string (without EOS).
    """

    token_logprobs: list[np.ndarray]
    logprob: np.ndarray
    n_tokens: np.ndarray
    n_words: np.ndarray
    n_chars: np.ndarray
    n_bytes: np.ndarray


@dataclass
class Samples:
    """The result of :meth:`LanguageModel.sample`, one entry per sample.

    ``token_ids`` exclude the prefix and the end-of-sequence token; ``logprob_model`` is the
    log-probability of the sampled tokens (and EOS if reached) under the model at temperature
    1, ``logprob_sampling`` under the distribution actually sampled from; ``finished`` is
    False for samples cut at ``max_tokens`` before EOS.
    """

    texts: list[str]
    token_ids: list[list[int]]
    logprob_model: np.ndarray
    logprob_sampling: np.ndarray
    finished: np.ndarray
