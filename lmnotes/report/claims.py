"""The claims tables. Every study chapter ends with a claims table and saves it as a small
data file; the intro reads them all into one summary of every verdict.

A claim is tested in *cases* (:class:`lmnotes.report.cases.Case`: models, settings,
statistics), each decided by its interval or test: it shows the claim (*for*), shows the
opposite (*against*), or cannot decide at the run's resolution (*open*; a case below the
resolution is always counted, never dropped). A claim declares its form
(:data:`lmnotes.report.cases.FORMS`), and :func:`lmnotes.report.cases.verdict` turns the counts
of its applicable cases into one word of :data:`VERDICTS`; a chapter never types a verdict.
A row of a claims table records its counts (``n_for``, ``n_against``, ``n_unresolved``), its
form (column ``rule``) and a ``basis`` (:data:`BASES`) that qualifies the verdict; the chapter
saves the cases beside the table (``claims/<chapter>.cases.csv``), from which
:func:`check_cases` recomputes every decision, count and verdict (``tests/test_claims.py``).

A chapter builds its rows with :func:`row`, shows the table with the statements of its
forms and its own thresholds with :func:`show`, and saves it with :func:`save`: the file goes
to ``claims/<chapter>.csv`` under the directory the notebook runs in (``book/`` when the
runner executes it), written atomically, where that folder exists. :func:`load_all` reads them
back and :func:`summary` counts the verdicts and the bases. Used by every study chapter (02–06)
and the intro.
"""

from __future__ import annotations

import os
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from lmnotes.core import io
from lmnotes.report import cases as lmcases, sections as lmsections

#: The verdicts, in the order the summary shows them.
VERDICTS = ("reproduced", "differs", "inconclusive", "contradicted", "not tested")
#: What a verdict rests on: a measurement at this report's scale, an identity that holds by
#: construction (the test could not fail), an expectation (the claim is about a mean, and the
#: runs measure the mean), a case that only the gpu profile runs, or a reading of the source's
#: own code (the row names the repository and commit and the chapter quotes the lines).
BASES = ("measured", "by construction", "in expectation", "gpu profile only", "source code")
COLUMNS = ("claim", "verdict", "basis", "n_for", "n_against", "n_unresolved", "rule", "measured")
#: The longest ``measured`` text: one or two sentences; the details belong in the chapter.
MAX_MEASURED = 400
FOLDER = Path("claims")
#: Where a chapter saves its claims instead of ``claims/`` when set: the tests set it to a
#: temporary folder, so that nbval's re-execution of the book never writes ``book/claims``.
FOLDER_ENV = "LMNOTES_CLAIMS"


# --------------------------------------------------------------------------------------------
# tables


def row(
    claim: str,
    cases: Sequence[lmcases.Case],
    measured: str,
    *,
    form: str,
    basis: str = "measured",
) -> dict:
    """A row of a claims table: its verdict computed by its ``form``
    (:data:`lmnotes.report.cases.FORMS`) from the applicable ones of its ``cases``, which are
    kept with the row for the cases file."""
    if form not in lmcases.FORMS:
        raise ValueError(f"unknown form {form!r}; the forms are {list(lmcases.FORMS)}")
    kept = list(cases)
    if not all(isinstance(c, lmcases.Case) for c in kept):
        raise TypeError(f"{claim!r}: a claim is given its cases (lmnotes.report.cases.Case)")
    if basis not in BASES:
        raise ValueError(f"unknown basis {basis!r}; the bases are {list(BASES)}")
    if len(measured) > MAX_MEASURED:
        raise ValueError(
            f"the measured text of {claim!r} has {len(measured)} characters (at most "
            f"{MAX_MEASURED}: one or two sentences; details go in the chapter)"
        )
    n_for, n_against, n_open = lmcases.counts(kept)
    out = {
        "claim": claim,
        "verdict": lmcases.verdict(form, n_for, n_against, n_open),
        "basis": basis,
        "n_for": n_for,
        "n_against": n_against,
        "n_unresolved": n_open,
        "rule": form,
        "measured": measured,
    }
    out["cases"] = lmcases.records(claim, form, out["verdict"], kept)
    return out


@dataclass(frozen=True)
class Claim:
    """One entry of a study's declarative list of claims: its number, the source's words (a
    template that may name the chapter's thresholds, ``"tested at {rules.long_length} tokens"``,
    or a function of them), the function that gives its cases and the sentence of what was
    measured, ``decide(view, rules)``, the name of the section
    (:class:`lmnotes.report.sections.Section`) whose measurements decide it (``view`` holds
    what that section reads; a claim of form *some* is called ``decide(view, rules, level=…)``
    with the level of each of its cases, :func:`lmnotes.report.cases.family_level` of their
    number), its form (:data:`lmnotes.report.cases.FORMS`) and its basis
    (:data:`BASES`), and the ``unit`` its cases' intervals resample (test articles, runs, draws
    K; :data:`lmnotes.report.cases.NOT_SAMPLED` for exact ranges), which a case may override.
    ``decide`` returns a third item, a mapping, where what was run changes the row's ``form``
    or ``basis`` (a claim not run at this profile). Adding a claim to a study is adding such an
    entry and its ``decide``."""

    number: str
    words: str | Callable[[Any], str]
    decide: Callable[[Any, Any], tuple]
    section: str
    form: str = "every"
    basis: str = "measured"
    unit: str = ""


def decide_all(claims: Sequence[Claim], sections: Sequence, measured: Mapping, rules: Any) -> pd.DataFrame:
    """The claims table of a study's list: each claim's row (:func:`row`), in the list's
    order, decided from what its section reads of what the chapter ``measured``
    (:meth:`lmnotes.report.sections.Section.view`) and the chapter's thresholds ``rules``."""
    rows = []
    for c in claims:
        view = lmsections.named(sections, c.section).view(measured)
        if c.form == "some":  # each case at the family level corrected for their number
            n = len(c.decide(view, rules, level=1 - lmcases.FAMILY_ALPHA)[0])
            cases, text, *changed = c.decide(view, rules, level=lmcases.family_level(n))
        else:
            cases, text, *changed = c.decide(view, rules)
        try:
            cases = lmcases.with_unit(cases, c.unit)
        except ValueError as e:
            raise ValueError(f"claim {c.number}: {e}") from None
        how = {"form": c.form, "basis": c.basis, **(changed[0] if changed else {})}
        words = c.words(rules) if callable(c.words) else c.words.format(rules=rules)
        rows.append(row(f"{c.number}. {words}", cases, text, **how))
    return table(rows)


def table(rows: Iterable[dict]) -> pd.DataFrame:
    """The claims table of :func:`row` dicts, checked; the cases of the claims that have a form
    in ``df.attrs["cases"]`` (a frame of :data:`lmnotes.report.cases.COLUMNS`)."""
    rows = list(rows)
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    found = [r for row_ in rows for r in row_.get("cases", [])]
    if any("cases" in r for r in rows):
        df.attrs["cases"] = pd.DataFrame(found, columns=list(lmcases.COLUMNS))
    check(df)
    return df


def check_cases(df: pd.DataFrame, cases: pd.DataFrame) -> None:
    """Raise ValueError unless every decision of ``cases`` (a cases file) follows from its
    numbers by its test, and every claim of ``df`` that has a form counts exactly its
    applicable cases, with the verdict its form gives them."""
    missing = [c for c in lmcases.COLUMNS if c not in cases.columns]
    if missing:
        raise ValueError(f"a cases file needs the columns {list(lmcases.COLUMNS)}; {missing} are missing")
    for r in cases.itertuples():
        if not r.why:
            raise ValueError(f"claim {r.claim}, case {r.name!r}: no why")
        got = lmcases.decide(r.test, r.estimate, r.low, r.high, r.threshold, r.p, r.floor)
        if got != r.decision:
            raise ValueError(
                f"claim {r.claim}, case {r.name!r}: the decision {r.decision!r} does not follow from "
                f"its numbers by the test {r.test!r} ({got})"
            )
    numbers = df["claim"].str.partition(". ")[0]
    for number, r in zip(numbers, df.itertuples()):
        rows = cases[cases["claim"].astype(str) == number]
        if set(rows["form"]) - {r.rule}:
            raise ValueError(
                f"claim {number}: its cases were decided as {sorted(set(rows['form']))}, the table "
                f"says {r.rule!r}"
            )
        if set(rows["verdict"]) - {r.verdict}:
            raise ValueError(
                f"claim {number}: its cases say {sorted(set(rows['verdict']))}, the table says {r.verdict!r}"
            )
        mine = rows["decision"].tolist()
        found = (mine.count("for"), mine.count("against"), mine.count("open"))
        if found != (r.n_for, r.n_against, r.n_unresolved):
            raise ValueError(
                f"claim {number}: its counts {r.n_for}·{r.n_against}·{r.n_unresolved} are not those "
                f"of its cases, {found[0]}·{found[1]}·{found[2]}"
            )
    extra = set(cases["claim"].astype(str)) - set(numbers)
    if extra:
        raise ValueError(f"cases of claims {sorted(extra)} that the table does not hold")


def check(df: pd.DataFrame) -> None:
    """Raise ValueError unless ``df`` is a claims table whose every verdict follows from its
    evidence by its rule."""
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"a claims table needs the columns {list(COLUMNS)}; {missing} are missing")
    for r in df.itertuples():
        if r.basis not in BASES:
            raise ValueError(f"{r.claim!r}: unknown basis {r.basis!r}; the bases are {list(BASES)}")
        counts = (r.n_for, r.n_against, r.n_unresolved)
        if any(int(n) != n or n < 0 for n in counts):
            raise ValueError(f"{r.claim!r}: its counts {counts} must be whole numbers ≥ 0")
        if r.rule not in lmcases.FORMS:
            raise ValueError(f"{r.claim!r}: unknown form {r.rule!r}; the forms are {list(lmcases.FORMS)}")
        expected = lmcases.verdict(r.rule, *map(int, counts))
        if r.verdict != expected:
            raise ValueError(
                f"{r.claim!r}: the verdict {r.verdict!r} does not follow from its evidence "
                f"({r.n_for} for, {r.n_against} against, {r.n_unresolved} unresolved, rule "
                f"{r.rule!r}: {expected})"
            )


def number(claim: str) -> str:
    """A claim's number, the part of its text before the first ". " (``"7a"`` of ``"7a. the fit
    depends on the strategy"``): the number the chapter's prose cites and the table shows."""
    return claim.partition(". ")[0]


def statement(claim: str) -> str:
    """A claim's words without its number."""
    return claim.partition(". ")[2] or claim


def anchor(chapter: str, claim: str) -> str:
    """The HTML id of a claim's row in its chapter's claims table: ``claim-02-7a`` for claim
    7a of ``02_tendencies`` (``claim`` is the number or the whole text). Badges link to it."""
    return f"claim-{chapter.split('_')[0]}-{number(claim).lower()}"


def shown(df: pd.DataFrame) -> pd.DataFrame:
    """The table as a chapter shows it: the claim's number in a column of its own (the number
    the prose cites), its words, the verdict, and the evidence in one column, "for · against
    · open"."""
    out = pd.DataFrame(
        {"no.": [number(c) for c in df["claim"]], "claim": [statement(c) for c in df["claim"]]},
        index=df.index,
    )
    out["verdict"], out["basis"] = df["verdict"], df["basis"]
    out["cases for · against · open"] = [
        f"{a} · {b} · {c}" for a, b, c in zip(df["n_for"], df["n_against"], df["n_unresolved"])
    ]
    out["rule"] = df["rule"]
    out["measured"] = df["measured"]
    return out


def undecided(df: pd.DataFrame) -> pd.DataFrame:
    """The inconclusive claims of a table with saved cases, and what would decide each
    (:func:`lmnotes.report.cases.to_decide`)."""
    if "cases" not in df.attrs:
        return pd.DataFrame(columns=["claim", "what would decide it"])
    rows = [(r.claim.partition(". ")[0], to_decide(df.attrs["cases"], r)) for r in df.itertuples()]
    return pd.DataFrame([r for r in rows if r[1]], columns=["claim", "what would decide it"])


def to_decide(cases: pd.DataFrame, r) -> str:
    """What would decide the claims-table row ``r`` (a named tuple), from its saved ``cases``:
    empty unless it is inconclusive and has a form."""
    if r.verdict != "inconclusive" or r.rule not in lmcases.FORMS:
        return ""
    mine = cases[cases["claim"].astype(str) == r.claim.partition(". ")[0]]
    return lmcases.to_decide(r.rule, lmcases.from_records(mine.to_dict("records")))


def show(
    df: pd.DataFrame, caption: str, thresholds: Mapping[str, str] | None = None, chapter: str | None = None
):
    """Display a claims table, then the statements of the rules it uses and the thresholds the
    chapter chose (``{parameter = value: what it decides}``); returns nothing. Each row of the
    table carries the id :func:`anchor` gives it, for the badges that link to it, where the
    chapter is known: ``chapter``, else the one :func:`publish` recorded in ``df.attrs``."""
    from IPython.display import display

    from lmnotes.report import tables

    check(df)
    chapter = chapter or df.attrs.get("chapter")
    ids = [anchor(chapter, c) for c in df["claim"]] if chapter else None
    display(tables.show(shown(df), caption, index=False, row_ids=ids))
    statements = {f"{k} (form)": v for k, v in lmcases.FORMS.items()}
    used = [r for r in statements if r.removesuffix(" (form)") in set(df["rule"])]
    rules = pd.DataFrame({"rule": used, "statement": [statements[r] for r in used]})
    display(
        tables.show(
            rules,
            "The rules that turn the cases into a verdict (a case is "
            "decided by its interval or test; below the run's resolution it is open)",
            index=False,
        )
    )
    if thresholds:
        display(
            tables.show(
                pd.DataFrame({"threshold": list(thresholds), "what it decides": list(thresholds.values())}),
                "The thresholds this chapter chose (parameters)",
                index=False,
            )
        )
    open_ = undecided(df)
    if len(open_):
        display(
            tables.folded(
                tables.show(open_, index=False),
                f"What would decide each inconclusive claim ({len(open_)}): click to open",
            )
        )
    if "cases" in df.attrs:
        cases = df.attrs["cases"]
        display(
            tables.folded(
                tables.show(shown_cases(cases), index=False),
                f"Every case counted ({len(cases)}), with the numbers that decide it: click to open "
                "(saved beside the table; a test recomputes each decision and verdict from them)",
            )
        )


def shown_cases(cases: pd.DataFrame) -> pd.DataFrame:
    """A cases file as a chapter shows it: claim, case, the test with its threshold, the
    estimate with its interval (or p-value), the decision and why."""

    def number(x: float) -> str:
        return "∞" if x == np.inf else "−∞" if x == -np.inf else f"{x:.4g}".replace("-", "−")

    def value(r) -> str:
        text = number(r.estimate)
        if not np.isnan(r.low):
            text += f" [{number(r.low)}, {number(r.high)}]"
        return text + (f", p = {r.p:.2g}" if not np.isnan(r.p) else "")

    return pd.DataFrame(
        {
            "claim": cases["claim"],
            "case": cases["name"],
            "test": [
                f"{t} {number(th)}" if t != "holds" else t for t, th in zip(cases["test"], cases["threshold"])
            ],
            "estimate": [value(r) for r in cases.itertuples()],
            "decision": cases["decision"],
            "why": cases["why"],
        }
    )


def save(df: pd.DataFrame, chapter: str, folder: str | Path = FOLDER) -> Path | None:
    """Write a chapter's claims table to ``folder/<chapter>.csv`` and return the path, where that
    folder exists (the book's, ``book/claims``, when the runner executes a chapter); elsewhere
    (a chapter run with papermill in a folder of one's own) check the table and write nothing.
    The default folder gives way to ``$LMNOTES_CLAIMS`` (:data:`FOLDER_ENV`) where that is set."""
    if Path(folder) == FOLDER and os.environ.get(FOLDER_ENV):
        folder = os.environ[FOLDER_ENV]
    check(df)
    if "cases" in df.attrs:
        check_cases(df, df.attrs["cases"])
    if not Path(folder).is_dir():
        return None
    path, cases_path = Path(folder) / f"{chapter}.csv", Path(folder) / f"{chapter}{CASES}"
    table_text, cases_text = saved_texts(df)
    if cases_text is not None:
        io.write_text(cases_path, cases_text)
    else:
        cases_path.unlink(missing_ok=True)  # a table without forms has no cases file
    io.write_text(path, table_text)
    return path


def saved_texts(df: pd.DataFrame) -> tuple[str, str | None]:
    """The text of a chapter's claims file and of its cases file (None: no cases), as
    :func:`save` writes them."""
    cases = df.attrs["cases"][list(lmcases.COLUMNS)].to_csv(index=False) if "cases" in df.attrs else None
    return df[list(COLUMNS)].to_csv(index=False), cases


def digest(table_text: str, cases_text: str | None) -> str:
    """The SHA-256 of a claims file and its cases file, as their texts (:func:`saved_texts`):
    the executed chapter carries it (``claims_digest``, glued by :func:`publish`), so that
    files edited after the run, however consistently, no longer match their page."""
    import hashlib

    return hashlib.sha256((table_text + (cases_text or "")).encode()).hexdigest()


#: The suffix of a chapter's cases file beside its claims table.
CASES = ".cases.csv"


def load_cases(chapter: str, folder: str | Path = FOLDER) -> pd.DataFrame | None:
    """A chapter's saved cases (None if it saved none)."""
    path = Path(folder) / f"{chapter}{CASES}"
    if not path.is_file():
        return None
    return pd.read_csv(
        path,
        dtype={
            "claim": str,
            "form": str,
            "verdict": str,
            "name": str,
            "test": str,
            "why": str,
            "unit": str,
            "decision": str,
        },
        keep_default_na=False,
        na_values={c: ["", "nan"] for c in lmcases.NUMBERS},
    )


def load_all(folder: str | Path = FOLDER) -> pd.DataFrame:
    """Every saved claims table, one row per claim, with its ``chapter``."""
    files = sorted(f for f in Path(folder).glob("*.csv") if not f.name.endswith(CASES))
    if not files:
        return pd.DataFrame(columns=["chapter", *COLUMNS])
    df = pd.concat(
        [
            pd.read_csv(f, dtype={"claim": str, "measured": str}, keep_default_na=False).assign(
                chapter=f.stem
            )
            for f in files
        ],
        ignore_index=True,
    )
    check(df)
    return df[["chapter", *COLUMNS]]


def summary(claims: pd.DataFrame, by: str = "verdict") -> pd.DataFrame:
    """Counts of each verdict (``by="verdict"``), basis (``by="basis"``) or rule and form
    (``by="rule"``) per chapter (rows) and in all (last row)."""
    levels = {"verdict": VERDICTS, "basis": BASES, "rule": tuple(lmcases.FORMS)}[by]
    counts = pd.crosstab(
        claims["chapter"], pd.Categorical(claims[by], categories=levels), dropna=False
    ).reindex(columns=list(levels), fill_value=0)
    counts.columns = list(levels)
    counts["claims"] = counts.sum(axis=1)
    counts.loc["all chapters"] = counts.sum()
    counts.index.name = "chapter"
    return counts.astype(int)


def title(chapter: str, folder: str | Path = ".") -> str:
    """A chapter's title: the first heading of ``folder/<chapter>.ipynb`` (its name if none)."""
    import nbformat

    path = Path(folder) / f"{chapter}.ipynb"
    if path.is_file():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown" and cell.source.startswith("# "):
                return cell.source.splitlines()[0][2:].strip()
    return chapter


#: What the GPU columns of :func:`side_by_side` say for a chapter that has not run at that profile.
NOT_RUN = "not run"


def side_by_side(
    cpu: pd.DataFrame, gpu: pd.DataFrame, titles: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Each claim of the CPU edition (``cpu``, :func:`load_all` of ``book/claims``) beside the
    same claim in the GPU edition (``gpu``, of ``book/gpu/claims``): chapter, claim, and the
    verdict and measured text in each, with whether the verdict changed. A chapter with no GPU
    table says :data:`NOT_RUN`; a claim its GPU table lacks says ``not in the table``."""
    keep = ["chapter", "claim", "verdict", "measured"]
    both = cpu[keep].merge(gpu[keep], on=["chapter", "claim"], how="left", suffixes=(" (CPU)", " (GPU)"))
    ran = both["chapter"].isin(set(gpu["chapter"]))
    for col in ("verdict (GPU)", "measured (GPU)"):
        both[col] = both[col].where(both[col].notna(), np.where(ran, "not in the table", NOT_RUN))
    both["changed"] = np.where(
        ~ran, "", np.where(both["verdict (CPU)"] == both["verdict (GPU)"], "no", "yes")
    )
    if titles:
        both["chapter"] = [titles.get(c, c) for c in both["chapter"]]
    return both[
        ["chapter", "claim", "verdict (CPU)", "verdict (GPU)", "changed", "measured (CPU)", "measured (GPU)"]
    ]


#: The colour of each verdict's badge (sphinx-design's badge roles).
BADGES = {
    "reproduced": "success",
    "differs": "warning",
    "inconclusive": "muted",
    "contradicted": "danger",
    "not tested": "light",
}


def label(chapter: str) -> str:
    """The target of a chapter's claims section: ``(claims-02_tendencies)=`` above its heading."""
    return f"claims-{chapter}"


def badge(verdict: str, href: str | None = None) -> str:
    """A verdict as a colour-coded badge (MyST); with ``href``, a badge that links there (the
    claim's row of its claims table, :func:`anchor`)."""
    if href is None:
        return f"{{bdg-{BADGES[verdict]}}}`{verdict}`"
    return f"{{bdg-link-{BADGES[verdict]}}}`{verdict} <{href}>`"


def link(chapter: str, claim: str, page: bool = True) -> str:
    """The address of a claim's row: ``02_tendencies.html#claim-02-7a`` from another page of
    the book (``page``), ``#claim-02-7a`` from the chapter itself."""
    return (f"{chapter}.html" if page else "") + f"#{anchor(chapter, claim)}"


def findings(df: pd.DataFrame, chapter: str) -> str:
    """The findings box of a chapter (Markdown, glued at its top): one line per claim with its
    verdict as a badge that links to the claim's row of the claims table, and a link to the
    table with the evidence."""
    check(df)
    lines = [
        f"- {badge(row.verdict, link(chapter, row.claim, page=False))} {row.claim}" for row in df.itertuples()
    ]
    return "\n".join(lines) + (
        f"\n\nThe evidence for each verdict, with the rule that decides it, is in "
        f"{{ref}}`the claims table <{label(chapter)}>`."
    )


def in_words(df: pd.DataFrame) -> str:
    """The verdicts of a claims table counted in one sentence (a chapter's summary)."""
    check(df)
    counts = df["verdict"].value_counts()
    parts = [f"{int(counts[v])} {v}" for v in VERDICTS if counts.get(v, 0)]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return (
        f"Of the {len(df)} claims of this chapter, the verdicts are {listed}. A verdict is "
        f"about the models and the corpus of this report at its scale; for the chapters it has run, "
        f"[the GPU edition](at_scale.html) says which survive larger models and more samples."
    )  # an inline glue: no roles


def publish(df: pd.DataFrame, chapter: str, folder: str | Path = FOLDER) -> Path | None:
    """What a chapter does with its claims table besides showing it: save it for the book's
    first page (:func:`save`), and glue its findings box (``findings``, shown at the top of
    the chapter), its summary sentence (``summary``, at the end) and the :func:`digest` of
    the files it saves (``claims_digest``). Records ``chapter`` in
    ``df.attrs``, so that :func:`show` gives the table's rows the ids the badges link to."""
    from lmnotes.report.glue import glue_md

    df.attrs["chapter"] = chapter
    glue_md("findings", findings(df, chapter))
    glue_md("summary", in_words(df))
    glue_md("claims_digest", digest(*saved_texts(df)))
    return save(df, chapter, folder)


def overview(found: pd.DataFrame) -> str:
    """Every claim of every chapter as Markdown tables, one per chapter, each claim's verdict a
    colour-coded badge that links to the claim's row of its chapter's claims table, each
    chapter linked to its page and to its claims section (the book's first page)."""
    parts = []
    for chapter, group in found.groupby("chapter", sort=True):
        parts.append(f"**{{doc}}`{chapter}`** ({{ref}}`its claims table <{label(chapter)}>`)\n")
        parts.append("| | claim | verdict |\n| --- | --- | --- |")
        for row in group.itertuples():
            basis = "" if row.basis == "measured" else f" ({row.basis})"
            parts.append(
                f"| {number(row.claim)} | {statement(row.claim).replace('|', '∣')} | "
                f"{badge(row.verdict, link(chapter, row.claim))}{basis} |"
            )
        parts.append("")
    return "\n".join(parts)


#: The verdicts whose claims :func:`headline` gives in words (the others it counts; every claim's
#: words are in :func:`overview`).
IN_WORDS = ("reproduced", "contradicted")
#: What each verdict means, the key the first page shows once under its badges.
MEANING = {
    "reproduced": "the cases show the claim as its form asks (every case, most, some case, "
    "the effect's sign and size, or an identity)",
    "differs": "a claim about every case or an effect: some cases show it and some the opposite",
    "inconclusive": "too many cases stay open to decide the form: at this report's scale, or with "
    "data of this kind at all (the claims table says which, and what would decide it)",
    "contradicted": "the cases show the opposite as the form asks (one failing case refutes an identity, "
    "and a case against with none for refutes a claim about every case)",
    "not tested": "no case could be run here, or the claim cannot be tested as posed (its row says why)",
}


#: First words that are names (of architectures, laws, people), kept capitalised inside a sentence.
NAMES = ("Transformer", "Zipf", "Heaps", "Kneser", "Good", "English", "Wikipedia")


def in_sentence(claims: Sequence[str], i: int) -> str:
    """The words of claim ``claims[i]`` as they read inside a sentence: a first word that is not
    a name in lower case, and a claim that continues the one before it ("… and levels off")
    with that one's words in front."""
    text = statement(claims[i]).strip()
    if text.startswith(("…", "...")) and i > 0:
        text = f"{in_sentence(claims, i - 1)} {text.lstrip('.… ')}"
    first = text.split(" ", 1)[0]
    if first.startswith(NAMES):
        return text
    if first == "A" or len(first) > 1 and first[0].isupper() and first[1:].replace("-", "").islower():
        text = text[0].lower() + text[1:]
    return text


def counts_line(verdicts: Sequence[str], ref: str | None = None) -> str:
    """The verdicts counted as badges, ``{bdg-success}`reproduced 26` ...`` (the verdict word
    first, as the key and the tables spell it; those that occur, in the order of
    :data:`VERDICTS`), each a link to the label ``ref`` if given."""
    counts = pd.Series(list(verdicts), dtype=object).value_counts()
    return " ".join(
        f"{{bdg-ref-{BADGES[v]}}}`{v} {int(counts[v])} <{ref}>`"
        if ref
        else f"{{bdg-{BADGES[v]}}}`{v} {int(counts[v])}`"
        for v in VERDICTS
        if counts.get(v, 0)
    )


def key() -> str:
    """The key of the verdicts' badges: each badge beside what it means (:data:`MEANING`)."""
    return "\n".join(f"- {badge(v)} {MEANING[v]}" for v in VERDICTS)


def headline(found: pd.DataFrame) -> str:
    """What the report found (Markdown, the first lines of the book's first page): the verdicts
    of every claim counted as badges, then one line per chapter with its counts (linking to its
    claims table) and, in the claims' own words, which were reproduced and which contradicted,
    each with its number as a badge that links to the claim's row."""
    n = found["chapter"].nunique()
    lines = [
        f"**{len(found)} claims of {n} {'studies' if n > 1 else 'study'}:** {counts_line(found['verdict'])}",
        "",
    ]
    for chapter, group in found.groupby("chapter", sort=True):
        texts, parts = list(group["claim"]), []
        for name in IN_WORDS:
            mine = [(i, r) for i, r in enumerate(group.itertuples()) if r.verdict == name]
            if mine:
                parts.append(
                    f"{name}: "
                    + "; ".join(
                        f"{in_sentence(texts, i)} {{bdg-link-{BADGES[name]}}}`{number(r.claim)} <{link(chapter, r.claim)}>`"
                        for i, r in mine
                    )
                )
        counted = counts_line(group["verdict"], label(chapter))
        lines.append(
            f"- **{{doc}}`{chapter}`** ({len(group)} claims) {counted}"
            + "".join(f". {p[0].upper() + p[1:]}" for p in parts)
            + "."
        )
    return "\n".join(lines)
