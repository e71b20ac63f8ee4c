"""Where a closed vocabulary's advantage comes from (Mielke 2019, claim 3): chapter 03.

A closed word model scores a sentence with an unknown word as the sentence with ``<unk>`` in
its place, and spends on the strings it can produce the mass an open model spends on strings
with unknown words. :func:`bpc_by_subset` shows bits per character on the sentences with and
without unknown words; :func:`decompose` splits the word model's lead over an open model
(:class:`Advantage`) into the part that scoring ``<unk>`` as a word explains (the word model
made open with a speller, :func:`.comparability.open_word_logprob`), the part the post's
mechanism explains (renormalising the open model to the closed model's strings, which gains
-log2(1 - m) bits per sentence without unknown words, m the open model's mass on unknown-word
strings, :func:`.comparability.oov_mass`), and the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from lmnotes.stats import units


def bpc_by_subset(
    rows: Mapping[str, np.ndarray], has_oov: np.ndarray, n_char: np.ndarray, groups, n_boot: int, seed: int
) -> pd.DataFrame:
    """Bits per character of each row's log-probabilities (one per sentence, ``n_char``
    characters each) on all sentences, those without and those with unknown words, each with a
    bootstrap interval over ``groups`` (the sentences' articles); columns name the subsets and
    their sizes."""

    def bpc(lp, mask):
        return units.bootstrap_rate(lp[mask], n_char[mask], "bits", n_boot, seed, groups=groups[mask])

    subsets = {
        "all sentences": np.ones(len(has_oov), bool),
        "without unknown words": ~has_oov,
        "with unknown words": has_oov,
    }
    table = pd.DataFrame(
        {name: {sub: bpc(lp, m) for sub, m in subsets.items()} for name, lp in rows.items()}
    ).T
    table.columns = [f"{c} ({int(m.sum()):,})" for c, m in subsets.items()]
    return table


def mass_values(mass: Mapping[str, float]) -> dict:
    """:func:`.comparability.oov_mass` as the chapter quotes it, by glue name (%, and the
    samples used)."""
    return {
        "oov_mass": float(100 * mass["mass"]),
        "oov_mass_low": float(100 * mass["low"]),
        "oov_mass_high": float(100 * mass["high"]),
        "n_mass_samples": int(mass["n"]),
    }


@dataclass(frozen=True)
class Advantage:
    """The word model's lead over an open model in bits per character over all sentences:
    bits per character of the open model (``b_open``), of the word model (``b_raw``) and of
    the word model with ``<unk>`` spelled out (``b_spelled``); the renormalisation's gain per
    sentence without unknown words (``renorm_bits``: mass, low, high), that gain per character
    of those sentences (``per_char_renorm``) and spread over all characters (``renorm_all``)."""

    b_open: float
    b_raw: float
    b_spelled: float
    renorm_bits: np.ndarray
    per_char_renorm: np.ndarray
    renorm_all: float

    @property
    def advantage(self) -> float:
        return self.b_open - self.b_raw

    @property
    def unk(self) -> float:
        """The part of the advantage that scoring ``<unk>`` as a word explains."""
        return self.b_spelled - self.b_raw

    def table(self) -> pd.DataFrame:
        """The decomposition: advantage, its parts and the unexplained rest, in bits per char
        and as shares of the advantage (%)."""
        advantage = self.advantage
        table = pd.DataFrame(
            {
                "bits / char": {
                    "advantage of the word model (all sentences)": advantage,
                    "<unk> scored as a word (spelled-out minus raw)": self.unk,
                    "mass on unknown-word strings (renormalising the open model)": self.renorm_all,
                    "unexplained (includes the training budget)": advantage - self.unk - self.renorm_all,
                }
            }
        )
        table.index.name = "part"
        table["share of the advantage (%)"] = 100 * table["bits / char"] / advantage
        return table

    def values(self) -> dict:
        """The shares (%) and the renormalisation's gains the chapter quotes, by glue name."""
        return {
            "unk_share": float(100 * self.unk / self.advantage),
            "renorm_share": float(100 * self.renorm_all / self.advantage),
            "renorm_bits_char": float(self.per_char_renorm[0]),
            "renorm_bits_sentence": float(self.renorm_bits[0]),
        }


def decompose(
    open_logprob: np.ndarray,
    word_raw: np.ndarray,
    word_open: np.ndarray,
    n_char: np.ndarray,
    has_oov: np.ndarray,
    mass: Mapping[str, float],
) -> Advantage:
    """The :class:`Advantage` of the word model (log p per sentence ``word_raw``, and
    ``word_open`` with ``<unk>`` spelled out) over the open model (``open_logprob``), given
    the open model's mass on unknown-word strings (:func:`.comparability.oov_mass`)."""
    renorm_bits = -np.log2(1 - np.array([mass["mass"], mass["low"], mass["high"]]))
    inv = ~has_oov
    per_char_renorm = renorm_bits * inv.sum() / n_char[inv].sum()

    def whole(lp):
        return units.from_nats(-lp.sum(), n_char.sum(), "bits")

    renorm_all = renorm_bits[0] * inv.sum() / n_char.sum()  # spread over all characters
    return Advantage(
        whole(open_logprob), whole(word_raw), whole(word_open), renorm_bits, per_char_renorm, renorm_all
    )
