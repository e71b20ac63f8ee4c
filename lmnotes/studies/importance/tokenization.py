"""Tokenization as the latent variable: the rows of chapter 04's tables of importance-sampled
estimates of a string's marginal over its segmentations, against the exact marginal (words)
or a reference (sentences). The draws themselves come from the segmentation study's
proposals (chapter 03), which the chapter calls; this module only summarises log weights and
log-probabilities, so it imports no other study.
"""

from __future__ import annotations

import re
import warnings
from typing import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy import stats as ss
from scipy.special import logsumexp

from lmnotes import models
from lmnotes.report import cases as lmcases, plots, tables
from lmnotes.studies.importance import estimators as I
from lmnotes.studies.importance import switch_runs as SR
from lmnotes.report.glue import Prose
from lmnotes.studies.importance.summaries import runs_interval


def proposal_configs(temperatures: Sequence[float]) -> dict[str, dict]:
    """The keyword arguments of the segmentation proposals by label: the constrained proposal
    (Cao & Rimell 2021) at each temperature, and the guided one (half the tokenizer's own
    segmentation, half exploration)."""
    configs = {f"constrained, τ = {t:g}": dict(stay=0.0, explore=0.0, temperature=t) for t in temperatures}
    configs["guided"] = dict(stay=0.5, explore=0.5)
    return configs


def run_errors(logw: np.ndarray, truth: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Cut the draws ``logw [strings, draws]`` into runs of ``k``: the instance-level (Eq. 5)
    and corpus-level (Eq. 6) errors of each run against the log-probabilities ``truth``, summed
    over the strings (nats)."""
    r = I.runs(logw, k)  # [strings, runs, k]
    inst = (I.log_mean(r) - truth[:, None]).sum(0)
    corp = np.array([I.corpus_level(r[:, j]) for j in range(r.shape[1])]) - truth.sum()
    return inst, corp


def error_row(model_name: str, label: str, inst: np.ndarray, corp: np.ndarray) -> dict:
    """A table row of a proposal's run errors: the mean over runs with its interval at each
    level, and the root-mean-square error of a run at instance level."""
    return {
        "model": plots.label(model_name),
        "proposal": label,
        "instance level": runs_interval(inst),
        "RMSE per run": float(np.sqrt(np.mean(inst**2))),
        "corpus level": runs_interval(corp),
    }


def ancestral_row(model_name: str, anc: np.ndarray, exact: np.ndarray) -> dict:
    """The row of the non-peeking proposal: the summed error of its log-estimates ``anc`` (the
    share of unconstrained samples spelling each string; −∞ where none does)."""
    return {
        "model": plots.label(model_name),
        "proposal": SR.NO_PEEKING,
        "instance level": anc.sum() - exact.sum(),
        "RMSE per run": None,
        "corpus level": anc.sum() - exact.sum(),
    }


def beam_rows(model_name: str, topk: np.ndarray, exact: np.ndarray, beam_sizes: Sequence[int]) -> list[dict]:
    """The rows of the exact k best segmentations, ``topk [strings, len(beam_sizes)]`` their
    summed log-probabilities: the summed error, 0 below 1e-9 nats."""
    rows = []
    for j, k in enumerate(beam_sizes):
        miss = topk[:, j].sum() - exact.sum()
        rows.append(
            {
                "model": plots.label(model_name),
                "proposal": f"exact {k} best segmentations",
                "instance level": miss if abs(miss) > 1e-9 else 0.0,
                "RMSE per run": None,
                "corpus level": None,
            }
        )
    return rows


def pick_words(sentences: Sequence[Sequence[str]], letters: Sequence[int], n: int, seed: int) -> list[str]:
    """``n`` distinct lower-case word types of ``letters[0]`` to ``letters[1]`` letters drawn
    from the word-split ``sentences`` (seeded by ``[seed, 4]``), in sorted order, each with
    its leading space (as a subword model sees a word inside a sentence)."""
    pattern = re.compile(rf"^[a-z]{{{letters[0]},{letters[1]}}}$")
    types = sorted({w for s in sentences for w in s if pattern.match(w)})
    pick = np.random.default_rng([seed, 4]).choice(len(types), min(n, len(types)), replace=False)
    return [" " + types[i] for i in sorted(pick)]


def with_warnings(fn: Callable, *args):
    """``fn(*args)`` and the messages of the warnings it raised (recorded, not shown)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [str(c.message) for c in caught]


def load(name: str, device: str, size: str):
    """A tokenization model by name: this report's own models (``wiki/...``) at ``size``, the
    others (pretrained) as they come."""
    trained_here = name.startswith("wiki/")
    return models.load(name, device=device, **({"size": size} if trained_here else {}))


def pick_sentences(sentences: Sequence[str], max_bytes: int, n: int, seed: int) -> list[str]:
    """``n`` sentences of at most ``max_bytes`` bytes drawn from ``sentences`` (seeded by
    ``[seed, 5]``), in their order."""
    short = [s for s in sentences if len(s.encode()) <= max_bytes]
    chosen = np.random.default_rng([seed, 5]).choice(len(short), min(n, len(short)), replace=False)
    return [short[i] for i in sorted(chosen)]


def reference(draws: Mapping) -> tuple:
    """The reference log-probability of each sentence where no exact one exists: the largest
    of the stratified estimates (``draws[label].logmarginal()``; each is unbiased for p(x), its
    log a stochastic lower bound), counted only where the Pareto k̂ of the draws that gave it
    is below PSIS's threshold (:func:`.estimators.pareto_k_threshold`). Returns the label that
    gave each reference, the references, their k̂ and whether each counts."""
    cand = pd.DataFrame({lab: d.logmarginal() for lab, d in draws.items()})
    best = cand.idxmax(axis=1)
    ref_lp = cand.max(axis=1).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        ref_k = np.array([I.pareto_k(draws[b].logw[i : i + 1])[0] for i, b in enumerate(best)])
    counted = np.nan_to_num(ref_k, nan=np.inf) <= np.array(
        [I.pareto_k_threshold(draws[b].logw.shape[1]) for b in best]
    )
    return best, ref_lp, ref_k, counted


def sentence_rows(
    model_name: str, draws: Mapping, labels: Sequence[str], ref_lp: np.ndarray, counted: np.ndarray, k: int
) -> list[dict]:
    """The rows of the sentence table for one model: the canonical segmentation alone (of the
    guided draws), then each proposal of ``labels`` in runs of ``k`` draws, against the
    reference, over the counted sentences."""
    d0 = draws["guided"]
    rows = [
        {
            "model": plots.label(model_name),
            "proposal": "canonical segmentation only",
            "instance level": (d0.log_canonical - ref_lp)[counted].sum(),
            "RMSE per run": None,
            "corpus level": None,
        }
    ]
    for label in labels:
        rows.append(error_row(model_name, label, *run_errors(draws[label].logw[counted], ref_lp[counted], k)))
    return rows


def sentence_values(ref_source: Mapping) -> dict:
    """What the chapter quotes about the references, by name, in order: the sentences counted
    per model (``ref_source[model] = (labels, k̂, counted)``) and which proposal gave the
    references (a :class:`Prose` sentence)."""
    values = {
        "n_sent_counted": ", ".join(
            f"{int(c.sum())} ({plots.label(n)})" for n, (_, _, c) in ref_source.items()
        ),
        "ref_source_sentence": Prose(
            "; ".join(
                f"{plots.label(n)}: " + ", ".join(f"{lab} for {cnt}" for lab, cnt in b.value_counts().items())
                for n, (b, _, _) in ref_source.items()
            )
        ),
    }
    return values


def best_sentence_proposal(sent_table: pd.DataFrame) -> str:
    """Per model, the proposal with the smallest root-mean-square error of a run."""
    best_sent = sent_table["RMSE per run"].dropna().groupby(level=0).idxmin()
    return "; ".join(f"{m}: {p}" for m, (_, p) in best_sent.items())


def word_values(
    words: Sequence[str],
    tok_curves: Mapping,
    temperatures: Sequence[float],
    models: Sequence[str],
    tok_skipped: Sequence[str],
    ancestral_hits: Mapping,
    tok_warnings: Sequence[str],
    n_ancestral: int,
    draws_needed: Mapping,
    n_is: int,
) -> tuple[list, dict]:
    """Claim 10's cases, per model (the share of the unconstrained samples spelling the most
    often spelled word, below one half beyond its binomial interval: for; above: against;
    ``ancestral_hits[model]`` the log share of samples spelling each word), and what the
    chapter quotes about the words, by name, in
    order: the guided proposal's error at the first and last K (``tok_curves[(model,
    label)]``), the best constrained temperature, the words left out, what the non-peeking
    proposal spelled (a :class:`Prose` sentence) and the draws the likeliest word needs.

    (10 parameters: each is a result of an earlier cell that claim 10's cases and quoted numbers
    depend on.)
    """
    values = {"n_tok_words": len(words)}
    values["guided_trajectory"] = "; ".join(
        f"{tables.significant(2)(abs(c[0]))} then {tables.significant(2)(abs(c[-1]))} nats ({plots.label(n)})"
        for (n, lab), c in tok_curves.items()
        if lab == "guided"
    )
    values["best_constrained"] = "; ".join(
        f"τ = {min((t for t in temperatures), key=lambda t: abs(tok_curves[n, f'constrained, τ = {t:g}'][-1])):g} "
        f"({plots.label(n)})"
        for n in models
    )
    values["tok_skipped"] = "; ".join(tok_skipped) if tok_skipped else "none"
    n_hits = {n: int(np.isfinite(v).sum()) for n, v in ancestral_hits.items()}
    # invalid structures (claim 10), per model: the share of the samples that spell the most
    # often spelled word, with its exact binomial interval, below one half: most samples are
    # invalid for every word
    invalid_cases = []
    for n, v in ancestral_hits.items():
        hits = int(round(n_ancestral * float(np.exp(np.max(v)))))
        ci = ss.binomtest(hits, n_ancestral).proportion_ci(0.95)
        invalid_cases.append(
            lmcases.Case(
                plots.label(n),
                "below",
                hits / n_ancestral,
                ci.low,
                ci.high,
                0.5,
                why=f"share of {n_ancestral:,} unconstrained samples that spell the most often spelled of the words, "
                "exact binomial interval; below 0.5: most samples are invalid structures for every word",
            )
        )
    values["ancestral_sentence"] = Prose(
        (
            f"The non-peeking proposal spelled none of the words in {n_ancestral:,} "
            "samples per model; its estimate is log 0 = −∞, and the code says so: "
            f"“{tok_warnings[0]}”"
            if tok_warnings and not any(n_hits.values())
            else "The non-peeking proposal spelled "
            + ", ".join(f"{k} of the words ({plots.label(n)})" for n, k in n_hits.items())
            + f" in {n_ancestral:,} samples per model."
        )
    )
    values["median_draws_needed"] = min(draws_needed.values())
    values["n_is_used"] = n_is
    values["n_ancestral_used"] = n_ancestral
    return invalid_cases, values


def figure(models: Sequence[str], tok_curves: Mapping, tok_sizes: np.ndarray, temperatures: Sequence[float]):
    """The error of one run's estimate against K, summed over the words, a panel per model:
    the constrained proposal at each temperature and the guided one (dashed). The figure,
    open."""
    fig, axes = plt.subplots(1, len(models), figsize=(plots.COLUMN, 3.2), squeeze=False)
    tok_palette = dict(
        zip(
            [f"constrained, τ = {t:g}" for t in temperatures],
            sns.color_palette("colorblind", len(temperatures)),
        )
    )
    tok_palette["guided"] = plots.HUMAN_COLOR
    for ax, name in zip(axes[0], models):
        for label, color in tok_palette.items():
            ax.plot(
                tok_sizes,
                -tok_curves[name, label],
                color=color,
                label=label,
                ls="--" if label == "guided" else "-",
            )
        ax.set(yscale="symlog", title=plots.label(name))
        plots.plain_log(ax, "x", [1, 10, 100])
    plots.figure_legend(fig, axes, ncol=4)
    fig.supxlabel("samples per word K")
    fig.supylabel("log p − log p̂, summed (nats)")
    return fig


def exact_marginals(
    lm, model_name: str, words: Sequence[str], limit: int, beam_sizes: Sequence[int], segmentations
) -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    """The words whose segmentations can be enumerated (at most ``limit``), their exact log
    marginal (the log-sum over every segmentation) and the log-sums of their k best for each k
    of ``beam_sizes``, and the words left out (``'word' (model)``). ``segmentations`` is the
    segmentation study's module that counts and scores them (``lattices``,
    ``segmentation_logprobs``; chapter 03), passed in, as a study imports no other."""
    ok, exact, topk, skipped = [], [], [], []
    for w in words:
        count = segmentations.lattices(lm, [w])[0].log_count()
        if count > np.log(limit):
            skipped.append(f"{w.strip()!r} ({plots.label(model_name)})")
            continue
        lps = segmentations.segmentation_logprobs(lm, w, limit)
        ok.append(w)
        exact.append(logsumexp(lps))
        topk.append([logsumexp(lps[:k]) for k in beam_sizes])
    return ok, np.array(exact), np.array(topk), skipped
