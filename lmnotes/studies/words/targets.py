"""The targets of the word-level chapter (05): which test words each model is scored on.

The input is the chapter's table of whole-word predictions of every model
(:func:`lmnotes.studies.words.cached.word_predictions` with ``model`` and ``article``), one row
per (model, sentence, index). A target is *decodable* by a model when its token span starts
and ends on the word's edges and no token inside ends it; a closed vocabulary's unknown words
(``oov``) stay in as misses. The self-trained models are compared on the targets that every
one of them can decode or that fall outside its vocabulary (``common``); word perplexities on
the targets that every one can decode (``all_decodable``).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import pandas as pd

from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label

#: A target: its sentence and its position in the sentence.
KEY = ["sentence", "index"]


def with_bins(pos: pd.DataFrame, counts: pd.Series) -> pd.DataFrame:
    """Add each target's training ``count``, its frequency ``bin`` and the bin of the
    predicted word (``pred_bin``) to ``pos`` (in place; returned)."""
    pos["count"] = counts.reindex(pos["word"]).fillna(0).to_numpy()
    pos["bin"] = WS.frequency_bin(pos["count"]).to_numpy()
    pred_count = counts.reindex(pos["pred"].fillna("")).fillna(0)
    pos["pred_bin"] = WS.frequency_bin(pred_count.reset_index(drop=True)).to_numpy()
    return pos


def shared(pos: pd.DataFrame, models: Sequence[str], where: pd.Series) -> pd.Index:
    """The targets (``KEY`` tuples) at which every one of ``models`` satisfies ``where``."""
    rows = pos[where & pos["model"].isin(models)]
    n = rows.groupby(KEY)["model"].nunique()
    return n[n == len(models)].index


def mark_common(pos: pd.DataFrame, models: Sequence[str]) -> None:
    """Mark (column ``common``) the targets that every one of ``models`` can decode or that
    fall outside its vocabulary."""
    common = shared(pos, models, pos["decodable"] | pos["oov"])
    pos["common"] = pd.MultiIndex.from_frame(pos[KEY]).isin(common)


def mark_all_decodable(pos: pd.DataFrame, models: Sequence[str]) -> int:
    """Mark (column ``all_decodable``) the targets that every one of ``models`` can decode,
    and every target of the other models; returns the number of such targets."""
    everyone = shared(pos, models, pos["decodable"])
    pos["all_decodable"] = pd.MultiIndex.from_frame(pos[KEY]).isin(everyone) | ~pos["model"].isin(models)
    return len(everyone)


def shares(pos: pd.DataFrame) -> pd.DataFrame:
    """Per model: its targets and the shares decodable, outside a closed vocabulary (``oov``),
    left out because a token straddles the word's edge (no tokens) or because a token inside
    the word ends it."""
    cover = pos.groupby("model", sort=False).agg(
        targets=("word", "size"),
        decodable=("decodable", "mean"),
        oov=("oov", "mean"),
        straddle=("n_tokens", lambda x: (x == 0).mean()),
    )
    cover["ends inside"] = 1 - cover["decodable"] - cover["oov"] - cover["straddle"]
    return cover


def straddle_sentence(pos: pd.DataFrame, family: Iterable[str]) -> str:
    """The chapter's sentence on the most frequent targets that the last BPE member's tokens
    straddle."""
    bpe_members = [n for n in family if n.startswith("bpe")]
    if not bpe_members:
        return "no member of this family uses BPE."
    m_ = bpe_members[-1]
    st = pos[(pos["model"] == m_) & (pos["n_tokens"] == 0)]
    top = st["word"].value_counts().head(3)
    return (
        f"{label(m_)}'s most frequent straddled targets are "
        + ", ".join(f"`{w}` ({c})" for w, c in top.items())
        + ", punctuation that its vocabulary joins to the mark beside it "
        "(a closing quote after a period, say)."
    )


def evaluated(pos: pd.DataFrame, models: Iterable[str], self_trained: Sequence[str]) -> dict:
    """Each model's scored targets: the common ones for the self-trained models, the
    decodable and out-of-vocabulary ones for the others."""
    out = {}
    for name in models:
        t = pos[pos["model"] == name]
        t = t[t["common"] if name in self_trained else t["decodable"] | t["oov"]]
        out[name] = t
    return out
