"""The temperature of the language (LeBrun, Sordoni & O'Donnell 2022, Fig. 5, claim 11: lower-
entropy languages suffer more), as the distortion chapter (06) measures it: L read at several
temperatures T, the main learner trained on each with equal training tokens, once per seed,
all kept at the end of one schedule annealed to 0, as long as every one still improves at
its end (:func:`lmnotes.studies.distortion.schedule.anneal_together`): equal updates, tokens
and summed learning rate, so that no comparison follows one learner's longer training; and
compared per token (which
removes length) and at equal log p_L (the paper's comparison, where a colder language's
sequences are longer).
"""

from __future__ import annotations

from functools import partial

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from lmnotes.report import cases as lmcases, plots
from lmnotes.report.glue import Prose
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion import schedule as SC
from lmnotes.studies.distortion.error import by_bin
from lmnotes.studies.distortion.resample import ci, est, num


def draws(
    L, lang, train, valid, test, temperatures, n_train: int, n_valid: int, n_test: int, seed: int = 0
) -> dict:
    """T -> (the language at T, training, validation and test sequences): the chapter's own
    draw at its temperature, a fresh draw of L at every other.

    (10 parameters: the chapter's language and splits, the temperatures and split sizes (its
    parameters) and the seed.)
    """
    t_draws = {}
    for T in temperatures:
        if T == lang.temperature:
            t_draws[T] = (lang, train.take(0, n_train), valid, test.take(0, n_test))
        else:
            lg = LG.Language(L, T, max_tokens=lang.max_tokens)
            d = lg.sample(n_train + n_valid + n_test, seed=seed)
            t_draws[T] = (
                lg,
                d.take(0, n_train),
                d.take(n_train, n_train + n_valid),
                d.take(n_train + n_valid, len(d)),
            )
    return t_draws


def token_budget(t_draws: dict) -> int:
    """Equal training tokens at every temperature (training packs tokens into fixed blocks,
    so equal tokens are equal updates): the fewest any language's training set holds."""
    return min(int(tr.lengths.sum()) for _, tr, _, _ in t_draws.values())


def per_token(boot, e: np.ndarray, lengths: np.ndarray, n_boot: int) -> tuple:
    """The error per token of sequences with errors ``e``: the summed error over their tokens,
    and ``n_boot`` replicates resampling the sequences (from ``boot.rng``)."""
    idx = boot.rng.integers(len(e), size=(n_boot, len(e)))
    return e.sum() / lengths.sum(), e[idx].sum(1) / lengths[idx].sum(1)


def learn_all(
    boot,
    t_draws: dict,
    t_budget: int,
    main: str,
    epochs: int,
    config,
    seeds,
    main_tokens: int,
    patience: int,
    device: str = "cpu",
    n_boot: int = 2000,
):
    """The main learner trained on every language (``t_budget`` tokens) with every seed: a
    probe on the main learner's schedule (as many updates as ``epochs`` passes over its
    ``main_tokens`` training tokens, :func:`SC.same_updates`) stopped early (no better
    validation loss for ``patience`` passes), then the learners kept, trained again on one
    schedule for all annealed to 0 (:func:`SC.anneal_together`).
    Returns the table of the languages, each test sequence's (log p_L, error averaged over
    seeds, length), and by (T, seed) the error per token (value and ``n_boot`` replicates
    from ``boot.rng``), the share underestimated (from ``boot``), what the kept learner's
    training got (:func:`SC.summary`) and what its probe's got; last, by T, each seed's
    errors on the test sequences (seeds × sequences).

    (11 parameters: the bootstrap, the draws and the chapter's training parameters, passed through.)
    """
    temp_rows, temp_err, per_tok, t_share, got, probes, seed_err = [], {}, {}, {}, {}, {}, {}
    passes = SC.same_updates(epochs, t_budget / main_tokens)
    learns = {
        (T, s): partial(LG.learn, lg, main, tr.up_to_tokens(t_budget), va, seed=s, tag=f"T{T}", device=device)
        for T, (lg, tr, va, _) in t_draws.items()
        for s in seeds
    }
    kept = SC.anneal_together(
        learns, {k: learn(passes, config, patience=patience) for k, learn in learns.items()}, passes, config
    )
    for T, (lg, tr, _, te) in t_draws.items():
        tr = tr.up_to_tokens(t_budget)
        errs = []
        for s in seeds:
            m, got[T, s], probes[T, s] = kept[T, s]
            e = D.estimation_error(LG.model_logprob(m, te.ids), te.logp)
            errs.append(e)
            per_tok[T, s] = per_token(boot, e, te.lengths, n_boot)
            t_share[T, s] = boot.mean_ci(e < 0)
        # the seeds' mean error on each test sequence
        temp_err[T] = (te.logp, np.mean(errs, 0), te.lengths)
        seed_err[T] = np.array(errs)
        by_seed = [per_tok[T, s][0] for s in seeds]
        temp_rows.append(
            {
                "T": f"{T:.2f}",
                "training sequences": len(tr),
                "training tokens": int(tr.lengths.sum()),
                "entropy rate": -te.logp.mean() / te.lengths.mean(),
                "tokens per sequence": te.lengths.mean(),
                "unfinished": f"{1 - np.exp(lg.log_finished):.2%}",
                "mean error per sequence": ci(boot.mean_ci(temp_err[T][1])),
                "seed spread": max(by_seed) - min(by_seed),
            }
        )
    return pd.DataFrame(temp_rows), temp_err, per_tok, t_share, got, probes, seed_err


def by_seed_table(per_tok: dict, t_share: dict, got: dict, probes: dict, main_row: dict) -> pd.DataFrame:
    """By temperature and seed, where its early-stopped probe peaked (``probes``) and what the
    kept learner's training got (``got``, :func:`SC.summary`: the update kept of those
    planned, the summed learning-rate factor up to it, the learning rate there, validation
    loss), its error per token and the share underestimated; ``main_row``, the main
    learner's, last (no probe)."""

    def row(T, s, g, tok, sh, probe=None):
        return {
            "T": T,
            "seed": s,
            "probe's best update": f"{probe['kept update']} of {probe['updates planned']}" if probe else "–",
            "kept update": f"{g['kept update']} of {g['updates planned']}",
            "Σ learning rate": g["Σ learning rate"],
            "learning rate kept": g["learning rate kept"],
            "valid loss": g["valid loss"],
            "error per token": ci(tok),
            "share underestimated": ci(sh),
        }

    return pd.DataFrame(
        [row(f"{T:.2f}", s, got[T, s], est(*per_tok[T, s]), t_share[T, s], probes[T, s]) for T, s in got]
        + [row(**main_row)]
    )


def colder_minus_warmer(per_tok: dict, temperatures, seeds) -> dict:
    """(T, T′, seed) -> the error per token at T minus at the next warmer T′, per seed
    (independent samples): below zero, the colder language is estimated worse."""
    ts = sorted(temperatures)
    return {
        (a, b, s): est(per_tok[a, s][0] - per_tok[b, s][0], per_tok[a, s][1] - per_tok[b, s][1])
        for a, b in zip(ts, ts[1:])
        for s in seeds
    }


def per_sequence_text(temp_err: dict, temperatures) -> str:
    """The sentence on the mean error per sequence by temperature (the paper's unit)."""
    ts = sorted(temperatures)
    seq_means = {T: temp_err[T][1].mean() for T in ts}
    best_t = max(seq_means, key=seq_means.get)  # the least negative
    return (
        "the mean error is "
        + ", ".join(f"{num(v)} at T = {T}" for T, v in seq_means.items())
        + f" nats: the "
        f"language at T = {best_t} is estimated best; its sequences are "
        + ("the shortest." if best_t == min(ts) else "not the shortest.")
    )


def compare_bins(
    boot, temp_err: dict, lo_t: float, hi_t: float, n_boot: int, seed_err: dict | None = None
) -> pd.DataFrame:
    """The error at ``lo_t`` minus at ``hi_t`` in 10 equal-width bins of log p_L where both
    languages reach, for bins with more than 10 sequences of each, with the mean lengths and a
    bootstrap of the two (independent) means from ``boot``. With ``seed_err`` (T -> each
    seed's errors, seeds × sequences), the interval spans those of the seeds' differences,
    the learners at ``lo_t`` and ``hi_t`` of one seed against each other (as
    :meth:`lmnotes.report.cases.Case.across` spans runs): a bin is decided only where every
    seed decides it."""
    overlap = (
        max(temp_err[lo_t][0].min(), temp_err[hi_t][0].min()),
        min(temp_err[lo_t][0].max(), temp_err[hi_t][0].max()),
    )
    edges = np.linspace(*overlap, 11)
    t_cmp = []
    # each run's errors at lo_t and hi_t: the seeds' means, or every seed's own
    runs = (
        [(temp_err[lo_t][1], temp_err[hi_t][1])]
        if seed_err is None
        else list(zip(seed_err[lo_t], seed_err[hi_t]))
    )
    for a, b in zip(edges, edges[1:]):
        inside = [(temp_err[T][0] >= a) & (temp_err[T][0] < b) for T in (lo_t, hi_t)]
        parts = [temp_err[T][1][m] for T, m in zip((lo_t, hi_t), inside)]
        lens = [temp_err[T][2][m].mean() for T, m in zip((lo_t, hi_t), inside)]
        if min(map(len, parts)) > 10:
            ends = [
                np.quantile(
                    boot.means(lo[inside[0]], n_boot) - boot.means(hi[inside[1]], n_boot), [0.025, 0.975]
                )
                for lo, hi in runs
            ]
            t_cmp.append(
                {
                    "log p_L from": a,
                    "to": b,
                    f"n (T={lo_t})": len(parts[0]),
                    f"n (T={hi_t})": len(parts[1]),
                    f"tokens (T={lo_t})": lens[0],
                    f"tokens (T={hi_t})": lens[1],
                    "difference": parts[0].mean() - parts[1].mean(),
                    "low": min(e[0] for e in ends),
                    "high": max(e[1] for e in ends),
                }
            )
    columns = [
        "log p_L from",
        "to",
        f"n (T={lo_t})",
        f"n (T={hi_t})",
        f"tokens (T={lo_t})",
        f"tokens (T={hi_t})",
        "difference",
        "low",
        "high",
    ]
    return pd.DataFrame(t_cmp, columns=columns)  # no common bin with enough sequences: no rows


def plot(temp_err: dict, temperatures, n_bins: int, n_boot: int, seed: int = 0):
    """Fig. 5: the mean error (seeds averaged) by equal-width bin of log p_L, one curve per
    temperature, with bootstrap bands."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.2))
    palette = sns.color_palette("flare", len(temperatures))
    for shade, T in zip(palette, temperatures):
        x, e, _ = temp_err[T]
        c = by_bin(e, D.equal_width_bins(x, n_bins), x, n_boot=n_boot, seed=seed)
        ax.plot(c["log p_L"], c["mean"], marker=".", color=shade, label=f"T = {T}")
        ax.fill_between(c["log p_L"], c["low"], c["high"], color=shade, alpha=0.2)
    ax.axhline(0, color=plots.REFERENCE_COLOR, lw=1)
    ax.set(xlabel="log p_L(x) (bin mean)", ylabel="mean error (nats)")
    ax.legend()
    return fig


def colder_text(colder: dict) -> str:
    """The per-token differences of :func:`colder_minus_warmer`, for prose, and in how many
    the colder language suffers more or less beyond their intervals."""
    worse = [lmcases.side("below", c) for c in colder.values()]
    return "; ".join(f"T = {a} − T = {b}, seed {s}: {ci(c)}" for (a, b, s), c in colder.items()) + (
        f"; beyond their intervals the colder language suffers more in {worse.count(True)} and less in "
        f"{worse.count(False)} of the {len(worse)}"
    )


def facts(colder: dict, temps: pd.DataFrame, temp_err: dict, temperatures, patience: int) -> dict:
    """What the chapter states about the per-token comparison, by name, in the order it glues
    them: the learners' ``patience``, the differences, the largest seed spread, the largest
    difference and its ratio to that spread, and the per-sequence sentence (``t_per_seq``,
    Markdown)."""
    t_maxdiff = max(abs(c.value) for c in colder.values())
    return {
        "t_patience": patience,
        "colder": colder_text(colder),
        "t_spread": num(temps["seed spread"].max(), 2),
        "t_maxdiff": num(t_maxdiff, 2),
        "t_ratio": f"{t_maxdiff / temps['seed spread'].max():.1f}",
        "t_per_seq": Prose(per_sequence_text(temp_err, temperatures)),
    }


def bin_facts(t_cmp: pd.DataFrame, lo_t: float) -> dict:
    """In how many common bins the coldest language is worse (of all) and better, and its T."""
    return {
        "t_worse": f"{int((t_cmp['high'] < 0).sum())} of {len(t_cmp)}",
        "t_better": int((t_cmp["low"] > 0).sum()),
        "lo_t": lo_t,
    }
