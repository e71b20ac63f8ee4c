"""A pretrained ground truth (LeBrun, Sordoni & O'Donnell 2022, App. A.2, claim 12): the
distortion chapter (06) samples a pretrained L at T = 1, trains the main learner on its ids,
and checks the paper's three findings there: most test sequences underestimated, the rarest
bin worse than the most probable, and random sequences overestimated.
"""

from __future__ import annotations

import pandas as pd

from lmnotes import models
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion.resample import ci, num


#: The token at which a pretrained L's samples end (see :func:`load`).
END = "."


def load(name: str, device: str | None = "cpu", end: str = END):
    """The pretrained L: the model ``name`` whose samples end at the token ``end`` (its own
    EOS where ``end`` is empty). A model pretrained on web documents seldom writes its
    end-of-text token within a learner's window (SmolLM2 ended none of 190 samples within
    128 tokens), so its samples end at a sentence's full stop instead, the unit chapter 02
    keeps too; the language is then L with that token as its end, a proper distribution
    over the texts that hold no other."""
    lm = models.load(name, device=device, **({"eos": end} if end else {}))
    if end and lm.decode([lm.eos_id]) != end:
        raise ValueError(
            f"{end!r}, where a pretrained L's samples end, is not one token of "
            f"{name}: it reads {lm.decode([lm.eos_id])!r}"
        )
    return lm


def draw(lang, n_train: int, n_valid: int, n_test: int, seed: int = 0):
    """``n_train + n_valid + n_test`` draws of the pretrained ``lang``, split in order into
    training, validation and test sequences (only draws that end within its ``max_tokens``
    count); or, where too few end for a training and validation set and at least half of the
    test set, the sentence that says so, and the section is skipped. A pretrained model
    sampled from its document token may rarely end a text within a few hundred tokens."""
    n = n_train + n_valid + n_test
    try:
        draws = lang.sample(n, seed=seed)
    except LG.NoneEnded:
        draws = None
    ended = len(draws) if draws is not None else 0
    if ended < n_train + n_valid + max(1, n_test // 2):
        return (
            f"only {ended:,} of {n:,} draws ended within {lang.max_tokens} tokens, too few "
            f"for {n_train:,} training, {n_valid:,} validation and about {n_test:,} test "
            "sequences: a model that so rarely ends a text within the learners' window "
            "cannot serve as L here"
        )
    return (
        draws.take(0, n_train),
        draws.take(n_train, n_train + n_valid),
        draws.take(n_train + n_valid, ended),
    )


def summary(language: str, share, rand, curve: pd.DataFrame) -> dict:
    """The evidence of the three checks: ``share`` (an estimate of the share underestimated),
    ``rand`` (of the mean error on random sequences) and the equal-count ``curve``'s rarest and
    most probable bins (``rarest_bin``, ``top_bin``: rows with mean, low and high), which the
    claims table turns into its cases."""
    rarest, top = curve.iloc[0], curve.iloc[-1]
    return dict(
        language=language,
        share=share,
        rand=rand,
        rarest=rarest["mean"],
        top=top["mean"],
        rarest_bin=rarest,
        top_bin=top,
    )


def text(p: dict, n_test: int, n_bins: int) -> str:
    """The chapter's sentence on the pretrained run."""
    return (
        f"with {p['language']} as L, the learner "
        f"underestimates a share {ci(p['share'])} of {n_test:,} test "
        f"sequences; its mean error is {num(p['rarest'])} in the rarest "
        f"and {num(p['top'])} in the most probable of {n_bins} "
        f"equal-count bins, and {ci(p['rand'])} nats on random sequences."
    )
