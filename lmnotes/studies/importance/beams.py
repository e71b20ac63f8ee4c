"""Beam marginalisation on the switch-LM (the paper's Table 2): the perplexity bounds from
the k paths a beam search under the proposal finds and from the exact k best paths (list
Viterbi, :func:`lmnotes.studies.importance.latent.kbest`), and what decides how tight they
are: the sentence's length against the posterior's entropy H(z | x) (a regression), and the
share of p(x) the beam holds by length. Importance-sampling chapter (04).

A sum of p(x, z) over a subset of the paths is a certain lower bound on p(x), so its
perplexity a certain upper bound.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from lmnotes import stats
from lmnotes.report import cases as lmcases
from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import switch_runs as SR
from lmnotes.report.glue import Prose
from lmnotes.studies.importance.summaries import fmt

BINS = [0, 10, 20, 40, np.inf]
BIN_LABELS = ["≤ 10", "11–20", "21–40", "> 40"]


def beam_bounds(
    switch: Mapping,
    em,
    props: Mapping,
    logp: Mapping,
    beam_sizes: Sequence[int],
    ppl_of: Callable,
    n_tokens: float,
) -> tuple[dict, dict, dict]:
    """For each model and k of ``beam_sizes``: the perplexity of the beam under peek 1 and of
    the exact k best paths (rows ``k = …``, columns ``beam under q, m`` and ``exact k best,
    m``), the share of p(x) per sentence the beam holds (``share[(m, k)]``) and the k best
    paths' log p(x, z) (``best_paths[(m, k)]``)."""
    T = n_tokens
    beam_rows, share, best_paths = {}, {}, {}
    for m, s in switch.items():
        for k in beam_sizes:
            found = L.beam(s, em, props[m]["peek 1"], k)
            best = best_paths[m, k] = L.kbest(s, em, k)
            beam_rows[f"k = {k}"] = beam_rows.get(f"k = {k}", {})
            beam_rows[f"k = {k}"][f"beam under q, {m}"] = ppl_of(
                m, (logsumexp(found, axis=1) - logp[m]).sum(), T
            )
            beam_rows[f"k = {k}"][f"exact k best, {m}"] = ppl_of(
                m, (logsumexp(best, axis=1) - logp[m]).sum(), T
            )
            share[m, k] = np.exp(logsumexp(found, axis=1) - logp[m])
    return beam_rows, share, best_paths


def beam_table(
    beam_rows: Mapping, models: Sequence[str], runs: Mapping, ppl_of: Callable, n_tokens: float, k_runs: int
) -> pd.DataFrame:
    """The bounds of :func:`beam_bounds` as a table, with instance-level importance sampling
    (peek 1, the mean run) and the exact perplexity as the last rows."""
    T = n_tokens
    table = pd.DataFrame(beam_rows).T
    for m in models:
        table.loc["importance sampling, K = %d" % k_runs, [f"beam under q, {m}", f"exact k best, {m}"]] = (
            ppl_of(m, runs[m, "peek 1"]["instance"].mean(), T)
        )
        table.loc["exact (all paths)", [f"beam under q, {m}", f"exact k best, {m}"]] = ppl_of(m, 0.0, T)
    table.index.name = "paths summed"
    return table


def excess_regression(
    share: Mapping,
    props: Mapping,
    models: Sequence[str],
    lengths: np.ndarray,
    k_top: int,
    n_boot: int,
    seed: int,
) -> pd.DataFrame:
    """The beam's excess −log(share of p(x)) per sentence regressed on the length and the
    exact posterior entropy H(z | x) together (:func:`lmnotes.stats.bootstrap_ols`, sentences
    resampled): coefficient and partial R² with their intervals, by (model, term)."""
    entropy = {m: L.entropy(props[m][SR.EXACT]) for m in models}
    reg_rows = []
    for m in models:
        fit = stats.bootstrap_ols(
            -np.log(share[m, k_top]), {"tokens": lengths, "H(z | x)": entropy[m]}, n_boot=n_boot, seed=seed
        ).set_index("term")
        for term in ("tokens", "H(z | x)"):
            r = fit.loc[term]
            reg_rows.append(
                {
                    "model": m,
                    "term": term,
                    "coefficient (nats per unit)": stats.Estimate(r["coefficient"], r["low"], r["high"]),
                    "partial R²": stats.Estimate(r["partial R²"], r["R² low"], r["R² high"]),
                }
            )
    return pd.DataFrame(reg_rows).set_index(["model", "term"])


def length_shares(
    share: Mapping,
    models: Sequence[str],
    lengths: np.ndarray,
    article: Sequence,
    k_top: int,
    n_boot: int,
    seed: int,
) -> tuple[pd.DataFrame, dict]:
    """The mean share of p(x) on the beam's ``k_top`` paths by length bin (:data:`BINS`) for
    the two models (fitted, sticky, in that order) and their difference, in %, with 95%
    intervals over test articles; and per model the shortest bin minus the longest."""
    length_bin = pd.cut(lengths, BINS, labels=BIN_LABELS)
    rng = np.random.default_rng(seed)
    W = stats.bootstrap_weights(len(lengths), n_boot, rng, groups=article)
    G = stats.n_clusters(article)  # the small-cluster reference of its intervals

    def bin_share(x, b):
        """The mean share in length bin b, with its replicates over test articles."""
        inb = np.asarray(length_bin == b, dtype=float)
        return x[inb > 0].mean(), (W @ (x * inb)) / np.maximum(W @ inb, 1)

    share_rows = {}
    for b in BIN_LABELS:
        (f, f_reps), (k, k_reps) = (bin_share(share[m, k_top], b) for m in models)
        share_rows[b] = {
            "fitted": stats.interval(100 * f, 100 * f_reps, clusters=G),
            "sticky": stats.interval(100 * k, 100 * k_reps, clusters=G),
            "sticky − fitted": stats.interval(100 * (k - f), 100 * (k_reps - f_reps), clusters=G),
        }
    share_table = pd.DataFrame(share_rows).T
    share_table.index.name = "tokens in the sentence"
    short_long = {}
    for m in models:
        (a, a_reps), (b, b_reps) = (
            bin_share(share[m, k_top], lab) for lab in (BIN_LABELS[0], BIN_LABELS[-1])
        )
        short_long[m] = stats.interval(100 * (a - b), 100 * (a_reps - b_reps), clusters=G)
    return share_table, short_long


def direction(e, what: str) -> str:
    """How the excess moves with one regressor, from its coefficient's interval."""
    return {
        True: f"grows with {what}",
        False: f"falls with {what}",
        None: f"does not move detectably with {what}",
    }[lmcases.side("above", e)]


def beam_values(
    beam_table: pd.DataFrame,
    reg_table: pd.DataFrame,
    share_table: pd.DataFrame,
    short_long: Mapping,
    models: Sequence[str],
    ppl_of: Callable,
    n_tokens: float,
    k_top: int,
) -> tuple[dict, list, dict]:
    """Claim 15's cases (per model: the beam holds more of p(x) on short sentences than on
    long ones, beyond the interval), the sticky minus fitted share per length bin, and the
    sentences and numbers the chapter quotes, by name, in order."""
    T = n_tokens
    values = {"k_top": k_top}
    excess_pct = {}
    for m in models:
        for kind, col in [("beam", "beam under q"), ("kbest", "exact k best")]:
            excess_pct[kind, m] = float(
                100 * (beam_table.loc[f"k = {k_top}", f"{col}, {m}"] / ppl_of(m, 0.0, T) - 1)
            )
    values["beam_gap_fitted"] = excess_pct["beam", "fitted"]
    values["kbest_gap_fitted"] = excess_pct["kbest", "fitted"]
    values["beam_gap_sticky"] = excess_pct["beam", "sticky"]
    values["kbest_gap_sticky"] = excess_pct["kbest", "sticky"]
    values["search_loss_sentence"] = Prose(
        " and ".join(f"{excess_pct['beam', m] / excess_pct['kbest', m]:.1f} times ({m})" for m in models)
    )
    length_cases = {m: lmcases.side("above", short_long[m]) for m in models}
    equal_size = [share_table.loc[b, "sticky − fitted"] for b in BIN_LABELS]

    def coef(m, term):
        return reg_table.loc[(m, term), "coefficient (nats per unit)"]

    values["reg_sentence"] = Prose(
        "; ".join(
            f"on the {m} model it {direction(coef(m, 'tokens'), 'the length')} "
            f"({fmt(coef(m, 'tokens'), 2)} nats per token) and "
            f"{direction(coef(m, 'H(z | x)'), 'the entropy')} "
            f"({fmt(coef(m, 'H(z | x)'), 2)} per nat)"
            for m in models
        )
    )
    values["n_bins_tighter"] = sum(lmcases.side("above", e) is True for e in equal_size)
    values["n_length_bins"] = len(equal_size)
    values["short_long_sentence"] = Prose("; ".join(f"{m} {fmt(short_long[m], 2)} points" for m in models))
    size_counts = all(c is True for c in length_cases.values())
    values["beam_finding"] = Prose(
        (
            "the bound loosens with the length within each model, as the paper's explanation has it, "
            "but at equal length the concentration of the posterior decides how loose: the size of "
            "the space matters through the spread of the posterior over it"
        )
        if size_counts
        else "the length alone does not order the bounds within each model: "
        "the concentration of the posterior does"
    )
    return length_cases, equal_size, values
