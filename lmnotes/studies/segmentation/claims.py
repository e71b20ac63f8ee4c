"""The claims of Mielke (2019) and the rules that decide them: chapter 03.

:data:`SECTIONS` lists the chapter's sections (:class:`lmnotes.report.sections.Section`):
what each reads of what the chapter measured and the values its prose quotes. :data:`CLAIMS`
lists the post's claims (:class:`lmnotes.report.claims.Claim`), each decided from what its
section reads; :func:`claims` turns what the chapter measured (a
:class:`lmnotes.report.sections.Measured`) and its thresholds (:class:`Rules`) into the
claims table, one row per claim of the list, each with its form and its cases
(:mod:`lmnotes.report.cases`), from which its verdict is computed:

1. per-token perplexities are not comparable across segmentations (an exact fact, arithmetic
   on the models' rates; one case): for if the per-token and the per-byte orders of the family
   differ (Kendall τ < 1), against if they agree;
2. the segmentation-independent measures are comparable for open vocabularies (an identity):
   one case per measure, which holds if it orders the open models as bits per byte does;
3. a closed vocabulary gives a large advantage (every case): one case per open model, for if
   the word model's bits-per-byte interval lies wholly below that model's, against if wholly
   above, open otherwise;
4. the marginal over segmentations differs negligibly from the canonical segmentation (every
   case): one case per model, decided by :func:`negligible`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from lmnotes.report import cases as lmcases, claims as lmclaims
from lmnotes.report.sections import Measured, Section, reading
from lmnotes.studies.segmentation.family import INDEPENDENT, fmt


#: The keys of a model's gap (claim 4), shares of its bits per character.
GAP, UPPER = "gap / bits per char", "interval's upper end / bits per char"
CERTIFIED = "certified lower bound / bits per char"


@dataclass(frozen=True)
class Rules:
    """The chapter's thresholds of "negligible" (claim 4), as shares of the bits per
    character: the one that decides, and a stricter one reported beside it."""

    negligible_share: float
    negligible_share_alt: float


def negligible(results: Measured, threshold: float) -> list[lmcases.Case]:
    """Claim 4 at one threshold, one case per model: the gap (a share of the bits per
    character) clearly below ``threshold`` (below half of it; against above twice it: the
    source's "negligibly" fixes no number), its interval from the certified lower bound (what the
    drawn segmentations prove) to the upper end of the estimate's interval. The estimate is
    biased low, so that upper end bounds the gap only once the estimate has levelled off in N;
    a model whose estimate still grows has no upper bound (∞), and only more draws could make
    it count for. Against: the certified lower bound above twice the threshold."""
    cases = []
    for m, g in results.gaps.items():  # in % of the bits per character, as the chapter shows them
        bounded = results.levelled.get(m, False)
        # the certified bound can lie above the bootstrap interval's upper end (a run below it)
        high = 100 * max(g[UPPER], g[CERTIFIED]) if bounded else math.inf
        why = "levelled off in N" if bounded else "still grows with N: no upper bound"
        cases.append(
            lmcases.Case(
                m,
                "clearly below",  # "negligibly": a threshold the source does not fix
                min(100 * max(g[GAP], g[CERTIFIED]), high),
                100 * g[CERTIFIED],
                high,
                100 * threshold,
                unit="" if bounded else "draws per sentence",  # only more draws give it an upper end
                why=why + "; % of the bits per character, from the certified "
                "lower bound; the estimate is the larger of the importance-sampling estimate "
                "and that bound",
            )
        )
    return cases


def negligible_verdict(results: Measured, threshold: float) -> str:
    """Claim 4's verdict at ``threshold`` (:func:`negligible`, every case)."""
    return lmcases.verdict("every", *lmcases.counts(negligible(results, threshold)))


def agree_open(results: Measured) -> bool:
    """Do the segmentation-independent measures give the open models the bits-per-byte order?"""
    ranks = results.open_ranks
    return all((ranks[c] == ranks["bits / byte"]).all() for c in INDEPENDENT)


def per_token_incomparable(r: Measured, rules: Rules):
    """Claim 1: the per-token and the per-byte orders of the family differ (Kendall τ < 1)."""
    cases = [
        lmcases.Case(
            "the family's orders",
            "less",
            r.tau_byte,
            threshold=1,
            why="Kendall τ between the per-token and per-byte orders; 1: the same order",
        )
    ]
    return cases, (
        f"per token the {r.best_token} model is best, per byte the {r.best_byte} model: Kendall τ between "
        f"the two orders {r.tau_byte:.2f}; per-token perplexity {min(r.ppl_token.values()):.2f}"
        f"–{max(r.ppl_token.values()):.1f}"
    )


def independent_comparable(r: Measured, rules: Rules):
    """Claim 2: each segmentation-independent measure orders the open models as bits per byte
    does (an identity: their denominators are the same for every model)."""
    ranks = r.open_ranks
    cases = [
        lmcases.Case(
            c,
            "holds",
            int((ranks[c] == ranks["bits / byte"]).all()),
            why="orders the open models as bits per byte does (its count is the same for every model)",
        )
        for c in INDEPENDENT
        if c != "bits / byte"
    ]
    ex = r.examples
    post = ex["follows from the post's figures"]
    follows, n = int(ex["follows"].sum()), len(ex)

    def why(rows) -> str:
        return ", ".join(f"{k} from {c}" for c, k in ex.loc[rows, "cause"].value_counts().items())

    # the post's own figures: its rounded intermediates and counts (comparability.worked_examples)
    own = post & ~ex["follows"]
    own = f", {int(post.sum())} from its own figures ({why(own)})" if own.any() else ""
    rest = f"; the other {int((~post).sum())} do not: {why(~post)}" if (~post).any() else ""
    return cases, (
        f"over the {len(r.open_ranks)} open-vocabulary models the four measures give "
        f"{'one order' if agree_open(r) else 'different orders'}, as they share their denominators; of the post's "
        f"printed conversions {follows} of {n} follow from their inputs{own}{rest}."
    )


def closed_advantage(r: Measured, rules: Rules):
    """Claim 3: the word model's bits-per-byte interval wholly below each open model's."""
    w = r.word_bpb
    cases = [
        lmcases.Case.apart(
            f"word against {s}",
            "below",
            w,
            e,
            why="bits per byte, word minus open; the interval spans the two models' own "
            "intervals (wholly below: the word model's interval lies below the other's)",
        )
        for s, e in r.open_bpb.items()
    ]
    return cases, (
        f"word model {fmt(r.word_bpb)} bits/byte vs open models "
        f"{min(e.value for e in r.open_bpb.values()):.3f}–{max(e.value for e in r.open_bpb.values()):.3f}; "
        f"of its lead over {r.open_label}, scoring <unk> as a word explains {100 * r.unk / r.advantage:.0f} %, "
        f"the post's mechanism {100 * r.renorm / r.advantage:.1f} %, and "
        f"{100 * (r.advantage - r.unk - r.renorm) / r.advantage:.0f} % is unexplained (training budget "
        f"included: {r.word_epochs:.2f} against {r.open_epochs:.2f} epochs)."
    )


def marginal_negligible(r: Measured, rules: Rules):
    """Claim 4: :func:`negligible` at the chapter's threshold, the stricter one reported beside it."""
    c4 = negligible(r, rules.negligible_share)
    c4_alt = negligible(r, rules.negligible_share_alt)
    return c4, (
        "gap as a share of bits per char: "
        + "; ".join(
            f"{m} {_pct(100 * g[GAP], 2)} % (certified ≥ {_pct(100 * g[CERTIFIED], 3)} %)"
            for m, g in r.gaps.items()
        )
        + f"; {levelled_text(r)}. Clearly below (the upper end under half of it) "
        f"{100 * rules.negligible_share:g} %: {_decisions(c4)}; below {100 * rules.negligible_share_alt:g} %: "
        f"{_decisions(c4_alt)}: {negligible_verdict(r, rules.negligible_share_alt)} at that threshold."
    )


def comparability_values(r: Measured, rules: Rules) -> dict:
    """The values the comparability section quotes: whether the independent measures give
    one order, and why the post's printed numbers that do not follow from their inputs fail."""
    causes = r.examples.loc[~r.examples["follows"], "cause"].value_counts()
    return {
        "independent_orders": "one order" if agree_open(r) else "different orders",
        "causes_text": "; ".join(f"{n} from {c}" for c, n in causes.items()),
    }


def closed_values(r: Measured, rules: Rules) -> dict:
    """The value the closed-vocabulary section quotes: the unexplained share (%) of the word
    model's advantage."""
    return {"rest_share": float(100 * (r.advantage - r.unk - r.renorm) / r.advantage)}


def marginal_values(r: Measured, rules: Rules) -> dict:
    """The values the marginal section quotes: the thresholds (%), claim 4's verdicts at each,
    the model with an N sweep, which models' estimates levelled off in N, and what decides
    the claim at the stricter threshold."""
    return {
        "negligible_pct": 100 * rules.negligible_share,
        "negligible_alt_pct": 100 * rules.negligible_share_alt,
        "v4": negligible_verdict(r, rules.negligible_share),
        "v4_alt": negligible_verdict(r, rules.negligible_share_alt),
        "marginal_label": r.self_name,
        "levelled_text": levelled_text(r),
        "alt_text": alt_text(r, rules),
    }


#: What the sections read, each name with what it is.
READS = {
    "ppl_token": "per-token perplexity of each family member",
    "tau_byte": "Kendall's τ between the per-token and per-byte ranks",
    "best_token": "the best model per token",
    "best_byte": "the best model per byte",
    "open_ranks": "the ranks (family.rankings) of the open-vocabulary models",
    "examples": "the post's worked conversions (comparability.worked_examples)",
    "word_bpb": "bits per byte of the word model (an estimate with value, low, high)",
    "open_bpb": "bits per byte of each open model",
    "open_label": "the open model the word model is compared with",
    "advantage": "the word model's lead over it, bits per char",
    "unk": "the part of the lead from scoring <unk> as a word",
    "renorm": "the part from the mass on unknown-word strings",
    "word_epochs": "the word model's training epochs",
    "open_epochs": "the open model's training epochs",
    "gaps": "per model, the marginal's gap, its interval's upper end and its certified lower bound, as "
    "shares of the bits per character (keys GAP, UPPER, CERTIFIED, as in estimates.gap_row)",
    "self_name": "the model with the long N sweep",
    "levelled": "per model, whether its estimate levelled off in N (the self-trained model over the "
    "chapter's sweep, the pretrained one over halves of its draws)",
}

#: The chapter's sections that decide claims.
FAMILY = "One architecture, several segmentations"
CLOSED = "The closed vocabulary"
MARGINAL = "Beyond the post: the marginal over segmentations"


#: The chapter's sections that decide claims, what each reads of what it measured and the
#: values its prose quotes.
SECTIONS = [
    Section(
        FAMILY,
        reading(READS, "ppl_token", "tau_byte", "best_token", "best_byte", "open_ranks", "examples"),
        comparability_values,
    ),
    Section(
        CLOSED,
        reading(
            READS,
            "word_bpb",
            "open_bpb",
            "open_label",
            "advantage",
            "unk",
            "renorm",
            "word_epochs",
            "open_epochs",
        ),
        closed_values,
    ),
    Section(MARGINAL, reading(READS, "gaps", "self_name", "levelled"), marginal_values),
]


#: The post's claims: number, words, form, basis and the function that decides each
#: (:class:`lmnotes.report.claims.Claim`).
CLAIMS = [
    lmclaims.Claim(
        "1",
        "perplexities per token are not comparable across segmentations",
        per_token_incomparable,
        FAMILY,
        form="identity",
    ),
    lmclaims.Claim(
        "2",
        "per-word and per-character measures are comparable for open-vocabulary models, and convert into each other",
        independent_comparable,
        FAMILY,
        form="identity",
        basis="by construction",
    ),
    lmclaims.Claim(
        "3",
        "a closed vocabulary gives a large advantage that makes its perplexity incomparable",
        closed_advantage,
        CLOSED,
        # rate_row(s, n_boot, seed, article): "a bootstrap interval over groups (the test articles)"
        unit="test articles",
    ),
    lmclaims.Claim(
        "4",
        "the marginal over segmentations differs negligibly from the canonical segmentation",
        marginal_negligible,
        MARGINAL,
        # marginal.gap's interval "resamples the strings and, within each string, its importance
        # samples"; on the saved draws the sentences give most of its width
        unit="test sentences",
    ),
]


def claims(measured: Measured, rules: Rules) -> pd.DataFrame:
    """The claims table of chapter 03: each claim of :data:`CLAIMS` with its form and its cases."""
    return lmclaims.decide_all(CLAIMS, SECTIONS, measured, rules)


def _pct(value: float, decimals: int) -> str:
    """A share in percent with ``decimals`` decimals, or two significant digits where that
    would print a small non-zero share as 0."""
    return f"{value:.{decimals}f}" if value == 0 or abs(value) >= 10 ** (1 - decimals) else f"{value:.2g}"


def alt_text(results: Measured, rules: Rules) -> str:
    """What decides claim 4 at the stricter threshold, in words: each model's case there."""
    parts = []
    for c in negligible(results, rules.negligible_share_alt):
        how = {
            "against": f"against: its certified lower bound, {c.low:.3f} %, lies above twice it",
            "for": f"for: its estimate has levelled off and its interval lies below half of it (up to "
            f"{c.high:.3f} %)",
            "open": "open",
        }[c.decision]
        parts.append(f"{c.name} is {how}")
    return "; ".join(parts)


def levelled_text(results: Measured) -> str:
    """Which models' estimates levelled off in N, in words."""
    return "; ".join(
        f"{m} {'levelled off' if results.levelled.get(m, False) else 'still grows'} in N"
        for m in results.gaps
    )


def _decisions(cases: list[lmcases.Case]) -> str:
    return ", ".join(f"{c.name} {c.decision}" for c in cases)


def thresholds(rules: Rules) -> dict[str, str]:
    """The thresholds the claims table shows, with what each decides."""
    return {
        f"negligible_share = {rules.negligible_share:g}": "claim 4: a gap below half this share of the bits per "
        "character is negligible, above twice it not (the post gives no number: the buffer between stays open)",
        f"negligible_share_alt = {rules.negligible_share_alt:g}": "claim 4: the stricter choice the text "
        "reports beside it",
    }
