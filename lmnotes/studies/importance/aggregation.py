"""Instance-level against corpus-level aggregation on the switch-LM (the paper's Table 1 and
§3), and instances of growing size (sentences, blocks of sentences, articles): what chapter
04 reads from the repeated runs of :func:`lmnotes.studies.importance.switch_runs.repeated`.

By the Rao-Blackwell argument of the chapter, log p̂_I (Eq. 5) is never biased more than
log p̂_C (Eq. 6) in expectation; these functions measure by how much, and how much of the
corpus-level bias an instance of a given size removes,
(log p̂_unit − log p̂_C) / (log p − log p̂_C) per run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes.report import cases as lmcases, plots
from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import switch_runs as SR
from lmnotes.studies.importance.paper import PRINTED_HALF
from lmnotes.studies.importance.summaries import percent, runs_interval


@dataclass
class InstanceVsCorpus:
    """Instance against corpus level over the pairs: ``cases`` (claim 5: instance level higher
    in log-probability per token than corpus level, beyond the runs' interval), ``runs_share``
    the share of single runs where it is, ``min_gap``/``max_gap`` the range of PPL_C / PPL_I − 1
    in %, and ``values`` the numbers the chapter's text quotes, by name."""

    cases: list[lmcases.Case]
    runs_share: float
    min_gap: float
    max_gap: float
    values: dict


def instance_lower(gaps: Mapping[str, object], why: str) -> list[lmcases.Case]:
    """Claim 5's cases, one per (model, proposal): for if instance level is better than corpus
    level beyond the interval (``gaps[name]``, an estimate with value, low and high, > 0: how
    much better, in the unit ``why`` names). The chapter's runs and the paper's printed Table 1
    (:func:`.claims.source_cases`) both go through it."""
    return [lmcases.Case.interval(name, "above", g, why=why) for name, g in gaps.items()]


def exact_floor(props: Mapping, keys: Sequence) -> dict:
    """Per ``(model, proposal)`` of ``keys``, the exact KL(q ‖ p(z|x)) per sentence (nats) of
    the proposal ``props[model][proposal]`` from the exact posterior: −KL is the floor of the
    bias of log p̂ at every K (:func:`.bias.bias_rows`), per instance and over the corpus."""
    return {(m, n): L.divergence(props[m][n], props[m][SR.EXACT])[0] for m, n in keys}


def at_floor(name: str, gap, bound: float, ppl: float) -> lmcases.Case:
    """Claim 5's case for a pair whose theory pins the gap (instance minus corpus level, nats
    per token) to [0, ``bound``] (Rao–Blackwell: ≥ 0; both biases in [−KL(q ‖ p), 0]: ≤ the
    KL per token), which at its perplexity ``ppl`` stays below the last digit the source's
    Table 1 prints, while its runs' interval ``gap`` does not resolve the sign: a tie at the
    floor, which the claims engine does not count (not applicable)."""
    return lmcases.Case(
        name,
        "above",
        0.0,
        0.0,
        0.0,
        0.0,
        floor=0.0,
        why=f"the proposal is the posterior to KL {bound:.2g} nats per token: theory pins the gap to "
        f"[0, {bound:.2g}], at most {ppl * math.expm1(bound):.1g} in perplexity, below Table 1's last digit "
        f"(runs: {gap.value:.2g} [{gap.low:.2g}, {gap.high:.2g}]): a tie at the floor, not counted",
    )


def instance_vs_corpus(
    runs: Mapping, keys: Sequence, ppl_of: Callable, n_tokens: float, kl_q: Mapping | None = None
) -> InstanceVsCorpus:
    """Compare the instance- and corpus-level estimates of the runs ``runs[key]`` (columns
    ``instance``, ``corpus``, ``corpus ESS``: errors in nats against the exact log p) for each
    ``(model, proposal)`` of ``keys``; ``ppl_of(m, err, tokens)`` turns an error into a
    perplexity. ``kl_q[key]``, the exact KL(q ‖ p(z|x)) per test sentence (:func:`exact_floor`),
    bounds the gap to [0, Σ KL / tokens]: a pair whose runs do not resolve its sign and whose
    bound keeps the gap below what the source's Table 1 can print (half its last digit of
    perplexity, :data:`.paper.PRINTED_HALF`) cannot show "lower" in the source's terms, and
    is a tie at the floor (:func:`at_floor`), not a case."""
    T = n_tokens
    gaps_ic = {k: (runs[k]["instance"] - runs[k]["corpus"]) / T for k in keys}
    intervals = {k: runs_interval(g) for k, g in gaps_ic.items()}
    ppl_i = {k: ppl_of(k[0], runs[k]["instance"].mean(), T) for k in gaps_ic}
    ppl_c = {k: ppl_of(k[0], runs[k]["corpus"].mean(), T) for k in gaps_ic}
    bounds = {k: float(np.sum(kl_q[k])) / T for k in keys} if kl_q is not None else {}
    tied = {
        k
        for k, b in bounds.items()
        if intervals[k].low <= 0 <= intervals[k].high and ppl_c[k] * math.expm1(b) < PRINTED_HALF
    }
    cases = instance_lower(
        {f"{k[1]}, {k[0]}": intervals[k] for k in keys if k not in tied},
        why="log p̂ per token, instance minus corpus level (nats), mean over the runs, "
        "Student-t interval; > 0: instance level is lower in perplexity",
    )
    by_name = {c.name: c for c in cases}
    ic_cases = [
        at_floor(f"{k[1]}, {k[0]}", intervals[k], bounds[k], ppl_c[k])
        if k in tied
        else by_name[f"{k[1]}, {k[0]}"]
        for k in keys
    ]
    decided = [c.decision for c in ic_cases]
    ic_runs = np.mean([np.mean(g > 0) for g in gaps_ic.values()])
    ic_rel = {  # the pairs counted: a tie at the floor has no gap to speak of
        k: 100 * (ppl_of(k[0], runs[k]["corpus"].mean(), T) / ppl_of(k[0], runs[k]["instance"].mean(), T) - 1)
        for k in gaps_ic
        if k not in tied
    }
    worst = max(gaps_ic, key=lambda k: ppl_c[k] - ppl_i[k])
    ess = np.concatenate([runs[k]["corpus ESS"].to_numpy() for k in gaps_ic])
    values = {
        "n_ic_for": decided.count("for"),
        "n_ic_cases": len(decided) - decided.count("not applicable"),  # the pairs counted
        "n_ic_unresolved": decided.count("open"),
        "n_ic_floor": decided.count("not applicable"),
        "ic_runs_pct": float(100 * ic_runs),
        "ic_worst": f"{worst[1]} on the {worst[0]} model",
        "ic_worst_c": float(ppl_c[worst]),
        "ic_worst_i": float(ppl_i[worst]),
        "corpus_ess_median": float(np.median(ess)),
    }
    return InstanceVsCorpus(ic_cases, ic_runs, min(ic_rel.values()), max(ic_rel.values()), values)


def grain_tokens(n_tokens: np.ndarray, T: float, article: np.ndarray, grains: Mapping) -> dict:
    """Mean tokens per instance of each unit: sentences (``n_tokens`` each, ``T`` in all), the
    blocks of ``grains`` (``{name: labels}``), articles and the whole corpus."""
    return {
        "instance": n_tokens.mean(),
        "corpus": T,
        "article": T / len(np.unique(article)),
        **{g: T / len(np.unique(lab)) for g, lab in grains.items()},
    }


def granularity_figure(
    models: Sequence[str],
    names: Sequence[str],
    runs: Mapping,
    cols: Sequence[str],
    tokens: Mapping,
    ppl_of: Callable,
    n_tokens: float,
    colors: Mapping,
    k_runs: int,
):
    """PPL^/PPL − 1 of the mean run against the mean tokens per instance (both logarithmic),
    a line per proposal of ``names``, a panel per model. The figure, open.

    (9 parameters: the figure's data (runs, tokens, perplexities) and its layout (models, names,
    colours).)
    """
    T = n_tokens
    fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.4), sharey=True)
    for ax, m in zip(axes, models):
        for name in names:
            x = [tokens[c] for c in cols]
            y = [ppl_of(m, runs[m, name][c].mean(), T) / ppl_of(m, 0.0, T) - 1 for c in cols]
            ax.plot(x, y, marker="o", ms=3, color=colors[name], label=name)
        ax.set(title=f"{m} switch-LM", yscale="log")
        plots.plain_log(ax, "x", [100, 1000, 10000])
    plots.figure_legend(fig, axes, ncol=4)
    fig.supxlabel("tokens per instance (sentences, blocks, articles, the corpus)")
    fig.supylabel(f"PPL^ / PPL − 1, K = {k_runs}")
    return fig


def bias_removed(runs: Mapping, keys: Sequence, units: Sequence[str]) -> dict:
    """Per ``(model, proposal)`` and unit: the share of the corpus-level bias that aggregating
    per unit removes, per run (log p̂_unit − log p̂_C) / (log p − log p̂_C), as the mean over
    the runs with its 95% interval."""
    removed = {}
    for k in keys:
        r = runs[k]
        removed[k] = {unit: runs_interval((r[unit] - r["corpus"]) / (0.0 - r["corpus"])) for unit in units}
    return removed


def removed_table(removed: Mapping) -> pd.DataFrame:
    """:func:`bias_removed` in %, a row per (model, proposal), a column per unit named by its
    sentences ("1", "2", …, "article")."""
    t = pd.DataFrame(
        {
            k: {("1" if u == "instance" else u.split()[0]): percent(e) for u, e in v.items()}
            for k, v in removed.items()
        }
    ).T
    t.index.names = ["model", "proposal"]
    return t


def document_values(
    removed: Mapping,
    runs: Mapping,
    ppl_of: Callable,
    n_tokens: float,
    bias_removed: float,
    article_tokens: float,
    block_sizes: Sequence[int],
) -> tuple[list[lmcases.Case], dict]:
    """Claim 6's cases (articles as instances remove more than ``bias_removed`` of the
    corpus-level bias: for, beyond the interval) and the numbers the chapter quotes, by name:
    an example's perplexity per unit and the range removed by the two longest blocks."""
    T = n_tokens
    doc_cases = [
        lmcases.Case.interval(
            f"{k[1]}, {k[0]}",
            "above",
            removed[k]["article"],
            bias_removed,
            why="share of the corpus-level bias (nats) that articles as instances remove, "
            "mean over the runs, Student-t interval",
        )
        for k in removed
    ]
    values = {
        "n_doc_against": sum(c.decision == "against" for c in doc_cases),
        "n_doc_cases": len(doc_cases),
        "bias_removed_pct": 100 * bias_removed,
    }
    doc_example = ("sticky", "peek 1") if ("sticky", "peek 1") in removed else next(iter(removed))
    values["doc_example"] = f"{doc_example[1]} on the {doc_example[0]} model"
    doc_ppl = {
        unit: float(ppl_of(doc_example[0], runs[doc_example][unit].mean(), T))
        for unit in ("instance", "article", "corpus")
    }
    values["doc_instance_ppl"] = doc_ppl["instance"]
    values["doc_article_ppl"] = doc_ppl["article"]
    values["doc_corpus_ppl"] = doc_ppl["corpus"]
    values["doc_exact_ppl"] = float(ppl_of(doc_example[0], 0.0, T))
    values["article_tokens"] = float(article_tokens)
    long_blocks = [f"{b} sentences" for b in block_sizes[1:][-2:]]  # the two longest blocks
    mid = [v[u].value for v in removed.values() for u in long_blocks]
    values["block_removed_range"] = f"{100 * min(mid):.0f} to {100 * max(mid):.0f}" if mid else "–"
    values["long_blocks"] = " to ".join(u.split()[0] for u in long_blocks) or "–"
    return doc_cases, values
