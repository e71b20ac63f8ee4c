"""The source's own numbers: Logan, Gardner & Singh's (2020) Table 1 (perplexity estimates of
RNNG, EntityNLM and KGLM by aggregation level and proposal temperature) and Table 2 (beam
bounds), as printed, and what chapter 04 reads from them; the lines of the KGLM code on
``master`` that aggregate the importance weights (:data:`KGLM_QUOTE`), transcribed
(:func:`kglm_master`) so that what they aggregate over is computed (:func:`aggregation_of`,
claim 8); and the normaliser bug of the public KGLM code (``kglm-model``, branch
``acl-2020-updates``, as early as commit ``453189b`` of 2019-12-08, ``evaluate_perplexity.py``),
whose per-instance estimate divides by the
samples of one batch instead of K, so that the perplexity is too low by the factor
exp(−log(K/b) / T_n) for instances of T_n tokens.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import pandas as pd
from scipy.special import logsumexp

#: Samples per batch in the public KGLM code's evaluation (``evaluate_perplexity.py``): its
#: default, a fact about that code, which the normaliser bug divides by instead of K.
KGLM_SAMPLES_PER_BATCH = 1
#: The paper's Table 1 as printed: perplexity by (level, proposal) and model.
TABLE1 = pd.DataFrame(
    {
        "RNNG": [94.4, 96.0, 96.7, 97.9, 121.6, 734.0, None, 85.3, 84.4, 84.2, 84.0, 83.8, 97.2, None],
        "EntityNLM": [
            122.6,
            122.7,
            120.8,
            120.7,
            120.5,
            152.5,
            131.7,
            113.5,
            110.6,
            110.0,
            109.9,
            109.0,
            129.6,
            113.9,
        ],
        "KGLM": [101.9, 59.3, 48.2, 41.7, 170.0, 7468.7, 86.8, 99.3, 48.1, 36.6, 29.6, 90.7, 3756.1, 71.9],
    },
    index=pd.MultiIndex.from_product(
        [["corpus", "instance"], [f"τ = {t:g}" for t in [0.5, 0.9, 1.0, 1.1, 2.0, 5.0]] + ["no peeking"]],
        names=["level", "proposal"],
    ),
)
#: The paper's Table 2 as printed: the beam bounds' perplexity by k and model.
TABLE2 = pd.DataFrame(
    {"RNNG": [96.3, 87.0, 84.3], "EntityNLM": [150.2, 147.1, 144.5], "KGLM": [153.7, 152.6, None]},
    index=["k = 1", "k = 10", "k = 100"],
)
#: Half the last printed digit of Table 1 (one decimal): the interval of a printed number.
PRINTED_HALF = 0.05
#: The KGLM code that §3 describes: its repository, the commit of ``master`` read (2020-01-16),
#: the file, the commit that last changed it (2019-03-03) and the lines that aggregate.
KGLM_REPO = "rloganiv/kglm-model"
KGLM_COMMIT = "c9cb7f995072ac990799994f1e2b62828d7e6b27"
KGLM_FILE = "kglm/commands/evaluate_perplexity.py"
KGLM_FILE_COMMIT = "36ba9cd254384677938a22840a9bed95b0abf308"
KGLM_LINES = (83, 119)
#: Those lines, as they stand (the penalised twin of each line left out).
KGLM_QUOTE = """\
 83        for i in range(num_samples):
 ...
 90            summand = 0.0
 ...
 93            for batch, _ in generator_tqdm:
 ...
102                sampler_output = sampler.sample(**batch)
103                sample_logp = sampler_output['logp']
 ...
107                model_output = model(**sample)
108                model_logp = model_output['logp']
 ...
110                summand += (model_logp - sample_logp).item()
 ...
113            summands.append(summand)
 ...
115            t = torch.tensor(summands)
 ...
117            t_sum = torch.logsumexp(t, dim=0)
 ...
119            sum_logp = (t_sum - math.log(i+1)).item()"""


def kglm_master(logw: np.ndarray) -> float:
    """:data:`KGLM_QUOTE` transcribed, on the log weights ``logw [instances, samples]`` (one
    batch per instance): for each sample ``i``, ``summand`` adds the sample's
    ``model_logp - sample_logp`` over every batch of the corpus; the estimate of log p(x_C) is
    ``logsumexp(summands) - log(num_samples)``."""
    summands = []
    for i in range(logw.shape[1]):
        summand = 0.0
        for batch in logw[:, i]:
            summand += batch
        summands.append(summand)
    return float(logsumexp(summands) - np.log(len(summands)))


def aggregation_of(estimate, n_instances: int = 5, n_samples: int = 7, seed: int = 0) -> str:
    """What an estimate of log p(x_C) from log weights ``[instances, samples]`` aggregates over,
    on random weights: "corpus" if it is Eq. 6 (one weight per sample, the product over the
    instances), "instance" if Eq. 5 (a mean per instance), "neither" otherwise."""
    logw = np.random.default_rng(seed).normal(0.0, 2.0, (n_instances, n_samples))
    got = estimate(logw)
    corpus = logsumexp(logw.sum(0)) - np.log(n_samples)
    instance = (logsumexp(logw, axis=1) - np.log(n_samples)).sum()
    return "corpus" if np.isclose(got, corpus) else "instance" if np.isclose(got, instance) else "neither"


#: Linked WikiText-2's test split, KGLM's instances: WikiText-2's 60 articles and 245,569
#: tokens (Merity et al. 2017, Table 1).
WT2_TEST_TOKENS, WT2_TEST_ARTICLES = 245_569, 60
#: An illustrative document length, in tokens (EntityNLM's CoNLL-2012 documents are shorter
#: than articles; not measured here).
SHORT_DOC = 500


def read_table1(paper: pd.DataFrame = TABLE1) -> dict:
    """What follows from Table 1: the pairs where instance level is lower than corpus level
    (``n_lower`` of ``n_pairs``), the best temperature per model and level (``best_tau``),
    KGLM's corpus and instance level at τ = 1.1 (``kglm_c``, ``kglm_i``) and its instance
    level against the 43 reported earlier (``kglm_vs_reported``), and the peeking proposal
    against no peeking per (level, model, τ) (``peek_vs``; RNNG has no non-peeking row)."""
    lower = (paper.loc["instance"] < paper.loc["corpus"]).where(paper.loc["instance"].notna())
    n_pairs, n_lower = int(lower.notna().sum().sum()), int(lower.sum().sum())
    best_tau = pd.DataFrame({lvl: paper.loc[lvl].iloc[:6].idxmin() for lvl in ["instance", "corpus"]})
    best_tau.index.name = "model"
    kglm_c = paper.loc[("corpus", "τ = 1.1"), "KGLM"]
    kglm_i = paper.loc[("instance", "τ = 1.1"), "KGLM"]
    # peeking in the paper's own table: each tempered peeking proposal against
    # no peeking, per model and level (RNNG has no non-peeking row)
    peek_vs = {
        (lvl, m, t): paper.loc[(lvl, t), m] < paper.loc[(lvl, "no peeking"), m]
        for lvl in ["corpus", "instance"]
        for m in ["EntityNLM", "KGLM"]
        for t in paper.loc[lvl].index[:6]
    }
    return {
        "n_pairs": n_pairs,
        "n_lower": n_lower,
        "best_tau": best_tau,
        "kglm_c": kglm_c,
        "kglm_i": kglm_i,
        "kglm_vs_reported": 43 - paper.loc[("instance", "τ = 1.1"), "KGLM"],
        "peek_vs": peek_vs,
    }


def table1_values(
    t1: Mapping, kglm_factor: Mapping, paper: pd.DataFrame = TABLE1, paper_beam: pd.DataFrame = TABLE2
) -> dict:
    """What the chapter quotes from the paper's tables (``t1``: :func:`read_table1`), by name,
    in order; ``kglm_factor[K]`` the normaliser bug's factor at KGLM's scale."""
    best_tau, kglm_i, peek_vs = t1["best_tau"], t1["kglm_i"], t1["peek_vs"]
    peek_at1 = [v for (_, _, t), v in peek_vs.items() if t == "τ = 1"]
    peek_loses = [k for k, v in peek_vs.items() if not v]
    values = {"paper_n_pairs": t1["n_pairs"]}
    values["paper_best_instance"] = ", ".join(f"{m} {t}" for m, t in best_tau["instance"].items())
    values["paper_best_corpus"] = ", ".join(f"{m} {t}" for m, t in best_tau["corpus"].items())
    values.update(
        {
            "paper_n_lower": t1["n_lower"],
            "kglm_gap": float(t1["kglm_c"] - kglm_i),
            "paper_kglm_i": float(kglm_i),
            "kglm_true_100": float(kglm_i / kglm_factor[100]),
            "kglm_true_10k": float(kglm_i / kglm_factor[10_000]),
            "kglm_vs_reported": float(t1["kglm_vs_reported"]),
            "rnng_beam": float(paper_beam.loc["k = 100", "RNNG"]),
            "rnng_corpus_min": float(paper.loc["corpus", "RNNG"].min()),
            "paper_peek_at1": f"{sum(peek_at1)} of {len(peek_at1)}",
            "paper_peek_loses": f"{len(peek_loses)} of {len(peek_vs)}",
            "paper_peek_loses_tau": ", ".join(sorted({t for _, _, t in peek_loses})),
        }
    )
    return values


def normaliser_table(kglm: Mapping, ppl_of: Callable, truth: float, model: str = "sticky") -> pd.DataFrame:
    """The perplexity with the right normaliser and with the public code's, per unit
    (``kglm[unit] = (bugged, right)`` summed log-estimates), against the exact one."""
    kg_rows = {}
    for unit, (bugged, right) in kglm.items():
        kg_rows[unit] = {
            "exact": ppl_of(model, 0.0),
            "estimate, correct normaliser": ppl_of(model, right - truth),
            "estimate, kglm-model normaliser": ppl_of(model, bugged - truth),
        }
    kg_table = pd.DataFrame(kg_rows).T
    kg_table.index.name = "instances"
    return kg_table


def bug_factors(samples_per_batch: int, n_tokens: float, n_articles: int, k_max: int) -> tuple[dict, dict]:
    """The normaliser bug's factor on the perplexity at KGLM's scale (``{K: factor}`` for
    K = 100 and 10,000 on Linked WikiText-2's articles) and the numbers the chapter quotes,
    by name, in order (its own articles at ``k_max``, a short document at K = 100)."""
    wt2_article = WT2_TEST_TOKENS / WT2_TEST_ARTICLES
    kglm_factor = {K: float(np.exp(-np.log(K / samples_per_batch) / wt2_article)) for K in (100, 10_000)}
    values = {
        "wt2_article_tokens": wt2_article,
        "kglm_factor_100": kglm_factor[100],
        "kglm_factor_10k": kglm_factor[10_000],
    }
    ours_article = n_tokens / n_articles
    values["our_article_factor"] = float(np.exp(-np.log(k_max / samples_per_batch) / ours_article))
    short_factor = float(np.exp(-np.log(100 / samples_per_batch) / SHORT_DOC))
    values.update(
        {
            "short_doc_tokens": SHORT_DOC,
            "short_doc_factor": short_factor,
            "short_doc_pct": 100 * (1 - short_factor),
        }
    )
    return kglm_factor, values
