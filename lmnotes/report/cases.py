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
case's test and its saved interval: an end that is infinite stays infinite (:func:`can`), so a
case built to go one way only counts as such. A case names the unit its interval resamples
(:attr:`Case.unit`), and :func:`to_decide` says, in that unit, how much more would decide an
open claim, or why more of the same would not.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Iterable, Mapping, Sequence

from lmnotes.stats.inference import bonferroni, unpaired

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
    "clearly above": "a value against a threshold its source does not fix: for if it (or its interval) lies "
    "above twice the threshold, against if below half of it, open between (the decision at half and "
    "at twice the threshold, when they agree)",
    "clearly below": "a value against a threshold its source does not fix: for if it (or its interval) lies "
    "below half the threshold, against if above twice it, open between",
    "clearly within": "a value against a margin its source does not fix: for if it (or its interval) lies "
    "within ± half the margin, against if beyond ± twice it, open between",
    "holds": "an identity checked exactly (estimate 1 if it holds, 0 if not)",
    "p": "a test of the claim's direction (positive statistic): for if the estimate is positive and p < "
    "threshold, against if negative and p < threshold, open otherwise",
}
#: The unit of an interval that is not a sampling interval (an exact range of values that
#: tie, bounds the design fixes): no amount of data narrows it.
NOT_SAMPLED = "not sampled"
#: The family level of a claim of form *some*: the chance, in all, that any one of its cases
#: comes out *for* by chance. The engine gives the claim's function the level of each case
#: (:func:`family_level`), so that no chapter applies its own correction.
FAMILY_ALPHA = 0.05
#: The tests decided by an interval, whose cases name the unit they resample (:attr:`Case.unit`).
INTERVAL_TESTS = ("above", "below", "within", "outside")
#: The tests against a threshold the source does not fix, on an exact value or an interval.
CLEARLY = ("clearly above", "clearly below", "clearly within")
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
    "clearly within": {"for", "against", "open"},
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
    "some": "the source says there is a case: reproduced if some case is for, each case's interval at "
    "the level corrected for their number (Bonferroni, 1 − 5 %/n, which the engine gives the claim); "
    "contradicted if every applicable case is against; inconclusive otherwise",
    "effect": "the source gives an effect's sign and size: one case for the sign (beyond 0) and one for the "
    "size (within the source's margin, or beyond it); reproduced if both are for; contradicted if "
    "both are against; differs if one is for and the other against; inconclusive otherwise",
    "identity": "an exact fact (an identity, or arithmetic on exact values): reproduced if every case holds, "
    "contradicted if one does not (no case can stay open)",
}


def family_level(n: int, alpha: float = FAMILY_ALPHA) -> float:
    """The level of each interval (one minus that of each test) of a *some* claim with ``n``
    cases: Bonferroni's 1 − α/n, so that a false find among them stays below α in all."""
    return bonferroni(alpha, n)


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
    interval = test in INTERVAL_TESTS or (test in CLEARLY and not (math.isnan(low) and math.isnan(high)))
    if interval and not low <= estimate <= high:
        raise ValueError(f"an interval [{low}, {high}] must hold its estimate {estimate}")
    if estimate == threshold == floor and (not interval or low == high == floor):
        return "not applicable"
    if test in CLEARLY:
        return (
            _clearly(test, low, high, threshold)
            if interval
            else _clearly(test, estimate, estimate, threshold)
        )
    if interval:
        return _by_interval(test, low, high, threshold)
    if test == "less":
        return "for" if estimate < threshold else "against"
    if test == "more":
        return "for" if estimate > threshold else "against"
    if test == "holds":
        if estimate not in (0, 1):
            raise ValueError(f"an identity's estimate is 1 (holds) or 0 (does not), got {estimate}")
        return "for" if estimate == 1 else "against"
    if not 0 <= p <= 1 or not 0 < threshold < 1:
        raise ValueError(f"a p-value lies in [0, 1] and its level in (0, 1), got {p} and {threshold}")
    return "open" if p >= threshold or estimate == 0 else "for" if estimate > 0 else "against"


def _clearly(test: str, low: float, high: float, threshold: float) -> str:
    """The decision of a *clearly* test on [``low``, ``high``] (an exact value's is [v, v]):
    beyond twice or half the threshold, as the test asks; open in the buffer between."""
    if test == "clearly above":
        return "for" if low > 2 * threshold else "against" if high < threshold / 2 else "open"
    if test == "clearly within":
        t = threshold
        return (
            "for" if -t / 2 < low and high < t / 2 else "against" if low > 2 * t or high < -2 * t else "open"
        )
    return "for" if high < threshold / 2 else "against" if low > 2 * threshold else "open"


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
    if test not in INTERVAL_TESTS:
        raise ValueError(f"{test!r} is not an interval test; those are above, below, within and outside")
    return {"for": True, "against": False, "open": None}[
        _by_interval(test, estimate.low, estimate.high, threshold)
    ]


def excludes(estimate, value: float = 0.0) -> bool:
    """Whether an estimate's interval lies wholly on one side of ``value``."""
    return side("above", estimate, value) is not None


#: The fields of a :class:`Case` that hold numbers (NaN where a case has none).
NUMBERS = ("estimate", "low", "high", "threshold", "p", "floor", "need", "room")


@dataclass(frozen=True)
class Case:
    """One case of a claim: its name, its test, the numbers it is decided on, why it is what
    it is (the reader's account of what was counted), and the ``unit`` its interval resamples
    (test articles, runs, samples, draws K: what more data means for it), or
    :data:`NOT_SAMPLED` for an interval that is not a sampling interval (an exact range).
    A case over several training runs (:meth:`across`) keeps in ``need`` the factor of its
    unit that its binding run needs to be decided (:func:`more_data`), ``math.inf`` where the
    runs lean different ways; NaN for a case of one run. ``room`` is how many times its unit
    the data at hand hold (the rare words a training split offers over those used), where
    that is known and finite: what would decide it beyond that needs a larger corpus."""

    name: str
    test: str
    estimate: float
    low: float = math.nan
    high: float = math.nan
    threshold: float = 0.0
    p: float = math.nan
    floor: float = math.nan
    why: str = ""
    unit: str = ""
    need: float = math.nan
    room: float = math.inf

    def __post_init__(self):
        for f in NUMBERS:
            object.__setattr__(self, f, float(getattr(self, f)))
        if not self.why:
            raise ValueError(f"case {self.name!r}: say why it is what it is (what was counted)")
        decide(self.test, self.estimate, self.low, self.high, self.threshold, self.p, self.floor)  # checks

    @property
    def decision(self) -> str:
        return decide(self.test, self.estimate, self.low, self.high, self.threshold, self.p, self.floor)

    @classmethod
    def interval(
        cls,
        name: str,
        test: str,
        estimate,
        threshold: float = 0.0,
        why: str = "",
        floor: float = math.nan,
        unit: str = "",
    ) -> "Case":
        """A case on an estimate with ``value``, ``low`` and ``high`` (a bootstrap interval)."""
        return cls(
            name,
            test,
            estimate.value,
            estimate.low,
            estimate.high,
            threshold,
            floor=floor,
            why=why,
            unit=unit,
        )

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
    def across(cls, cases: Sequence["Case"], why: str) -> "Case":
        """One case from the same interval case at several training runs (seeds) of the
        models it compares: the mean of their estimates with the hull of their intervals, so
        that it is *for* only if every run's is, *against* only if every run's is, and open
        where the runs disagree: a decision that one run's luck moves is not yet evidence.
        The first case gives its name, test, threshold, unit and why (``why`` is added). What
        would decide it is what its binding run needs (``need``): the largest factor of data
        that its open runs need (:func:`more_data`), each at its own estimate, where every run
        is for or leans for (or every one against); infinite where they lean different ways,
        which more runs, not more data, would settle."""
        if not cases or any((c.test, c.threshold) != (cases[0].test, cases[0].threshold) for c in cases):
            raise ValueError("the runs of one case are at least one, and share its test and threshold")
        first = cases[0]
        sides = {c.decision if c.decision != "open" else leaning(c) for c in cases} - {"not applicable"}
        factors = [k for c in cases if (k := more_data(c)) is not None]
        need = math.inf if len(sides) > 1 else max(factors, default=math.nan)
        return cls(
            first.name,
            first.test,
            sum(c.estimate for c in cases) / len(cases),
            min(c.low for c in cases),
            max(c.high for c in cases),
            first.threshold,
            floor=first.floor,
            why=f"{first.why}; {why}",
            unit=first.unit,
            need=need,
        )

    @classmethod
    def over_runs(cls, runs: Sequence["Case"], of: str = "") -> "Case":
        """The case a claim counts for one comparison made at each training run (seed) of the
        models it compares: the one run's case, or :meth:`across` them (``of`` names what was
        trained, after "training runs")."""
        if len(runs) == 1:
            return runs[0]
        return cls.across(
            runs, f"the hull over {len(runs)} training runs{of} (seeds), each run's case as above"
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
    """How many times its data (its :attr:`Case.unit`) an open case needs to be decided if its
    estimate stayed where it is; a case over several runs, what its binding run needs
    (:attr:`Case.need`). An interval's ends close in on its estimate as one over the
    square root of the independent units it resamples, so the case needs (d_end / d_edge)²
    times them, where d_end is the distance from the estimate to the end that must cross a
    threshold for the decision it leans to (:func:`leaning`) and d_edge the distance from the
    estimate to that threshold (the larger factor where both ends must cross, "within"); a
    test's case needs (z_{α/2} / z)², with z the normal score of its p-value (a power
    calculation at the observed effect, power one half). ``math.inf`` where the needed end is
    infinite or the estimate sits on its threshold; None for a case that is not open, whose
    interval is not a sampling interval (:data:`NOT_SAMPLED`: no data narrows it), or that is
    an exact value against a threshold the source does not fix (*clearly above*, *clearly
    below* without an interval: more data cannot move it, only a threshold from the source
    can). A *clearly* case with an interval must clear twice or half its threshold, and an
    estimate in the buffer between needs more than data (``math.inf``)."""
    if (
        case.decision != "open"
        or case.unit == NOT_SAMPLED
        or (case.test in CLEARLY and not has_interval(case))
    ):
        return None
    if not math.isnan(case.need):
        return case.need
    if case.test == "p":
        from scipy.stats import norm

        z, need = norm.isf(case.p / 2), norm.isf(case.threshold / 2)
        return math.inf if case.estimate == 0 or z <= 0 else float((need / z) ** 2)
    return max((_factor(d_end, d_edge) for d_end, d_edge in _crossings(case)), default=math.inf)


def has_interval(case: Case) -> bool:
    """Whether a case is decided on an interval (an interval test, or a *clearly* test given one)."""
    return case.test in INTERVAL_TESTS or (case.test in CLEARLY and not math.isnan(case.low))


def _crossings(case: Case) -> list[tuple[float, float]]:
    """The (distance from the estimate to an end, distance from the estimate to the threshold
    that end must cross) pairs an open interval case needs for the decision it leans to."""
    e, lo, hi, t = case.estimate, case.low, case.high, case.threshold
    if case.test == "clearly within":  # both ends within ± t/2, or one beyond ± 2t
        if abs(e) < t / 2:
            return [(hi - e, t / 2 - e), (e - lo, e + t / 2)]
        if abs(e) > 2 * t:
            return [(e - lo, e - 2 * t)] if e > 0 else [(hi - e, -2 * t - e)]
        return [(math.inf, 0.0)]
    if case.test in CLEARLY:  # the edge of the buffer on the estimate's side; none inside it
        upper, lower = 2 * t, t / 2
        if not (e > upper or e < lower):
            return [(math.inf, 0.0)]
        return [(e - lo, e - upper)] if e > upper else [(hi - e, lower - e)]
    rise, fall = (e - lo, e - t), (hi - e, t - e)  # the lower end must pass t upward; the upper end downward
    if case.test in ("above", "below"):
        up = (case.test == "above") == (leaning(case) == "for")
        return [rise] if up else [fall]
    inside = (case.test == "within") == (leaning(case) == "for")
    if inside:  # both ends within ±t
        return [(hi - e, t - e), (e - lo, e + t)]
    return [(e - lo, e - t)] if e > 0 else [(hi - e, -t - e)]


def _factor(d_end: float, d_edge: float) -> float:
    """(d_end / d_edge)², infinite for an infinite end or an estimate on its threshold."""
    return math.inf if not math.isfinite(d_end) or d_edge <= 0 else float((d_end / d_edge) ** 2)


def leaning(case: Case) -> str:
    """The decision an open case would take once its interval shrank around its estimate."""
    e, t = case.estimate, case.threshold
    if case.test == "p":
        return "for" if e > 0 else "against"
    toward = {
        "above": e > t,
        "below": e < t,
        "within": abs(e) < t,
        "outside": abs(e) > t,
        "clearly above": e > t,
        "clearly below": e < t,
        "clearly within": abs(e) < t,
    }[case.test]
    return "for" if toward else "against"


def times(k: float) -> str:
    """A factor of data in words: 4.3×, 30×, 1,300×."""
    return f"{k:.1f}×" if k < 10 else f"{float(f'{k:.2g}'):,.0f}×"


def to_decide(form: str, cases: Sequence[Case]) -> str:
    """What would decide a claim left open by its ``cases``, in words: the least data, as a
    multiple of what it has and in the unit its intervals resample (:attr:`Case.unit`), at
    which the open cases, each decided the way its estimate leans once its interval is narrow
    enough (:func:`more_data`, :func:`leaning`), turn the claim's form to a verdict, and that
    verdict; or why more of the same data would not: an estimate on its threshold, a value
    between half and twice a threshold the source does not fix, an interval that no data
    narrows, an end the design leaves open, which only more of its unit can close, or training
    runs that lean different ways."""
    n_for, n_against, n_open = counts(cases)
    if verdict(form, n_for, n_against, n_open) != "inconclusive":
        return ""
    steps = sorted(
        (k, leaning(c), c.unit, c.room) for c in cases if (k := more_data(c)) is not None and k < math.inf
    )
    units: list[str] = []
    short = math.inf
    for k, side, unit, room in steps:
        n_open -= 1
        n_for, n_against = n_for + (side == "for"), n_against + (side == "against")
        units += [unit or "data"] if (unit or "data") not in units else []
        short = min(short, room) if k > room else short
        if (got := verdict(form, n_for, n_against, n_open)) != "inconclusive":
            more = NO_MORE_ARTICLES if any("test articles" in u for u in units) else ""
            more += f"; the corpus holds only about {times(short)} them" if short < math.inf else ""
            return f"about {times(k)} the {' and the '.join(units)}, at the observed effects, would make it {got}{more}"
    stuck = [c for c in cases if c.decision == "open" and more_data(c) in (None, math.inf)]
    why: dict[str, list[Case]] = {
        "fixed": [],
        "buffer": [],
        "not sampled": [],
        "no end": [],
        "runs": [],
        "on": [],
    }
    for c in stuck:
        if c.test in CLEARLY and not has_interval(c):
            why["fixed"].append(c)
        elif (
            c.test in CLEARLY
            and c.threshold / 2 <= (abs(c.estimate) if "within" in c.test else c.estimate) <= 2 * c.threshold
        ):
            why["buffer"].append(c)
        elif c.unit == NOT_SAMPLED:
            why["not sampled"].append(c)
        elif c.test != "p" and not all(math.isfinite(d) for d, _ in _crossings(c)):
            why["no end"].append(c)
        elif c.need == math.inf:
            why["runs"].append(c)
        else:
            why["on"].append(c)
    said = {
        "fixed": lambda c: "an exact value without an interval, between half and twice its threshold",
        "buffer": lambda c: "an estimate between half and twice a threshold the source does not fix",
        "not sampled": lambda c: "a range its design fixes, not a sampling interval",
        "no end": lambda c: (
            f"an interval end left open at this many {c.unit or 'data'}, which only more of them can close"
        ),
        "runs": lambda c: (
            "training runs that lean different ways, which more runs, not more data, would settle"
        ),
        "on": lambda c: "an estimate on its threshold",
    }
    parts = []
    for k, found in why.items():
        for text in dict.fromkeys(said[k](c) for c in found):
            parts.append(f"{_named([c.name for c in found if said[k](c) == text])}: {text}")
    lead = (
        ""
        if not stuck or why["no end"] == stuck
        else "more of the same data would not decide it at the observed effects: "
    )
    return lead + "; ".join(parts)


def _named(names: Sequence[str], most: int = 3) -> str:
    """Up to ``most`` names, then how many more (the cases file lists them all)."""
    # names hold commas ("peek 1, sticky"): slashes keep them apart
    return (
        " / ".join(names)
        if len(names) <= most
        else f"{' / '.join(names[:most])} and {len(names) - most} more"
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


def can(case: "Case | str") -> set[str]:
    """The decisions a case could take with other data: those its test can reach
    (:data:`CAN`), less those that need an end its interval does not have. An interval end
    that is infinite in the saved case (a lower end the design leaves open, an extrapolation
    that does not close) stays infinite, so an "above" case with no lower end can never be
    *for*, and one with neither end can only stay open. Given a test's name instead of a case,
    every decision that test can reach."""
    if isinstance(case, str):
        return set(CAN[case])
    if case.decision == "not applicable":
        return set()
    if not has_interval(case):
        return set(CAN[case.test])
    t = abs(case.threshold)
    step = max(1.0, t)
    # the ends an interval may take with other data: points on each side of ±threshold
    points = sorted({-t - 2 * step, -t, -t + step / 2, 0.0, t / 4, t - step / 2, t, 3 * t, t + 2 * step})
    lows = [-math.inf] if case.low == -math.inf else points
    highs = [math.inf] if case.high == math.inf else points
    decide_on = _clearly if case.test in CLEARLY else _by_interval
    return {decide_on(case.test, lo, hi, case.threshold) for lo in lows for hi in highs if lo <= hi}


def reachable(form: str, cases: "Sequence[Case | str]") -> set[str]:
    """The verdicts a claim of ``form`` could get from its applicable ``cases`` with other
    data: every count of the decisions each case can reach (:func:`can`). Each item is a
    :class:`Case`, whose saved interval limits what it can reach, or a test's name (any data)."""
    triples = {(0, 0, 0)}
    for case in cases:
        reach = can(case)
        if not reach:
            continue
        steps = [(d == "for", d == "against", d == "open") for d in reach]
        triples = {(f + a, g + b, o + c) for f, g, o in triples for a, b, c in steps}
    return {verdict(form, *t) for t in triples}


def needed(form: str, cases: "Sequence[Case | str] | None" = None) -> set[str]:
    """The verdicts a claim of ``form`` must be able to reach: reproduced and contradicted, and
    inconclusive unless it is an identity or every one of its ``cases`` (or tests, by name) is
    an exact check, which cannot stay open (a count over settings, under *every*)."""
    tests = [c if isinstance(c, str) else c.test for c in cases or ()]
    exact = len(tests) > 0 and all("open" not in CAN[t] for t in tests)
    return (
        {"reproduced", "contradicted"}
        if form == "identity" or exact
        else {"reproduced", "contradicted", "inconclusive"}
    )


def sampled(case: Case) -> bool:
    """Whether more data could move a case: an interval (:func:`has_interval`) or a test's
    p-value; an exact value or identity is what it is."""
    return has_interval(case) or case.test == "p"


def with_unit(cases: Iterable[Case], unit: str) -> list[Case]:
    """The ``cases`` with ``unit`` for those interval and test cases that name none (a claim's
    cases share the unit of its list entry unless a case says otherwise); ValueError if such a
    case is left without one, since what would decide it depends on what it resamples."""
    from dataclasses import replace

    out = [replace(c, unit=unit) if sampled(c) and not c.unit and unit else c for c in cases]
    bare = [c.name for c in out if sampled(c) and not c.unit and c.decision != "not applicable"]
    if bare:
        raise ValueError(f"cases {bare} name no unit: say what their intervals or tests resample")
    return out


#: What :func:`to_decide` adds where a unit is the test split's articles, which a corpus
#: cannot add to: its split is all it has.
NO_MORE_ARTICLES = "; the test split has no more articles: only a larger corpus gives them"


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
