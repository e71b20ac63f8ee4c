"""The claims table of the word-level chapter (05): the thirteen claims of Dudy & Bedrick
(2020), each decided from the chapter's measurements by :mod:`lmnotes.report.claims`.

:func:`claims` takes what the chapter measured (:class:`Results`) and the thresholds it chose
(:class:`Rules`) and returns the table; it computes no statistic of the data beyond the
paired differences of estimates that share their bootstrap resamples
(:func:`lmnotes.stats.excess`) and Fisher's exact tests of 2×2 counts. How each claim is read:

1. top-1 and top-10 rank the models alike: per pair of models without a character-level one,
   both differences resolved and of one sign (for) or of opposite signs (against);
2. and 3. among the pairs *similar* in one measure (the paper's margin), those *different*
   in the other show the claim, those similar in it the opposite;
4. word perplexity does not reveal diversity: per pair of open-vocabulary models, the lower
   perplexity with the lower T1 (for) or the higher (against);
5. accuracy and coverage fall from each of the paper's bins to the next;
6. the share of the hits in the most frequent bin exceeds that bin's share of the words;
7. soft match at the largest k raises accuracy and coverage above chance;
8a. paraphrase identification fails more for rare words (Fisher's exact test, α);
8b. also among the words the encoder splits into pieces;
9. the two encoders do not differ on rare words (within ± ``equal_points``);
10. coverage is below GPT-2's in each of the paper's bins (§3.1);
11. soft match adds at least 11 % more types (§3.2, as a share of T1);
12. Algorithm 2's top-10 and T10 agree with the exact ones within the margin (§1);
13. the larger of two sizes is more diverse (§5; only where sizes were compared).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss

from lmnotes import stats
from lmnotes.report import claims as lmclaims, tables
from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.labels import label, names, signed

CHAPTER = "05_word_level"
CAPTION = "Claims of Dudy & Bedrick (2020) and our verdicts"


@dataclass
class Rules:
    """The chapter's thresholds: the margin of "similar" (a share of a pair's mean), the
    encoders' equivalence margin (points), the largest soft-match k, the number of rare (and
    of common) triples, the sentences searched for the exact top-10, GPT-2's coverage per bin
    that §3.1 calls low (percent), the tests' level and §3.2's soft-match gain (as a share of
    T1, and as points)."""

    margin: float
    equal_points: float
    soft_k: int
    n_triples: int
    n_sentences_exact: int
    paper_coverage: Mapping[str, float]
    alpha: float = 0.05
    soft_share: float = 0.11
    soft_points: float = 11


@dataclass
class Results:
    """What the chapter measured, for the self-trained models (``segmentation``'s keys, in the
    chapter's order):

    - ``pairs``: one row per pair (``a``, ``b``) with the paired differences ``Δ top-1``,
      ``Δ top-10 (Alg. 2)``, ``Δ T1``, ``Δ word ppl`` (estimates) and the readings
      ``top-1 alike`` and ``T1 alike`` (True similar, False different, None undecided);
    - ``by_bin``: {(model, bin): {"acc", "cov": estimates, "hits": count}};
    - ``n_types``: the test's types per bin; ``concentration``: {model: (share of the hits,
      share of the words) in the most frequent bin};
    - ``soft_gain``: {(model, k): (accuracy gain, T1 gain) above chance}; ``t1``: {model: T1};
    - ``table2``: the paraphrase counts (rows with ``source`` "ours": ``encoder``, ``rare
      hits``, ``common hits``, ``Fisher p``); ``trip`` and ``pool``: the triples and the common
      pool, a hit column and a ``<encoder> split`` column per encoder; ``encoders``: the two
      names; ``enc_diff`` and ``mcnemar``: their difference on rare triples and its p-value;
    - ``robust``: {model: {"top-10", "T10": (Alg. 2, exact) estimates}};
    - ``size_rows`` and ``size_cases``: the size comparison's rows (``model``,
      ``difference``) and cases (empty where it did not run).
    """

    segmentation: Mapping[str, str]
    pairs: pd.DataFrame
    by_bin: Mapping[tuple, Mapping]
    n_types: Mapping[str, int]
    concentration: Mapping[str, tuple]
    soft_gain: Mapping[tuple, tuple]
    t1: Mapping[str, stats.Estimate]
    table2: pd.DataFrame
    trip: pd.DataFrame
    pool: pd.DataFrame
    encoders: Sequence[str]
    enc_diff: stats.Estimate
    mcnemar: float
    robust: Mapping[str, Mapping]
    size_rows: Sequence[Mapping] = field(default_factory=list)
    size_cases: Sequence[bool | None] = field(default_factory=list)


#: Whether an estimate's interval excludes 0.
resolved = lmclaims.decided


#: An estimate with three significant digits, as the measured texts print it.
fmt = tables.text


def ranking(results: Results) -> dict:
    """Claim 1: top-1 and top-10 rank the models alike. Algorithm 2's top-10 of a
    character-level model is any short word its top-10 symbols spell: no ranking, so its
    pairs are not tested."""
    models, pairs = list(results.segmentation), results.pairs
    d10 = {(a, b): d for a, b, d in zip(pairs["a"], pairs["b"], pairs["Δ top-10 (Alg. 2)"])}
    char_level = {n for n in models if results.segmentation[n] in ("byte", "char")}
    all_pairs = list(zip(pairs["a"], pairs["b"]))
    valid = [(a, b) for a, b in all_pairs if not {a, b} & char_level]
    d1 = {(a, b): d for a, b, d in zip(pairs["a"], pairs["b"], pairs["Δ top-1"])}
    rank_cases = {(a, b): (d1[a, b].value > 0) == (d10[a, b].value > 0)
                  if resolved(d1[a, b]) and resolved(d10[a, b]) else None
                  for a, b in valid}
    flips = [f"{label(a)}/{label(b)}" for p, c in rank_cases.items() if c is False for a, b in [p]]
    ev = lmclaims.Evidence.of(rank_cases.values())
    return lmclaims.row(
        "1. Whole-word top-1 and top-10 accuracy rank the models alike", ev,
        f"{ev.n_for} of the {len(valid)} pairs without a character-level model "
        f"are ordered alike by both, {ev.n_against} reversed"
        + (f" ({', '.join(flips)})" if flips else "") + f", {ev.n_unresolved} "
        f"tied in one; {len(all_pairs) - len(valid)} pairs with "
        f"{names(sorted(char_level))} not testable (Alg. 2's top-10 of a "
        "character-level model)")


def separated(claim: str, pairs: pd.DataFrame, same: str, other: str, margin: float) -> dict:
    """Claims 2 and 3: among the pairs similar in ``same``, those different in ``other`` show
    the claim, those similar in it show the opposite; a pair whose similarity in ``same`` is
    undecided is an open case, since it may belong to the claim (a pair different in ``same``
    does not)."""
    cases = [None if a is None or o is None else not o
             for a, o in zip(pairs[f"{same} alike"], pairs[f"{other} alike"]) if a is not False]
    ev = lmclaims.Evidence.of(cases)
    n_sim = int((pairs[f"{same} alike"] == True).sum())  # noqa: E712
    return lmclaims.row(claim, ev, (
        f"of {n_sim} pair{'' if n_sim == 1 else 's'} similar in {same} (margin {margin:.1%} of "
        f"their mean), {ev.n_for} differ in {other}, {ev.n_against} "
        f"{'is' if ev.n_against == 1 else 'are'} similar in it; {ev.n_unresolved} "
        f"pair{'' if ev.n_unresolved == 1 else 's'} open (undecided in one measure)"))


def perplexity(results: Results) -> dict:
    """Claim 4: perplexity does not reveal diversity, among models whose word perplexities
    compare: open vocabularies (a closed one spends no mass on the words it cannot produce,
    chapter 03)."""
    closed = {n for n, s in results.segmentation.items() if s == "word"}
    pairs = results.pairs
    open_pairs = pairs[[not ({a, b} & closed) for a, b in zip(pairs["a"], pairs["b"])]]
    ppl_cases = [(r["Δ word ppl"].value > 0) == (r["Δ T1"].value > 0)
                 if resolved(r["Δ word ppl"]) and resolved(r["Δ T1"]) else None
                 for _, r in open_pairs.iterrows()]
    ev = lmclaims.Evidence.of(ppl_cases)
    return lmclaims.row(
        "4. Word perplexity does not reveal diversity", ev,
        f"of {len(open_pairs)} pairs of open-vocabulary models, the lower "
        f"perplexity has the lower T1 in {ev.n_for} and the higher T1 in "
        f"{ev.n_against} ({ev.n_unresolved} tied in one); the pairs with a "
        f"closed vocabulary ({names(sorted(closed))}), not comparable in "
        "perplexity, are left out")


def frequency_fall(results: Results) -> dict:
    """Claim 5: accuracy and coverage fall with training frequency (adjacent paper bins, both
    measures); a bin without a hit cannot fall, so its cases are open."""
    by_bin = results.by_bin
    falls, flat, floor_cases = [], [], []
    for name in results.segmentation:
        for hi, lo in zip(WS.PAPER_BINS, WS.PAPER_BINS[1:]):
            for what in ("acc", "cov"):
                if by_bin[name, hi]["hits"] == 0:  # below the resolution: open
                    floor_cases.append(f"{label(name)} {what} {hi}")
                    falls.append(None)
                    continue
                d = stats.excess(by_bin[name, hi][what], by_bin[name, lo][what])
                falls.append(lmclaims.above(d))
                if not resolved(d):
                    flat.append(f"{label(name)} {what} {hi}→{lo}")
    ev = lmclaims.Evidence.of(falls)
    return lmclaims.row(
        "5. Accuracy and coverage fall with training frequency", ev,
        f"{ev.n_for} of {ev.n} adjacent-bin drops beyond their "
        f"intervals, {ev.n_against} rises"
        + (f"; open: {'; '.join(flat)}" if flat else "")
        + (f"; {len(floor_cases)} open without a hit in the higher bin"
           if floor_cases else ""))


def concentration(results: Results) -> dict:
    """Claim 6: hits concentrate in the most frequent bin (their share there above the bin's
    share of the words, beyond both intervals)."""
    conc = [(n, h, p) for n, (h, p) in results.concentration.items()]
    return lmclaims.row(
        "6. Hits concentrate in the most frequent bin",
        lmclaims.Evidence.of(lmclaims.case(h.low > p.high, h.high < p.low) for _, h, p in conc),
        f"share of the hits in {WS.PAPER_BINS[0]} against its "
        f"{conc[0][2].value:.0f} % of the words: " + "; ".join(
            f"{label(n)} {h.value:.0f} %" for n, h, p in conc))


def soft_match(results: Results, rules: Rules) -> dict:
    """Claim 7: soft match raises accuracy and coverage (largest k, above chance)."""
    models, kk = list(results.segmentation), rules.soft_k
    g = [results.soft_gain[n, kk] for n in models]
    return lmclaims.row(
        f"7. Soft match (k = {kk}) raises accuracy and coverage",
        lmclaims.Evidence.of(lmclaims.above(x) for p in g for x in p),
        "gain above chance, accuracy / coverage (points): " + "; ".join(
            f"{label(n)} {signed(a.value, 2)} / {signed(b.value, 2)}"
            for n, (a, b) in zip(models, g)))


def _fails_more(p: float, rare: float, common: float, alpha: float) -> bool | None:
    """A case of "fails more for rare words": a significant difference, either way."""
    return lmclaims.case(p < alpha and rare < common, p < alpha and rare > common)


def paraphrase(results: Results, rules: Rules) -> list[dict]:
    """Claims 8a and 8b: paraphrase fails more for rare words (Table 2), and among the words
    the encoder splits (all rare words are split: whole words cannot separate the causes)."""
    trip, pool = results.trip, results.pool
    split_cases, split_text = [], []
    for name in results.encoders:
        r_ = trip.loc[(trip["kind"] == "rare") & trip[name + " split"], name]
        c_ = pool.loc[pool[name + " split"], name]
        if len(r_) and len(c_):
            p_ = ss.fisher_exact([[r_.sum(), len(r_) - r_.sum()],
                                  [c_.sum(), len(c_) - c_.sum()]]).pvalue
            split_cases.append(_fails_more(p_, r_.mean(), c_.mean(), rules.alpha))
            split_text.append(f"{name} {int(r_.sum())}/{len(r_)} vs "
                              f"{int(c_.sum())}/{len(c_)}, p {tables.pvalue(p_)}")
        else:
            split_cases.append(None)
    ours = results.table2[results.table2["source"] == "ours"]
    n = rules.n_triples
    return [
        lmclaims.row(
            "8a. Paraphrase identification fails more for rare words (Table 2)",
            lmclaims.Evidence.of(_fails_more(r["Fisher p"], r["rare hits"], r["common hits"], rules.alpha)
                                 for _, r in ours.iterrows()),
            "; ".join(f"{r['encoder']} {r['rare hits']}/{n} vs "
                      f"{r['common hits']}/{n}, Fisher p "
                      f"{tables.pvalue(r['Fisher p'])}" for _, r in ours.iterrows())
            + "; confounded with word-piece splitting (8b)"),
        lmclaims.row(
            "8b. ... and not because rare words are cut into pieces (split words "
            "only)", lmclaims.Evidence.of(split_cases),
            "rare vs common split words, Fisher: " + "; ".join(split_text))]


def encoders_alike(results: Results, rules: Rules) -> dict:
    """Claim 9: the two encoders do not differ on rare words (within ±``equal_points``)."""
    e1, e2 = results.encoders
    n_rare = int((results.trip["kind"] == "rare").sum())
    return lmclaims.row(
        "9. The two encoders do not differ on rare words",
        lmclaims.Evidence.of([lmclaims.within(results.enc_diff, rules.equal_points)]),
        f"{e1} − {e2} {fmt(results.enc_diff)} points on {n_rare} rare triples "
        f"(margin ±{rules.equal_points}), McNemar p {tables.pvalue(results.mcnemar)}")


def low_coverage(results: Results, rules: Rules) -> dict:
    """Claim 10: coverage is low: below GPT-2's 50 / 14 / 7 % in each bin (§3.1)."""
    models, by_bin, paper = list(results.segmentation), results.by_bin, rules.paper_coverage
    low_cases = [lmclaims.below(by_bin[n, b]["cov"], paper[b]) for n in models for b in WS.PAPER_BINS]
    best = {b: max(by_bin[n, b]["cov"].value for n in models) for b in WS.PAPER_BINS}
    return lmclaims.row(
        "10. Type coverage is low: below GPT-2's "
        + " / ".join(f"{v:g} %" for v in paper.values())
        + " in the three bins (its fall with rarity is claim 5)",
        lmclaims.Evidence.of(low_cases),
        "best of our models per bin: " + " / ".join(
            f"{best[b]:.1f} %" for b in WS.PAPER_BINS)
        + f"; below GPT-2's value beyond the interval in "
        f"{sum(c is True for c in low_cases)} of {len(low_cases)} model × bin "
        f"cases; our {WS.PAPER_BINS[0]} bin holds {results.n_types[WS.PAPER_BINS[0]]} "
        "types (a bin's coverage grows as the test holds fewer of its types)")


def more_types(results: Results, rules: Rules) -> dict:
    """Claim 11: §3.2's soft match adds 11–14 % more types at k = 100, read as a share of T1
    (the weaker reading; as points it would be 11–14 points)."""
    kk, share = rules.soft_k, rules.soft_share
    rel_cases, rel_text, as_points = [], [], []
    for n in results.segmentation:
        as_points.append(lmclaims.above(results.soft_gain[n, kk][1], rules.soft_points))
        tg, t1 = results.soft_gain[n, kk][1], results.t1[n]
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = stats.interval(tg.value / t1.value, tg.replicates / t1.replicates)
        rel_cases.append(lmclaims.above(rel, share) if np.isfinite(rel.value) else None)
        rel_text.append(f"{label(n)} " + f"{rel.value:+.0%}".replace("-", "−"))
    return lmclaims.row(
        f"11. Soft match (k = {kk}) adds at least 11 % more types (§3.2: 11 and "
        "14 %; read as a share of T1, the weaker reading)", lmclaims.Evidence.of(rel_cases),
        "T1 gain above chance as a share of T1: " + "; ".join(rel_text)
        + f"; read as points of T1, {sum(c is False for c in as_points)} of "
        f"{len(as_points)} cases against (our gains are net of chance, the "
        "paper's raw)")


def robustness(results: Results, rules: Rules) -> dict:
    """Claim 12: the word-level metrics are robust to tokenization (§1): Algorithm 2's top-10
    measures what the exact top-10 does, within the paper's margin."""
    rob_cases, rob_text = [], []
    for n, r in results.robust.items():
        for what in ("top-10", "T10"):
            a, e = r[what]
            rob_cases.append(lmclaims.within(stats.excess(a, e), rules.margin * (a.value + e.value) / 2))
        rob_text.append(f"{label(n)} top-10 "
                        f"{signed(r['top-10'][0].value - r['top-10'][1].value, 1)}"
                        f", T10 {signed(r['T10'][0].value - r['T10'][1].value, 1)}"
                        " points")
    return lmclaims.row(
        "12. Whole-word metrics are robust to tokenization: Algorithm 2's "
        "top-10 and T10 agree with the exact ones", lmclaims.Evidence.of(rob_cases),
        f"Alg. 2 minus exact on the first {rules.n_sentences_exact} sentences: "
        + "; ".join(rob_text))


def size(results: Results) -> dict:
    """Claim 13: larger models are more diverse (§5's hypothesis; the gpu profile)."""
    return lmclaims.row(
        "13. Larger models are more diverse (§5's hypothesis)",
        lmclaims.Evidence.of(results.size_cases),
        "; ".join(f"{r['model']}: larger minus smaller T1/E₀[T1] "
                  f"{fmt(r['difference'])}" for r in results.size_rows)
        or "not run at this profile (size_compare is empty)",
        basis="measured" if results.size_rows else "gpu profile only")


def claims(results: Results, rules: Rules) -> pd.DataFrame:
    """The chapter's claims table (:func:`lmnotes.report.claims.table`), one row per claim."""
    rows = [ranking(results),
            separated("2. Type coverage separates models of similar accuracy",
                      results.pairs, "top-1", "T1", rules.margin),
            separated("3. Models of similar coverage differ in accuracy",
                      results.pairs, "T1", "top-1", rules.margin),
            perplexity(results), frequency_fall(results), concentration(results),
            soft_match(results, rules), *paraphrase(results, rules),
            encoders_alike(results, rules), low_coverage(results, rules),
            more_types(results, rules), robustness(results, rules), size(results)]
    return lmclaims.table(rows)


def thresholds(rules: Rules) -> dict[str, str]:
    """The thresholds the chapter chose, as :func:`lmnotes.report.claims.show` lists them."""
    return {
        f"margin = {rules.margin:.3f}": "claims 2, 3 and 12: two values are similar "
        "when their difference's interval lies within this share of their mean, "
        "different when it lies wholly outside (from the paper's readings; "
        "parameter similar_share overrides it)",
        f"equal_points = {rules.equal_points:g}": "claim 9: the encoders do not differ "
        "when their difference lies within this many points"}
