"""Every model's score on the test split, open and closed vocabularies side by side: the table
of chapter 01, whose scores chapter 03 reuses from the cache.

:func:`score_models` scores each model on the test sentences (:func:`lmnotes.models.memo.score`)
and gives its bits per byte with an interval over test articles (:mod:`lmnotes.stats.units`). A
closed word vocabulary with finite scores gets a second, open row, *+ speller*, that spells
its ``<unk>`` out with a character n-gram (Mielke & Eisner 2019; :mod:`.comparability`).
:func:`unk_share` is the share of a closed vocabulary's tokens that are ``<unk>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from lmnotes import models
from lmnotes.models import memo
from lmnotes.stats import units
from lmnotes.studies.segmentation import comparability as C
from lmnotes.text.segment import WordSegmentation


@dataclass
class Scoreboard:
    """The scores of :func:`score_models`. ``table``: a row per model (and per spelled-out
    model); ``lms``: the loaded models by name; ``logprob``, ``n_bytes``, ``bpb``: each row's
    log-probabilities and byte counts per sentence, and its bits per byte with interval."""

    table: pd.DataFrame
    lms: dict
    logprob: dict
    n_bytes: dict
    bpb: dict


def score_models(
    names: Sequence[str],
    test: Sequence[str],
    train: Sequence[str],
    article,
    *,
    device: str,
    size: str,
    speller_order: int,
    corpus: str,
    n_boot: int,
    seed: int,
) -> Scoreboard:
    """Score every model of ``names`` on the sentences ``test`` (``article``: each sentence's
    article, the unit of resampling); closed word vocabularies are also made open by a speller
    of order ``speller_order`` trained on the words of ``train`` they map to ``<unk>``.

    (10 parameters: the models, the test split and its units, and the chapter's parameters of
    scoring.)
    """
    rows, lms, logprob, n_bytes, bpb_of = [], {}, {}, {}, {}
    spellers = {}
    for name in names:
        trained_here = name.startswith("wiki/")
        lm = models.load(name, device=device, **({"size": size} if trained_here else {}))
        lms[name] = lm
        s = memo.score(lm, test)  # the segmentation chapter reuses these
        seg = getattr(lm, "seg", None)
        closed = seg is not None and not seg.open_vocabulary
        variants = [(name, "closed" if closed else "open", units.logprobs(s))]
        # a word vocabulary with finite scores (not the unsmoothed trigram): spell its <unk> out
        if closed and isinstance(seg, WordSegmentation) and np.isfinite(s.logprob).all():
            if len(seg.vocab) not in spellers:
                spellers[len(seg.vocab)] = C.train_speller(seg, train, speller_order, corpus)
            spelled = C.open_word_logprob(s.logprob, test, seg, spellers[len(seg.vocab)])
            variants.append((f"{name} + speller", "open", spelled))
        for row_name, vocabulary_kind, lp in variants:
            logprob[row_name], n_bytes[row_name] = lp, units.counts(s, "byte")
            bpb = bpb_of[row_name] = units.bootstrap_rate(
                lp, n_bytes[row_name], "bits", n_boot, seed, groups=article
            )
            rows.append(
                {
                    "model": row_name,
                    "trained here": trained_here,
                    "vocabulary": vocabulary_kind,
                    "bits / byte": bpb if np.isfinite(bpb.value) else np.inf,
                    # a spelled-out model's tokens would include the spelling's characters
                    "perplexity / token": units.corpus_rate(s, "token", "perplexity")
                    if row_name == name
                    else None,
                    "p = 0 (%)": float(100 * (~np.isfinite(lp)).mean()),
                    "test tokens": int(s.n_tokens.sum()),
                    "segmentation": lm.segmentation,
                    "types": lm.vocab_size,
                    "parameters": lm.n_parameters,
                }
            )
    return Scoreboard(pd.DataFrame(rows).set_index("model"), lms, logprob, n_bytes, bpb_of)


def unk_share(seg: WordSegmentation, texts: Sequence[str]) -> float:
    """The share of a closed word vocabulary's tokens of ``texts`` that are <unk>, the
    end-of-sentence symbol counted (as the losses count it)."""
    tokens = sum(len(seg.split(t)) for t in texts) + len(texts)
    return len(C.unk_training_words(seg, texts)) / tokens
