"""When are perplexities comparable? The segmentation chapter's study (Mielke 2019).

- :func:`worked_examples`: every number the post prints, recomputed from its inputs with
  :mod:`lmnotes.stats.units`, beside the printed value;
- the closed-vocabulary advantage: which strings a word model cannot produce
  (:func:`oov_tokens`), the probability an open-vocabulary model spends on them
  (:func:`oov_mass`), and a word model made open by spelling its ``<unk>`` out with a
  character model (:class:`Speller`, :func:`train_speller`, :func:`open_word_logprob`);
- :func:`document_ids`: a document in the self-trained models' training format, for
  sliding-window scoring of long documents.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from scipy.stats import binomtest

from lmnotes.stats import units
from lmnotes.text.segment import WordSegmentation


# --------------------------------------------------------------------------------------------
# the post's worked examples


def worked_examples() -> pd.DataFrame:
    """Each number printed in Mielke (2019), recomputed from the inputs the post gives.

    Counts are recounted from the strings (EOS counted as one unit, as the post does). Rows
    whose printed value does not follow from the inputs say why in ``note``; *follows from the
    post's figures* says whether it follows from the post's own rounded nll and counts.
    """
    p_sentence = 0.000000000341  # p(the cat sat on the mat)
    s1, w1 = "the cat sat on the mat", len("the cat sat on the mat".split())
    listed = [0.01, 0.001, 0.008, 0.04]  # p(the|e), p(cat|the), p(sat|the cat), p(EOS|the cat sat)
    multiplied = [0.1, 0.01, 0.008, 0.04]  # the factors the post multiplies
    p3 = math.prod(multiplied)
    s3 = "the cat sat"
    nll = {1: units.to_nats(19, 4 + 1), 2: units.to_nats(24, 3 + 1)}  # ppl per subword x (tokens + EOS)
    s4 = "the deforestation"
    # (quantity, formula, printed, decimals printed, recomputed, note)
    rows = [
        (
            "ppl per word, p(the cat sat on the mat)",
            f"exp(-log p / ({w1}+1))",
            22.5,
            1,
            units.from_nats(-math.log(p_sentence), w1 + 1),
            "",
        ),
        (
            "ppl per character, same sentence",
            f"exp(-log p / ({len(s1)}+1))",
            2.7,
            1,
            units.from_nats(-math.log(p_sentence), len(s1) + 1),
            f"2.7 is exp(-log p / {len(s1)}) = {units.from_nats(-math.log(p_sentence), len(s1)):.2f}: "
            f"EOS left out of the count the post writes (it also labels this ppl_word)",
        ),
        (
            "p(the cat sat), the product",
            " x ".join(map(str, multiplied)),
            0.00000032,
            8,
            p3,
            f"the product uses 0.1 and 0.01 where the listed conditionals are 0.01 and 0.001 "
            f"(their product: {math.prod(listed):.2g})",
        ),
        (
            "ppl per word of p(the cat sat)",
            "exp(-log p / (3+1))",
            42.04,
            2,
            units.from_nats(-math.log(p3), len(s3.split()) + 1),
            "",
        ),
        (
            "ppl per word from the listed conditionals",
            "exp(-(sum of log p) / (3+1))",
            42.04,
            2,
            units.from_nats(-sum(map(math.log, listed)), len(s3.split()) + 1),
            "42.04 follows from the product's factors, not from the conditionals the formula sums",
        ),
        (
            "ppl per character of p(the cat sat)",
            f"exp(-log p / ({len(s3)}+1))",
            3.48,
            2,
            units.from_nats(-math.log(p3), len(s3) + 1),
            "",
        ),
        ("nll_1 from ppl 19 over 4+1 subwords", "log 19 x (4+1)", 14.7, 1, nll[1], ""),
        ("nll_2 from ppl 24 over 3+1 subwords", "log 24 x (3+1)", 12.7, 1, nll[2], ""),
    ]
    for k, printed in ((1, 134.3), (2, 68.9)):
        exact = units.from_nats(nll[k], len(s4.split()) + 1)
        rows.append(
            (
                f"ppl per word, segmentation {k}",
                f"exp(nll_{k} / (2+1))",
                printed,
                1,
                exact,
                f"from the rounded nll_{k} = {round(nll[k], 1)}: {units.from_nats(round(nll[k], 1), 3):.1f}",
            )
        )
    for k, printed in ((1, 2.37), (2, 2.11)):
        exact = units.from_nats(nll[k], len(s4) + 1)
        rows.append(
            (
                f"ppl per character, segmentation {k}",
                f"exp(nll_{k} / ({len(s4)}+1))",
                printed,
                2,
                exact,
                f"'{s4}' has {len(s4)} characters, the post counts 16 (without the space) "
                f"and divides the rounded nll_{k}: {units.from_nats(round(nll[k], 1), 17):.2f}",
            )
        )
    df = pd.DataFrame(rows, columns=["quantity", "formula", "printed", "decimals", "recomputed", "note"])
    # a printed value follows from its inputs if it is the recomputed value, rounded as printed
    df["follows"] = [round(r, d) == p for p, d, r in zip(df["printed"], df["decimals"], df["recomputed"])]
    # or from the post's own figures where it uses them: nll_k as it prints them (one decimal),
    # and its count of "the deforestation" without the space (its first example counts spaces)
    post = {
        f"ppl per word, segmentation {k}": units.from_nats(round(nll[k], 1), len(s4.split()) + 1) for k in nll
    }
    post |= {
        f"ppl per character, segmentation {k}": units.from_nats(
            round(nll[k], 1), len(s4.replace(" ", "")) + 1
        )
        for k in nll
    }
    df["follows from the post's figures"] = [
        round(post.get(q, r), d) == p
        for q, p, d, r in zip(df["quantity"], df["printed"], df["decimals"], df["recomputed"])
    ]
    # why a printed value does not follow, by kind (the notes give the detail)
    causes = {
        "ppl per character, same sentence": "EOS left out of the count",
        "ppl per word from the listed conditionals": "factors other than the listed conditionals",
        "ppl per word, segmentation 1": "a rounded intermediate",
        "ppl per word, segmentation 2": "a rounded intermediate",
        "ppl per character, segmentation 1": "a rounded intermediate and the space left out of the count",
        "ppl per character, segmentation 2": "a rounded intermediate and the space left out of the count",
    }
    df["cause"] = [
        causes.get(q, "unexplained") if not f else "" for q, f in zip(df["quantity"], df["follows"])
    ]
    return df.drop(columns="decimals")


# --------------------------------------------------------------------------------------------
# the closed vocabulary


def oov_tokens(seg: WordSegmentation, text: str) -> list[str]:
    """The words of ``text`` (Moses tokens, as the word model splits it) outside its vocabulary."""
    return [w for w in seg.split(text) if w not in seg.index]


def oov_mass(seg: WordSegmentation, samples: Sequence[str], finished: Sequence[bool]) -> dict[str, float]:
    """The share of an open model's samples that the closed ``seg`` cannot produce (a Monte
    Carlo estimate of the probability the open model spends on them), with a Wilson 95%
    interval; unfinished samples that already hold an unknown word count as such, the
    others are dropped (their completion is unknown)."""
    flags = [bool(oov_tokens(seg, s)) for s in samples]
    keep = [f or d for f, d in zip(flags, finished)]
    k, n = sum(f for f, kp in zip(flags, keep) if kp), sum(keep)
    if n == 0:
        raise ValueError("no usable samples")
    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    return {"mass": k / n, "low": float(ci.low), "high": float(ci.high), "n": n, "dropped": len(samples) - n}


class Speller:
    """p(spelling | <unk>): a character n-gram model of the words a closed vocabulary maps to
    ``<unk>``, renormalised to the strings outside the vocabulary (its mass on in-vocabulary
    words would be spent twice otherwise). Trained on the training split's word tokens
    outside the vocabulary, one string per occurrence.

    ``lm`` is a character-level :class:`~lmnotes.models.base.LanguageModel` trained on those
    words; this class adds the renormalisation, log(1 - sum_{v in V} p(v)).
    """

    def __init__(self, lm, vocabulary: Sequence[str]):
        self.lm = lm
        words = [w for w in vocabulary if w and not (w.startswith("<") and w.endswith(">"))]
        in_vocab = logsumexp(lm.score(words).logprob)
        self.vocab_mass = float(math.exp(in_vocab))
        self.log_norm = float(np.log1p(-self.vocab_mass))

    def logprob(self, words: Sequence[str]) -> np.ndarray:
        """log p(w | <unk>) for out-of-vocabulary words."""
        if not len(words):
            return np.zeros(0)
        return self.lm.score(list(words)).logprob - self.log_norm


def train_speller(
    seg: WordSegmentation, train_texts: Sequence[str], order: int = 4, corpus: str = "enwiki"
) -> Speller:
    """The :class:`Speller` of a closed vocabulary: a Kneser–Ney character ``order``-gram
    (kept in the shared cache like every trained model) over the words of ``train_texts``
    that ``seg`` maps to ``<unk>``, one string per occurrence. Models and segmentation
    chapters."""
    from lmnotes.models.trained import Recipe, build

    words = unk_training_words(seg, train_texts)
    if not words:
        raise ValueError("no training word falls outside the vocabulary: there is nothing to spell")
    lm = build(
        Recipe("ngram-kn", "char", order=order, min_count=1), words, [], name=f"speller-{corpus}-{len(words)}"
    )
    speller = Speller(lm, seg.vocab)
    speller.n_words = len(words)
    return speller


def unk_training_words(seg: WordSegmentation, texts: Sequence[str]) -> list[str]:
    """Word tokens of ``texts`` that ``seg`` maps to ``<unk>``, one per occurrence."""
    return [w for t in texts for w in seg.split(t) if w not in seg.index]


def open_word_logprob(
    word_logprob: np.ndarray, texts: Sequence[str], seg: WordSegmentation, speller: Speller
) -> np.ndarray:
    """log p of each text under the word model made open: every ``<unk>`` it predicted is
    followed by the spelling of the actual word, log p(<unk> ...) + log p_spell(w)."""
    oov = [oov_tokens(seg, t) for t in texts]
    flat = speller.logprob([w for ws in oov for w in ws])
    ends = np.cumsum([len(ws) for ws in oov])
    parts = np.split(flat, ends[:-1]) if len(texts) else []
    return np.asarray(word_logprob, dtype=float) + np.array([p.sum() for p in parts])


# --------------------------------------------------------------------------------------------
# documents


def document_ids(lm, sentences: Sequence[str]) -> list[int]:
    """A document as the self-trained models saw text in training: its sentences' tokens
    separated by the end-of-sequence symbol (``<s>``, which also begins and ends the whole
    when :meth:`~lmnotes.models.base.LanguageModel.score_ids` scores it)."""
    ids: list[int] = []
    for k, s in enumerate(sentences):
        if k:
            ids.append(lm.eos_id)
        ids.extend(lm.encode(s))
    return ids


def document_counts(sentences: Sequence[str]) -> dict[str, int]:
    """Words, characters and bytes of a document of sentences, each separator (``<s>``)
    counted as one unit, as EOS is under the "string" convention."""
    n = len(sentences)
    return {
        "word": sum(len(s.split()) for s in sentences) + n,
        "char": sum(len(s) for s in sentences) + n,
        "byte": sum(len(s.encode("utf-8")) for s in sentences) + n,
    }


def vocabulary_coverage(seg: WordSegmentation, texts: Sequence[str]) -> dict[str, float]:
    """Token and type rates of out-of-vocabulary words in ``texts`` and the share of texts
    holding at least one."""
    words = [w for t in texts for w in seg.split(t)]
    counts = Counter(words)
    oov_types = [w for w in counts if w not in seg.index]
    return {
        "oov token rate": sum(counts[w] for w in oov_types) / max(1, len(words)),
        "oov type rate": len(oov_types) / max(1, len(counts)),
        "texts with oov": float(np.mean([bool(oov_tokens(seg, t)) for t in texts])) if texts else 0.0,
    }
