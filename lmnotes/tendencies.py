"""Statistical tendencies of generated text (Meister & Cotterell 2021). Tendencies chapter.

A set of documents (model samples or human text) is turned into the source's view of text
(§5): Moses tokens, lower-cased, whole words only (subword models are decoded to text
before tokenising), length = number of tokens. :class:`TextSet` holds, per document, its
length, number of distinct unigrams, fraction of stopwords and of symbols (tokens made only
of punctuation and digits), and its word counts. :func:`compare` measures a sample against a
reference set with the source's distances, each with a bootstrap 95% interval
over documents (:mod:`lmnotes.stats`):

- rank–frequency (Tab. 2): KS distances of the sample's rank–frequency distribution (first
  10,000 ranks) to a Zipf law fitted on the sample, to one fitted on the reference, and to
  the reference's empirical distribution (the source's three Δ columns);
- unigram (Tab. 2): total variation distance to the reference's unigram distribution;
- length, stopwords, symbols (Tab. 3): two-sample KS distances; differences of means with
  permutation tests (App. D);
- Zipf's and Heaps' exponents (App. D), and type–token KS distances by document length
  (Fig. 4): :func:`type_token_by_length`.

Stopwords: gensim's English list (337 words, the Glasgow IR list that scikit-learn also
ships); the source used NLTK's (179 words), which needs a separate data download.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import sparse

from . import laws, stats
from .text import moses_words, split_sentences

UNK = "<unk>"  # closed-vocabulary models write this; it stays one token
#: The per-document quantities of §3.2 that are compared as distributions: name -> TextSet attribute.
PER_DOCUMENT = {"length": "lengths", "stopwords": "stopword_fraction", "symbols": "symbol_fraction"}


def _stopwords() -> frozenset[str]:
    from gensim.parsing.preprocessing import STOPWORDS

    return frozenset(STOPWORDS)


STOPWORDS = _stopwords()


def is_symbol(token: str) -> bool:
    """A token made only of punctuation, symbols and digits (the source's "symbols", §5.4)."""
    return bool(token) and all(unicodedata.category(c)[0] in "PSN" for c in token)


def tokenize(text: str) -> list[str]:
    """The source's view of a document: Moses tokens, lower-cased; ``<unk>`` kept whole."""
    parts = text.split(UNK)
    out = moses_words(parts[0])
    for part in parts[1:]:
        out.append(UNK)
        out.extend(moses_words(part))
    return out


@dataclass
class TextSet:
    """Documents in the source's view, with the per-document quantities of §3."""

    name: str
    docs: list[list[str]]

    @classmethod
    def from_texts(cls, name: str, texts: Sequence[str]) -> "TextSet":
        docs = [tokenize(t) for t in texts]
        if not docs:
            raise ValueError(f"{name}: no documents")
        return cls(name, docs)

    def __len__(self) -> int:
        return len(self.docs)

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.array([len(d) for d in self.docs])

    @cached_property
    def types(self) -> np.ndarray:
        return np.array([len(set(d)) for d in self.docs])

    def _fraction(self, pred) -> np.ndarray:
        # an empty document has no tokens, hence no stopwords: its fraction is 0
        return np.array([sum(map(pred, d)) / len(d) if d else 0.0 for d in self.docs])

    @cached_property
    def stopword_fraction(self) -> np.ndarray:
        return self._fraction(STOPWORDS.__contains__)

    @cached_property
    def symbol_fraction(self) -> np.ndarray:
        return self._fraction(is_symbol)

    @cached_property
    def vocabulary(self) -> list[str]:
        return sorted({w for d in self.docs for w in d})

    @cached_property
    def heaps(self) -> laws.Heaps:
        """Heaps' law fitted on the documents (an empty document counts as length 1, 0 types)."""
        return laws.fit_heaps(np.maximum(self.lengths, 1), self.types)

    def type_totals(self) -> np.ndarray:
        """How often each type of :attr:`vocabulary` occurs in the whole set."""
        return np.asarray(self.counts({w: i for i, w in enumerate(self.vocabulary)}).sum(0))[0]

    def counts(self, index: dict[str, int]) -> sparse.csr_matrix:
        """Documents x vocabulary word counts over ``index`` (every token must be in it)."""
        rows = np.repeat(np.arange(len(self.docs)), self.lengths)
        cols = np.fromiter((index[w] for d in self.docs for w in d), dtype=np.int64, count=rows.size)
        X = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(len(self.docs), len(index)))
        X.sum_duplicates()
        return X

    def summary(self) -> dict:
        return {"documents": len(self), "tokens": int(self.lengths.sum()), "types": len(self.vocabulary),
                "mean length": float(self.lengths.mean()), "empty": int((self.lengths == 0).sum())}


def rank_pmf(totals: np.ndarray, max_rank: int = 10_000) -> np.ndarray:
    """Rows of type totals [B, V] -> rank–frequency pmfs over ranks 1..max_rank [B, max_rank]
    (types sorted by count, the first ``max_rank`` kept, renormalised; zero-padded)."""
    t = -np.sort(-np.atleast_2d(totals), axis=1)[:, :max_rank]
    if t.shape[1] < max_rank:
        t = np.pad(t, ((0, 0), (0, max_rank - t.shape[1])))
    return t / t.sum(axis=1, keepdims=True)


def _zipf_columns(tx: np.ndarray, ty: np.ndarray, max_rank: int) -> np.ndarray:
    """For rows of type totals of sample and reference: [B, 4] = KS of the sample's rank pmf
    to a Zipf law fitted on the sample, to one fitted on the reference, to the reference's
    rank pmf, and the sample's fitted exponent. Each law lives on its own set's ranks
    (at most ``max_rank``); zero-padding to ``max_rank`` leaves the KS distance unchanged."""
    px, py = rank_pmf(tx, max_rank), rank_pmf(ty, max_rank)
    out = np.empty((len(px), 4))
    for i, (t_x, t_y) in enumerate(zip(np.atleast_2d(tx), np.atleast_2d(ty))):
        s_x, s_y = laws.fit_zipf(t_x, max_rank), laws.fit_zipf(t_y, max_rank)
        zx = laws.zipf_pmf(s_x, min(max_rank, int((t_x > 0).sum())))
        zy = laws.zipf_pmf(s_y, min(max_rank, int((t_y > 0).sum())))
        out[i] = [stats.ks_distance(px[i], np.pad(zx, (0, max_rank - zx.size)))[0],
                  stats.ks_distance(px[i], np.pad(zy, (0, max_rank - zy.size)))[0],
                  stats.ks_distance(px[i], py[i])[0], s_x]
    return out


def document_ks(sample: TextSet, reference: TextSet, key: str, n_boot: int = 200, seed: int = 0,
                sample_size: int | None = None) -> stats.Estimate:
    """Two-sample KS distance between the per-document statistic ``key`` (a key of
    :data:`PER_DOCUMENT`) of ``sample`` and ``reference``, with a bootstrap interval over the
    documents of both; ``sample_size`` resamples that many documents of ``sample`` (the spread
    with a sample of that size, see :func:`lmnotes.stats.bootstrap_weights`)."""
    x, y = getattr(sample, PER_DOCUMENT[key]), getattr(reference, PER_DOCUMENT[key])
    support = np.union1d(x, y)
    return stats.bootstrap_distance(stats.ks_distance, stats.one_hot(x, support)[0], stats.one_hot(y, support)[0],
                                    n_resamples=n_boot, seed=seed, x_size=sample_size)


def compare(sample: TextSet, reference: TextSet, n_boot: int = 200, n_permutations: int = 10_000,
            max_rank: int = 10_000, seed: int = 0) -> dict:
    """Every distance of the source's Tab. 2, Tab. 3 and App. D between ``sample`` and
    ``reference``, as :class:`~lmnotes.stats.Estimate` (value and bootstrap 95% interval)
    or, for the mean differences, ``(difference, p-value)``."""
    if sample.lengths.sum() == 0:
        raise ValueError(f"{sample.name}: the sample has no tokens")
    rng = np.random.default_rng(seed)
    index = {w: i for i, w in enumerate(sorted(set(sample.vocabulary) | set(reference.vocabulary)))}
    X, Y = sample.counts(index), reference.counts(index)
    tx, ty = np.asarray(X.sum(0)), np.asarray(Y.sum(0))
    out = {}

    # rank–frequency (refits both Zipf laws in every bootstrap replicate) and unigram TVD
    value = _zipf_columns(tx, ty, max_rank)[0]
    Wx = stats.bootstrap_weights(X.shape[0], n_boot, rng)
    Wy = stats.bootstrap_weights(Y.shape[0], n_boot, rng)
    bx, by = (Wx @ X).toarray(), (Wy @ Y).toarray()
    reps = _zipf_columns(bx, by, max_rank)
    for j, key in enumerate(["rank KS to Zipf(sample)", "rank KS to Zipf(reference)", "rank KS to reference",
                             "Zipf s"]):
        out[key] = stats.interval(value[j], reps[:, j], floor=None if key == "Zipf s" else 0.0)
    out["unigram TVD"] = stats.interval(stats.tvd(tx, ty)[0], stats.tvd(bx, by), floor=0.0)
    out["Heaps beta"], out["Heaps K"] = sample.heaps.beta, sample.heaps.K

    # length, stopwords, symbols: two-sample KS with intervals; mean differences with p-values
    for key, attr in PER_DOCUMENT.items():
        out[f"{key} KS"] = document_ks(sample, reference, key, n_boot=n_boot, seed=int(rng.integers(2**31)))
        x, y = getattr(sample, attr), getattr(reference, attr)
        test = stats.permutation_test(x, y, n_resamples=n_permutations, seed=int(rng.integers(2**31)))
        out[f"{key} mean diff"] = (test.statistic, test.pvalue)
    return out


def type_token_by_length(sample: TextSet, reference: TextSet, bins: Sequence[int],
                         n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """KS distances of the distribution of types per document, by document-length bin
    (the source's Fig. 4): to the reference's documents of that length (empirical), and to
    the NHPPs of Heaps' law fitted on the sample and on the reference (for a bin, the law's
    distribution is the mixture of Poisson(K n^β) over the sample's document lengths in it).
    Bins with fewer than 5 documents on either side are left out."""
    fits = {"sample": sample.heaps, "reference": reference.heaps}
    rows = []
    for lo, hi in zip(bins[:-1], bins[1:]):
        ix = (sample.lengths >= lo) & (sample.lengths < hi)
        iy = (reference.lengths >= lo) & (reference.lengths < hi)
        if ix.sum() < 5 or iy.sum() < 5:
            continue
        u, v = sample.types[ix], reference.types[iy]
        support = np.arange(0, max(u.max(), v.max(), hi) + 1)
        X, Y = stats.one_hot(u, support)[0], stats.one_hot(v, support)[0]
        row = {"bin": f"{lo}-{hi - 1}", "length": (lo + hi - 1) / 2, "documents": int(ix.sum())}
        est = stats.bootstrap_distance(stats.ks_distance, X, Y, n_resamples=n_boot, seed=seed)
        row.update({"KS to reference": est.value, "low": est.low, "high": est.high})
        for name, fit in fits.items():
            mix = np.diff(fit.cdf(support[:, None], sample.lengths[ix][None]).mean(1), prepend=0.0)
            row[f"KS to NHPP({name})"] = stats.ks_distance(np.bincount(u, minlength=len(support)), mix)[0]
        rows.append(row)
    return pd.DataFrame(rows)


def first_document(text: str, unit: str = "line") -> tuple[str, bool]:
    """A sample's first document, and whether the sample held it whole.

    ``unit="line"``: its first non-empty line (the reference documents are single lines;
    the self-trained models never write a newline). ``unit="sentence"``: the first sentence
    of that line (pysbd, as the corpus was split): the pretrained models write whole pages,
    and a sentence is what the reference calls a document. The document is whole if more
    text follows it in the sample (a newline, or a further sentence); a sample that ran into
    ``max_tokens`` inside it is not.
    """
    if unit not in ("line", "sentence"):
        raise ValueError(f"unit must be 'line' or 'sentence', got {unit!r}")
    lines = [line.strip() for line in text.split("\n")]
    first = next((i for i, line in enumerate(lines) if line), None)
    if first is None:
        return "", False
    line, followed = lines[first], first + 1 < len(lines)
    if unit == "sentence":
        sentences = split_sentences(line)
        if len(sentences) > 1:
            return sentences[0].strip(), True
    return line, followed


def sample_set(lm, label: str, strategy: str, n: int, top_p: float, beam: int, max_tokens: int,
               seed: int, batch_size: int, unit: str = "line") -> tuple[TextSet, np.ndarray]:
    """``n`` samples of ``lm`` under ``strategy`` (``ancestral``, ``nucleus`` with ``top_p``,
    or ``beam`` sampling with ``beam`` hypotheses) as a :class:`TextSet` named ``label`` of
    their first documents (:func:`first_document` with ``unit``), and the flags of the
    documents that ended (with EOS, or with more text after them) rather than at
    ``max_tokens``. The samples are kept in the shared cache (:mod:`lmnotes.memo`)."""
    from . import memo

    settings = {"nucleus": {"top_p": top_p}, "beam": {"beam": beam}, "beam-k2": {"beam": beam}}.get(strategy, {})
    s = memo.sample(lm, n, strategy, max_tokens=max_tokens, seed=seed, batch_size=batch_size, **settings)
    docs = [first_document(t, unit) for t in s.texts]
    return TextSet.from_texts(label, [d for d, _ in docs]), s.finished | np.array([w for _, w in docs], dtype=bool)


def significance_by_size(sample: TextSet, reference: TextSet, sizes: Sequence[int], repeats: int = 50,
                         alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """How often a two-sample KS test (``scipy.stats.ks_2samp``) on length, stopword and
    symbol fractions rejects "same distribution" at level ``alpha`` when only ``n`` sampled
    documents are compared with the whole reference, for each n in ``sizes`` (``repeats``
    random subsets without replacement of the sample each)."""
    from scipy.stats import ks_2samp

    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        if n > len(sample):
            continue
        for key, attr in PER_DOCUMENT.items():
            x, y = getattr(sample, attr), getattr(reference, attr)
            hits = [ks_2samp(x[rng.choice(len(x), n, replace=False)], y).pvalue < alpha for _ in range(repeats)]
            rows.append({"documents": n, "statistic": key, "rejected": float(np.mean(hits))})
    return pd.DataFrame(rows)
