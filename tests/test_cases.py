"""Cases and claim forms (lmnotes.report.cases): each decision recomputed from a case's
numbers, the one map from a form and its cases to a verdict, what a claim could reach with
other data, and the cases files the chapters save beside their claims tables, checked against
those tables (a tampered copy fails)."""

import dataclasses
import math

import numpy as np
import pandas as pd
from pathlib import Path

import pytest

from lmnotes.report import cases as C, claims
from lmnotes.stats.inference import Estimate

ROOT = Path(__file__).resolve().parents[1]
BOOK_CLAIMS = ROOT / "book" / "claims"


def test_each_test_decides_from_its_numbers():
    assert C.decide("above", 0.3, 0.1, 0.5) == "for" and C.decide("above", -0.3, -0.5, -0.1) == "against"
    assert C.decide("above", 0.1, -0.1, 0.3) == "open"
    assert C.decide("below", 1.5, 1.2, 1.8, threshold=2.0) == "for"
    assert C.decide("within", 0.01, -0.02, 0.03, threshold=0.05) == "for"
    assert C.decide("within", 0.2, 0.1, 0.3, threshold=0.05) == "against"
    assert C.decide("within", 0.04, 0.0, 0.08, threshold=0.05) == "open"
    assert C.decide("less", -0.6, threshold=1) == "for" and C.decide("less", 1.0, threshold=1) == "against"
    assert C.decide("holds", 1) == "for" and C.decide("holds", 0) == "against"
    assert (
        C.decide("p", 2.1, p=0.01, threshold=0.05) == "for"
        and C.decide("p", -2.1, p=0.01, threshold=0.05) == "against"
    )
    assert C.decide("p", 2.1, p=0.2, threshold=0.05) == "open"
    # a tie at a declared floor, which no data can move; without a floor a tie stays open
    assert C.decide("above", 0.0, 0.0, 0.0, floor=0.0) == "not applicable"
    assert C.decide("more", 0.0, threshold=0.0, floor=0.0) == "not applicable"
    assert C.decide("above", 0.5, 0.5, 0.5, threshold=0.5) == "open"
    assert C.decide("above", 0.0, 0.0, 0.0, threshold=0.1, floor=0.0) == "against"  # zero width off the tie
    assert C.decide("clearly above", 0.05, threshold=0.01) == "for"
    assert C.decide("clearly above", 0.015, threshold=0.01) == "open"
    assert (
        C.decide("clearly below", 0.11, threshold=0.2) == "open"
        and C.decide("clearly below", 0.5, threshold=0.2) == "against"
    )
    with pytest.raises(ValueError, match="finite estimate and threshold"):
        C.decide("less", float("nan"), threshold=1.0)
    with pytest.raises(ValueError, match="finite estimate and threshold"):
        C.decide("above", 1.0, 0.5, 1.5, threshold=float("nan"))
    with pytest.raises(ValueError, match="its level in"):
        C.decide("p", 2.0, p=0.01, threshold=0.0)
    with pytest.raises(ValueError, match="must hold its estimate"):
        C.decide("above", 1.0, 0.0, 0.5)
    with pytest.raises(ValueError, match="unknown test"):
        C.decide("roughly", 1.0)
    with pytest.raises(ValueError, match="1 \\(holds\\) or 0"):
        C.Case("x", "holds", 0.5, why="w")
    with pytest.raises(ValueError, match="say why"):
        C.Case("x", "holds", 1)


def test_a_case_from_an_estimate_keeps_its_numbers():
    c = C.Case.interval("BPE 8k", "below", Estimate(0.78, 0.55, 1.1), threshold=1.0, why="not levelled")
    assert (c.estimate, c.low, c.high, c.threshold, c.decision) == (0.78, 0.55, 1.1, 1.0, "open")
    rec = C.records("4. the marginal is close", "every", "inconclusive", [c])[0]
    assert rec["claim"] == "4" and rec["form"] == "every" and rec["decision"] == "open"
    assert rec["verdict"] == "inconclusive"
    assert list(rec) == list(C.COLUMNS)


@pytest.mark.parametrize("form", list(C.FORMS))
def test_every_form_reaches_what_it_must_and_no_open_case_is_dropped(form):
    n = 2 if form == "effect" else 4
    tests = ["holds"] * n if form == "identity" else ["above"] * n
    assert C.reachable(form, tests) >= C.needed(form)
    assert C.verdict(form, 0, 0, 0) == "not tested"
    if form in ("every", "identity"):
        assert C.verdict(form, 3, 0, 1) == "inconclusive"
        assert C.verdict(form, 3, 1, 0) == ("differs" if form == "every" else "contradicted")
    if form == "most":  # 3 of 5 for, however the open case falls; 2 for and 1 open of 4 is not yet a majority
        assert C.verdict(form, 3, 1, 1) == "reproduced" and C.verdict(form, 2, 1, 1) == "inconclusive"
        assert C.verdict(form, 1, 3, 0) == "contradicted" and C.verdict(form, 2, 2, 0) == "contradicted"
    if form == "some":
        assert C.verdict(form, 1, 5, 0) == "reproduced" and C.verdict(form, 0, 5, 1) == "inconclusive"
    if form == "effect":  # one of the sign and the size for, the other against
        assert C.verdict(form, 1, 1, 0) == "differs" and C.verdict(form, 1, 0, 1) == "inconclusive"
        assert C.verdict(form, 0, 2, 0) == "contradicted"


def test_a_case_that_can_only_come_out_one_way_makes_a_claim_unreachable():
    """Exact checks counted under "every" can never stay open: such a claim (a count over
    settings) need not reach inconclusive, one with a sampling case must."""
    assert "inconclusive" not in C.reachable("every", ["less", "holds"])
    assert C.needed("every", ["less", "holds"]) == {"reproduced", "contradicted"}
    assert "inconclusive" in C.reachable("every", ["less", "above"])
    assert "inconclusive" in C.needed("every", ["less", "above"])


def _chapters_with_cases() -> list[str]:
    return sorted(p.name[: -len(claims.CASES)] for p in BOOK_CLAIMS.glob(f"*{claims.CASES}"))


def test_the_migrated_chapters_save_their_cases():
    assert {"03_segmentation", "06_distortion"} <= set(_chapters_with_cases())


@pytest.mark.parametrize("chapter", _chapters_with_cases())
def test_every_saved_case_recomputes_and_a_tampered_copy_fails(chapter, tmp_path):
    table = claims.load_all(BOOK_CLAIMS).query("chapter == @chapter").reset_index(drop=True)
    saved = claims.load_cases(chapter, BOOK_CLAIMS)
    claims.check_cases(table, saved)
    # one case's numbers moved far to one side of its threshold: its decision no longer follows
    decided = saved.index[
        saved["test"].isin(["above", "below", "within", "outside", "less", "more"])
        & saved["decision"].isin(["for", "against"])
    ]
    assert len(decided), chapter
    i = decided[0]
    r = saved.loc[i]
    for far in (r.threshold + 1e6, r.threshold - 1e6):
        if C.decide(r.test, far, far, far, r.threshold) != r.decision:
            break
    bad = saved.copy()
    bad.loc[i, ["estimate", "low", "high"]] = far if r.test not in ("less", "more") else [far, np.nan, np.nan]
    with pytest.raises(ValueError, match="does not follow"):
        claims.check_cases(table, bad)
    # counts changed in the table: they are no longer those of the cases
    formed = table.index[table["rule"].isin(list(C.FORMS))]
    tampered = table.copy()
    tampered.loc[formed[0], "n_for"] += 1
    with pytest.raises(ValueError, match="are not those of its cases"):
        claims.check_cases(tampered, saved)


def _unreachable(table: pd.DataFrame, saved: pd.DataFrame) -> list:
    """The claims of ``table`` (a chapter's) whose form and saved cases cannot reach a verdict
    they must (:func:`lmnotes.report.cases.needed`), with the verdicts they miss."""
    out = []
    for r in table.itertuples():
        mine = C.from_records(saved[saved["claim"] == r.claim.partition(". ")[0]].to_dict("records"))
        applicable = [c for c in mine if c.decision != "not applicable"]
        if r.rule in C.FORMS and applicable:
            missing = C.needed(r.rule, applicable) - C.reachable(r.rule, applicable)
            out += [(r.claim, sorted(missing))] if missing else []
    return out


@pytest.mark.parametrize("chapter", _chapters_with_cases())
def test_every_claim_with_a_form_can_reach_each_verdict(chapter):
    """With its form and its saved cases, each claim could come out reproduced, contradicted
    or open (an identity: reproduced or contradicted) with other data, where an interval end
    that is infinite stays so; a case planted with no lower end under an "above" test, the
    only case of an *every* claim, makes that claim unreproducible, and the test finds it."""
    table = claims.load_all(BOOK_CLAIMS).query("chapter == @chapter")
    saved = claims.load_cases(chapter, BOOK_CLAIMS)
    assert _unreachable(table, saved) == []
    planted = table.iloc[:1].assign(rule="every", claim="99. planted")
    one_sided = pd.DataFrame(
        [{"claim": "99", **dataclasses.asdict(C.Case("x", "above", 1.0, -np.inf, 2.0, why="w"))}]
    )
    assert _unreachable(planted, one_sided) == [("99. planted", ["reproduced"])]


def test_reachability_knows_the_saved_interval():
    """An infinite end stays infinite: "above" with no lower end can never be for, "below"
    with no lower end never against, and an interval with neither end only open; a finite
    interval reaches every decision of its test, as does a test named without a case."""
    no_low = dict(estimate=1.0, low=-np.inf, high=2.0, why="w")
    assert C.can(C.Case("a", "above", **no_low)) == {"against", "open"}
    assert C.can(C.Case("b", "below", **no_low)) == {"for", "open"}
    assert C.can(C.Case("c", "within", **no_low, threshold=1.5)) == {"against", "open"}
    assert C.can(C.Case("d", "outside", **no_low, threshold=1.5)) == {"for", "open"}
    assert C.can(C.Case("e", "above", 1.0, -np.inf, np.inf, why="w")) == {"open"}
    assert C.can(C.Case("f", "within", 1.0, 0.5, 1.5, threshold=2.0, why="w")) == {"for", "against", "open"}
    assert C.can("above") == {"for", "against", "open"}
    assert "reproduced" not in C.reachable("every", [C.Case("a", "above", **no_low)])
    assert "contradicted" not in C.reachable("every", [C.Case("b", "below", **no_low)])
    assert C.reachable("every", ["above"]) >= C.needed("every", ["above"])


def test_a_table_with_forms_saves_its_cases_and_refuses_wrong_counts(tmp_path):
    rows = [
        claims.row(
            "1. the gap is small",
            [
                C.Case.interval("a", "below", Estimate(0.2, 0.1, 0.3), 0.5, why="w"),
                C.Case.interval("b", "below", Estimate(0.4, 0.2, 0.7), 0.5, why="w"),
                C.Case("c", "above", 0.0, 0.0, 0.0, floor=0.0, why="0 hits against 0"),
            ],
            "measured",
            form="every",
        ),
        claims.row("2. another claim", [C.Case("d", "holds", 1.0, why="w")], "measured", form="identity"),
    ]
    df = claims.table(rows)
    assert df.loc[0, ["n_for", "n_against", "n_unresolved", "rule", "verdict"]].tolist() == [
        1,
        0,
        1,
        "every",
        "inconclusive",
    ]
    claims.save(df, "07_x", tmp_path)
    back = claims.load_cases("07_x", tmp_path)
    assert back["decision"].tolist() == ["for", "open", "not applicable", "for"] and math.isnan(
        back.loc[0, "p"]
    )
    assert list(claims.load_all(tmp_path)["chapter"]) == ["07_x", "07_x"]  # the cases file is not a table
    claims.check_cases(claims.load_all(tmp_path).drop(columns="chapter"), back)
    with pytest.raises(TypeError, match="is given its cases"):
        claims.row("3. x", [1], "m", form="every")
    shown = claims.shown_cases(back)
    assert shown.loc[0, "estimate"] == "0.2 [0.1, 0.3]" and shown.loc[0, "test"] == "below 0.5"


def test_a_changed_form_or_a_missing_why_is_refused(tmp_path):
    df = claims.table(
        [
            claims.row(
                "1. x", [C.Case.interval("a", "above", Estimate(1.0, 0.5, 1.5), why="w")], "m", form="every"
            )
        ]
    )
    cases = df.attrs["cases"]
    changed = df.copy()
    changed.loc[0, "rule"] = "some"
    with pytest.raises(ValueError, match="decided as"):
        claims.check_cases(changed, cases)
    relabelled = cases.copy()
    relabelled["verdict"] = "contradicted"
    with pytest.raises(ValueError, match="its cases say"):
        claims.check_cases(df, relabelled)
    assert set(cases["verdict"]) <= set(claims.VERDICTS)
    bad = cases.copy()
    bad.loc[0, "why"] = ""
    with pytest.raises(ValueError, match="no why"):
        claims.check_cases(df, bad)
    # a table saved again without its cases leaves no stale cases file behind
    claims.save(df, "07_x", tmp_path)
    bare = df.copy()
    bare.attrs = {}
    claims.save(bare, "07_x", tmp_path)
    assert claims.load_cases("07_x", tmp_path) is None


def test_what_would_decide_an_open_case_is_the_data_that_shrinks_its_interval_past_the_threshold():
    from scipy.stats import norm

    c = C.Case("a", "above", 0.1, -0.1, 0.3, why="x")  # half-width 0.2 at 0.1 from the threshold
    assert C.more_data(c) == pytest.approx(4.0)
    # four times the units: the half-width halves, and the interval reaches the threshold
    assert C.Case("a", "above", 0.1, 0.1 - 0.2 / 2 + 1e-9, 0.2, why="x").decision == "for"
    assert C.more_data(C.Case("w", "within", 0.05, -0.05, 0.15, 0.1, why="x")) == pytest.approx(4.0)
    p = C.Case("p", "p", 0.3, p=0.2, threshold=0.05, why="x")
    assert C.more_data(p) == pytest.approx((norm.isf(0.025) / norm.isf(0.1)) ** 2)
    assert C.more_data(C.Case("t", "above", 0.0, -1, 1, why="x")) == math.inf
    assert C.more_data(C.Case("d", "above", 1.0, 0.5, 1.5, why="x")) is None  # decided
    assert C.more_data(C.Case("c", "clearly above", 1.0, threshold=1.0, why="x")) is None
    far = C.Case("b", "above", 0.1, -0.3, 0.5, why="x")  # 16×
    assert (
        C.to_decide("every", [c, far])
        == "about 16× the data, at the observed effects, would make it reproduced"
    )
    assert (
        C.to_decide("some", [c, far])
        == "about 4.0× the data, at the observed effects, would make it reproduced"
    )
    # an open case leaning against beside one for: the first to resolve makes it differ
    against = C.Case("n", "above", -0.1, -0.3, 0.1, why="x")
    decided = C.Case("d", "above", 1.0, 0.5, 1.5, why="x")
    assert C.to_decide("every", [decided, against]).endswith("would make it differs")
    # most: the majority is settled before every open case resolves
    most = [decided, c, far, C.Case("f", "above", 0.1, -0.7, 0.9, why="x")]
    assert C.to_decide("most", most).startswith("about 16×")  # three of four, not the 64× one
    stuck = "more of the same data would not decide it at the observed effects: "
    assert C.to_decide("every", [C.Case("t", "above", 0.0, -1, 1, why="x")]) == (
        stuck + "t: an estimate on its threshold"
    )
    # leaning against, its upper end must fall below 1, and it has none: only more draws close it
    no_end = C.Case("u", "above", 0.5, 0.1, math.inf, 1.0, why="x", unit="draws K")
    assert C.to_decide("every", [no_end]) == (
        "u: an interval end left open at this many draws K, which only more of them can close"
    )
    # many names are cut to three and a count
    many = [dataclasses.replace(no_end, name=f"u{i}") for i in range(5)]
    assert C.to_decide("every", many).startswith("u0 / u1 / u2 and 2 more: an interval end left open")
    # a 'clearly' case has no interval (NaN ends): named once, for its exact value
    assert C.to_decide("every", [C.Case("c", "clearly above", 1.0, threshold=1.0, why="x")]) == (
        stuck + "c: an exact value without an interval, between half and twice its threshold"
    )
    # a range the design fixes, which more of the same data leaves as it is
    tied = C.Case("r", "within", 0.2, -0.5, 0.9, 0.6, why="x", unit=C.NOT_SAMPLED)
    assert C.more_data(tied) is None
    assert C.to_decide("every", [tied]) == stuck + "r: a range its design fixes, not a sampling interval"
    assert C.to_decide("every", [decided]) == ""
    # the end that must cross decides, not the mean half-width: a lopsided interval leaning
    # for needs its lower end, 0.4 from the estimate, to pass a threshold 0.2 away (4×, not 12×)
    lopsided = C.Case("s", "above", 0.5, 0.1, 1.5, 0.3, why="x", unit="test articles")
    assert C.more_data(lopsided) == pytest.approx(4.0)
    assert C.to_decide("every", [lopsided]) == (
        "about 4.0× the test articles, at the observed effects, would make it reproduced; the test split "
        "has no more articles: only a larger corpus gives them"
    )
    assert C.to_decide("every", [dataclasses.replace(lopsided, unit="runs")]) == (
        "about 4.0× the runs, at the observed effects, would make it reproduced"
    )
    assert C.times(4.26) == "4.3×" and C.times(1300.4) == "1,300×"


def test_an_inconclusive_row_shows_what_would_decide_it():
    df = claims.table(
        [
            claims.row("1. x", [C.Case("a", "above", 0.1, -0.1, 0.3, why="x")], "m", form="every"),
            claims.row("2. y", [C.Case("b", "above", 1.0, 0.5, 1.5, why="x")], "m", form="every"),
        ]
    )
    open_ = claims.undecided(df)
    assert list(open_["claim"]) == ["1"] and open_["what would decide it"][0].startswith("about 4.0×")


@pytest.mark.parametrize("chapter", _chapters_with_cases())
def test_the_saved_files_are_those_of_the_executed_page(chapter, tmp_path):
    """A claims or cases file edited after its chapter ran, however consistently (an estimate
    moved inside its interval, an open case deleted, a threshold moved, a case made not
    applicable), no longer has the digest its executed page glued."""
    import nbformat

    nb = nbformat.read(BOOK_CLAIMS.parent / f"{chapter}.ipynb", as_version=4)
    glued = [
        out["data"]
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.get("metadata", {}).get("scrapbook", {}).get("name") == "claims_digest"
    ]
    assert len(glued) == 1, f"{chapter}: the page glues no claims_digest"
    page = next(v for k, v in glued[0].items() if k.endswith("text/markdown"))
    table_text = (BOOK_CLAIMS / f"{chapter}.csv").read_text()
    cases_text = (BOOK_CLAIMS / f"{chapter}{claims.CASES}").read_text()
    assert claims.digest(table_text, cases_text) == page
    lines = cases_text.splitlines(keepends=True)
    last = max(range(1, len(lines)), key=lambda i: lines[i].endswith(",open\n"))  # an open case if any
    forged = [
        "".join(lines[:last] + lines[last + 1 :]),  # a case deleted
        cases_text.replace(
            ",open\n" if ",open\n" in cases_text else ",for\n", ",not applicable\n", 1
        ),  # not applicable
        "".join(lines[:1] + [lines[1].replace("1", "2", 1)] + lines[2:]),  # a number moved
    ]
    for bad in forged:
        assert bad != cases_text and claims.digest(table_text, bad) != page


@pytest.mark.parametrize("chapter", _chapters_with_cases())
def test_every_saved_claim_has_the_form_its_study_declares(chapter):
    """The form of each saved claim is the one its study's list declares, so that a claims
    file with a form changed to suit its cases fails."""
    import importlib

    study = {"02": "tendencies", "03": "segmentation", "04": "importance", "05": "words", "06": "distortion"}
    declared = importlib.import_module(f"lmnotes.studies.{study[chapter[:2]]}.claims").CLAIMS
    table = claims.load_all(BOOK_CLAIMS).query("chapter == @chapter")
    saved = dict(zip(table["claim"].map(claims.number), table["rule"]))
    assert saved == {c.number: c.form for c in declared}


def test_a_threshold_the_source_does_not_fix_gets_the_same_buffer_with_or_without_an_interval():
    """*clearly above* 1: an exact value or an interval must clear 2 to be for and stay below
    0.5 to be against; an interval that reaches into the buffer is open, and more data
    decides it only if its estimate lies beyond the buffer."""
    assert C.decide("clearly above", 3.0, threshold=1.0) == "for"
    assert C.decide("clearly above", 3.0, 2.5, 3.5, threshold=1.0) == "for"
    assert C.decide("clearly above", 3.0, 1.5, 4.5, threshold=1.0) == "open"  # its low end in the buffer
    assert C.decide("clearly above", 0.3, 0.1, 0.45, threshold=1.0) == "against"
    assert C.decide("clearly below", 0.3, 0.1, 0.45, threshold=1.0) == "for"
    assert C.decide("clearly below", 0.3, 0.1, 0.8, threshold=1.0) == "open"
    beyond = C.Case("b", "clearly above", 3.0, 1.5, 4.5, 1.0, why="x", unit="runs")
    assert C.more_data(beyond) == pytest.approx((1.5 / 1.0) ** 2)  # its low end must pass 2
    inside = C.Case("i", "clearly above", 1.5, 0.2, 2.8, 1.0, why="x", unit="runs")
    assert C.more_data(inside) == math.inf
    assert C.to_decide("every", [inside]).endswith(
        "between half and twice a threshold the source does not fix"
    )
    assert C.can(inside) == {"for", "against", "open"}
    assert C.can(C.Case("n", "clearly above", 3.0, -np.inf, 4.5, 1.0, why="x")) == {"against", "open"}
    with pytest.raises(ValueError, match="name no unit"):
        C.with_unit([beyond.__class__("u", "clearly above", 3.0, 1.5, 4.5, 1.0, why="x")], "")


def test_clearly_within_buffers_a_margin_the_source_does_not_fix():
    """for inside ± half the margin, against beyond ± twice it, open between; exact values alike."""
    assert C.decide("clearly within", 0.1, -0.2, 0.4, threshold=1.0) == "for"
    assert C.decide("clearly within", 0.1, -0.2, 0.6, threshold=1.0) == "open"
    assert C.decide("clearly within", 3.0, 2.5, 3.5, threshold=1.0) == "against"
    assert C.decide("clearly within", -3.0, -3.5, -2.5, threshold=1.0) == "against"
    assert C.decide("clearly within", 1.5, 1.2, 1.8, threshold=1.0) == "open"
    assert C.decide("clearly within", 0.21, threshold=0.25) == "open"  # 12.1 points against 10 ± 25 %
    inside = C.Case("i", "clearly within", 0.1, -0.6, 0.8, 1.0, why="x", unit="runs")
    assert C.more_data(inside) == pytest.approx(max((0.7 / 0.4) ** 2, (0.7 / 0.6) ** 2))
    buffered = C.Case("b", "clearly within", 1.5, 0.2, 2.8, 1.0, why="x", unit="runs")
    assert C.more_data(buffered) == math.inf
    assert C.to_decide("every", [buffered]).endswith(
        "between half and twice a threshold the source does not fix"
    )
    assert C.can(inside) == {"for", "against", "open"}


def test_a_case_over_training_runs_needs_what_its_binding_run_needs():
    """What would decide a case over several seeds (Case.across) is the data its weakest run
    needs, not the hull's: runs at 0.9 [0.5, 1.3] (decided) and 0.1 [−0.2, 0.4] (9×) make a
    hull 0.5 [−0.2, 1.3] that would claim 2.0×; runs that lean different ways need more runs."""
    strong = C.Case("r", "above", 0.9, 0.5, 1.3, why="x", unit="articles")
    weak = C.Case("r", "above", 0.1, -0.2, 0.4, why="x", unit="articles")
    both = C.Case.across([strong, weak], "two runs")
    assert both.decision == "open" and both.estimate == pytest.approx(0.5)
    assert C.more_data(both) == pytest.approx(9.0)
    assert C.to_decide("every", [both]).startswith("about 9.0× the articles")
    split = C.Case.across([weak, C.Case("r", "above", -0.1, -0.4, 0.2, why="x", unit="articles")], "two")
    assert split.need == math.inf and C.more_data(split) == math.inf
    assert "training runs that lean different ways" in C.to_decide("every", [split])
    one = C.Case("r", "above", 0.1, -0.2, 0.4, why="x")
    assert math.isnan(one.need) and C.more_data(one) == pytest.approx(9.0)
    # the need travels through a cases file
    row = C.records("1. x", "every", "inconclusive", [both])[0]
    assert C.more_data(C.from_records([row])[0]) == pytest.approx(9.0)
