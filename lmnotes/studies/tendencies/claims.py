"""The claims of Meister & Cotterell (2021) and the rules that decide them: chapter 02.

:data:`SECTIONS` lists the chapter's sections that decide claims and what each reads of what
the chapter measured (:data:`READS`); :data:`CLAIMS` lists the source's claims (number, words,
the function that decides each, its section, form and basis,
:class:`lmnotes.report.claims.Claim`); :func:`claims` turns what the chapter measured (a
:class:`lmnotes.report.sections.Measured`: every sample set's distances to the test split,
with bootstrap intervals that share the test split's resamples, and the groups of
:func:`groups`) and the chapter's thresholds (:class:`Rules`) into the
claims table, one row per claim of the list, each with the form its words give it and its
cases (:mod:`lmnotes.report.cases`),
decided by 95% intervals or tests at 5%, from which the verdict is computed. Comparisons of
two sets use paired intervals (:func:`lmnotes.stats.excess`); a case that needs several
comparisons at once is decided on the weakest of them at the Bonferroni level
(:func:`weakest`), and the settings of a universal claim that one setting refutes (3, 4b)
each at the Bonferroni level over them (:func:`long_family`). The case builders of claims
5, 6, 9 and 11 also decide them on the source's printed tables (:mod:`.paper`).
:func:`factor_ranges` is the table behind claim 7, and :func:`unk_artefact` measures how
much of claim 4b the closed vocabulary's ``<unk>`` explains.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Mapping, Sequence

import pandas as pd

from lmnotes.report import cases as lmcases, claims as lmclaims, tables
from lmnotes.report.sections import Measured, Section, reading
from lmnotes.stats import clusters, inference as stats
from lmnotes.studies.tendencies import measures as T, paper

#: The distances claims 7 and 11 range over (11 adds the type–token KS).
DISTANCES = ("rank KS to reference", "top-types TVD", "length KS", "stopwords KS", "symbols KS")


@dataclass(frozen=True)
class Rules:
    """The chapter's thresholds: the margins of "small" (4a) and "matches" (8a), the length
    from which a document is long (3), and the samples' longest length (3's text)."""

    small_unigram_tvd: float
    close_length_ks: float
    long_length: int
    max_tokens: int


def groups(strategies: Sequence[str], own: Sequence[str]) -> dict[str, list[str]]:
    """The groups the claims name, from the chapter's strategies and its self-trained models'
    labels: ``neural`` (all but the trigram), ``transformers``, ``sampled`` (ancestral and
    nucleus, where run) and ``source_strategies`` (the source's three, where run)."""
    neural = [m for m in own if m != "Trigram"]
    return {
        "neural": neural,
        "transformers": [m for m in neural if m.startswith("Transformer")],
        "sampled": [s for s in ["ancestral", "nucleus"] if s in strategies],
        "source_strategies": [s for s in ["ancestral", "nucleus", "beam"] if s in strategies],
    }


def beyond_shift(m: Measured, key, column):
    """The set ``key``'s distance ``column`` minus the human shift's, with its paired interval."""
    return stats.excess(m.results[key][column], m.results["human shift", "–"][column])


def values_of(m: Measured, column, models) -> pd.DataFrame:
    """Model × strategy DataFrame of the estimates of one distance."""
    return pd.DataFrame({s: {mo: m.results[mo, s][column].value for mo in models} for s in m.strategies})


#: An estimate and its interval with three decimals, "value [low, high]".
fmt = tables.fixed


def span_cases(cases) -> str:
    """The range of the estimates of some :class:`lmnotes.report.cases.Case` s."""
    return span(SimpleNamespace(value=c.estimate) for c in cases)


def source_cases() -> dict[str, list[lmcases.Case]]:
    """Claims 1, 4a, 4b, 5, 6, 8a, 9 and 11 decided on the source's printed Tab. 2 and Tab. 3 by
    the chapter's case builders (4a and 8a at their default margins, :data:`paper.POOR_TVD` and
    :func:`paper.length_margin`, both read off these tables): claim number -> cases. Where the
    chapter subtracts the human shift (4a, 8a), the source prints none, so its distances are
    taken whole (stricter: a shift only lowers them); Tab. 2's unigram TVD is over all types,
    the chapter's 4a and 4b over the top types (footnote 15: almost the same). Left out, as the
    source prints no number for them: claim 1's "Zipf rejected" half (it needs the floor of two
    exact Zipf samples), claim 11's type–token distance (Fig. 3 and 4 only), the Trigram's
    empirical rank KS and unigram TVD (not placed, :data:`paper.TABLE2_TEST`), and claims 2, 3,
    10a and 10b (figures only); not built: 7a and 7b (their builder pairs bootstrap replicates,
    which printed numbers lack) and 8b (App. D prints mean differences with stars, not the
    lengths its Welch test takes)."""
    ks = {
        (m, s): {
            k: stats.printed(paper.TABLE3.loc[m, (k, s)], half=paper.HALF_DIGIT)
            for k in ("length", "stopwords", "symbols")
        }
        for m in paper.MODELS
        for s in paper.STRATEGIES
    }
    zipf = {
        (m, s): stats.printed(paper.TABLE2_ZIPF.loc[m, s], half=paper.HALF_DIGIT)
        for m in paper.MODELS
        for s in paper.STRATEGIES
    }
    random = {k: v for k, v in ks.items() if k[1] == "random"}
    per_document = ("length", "stopwords", "symbols")
    neural = [m for m in paper.MODELS if m != "Trigram"]
    sampled = ("random", "nucleus")
    empirical = paper.table2("rank KS to reference", neural)
    tvd = paper.table2("unigram TVD")
    return {
        "1": empirical_cases(
            {k: (zipf[k], empirical[k]) for k in empirical if k[1] in sampled},
            paper.apart,
            why="Tab. 2's rank KS to the sample's Zipf fit minus its KS to the test set",
        ),
        "4a": small_cases(
            {k: e for k, e in tvd.items() if k[1] in sampled},
            paper.POOR_TVD,
            why="Tab. 2's unigram TVD (all types, no shift printed), against its POOR_TVD",
        ),
        "4b": closed_cases(
            {s: paper.apart(tvd["Transformer (AS)", s], tvd["Transformer", s]) for s in sampled},
            why="Tab. 2's unigram TVD (all types), Transformer (AS) minus Transformer",
        ),
        "5": best_cases(random, ("LSTM", "random"), per_document, paper.apart),
        "6": beam_cases(ks, paper.MODELS, per_document, ["random", "nucleus"], paper.apart),
        "8a": [
            lmcases.Case.interval(
                m,
                "below",
                ks[m, "random"]["length"],
                paper.length_margin(),
                why="Tab. 3's random-sampling length KS",
            )
            for m in paper.MODELS
        ],
        "9": closest_cases(zipf, ("Trigram", "beam"), paper.apart),
        "11": source_nucleus_cases(),
    }


def source_verdicts() -> dict[str, str]:
    """The verdict each of those claims gets on the source's own numbers (at its form)."""
    return {k: lmcases.verdict(_form(k), *lmcases.counts(v)) for k, v in source_cases().items()}


def _form(claim: str) -> str:
    """The form of claim ``claim`` in :data:`CLAIMS`."""
    return next(c.form for c in CLAIMS if c.number == claim)


def source_note(claim: str) -> str:
    """What the claim's rule gives on the source's own printed numbers (:mod:`.paper`), for
    its measured text: the verdict, and the open or opposing cases if any."""
    cases = source_cases()[claim]
    verdict = lmcases.verdict(_form(claim), *lmcases.counts(cases))
    stuck = [
        f"{c.name} {c.estimate:+.3f}".replace("-", "−") + f" ({c.decision})"
        for c in cases
        if c.decision != "for"
    ]
    built = {
        "1": " on its 'empirical closer' cases (the 'Zipf rejected' ones need a floor it does not print)",
        "4a": " (by construction: its margin is read off this table)",
        "8a": " (by construction: its margin is read off this table)",
    }.get(claim, "")
    return f"The source's printed table gives {verdict}{built}" + (
        f": its digits do not resolve {', '.join(stuck)}." if stuck else "."
    )


def span(estimates) -> str:
    """The range of the point estimates of some cases, for the measured column."""
    v = [e.value for e in estimates]
    return f"{min(v):.3f} to {max(v):.3f}".replace("-", "−") if v else "none"


def _word_vs_bpe(m: Measured, k: int = 1) -> dict:
    """Word-level minus BPE Transformer, per sampled strategy, on the top-types TVD (<unk> left
    out) and over all types: (strategy, distance) -> paired estimate, each interval at the
    level that keeps ``k`` of them at :data:`ALPHA` in all (:func:`paired`)."""
    if not {"Transformer", "Transformer (word)"} <= set(m.own):
        return {}
    return {
        (s, c): paired(m.results["Transformer (word)", s][c], m.results["Transformer", s][c], k)
        for s in m.sampled
        for c in ["top-types TVD", "unigram TVD"]
    }


def unk_artefact(m: Measured, reference: T.TextSet, articles, compare: Mapping) -> dict[str, str]:
    """How much of claim 4b is the closed vocabulary's ``<unk>``: the word-level minus BPE
    Transformer on the top-types TVD with ``<unk>`` left out (``c4_span``), over all types
    (``c4_all_span``), with ``<unk>`` counted as a type (``c4_counted_span``), and what the
    human sample passed through the same vocabulary moves alone (``unk_vs_c4``)."""
    c4 = _word_vs_bpe(m)
    counted = (
        {
            s: stats.excess(
                T.compare(
                    m.sets["Transformer (word)", s],
                    reference,
                    reference_groups=articles,
                    exclude=(),
                    **compare,
                )["top-types TVD"],
                m.results["Transformer", s]["top-types TVD"],
            )
            for s in m.sampled
        }
        if c4
        else {}
    )
    out = {
        "c4_span": span(e for k, e in c4.items() if k[1] == "top-types TVD"),
        "c4_all_span": span(e for k, e in c4.items() if k[1] == "unigram TVD"),
        "c4_counted_span": span(counted.values()),
    }
    if counted and ("Transformer (word)", "counted") in m.unk_effect:
        alone = m.unk_effect["Transformer (word)", "counted"].value
        largest = max(e.value for e in counted.values())
        out["unk_vs_c4"] = (
            "as much as the whole difference"
            if alone >= largest
            else f"{100 * alone / largest:.0f}% of the largest"
        )
    else:
        out["unk_vs_c4"] = "not measured"
    return out


def factor_ranges(m: Measured) -> pd.DataFrame:
    """Claim 7's table: per distance, the mean over models of its range across strategies and
    the mean over strategies of its range across models (the source's three strategies, and
    ancestral and nucleus alone)."""
    rows = []
    for k in DISTANCES:
        v = values_of(m, k, m.own)
        ss, sa = m.source_strategies, m.sampled
        rows.append(
            {
                "distance": k,
                "across strategies": float((v[ss].max(axis=1) - v[ss].min(axis=1)).mean()),
                "across models": float((v[ss].max(axis=0) - v[ss].min(axis=0)).mean()),
                "across strategies (ancestral, nucleus)": float(
                    (v[sa].max(axis=1) - v[sa].min(axis=1)).mean()
                ),
                "across models (ancestral, nucleus)": float((v[sa].max(axis=0) - v[sa].min(axis=0)).mean()),
            }
        )
    return pd.DataFrame(rows).set_index("distance")


#: The family-wise level of a case that sums up several comparisons (Bonferroni over them).
ALPHA = 0.05
#: Claim 7's equivalence margin: two settings whose distances differ by less than the last digit
#: the source's tables print (every distance to three decimals) fit alike as far as its tables
#: can tell, on every distance alike.
SAME_FIT = 2 * paper.HALF_DIGIT
#: What the intervals of a distance to the test split resample (:func:`measures.compare`,
#: :func:`measures.type_token_by_length`, :func:`measures.matched_type_token`): each set's
#: documents and the test split's articles, the unit of a claim's cases (:attr:`Case.unit`).
AGAINST_TEST = "sampled documents and test articles"
#: What the interval of a sample's rank KS to its own Zipf fit resamples: its documents alone
#: (``clusters=None if j == 0`` in :func:`measures.compare`: no reference in it).
SAMPLE_ONLY = "sampled documents"


def weakest(name: str, test: str, diffs, why: str, threshold: float = 0.0) -> lmcases.Case:
    """:meth:`lmnotes.report.cases.Case.weakest` of ``diffs``, each at the level corrected for
    their number (:func:`paired`), so that one comparison going the other way by chance is no
    likelier than 5 % in all; the why says so."""
    diffs = list(diffs)
    bonferroni = (
        f"; each interval at {100 * stats.bonferroni(ALPHA, len(diffs)):.2f} %, Bonferroni"
        if len(diffs) > 1
        else ""
    )
    return lmcases.Case.weakest(
        name,
        test,
        diffs,
        threshold,
        why=f"{why} ({len(diffs)} comparison{'s' * (len(diffs) > 1)}, the weakest{bonferroni})",
    )


def paired(a, b, k: int = 1):
    """a − b with its paired interval at the level that keeps ``k`` such comparisons at
    :data:`ALPHA` in all (Bonferroni)."""
    return stats.excess(a, b, level=stats.bonferroni(ALPHA, k))


def best_cases(ks: Mapping, best, statistics, diff) -> list[lmcases.Case]:
    """Claim 5: for each statistic, ``best`` setting's KS minus every other setting's of
    ``ks`` (setting -> statistic -> estimate), below 0 (``diff(a, b, k)``: a − b of k)."""
    others = [o for o in ks if o != best]
    return [
        weakest(
            k,
            "below",
            [diff(ks[best][k], ks[o][k], len(others)) for o in others],
            f"{'/'.join(best)}'s KS minus each other setting's",
        )
        for k in statistics
    ]


def beam_cases(ks: Mapping, models, statistics, sampled, diff, beam: str = "beam") -> list[lmcases.Case]:
    """Claim 6: for each model and statistic, the beam's KS minus each sampled strategy's, above 0."""
    return [
        weakest(
            f"{m}: {k}",
            "above",
            [diff(ks[m, beam][k], ks[m, s][k], len(sampled)) for s in sampled],
            f"{beam} KS minus {' and '.join(sampled)}'s",
        )
        for m in models
        for k in statistics
        if (m, beam) in ks
    ]


def closest_cases(zipf: Mapping, key, diff) -> list[lmcases.Case]:
    """Claim 9: every other setting's rank KS to its own Zipf fit minus ``key``'s, above 0."""
    others = [o for o in zipf if o != key]
    return (
        [
            weakest(
                "/".join(key),
                "above",
                [diff(zipf[o], zipf[key], len(others)) for o in others],
                "each other setting's rank KS to its own Zipf fit minus this one's",
            )
        ]
        if key in zipf
        else []
    )


def dependence_cases(values: Mapping, pairs, why: str, level: float | None = None) -> list[lmcases.Case]:
    """Claims 7a and 7b (some case): one case per pair of settings, their distance's paired
    difference outside ±:data:`SAME_FIT` (for) or inside it (against), each at ``level``, by
    default the level corrected for the number of pairs."""
    pairs = list(pairs)
    level = stats.bonferroni(ALPHA, len(pairs)) if level is None else level
    return [
        lmcases.Case.interval(
            f"{name}: {a} vs {b}",
            "outside",
            stats.excess(values[a], values[b], level=level),
            SAME_FIT,
            why=why,
        )
        for name, a, b in pairs
    ]


def nucleus_cases(values: Mapping, models, distances, others, diff) -> list[lmcases.Case]:
    """Claim 11: for each model and distance, nucleus's minus each of the ``others``
    strategies', below 0 (``values``: (model, strategy) -> distance -> estimate;
    ``diff(a, b, k)``: a − b of k)."""
    return [
        weakest(
            f"{mo}: {k}",
            "below",
            [diff(values[mo, "nucleus"][k], values[mo, s][k], len(others)) for s in others],
            f"nucleus minus {' and '.join(others)}",
        )
        for mo in models
        for k in distances
    ]


def empirical_cases(ks: Mapping, diff, why: str) -> list[lmcases.Case]:
    """Claim 1's first half: for each setting of ``ks`` (setting -> (its rank KS to its own Zipf
    fit, its rank KS to the test split)), the first minus the second, above 0: the empirical
    distribution closer than the Zipf law (``diff(a, b)``: a − b)."""
    return [
        lmcases.Case.interval(f"{'/'.join(k)}: empirical closer", "above", diff(z, r), why=why)
        for k, (z, r) in ks.items()
    ]


def small_cases(tvd: Mapping, small: float, why: str) -> list[lmcases.Case]:
    """Claim 4a: each setting's unigram distance of ``tvd`` (setting -> estimate) below ``small``."""
    return [lmcases.Case.interval("/".join(k), "below", e, small, why=why) for k, e in tvd.items()]


def closed_cases(diffs: Mapping, why: str) -> list[lmcases.Case]:
    """Claim 4b: per strategy, the closed vocabulary's unigram distance minus the open one's
    (``diffs``: strategy -> estimate), above 0."""
    return [lmcases.Case.interval(s, "above", e, why=why) for s, e in diffs.items()]


def source_nucleus_cases() -> list[lmcases.Case]:
    """Claim 11 decided on the source's printed Tab. 3 and Tab. 2 by :func:`nucleus_cases`,
    random sampling in ancestral's place: the length, stopwords and symbols KS of Tab. 3 for
    every model, and Tab. 2's rank KS to the test set and unigram TVD (over all types, where the
    chapter's is over the top types) for the models whose values its extraction places (not the
    Trigram, :data:`paper.TABLE2_TEST`). Tab. 2's other columns are distances to Zipf laws, not
    to human text, and the type–token distance is in its figures only."""
    ks = {
        (m, s): {k: stats.printed(paper.TABLE3.loc[m, (k, s)], half=paper.HALF_DIGIT) for k in T.PER_DOCUMENT}
        for m in paper.MODELS
        for s in paper.STRATEGIES
    }
    tab2 = ("rank KS to reference", "unigram TVD")
    neural = [m for m in paper.MODELS if m != "Trigram"]
    columns = {k: paper.table2(k, neural) for k in tab2}
    values = {(m, s): {k: columns[k][m, s] for k in tab2} for m in neural for s in paper.STRATEGIES}
    others = ["random", "beam"]
    return nucleus_cases(ks, paper.MODELS, T.PER_DOCUMENT, others, paper.apart) + nucleus_cases(
        values, neural, tab2, others, paper.apart
    )


# --------------------------------------------------------------------------------------------
# the claims, each decided by its function from what the chapter measured (m) and its rules

Case, est = lmcases.Case, lmcases.Case.interval


def zipf_fit(m: Measured, rules: Rules):
    """Claim 1: a sample fits the test set's empirical distribution better than its own Zipf
    fit, and its Zipf fit is rejected (beyond the floor of exact Zipf samples): two cases per
    setting."""
    results = m.results
    zipf_floor = m.floor_range.loc["rank KS to Zipf(sample)", "max"]
    c1 = {
        k: (results[k]["rank KS to Zipf(sample)"], results[k]["rank KS to reference"])
        for k in [(mo, s) for mo in m.neural for s in m.sampled]
    }
    closer = empirical_cases(
        c1, stats.excess, why="rank KS to the sample's Zipf fit minus KS to the test split (paired)"
    )
    cases = closer + [
        est(
            f"{'/'.join(k)}: Zipf rejected",
            "above",
            z,
            zipf_floor,
            why="rank KS to the sample's own Zipf "
            "fit against the largest between two exact Zipf samples of the sets' size",
            unit=SAMPLE_ONLY,
        )
        for k, (z, _) in c1.items()
    ]
    return cases, (
        f"rank KS to the sample's Zipf fit minus KS to the test set (> 0: empirical closer): "
        f"{span_cases(closer)}; KS to the Zipf fit {span(z for z, _ in c1.values())} against the "
        f"exact-Zipf floor at the sets' size, {zipf_floor:.3f} (beam and the trigram: claim 9). "
        + source_note("1")
    )


def nucleus_type_token(m: Measured, rules: Rules):
    """Claim 2: nucleus closer to the test split's type-token relationship than ancestral, per
    self-trained model (the abstract states it without qualification; §5.2 adds that
    Transformers under nucleus fit best)."""
    c2 = {
        mo: {
            s: stats.excess(m.tt_mean[mo, "nucleus"], m.tt_mean[mo, s])
            for s in m.source_strategies
            if s != "nucleus"
        }
        for mo in m.own
    }
    transformers = m.transformers
    cases = [
        est(
            mo,
            "below",
            d["ancestral"],
            why="type–token KS (weighted over length bins), nucleus minus ancestral (paired)",
        )
        for mo, d in c2.items()
    ]
    return cases, (
        f"type–token KS, nucleus minus ancestral: {span(d['ancestral'] for d in c2.values())} over "
        f"{len(c2)} models, {span(c2[mo]['ancestral'] for mo in transformers)} for the Transformers; "
        "§5.2's 'Transformers under nucleus match it most closely' also needs nucleus closer than beam, which "
        f"holds for {sum(lmcases.side('below', d['beam']) is True for mo, d in c2.items() if 'beam' in d and mo in transformers)}"
        f" of {len(transformers)} Transformers (not counted)."
    )


def long_family(
    matched: Mapping, sets: Mapping, reference, articles, long_length: int, groups: Mapping
) -> dict:
    """Claim 3's cases: the sampled Transformer settings of ``matched`` (``groups``:
    :func:`groups`) that have long documents,
    :func:`measures.matched_type_token` from ``long_length`` tokens again with each interval
    at the level that keeps them at :data:`ALPHA` in all (Bonferroni): a universal claim is
    refuted by one setting, so a setting that goes against it by chance among several must
    stay as unlikely as one alone."""
    keys = [
        (mo, s)
        for mo, s, span in matched
        if span == "long" and mo in groups["transformers"] and s in groups["sampled"]
    ]
    level = stats.bonferroni(ALPHA, len(keys))
    return {
        k: T.matched_type_token(
            sets[k], reference, min_length=long_length, reference_groups=articles, level=level
        )
        for k in keys
    }


def long_fall_off(m: Measured, rules: Rules):
    """Claim 3: distinct words per token at matched long lengths, Transformer settings, each
    at the Bonferroni level over them (:func:`long_family`)."""
    c3 = {
        (mo, s): m.matched[mo, s, "long"]
        for mo in m.neural
        for s in m.sampled
        if (mo, s, "long") in m.matched
    }
    tf3 = dict(m.matched_family)
    family = f", each at {100 * stats.bonferroni(ALPHA, len(tf3)):.2f} %, Bonferroni over {len(tf3)}" * (
        len(tf3) > 1
    )
    cases = [
        Case(
            f"{'/'.join(k)}",
            "below",
            e.value,
            e.low,
            e.high,
            why=f"distinct words per token, sample − test, "
            f"at matched lengths of {rules.long_length}–{rules.max_tokens} tokens (cluster-robust t interval{family}, "
            f"p = {p:.2g})",
        )
        for k, (e, p) in tf3.items()
    ]
    return cases, (
        f"distinct words per token at matched lengths of {rules.long_length}–{rules.max_tokens} tokens "
        f"(sentences; the samples stop at {rules.max_tokens}), sample − test, {' and '.join(m.sampled)}: "
        f"{span(e for e, _ in tf3.values())} (Transformers), {span(e for e, _ in c3.values())} (all neural); "
        "beam, which repeats itself in every architecture, not counted. Not the source's long documents; "
        "'specific to the transformer' is not tested."
        if tf3
        else "No Transformer setting has long documents."
    )


def small_unigram(m: Measured, rules: Rules):
    """Claim 4a: the unigram distance is small: no farther from the test split than the human
    shift plus the largest distance the source itself calls small."""
    small = rules.small_unigram_tvd
    c4a = {(mo, s): beyond_shift(m, (mo, s), "top-types TVD") for mo in m.own for s in m.sampled}
    cases = small_cases(
        c4a, small, why="top-types TVD minus the human shift's (paired), against small_unigram_tvd"
    )
    return cases, (
        f"top-types TVD minus the human shift's: {span(c4a.values())}, against {small:g} ('generally': most "
        "settings; §5.3 names the closed vocabulary's exception). " + source_note("4a")
    )


def closed_vocabulary_unigram(m: Measured, rules: Rules):
    """Claim 4b: closed vocabulary worse on the top-types TVD (all types shown: dominated by the
    tail)."""
    sets = m.sets
    # a universal claim is refuted by one strategy: each at the Bonferroni level over them
    k = len(m.sampled)
    c4 = _word_vs_bpe(m, k)
    c4_top = {key: e for key, e in c4.items() if key[1] == "top-types TVD"}
    all_types = lmcases.verdict(
        "every",
        *lmcases.counts(
            est(k[0], "above", e, why="all types") for k, e in c4.items() if k[1] == "unigram TVD"
        ),
    )
    word_unk = ", ".join(
        f"{100 * sets['Transformer (word)', st].unk_rate:.1f}%"
        for st in m.sampled
        if ("Transformer (word)", st) in sets
    )
    unk_note = ""
    if ("Transformer (word)", "counted") in m.unk_effect:
        unk_note = (
            f" Counted as a type, <unk> ({word_unk} of the model's tokens) moves even the human sample, "
            f"passed through that vocabulary, {m.unk_effect['Transformer (word)', 'counted'].value:.3f} "
            "farther."
        )
    cases = closed_cases(
        {s: e for (s, _), e in c4_top.items()},
        why="top-types TVD over words, word-level minus BPE Transformer (paired; <unk> left out"
        + (
            f"; each at {100 * stats.bonferroni(ALPHA, k):.2f} %, Bonferroni over the {k} strategies)"
            if k > 1
            else ")"
        ),
    )
    return cases, (
        f"word-level minus BPE Transformer, top-types TVD over words, <unk> left out: {span(c4_top.values())}; "
        f"over all types (Tab. 2's measure, dominated by the tail a closed vocabulary cuts) the verdict "
        f"would {'also ' if all_types == lmcases.verdict('every', *lmcases.counts(cases)) else ''}be {all_types}."
        + unk_note
        + " "
        + source_note("4b")
    )


def _document_ks(m: Measured, strategies) -> dict:
    """``(model, strategy)`` -> the length, stopwords and symbols KS of each set of ``strategies``."""
    return {
        (mo, s): {k: m.results[mo, s][f"{k} KS"] for k in T.PER_DOCUMENT}
        for mo in m.own
        for s in strategies
        if (mo, s) in m.results
    }


def lstm_closest(m: Measured, rules: Rules):
    """Claim 5: LSTM/ancestral smallest on length, stopwords, symbols among all self-trained
    settings (Tab. 3)."""
    ks = _document_ks(m, m.source_strategies)
    best = ("LSTM", "ancestral")
    random = {
        k: v for k, v in ks.items() if k[1] == "ancestral"
    }  # "the closest of any model": at one strategy
    c5 = best_cases(random, best, T.PER_DOCUMENT, paired) if best in ks else []
    return c5, (
        f"LSTM/ancestral KS minus the closest of the {len(random) - 1} other models' under ancestral sampling: "
        + "; ".join(f"{c.name} {c.estimate:+.3f}".replace("-", "−") for c in c5)
        + ". "
        + source_note("5")
    )


def beam_diverges(m: Measured, rules: Rules):
    """Claim 6: beam diverges on length, stopwords, symbols: its KS above both sampled
    strategies'."""
    ks = _document_ks(m, m.source_strategies)
    c6 = beam_cases(ks, m.own, T.PER_DOCUMENT, m.sampled, paired) if "beam" in m.strategies else []
    ks_k2 = _document_ks(m, ["beam-k2", *m.sampled])
    c6k = (
        beam_cases(ks_k2, m.own, T.PER_DOCUMENT, m.sampled, paired, beam="beam-k2")
        if "beam-k2" in m.strategies
        else []
    )
    return c6, (
        f"beam KS minus the larger of ancestral's and nucleus's, per model and statistic: {span_cases(c6)} (the "
        f"sign: the source gives 'strongly' no size); the "
        f"k-of-k² beam (not counted): above both in {sum(c.decision == 'for' for c in c6k)} of {len(c6k)}. "
        + source_note("6")
    )


def _pairs_of(items):
    return [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]


def _depends(m: Measured, factor: str, level: float | None = None):
    """Claims 7a and 7b: the distance depends on the strategy (7a) and on the architecture (7b):
    some pair of settings differs beyond a margin no reading of the source's could resolve."""
    own, strategies = m.own, m.source_strategies
    values = {(mo, s, k): m.results[mo, s][k] for mo in own for s in strategies for k in DISTANCES}
    spread = factor_ranges(m)
    ratio = spread["across models (ancestral, nucleus)"] / spread["across strategies (ancestral, nucleus)"]
    ratio3 = spread["across models"] / spread["across strategies"]
    if factor == "strategy":
        pairs = [
            (f"{k}, {mo}", (mo, a, k), (mo, b, k))
            for k in DISTANCES
            for mo in own
            for a, b in _pairs_of(strategies)
        ]
        cases = dependence_cases(values, pairs, "one model's distance under two strategies, paired", level)
    else:
        pairs = [
            (f"{k}, {s}", (a, s, k), (b, s, k))
            for k in DISTANCES
            for s in strategies
            for a, b in _pairs_of(own)
        ]
        cases = dependence_cases(values, pairs, "two models' distance under one strategy, paired", level)
    return cases, (
        f"pairs of settings apart by more than {SAME_FIT:g} beyond their corrected intervals: "
        f"{sum(c.decision == 'for' for c in cases)} of {len(cases)}, within it: "
        f"{sum(c.decision == 'against' for c in cases)}; models' range {ratio.min():.1f}–{ratio.max():.1f} "
        f"times the strategies' over ancestral and nucleus, {ratio3.min():.1f}–{ratio3.max():.1f} times over "
        "the paper's three (table below)."
    )


def strategy_matters(m: Measured, rules: Rules, level: float | None = None):
    """Claim 7a: the fit depends on the strategy (:func:`_depends`), each case at ``level``."""
    return _depends(m, "strategy", level)


def architecture_matters(m: Measured, rules: Rules, level: float | None = None):
    """Claim 7b: the fit depends on the architecture (:func:`_depends`), each case at ``level``."""
    return _depends(m, "architecture", level)


def length_match(m: Measured, rules: Rules):
    """Claim 8a (§5.4): ancestral length distribution against the shift, within the source's
    "quite closely"."""
    close = rules.close_length_ks
    c8a = {mo: beyond_shift(m, (mo, "ancestral"), "length KS") for mo in m.own}
    cases = [
        est(
            mo,
            "below",
            e,
            close,
            why="ancestral length KS minus the human shift's (paired), against close_length_ks",
        )
        for mo, e in c8a.items()
    ]
    return cases, (
        f"ancestral length KS minus the human shift's: {span(c8a.values())}, against {close:g}. "
        + source_note("8a")
    )


def decoding_shortens(m: Measured, rules: Rules):
    """Claim 8b: decoding shortens: ancestral minus beam mean length (both independent samples)."""
    sets = m.sets
    c8b = (
        {
            mo: clusters.mean_difference_test(sets[mo, "ancestral"].lengths, sets[mo, "beam"].lengths)
            for mo in m.own
        }
        if "beam" in m.strategies
        else {}
    )
    cases = [
        Case(
            mo,
            "p",
            t.statistic,
            p=t.pvalue,
            threshold=ALPHA,
            why="ancestral minus beam mean length (tokens), Welch test; > 0: the beam is shorter",
        )
        for mo, t in c8b.items()
    ]
    return cases, (
        "beam minus ancestral mean length (tokens): "
        + ", ".join(
            f"{mo} {-t.statistic:+.1f}".replace("-", "−") + f" (p = {t.pvalue:.2g})" for mo, t in c8b.items()
        )
        + "."
    )


def trigram_power_law(m: Measured, rules: Rules):
    """Claim 9 (§5.1): trigram with beam is closest to its own Zipf fit."""
    results = m.results
    key9 = ("Trigram", "beam")
    zipf = {
        (mo, s): results[mo, s]["rank KS to Zipf(sample)"]
        for mo in m.own
        for s in m.source_strategies
        if (mo, s) in results
    }
    c9 = closest_cases(zipf, key9, paired)
    return c9, (
        f"trigram/beam's rank KS to its own Zipf fit, {fmt(results[key9]['rank KS to Zipf(sample)'])}, minus "
        f"the smallest of the {len(zipf) - 1} other settings': "
        + f"{-c9[0].estimate:+.3f}. ".replace("-", "−")
        + source_note("9")
        if c9
        else "not sampled"
    )


def heaps_fit(m: Measured, rules: Rules):
    """Claim 10a: not tested (why in the text)."""
    return [], (
        "not tested: a Poisson count of types given the length is "
        "over-dispersed against any text by construction, so no set's fit can be judged (see the type–token "
        "section)."
    )


def grows_with_length(m: Measured, rules: Rules):
    """Claim 10b (§5.2): the per-bin type-token KS grows from the first to the last length bin,
    net of the human shift's growth over the same bins (paired: the same resamples of the test
    split)."""
    growth = {
        k: g
        for k in [(mo, s) for mo in m.own for s in m.source_strategies]
        if (g := T.growth_beyond(m.tt_fit[k], m.tt_fit["human shift", "–"])) is not None
    }
    cases = [
        est(
            "/".join(k),
            "above",
            e,
            why=f"type–token KS, bin {bins}, last minus first, net of the human shift's change (paired)",
        )
        for k, (bins, e) in growth.items()
    ]
    return cases, (
        f"type–token KS in the longest minus the shortest length bin, net of the human shift's change: "
        f"{span(e for _, e in growth.values())} over {len(growth)} settings."
    )


def nucleus_closest(m: Measured, rules: Rules):
    """Claim 11 (§5.5): nucleus closest to human text, distance by distance ("often": most
    cases)."""
    values = {
        (mo, s): {**{k: m.results[mo, s][k] for k in DISTANCES}, "type–token": m.tt_mean[mo, s]}
        for mo in m.own
        for s in m.source_strategies
    }
    others = [s for s in m.source_strategies if s != "nucleus"]
    c11 = nucleus_cases(values, m.own, DISTANCES + ("type–token",), others, paired)
    n_for, n_against, n_open = lmcases.counts(source_nucleus_cases())
    own = lmcases.verdict("most", n_for, n_against, n_open)
    return c11, (
        f"nucleus below both ancestral and beam in {sum(c.decision == 'for' for c in c11)} of {len(c11)} model × "
        f"distance cases, above one of them in {sum(c.decision == 'against' for c in c11)}. On the source's own "
        f"Tab. 2 and 3 the same rule gives {own} ({n_for} for, {n_against} against, {n_open} open)"
        + (": its words go beyond its tables." if own != "reproduced" else ".")
    )


#: The chapter's sections that decide claims (:data:`SECTIONS`).
TAB2 = "Rank–frequency and unigram distances (the source's Tab. 2)"
TAB3 = "Length, stopwords and symbols (the source's Tab. 3)"
TYPES = "Type–token (the source's Fig. 3 and Fig. 4)"
#: Claims 7 and 11 range over every distance: the claims section decides them.
ACROSS = "The claims"

#: What the sections read, each name with what it is. Keys of a set are ``(model label,
#: strategy)``; the human rows are ``("human shift", "–")`` and ``("human floor", "–")``.
READS = {
    "results": "measures.compare of each set (distance -> estimate with its interval)",
    "sets": "the sample sets",
    "tt_fit": "measures.type_token_by_length: the per-bin type–token KS of each set",
    "tt_mean": "measures.type_token_by_length: the mean type–token distance of each set",
    "matched": "measures.matched_type_token keyed (model, strategy, 'all lengths' | 'long')",
    "matched_family": "claim 3's long-length estimates of the Transformers, (model, strategy) -> (estimate, "
    "p), each interval at the Bonferroni level over them (long_family)",
    "unk_effect": "the human sample through a closed vocabulary minus the human shift, keyed "
    "(model, 'counted' | 'left out')",
    "floor_range": "distances between exact Zipf samples of the sets' size (min, median, max)",
    "strategies": "the decoding strategies run",
    "own": "the self-trained models' labels (the claims' models)",
    "neural": "the self-trained neural models (groups)",
    "transformers": "the self-trained Transformers (groups)",
    "sampled": "ancestral and nucleus, where run (groups)",
    "source_strategies": "the source's three strategies, where run (groups)",
}


#: The chapter's sections that decide claims, and what each reads of what it measured.
SECTIONS = [
    Section(
        TAB2,
        reading(
            READS,
            "results",
            "sets",
            "unk_effect",
            "floor_range",
            "own",
            "neural",
            "sampled",
            "source_strategies",
        ),
    ),
    Section(TAB3, reading(READS, "results", "sets", "strategies", "own", "sampled", "source_strategies")),
    Section(
        TYPES,
        reading(
            READS,
            "tt_fit",
            "tt_mean",
            "matched",
            "matched_family",
            "own",
            "neural",
            "transformers",
            "sampled",
            "source_strategies",
        ),
    ),
    Section(
        ACROSS, reading(READS, "results", "tt_mean", "strategies", "own", "sampled", "source_strategies")
    ),
]


#: The source's claims, in its order: number, words, the function that decides each, its section
#: (:class:`lmnotes.report.claims.Claim`).
CLAIMS = [
    lmclaims.Claim(
        "1",
        "models fit the empirical rank–frequency distribution better than a Zipf law (neural models, sampled)",
        zipf_fit,
        TAB2,
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim(
        "2",
        "nucleus sampling matches the type–token relationship better than ancestral sampling",
        nucleus_type_token,
        TYPES,
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim(
        "3",
        "Transformers fall off (fewer distinct words) at long lengths (tested at {rules.long_length}–"
        "{rules.max_tokens} tokens)",
        long_fall_off,
        TYPES,
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim(
        "4a", "the unigram distance is generally small", small_unigram, TAB2, form="most", unit=AGAINST_TEST
    ),
    lmclaims.Claim(
        "4b",
        "the unigram distance is worse for the closed vocabulary (over the top types, footnote 15's measure)",
        closed_vocabulary_unigram,
        TAB2,
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim(
        "5",
        "the LSTM under ancestral sampling fits length, stopwords and symbols best of any model",
        lstm_closest,
        TAB3,
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim(
        "6",
        "beam sampling diverges strongly on length, stopwords and symbols",
        beam_diverges,
        TAB3,
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim(
        "7a", "the fit depends on the strategy", strategy_matters, ACROSS, form="some", unit=AGAINST_TEST
    ),
    lmclaims.Claim(
        "7b",
        "the fit depends on the architecture",
        architecture_matters,
        ACROSS,
        form="some",
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim("8a", "models match the length distribution", length_match, TAB3, unit=AGAINST_TEST),
    lmclaims.Claim(
        "8b", "the short-output bias comes from decoding", decoding_shortens, TAB3, unit=SAMPLE_ONLY
    ),
    lmclaims.Claim(
        "9",
        "the trigram model under beam sampling follows a power law most closely",
        trigram_power_law,
        TAB2,
        unit=SAMPLE_ONLY,
    ),
    lmclaims.Claim("10a", "Heaps' NHPP fits moderately", heaps_fit, TYPES),
    lmclaims.Claim(
        "10b",
        "the distance to human text grows with document length",
        grows_with_length,
        TYPES,
        unit=AGAINST_TEST,
    ),
    lmclaims.Claim(
        "11",
        "nucleus sampling often aligns more closely with human text",
        nucleus_closest,
        ACROSS,
        form="most",
        unit=AGAINST_TEST,
    ),
]


def claims(m: Measured, rules: Rules) -> pd.DataFrame:
    """The claims table of chapter 02: each claim of :data:`CLAIMS` with its form and its
    cases (:mod:`lmnotes.report.cases`), from which the verdict is computed (see the chapter's
    claims section for what decides each)."""
    return lmclaims.decide_all(CLAIMS, SECTIONS, m, rules)


def thresholds(rules: Rules) -> dict[str, str]:
    """What each threshold of :class:`Rules` means, for :func:`lmnotes.report.claims.show`."""
    return {
        f"small_unigram_tvd = {rules.small_unigram_tvd:g}": "claim 4a: a unigram TVD this far beyond the human "
        f"shift is no longer small (the source's default: the smallest Tab. 2 value §5.3 reads as poor, "
        f"{paper.POOR_TVD:g}, the closed-vocabulary Transformer's; the largest it reads with the good ones is "
        f"{paper.GOOD_TVD:g}; here on the top types, footnote 15's measure, and beyond the human shift)",
        f"close_length_ks = {rules.close_length_ks:g}": "claim 8a: a length KS this far beyond the human shift "
        f"no longer matches (the default: midway between the largest random- or nucleus-sampling length KS of "
        f"the source's Tab. 3, {paper.closest_length_ks():g}, all of which §5.4 reads as 'quite closely', and "
        f"the smallest under beam search, {paper.divergent_length_ks():g}, which it reads as a strong divergence)",
        f"same fit = {SAME_FIT:g} (fixed)": "claims 7a and 7b: two settings whose distances differ by less fit "
        "alike as far as the source's tables can tell (they print three decimals; not a parameter)",
    }
