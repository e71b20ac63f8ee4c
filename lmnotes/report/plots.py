"""The book's figure style: one look, one colour per model in every chapter. Every chapter calls
:func:`use_style` once and takes its colours from :func:`model_color`.

- Figures are drawn at the width of the book's text column (6.8 in at 100 dpi) and shown as
  PNG at twice that resolution (IPython's "retina" format), so they are sharp on high-density
  screens; a figure with several panels stacks them in a grid of that width, with one x-label
  and one legend for the figure (:func:`figure_legend`), outside the data.
- Colours come from colour-blind-safe palettes (Okabe & Ito; Tol), one per model; the test
  set (the reference every sample is compared with) is black and human text grey.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import matplotlib as mpl
import seaborn as sns


#: Width of the book's text column in inches at the figures' 100 dpi (676 px at 1280 px).
COLUMN = 6.8

#: One colour per split, the same in every chapter.
SPLIT_COLORS = {"train": "#0072B2", "valid": "#E69F00", "test": "#009E73"}

#: One colour per model, the same in every chapter, from the colour-blind-safe palettes of
#: Okabe & Ito and of Tol; related models (the BPE Transformers of several vocabulary sizes)
#: get related hues.
MODEL_COLORS = {
    "wiki/transformer-bpe8k": "#0072B2",  # blue
    "wiki/transformer-bpe4000": "#56B4E9",  # sky blue
    "wiki/transformer-bpe1000": "#a6d3f0",  # pale blue
    "wiki/transformer-word": "#009E73",  # bluish green
    "wiki/transformer-byte": "#CC79A7",  # reddish purple
    "wiki/transformer-char": "#e7b9d5",  # pale purple
    "wiki/lstm-bpe8k": "#E69F00",  # orange
    "wiki/trigram-word-mle": "#332288",  # indigo
    "wiki/kn3-word": "#999933",  # olive
    "smollm2-135m": "#D55E00",  # vermilion
    "gemma3-270m": "#882255",  # wine
}
#: Short names of the models for legends and tables (the tendencies chapter's, as in its source).
LABELS = {
    "wiki/transformer-bpe8k": "Transformer",
    "wiki/transformer-word": "Transformer (word)",
    "wiki/lstm-bpe8k": "LSTM",
    "wiki/trigram-word-mle": "Trigram",
    "smollm2-135m": "SmolLM2-135M",
    "gemma3-270m": "Gemma-3-270M",
}
#: The reference text and human samples.
REFERENCE_COLOR, HUMAN_COLOR = "#000000", "#7f7f7f"
_SPARE = ["#b15928", "#1f78b4", "#33a02c", "#e31a1c", "#ff7f00", "#cab2d6"]


def label(model: str) -> str:
    """The short name of a model: its registered name if it has none, a file's or folder's
    own name for a path (a table's row is not 90 characters of the reader's folders)."""
    if model in LABELS:
        return LABELS[model]
    return Path(model).name if model.startswith(("/", "~", ".")) or model.endswith(".gguf") else model


def model_color(model: str) -> str:
    """The colour of a model, by registered name or short label; a model the book does not
    know gets a spare colour chosen by its name, the same in every chapter."""
    model = {v: k for k, v in LABELS.items()}.get(model, model)
    base = model.split(" + ")[0]  # "wiki/kn3-word + speller" is drawn in its model's colour
    if base in MODEL_COLORS:
        return MODEL_COLORS[base]
    return _SPARE[int(hashlib.sha1(base.encode()).hexdigest(), 16) % len(_SPARE)]


def use_style() -> None:
    """Seaborn's white-grid theme at the size of the text column, retina PNG output."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind", font_scale=0.9)
    mpl.rcParams.update(
        {
            "figure.figsize": (COLUMN, 4.0),
            "figure.dpi": 100,
            "savefig.dpi": 200,
            "figure.constrained_layout.use": True,
            "axes.titleweight": "bold",
            "axes.titlesize": "medium",
            "legend.fontsize": "small",
            "legend.frameon": False,
            "svg.hashsalt": "lmnotes",  # stable ids if a figure is ever written as SVG
        }
    )
    try:  # in a notebook: PNG at twice the resolution, shown at the figure's size
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("retina")
    except ImportError:  # outside IPython there is nothing to configure
        pass


def figure_legend(fig, axes, ncol: int | None = None, **kw):
    """One legend for the whole figure, above its panels (below them is the shared x-label),
    built from the handles of every panel (each label once, in the order first met)."""
    handles, labels = {}, []
    for ax in axes.ravel() if hasattr(axes, "ravel") else [axes]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    if not labels:
        return None
    return fig.legend(
        [handles[lab] for lab in labels],
        labels,
        loc="outside upper center",
        ncol=ncol or min(len(labels), 4),
        **kw,
    )


def plain_log(ax, axis: str = "x", ticks=None) -> None:
    """A log-scaled axis labelled with plain numbers (0.5, 1, 2, 5 rather than 5 × 10⁻¹) at
    ``ticks`` (matplotlib's major ticks if None), without minor labels that would collide."""
    import matplotlib.ticker as mticker

    which = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    if ticks is not None:
        which.set_major_locator(mticker.FixedLocator(ticks))
    which.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:,g}"))
    which.set_minor_formatter(mticker.NullFormatter())
