"""One Transformer architecture trained with several segmentations: the family of chapter 03.

- :func:`label`: a segmentation's name (``"byte"``, ``"bpe8000"``, ``"word"``) as the
  chapter prints it (its recipe: :func:`lmnotes.models.recipes.transformer`);
- :func:`corpus_facts`: the counts of the corpus the chapter quotes;
- :func:`rate_row`, :func:`family_table`: the family's scores in every unit, with intervals
  over the test articles (:func:`lmnotes.stats.units.rate_table`);
- :func:`order_findings`, :func:`family_figure`: whether per-token perplexity grows with
  the vocabulary, and how the training budget relates to bits per byte;
- :func:`rankings`: each model's rank by each measure and Kendall's τ with the per-token
  ranking (Mielke 2019's claims 1 and 2).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from lmnotes.report import plots, tables
from lmnotes.stats import units

#: The measures the chapter shows for each model.
COLUMNS = ["perplexity / token", "perplexity / word", "perplexity / char", "bits / char", "bits / byte"]
#: The measures whose denominator does not depend on the segmentation.
INDEPENDENT = ["perplexity / word", "perplexity / char", "bits / char", "bits / byte"]
LABEL = {"char": "char", "byte": "byte", "word": "word (closed)"}


def label(spec: str) -> str:
    """'bpe8000' -> 'BPE 8k'; 'word' -> 'word (closed)'."""
    if spec.startswith("bpe") and int(spec[3:]) % 1000 == 0:
        return f"BPE {int(spec[3:]) // 1000}k"
    return LABEL.get(spec, spec)


#: An estimate with three decimals, "value [low, high]".
fmt = tables.fixed


def corpus_facts(data, segmentations: Sequence[str]) -> dict:
    """The corpus counts the chapter quotes, by glue name: test sentences and articles, the
    number of segmentations, the share (%) of non-ASCII training characters, test bytes."""
    test = data["test"].sentences
    train_text = "".join(data["train"].sentences)
    non_ascii = sum(ord(c) > 127 for c in train_text) / len(train_text)
    return {
        "n_test": len(test),
        "n_test_articles": len(data["test"].documents),
        "n_segmentations": len(segmentations),
        "non_ascii_pct": round(100 * non_ascii, 2),
        "n_test_bytes": sum(len(s.encode()) for s in test),
    }


def rate_row(scores, n_boot: int, seed: int, groups, convention: str = "string") -> dict:
    """Every rate of one model's ``scores`` with a bootstrap interval over ``groups`` (the
    test articles), less the bits per token and per word."""
    table = units.rate_table(scores, convention=convention, n_resamples=n_boot, seed=seed, groups=groups)
    return {k: e for k, e in table.items() if k not in ("bits / token", "bits / word")}


def family_table(
    family: Mapping, scores: Mapping, rates: Mapping, budgets: pd.DataFrame, segmentations: Sequence[str]
) -> pd.DataFrame:
    """One row per model: vocabulary size, open or closed, training epochs, test tokens, and
    the rates of :data:`COLUMNS`."""
    table = pd.DataFrame(
        {
            label(spec): {
                "vocabulary": family[spec].vocab_size,
                "open": family[spec].seg.open_vocabulary,
                "epochs": budgets.loc[spec, "epochs"],
                "tokens": int(scores[spec].n_tokens.sum()),
                **{c: rates[spec][c] for c in COLUMNS},
            }
            for spec in segmentations
        }
    ).T
    table.index.name = "Transformer over"
    return table


def value(rates: Mapping, spec: str, col: str) -> float:
    """The point value of one model's rate."""
    return rates[spec][col].value


def order_findings(
    family: Mapping, rates: Mapping, budgets: pd.DataFrame, segmentations: Sequence[str]
) -> dict:
    """What the family figure's caption says, by glue name: whether per-token perplexity grows
    with the vocabulary (among the open models, and over all), Kendall's τ between the
    training epochs and the negated bits per byte, and what that τ means."""

    def ppl(spec):
        return value(rates, spec, "perplexity / token")

    by_vocab = sorted(segmentations, key=lambda sp: family[sp].vocab_size)
    open_by_vocab = [sp for sp in by_vocab if family[sp].seg.open_vocabulary]
    grows_open = all(ppl(a) < ppl(b) for a, b in zip(open_by_vocab, open_by_vocab[1:]))
    grows_all = all(ppl(a) < ppl(b) for a, b in zip(by_vocab, by_vocab[1:]))
    exceptions = [
        label(sp)
        for sp in by_vocab
        if sp not in open_by_vocab
        and ppl(sp) < max(ppl(o) for o in open_by_vocab if family[o].vocab_size < family[sp].vocab_size)
    ]
    out = {
        "ppl_vocab_sentence": (
            "Per-token perplexity grows with the vocabulary in every model here. "
            if grows_all
            else "Among the open-vocabulary models per-token perplexity "
            f"{'grows' if grows_open else 'does not always grow'} with the vocabulary; it is not a "
            f"law: the {', '.join(exceptions) or 'closed'} model, with the largest vocabulary, has a "
            "lower per-token perplexity than a model with a smaller one."
        )
    }
    epochs_tau = kendalltau(
        [budgets.loc[sp, "epochs"] for sp in segmentations],
        [-value(rates, sp, "bits / byte") for sp in segmentations],
    ).statistic
    out["epochs_tau"] = float(epochs_tau)
    out["epoch_order_sentence"] = (
        "the bits-per-byte order is exactly the order of their epochs (more epochs, fewer bits): "
        "part of every difference between these models may be their training budget, not their "
        "segmentation."
        if np.isclose(epochs_tau, 1)
        else f"Kendall's τ between the epochs and the (negated) bits per byte is {epochs_tau:.2f}: "
        "part of the differences may be the training budget, not the segmentation."
    )
    return out


def family_figure(family: Mapping, rates: Mapping, segmentations: Sequence[str]):
    """Per-token perplexity (log scale) against bits per byte with its interval, one marker per
    model (a square for the closed word model); the figure, closed."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 4.2))
    for spec in segmentations:
        y = rates[spec]["bits / byte"]
        # a legend, not labels at the points: two segmentations can score nearly alike
        ax.errorbar(
            value(rates, spec, "perplexity / token"),
            y.value,
            yerr=[[y.value - y.low], [y.high - y.value]],
            fmt="s" if spec == "word" else "o",
            capsize=3,
            color=plots.model_color(family[spec].name),
            label=label(spec),
        )
    ax.set_xscale("log")
    ax.set_xlabel("perplexity per token (log scale)")
    ax.set_ylabel("bits per byte (95% interval)")
    ax.set_title("Same architecture and data, different segmentations")
    ax.legend(title="Transformer over", loc="center left", bbox_to_anchor=(1.0, 0.5))
    plt.close(fig)
    return fig


def rankings(
    rates: Mapping, segmentations: Sequence[str], columns: Sequence[str] = COLUMNS
) -> tuple[pd.DataFrame, dict]:
    """Each model's rank (1: the lowest value) by each measure, rows labelled by
    :func:`label`, and Kendall's τ between each measure's ranking and the per-token one."""
    ranks = (
        pd.DataFrame({label(s): {c: value(rates, s, c) for c in columns} for s in segmentations})
        .T.rank()
        .astype(int)
    )
    tau = {c: kendalltau(ranks["perplexity / token"], ranks[c]).statistic for c in columns}
    return ranks, tau
