"""The claims table of the word-level chapter (05): the thirteen claims of Dudy & Bedrick
(2020), each with the form its words give it and the cases the chapter measured
(:mod:`lmnotes.report.cases`), from which the book's one function computes the verdict.

:func:`claims` takes what the chapter measured (:class:`Measured`) and the thresholds it chose
(:class:`Rules`). It computes no statistic of the data beyond differences of estimates (paired
where they share their bootstrap resamples), intervals at another level from the same
replicates, Fisher's exact tests, Newcombe's intervals of 2×2 counts and the Mantel–Haenszel
difference of such counts over strata. Each kind of case is
built by one function (``*_case``) from estimates alone, so that :func:`source_cases` applies
the same rules to the paper's own printed numbers, each with its printed precision as its
interval. How each claim is read (its form first):

1. every pair without a character-level model: top-1 and top-10 rank the models alike. A pair
   that top-1 orders is for when top-10 orders it the same way, against when the other way
   (the product of the two differences, above or below 0); a pair that top-1 ties (not
   ordered, and similar within the paper's margin) is for when top-10 ties it too;
2. and 3. some pair: there is a pair similar in one measure and different in the other;
4. some pair: there is a pair whose lower word perplexity goes with the lower T1 (every model
   is scored on the same words, closed vocabularies included). For 2–4, one pair found is
   enough, so each pair's interval is taken at the level corrected for their number
   (Bonferroni, :func:`lmnotes.stats.bonferroni`);
5. every model and pair of adjacent bins: accuracy and coverage fall from each of the paper's
   bins to the next; with no hit in either bin, the case is not applicable (0 against 0);
6. every model: the share of the hits in the most frequent bin exceeds the bin's share of
   the words;
7. every model: soft match at the largest k raises accuracy and coverage above chance;
8a. every encoder: paraphrase identification fails more for rare words (Fisher's test, α);
8b. every encoder with a gap in 8a (our check, not the paper's): also among the words it
    splits, compared within words cut into as many pieces, by more than ``explained_share``
    (a half) of that gap, scaled by the split words' rare–common Zipf contrast over Table
    2's (:func:`zipf_contrast`: split common words are rarer than Table 2's, so frequency
    alone predicts a smaller gap there): "not because of the pieces" is read as "not
    mostly", so the case is against when what remains lies below that share, for when
    above; the margin rests on 8a's rare and common triples, so its own 95 % interval
    (Newcombe's, times the share and the scale) widens the case's in quadrature;
9. the two encoders do not differ on rare words (within ± ``equal_points``);
10. every model: T1 below E₀[T1], the coverage of hits blind to the type at the model's hit
    rate per bin (§3.1's "low", read without GPT-2's bins of absolute counts);
11. every model: soft match at k = 100 adds more than ``soft_share`` more types (§3.2's raw
    gain as a share of T1, as its 11 and 14 %);
12. every model searched exactly: Algorithm 2's top-10 and T10 agree with the exact ones
    within the margin (§1), each search that gave up counted both ways;
13. every member compared: the larger size is more diverse (§5; only where sizes were
    compared).

A zero-width interval (resamples that do not vary) bounds nothing: off a tie at a declared
floor, its case is open (:func:`case`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import pandas as pd
from scipy import stats as ss

from lmnotes import stats
from lmnotes.report import cases as lmcases, claims as lmclaims, tables
from lmnotes.report.sections import Measured, Section, reading
from lmnotes.studies.words import softgain as SG, table1 as PT, table2 as T2, wordstats as WS
from lmnotes.studies.words.labels import label, names, signed, span

CHAPTER = "05_word_level"
CAPTION = "Claims of Dudy & Bedrick (2020) and our verdicts"
Case = lmcases.Case


@dataclass
class Rules:
    """The chapter's thresholds: the margin of "similar" (a share of a pair's mean), the
    margin of two paraphrase hit rates (points), the largest soft-match k, the number of rare
    (and of common) triples, the sentences searched for the exact top-10, GPT-2's coverage per
    bin that §3.1 calls low (percent), the level of Fisher's test (the family level of the
    existential claims 2–4 is the engine's, :data:`lmnotes.report.cases.FAMILY_ALPHA`), the share of T1 that
    soft match must add (§3.2's 11 and 14 % both exceed it at their printed precision), and
    the share of an encoder's rare–common gap that must remain within words cut into as many
    pieces for the gap not to be the pieces' (claim 8b)."""

    margin: float
    equal_points: float
    soft_k: int
    n_triples: int
    n_sentences_exact: int
    paper_coverage: Mapping[str, float]
    alpha: float = 0.05
    soft_share: float = 0.10
    explained_share: float = 0.5


#: What the sections read, each name with what it is, for the self-trained models
#: (``segmentation``'s keys, in the chapter's order).
READS = {
    "segmentation": "each self-trained model's segmentation, in the chapter's order",
    "pairs": "one row per pair (a, b) with the paired differences Δ top-1, Δ top-10 (Alg. 2), Δ T1 and "
    "Δ word ppl (estimates with replicates)",
    "table1": "the chapter's Table 1 by model (estimates top-1, top-10 (Alg. 2), T1, word ppl), whose "
    "values set the pairs' margins",
    "seeds": "{seed: (Table 1, pairs)} with the family trained again at each further seed (rows from "
    "greedy predictions: top-1, T1, word ppl); empty: one seed",
    "by_bin": "{(model, bin): {'acc', 'cov': estimates, 'hits': count}}",
    "n_types": "the test's types per bin",
    "concentration": "{model: (share of the hits, share of the words) in the most frequent bin}",
    "soft_gain": "{(model, k): (accuracy gain above chance, T1 gain above chance, raw T1 gain)}",
    "table2": "the paraphrase counts (rows with source 'ours': encoder, rare hits, common hits, Fisher p)",
    "trip": "the triples, a hit column and a '<encoder> split' column per encoder",
    "pool": "the common pool, likewise",
    "split_pools": "{encoder: the rare and common triples whose x its tokenizer splits, with kind, a hit "
    "column and pieces}, the words of claim 8b (empty: Table 2's rare triples and the common pool's "
    "split words, without pieces)",
    "encoders": "the two encoders' names",
    "enc_diff": "their difference on rare triples",
    "mcnemar": "its McNemar p-value",
    "robust": "{model: lmnotes.studies.words.authors.robust}",
    "size_rows": "the size comparison's rows (model, difference; empty where it did not run)",
    "coverage_ratio": "{model: T1 / E₀[T1] (%) on the paper's bins, an estimate over test articles}",
}


#: What most of the chapter's intervals resample (:attr:`lmnotes.report.cases.Case.unit`).
ARTICLES = "test articles"
#: What claim 8b's intervals rest on: the split words, and Table 2's triples behind its margin.
SPLIT_WORDS = "split words and Table 2's triples"
#: An estimate with three significant digits, as the measured texts print it.
fmt = tables.text
#: What a case's why adds when its resamples do not vary.
NO_SPREAD = (
    "; its resamples do not vary (a zero-width interval), which bounds nothing: not counted as "
    "resolved, its interval is (−∞, ∞)"
)
#: The least margin, where a pair's mean is 0 (two models without a hit).
TINY = 1e-12


# --------------------------------------------------------------------------------------------
# estimates and cases


def case(
    name: str,
    test: str,
    value: float,
    low: float,
    high: float,
    threshold: float = 0.0,
    *,
    why: str,
    floor: float = math.nan,
) -> Case:
    """A case on an estimate and its interval. A zero-width interval bounds nothing (the
    resamples did not vary, as where a model has no hit): unless it is a tie at the declared
    ``floor`` (not applicable), it is not counted as resolved, and the case's interval is
    (−∞, ∞), open."""
    if low == high and not value == threshold == floor == low:
        low, high, why = -math.inf, math.inf, why + NO_SPREAD
    return Case(name, test, value, low, high, threshold, floor=floor, why=why)


def on(name: str, test: str, e, threshold: float = 0.0, *, why: str, floor: float = math.nan) -> Case:
    """A :func:`case` on an estimate ``e`` (with ``value``, ``low``, ``high``)."""
    return case(name, test, e.value, e.low, e.high, threshold, why=why, floor=floor)


def at_level(e: stats.Estimate, level: float) -> stats.Estimate:
    """``e``'s interval at ``level``, recomputed from its bootstrap replicates by
    :func:`lmnotes.stats.interval` with its cluster count (the chapter's intervals' own rule,
    their small-cluster reference included); an estimate without replicates (a printed number,
    whose interval is its precision) as it is."""
    return e if e.replicates is None else stats.interval(e.value, e.replicates, level, clusters=e.clusters)


def product(a, b) -> tuple[float, float, float]:
    """a·b with the interval of the corners of the two intervals: above 0 when both lie on one
    side of 0, below 0 when they lie on opposite sides, straddling 0 otherwise."""
    corners = [x * y for x in (a.low, a.high) for y in (b.low, b.high)]
    return a.value * b.value, min(corners), max(corners)


def ordered(e) -> bool:
    """Whether an interval excludes 0."""
    return e.low > 0 or e.high < 0


def tied(e, margin: float) -> bool:
    """Whether an interval lies within ± ``margin`` (the paper's "similar")."""
    return -margin < e.low and e.high < margin


def _margin(margin: float, table: pd.DataFrame, a: str, b: str, column: str) -> float:
    """``margin`` times the pair's mean of ``column`` (its values; estimates or numbers)."""
    value = [getattr(table.loc[m, column], "value", table.loc[m, column]) for m in (a, b)]
    return max(TINY, margin * (value[0] + value[1]) / 2)


def rank_case(name: str, d1, d10, m1: float, m10: float) -> Case:
    """Claim 1, one pair: its top-1 and top-10 differences ``d1``, ``d10`` and margins ``m1``,
    ``m10`` (the paper's share of the pair's means). A pair that top-1 ties (not ordered, and
    within ± ``m1``) is for when top-10 ties it too (within ± ``m10``); any other pair, by the
    product of the differences: for when the two order it one way, against when opposite ways,
    open when top-1 or top-10 does not order it."""
    if not ordered(d1) and tied(d1, m1):
        return on(
            name,
            "within",
            d10,
            m10,
            why="top-1 ties the pair (its difference within ± the margin, "
            "not ordered), so top-10 must tie it too: top-10 difference, points, against ± the margin",
        )
    return case(
        name,
        "above",
        *product(d1, d10),
        why="top-1 difference times top-10 difference (points²): "
        "above 0, both order the pair one way; below, opposite ways"
        + ("" if ordered(d1) else "; top-1 neither orders nor ties the pair"),
    )


def separation_case(name: str, d_same, d_other, m_same: float, m_other: float, same: str, other: str) -> Case:
    """Claims 2 and 3, one pair: similar in ``same`` and different in ``other``. The case's
    number is the smaller of 1 − |Δ same| / m_same (> 0: similar) and |Δ other| / m_other − 1
    (> 0: different), with the interval from the two differences' intervals: above 0, the pair
    shows the claim; below 0, it is different in ``same`` or similar in ``other``."""

    def share(e, m):
        low = 0.0 if e.low <= 0 <= e.high else min(abs(e.low), abs(e.high))
        return abs(e.value) / m, low / m, max(abs(e.low), abs(e.high)) / m

    s, s_low, s_high = share(d_same, m_same)
    o, o_low, o_high = share(d_other, m_other)
    return case(
        name,
        "above",
        min(1 - s, o - 1),
        min(1 - s_high, o_low - 1),
        min(1 - s_low, o_high - 1),
        why=f"the smaller of 1 − |Δ {same}| / margin (> 0: similar in {same}) and "
        f"|Δ {other}| / margin − 1 (> 0: different in {other}), each margin the paper's share of the "
        f"pair's mean; below 0, the pair is different in {same} or similar in {other}",
    )


def perplexity_case(name: str, d_ppl, d_t1) -> Case:
    """Claim 4, one pair: the product of its word-perplexity and T1 differences, above 0 when
    the model with the lower perplexity has the lower T1 (perplexity orders the pair against
    diversity), below 0 when perplexity orders it as T1 does."""
    return case(
        name,
        "above",
        *product(d_ppl, d_t1),
        why="word-perplexity difference times T1 difference: above "
        "0, the lower perplexity goes with the lower T1; below, with the higher",
    )


def fails_more_case(name: str, rare: int, n_rare: int, common: int, n_common: int, alpha: float) -> Case:
    """Claim 8a, one encoder: the common minus the rare hit rate (points) with Fisher's exact
    p of the 2×2 counts: for when rare words fail significantly more, against when
    significantly less."""
    p = ss.fisher_exact([[rare, n_rare - rare], [common, n_common - common]]).pvalue
    return Case(
        name,
        "p",
        100 * (common / n_common - rare / n_rare),
        p=p,
        threshold=alpha,
        why=f"common minus rare hit rate, points ({common}/{n_common} common, {rare}/{n_rare} rare), "
        "with Fisher's exact p",
    )


def split_case(name: str, words: pd.DataFrame, margin: stats.Estimate) -> Case:
    """Claim 8b, one encoder: among the words its tokenizer splits (``words``: ``kind``, a
    hit column ``name`` and, where known, ``pieces``), the common minus the rare hit rate
    (points), above ``margin``: for when the rare split words still fail more by more than
    the margin, against when by less (or not at all). Where the pieces are known, the
    difference is taken within words cut into as many pieces (2, 3, 4 or more;
    :func:`~lmnotes.studies.words.table2.stratified_difference`), since rare words are cut
    into more; otherwise it is the raw difference with Newcombe's interval.

    The margin is itself an estimate (``margin.value`` with its interval): the difference
    is compared with its value, each side of the difference's interval widened by the
    margin's half-width in quadrature, so that the case is decided on the difference of the
    two (:func:`with_margin`)."""
    rare, common = (words.loc[words["kind"] == k, name] for k in ("rare", "common"))
    counts = f"{int(common.sum())}/{len(common)} common, {int(rare.sum())}/{len(rare)} rare"
    both = None
    if "pieces" in words:
        t = (
            words.assign(stratum=T2.piece_strata(words["pieces"]))
            .groupby(["stratum", "kind"])[name]
            .agg(["sum", "size"])
            .unstack("kind", fill_value=0)
        )
        both = (t["size", "common"] > 0) & (t["size", "rare"] > 0)
    if both is not None and both.any():
        diff = T2.stratified_difference(
            t["sum", "common"], t["size", "common"], t["sum", "rare"], t["size", "rare"]
        )
        dropped = int(t.loc[~both, "size"].to_numpy().sum())
        how = "within words cut into as many pieces (2, 3, 4+; Mantel–Haenszel, Sato's interval)" + (
            f"; {dropped} words in strata without the other kind carry no weight" if dropped else ""
        )
    else:
        diff = T2.rate_difference(int(common.sum()), len(common), int(rare.sum()), len(rare))
        how = "Newcombe's interval"
    stuck = (
        "; the margin's own interval alone reaches past the estimate, so more split words "
        "cannot decide the case without more of Table 2's triples"
        if margin_reaches(diff.value, margin)
        else ""
    )
    return on(
        name,
        "above",
        with_margin(diff, margin),
        margin.value,
        why=f"common minus rare hit rate among split words, points ({counts}; {how}); below "
        "the margin (half of the encoder's gap in 8a at these words' frequency contrast, "
        f"{margin.low:.3g} to {margin.high:.3g} within its own interval, which widens the "
        "case's), less than half of the rarity gap remains with the pieces held fixed" + stuck,
    )


def margin_reaches(value: float, margin: stats.Estimate) -> bool:
    """Whether claim 8b's margin's own interval reaches past a difference ``value``: the
    side of the margin that widens the deciding end (:func:`with_margin`: below the margin,
    the high end, which takes the margin's lower side) is at least their distance, so that
    no number of split words decides the case without more of Table 2's triples."""
    side = margin.value - margin.low if value < margin.value else margin.high - margin.value
    return side >= abs(value - margin.value)


def with_margin(diff: stats.Estimate, margin: stats.Estimate) -> stats.Estimate:
    """``diff``'s interval widened for a margin that is an estimate too: the interval of
    diff − margin, each side's half-widths added in quadrature (its low end takes the
    margin's upper side, its high end the lower), shifted back by the margin's value. The
    two are taken as independent, which overstates the spread where they share data and rise
    and fall together (claim 8b's rare split words include Table 2's rare triples): the
    wider interval decides fewer cases, never more."""
    return stats.Estimate(
        diff.value,
        diff.value - math.hypot(diff.value - diff.low, margin.high - margin.value),
        diff.value + math.hypot(diff.high - diff.value, margin.value - margin.low),
    )


def encoders_case(name: str, diff, margin: float) -> Case:
    """Claim 9: the two encoders' difference on rare triples within ± ``margin`` points."""
    return on(name, "within", diff, margin, why="difference of the hit rates on the rare triples, points")


def more_types_case(name: str, gain, t1, share: float) -> Case:
    """Claim 11, one model: the raw T1 gain of soft match minus ``share`` of T1 (points),
    above 0 when soft match adds more than that share of types. Paired where both have
    replicates, else the span of the intervals; a model that hits no type and gains none sits
    at the floor, 0 against 0 (not applicable)."""
    value = gain.value - share * t1.value
    if gain.replicates is not None and t1.replicates is not None:
        e = stats.interval(
            value, gain.replicates - share * t1.replicates, clusters=stats.fewest(gain.clusters, t1.clusters)
        )
    else:
        e = stats.Estimate(value, gain.low - share * t1.high, gain.high - share * t1.low)
    floor = 0.0 if gain.value == t1.value == 0 else math.nan
    return on(
        name,
        "above",
        e,
        floor=floor,
        why=f"raw T1 gain minus {share:.0%} of T1, points: above 0, soft "
        f"match adds more than {share:.0%} more types",
    )


def robust_case(name: str, alg2, exact_miss, exact_hit, margin: float) -> Case:
    """Claim 12, one measure of one model: Algorithm 2 minus the exact search, within
    ± ``margin`` times their mean. The searches that gave up count both ways: the interval
    runs from the low end with every one a hit to the high end with every one a miss."""
    low, high = stats.difference(alg2, exact_hit), stats.difference(alg2, exact_miss)
    mean = (alg2.value + (exact_miss.value + exact_hit.value) / 2) / 2
    if low.low == high.high == 0 and alg2.value > 0:  # the same hits on every resample: agreement
        return Case(
            name,
            "within",
            0.0,
            0.0,
            0.0,
            max(TINY, margin * mean),
            why="Algorithm 2 minus exact, points: the two searches hit the same words on every "
            "resample (a zero-width interval of agreement, not of missing hits)",
        )
    return case(
        name,
        "within",
        (low.value + high.value) / 2,
        low.low,
        high.high,
        max(TINY, margin * mean),
        why="Algorithm 2 minus exact, points, against ± the margin of their mean"
        + (
            ""
            if low.value == high.value
            else "; the searches that gave up counted as hits (low end) and as misses (high end)"
        ),
    )


# --------------------------------------------------------------------------------------------
# the claims


def _pair_name(a: str, b: str) -> str:
    return f"{label(a)}/{label(b)}"


def _listed(cases: Sequence[Case], decision: str, most: int = 4) -> str:
    """The names of the cases with ``decision``, in parentheses, where there are 1 to ``most``
    (the cases file lists them all)."""
    found = [c.name for c in cases if c.decision == decision]
    return f" ({', '.join(found)})" if 0 < len(found) <= most else ""


def rank_cases(results: Measured, rules: Rules) -> list[Case]:
    """Claim 1's cases: per pair without a character-level model, :func:`rank_case`.
    Algorithm 2's top-10 of a character-level model is any short word its top-10 symbols
    spell: no ranking, so its pairs are not tested."""
    t, cases = results.table1, []
    for _, r in results.pairs.iterrows():
        a, b = r["a"], r["b"]
        if not {a, b} & _char_level(results):
            cases.append(
                rank_case(
                    _pair_name(a, b),
                    r["Δ top-1"],
                    r["Δ top-10 (Alg. 2)"],
                    _margin(rules.margin, t, a, b, "top-1"),
                    _margin(rules.margin, t, a, b, "top-10 (Alg. 2)"),
                )
            )
    return cases


def _char_level(results: Measured) -> set[str]:
    return {n for n, s in results.segmentation.items() if s in ("byte", "char")}


def ranking(results: Measured, rules: Rules):
    """Claim 1: top-1 and top-10 rank the models alike (:func:`rank_cases`)."""
    cases = rank_cases(results, rules)
    n_for, n_against, n_open = lmcases.counts(cases)
    n_ties = sum(c.test == "within" and c.decision == "for" for c in cases)
    return (
        cases,
        f"{n_for} of the {len(cases)} pairs without a byte- or character-level model ranked alike by both "
        f"({n_ties} of them tied by both within the margin), {n_against} reversed{_listed(cases, 'against')}, "
        f"{n_open} open; {len(results.pairs) - len(cases)} pairs with {names(sorted(_char_level(results)))} not "
        "testable (Alg. 2's top-10 of a byte- or character-level model)",
    )


def at_seeds(results: Measured, make) -> list[Case]:
    """One case per pair of Table 1's models, ``make(table, row)`` built on each row of
    ``pairs`` (with the ``table1`` whose values set its margins), combined over the seeds at
    which the family was trained (``seeds``: the hull of their intervals,
    :meth:`lmnotes.report.cases.Case.across`): a pair counts for a claim only where every
    training run shows it."""
    runs = [(results.table1, results.pairs)] + list(results.seeds.values())
    cases = []
    for _, r in results.pairs.iterrows():
        at = [make(t, p[(p["a"] == r["a"]) & (p["b"] == r["b"])].iloc[0]) for t, p in runs]
        cases.append(Case.over_runs(at, of=" of the family"))
    return cases


def _seeds_text(results: Measured) -> str:
    """What the measured text adds where the family ran at more than one seed."""
    n = 1 + len(results.seeds)
    return (
        f"; each pair over {n} training runs of the family (decided only where every run is)" if n > 1 else ""
    )


def separated(results: Measured, rules: Rules, same: str, other: str, level: float):
    """Claims 2 and 3: some pair is similar in ``same`` and different in ``other``, each
    pair's intervals at ``level``, which the engine corrects for the number of pairs, and at
    every seed of the family (:func:`at_seeds`)."""

    def make(t, r):
        return separation_case(
            _pair_name(r["a"], r["b"]),
            at_level(r[f"Δ {same}"], level),
            at_level(r[f"Δ {other}"], level),
            _margin(rules.margin, t, r["a"], r["b"], same),
            _margin(rules.margin, t, r["a"], r["b"], other),
            same,
            other,
        )

    cases = at_seeds(results, make)
    n_for, n_against, n_open = lmcases.counts(cases)
    return (
        cases,
        (
            f"of {len(cases)} pairs, {n_for} similar in {same} and different in {other}{_listed(cases, 'for')}, "
            f"{n_against} not (different in {same} or similar in {other}), {n_open} open; margin {rules.margin:.1%} "
            f"of the pair's mean, intervals at {level:.2%} (Bonferroni over {len(cases)} pairs)"
            + _seeds_text(results)
        ),
    )


def perplexity(results: Measured, rules: Rules, level: float):
    """Claim 4: perplexity does not reveal diversity: some pair has the lower word perplexity
    with the lower T1, each pair's intervals at ``level`` (corrected by the engine), at every
    seed of the family (:func:`at_seeds`). Every model is scored on the same words (those
    every self-trained model decodes), so the closed vocabularies' pairs count too."""

    def make(t, r):
        return perplexity_case(
            _pair_name(r["a"], r["b"]), at_level(r["Δ word ppl"], level), at_level(r["Δ T1"], level)
        )

    cases = at_seeds(results, make)
    n_for, n_against, n_open = lmcases.counts(cases)
    return (
        cases,
        f"of {len(cases)} pairs (all scored on the same words), {n_for} with lower perplexity and "
        f"lower T1{_listed(cases, 'for')}, {n_against} with lower perplexity and higher T1, "
        f"{n_open} open; intervals at {level:.2%} (Bonferroni over {len(cases)} pairs)"
        + _seeds_text(results)
        + _open_vocabularies(results, cases),
    )


def _open_vocabularies(results: Measured, cases: list[Case]) -> str:
    """What claim 4's row adds where some pairs have a closed vocabulary (a word-level
    model, which predicts ``<unk>`` for a word it lacks): chapter 03 shows its perplexity is
    not comparable, whichever way such a pair goes, so the row counts the other pairs apart."""
    closed = {n for n, s in results.segmentation.items() if s == "word"}
    keep = [c for c, (_, r) in zip(cases, results.pairs.iterrows()) if not {r["a"], r["b"]} & closed]
    if not closed or len(keep) == len(cases):
        return ""
    n_for, n_against, n_open = lmcases.counts(keep)
    return (
        f"; closed vocabularies' perplexities ({names(sorted(closed))}) are not comparable (chapter 03): "
        f"without their pairs, {n_for} for, {n_against} against, {n_open} open of {len(keep)}"
    )


def fall_cases(results: Measured) -> list[Case]:
    """Claim 5's cases: per model, pair of adjacent paper bins and measure, the drop from the
    more frequent bin to the next, above 0; with no hit in either bin, both measures sit at
    their floor, 0 against 0, and the case is not applicable."""
    by_bin, cases = results.by_bin, []
    for name in results.segmentation:
        for hi, lo in zip(WS.PAPER_BINS, WS.PAPER_BINS[1:]):
            if (name, hi) not in by_bin or (name, lo) not in by_bin:
                continue
            none = by_bin[name, hi]["hits"] == 0 == by_bin[name, lo]["hits"]
            for what, word in (("acc", "accuracy"), ("cov", "coverage")):
                d = stats.excess(by_bin[name, hi][what], by_bin[name, lo][what])
                cases.append(
                    on(
                        f"{label(name)} {word} {hi}→{lo}",
                        "above",
                        d,
                        floor=0.0 if none else math.nan,
                        why="no hit in either bin: 0 against 0, a tie at the floor that no resample moves"
                        if none
                        else f"{word} in the more frequent bin minus the next (points)",
                    )
                )
    return cases


def frequency_fall(results: Measured, rules: Rules):
    """Claim 5: accuracy and coverage fall with training frequency (:func:`fall_cases`)."""
    cases = fall_cases(results)
    n_for, n_against, n_open = lmcases.counts(cases)
    na = [c for c in cases if c.decision == "not applicable"]
    empty = list(dict.fromkeys(c.name.replace(" accuracy", "").replace(" coverage", "") for c in na))
    return (
        cases,
        f"{n_for} of {n_for + n_against + n_open} adjacent-bin drops beyond their intervals, {n_against} rises"
        f"{_listed(cases, 'against')}, {n_open} open{_listed(cases, 'open')}"
        + (
            f"; {len(na)} not applicable, no hit in either bin"
            + (f" ({'; '.join(empty)})" if len(empty) <= 3 else "")
            if na
            else ""
        ),
    )


def concentration(results: Measured, rules: Rules):
    """Claim 6: hits concentrate in the most frequent bin: their share there above the bin's
    share of the words, beyond both intervals."""
    conc = results.concentration
    cases = [
        case(
            label(n),
            "above",
            h.value - p.value,
            h.low - p.high,
            h.high - p.low,
            why="share of the hits in the bin minus its share of the words, points (the span of "
            "the two intervals: above 0, the hits' interval lies wholly above)",
        )
        for n, (h, p) in conc.items()
    ]
    first = next(iter(conc.values()))[1]
    return (
        cases,
        f"share of the hits in {WS.PAPER_BINS[0]} against its {first.value:.0f} % of the words: "
        + "; ".join(f"{label(n)} {h.value:.0f} %" for n, (h, p) in conc.items()),
    )


def soft_match(results: Measured, rules: Rules):
    """Claim 7: soft match raises accuracy and coverage (largest k, above chance); a gain of
    0 on every resample (no miss a soft hit, by the model or by chance) is not applicable."""
    models, kk = list(results.segmentation), rules.soft_k
    cases = []
    for n in models:
        for e, what in zip(results.soft_gain[n, kk][:2], ("accuracy", "coverage")):
            none = e.value == e.low == e.high == 0
            cases.append(
                on(
                    f"{label(n)} {what}",
                    "above",
                    e,
                    floor=0.0 if none else math.nan,
                    why="no miss a soft hit, by the model or by chance: 0 against 0"
                    if none
                    else f"{'top-1' if what == 'accuracy' else 'T1'} gain above chance, points",
                )
            )
    g = [results.soft_gain[n, kk] for n in models]
    return (
        cases,
        "gain above chance, accuracy / coverage (points): "
        + "; ".join(
            f"{label(n)} {signed(a.value, 2)} / {signed(b.value, 2)}" for n, (a, b, *_) in zip(models, g)
        ),
    )


def split_words(results: Measured) -> dict[str, pd.DataFrame]:
    """Per encoder with rare and common split words: its ``split_pools`` entry (with the
    words' pieces), else the rare triples and the common pool whose word it splits (without)."""
    trip, pool, out = results.trip, results.pool, {}
    for name in results.encoders:
        if name in results.split_pools:
            words = results.split_pools[name]
        else:
            words = pd.concat(
                [
                    trip.loc[(trip["kind"] == "rare") & trip[name + " split"], ["kind", name]],
                    pool.loc[pool[name + " split"], [name]].assign(kind="common"),
                ]
            )
        if {"rare", "common"} <= set(words["kind"]):
            out[name] = words
    return out


def split_text(name: str, words: pd.DataFrame) -> str:
    """An encoder's rare and common split words' hits, as claim 8b's row prints them."""
    rare, common = (words.loc[words["kind"] == k, name] for k in ("rare", "common"))
    return f"rare {int(rare.sum())}/{len(rare)} vs common {int(common.sum())}/{len(common)}"


def _paraphrase(results: Measured, rules: Rules):
    """Claims 8a and 8b: paraphrase fails more for rare words (Table 2), and among the words
    the encoder splits (all rare words are split: whole words cannot separate the causes):
    each claim's cases and measured sentence."""
    ours = results.table2[results.table2["source"] == "ours"]
    n = rules.n_triples
    split = split_words(results)
    c8a = [
        fails_more_case(r["encoder"], int(r["rare hits"]), n, int(r["common hits"]), n, rules.alpha)
        for _, r in ours.iterrows()
    ]
    # 8b's margin: the share of the encoder's own gap (8a) that the pieces must leave, scaled
    # to the frequency contrast of its split words (a gap per unit of Zipf frequency)
    gap = {
        r["encoder"]: T2.rate_difference(int(r["common hits"]), n, int(r["rare hits"]), n)
        for _, r in ours.iterrows()
    }
    scale = {name: zipf_contrast(words) / zipf_contrast(results.trip) for name, words in split.items()}
    scale = {name: s if math.isfinite(s) else 1.0 for name, s in scale.items()}
    decided = {name: words for name, words in split.items() if gap[name].value > 0}
    margin = {name: stats.scaled(gap[name], rules.explained_share * scale[name]) for name in decided}
    # the room of each case: the training split's rare candidates over the rare split words used
    offered = results.trip.attrs.get("candidates", {}).get("rare")
    c8b = []
    for name, words in decided.items():
        case, used = split_case(name, words, margin[name]), int((words["kind"] == "rare").sum())
        c8b.append(replace(case, room=offered / used) if offered and used else case)
    left = [e for e in results.encoders if e not in split]
    no_gap = [e for e in split if e not in decided]
    return (
        (
            c8a,
            "; ".join(
                f"{r['encoder']} {r['rare hits']}/{n} vs {r['common hits']}/{n}, Fisher p "
                f"{tables.pvalue(r['Fisher p'])}"
                for _, r in ours.iterrows()
            )
            + "; confounded with word-piece splitting (8b)",
        ),
        (
            c8b,
            f"common minus rare split words (points) against {rules.explained_share:g} × 8a's gap × "
            "the split words' Zipf contrast over Table 2's (×; its interval widens the case's): "
            + "; ".join(
                f"{c.name} {split_text(c.name, w)}, {fmt(stats.Estimate(c.estimate, c.low, c.high))}"
                + (" in equal pieces" if "pieces" in w else "")
                + f" vs {c.threshold:.3g} [{margin[c.name].low:.3g}, {margin[c.name].high:.3g}]"
                f" (×{scale[c.name]:.2f})"
                + (
                    ", its margin's interval reaching past it"
                    if margin_reaches(c.estimate, margin[c.name])
                    else ""
                )
                for c, w in zip(c8b, decided.values())
            )
            + (f"; {names(no_gap)}: no gap in 8a, no case" if no_gap else "")
            + (f"; {names(left)} split no rare word or no common one: no case" if left else ""),
        ),
    )


def zipf_contrast(words: pd.DataFrame) -> float:
    """The mean English Zipf frequency of the common words minus that of the rare ones
    (NaN without a ``zipf`` column): how far apart in frequency a comparison's two kinds
    are, which scales the rarity gap it can show."""
    if "zipf" not in words:
        return float("nan")
    return float(
        words.loc[words["kind"] == "common", "zipf"].mean()
        - words.loc[words["kind"] == "rare", "zipf"].mean()
    )


def triples_needed(diff: stats.Estimate, n: int, margin: float) -> float | None:
    """The triples that would put ``diff``'s interval (from ``n`` triples) inside ±``margin``
    if the estimate stayed where it is: the interval narrows as 1/√n, so n times the squared
    ratio of its half-width to the room left between the estimate and the margin. None where
    the estimate is at or beyond the margin (no sample shows it within)."""
    room = margin - abs(diff.value)
    return n * ((diff.high - diff.low) / 2 / room) ** 2 if room > 0 else None


def encoders_alike(results: Measured, rules: Rules):
    """Claim 9: the two encoders do not differ on rare words (within ±``equal_points``). The
    measured text says how many rare triples would decide it at the observed difference, and
    how many the corpus offers."""
    e1, e2 = results.encoders
    n_rare = int((results.trip["kind"] == "rare").sum())
    case = encoders_case(f"{e1} − {e2}", results.enc_diff, rules.equal_points)
    need = triples_needed(results.enc_diff, n_rare, rules.equal_points)
    offered = results.trip.attrs.get("candidates", {}).get("rare")
    reach = (
        ""
        if case.decision != "open"
        else f"; at this difference no number of triples shows it within ±{rules.equal_points:g} points"
        if need is None
        else f"; showing the difference within ±{rules.equal_points:g} points would take about "
        f"{float(f'{need:.2g}'):,.0f} "
        "rare triples" + (f", and the training split offers {offered:,}" if offered else "")
    )
    return (
        [case],
        f"{e1} − {e2} {fmt(results.enc_diff)} points on {n_rare} rare triples "
        f"(margin ±{rules.equal_points:g}), McNemar p {tables.pvalue(results.mcnemar)}" + reach,
    )


def best_per_bin(results: Measured) -> dict[str, str]:
    """The model with the highest T1 in each of the paper's bins."""
    models, by_bin = list(results.segmentation), results.by_bin
    return {
        b: max((n for n in models if (n, b) in by_bin), key=lambda n: by_bin[n, b]["cov"].value)
        for b in WS.PAPER_BINS
        if any((n, b) in by_bin for n in models)
    }


def low_coverage(results: Measured, rules: Rules):
    """Claim 10: type coverage is low (§3.1: "even GPT-2 ... was covering only" 50 / 14 / 7 %
    of a bin's types). The paper's bins are absolute training counts on a corpus far larger
    than ours, so its percentages set no threshold here; "low" is read against the chapter's
    corpus-independent yardstick, the coverage a model with the same hit rate per bin would
    reach if its hits were blind to the type: every model's T1 / E₀[T1] below 100 %. The
    paper prints no hit rates per bin, so its own numbers cannot be put through this reading."""
    ratio, best = results.coverage_ratio, best_per_bin(results)
    cases = [
        on(
            label(n),
            "below",
            ratio[n],
            100.0,
            why="T1 / E₀[T1] (%) on the paper's bins: the types covered as a share of those a "
            "type-blind model with the same hit rate per bin would cover",
        )
        for n in results.segmentation
    ]
    return (
        cases,
        "T1 / E₀[T1]: "
        + "; ".join(f"{label(n)} {fmt(ratio[n])} %" for n in results.segmentation)
        + "; not counted: GPT-2's "
        + " / ".join(f"{v:g}" for v in rules.paper_coverage.values())
        + " % are on bins of absolute counts in a far larger corpus (our best "
        + " / ".join(f"{results.by_bin[n, b]['cov'].value:.0f}" for b, n in best.items())
        + " %), and it prints no hit rates to test",
    )


def more_types(results: Measured, rules: Rules):
    """Claim 11: §3.2's soft match adds 11–14 % more types at k = 100, its raw gain as a share
    of T1: more than ``soft_share`` on every model, as the paper's own numbers do."""
    kk, share, t1 = rules.soft_k, rules.soft_share, results.table1["T1"]
    models = list(results.segmentation)
    cases = [more_types_case(label(n), results.soft_gain[n, kk][2], t1[n], share) for n in models]
    raw = [results.soft_gain[n, kk][2].value for n in models]

    def pct(gain, n):
        return f"{label(n)} " + (
            f"{gain.value / t1[n].value:+.0%}".replace("-", "−") if t1[n].value else "no T1"
        )

    return (
        cases,
        "raw T1 gain as a share of T1, the source's measure (its 11 and 14 % are raw): "
        + "; ".join(pct(results.soft_gain[n, kk][2], n) for n in models)
        + "; above chance (claim 7's measure, not counted): "
        + "; ".join(pct(results.soft_gain[n, kk][1], n) for n in models)
        + f"; read as points of T1 (the source's '14 %' may be either), the gains are {span(raw)} points",
    )


def robust_cases(results: Measured, rules: Rules) -> list[Case]:
    """Claim 12's cases: per model searched exactly, top-10 and T10 (:func:`robust_case`)."""
    return [
        robust_case(f"{label(n)} {what}", *r[what], rules.margin)
        for n, r in results.robust.items()
        for what in ("top-10", "T10")
    ]


def robustness(results: Measured, rules: Rules):
    """Claim 12: the word-level metrics are robust to tokenization (§1): Algorithm 2's top-10
    measures what the exact top-10 does, within the paper's margin."""
    cases = robust_cases(results, rules)
    gave_up = sum(r["gave up"] for r in results.robust.values())
    text = "; ".join(
        f"{label(n)} top-10 {signed(c10.estimate, 1)}, T10 {signed(cT.estimate, 1)} points"
        for n, c10, cT in zip(results.robust, cases[::2], cases[1::2])
    )
    return (
        cases,
        f"Alg. 2 minus exact on the first {rules.n_sentences_exact} sentences: {text}"
        + (f"; {gave_up} searches gave up, counted both ways" if gave_up else ""),
    )


def size(results: Measured, rules: Rules):
    """Claim 13: larger models are more diverse (§5's hypothesis; the gpu profile)."""
    cases = [
        on(r["model"], "above", r["difference"], why="larger minus smaller T1/E₀[T1]")
        for r in results.size_rows
    ]
    return (
        cases,
        "; ".join(
            f"{r['model']}: larger minus smaller T1/E₀[T1] {fmt(r['difference'])}" for r in results.size_rows
        )
        or "not run at this profile (size_compare is empty)",
        {"basis": "measured" if results.size_rows else "gpu profile only"},
    )


def coverage_separates(r: Measured, rules: Rules, level: float):
    """Claim 2: some pair similar in top-1 differs in T1 (:func:`separated`)."""
    return separated(r, rules, "top-1", "T1", level)


def accuracy_separates(r: Measured, rules: Rules, level: float):
    """Claim 3: some pair similar in T1 differs in top-1 (:func:`separated`)."""
    return separated(r, rules, "T1", "top-1", level)


def rare_fail_more(r: Measured, rules: Rules):
    """Claim 8a: paraphrase identification fails more for rare words (:func:`_paraphrase`)."""
    return _paraphrase(r, rules)[0]


def not_the_pieces(r: Measured, rules: Rules):
    """Claim 8b: ... and not because rare words are cut into pieces (:func:`_paraphrase`)."""
    return _paraphrase(r, rules)[1]


def table1_values(r: Measured, rules: Rules) -> dict:
    """The values the Table 1 section quotes: the pairs and the Bonferroni level of claims 2–4
    (percent), the family level (percent), claim 1's pairs that top-1 ties, and the claims the
    paper's own numbers reproduce."""
    n_pairs = len(r.pairs)
    check = source_check(rules)
    passed = check.loc[check["verdict"] == "reproduced", "claim"].tolist()
    ties = [c for c in rank_cases(r, rules) if c.test == "within"]
    return {
        "n_pairs": n_pairs,
        "bonferroni_pct": f"{100 * lmcases.family_level(n_pairs):.2f}",
        "family_pct": f"{100 * lmcases.FAMILY_ALPHA:g}",
        "n_tied": len(ties),
        "source_passes": ", ".join(passed[:-1]) + (" and " if len(passed) > 1 else "") + passed[-1]
        if passed
        else "none",
    }


def bins_values(r: Measured, rules: Rules) -> dict:
    """The value the frequency bins' section quotes: claim 5's cases without a hit in either bin."""
    return {"n_floor": sum(c.decision == "not applicable" for c in fall_cases(r))}


def soft_values(r: Measured, rules: Rules) -> dict:
    """The value the soft-match section quotes: the share of T1 of claim 11 (percent)."""
    return {"soft_share_pct": f"{100 * rules.soft_share:g}"}


def paraphrase_values(r: Measured, rules: Rules) -> dict:
    """The values the paraphrase section quotes: the margin of claim 9 (points) and the share of
    8a's gap that claim 8b asks to remain (percent)."""
    return {"equal_points": f"{rules.equal_points:g}", "explained_pct": f"{100 * rules.explained_share:g}"}


def robust_values(r: Measured, rules: Rules) -> dict:
    """The value the algorithms' section quotes: the searches that gave up (claim 12)."""
    return {"n_gave_up": sum(x["gave up"] for x in r.robust.values())}


#: The chapter's sections that decide claims.
TABLE1 = "The paper's Table 1, on our models"
BINS = "Frequency bins (the paper's Figs. 1 and 2)"
SOFT = "Soft match (the paper's Fig. 3)"
PARAPHRASE = "The paraphrase case study (the paper's Table 2)"
ALGORITHMS = "How much the paper's algorithms and code change the numbers"
SIZE = "Does size cause diversity?"
CHANCES = "Is diversity more than the number of chances?"


#: The chapter's sections that decide claims, what each reads of what it measured and the
#: values its prose quotes.
SECTIONS = [
    Section(TABLE1, reading(READS, "segmentation", "pairs", "table1", "seeds"), table1_values),
    Section(CHANCES, reading(READS, "segmentation", "coverage_ratio", "by_bin")),
    Section(BINS, reading(READS, "segmentation", "by_bin", "n_types", "concentration"), bins_values),
    Section(SOFT, reading(READS, "segmentation", "soft_gain", "table1"), soft_values),
    Section(
        PARAPHRASE,
        reading(READS, "table2", "trip", "pool", "split_pools", "encoders", "enc_diff", "mcnemar"),
        paraphrase_values,
    ),
    Section(ALGORITHMS, reading(READS, "robust"), robust_values),
    Section(SIZE, reading(READS, "size_rows")),
]


#: The paper's claims, in the chapter's numbering: words (a template of the chapter's
#: thresholds), form, basis and the function that decides each (:class:`lmnotes.report.claims.Claim`).
CLAIMS = [
    lmclaims.Claim(
        "1", "Whole-word top-1 and top-10 accuracy rank the models alike", ranking, TABLE1, unit=ARTICLES
    ),
    lmclaims.Claim(
        "2",
        "Type coverage separates models of similar accuracy (some pair)",
        coverage_separates,
        TABLE1,
        form="some",
        unit=ARTICLES,
    ),
    lmclaims.Claim(
        "3",
        "Models of similar coverage differ in accuracy (some pair)",
        accuracy_separates,
        TABLE1,
        form="some",
        unit=ARTICLES,
    ),
    lmclaims.Claim(
        "4",
        "Word perplexity does not reveal diversity (some pair)",
        perplexity,
        TABLE1,
        form="some",
        unit=ARTICLES,
    ),
    lmclaims.Claim(
        "5", "Accuracy and coverage fall with training frequency", frequency_fall, BINS, unit=ARTICLES
    ),
    lmclaims.Claim("6", "Hits concentrate in the most frequent bin", concentration, BINS, unit=ARTICLES),
    lmclaims.Claim(
        "7", "Soft match (k = {rules.soft_k}) raises accuracy and coverage", soft_match, SOFT, unit=ARTICLES
    ),
    lmclaims.Claim(
        "8a",
        "Paraphrase identification fails more for rare words (Table 2)",
        rare_fail_more,
        PARAPHRASE,
        unit="rare and common triples",  # Fisher's exact test over them
    ),
    lmclaims.Claim(
        "8b",
        "... and not because rare words are cut into pieces (our check; split words only)",
        not_the_pieces,
        PARAPHRASE,
        unit=SPLIT_WORDS,
    ),
    lmclaims.Claim(
        "9", "The two encoders do not differ on rare words", encoders_alike, PARAPHRASE, unit="rare triples"
    ),
    lmclaims.Claim(
        "10",
        lambda q: (
            "Type coverage is low (GPT-2: "
            + " / ".join(f"{v:g}" for v in q.paper_coverage.values())
            + " %): below what hits blind to the type would cover"
        ),
        low_coverage,
        CHANCES,
        unit=ARTICLES,
    ),
    lmclaims.Claim(
        "11",
        "Soft match (k = {rules.soft_k}) adds more than {rules.soft_share:.0%} more types (§3.2: 11 and 14 %, "
        "raw gains as a share of T1)",
        more_types,
        SOFT,
        unit=ARTICLES,
    ),
    lmclaims.Claim(
        "12",
        "Whole-word metrics are robust to tokenization: Algorithm 2's top-10 and T10 agree with the exact ones",
        robustness,
        ALGORITHMS,
        unit=ARTICLES,
    ),
    lmclaims.Claim("13", "Larger models are more diverse (§5's hypothesis)", size, SIZE, unit=ARTICLES),
]


def claims(measured: Measured, rules: Rules) -> pd.DataFrame:
    """The chapter's claims table: each claim of :data:`CLAIMS`, with its form and cases
    (saved beside it)."""
    return lmclaims.decide_all(CLAIMS, SECTIONS, measured, rules)


# --------------------------------------------------------------------------------------------
# the source's own numbers


def source_cases(rules: Rules) -> dict[str, tuple[str, list[Case]]]:
    """The paper's own printed numbers under the chapter's rules: for each claim whose numbers
    it prints (Table 1 for claims 1–4, Table 2 for 8a and 9, §3.2's
    shares for 11), {number: (form, cases)}, built by the case builders :func:`claims` uses,
    each number's interval its printed precision (:func:`lmnotes.stats.printed`).
    Claims 5–7 rest on figures, 8b, 12 and 13 on nothing the paper prints, and 10 on
    §3.1's coverage, which without the paper's hit rates per bin is no case of its reading."""
    paper = PT.paper_table1()
    p = {
        (m, c): stats.printed(paper.loc[m, c], PT.PAPER_DECIMALS[c])
        for m in paper.index
        for c in paper.columns
    }
    pairs = list(itertools.combinations(paper.index, 2))

    def d(a, b, c):
        return stats.difference(p[a, c], p[b, c])

    def m(a, b, c):
        return _margin(rules.margin, paper, a, b, c)

    def rate(hits):  # a printed count of 50 triples, ± half a triple, as a hit rate in points
        h = stats.printed(hits, 0)
        k = 100 / T2.PAPER_TRIPLES
        return stats.Estimate(k * h.value, k * h.low, k * h.high)

    t2 = T2.PAPER
    out = {
        "1": (
            "every",
            [
                rank_case(
                    f"{a}/{b}", d(a, b, "top-1"), d(a, b, "top-10"), m(a, b, "top-1"), m(a, b, "top-10")
                )
                for a, b in pairs
            ],
        ),
        "2": (
            "some",
            [
                separation_case(
                    f"{a}/{b}",
                    d(a, b, "top-1"),
                    d(a, b, "T1"),
                    m(a, b, "top-1"),
                    m(a, b, "T1"),
                    "top-1",
                    "T1",
                )
                for a, b in pairs
            ],
        ),
        "3": (
            "some",
            [
                separation_case(
                    f"{a}/{b}",
                    d(a, b, "T1"),
                    d(a, b, "top-1"),
                    m(a, b, "T1"),
                    m(a, b, "top-1"),
                    "T1",
                    "top-1",
                )
                for a, b in pairs
            ],
        ),
        "4": ("some", [perplexity_case(f"{a}/{b}", d(a, b, "ppx"), d(a, b, "T1")) for a, b in pairs]),
        "8a": (
            "every",
            [
                fails_more_case(e, r, T2.PAPER_TRIPLES, c, T2.PAPER_TRIPLES, rules.alpha)
                for e, (r, c) in t2.items()
            ],
        ),
        "9": (
            "every",
            [
                encoders_case(
                    "BERT − RoBERTa",
                    stats.difference(rate(t2["BERT"][0]), rate(t2["RoBERTa"][0])),
                    rules.equal_points,
                )
            ],
        ),
    }
    gains = []
    for model, share in SG.PAPER_SHARES.items():
        s, t1 = stats.printed(share, 0), p[model, "T1"]
        gain = stats.Estimate(s.value * t1.value / 100, s.low * t1.low / 100, s.high * t1.high / 100)
        gains.append(more_types_case(model, gain, t1, rules.soft_share))
    out["11"] = ("every", gains)
    return out


def source_check(rules: Rules) -> pd.DataFrame:
    """:func:`source_cases` as a table: claim, form, the cases for · against · open, and the
    verdict the paper's own numbers get under the chapter's rules."""
    rows = []
    for number, (form, cases) in source_cases(rules).items():
        n = lmcases.counts(cases)
        rows.append(
            {
                "claim": number,
                "form": form,
                "cases for · against · open": " · ".join(map(str, n)),
                "verdict": lmcases.verdict(form, *n),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# the chapter's words


def thresholds(rules: Rules) -> dict[str, str]:
    """The thresholds the chapter chose, as :func:`lmnotes.report.claims.show` lists them."""
    return {
        f"margin = {rules.margin:.3f}": "claims 1, 2, 3 and 12: two values are similar "
        "when their difference's interval lies within this share of their mean, "
        "different when it lies wholly outside (from the paper's readings; "
        "parameter similar_share overrides it)",
        f"equal_points = {rules.equal_points:g}": "claim 9: the encoders do not differ "
        "when their difference lies within this many points",
        f"explained_share = {rules.explained_share:g}": "claim 8b: the rare–common gap is "
        "not mostly the pieces' when more than this share of the encoder's own gap on Table "
        "2's triples (claim 8a), scaled by the split words' Zipf contrast over Table 2's, "
        "remains among the words it splits, within words cut into as many pieces",
        f"alpha = {rules.alpha:g}": "claim 8a: the level of Fisher's test",
        f"soft_share = {rules.soft_share:g}": "claim 11: soft match adds more types when its "
        "raw T1 gain exceeds this share of T1 (the paper's 11 and 14 % both do at their printed "
        "precision)",
    }
