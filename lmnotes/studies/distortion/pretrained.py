"""A pretrained ground truth (LeBrun, Sordoni & O'Donnell 2022, App. A.2, claim 12): the
distortion chapter (06) samples a pretrained L at T = 1, trains the main learner on its ids,
and checks the paper's three findings there: most test sequences underestimated, the rarest
bin worse than the most probable, and random sequences overestimated.
"""

from __future__ import annotations

import pandas as pd

from lmnotes.studies.distortion.resample import ci, num


def summary(language: str, share, rand, curve: pd.DataFrame) -> dict:
    """The evidence of the three checks: ``share`` (an estimate of the share underestimated),
    ``rand`` (of the mean error on random sequences) and the equal-count ``curve``; ``checks``
    counts the findings shown and their opposites shown, (for, against)."""
    rarest, top = curve.iloc[0], curve.iloc[-1]
    return dict(
        language=language, share=share, rand=rand,
        rarest=rarest["mean"], top=top["mean"], checks=(
            sum([share.low > 0.5, rarest["high"] < top["low"], rand.low > 0]),
            sum([share.high < 0.5, rarest["low"] > top["high"], rand.high < 0])))


def text(p: dict, n_test: int, n_bins: int) -> str:
    """The chapter's sentence on the pretrained run."""
    return (f"with {p['language']} as L, the learner "
            f"underestimates a share {ci(p['share'])} of {n_test:,} test "
            f"sequences; its mean error is {num(p['rarest'])} in the rarest "
            f"and {num(p['top'])} in the most probable of {n_bins} "
            f"equal-count bins, and {ci(p['rand'])} nats on random sequences.")
