"""Sliding-window scoring of long documents: chapter 03's stride study.

A document longer than a model's window W is scored window by window; a window moved by a
stride s scores its last s tokens with at least W - s tokens of context, at W/s times the
cost (:meth:`lmnotes.models.base.LanguageModel.windows`).

- :func:`self_trained_runs`: a self-trained model over whole test articles in its training
  format (:func:`.comparability.document_ids`);
- :func:`pretrained_runs`: a pretrained model over the raw text of articles;
- :func:`stride_table`, :func:`gains`, :func:`stride_findings`, :func:`stride_figure`: bits per
  byte by stride, and the gain of the smallest stride over disjoint windows, paired by article.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lmnotes.models import memo
from lmnotes.report import plots
from lmnotes.stats import units
from lmnotes.stats.inference import Estimate
from lmnotes.studies.segmentation import comparability as C

#: The fewest documents with which bits per byte gets an interval: a bootstrap of 3 clusters
#: has 10 distinct resamples.
MIN_DOCUMENTS = 5


def _stride(fraction: float, window: int) -> int:
    return int(min(window - 1, max(1, round(fraction * window))))


def self_trained_runs(lm, documents: Sequence, fractions: Sequence[float], name: str) -> tuple[list, list]:
    """Score each of ``documents`` (with ``sentences``) whole with ``lm`` at each stride, a
    ``fraction`` of its window. Returns a row per stride (model, window, stride, minimum
    context, tokens computed per token scored) and, per stride, (log p per document, bytes
    per document)."""
    doc_ids = [C.document_ids(lm, d.sentences) for d in documents]
    doc_units = [C.document_counts(d.sentences) for d in documents]
    doc_bytes = np.array([u["byte"] for u in doc_units])
    W = lm.max_length
    rows, runs = [], []
    for f in fractions:
        stride = _stride(f, W)
        lp = np.array([x.sum() for x in lm.score_ids(doc_ids, stride=stride)])
        forwards = sum(e - b for ids in doc_ids for b, e, _ in lm.windows(len(ids) + 2, stride))
        runs.append((lp, doc_bytes))
        rows.append(
            {
                "model": name,
                "window": W,
                "stride": stride,
                "min. context": W - stride,
                "computed per scored": forwards / sum(len(i) + 1 for i in doc_ids),
            }
        )
    return rows, runs


def pretrained_runs(
    lm, texts: Sequence[str], fractions: Sequence[float], window: int, name: str
) -> tuple[list, list]:
    """As :func:`self_trained_runs` for a pretrained ``lm`` (its window cut to ``window``)
    over raw ``texts``, scored through the shared cache."""
    rows, runs = [], []
    for f in fractions:
        stride = _stride(f, window)
        s = memo.score(lm, texts, stride=stride)
        forwards = sum(e - b for n in s.n_tokens for b, e, _ in lm.windows(int(n) + 1, stride))
        runs.append((s.logprob, units.counts(s, "byte")))
        rows.append(
            {
                "model": name,
                "window": window,
                "stride": stride,
                "min. context": window - stride,
                "computed per scored": forwards / s.n_tokens.sum(),
            }
        )
    return rows, runs


def bits_per_byte(lp, n, n_boot: int, seed: int, min_documents: int = MIN_DOCUMENTS) -> Estimate:
    """Bits per byte of documents (log p and bytes of each), with a bootstrap interval over
    the documents where there are at least ``min_documents``, without (NaN) otherwise."""
    if len(n) >= min_documents:
        return units.bootstrap_rate(lp, n, "bits", n_boot, seed)
    return Estimate(units.from_nats(-lp.sum(), n.sum(), "bits"), np.nan, np.nan)


def stride_table(rows: Sequence[dict], doc_bits: Mapping[str, list], n_boot: int, seed: int) -> pd.DataFrame:
    """The rows of both runs with their bits per byte (:func:`bits_per_byte`)."""
    strides = pd.DataFrame(rows)
    strides["bits / byte"] = [
        bits_per_byte(lp, n, n_boot, seed) for m in strides["model"].unique() for lp, n in doc_bits[m]
    ]
    return strides


def gains(doc_bits: Mapping[str, list], n_boot: int, seed: int) -> tuple[dict, dict]:
    """Per model, bits per byte with disjoint windows minus with the smallest stride: paired
    over the documents with an interval, and per document."""
    stride_gain = {
        m: units.paired_difference(*runs[0], *runs[-1], "bits", n_boot, seed) for m, runs in doc_bits.items()
    }
    per_doc_gain = {m: (runs[0][0] - runs[-1][0]) / runs[0][1] / -np.log(2) for m, runs in doc_bits.items()}
    return stride_gain, per_doc_gain


def stride_findings(
    stride_gain: Mapping, per_doc_gain: Mapping, self_name: str, pre_name: str, n_self_docs: int
) -> dict:
    """What the chapter says of the gains, by glue name."""
    g = stride_gain[self_name]
    return {
        "stride_gain_self": float(g.value),
        "stride_gain_self_interval": f"[{g.low:.3f}, {g.high:.3f}]",
        "stride_gain_pre": float(stride_gain[pre_name].value),
        "stride_gain_pre_docs": ", ".join(f"{x:.3f}" for x in per_doc_gain[pre_name]),
        "stride_n_self_docs": n_self_docs,
        "stride_self_verdict": (
            "its gain's interval contains 0, so more context changes nothing measurable"
            if g.low <= 0 <= g.high
            else f"more context {'helps' if g.low > 0 else 'costs'} it a "
            f"little, {abs(g.value):.3f} bits per byte, beyond its interval"
        ),
    }


def stride_figure(strides: pd.DataFrame, color: Mapping[str, str]):
    """Bits per byte against the minimum context of a scored token, one line per model (no
    bars where there is no interval); the figure, closed."""
    fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.8))
    for m, g in strides.groupby("model", sort=False):
        y = np.array([e.value for e in g["bits / byte"]])
        lo = np.nan_to_num(y - np.array([e.low for e in g["bits / byte"]]))
        hi = np.nan_to_num(np.array([e.high for e in g["bits / byte"]]) - y)
        ax.errorbar(
            g["min. context"],
            y,
            yerr=[lo, hi],
            marker="o",
            capsize=3,
            color=color[m],
            label=f"{m} (window {g['window'].iloc[0]})",
        )
    ax.set_xlabel("minimum context of a scored token (window − stride, tokens)")
    ax.set_ylabel("bits per byte")
    ax.legend()
    ax.set_title("Sliding-window scoring of whole articles")
    plt.close(fig)
    return fig
