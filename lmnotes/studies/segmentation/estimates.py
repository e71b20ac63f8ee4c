"""The marginal over segmentations measured: chapter 03's estimates of Mielke (2019)'s
footnote 6 with the estimators of :mod:`.marginal`.

- :func:`exact_table`, :func:`exact_findings`: the guided estimate (3) and the constrained
  one against the exact sum (1) on words whose segmentations can be enumerated, with the
  coverage of the guided estimate's percentile interval (:func:`percentile_interval`);
- :func:`sentence_gaps`, :func:`gap_findings`, :func:`gap_shares`: the gap between the
  log-marginal and the canonical segmentation's log-probability on test sentences, with its
  certified lower bound (:meth:`.marginal.Draws.certified`);
- :func:`sweep_table`, :func:`sweep_findings`, :func:`sweep_figure`: the gap against the
  number of draws N (:func:`.marginal.sweep`);
- :func:`largest_gap`: the sentence with the largest gap and its most probable other
  segmentation drawn.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes.report import plots
from lmnotes.stats import units
from lmnotes.stats.inference import Estimate
from lmnotes.studies.segmentation import marginal
from lmnotes.studies.segmentation.cached import importance_sample
from lmnotes.studies.segmentation.family import fmt


def percentile_interval(
    d: marginal.Draws, i: int, k: int, n_samples: int, rng: np.random.Generator, n_boot: int
) -> tuple[float, float]:
    """The bootstrap percentile interval of string i's estimate (3), resampling the
    ``n_samples`` draws of run k ``n_boot`` times with ``rng``."""
    run = slice(k * n_samples, (k + 1) * n_samples)
    pick = rng.integers(0, n_samples, size=(n_boot, n_samples))
    boot = marginal.stratified(d.logw[i, run][pick], d.canonical[i, run][pick], d.log_canonical[i])
    return float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))


def exact_table(
    models: Mapping[str, object],
    words: Sequence[str],
    max_segmentations: int,
    n_samples: int,
    n_runs: int,
    rng: np.random.Generator,
    n_boot: int,
    seed: int,
    stay: float,
    explore: float,
) -> tuple[pd.DataFrame, list[str]]:
    """For each model (by name) and word with at most ``max_segmentations`` segmentations:
    log p(s*), the exact log-marginal (1), the guided estimate (3) from ``n_samples`` draws
    with its percentile interval, the constrained estimate, how many of ``n_runs``
    independent runs' intervals cover the exact value, and s*'s share of p(x). Also the words
    left out, with their number of segmentations.

    (10 parameters: the models, the words, and the chapter's parameters of the exact sum and of the
    guided proposal.)
    """
    rows, skipped = [], []
    for name, lm in models.items():
        for w in words:
            lat = marginal.lattices(lm, [w])[0]
            if lat.log_count() > np.log(max_segmentations):
                skipped.append(f"{w.strip()!r} for {name} ({np.exp(lat.log_count()):,.0f} segmentations)")
                continue
            exact, n = marginal.exact_logmarginal(lm, w, limit=max_segmentations)
            # n_runs independent runs of n_samples draws: the first is the one shown
            d = importance_sample(lm, [w], n_samples * n_runs, seed=seed, stay=stay, explore=explore)
            constrained = importance_sample(lm, [w], n_samples, seed=seed, stay=0.0, explore=0.0)
            intervals = [percentile_interval(d, 0, k, n_samples, rng, n_boot) for k in range(n_runs)]
            covered = sum(lo <= exact <= hi for lo, hi in intervals)
            canonical = d.log_canonical[0]
            guided = d.subset(slice(0, n_samples)).logmarginal()[0]
            rows.append(
                {
                    "model": name,
                    "string": repr(w),
                    "segmentations": n,
                    "log p(s*)": canonical,
                    "log p(x), exact": exact,
                    "guided (3)": Estimate(guided, *intervals[0]),
                    "constrained": constrained.plain()[0],
                    "runs covering": f"{covered} of {n_runs}",
                    "share of s*": np.exp(canonical - exact),
                    "_covered": covered,
                }
            )
    return pd.DataFrame(rows).set_index(["model", "string"]), skipped


def exact_findings(table: pd.DataFrame, skipped: Sequence[str], n_runs: int, max_segmentations: int) -> dict:
    """What the chapter says of :func:`exact_table`, by glue name: the words compared, the
    intervals' coverage (%), the median errors of both estimators (nats), how often the
    constrained one falls below log p(s*), s*'s least share (%), and the words left out."""

    def value_of(x):
        return getattr(x, "value", x)

    def err(col):
        return (table[col].map(value_of) - table["log p(x), exact"]).abs()

    coverage = table["_covered"].sum() / (n_runs * len(table))
    return {
        "n_exact": len(table),
        "coverage_pct": float(100 * coverage),
        "n_coverage_runs_used": n_runs,
        "err_guided": float(err("guided (3)").median()),
        "err_constrained": float(err("constrained").median()),
        "n_constrained_below": int((table["constrained"] < table["log p(s*)"]).sum()),
        "min_canonical_share": float(100 * table["share of s*"].min()),
        "coverage_sentence": (
            "That is far below the nominal 95 %: with few draws a heavy-tailed weight is often not "
            "drawn at all, and resampling the draws cannot show what they missed, so these intervals "
            "are too narrow, and so are the sentence-level intervals below, built the same way."
            if coverage < 0.85
            else "That is close to the nominal 95 %."
        ),
        "skipped_words": "; ".join(skipped) if skipped else "none",
        "max_segmentations_used": max_segmentations,
    }


def sentence_gaps(
    specs,
    test: Sequence[str],
    max_bytes: int,
    n_samples: int,
    seed: int,
    stay: float,
    explore: float,
    n_boot: int,
) -> tuple[dict, dict]:
    """The gap on test sentences for each ``(name, lm, sentences, draws)`` of ``specs``: that
    many sentences of at most ``max_bytes`` bytes drawn at random (independently of the
    draws), ``draws`` guided draws per sentence and ``n_samples`` constrained ones. Returns the
    rows of the gap table and, per model, its draws, texts, characters (EOS counted), gap
    (:func:`.marginal.gap`), canonical bits per character and model."""
    short = [i for i, s in enumerate(test) if len(s.encode()) <= max_bytes]
    pick_rng = np.random.default_rng([seed, 1])  # the sentences, independent of the draws
    gaps, runs = {}, {}
    for name, lm, n, n_draws in specs:
        pick = np.sort(pick_rng.choice(short, min(n, len(short)), replace=False))
        texts = [test[i] for i in pick]
        d = importance_sample(lm, texts, n_draws, seed=seed, stay=stay, explore=explore)
        constrained = importance_sample(lm, texts, n_samples, seed=seed, stay=0.0, explore=0.0)
        chars = np.array([len(t) + 1 for t in texts])
        g = marginal.gap(d, chars, n_resamples=n_boot, seed=seed)
        bpc_model = units.from_nats(-d.log_canonical.sum(), chars.sum(), "bits")
        certified = float(
            units.from_nats((d.certified() - d.log_canonical).sum(), chars.sum(), "bits")
        )  # a gain
        runs[name] = {"draws": d, "texts": texts, "chars": chars, "gap": g, "bpc": bpc_model, "lm": lm}
        gaps[name] = {
            "sentences": len(texts),
            "draws per sentence": n_draws,
            "bits / char (canonical)": bpc_model,
            "gap, bits / char": fmt(g.bits_per_char, 5),
            "gap / bits per char": g.bits_per_char.value / bpc_model,
            "interval's upper end / bits per char": g.bits_per_char.high / bpc_model,
            "certified lower bound / bits per char": certified / bpc_model,
            "gap by the constrained proposal": (constrained.plain() - d.log_canonical).sum()
            / chars.sum()
            / np.log(2),
            "draws off s*": 1 - d.canonical.mean(),
            "largest gap in one sentence (nats)": float(g.per_string.max()),
            "_estimate": g.bits_per_char,
        }
    return gaps, runs


def share(gap_table: pd.DataFrame, m: str, col: str) -> float:
    """A share of the gap table, in %."""
    return float(100 * gap_table.loc[m, col])


def gap_findings(gap_table: pd.DataFrame, self_name: str, pre_name: str, n_sweep_max: int) -> dict:
    """What the chapter says of the gap table, by glue name: the sentences of each model, what
    the constrained proposal reports, and the shares (%) of the gap, of its certified bound
    and of its interval's upper end."""
    negative = [m for m, v in gap_table["gap by the constrained proposal"].items() if v < 0]
    return {
        "n_marginal_used": int(gap_table["sentences"].iloc[0]),
        "n_marginal_pre_used": int(gap_table["sentences"].iloc[1]),
        "constrained_note": (
            f"a negative gap for {' and '.join(negative)}, impossible for a quantity that cannot fall below 0"
            if negative
            else "a gap of the same sign, with the spread of the table above"
        ),
        "gap_self_pct": share(gap_table, self_name, "gap / bits per char"),
        "gap_pre_pct": share(gap_table, pre_name, "gap / bits per char"),
        "cert_self_pct": share(gap_table, self_name, "certified lower bound / bits per char"),
        "cert_pre_pct": share(gap_table, pre_name, "certified lower bound / bits per char"),
        "upper_pre_pct": share(gap_table, pre_name, "interval's upper end / bits per char"),
        "n_sweep_max": n_sweep_max,
    }


#: The gap table's shares and their short names.
SHARES = {
    "gap / bits per char": "gap",
    "interval's upper end / bits per char": "upper end",
    "certified lower bound / bits per char": "certified bound",
    "gap by the constrained proposal": "constrained",
}


def gap_shares(gap_table: pd.DataFrame) -> pd.DataFrame:
    """The gap, its interval's upper end, its certified bound and the constrained proposal's
    gap as shares of the bits per character (%), the share of draws off s* (%), and the
    largest gap in one sentence (nats)."""
    as_pct = 100 * gap_table[list(SHARES)].astype(float).rename(columns=SHARES)
    as_pct["constrained"] /= gap_table["bits / char (canonical)"].astype(float)  # bits, not a share
    as_pct["draws off s*"] = 100 * gap_table["draws off s*"].astype(float)
    as_pct["largest gap (nats)"] = gap_table["largest gap in one sentence (nats)"]
    return as_pct


def sweep_table(run: Mapping, ns: Sequence[int]) -> pd.DataFrame:
    """:func:`.marginal.sweep` of one model's run as shares (%) of its bits per character."""
    sweep = marginal.sweep(run["draws"], run["chars"], ns)
    sweep_pct = sweep.drop(columns="runs").mul(100 / run["bpc"]).assign(runs=sweep["runs"])
    sweep_pct = sweep_pct[
        ["runs", "estimate, mean", "estimate, min", "estimate, max", "certified lower bound"]
    ]
    sweep_pct.columns = ["runs", "mean over runs", "lowest run", "highest run", "certified bound, first N"]
    return sweep_pct


def levelled_off(sweep_pct: pd.DataFrame) -> bool:
    """Whether an estimate has levelled off in N (a :func:`sweep_table`): the last doubling of
    N moved the mean estimate over runs by less than a tenth of it, up or down."""
    if len(sweep_pct) < 2:
        return False
    return bool(abs(sweep_pct.iloc[-1, 1] - sweep_pct.iloc[-2, 1]) < 0.1 * abs(sweep_pct.iloc[-1, 1]))


def sweep_findings(
    run: Mapping, sweep_pct: pd.DataFrame, ns: Sequence[int], self_gap_pct: float
) -> tuple[dict, bool]:
    """What the chapter says of the sweep, by glue name (the mean estimate at the least and the
    most draws, its last rise, whether it levelled off: the last doubling added less than a
    tenth; how many runs of the fewest draws fall below the certified bound of all the draws),
    and whether it levelled off."""
    rise = sweep_pct.iloc[-1, 1] - sweep_pct.iloc[-2, 1] if len(ns) > 1 else np.nan
    levelled = levelled_off(sweep_pct)
    out = {
        "sweep_first_n": ns[0],
        "sweep_first_mean": float(sweep_pct.iloc[0, 1]),
        "sweep_last_mean": float(sweep_pct.iloc[-1, 1]),
        "sweep_rise": float(rise),
        "sweep_levelled": (
            "has levelled off: the last doubling of N added less than a tenth of it"
            if levelled
            else "has not levelled off: the last doubling of N still added a tenth of it or more"
        ),
        "gap_self_trend": f"the estimate, {self_gap_pct:.2f} % at N = {max(ns)}, "
        + ("levelled off" if levelled else "still rising"),
    }
    # the runs of the smallest N against the certified bound of all the draws
    draws = run["draws"]
    first_runs = [
        (draws.subset(slice(k * ns[0], (k + 1) * ns[0])).logmarginal() - draws.log_canonical).sum()
        for k in range(max(ns) // ns[0])
    ]
    first_runs = 100 * units.from_nats(np.array(first_runs), run["chars"].sum(), "bits") / run["bpc"]
    n_first_below_cert = int((first_runs < sweep_pct.iloc[-1, 4]).sum())
    out |= {
        "n_first_below_cert": n_first_below_cert,
        "n_first_runs": len(first_runs),
        "first_runs_sentence": (
            "a single run at that size can understate the gap by more than the bias a bound could "
            "allow for, and its interval's upper end is no bound"
            if n_first_below_cert
            else "no run at that size fell below it"
        ),
    }
    return out, levelled


def sweep_figure(
    sweep_pct: pd.DataFrame, ns: Sequence[int], color: str, thresholds: Sequence[float], title: str
):
    """The sweep: mean estimate over runs with the lowest and highest run, the certified
    bound, and the thresholds of "negligible" (shares, drawn as %); the figure, closed."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.8))
    mean = sweep_pct.iloc[:, 1]
    ax.errorbar(
        ns,
        mean,
        yerr=[mean - sweep_pct.iloc[:, 2], sweep_pct.iloc[:, 3] - mean],
        marker="o",
        capsize=3,
        color=color,
        label="estimate (3): mean over runs, lowest to highest run",
    )
    ax.plot(
        ns,
        sweep_pct.iloc[:, 4],
        marker="s",
        ls="--",
        color=plots.HUMAN_COLOR,
        label="certified lower bound (first N draws)",
    )
    for t, style in zip(thresholds, (":", "-.")):
        ax.axhline(100 * t, color="grey", ls=style, lw=1, label=f"{100 * t:g} % threshold")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ns, [str(n) for n in ns])
    ax.set_xlabel("importance samples per sentence, N (log scale)")
    ax.set_ylabel("gap, % of bits per character")
    ax.set_title(f"The marginal's gain over s*: {title}")
    plots.figure_legend(fig, ax, ncol=2)
    plt.close(fig)
    return fig


def largest_gap(run: Mapping, lm) -> tuple[pd.DataFrame, dict]:
    """The sentence of ``run`` with the largest estimated gap: where its canonical
    segmentation and the most probable other one drawn differ, with their log p(s); and, by
    glue name, the sentence, its gap and certified gap (nats), how much more or less probable
    the other one is, the nats it adds on its own, log(1 + p(s)/p(s*)), as a share (%) of the
    gap, and the number of distinct other segmentations drawn."""
    d = run["draws"]
    top = int(np.argmax(run["gap"].per_string))
    alt_ids, alt_lp = d.best_alternative(top)
    canon_ids = lm.encode(run["texts"][top])
    shown_canon, shown_alt = marginal.segmentation_diff(lm, canon_ids, alt_ids)
    table = pd.DataFrame(
        {
            "where it differs": [repr(shown_canon), repr(shown_alt)],
            "log p(s)": [float(d.log_canonical[top]), alt_lp],
        },
        index=pd.Index(["canonical s*", "most probable other one drawn"], name="segmentation"),
    )
    delta = float(alt_lp - d.log_canonical[top])
    alt_nats = float(np.log1p(np.exp(alt_lp - d.log_canonical[top])))
    values = {
        "top_sentence": run["texts"][top],
        "top_gap": float(run["gap"].per_string[top]),
        "top_cert": float(d.certified()[top] - d.log_canonical[top]),
        "top_alt_delta": f"{abs(delta):.1f} nats {'more' if delta > 0 else 'less'} probable than",
        "top_alt_nats": alt_nats,
        "top_alt_share": 100 * alt_nats / float(run["gap"].per_string[top]),
        "top_n_distinct": len({t for t, c in zip(d.tokens[top], d.canonical[top]) if not c}),
    }
    return table, values
