"""The cases a claim is decided on and the forms that turn them into a verdict: every study
chapter's claims table (:mod:`lmnotes.report.claims`) and the cases file saved beside it.

A :class:`Case` keeps the numbers it is decided on (an estimate, its interval, a threshold, a
p-value) and the name of its :data:`TESTS` entry, so that its decision (*for*, *against*,
*open* or *not applicable*) is recomputed from what it saved, never typed. A case that
declares a floor (the least value its quantity can take, e.g. 0 hits) and whose two sides sit
on it (estimate, interval and threshold all at the floor: 0 hits against 0 hits) is *not
applicable*: no data can move it, so it neither counts nor blocks.

A claim declares its :data:`FORMS` entry, the form its source's words give it (every case,
some case, most cases, an effect of a sign and a size, an exact identity), and :func:`verdict` maps
the form and the counts of the applicable cases to one verdict, the same in every chapter.
:func:`reachable` says which verdicts a claim's form and cases could give with other data: a
claim that could never be reproduced, contradicted or left open is not a test. It knows each
case's test, not its data: a case built so that it can only go one way (a threshold at the
bound of its quantity, an upper end that is always infinite) passes it, and the chapters'
unit tests build the opposite evidence for each claim to show that it can.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Iterable, Mapping, Sequence

from lmnotes.stats.inference import unpaired

#: How a case is decided from its numbers, by the name a cases file records.
TESTS = {
    "above": "claims estimate > threshold: for if the interval lies above the threshold, against if it lies "
    "below, open if it straddles",
    "below": "claims estimate < threshold: for if the interval lies below the threshold, against if it lies "
    "above, open if it straddles",
    "within": "claims |estimate| < threshold: for if the interval lies inside ±threshold, against if it lies "
    "wholly outside, open otherwise",
    "outside": "claims |estimate| > threshold: for if the interval lies wholly outside ±threshold, against if it "
    "lies inside, open otherwise",
    "less": "an exact value (no sampling error): for if it is below the threshold, against if not",
    "more": "an exact value (no sampling error): for if it is above the threshold, against if not",
    "clearly above": "an exact value against a threshold its source does not fix: for if it is above twice "
    "the threshold, against if below half of it, open between (the decision at half and "
    "at twice the threshold, when they agree)",
    "clearly below": "an exact value against a threshold its source does not fix: for if it is below half "
    "the threshold, against if above twice it, open between",
    "holds": "an identity checked exactly (estimate 1 if it holds, 0 if not)",
    "p": "a test of the claim's direction (positive statistic): for if the estimate is positive and p < "
    "threshold, against if negative and p < threshold, open otherwise",
}
#: The decisions each test can reach with other data (a zero-width tie aside).
CAN = {
    "above": {"for", "against", "open"},
    "below": {"for", "against", "open"},
    "within": {"for", "against", "open"},
    "outside": {"for", "against", "open"},
    "less": {"for", "against"},
    "more": {"for", "against"},
    "clearly above": {"for", "against", "open"},
    "clearly below": {"for", "against", "open"},
    "holds": {"for", "against"},
    "p": {"for", "against", "open"},
}
#: The forms a claim can take, with the statement a chapter shows.
FORMS = {
    "every": "the source says it holds in every case: reproduced if every applicable case is for; "
    "contradicted if some case is against and none is for (one counterexample refutes it, whatever "
    "stays open); differs if some are for and some against; inconclusive otherwise (none against, "
    "some open); not tested without an applicable case",
    "most": "the source says it holds in most cases: reproduced if more than half of the applicable cases are "
    "for even with every open case counted against; contradicted if at most half are for even with "
    "every open case counted for; inconclusive otherwise",
    "some": "the source says there is a case: reproduced if some case is for (the chapter gives each "
    "case's interval at the level corrected for their number, Bonferroni); contradicted if every "
    "applicable case is against; inconclusive otherwise",
    "effect": "the source gives an effect's sign and size: one case for the sign (beyond 0) and one for the "
    "size (within the source's margin, or beyond it); reproduced if both are for; contradicted if "
    "both are against; differs if one is for and the other against; inconclusive otherwise",
    "identity": "an exact fact (an identity, or arithmetic on exact values): reproduced if every case holds, "
    "contradicted if one does not (no case can stay open)",
}


def decide(
    test: str,
    estimate: float,
    low: float = math.nan,
    high: float = math.nan,
    threshold: float = 0.0,
    p: float = math.nan,
    floor: float = math.nan,
) -> str:
    """The decision of one case from its numbers (see :data:`TESTS`); *not applicable* when
    the case declares a ``floor`` and its estimate, interval and threshold all sit on it."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; the tests are {list(TESTS)}")
    if not (math.isfinite(estimate) and math.isfinite(threshold)):
        raise ValueError(f"a case needs a finite estimate and threshold, got {estimate} and {threshold}")
    interval = test in ("above", "below", "within", "outside")
    if interval and not low <= estimate <= high:
        raise ValueError(f"an interval [{low}, {high}] must hold its estimate {estimate}")
    if estimate == threshold == floor and (not interval or low == high == floor):
        return "not applicable"
    if interval:
        return _by_interval(test, low, high, threshold)
    if test == "less":
        return "for" if estimate < threshold else "against"
    if test == "more":
        return "for" if estimate > threshold else "against"
    if test == "clearly above":
        return "for" if estimate > 2 * threshold else "against" if estimate < threshold / 2 else "open"
    if test == "clearly below":
        return "for" if estimate < threshold / 2 else "against" if estimate > 2 * threshold else "open"
    if test == "holds":
        if estimate not in (0, 1):
            raise ValueError(f"an identity's estimate is 1 (holds) or 0 (does not), got {estimate}")
        return "for" if estimate == 1 else "against"
    if not 0 <= p <= 1 or not 0 < threshold < 1:
        raise ValueError(f"a p-value lies in [0, 1] and its level in (0, 1), got {p} and {threshold}")
    return "open" if p >= threshold or estimate == 0 else "for" if estimate > 0 else "against"


def _by_interval(test: str, low: float, high: float, threshold: float) -> str:
    """The decision of an interval test of :data:`TESTS` ("above", "below", "within",
    "outside") on the interval [``low``, ``high``]."""
    if test == "above":
        return "for" if low > threshold else "against" if high < threshold else "open"
    if test == "below":
        return "for" if high < threshold else "against" if low > threshold else "open"
    if not threshold > 0:
        raise ValueError(f"an equivalence margin must be positive, got {threshold}")
    inside, outside = -threshold < low and high < threshold, low > threshold or high < -threshold
    if test == "outside":
        inside, outside = outside, inside
    return "for" if inside else "against" if outside else "open"


def side(test: str, estimate, threshold: float = 0.0) -> bool | None:
    """Where an estimate's interval (its ``low`` and ``high``) lies for the interval test
    ``test`` of :data:`TESTS` against ``threshold``: True (for), False (against) or None
    (open). The decision of a case that is counted in a chapter's prose, not kept as a case."""
    if test not in ("above", "below", "within", "outside"):
        raise ValueError(f"{test!r} is not an interval test; those are above, below, within and outside")
    return {"for": True, "against": False, "open": None}[
        _by_interval(test, estimate.low, estimate.high, threshold)
    ]


def excludes(estimate, value: float = 0.0) -> bool:
    """Whether an estimate's interval lies wholly on one side of ``value``."""
    return side("above", estimate, value) is not None


@dataclass(frozen=True)
class Case:
    """One case of a claim: its name, its test, the numbers it is decided on, and why it is
    what it is (the reader's account of what was counted)."""

    name: str
    test: str
    estimate: float
    low: float = math.nan
    high: float = math.nan
    threshold: float = 0.0
    p: float = math.nan
    floor: float = math.nan
    why: str = ""

    def __post_init__(self):
        for f in ("estimate", "low", "high", "threshold", "p", "floor"):
            object.__setattr__(self, f, float(getattr(self, f)))
        if not self.why:
            raise ValueError(f"case {self.name!r}: say why it is what it is (what was counted)")
        decide(self.test, self.estimate, self.low, self.high, self.threshold, self.p, self.floor)  # checks

    @property
    def decision(self) -> str:
        return decide(self.test, self.estimate, self.low, self.high, self.threshold, self.p, self.floor)

    @classmethod
    def interval(
        cls, name: str, test: str, estimate, threshold: float = 0.0, why: str = "", floor: float = math.nan
    ) -> "Case":
        """A case on an estimate with ``value``, ``low`` and ``high`` (a bootstrap interval)."""
        return cls(name, test, estimate.value, estimate.low, estimate.high, threshold, floor=floor, why=why)

    @classmethod
    def weakest(cls, name: str, test: str, diffs: Sequence, threshold: float = 0.0, why: str = "") -> "Case":
        """One case that needs several comparisons to go the claim's way at once (``test``
        "above": every estimate of ``diffs`` above ``threshold``; "below": every one below), on
        the weakest of them: for "above", the smallest estimate with the interval [min low, min
        high], which lies above the threshold exactly when every interval does and below it
        exactly when some interval does (the mirror for "below"). The caller gives each
        interval at the level corrected for their number."""
        if test not in ("above", "below") or not diffs:
            raise ValueError(
                f"{name}: the weakest of some comparisons is an 'above' or 'below' case of at least one"
            )
        pick = min if test == "above" else max
        return cls(
            name,
            test,
            pick(d.value for d in diffs),
            pick(d.low for d in diffs),
            pick(d.high for d in diffs),
            threshold,
            why=why,
        )

    @classmethod
    def apart(cls, name: str, test: str, a, b, threshold: float = 0.0, why: str = "") -> "Case":
        """A case on a − b for two estimates without shared resamples, its interval the span
        of the differences of their intervals, [a.low − b.high, a.high − b.low]: it lies below 0
        exactly when a's interval lies wholly below b's (the unpaired comparison of two
        intervals, which is conservative)."""
        d = unpaired(a, b)
        return cls(name, test, d.value, d.low, d.high, threshold, why=why)


def more_data(case: Case) -> float | None:
    """How many times its data an open case needs to be decided if its estimate stayed where it
    is: an interval's half-width shrinks as one over the square root of the independent units it
    resamples, so an interval case needs (half-width / distance to the nearest threshold)²
    times them, and a test's case (z_{α/2} / z)² with z the normal score of its p-value (a power
    calculation at the observed effect, power one half). ``math.inf`` where no amount can
    decide it (an estimate on its threshold); None for a case that is not open, or whose
    threshold the source does not fix (*clearly above*, *clearly below*: more data cannot move
    an exact value, only a threshold from the source can)."""
    if case.decision != "open" or case.test in ("clearly above", "clearly below"):
        return None
    if case.test == "p":
        from scipy.stats import norm

        z, need = norm.isf(case.p / 2), norm.isf(case.threshold / 2)
        return math.inf if case.estimate == 0 or z <= 0 else float((need / z) ** 2)
    half = (case.high - case.low) / 2
    edges = (case.threshold,) if case.test in ("above", "below") else (case.threshold, -case.threshold)
    distance = min(abs(case.estimate - e) for e in edges)
    return math.inf if distance == 0 else float((half / distance) ** 2)


def leaning(case: Case) -> str:
    """The decision an open case would take once its interval shrank around its estimate."""
    e, t = case.estimate, case.threshold
    if case.test == "p":
        return "for" if e > 0 else "against"
    toward = {"above": e > t, "below": e < t, "within": abs(e) < t, "outside": abs(e) > t}[case.test]
    return "for" if toward else "against"


def times(k: float) -> str:
    """A factor of data in words: 4.3×, 30×, 1,300×."""
    return f"{k:.1f}×" if k < 10 else f"{float(f'{k:.2g}'):,.0f}×"


def to_decide(form: str, cases: Sequence[Case]) -> str:
    """What would decide a claim left open by its ``cases``, in words: the least data, as a
    multiple of what it has, at which the open cases, each decided the way its estimate leans
    once its interval is narrow enough (:func:`more_data`, :func:`leaning`), turn the claim's
    form to a verdict, and that verdict; or that no amount of data can, where the estimates sit
    on their thresholds or the threshold is not the source's."""
    n_for, n_against, n_open = counts(cases)
    if verdict(form, n_for, n_against, n_open) != "inconclusive":
        return ""
    steps = sorted((k, leaning(c)) for c in cases if (k := more_data(c)) is not None and k < math.inf)
    for k, side in steps:
        n_open -= 1
        n_for, n_against = n_for + (side == "for"), n_against + (side == "against")
        if (got := verdict(form, n_for, n_against, n_open)) != "inconclusive":
            return f"about {times(k)} the data, at the observed effects, would make it {got}"
    stuck = [c for c in cases if c.decision == "open" and more_data(c) in (None, math.inf)]
    why = {
        "fixed": [c.name for c in stuck if c.test in ("clearly above", "clearly below")],
        "unbounded": [
            c.name
            for c in stuck
            if c.test not in ("p", "clearly above", "clearly below") and not math.isfinite(c.high - c.low)
        ],
    }
    why["on"] = [c.name for c in stuck if c.name not in why["fixed"] + why["unbounded"]]
    said = {
        "fixed": "an exact value without an interval, between half and twice its threshold",
        "unbounded": "an interval unbounded on one side, which more of the same data does not close",
        "on": "an estimate on its threshold",
    }
    return "no amount of data at the observed effects: " + "; ".join(
        f"{', '.join(names)}: {said[k]}" for k, names in why.items() if names
    )


#: The columns of a cases file: the claim's number, form and verdict, then a :class:`Case`, then its decision.
COLUMNS = ("claim", "form", "verdict", *(f.name for f in fields(Case)), "decision")


def counts(cases: Iterable[Case]) -> tuple[int, int, int]:
    """For, against and open among the applicable cases."""
    d = [c.decision for c in cases]
    return d.count("for"), d.count("against"), d.count("open")


def verdict(form: str, n_for: int, n_against: int, n_open: int) -> str:
    """The verdict a claim of ``form`` gets from the counts of its applicable cases: the one
    function that maps cases to verdicts for every claim that declares a form."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; the forms are {list(FORMS)}")
    n = n_for + n_against + n_open
    if n == 0:
        return "not tested"
    if form == "most":
        if 2 * n_for > n:
            return "reproduced"
        if 2 * (n_for + n_open) <= n:
            return "contradicted"
        return "inconclusive"
    if form == "some":
        return "reproduced" if n_for else "contradicted" if n_against == n else "inconclusive"
    if form == "identity":
        return "contradicted" if n_against else "reproduced" if n_for == n else "inconclusive"
    if n_for == n:  # every, effect
        return "reproduced"
    if n_against == n or (form == "every" and n_against and not n_for):
        return "contradicted"  # under every, one counterexample refutes, whatever stays open
    return "differs" if n_for and n_against else "inconclusive"


def reachable(form: str, tests: Sequence[str]) -> set[str]:
    """The verdicts a claim of ``form`` could get from cases decided by ``tests`` (one per
    applicable case), whatever the data: every count of decisions the tests can reach."""
    triples = {(0, 0, 0)}
    for test in tests:
        steps = [(d == "for", d == "against", d == "open") for d in CAN[test]]
        triples = {(f + a, g + b, o + c) for f, g, o in triples for a, b, c in steps}
    return {verdict(form, *t) for t in triples}


def needed(form: str, tests: Sequence[str] | None = None) -> set[str]:
    """The verdicts a claim of ``form`` must be able to reach: reproduced and contradicted, and
    inconclusive unless it is an identity or every one of its cases (decided by ``tests``) is
    an exact check, which cannot stay open (a count over settings, under *every*)."""
    exact = tests is not None and len(tests) > 0 and all("open" not in CAN[t] for t in tests)
    return (
        {"reproduced", "contradicted"}
        if form == "identity" or exact
        else {"reproduced", "contradicted", "inconclusive"}
    )


def from_records(rows: "Iterable[Mapping]") -> list[Case]:
    """The cases of rows of a cases file (dicts with at least the :class:`Case` fields)."""
    names = [f.name for f in fields(Case)]
    return [Case(**{k: r[k] for k in names}) for r in rows]


def records(claim: str, form: str, verdict: str, cases: Iterable[Case]) -> list[dict]:
    """The rows of a cases file for one claim (its number, as its table names it, its form and
    the verdict its cases give)."""
    number = claim.partition(". ")[0]
    return [
        {"claim": number, "form": form, "verdict": verdict, **asdict(c), "decision": c.decision}
        for c in cases
    ]
