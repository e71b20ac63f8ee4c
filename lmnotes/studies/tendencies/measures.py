"""Statistical tendencies of generated text (Meister & Cotterell 2021). Tendencies chapter.

A set of documents (model samples or human text) is turned into the source's view of text
(§5): Moses tokens, lower-cased, whole words only (subword models are decoded to text
before tokenising), length = number of tokens. :class:`TextSet` holds, per document, its
length, number of distinct unigrams, fraction of stopwords and of symbols (tokens made only
of punctuation and digits), and its word counts. :func:`compare` measures a sample against a
reference set with the source's distances, each with a bootstrap 95% interval that
resamples the sample's documents and the reference's *articles* (``reference_groups``: the
sentences of one article are resampled together, :mod:`lmnotes.stats`):

- rank–frequency (Tab. 2): KS distances of the sample's rank–frequency distribution to a
  Zipf law fitted on the sample, to one fitted on the reference, and to the reference's
  empirical distribution (the source's three Δ columns), every set on the same support of
  the first ``rank_support`` ranks (so that the distance does not measure how many types a
  set has);
- unigram (Tab. 2): total variation distance to the reference's unigram distribution, over
  all types and over the union of the two sets' ``top_types`` most frequent types (the
  source's footnote 15);
- length, stopwords, symbols (Tab. 3): two-sample KS distances; differences of means with
  a cluster-robust Welch test (App. D; :mod:`lmnotes.stats.clusters`);
- Zipf's and Heaps' exponents (App. D); type–token KS distances by document length
  (Fig. 4): :func:`type_token_by_length`; the type–token ratio at matched lengths:
  :func:`matched_type_token`.

Every bootstrap draws the reference's resamples from the same seeded stream, so two
distances to one reference computed with one seed are paired (:func:`lmnotes.stats.excess`).

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
from scipy.stats import ks_2samp
from scipy.stats import t as t_dist

from lmnotes.core import remember
from lmnotes.stats import clusters, laws, inference as stats
from lmnotes.text.tokenize import moses_words, split_sentences

UNK = "<unk>"  # closed-vocabulary models write this; it stays one token
#: Tokens that are not words: left out of the word-frequency distances (rank–frequency,
#: unigram, Zipf's s). A closed vocabulary writes ``<unk>`` for every word outside it; the
#: reference, human text, never does, so counted as a type it would measure how often a
#: model says "some other word", not how it distributes its words.
NOT_WORDS = (UNK,)
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

    @cached_property
    def unk_rate(self) -> float:
        """The share of the set's tokens that are ``<unk>`` (0 for an empty set)."""
        n = int(self.lengths.sum())
        return sum(d.count(UNK) for d in self.docs) / n if n else 0.0

    def type_totals(self, exclude: Sequence[str] = NOT_WORDS) -> np.ndarray:
        """How often each type of :attr:`vocabulary` occurs in the whole set, the types of
        ``exclude`` left out."""
        totals = np.asarray(self.counts({w: i for i, w in enumerate(self.vocabulary)}).sum(0))[0]
        return totals[[i for i, w in enumerate(self.vocabulary) if w not in exclude]]

    def counts(self, index: dict[str, int]) -> sparse.csr_matrix:
        """Documents x vocabulary word counts over ``index`` (every token must be in it)."""
        rows = np.repeat(np.arange(len(self.docs)), self.lengths)
        cols = np.fromiter((index[w] for d in self.docs for w in d), dtype=np.int64, count=rows.size)
        X = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(len(self.docs), len(index)))
        X.sum_duplicates()
        return X

    def summary(self) -> dict:
        return {
            "documents": len(self),
            "tokens": int(self.lengths.sum()),
            "types": len(self.vocabulary),
            "mean length": float(self.lengths.mean()),
            "empty": int((self.lengths == 0).sum()),
        }


def rank_pmf(totals: np.ndarray, max_rank: int = 10_000) -> np.ndarray:
    """Rows of type totals [B, V] -> rank–frequency pmfs over ranks 1..max_rank [B, max_rank]
    (types sorted by count, the first ``max_rank`` kept, renormalised; zero-padded)."""
    t = -np.sort(-np.atleast_2d(totals), axis=1)[:, :max_rank]
    if t.shape[1] < max_rank:
        t = np.pad(t, ((0, 0), (0, max_rank - t.shape[1])))
    return t / t.sum(axis=1, keepdims=True)


def _zipf_columns(tx: np.ndarray, ty: np.ndarray, rank_support: int) -> np.ndarray:
    """For rows of type totals of sample and reference: [B, 3] = KS of the sample's rank pmf
    to a Zipf law fitted on the sample, to one fitted on the reference, and to the
    reference's rank pmf, all over ranks 1..``rank_support`` (laws fitted on those ranks)."""
    px, py = rank_pmf(tx, rank_support), rank_pmf(ty, rank_support)
    out = np.empty((len(px), 3))
    for i, (t_x, t_y) in enumerate(zip(np.atleast_2d(tx), np.atleast_2d(ty))):
        zx = laws.zipf_pmf(laws.fit_zipf(t_x, rank_support), rank_support)
        zy = laws.zipf_pmf(laws.fit_zipf(t_y, rank_support), rank_support)
        out[i] = [
            stats.ks_distance(px[i], zx)[0],
            stats.ks_distance(px[i], zy)[0],
            stats.ks_distance(px[i], py[i])[0],
        ]
    return out


def document_ks(
    sample: TextSet,
    reference: TextSet,
    key: str,
    n_boot: int = 200,
    seed: int = 0,
    sample_size: int | None = None,
    reference_groups=None,
) -> stats.Estimate:
    """Two-sample KS distance between the per-document statistic ``key`` (a key of
    :data:`PER_DOCUMENT`) of ``sample`` and ``reference``, with a bootstrap interval over the
    documents of the sample and the articles (``reference_groups``) of the reference;
    ``sample_size`` resamples that many documents of ``sample`` (the spread with a sample of
    that size, see :func:`lmnotes.stats.bootstrap_weights`)."""
    x, y = getattr(sample, PER_DOCUMENT[key]), getattr(reference, PER_DOCUMENT[key])
    support = np.union1d(x, y)
    return stats.bootstrap_distance(
        stats.ks_distance,
        stats.one_hot(x, support)[0],
        stats.one_hot(y, support)[0],
        n_resamples=n_boot,
        seed=seed,
        x_size=sample_size,
        y_groups=reference_groups,
    )


def compare(
    sample: TextSet,
    reference: TextSet,
    n_boot: int = 200,
    max_rank: int = 10_000,
    seed: int = 0,
    reference_groups=None,
    rank_support: int = 1000,
    top_types: int = 1000,
    exclude: Sequence[str] = NOT_WORDS,
) -> dict:
    """Every distance of the source's Tab. 2, Tab. 3 and App. D between ``sample`` and
    ``reference``, as :class:`~lmnotes.stats.Estimate` (value, bootstrap 95% interval and
    replicates) or, for the mean differences, :class:`~lmnotes.stats.clusters.TestResult`.
    ``reference_groups`` labels each reference document with its article (None: independent
    documents). Zipf's s is fitted on the first ``max_rank`` ranks (the source's 10,000).
    The word-frequency distances (rank–frequency, unigram, Zipf's s) leave the tokens of
    ``exclude`` out (by default ``<unk>``, :data:`NOT_WORDS`); the per-document statistics
    count every token.

    (9 parameters: the two samples, the bootstrap's settings and the source's choices of support
    (ranks, top types, left-out symbols).)
    """
    if sample.lengths.sum() == 0:
        raise ValueError(f"{sample.name}: the sample has no tokens")
    types = sorted(set(sample.vocabulary) | set(reference.vocabulary))
    index = {w: i for i, w in enumerate(types)}
    words = [i for i, w in enumerate(types) if w not in exclude]
    X, Y = sample.counts(index)[:, words], reference.counts(index)[:, words]
    if X.sum() == 0:
        raise ValueError(f"{sample.name}: the sample has no words (only {', '.join(exclude)})")
    tx, ty = np.asarray(X.sum(0)), np.asarray(Y.sum(0))
    out = {}

    # rank–frequency (refits both Zipf laws in every bootstrap replicate) and unigram TVD
    rx, ry = stats.bootstrap_streams(seed)
    bx = (stats.bootstrap_weights(X.shape[0], n_boot, rx) @ X).toarray()
    by = (stats.bootstrap_weights(Y.shape[0], n_boot, ry, groups=reference_groups) @ Y).toarray()
    value, reps = _zipf_columns(tx, ty, rank_support)[0], _zipf_columns(bx, by, rank_support)
    G = stats.n_clusters(reference_groups)  # the small-cluster reference of every interval against it
    for j, key in enumerate(
        ["rank KS to Zipf(sample)", "rank KS to Zipf(reference)", "rank KS to reference"]
    ):
        out[key] = stats.interval(value[j], reps[:, j], floor=0.0, clusters=None if j == 0 else G)
    zipf_s = [laws.fit_zipf(t, max_rank) for t in bx]
    out["Zipf s"] = stats.interval(laws.fit_zipf(tx[0], max_rank), zipf_s)
    out["unigram TVD"] = stats.interval(stats.tvd(tx, ty)[0], stats.tvd(bx, by), floor=0.0, clusters=G)
    keep = np.union1d(
        np.argsort(-tx[0], kind="stable")[:top_types], np.argsort(-ty[0], kind="stable")[:top_types]
    )
    out["top-types TVD"] = stats.interval(
        stats.tvd(tx[:, keep], ty[:, keep])[0], stats.tvd(bx[:, keep], by[:, keep]), floor=0.0, clusters=G
    )
    out["Heaps beta"], out["Heaps K"] = sample.heaps.beta, sample.heaps.K

    # length, stopwords, symbols: two-sample KS with intervals; mean differences with tests
    for i, (key, attr) in enumerate(PER_DOCUMENT.items()):
        out[f"{key} KS"] = document_ks(
            sample, reference, key, n_boot=n_boot, seed=seed + 1 + i, reference_groups=reference_groups
        )
        out[f"{key} mean diff"] = clusters.mean_difference_test(
            getattr(sample, attr), getattr(reference, attr), None, reference_groups
        )
    return out


def type_token_by_length(
    sample: TextSet,
    reference: TextSet,
    bins: Sequence[int],
    n_boot: int = 200,
    seed: int = 0,
    reference_groups=None,
) -> tuple[pd.DataFrame, stats.Estimate]:
    """KS distances of the distribution of types per document, by document-length bin
    (the source's Fig. 4): to the reference's documents of that length (empirical), and to
    the NHPPs of Heaps' law fitted on the sample and on the reference (for a bin, the law's
    distribution is the mixture of Poisson(K n^β) over the sample's document lengths in it).
    Bins with fewer than 5 documents on either side are left out.

    Returns the bins (with each bin's bootstrap replicates, NaN where a resample left the
    bin empty), and the mean of the empirical KS over them weighted by their documents
    (sample plus reference) with a bootstrap interval (the sample's documents and the
    reference's articles resampled once for all bins, so the replicates are joint)."""
    fits = {"sample": sample.heaps, "reference": reference.heaps}
    rx, ry = stats.bootstrap_streams(seed)
    Wx = stats.bootstrap_weights(len(sample), n_boot, rx)
    Wy = stats.bootstrap_weights(len(reference), n_boot, ry, groups=reference_groups)
    rows, reps, weights = [], [], []
    for lo, hi in zip(bins[:-1], bins[1:]):
        ix = (sample.lengths >= lo) & (sample.lengths < hi)
        iy = (reference.lengths >= lo) & (reference.lengths < hi)
        if ix.sum() < 5 or iy.sum() < 5:
            continue
        u, v = sample.types[ix], reference.types[iy]
        support = np.arange(0, max(u.max(), v.max(), hi) + 1)
        X, Y = stats.one_hot(u, support)[0], stats.one_hot(v, support)[0]
        hx, hy = (Wx[:, ix] @ X).toarray(), (Wy[:, iy] @ Y).toarray()
        r = np.full(n_boot, np.nan)  # a resample may leave the bin empty (a long bin of few articles)
        full = (hx.sum(1) > 0) & (hy.sum(1) > 0)
        r[full] = stats.ks_distance(hx[full], hy[full])
        est = stats.interval(
            stats.ks_distance(X.sum(0), Y.sum(0))[0],
            r[np.isfinite(r)],
            floor=0.0,
            clusters=stats.n_clusters(None if reference_groups is None else np.asarray(reference_groups)[iy]),
        )
        row = {
            "bin": f"{lo}-{hi - 1}",
            "length": float(sample.lengths[ix].mean()),
            "documents": int(ix.sum()),
            "KS to reference": est.value,
            "low": est.low,
            "high": est.high,
            "replicates": r,
        }
        for name, fit in fits.items():
            mix = np.diff(fit.cdf(support[:, None], sample.lengths[ix][None]).mean(1), prepend=0.0)
            row[f"KS to NHPP({name})"] = stats.ks_distance(np.bincount(u, minlength=len(support)), mix)[0]
        rows.append(row)
        reps.append(r)
        weights.append(ix.sum() + iy.sum())
    if not rows:
        return pd.DataFrame(rows), stats.Estimate(np.nan, np.nan, np.nan)
    G = stats.n_clusters(reference_groups)
    w = np.asarray(weights, dtype=float) / np.sum(weights)
    R = np.vstack(reps).T  # [B, bins]; a bin a replicate left empty drops out of its mean
    ok = np.isfinite(R)
    value = float(w @ [row["KS to reference"] for row in rows])
    mass = ok @ w
    means = (np.where(ok, R, 0) @ w) / np.where(
        mass > 0, mass, np.nan
    )  # NaN: a resample with every bin empty
    table = pd.DataFrame(rows)
    table.attrs["clusters"] = G  # for the intervals of differences of its bins (growth_beyond)
    return table, stats.interval(value, means, floor=0.0, clusters=G)


def matched_type_token(
    sample: TextSet,
    reference: TextSet,
    min_length: int = 1,
    max_length: int | None = None,
    reference_groups=None,
    sample_groups=None,
    level: float = 0.95,
) -> tuple[stats.Estimate, float]:
    """Difference in distinct words per token (types / length) between ``sample`` and
    ``reference`` at matched exact lengths: for each length n in [min_length, max_length]
    that both sets have, the difference of the mean ratios, averaged over lengths with the
    weights c_x(n) c_y(n) / (c_x(n) + c_y(n)) of the documents of that length (the estimator
    of a regression with one effect per length). Tested with
    :func:`lmnotes.stats.clusters.cell_contrast_test` (lengths as cells; the reference's articles,
    ``reference_groups``, as clusters): returns the difference with its t interval at
    ``level`` (the test's small-cluster t distribution) and the two-sided p-value. One unit
    of length throughout: the source's view, Moses tokens."""
    if min_length < 1:
        raise ValueError(f"min_length must be at least 1 (a ratio per token), got {min_length}")
    top = max(sample.lengths.max(), reference.lengths.max()) if max_length is None else max_length

    def side(ts, groups):
        keep = (ts.lengths >= min_length) & (ts.lengths <= top)
        return (
            ts.types[keep] / ts.lengths[keep],
            ts.lengths[keep],
            None if groups is None else np.asarray(groups)[keep],
        )

    x, cx, gx = side(sample, sample_groups)
    y, cy, gy = side(reference, reference_groups)
    if not np.intersect1d(cx, cy).size:
        raise ValueError("no length in range is shared by both sets")
    t = clusters.cell_contrast_test(x, cx, y, cy, gx, gy)
    half = float(t_dist.ppf(0.5 + level / 2, t.df) * t.se) if t.se > 0 else 0.0
    return stats.Estimate(t.statistic, t.statistic - half, t.statistic + half), t.pvalue


def growth_beyond(table: pd.DataFrame, baseline: pd.DataFrame) -> tuple[str, stats.Estimate] | None:
    """How much more a set's type–token KS grows from the shortest to the longest length bin
    than a baseline's does (claim 10: the distance grows with length, net of the human
    shift's growth). ``table``, ``baseline``: :func:`type_token_by_length` tables of two sets
    against one reference, bootstrapped with one seed (paired). Over the bins both have:
    (KS_last - KS_first) - (baseline's KS_last - KS_first), with the interval of the same
    difference of the replicates; returns ("first to last" bin, estimate), or None with
    fewer than two shared bins."""
    if table.empty or baseline.empty:
        return None
    a, b = table.set_index("bin"), baseline.set_index("bin")
    common = [x for x in a.index if x in b.index]
    if len(common) < 2:
        return None
    first, last = common[0], common[-1]

    def net(column):
        return (a[column][last] - a[column][first]) - (b[column][last] - b[column][first])

    G = stats.fewest(table.attrs.get("clusters"), baseline.attrs.get("clusters"))
    return f"{first} to {last}", stats.interval(net("KS to reference"), net("replicates"), clusters=G)


def through_vocabulary(lm, texts: Sequence[str]) -> list[str]:
    """``texts`` as a closed-vocabulary model can write them: encoded and decoded by ``lm``
    (a model or a segmentation, anything with ``encode`` and ``decode``), so that every word
    outside its vocabulary becomes ``<unk>``."""
    return [lm.decode(lm.encode(t)) for t in texts]


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


def sample_set(
    lm,
    label: str,
    strategy: str,
    n: int,
    top_p: float,
    beam: int,
    max_tokens: int,
    seed: int,
    batch_size: int,
    unit: str = "line",
) -> tuple[TextSet, np.ndarray]:
    """``n`` samples of ``lm`` under ``strategy`` (``ancestral``, ``nucleus`` with ``top_p``,
    or ``beam`` sampling with ``beam`` hypotheses) as a :class:`TextSet` named ``label`` of
    their first documents (:func:`first_document` with ``unit``), and the flags of the
    documents that ended (with EOS, or with more text after them) rather than at
    ``max_tokens``. The samples are kept in the shared cache (:mod:`lmnotes.models.memo`).

    (10 parameters: the model, the strategy with its settings and the chapter's sampling
    parameters.)
    """
    from lmnotes.models import memo

    settings = {"nucleus": {"top_p": top_p}, "beam": {"beam": beam}, "beam-k2": {"beam": beam}}.get(
        strategy, {}
    )
    s = memo.sample(lm, n, strategy, max_tokens=max_tokens, seed=seed, batch_size=batch_size, **settings)
    docs = [first_document(t, unit) for t in s.texts]
    return TextSet.from_texts(label, [d for d, _ in docs]), s.finished | np.array(
        [w for _, w in docs], dtype=bool
    )


def significance_by_size(
    sample: TextSet,
    reference: TextSet,
    sizes: Sequence[int],
    repeats: int = 50,
    alpha: float = 0.05,
    seed: int = 0,
    reference_groups=None,
) -> pd.DataFrame:
    """How often the cluster-robust test of means (:func:`lmnotes.stats.clusters.mean_difference_test`,
    the reference's articles as clusters) rejects "same mean" at level ``alpha`` for length,
    stopword and symbol fractions when only ``n`` sampled documents are compared with the
    whole reference, for each n in ``sizes`` up to the sample's size and for the whole sample
    (``repeats`` random subsets without replacement of the sample each)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in sorted({n for n in sizes if n < len(sample)} | {len(sample)}):
        for key, attr in PER_DOCUMENT.items():
            x, y = getattr(sample, attr), getattr(reference, attr)
            hits = [
                clusters.mean_difference_test(
                    x[rng.choice(len(x), n, replace=False)], y, None, reference_groups
                ).pvalue
                < alpha
                for _ in range(repeats)
            ]
            rows.append({"documents": n, "statistic": key, "rejected": float(np.mean(hits))})
    return pd.DataFrame(rows)


def zipf_floor(
    n_tokens: int,
    s: float,
    repeats: int = 20,
    rank_support: int = 1000,
    top_types: int = 1000,
    vocabulary: int = 100_000,
    seed: int = 0,
) -> pd.DataFrame:
    """The finite-sample floor of the rank–frequency and unigram distances: ``repeats``
    pairs of samples of ``n_tokens`` tokens drawn independently from one Zipf law with
    exponent ``s`` over ``vocabulary`` types. Per pair: the first sample's rank KS to a Zipf
    law fitted on it (over ``rank_support`` ranks, as :func:`compare`), the rank KS between
    the two samples, and their unigram TVD over all types and over the top types. A law
    that holds exactly still shows these distances at this size."""
    rng = np.random.default_rng(seed)
    p = laws.zipf_pmf(s, vocabulary)
    rows = []
    for _ in range(repeats):
        a, b = (np.bincount(rng.choice(vocabulary, n_tokens, p=p), minlength=vocabulary) for _ in range(2))
        fit = laws.zipf_pmf(laws.fit_zipf(a, rank_support), rank_support)
        keep = np.union1d(
            np.argsort(-a, kind="stable")[:top_types], np.argsort(-b, kind="stable")[:top_types]
        )
        rows.append(
            {
                "rank KS to Zipf(sample)": stats.ks_distance(rank_pmf(a, rank_support), fit)[0],
                "rank KS to reference": stats.ks_distance(
                    rank_pmf(a, rank_support), rank_pmf(b, rank_support)
                )[0],
                "unigram TVD": stats.tvd(a, b)[0],
                "top-types TVD": stats.tvd(a[keep], b[keep])[0],
            }
        )
    return pd.DataFrame(rows)


def zipf_documents(lengths, s: float, vocabulary: int = 100_000, seed: int = 0) -> TextSet:
    """Documents of the given ``lengths`` drawn word by word from one Zipf law (exponent ``s``
    over ``vocabulary`` types; a type is named by its rank): text that follows Zipf's law
    exactly and Heaps' law as far as a Zipf law implies it, the yardstick of the NHPP fits."""
    rng = np.random.default_rng([seed, 20])
    p = laws.zipf_pmf(s, vocabulary)
    lengths = np.asarray(lengths, dtype=int)
    words = rng.choice(vocabulary, int(lengths.sum()), p=p).astype(str)
    return TextSet("Zipf", [list(d) for d in np.split(words, np.cumsum(lengths)[:-1])])


def dispersion_by_length(ts: TextSet, bins) -> pd.Series:
    """Variance over mean of the number of types per document given its length, per length
    bin: the variance pooled within each exact length of the bin (so that mixing lengths does
    not add to it) over the bin's mean number of types; the ratio a Poisson count has at 1.
    Bins with fewer than 5 documents that share a length with another are left out."""
    out = {}
    for lo, hi in zip(bins[:-1], bins[1:]):
        keep = (ts.lengths >= lo) & (ts.lengths < hi)
        df = pd.DataFrame({"n": ts.lengths[keep], "t": ts.types[keep].astype(float)})
        g = df.groupby("n")["t"]
        dof = (g.size() - 1).sum()
        if dof >= 5 and df["t"].mean() > 0:
            out[f"{lo}-{hi - 1}"] = float(
                (g.var(ddof=1).fillna(0) * (g.size() - 1)).sum() / dof / df["t"].mean()
            )
    return pd.Series(out, name="variance / mean", dtype=float)


#: The calibration checks' values in the shared cache (kind ``calibration``): they redo every
#: test on 100 splits of the training articles, most of the chapter's warm time.
remembered = remember.Store(
    "calibration",
    ("lmnotes.studies.tendencies.measures",)
    + remember.package_modules("lmnotes.stats")
    + ("lmnotes.core.numerics", "lmnotes.core.kernels"),
)


@remembered
def null_rejections(
    pool: TextSet,
    groups,
    n_splits: int = 100,
    articles: int = 10,
    documents: int = 1000,
    alpha: float = 0.05,
    n_permutations: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """The calibration check of the tests, on human text where the null is true.

    ``pool``: the documents of many articles (``groups``: each document's article). In each
    of ``n_splits`` splits, two disjoint groups of ``articles`` random articles (design
    "articles vs articles", the source's test split against another) and, against the first,
    ``documents`` random documents of the other articles (design "documents vs articles",
    a model's samples against the test split). Each test of "same distribution" of length,
    stopword and symbol fractions is run at level ``alpha``; returns one row per split,
    design, statistic and test, with whether it rejected."""
    groups = np.asarray(groups)
    ids = np.unique(groups)
    if len(ids) < 2 * articles + 1:
        raise ValueError(f"{len(ids)} articles: too few for two groups of {articles} and more")
    rng = np.random.default_rng(seed)
    rows = []
    for split in range(n_splits):
        chosen = rng.choice(ids, 2 * articles, replace=False)
        a, b = np.isin(groups, chosen[:articles]), np.isin(groups, chosen[articles:])
        rest = np.flatnonzero(~np.isin(groups, chosen[:articles]))
        docs = rng.choice(rest, min(documents, len(rest)), replace=False)
        for key, attr in PER_DOCUMENT.items():
            v = getattr(pool, attr)
            s = int(rng.integers(2**31))
            for design, x, gx in [
                ("articles vs articles", v[b], groups[b]),
                ("documents vs articles", v[docs], None),
            ]:
                y, gy = v[a], groups[a]
                tests = {
                    "document permutation": stats.permutation_test(x, y, n_permutations, seed=s).pvalue,
                    "KS (ks_2samp)": ks_2samp(x, y).pvalue,
                }
                if gx is None:
                    tests["cluster-robust Welch"] = clusters.mean_difference_test(x, y, None, gy).pvalue
                else:
                    tests["article permutation"] = clusters.cluster_permutation_test(
                        x, y, gx, gy, n_permutations, seed=s
                    ).pvalue
                rows.extend(
                    {"split": split, "design": design, "statistic": key, "test": t, "rejected": p < alpha}
                    for t, p in tests.items()
                )
    return pd.DataFrame(rows)


#: The distances of :func:`compare` whose paired differences decide verdicts in the chapter.
PAIRED_DISTANCES = (
    "rank KS to Zipf(sample)",
    "rank KS to reference",
    "unigram TVD",
    "top-types TVD",
    "length KS",
    "stopwords KS",
    "symbols KS",
)


@remembered
def null_checks(
    pool: TextSet,
    groups,
    n_splits: int = 100,
    articles: int = 10,
    documents: int = 1000,
    alpha: float = 0.05,
    n_boot: int = 200,
    length_bins: Sequence[int] = (1, 11, 21, 41, 121),
    long_length: int = 41,
    seed: int = 0,
    **compare_kw,
) -> pd.DataFrame:
    """The calibration check of every other test that decides a verdict, on human text where
    the null is true (:func:`null_rejections` checks the tests of means).

    In each of ``n_splits`` splits of ``pool`` (``groups``: each document's article), a
    reference of ``articles`` random articles (the test split's role) and two disjoint samples
    A and B of ``documents`` random documents of the other articles (two models' samples, or
    a model's and the human shift's). Every check is at level ``alpha``:

    - *paired interval*: for each distance of :data:`PAIRED_DISTANCES`, for the type–token KS
      over the length bins (``length_bins``) and for its growth from the first to the last
      bin (:func:`growth_beyond`), whether the interval of A's distance minus B's, both to the
      reference and bootstrapped with one seed (:func:`lmnotes.stats.excess`), excludes 0;
    - *matched-length t test*: :func:`matched_type_token` of A against the reference, over
      all lengths and over documents of at least ``long_length`` tokens;
    - *Welch test, two samples*: :func:`lmnotes.stats.clusters.mean_difference_test` of A's and
      B's mean length (claim 8b's design, two independent samples).

    Returns one row per split, check and quantity, with whether it rejected (an interval that
    excludes 0 counts as a rejection).

    (10 parameters: the pool of human text with its units, and the settings of the tests it checks.)
    """
    groups = np.asarray(groups)
    ids = np.unique(groups)
    if len(ids) < articles + 1:
        raise ValueError(f"{len(ids)} articles: too few for a reference of {articles} and more")
    rng = np.random.default_rng(seed)
    rows = []

    def add(split, check, quantity, rejected):
        rows.append({"split": split, "check": check, "quantity": quantity, "rejected": bool(rejected)})

    for split in range(n_splits):
        chosen = np.isin(groups, rng.choice(ids, articles, replace=False))
        rest = np.flatnonzero(~chosen)
        picked = rng.choice(rest, min(2 * documents, len(rest)), replace=False)
        half = len(picked) // 2
        ref = TextSet("reference", [pool.docs[i] for i in np.flatnonzero(chosen)])
        a, b = (
            TextSet(name, [pool.docs[i] for i in part])
            for name, part in (("A", picked[:half]), ("B", picked[half:]))
        )
        gref = groups[chosen]
        s = int(rng.integers(2**31))
        ra, rb = (compare(x, ref, n_boot=n_boot, seed=s, reference_groups=gref, **compare_kw) for x in (a, b))
        for key in PAIRED_DISTANCES:
            e = stats.excess(ra[key], rb[key])
            add(split, "paired interval", key, e.low > 0 or e.high < 0)
        (ta, ma), (tb, mb) = (
            type_token_by_length(x, ref, length_bins, n_boot=n_boot, seed=s, reference_groups=gref)
            for x in (a, b)
        )
        if np.isfinite(ma.value) and np.isfinite(mb.value):
            e = stats.excess(ma, mb)
            add(split, "paired interval", "type–token KS (over the length bins)", e.low > 0 or e.high < 0)
        g = growth_beyond(ta, tb)
        if g is not None:
            add(
                split, "paired interval", "type–token KS, growth over the bins", g[1].low > 0 or g[1].high < 0
            )
        for span, lo in (("all lengths", 1), (f"at least {long_length} tokens", long_length)):
            try:
                p = matched_type_token(a, ref, min_length=lo, reference_groups=gref)[1]
            except ValueError:  # no shared length, or a single article in range
                continue
            add(split, "matched-length t test", f"types per token, {span}", p < alpha)
        add(
            split,
            "Welch test, two samples",
            "mean length",
            clusters.mean_difference_test(a.lengths, b.lengths).pvalue < alpha,
        )
    return pd.DataFrame(rows)
