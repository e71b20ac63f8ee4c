"""Does tokenization cause diversity? The word-level chapter's (05) answer to the open question
of Dudy & Bedrick (2020, §5): the Transformer family, one architecture with several
segmentations, compared at up to three training budgets (equal tokens; equal epochs, every
member trained again for as many passes over its stream, or only those that read fewer,
:func:`passes_short`; and equal quality: runs of as many passes stopped at a common
validation bits per byte, :func:`matched_target`) by the ratio T1/E₀[T1] of
:meth:`lmnotes.studies.words.wordstats.Resampler.coverage_ratio`, the share of the
type-blind expectation that a model's type coverage reaches. A difference of a member from
the reference member can be credited to segmentation only when it is resolved (its paired
interval excludes 0) at every budget.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes import stats
from lmnotes.report import cases as lmcases, plots
from lmnotes.studies.words import wordstats as WS
from lmnotes.studies.words.cached import word_predictions
from lmnotes.studies.words.labels import label, names

RATIO = "T1 / E₀[T1]"


def tokens_budget(spent: Mapping[str, dict]) -> str:
    """The name of the registered members' budget (``spent``: member ->
    :func:`lmnotes.models.budget.training_budget`): "equal tokens" where none stopped
    early (the `cpu` size's fixed updates), "early-stopped" where every one stopped at its
    best validation loss (the `gpu` size's patience), and "equal tokens, some stopped early"
    otherwise."""
    early = [b["stopped early"] for b in spent.values()]
    return (
        "early-stopped"
        if early and all(early)
        else "equal tokens, some stopped early"
        if any(early)
        else "equal tokens"
    )


def passes_short(spent: Mapping[tuple, dict], kind: str, passes: int) -> list[str]:
    """The members whose run at budget ``kind`` read fewer than ``passes`` passes over their
    training stream (``spent``'s epochs): those that must be trained again for every member
    to have read every training sentence at least that often."""
    return [n for (k, n), b in spent.items() if k == kind and b["epochs"] < passes]


def epochs_sentence(again: Sequence[str], passes: int, every: bool) -> str:
    """What the chapter trains besides the registered budget: ``again``, the members trained
    again for ``passes`` passes over their stream, every member (``every``: the view *equal
    epochs*) or those that had read fewer (:func:`passes_short`)."""
    if not passes:
        return "This run trains no member again, so it compares the family at one budget."
    times = f"{passes} pass{'es' if passes > 1 else ''}"
    if every:
        return (
            f"So the family is trained a second time, every member for {times} over its "
            "own stream, with the same network, optimiser, schedule shape and seed: now "
            "every member has read every training sentence equally often, and the number "
            "of updates differs instead (*equal epochs*)."
        )
    if not again:
        return f"Every member had read its stream at least {times} over, so none is trained again."
    return (
        f"So the members that read less than {times} over their stream ({names(again)}) "
        f"are trained again for {times}, with the same network, optimiser, schedule "
        "shape and seed: these runs set the equal-quality level below and are those "
        "members' points in that view. The others are not trained again at this "
        "profile, so no view compares the whole family at equal epochs (the `gpu` "
        "profile trains every member again, *equal epochs*)."
    )


def matched_target(spent: Mapping[tuple, dict], kinds: Sequence[str]) -> tuple[float, str, str] | None:
    """The common quality of the equal-quality view: each open-vocabulary member's best
    validation bits per byte over its runs at the budgets ``kinds``, the highest of them (a
    level every member passes on its way), the member it is of and the budget of that run.
    None where fewer than two members have an open vocabulary."""
    best: dict[str, tuple[float, str]] = {}
    for (k, n), b in spent.items():
        bits = b.get("valid bits per byte", np.nan)
        if k in kinds and not np.isnan(bits) and bits < best.get(n, (np.inf, k))[0]:
            best[n] = bits, k
    if len(best) < 2:
        return None
    worst = max(best, key=lambda n: best[n][0])
    return best[worst][0], worst, best[worst][1]


def matched_sentence(
    matched: tuple[float, str, str] | None,
    kind: str | None,
    every: int,
    spent: Mapping[tuple, dict] | None = None,
    closed: Sequence[str] = (),
    probes: Mapping[str, int] | None = None,
    passes: int = 1,
) -> str:
    """What the equal-quality view (``kind``) is, from :func:`matched_target`'s ``matched``
    (None: the view was not run): each member other than the one that sets the level is a
    run of the shortest schedule of its own, on a grid of ``every`` updates, whose annealed end
    reaches the level (:func:`lmnotes.models.budget.at_level`), found below the update at
    which a probe on the schedule of ``passes`` passes reached it (``probes``: member -> that
    update). It prints what each got (``spent`` at ``kind``: updates, the learning rate at
    its stop, the summed learning rate), the members that never came down to the level or
    ended past it by more than 0.01 bits per byte, and the ``closed``-vocabulary members left
    out."""
    if matched is None or kind is None:
        return (
            "This run trained no second budget with two open vocabularies, so it has no equal-quality view."
        )
    bits, worst, at = matched
    probes = probes or {}
    rows = {n: b for (k, n), b in (spent or {}).items() if k == kind}
    short = [n for n, b in rows.items() if b["valid bits per byte"] > bits + 0.005]
    past = [n for n, b in rows.items() if b["valid bits per byte"] < bits - 0.01]
    got = "; ".join(
        f"{label(n)} {b['steps']:,} updates ("
        + (
            "annealed to 0"
            if b["learning rate at stop"] == 0
            else f"learning rate {b['learning rate at stop']:.2f} of its peak at its stop"
        )
        + f", summed learning rate {b['Σ learning rate']:,.0f}"
        + (f"; its probe reached the level at update {probes[n]:,}" if n in probes else "")
        + ")"
        for n, b in rows.items()
    )
    run = f"its run of {passes} pass{'es' if passes > 1 else ''}" if "epochs" in at else f"its run at {at}"
    return (
        f"These budgets leave the members at unequal quality, so a further view, "
        f"*{kind}*, brings them to about the same validation bits per byte: "
        f"{bits:.2f} on the validation split, the best that {label(worst)} reaches (in "
        f"{run}, kept whole, its learning rate annealed to 0), the worst of "
        f"the open-vocabulary members' best. Every other open-vocabulary member is trained "
        f"again on a schedule of its own that ends there: a probe on the schedule of "
        f"{passes} pass{'es' if passes > 1 else ''}, evaluated every {every} updates, finds "
        "where the member reaches the level, and the member kept is the run of the "
        f"shortest schedule, on a grid of {every} updates, whose cosine decay reaches 0 at "
        "its end with the validation bits per byte at or below the level (its warm-up the "
        "same share of its updates). So every member is compared with annealed weights (the summed "
        "learning rate is the schedule's factor summed over the updates: updates at the peak rate)"
        + (f": {got}" if got else "")
        + (
            f"; {names(short)} never came down to it, and "
            f"{'keep their' if len(short) > 1 else 'keeps its'} whole pass"
            if short
            else ""
        )
        + (
            f"; {names(past)} ended more than 0.01 bits per byte better than the level (see the table's bpb), so a "
            f"difference from {'them' if len(past) > 1 else 'it'} is one of quality as well"
            if past
            else ""
        )
        + (
            f"; {names(closed)}, with a closed vocabulary, has no bits per byte of its own (it "
            "predicts <unk> instead of spelling a word) and is left out of it"
            if closed
            else ""
        )
        + "."
    )


def convergence_note(spent: Mapping[tuple, dict], budgets: Sequence[str]) -> str:
    """How far from convergence each budget's members were: those whose validation loss
    still fell at their last evaluation, and those stopped early by patience."""
    parts = []
    for kind in budgets:
        rows = {n: b for (k, n), b in spent.items() if k == kind}
        falling = [n for n, b in rows.items() if b["valid falling at the end"]]
        early = [n for n, b in rows.items() if b["stopped early"]]
        parts.append(
            f"at {kind}, the validation loss of {len(falling)} of the {len(rows)} "
            f"members ({names(falling)}) still fell at the last evaluation"
            + (f", and {names(early)} stopped early" if early else "")
        )
    return "; ".join(parts)[:1].upper() + "; ".join(parts)[1:] + "."


def wall_sentence(trained_at: Mapping[tuple, object]) -> str:
    """The wall time each model's training took on the machine that trained it
    (``train_seconds``), in minutes, by budget (``trained_at``: (budget, member) -> model;
    a model listed at an earlier budget is not repeated). It varies from machine to machine,
    so the book's check replaces each "N.N min of training" before comparing."""
    by_kind: dict[str, list[str]] = {}
    seen = set()
    for (kind, n), lm in trained_at.items():
        sec = getattr(lm, "train_seconds", None)
        if sec is None or id(lm) in seen:
            continue
        seen.add(id(lm))
        by_kind.setdefault(kind, []).append(f"{label(n)} {sec / 60:.1f} min of training")
    return (
        "Wall time, on the machine that trained the models (evaluations count too: a run "
        "stopped at a quality evaluates more often than a whole one): "
        + "; ".join(f"at {kind}, " + ", ".join(v) for kind, v in by_kind.items())
        + "."
    )


def diversity(t: pd.DataFrame, res: WS.Resampler) -> dict:
    """Top-1, T1 and T1/E₀[T1] of a prediction table on the paper's bins."""
    paper = t[t["bin"].isin(WS.PAPER_BINS)]
    return {
        "top-1": res.rate(t["hit1"].to_numpy(), t["article"]),
        "T1": res.coverage(paper["word"], paper["hit1"], paper["article"]),
        RATIO: res.coverage_ratio(paper["word"], paper["hit1"], paper["bin"], paper["article"]),
    }


def on_targets(
    lm,
    sentences: Sequence[str],
    ids: Sequence[int],
    article_of: np.ndarray,
    targets: pd.MultiIndex,
    counts: pd.Series,
    max_steps: int,
) -> pd.DataFrame:
    """A model's greedy whole-word predictions (no top-10 search) on the chapter's targets
    (``targets``: its (sentence, index) pairs), with each target's article, training count
    and frequency bin."""
    t = word_predictions(lm, sentences, [int(i) for i in ids], max_steps=max_steps, dfs_depth=1)
    t = t.assign(article=article_of[t["sentence"]])
    t = t.set_index(list(targets.names)).loc[targets].reset_index()
    t["count"] = counts.reindex(t["word"]).fillna(0).to_numpy()
    t["bin"] = WS.frequency_bin(t["count"]).to_numpy()
    return t


def budget_table(div: Mapping[tuple, dict], spent: Mapping[tuple, dict], ref: str) -> pd.DataFrame:
    """The family at each budget (``div``: {(budget, member): :func:`diversity`}): epochs,
    updates, best validation loss in nats per token and in bits per byte
    (``spent``: :func:`lmnotes.models.budget.training_budget`), the three measures, and the ratio's paired
    difference from ``ref`` at the same budget."""
    rows_tok = []
    for (kind, n), d in div.items():
        b = spent.get((kind, n), {})
        rows_tok.append(
            {
                "budget": kind,
                "model": label(n),
                "epochs": b.get("epochs", np.nan),
                "updates": b.get("steps", np.nan),
                "valid loss": b.get("valid loss, best", np.nan),
                "bpb": b.get("valid bits per byte", np.nan),
                **d,
                f"ratio − {label(ref)}": (stats.excess(d[RATIO], div[kind, ref][RATIO]) if n != ref else "—"),
            }
        )
    return pd.DataFrame(rows_tok).set_index(["budget", "model"])


def lower_higher(div: Mapping[tuple, dict], members: Sequence[str], kind: str, ref: str):
    """The members whose ratio lies below and above ``ref``'s at budget ``kind`` beyond the
    paired interval, and every member's paired difference."""
    d = {n: stats.excess(div[kind, n][RATIO], div[kind, ref][RATIO]) for n in members if n != ref}
    return ([n for n, e in d.items() if e.high < 0], [n for n, e in d.items() if e.low > 0], d)


def detectable(d: Mapping[str, stats.Estimate]) -> tuple[float, float] | None:
    """How far the unresolved paired differences ``d`` (member -> estimate against the
    reference) reach: the widest and the narrowest of them, each as the largest bound of its
    interval in absolute value (a difference beyond it is excluded either way). None where
    every difference is resolved."""
    reach = [max(-e.low, e.high) for e in d.values() if e.low <= 0 <= e.high]
    return (max(reach), min(reach)) if reach else None


def quality_range(spent: Mapping[tuple, dict], kind: str) -> str:
    """The validation bits per byte of the open-vocabulary members trained at budget
    ``kind``, as a range (a closed vocabulary has none)."""
    v = [
        b["valid bits per byte"]
        for (k, _), b in spent.items()
        if k == kind and not np.isnan(b.get("valid bits per byte", np.nan))
    ]
    return f"{min(v):.2f} to {max(v):.2f}" if v else "not recorded"


def tok_sentence(
    div: Mapping[tuple, dict],
    budgets_of: Mapping[str, Sequence[str]],
    ref: str,
    unk_of: Mapping[str, float],
    unk_share: Mapping[str, float],
    null_df: pd.DataFrame,
    spent: Mapping[tuple, dict] | None = None,
) -> str:
    """The chapter's reading of the family's ratios: their range, the members resolved
    against ``ref`` at each budget, the least difference each budget could have detected
    (:func:`detectable`) and the members' validation bits per byte there (``spent``), which
    of them in the same direction at every budget (creditable to segmentation), and the
    cautions (``unk_of``: the word
    members' share of ``<unk>`` predictions; ``unk_share`` and the ratio in ``null_df``:
    those of the models outside the family)."""
    ratio = null_df.set_index("model")[RATIO]
    parts = []
    found = {}
    for kind in budgets_of:
        lo, hi, d = lower_higher(div, budgets_of[kind], kind, ref)
        found[kind] = set(lo), set(hi)
        least = detectable(d)
        open_ = [n for n, e in d.items() if e.low <= 0 <= e.high]
        parts.append(
            f"at {kind}, the ratio is lower than {label(ref)}'s "
            f"for {names(lo)} and higher for {names(hi)} beyond the "
            f"intervals"
            + (
                (
                    f" ({label(open_[0])}'s interval lies within ±{least[0]:.1f} points"
                    if len(open_) == 1
                    else f" (the others' intervals lie within ±{least[0]:.1f} "
                    f"points, the narrowest within ±{least[1]:.1f}"
                )
                if least is not None
                else " (every difference resolved"
            )
            + (
                f"; validation bits per byte of the open vocabularies {quality_range(spent, kind)})"
                if spent
                else ")"
            )
        )
    kinds = list(budgets_of)
    # creditable: lower at every budget, or higher at every budget
    kept = set.intersection(*(found[k][0] for k in kinds)) | set.intersection(*(found[k][1] for k in kinds))
    # resolved at every budget, but lower at one and higher at another: the order turns
    turned = set.intersection(*(found[k][0] | found[k][1] for k in kinds)) - kept if len(kinds) > 1 else set()
    gone = set.union(*(found[k][0] | found[k][1] for k in kinds)) - kept - turned
    unmatched = set(budgets_of[kinds[0]]) - set.intersection(*(set(budgets_of[k]) for k in kinds)) - {ref}
    rng_ratio = [div[k, n][RATIO].value for k in kinds for n in budgets_of[k]]
    both = "both budgets" if len(kinds) == 2 else "every budget"
    return (
        f"Every member covers far fewer types than a type-blind model with its "
        f"hit rates would: between {min(rng_ratio):.0f} % and "
        f"{max(rng_ratio):.0f} % of them. "
        + "; ".join(parts)[:1].upper()
        + "; ".join(parts)[1:]
        + ". "
        + (
            f"Only the difference of {names(sorted(kept))} is resolved at "
            f"{both}, so only it can be credited to segmentation "
            "(with the vocabulary's other consequences, above)"
            if kept and len(kinds) > 1
            else f"No difference is resolved in the same direction at {both}"
            if len(kinds) > 1
            else "The family was compared at one budget only"
        )
        + (
            f"; the differences of {names(sorted(turned))}, resolved at {both} but in "
            "opposite directions (the members' order turns with the budget), cannot be credited "
            "to segmentation"
            if turned
            else ""
        )
        + (
            f"; the differences of {names(sorted(gone))}, resolved at "
            f"{'one budget' if len(kinds) == 2 else 'some budgets'} only, "
            "cannot be credited to segmentation"
            if gone
            else ""
        )
        + (
            f"; {names(sorted(unmatched))} cannot be compared at equal quality "
            "(a closed vocabulary has no bits per byte), so nothing can be credited to it"
            if unmatched
            else ""
        )
        + ". Two cautions: a member whose hits all fall in the most frequent "
        "bin has a ratio over that bin's few types only (its interval is then "
        "narrow for want of types, not for precision), and "
        + "; ".join(f"{label(n)} predicts `<unk>` at {unk_of[n]:.1%} of the positions" for n in unk_of)
        + ". "
        + "".join(
            f"{label(n)}, outside the family, reaches "
            f"{ratio[n].value:.0f} % [{ratio[n].low:.0f}, "
            f"{ratio[n].high:.0f}], but it is a count model fitted to "
            f"its training text to the end, predicts `<unk>` at "
            f"{unk_share[n]:.1%} of the positions, and is compared with "
            f"networks trained for a few hundred updates: no evidence "
            f"that architecture matters more than segmentation. "
            for n in unk_share
            if n in ratio
        )
    )


def plot_plane(div: Mapping[tuple, dict], markers: Mapping[str, str], color):
    """The accuracy–diversity plane: top-1 against T1 with T1's interval, each budget with
    its marker (``markers``: budget -> marker), filled at the first budget and open at the
    others (``color`` names a member's colour). Returns the figure."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN * 0.6, 3.2))
    first_kind = next(iter(markers))
    for (kind, n), d in div.items():
        e, first = d["T1"], kind == first_kind
        ax.errorbar(
            d["top-1"].value,
            e.value,
            yerr=[[e.value - e.low], [e.high - e.value]],
            marker=markers[kind],
            color=color(n),
            mfc=None if first else "white",
            label=label(n) if first else None,
        )
    ax.set_xlabel("top-1 accuracy (%)")
    ax.set_ylabel("type coverage T1 (%)")
    ax.legend(fontsize="small")
    return fig


def at_equal_tokens(
    table1: pd.DataFrame, null_df: pd.DataFrame, family: Sequence[str], kind: str = "equal tokens"
) -> dict:
    """The family's measures at its registered budget ``kind``, from the chapter's Table 1
    (top-1, T1) and its coverage-null table (the ratio, by ``model``): {(kind, member):
    measures}."""
    ratio = null_df.set_index("model")[RATIO]
    return {
        (kind, n): {"top-1": table1.loc[n, "top-1"], "T1": table1.loc[n, "T1"], RATIO: ratio[n]}
        for n in family
    }


def unk_shares(evaluated: Mapping[str, pd.DataFrame], models: Sequence[str]) -> dict[str, float]:
    """The share of each model's predictions that are ``<unk>`` (the models of ``models``
    that ``evaluated`` holds)."""
    return {n: float((evaluated[n]["pred"] == "<unk>").mean()) for n in models if n in evaluated}


def epochs_text(spent: Mapping[tuple, dict], member: str, kind: str = "equal tokens") -> str:
    """The passes over the training split that ``member`` made at budget ``kind``, as the
    chapter prints them ("0.25"), or "—" where its training was not recorded."""
    return f"{spent[kind, member]['epochs']:.2f}" if (kind, member) in spent else "—"


def coverage_null_table(
    evaluated: Mapping[str, pd.DataFrame],
    models: Sequence[str],
    res: WS.Resampler,
    n_permutations: int,
    seed: int,
) -> pd.DataFrame:
    """Type coverage against the type-blind null on the paper's bins, a row per model: top-1,
    T1, its expectation E₀[T1] (:func:`WS.expected_coverage`), the permutation null's mean and
    p-value (:func:`WS.coverage_null`, seeded ``seed`` + the model's position) and the ratio
    T1/E₀[T1] with its interval."""
    null_rows = []
    for i, name in enumerate(models):
        t = evaluated[name]
        t = t[t["bin"].isin(WS.PAPER_BINS)]
        obs, mean0, p = WS.coverage_null(t["word"], t["hit1"], t["bin"], n_permutations, seed + i)
        null_rows.append(
            {
                "model": name,
                "top-1 (paper's bins)": 100 * t["hit1"].mean(),
                "T1": obs,
                "E₀[T1]": WS.expected_coverage(t["word"], t["hit1"], t["bin"]),
                "null mean": mean0,
                "p": p,
                RATIO: res.coverage_ratio(t["word"], t["hit1"], t["bin"], t["article"]),
            }
        )
    return pd.DataFrame(null_rows)


def size_comparison(
    member: str, this: dict, other: dict, lm_this, lm_other, this_is_larger: bool
) -> tuple[dict, bool | None]:
    """One member trained at both sizes (§5's hypothesis): a row with both parameter counts,
    both ratios and the larger minus the smaller (paired), and the case that the larger is
    more diverse (:func:`lmnotes.report.cases.side`). ``this`` and ``other`` are the
    member's :func:`diversity` at the chapter's size and at the other."""
    big, small = (this, other) if this_is_larger else (other, this)
    diff = stats.excess(big[RATIO], small[RATIO])
    larger, smaller = (lm_this, lm_other) if this_is_larger else (lm_other, lm_this)
    return {
        "model": label(member),
        "parameters, larger": larger.n_parameters,
        "parameters, smaller": smaller.n_parameters,
        f"{RATIO}, larger": big[RATIO],
        f"{RATIO}, smaller": small[RATIO],
        "difference": diff,
    }, lmcases.side("above", diff)
