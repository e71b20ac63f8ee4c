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
# # The corpus
#
# Every study in this report needs human-written text: to train the self-trained models, to
# score the pretrained ones, and as the reference that generated text is compared with. The
# report embeds a real one so that every chapter runs offline from a fresh clone (the
# `corpus` parameter points the chapters at another). This page describes
# {glue:md}`corpus_what`.
#
# This chapter shows what that corpus is after cleaning: its size per split, how long its
# sentences are, and the two regularities the tendencies study
# {cite}`meister-cotterell-2021-language` will test generated text against, the rank–frequency
# (Zipf) and type–token (Heaps) relations.
#
# **Cleaning.** {glue:md}`corpus_cleaning` **Sentences** are split with `pysbd`, a rule-based splitter
# that handles abbreviations, initials and numbers without a trained model. **Words** are the
# Moses tokenization of the lower-cased text (`sacremoses`), the view the tendencies study uses;
# raw text is kept beside it for subword, character and byte models.
#
# **Splits** are by article, never by sentence, so no article contributes to two splits: each
# article goes to train, valid or test according to the SHA-256 hash of its title and a seed,
# which makes the assignment independent of the order of the source.

# %% tags=["parameters"]
corpus = "enwiki"  # "enwiki" (embedded), a .txt file or folder, or an HF id
fractions = [0.8, 0.1, 0.1]  # shares of articles in train, valid and test
split_seed = 0  # seeds the assignment of articles to splits
n_samples = 6  # sample sentences shown from the training split
sample_seed = 0  # seeds the choice of sample sentences
type_token_points = 60  # token counts (log-spaced) of the type–token curve

# %% tags=["remove-cell"]
import random

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from lmnotes.report import plots, tables
from lmnotes.report.glue import glue_md
from lmnotes.stats import laws
from lmnotes.text import corpus as lmcorpus

plots.use_style()
about = lmcorpus.describe(corpus)
glue_md("corpus_what", about["what"])
glue_md("corpus_cleaning", about["cleaning"])

# %%
data = lmcorpus.load(corpus, fractions=fractions, seed=split_seed)
train = data["train"]
train_tokens = [w for ws in train.words for w in ws]

# %% [markdown]
# ## Size
#
# The table counts, per split, the articles, the sentences, the words (Moses tokens), the
# characters and UTF-8 bytes of the raw sentences, and the distinct word types. The total row
# counts the types of the union of the splits.

# %% tags=["hide-input"]
stats = data.stats()
glue("n_articles", int(stats.loc["total", "articles"]), display=False)
glue("n_words", int(stats.loc["total", "words"]), display=False)
glue("n_sentences", int(stats.loc["total", "sentences"]), display=False)
glue("train_words", int(stats.loc["train", "words"]), display=False)
glue("train_types", int(stats.loc["train", "word types"]), display=False)
train_vocab = set(train_tokens)
oov_rate = np.mean([w not in train_vocab for ws in data["test"].words for w in ws])
glue("test_oov_pct", float(100 * oov_rate), display=False)
tables.show(stats, "Size of each split")

# %% [markdown]
# The cleaned corpus has {glue:text}`n_articles` articles, {glue:text}`n_sentences:,`
# sentences and {glue:text}`n_words:,` words; the training split alone has
# {glue:text}`train_words:,` words of {glue:text}`train_types:,` types. Small by the standards
# of language modelling, it is large enough for word statistics, and for the small models that
# a 2-core CPU trains in minutes. Because the splits are by article, the test split meets
# topics the training split never saw: {glue:text}`test_oov_pct:.1f`% of its words do not occur
# in the training split, which is what the closed-vocabulary models of later chapters will have
# to map to `<unk>`.
#
# ## Sentence length

# %% tags=["hide-input"]
lengths = pd.DataFrame(
    [(name, len(ws)) for name, split in data.splits.items() for ws in split.words],
    columns=["split", "words"],
)
length_summary = (lengths.groupby("split", sort=False)["words"]
                  .describe(percentiles=[0.1, 0.5, 0.9]))
glue("median_len", float(length_summary.loc["train", "50%"]), display=False)
glue("p90_len", float(length_summary.loc["train", "90%"]), display=False)
glue("median_len_valid", float(length_summary.loc["valid", "50%"]), display=False)
glue("median_len_test", float(length_summary.loc["test", "50%"]), display=False)

fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.6))
upper = int(lengths["words"].quantile(0.995))
for name, group in lengths.groupby("split", sort=False):
    ax.hist(group["words"].clip(upper=upper), bins=np.arange(0, upper + 2),
            density=True, histtype="step", lw=1.5,
            color=plots.SPLIT_COLORS[name], label=name)
ax.set(xlabel="sentence length (Moses tokens)", ylabel="fraction of sentences",
       title="Sentence lengths by split")
ax.legend(title="split")
glue("fig_lengths", fig, display=False)
plt.close(fig)
tables.show(length_summary, "Sentence length (Moses tokens) per split", digits=3,
            formats={"count": "{:,.0f}"})

# %% [markdown]
# ```{glue:figure} fig_lengths
# :name: fig-corpus-lengths
#
# Distribution of sentence lengths in Moses tokens, per split (lengths above the 99.5th
# percentile are drawn at that percentile). The summary table above gives the numbers.
# ```
#
# The median training sentence has {glue:text}`median_len:.0f` words and nine in ten have at
# most {glue:text}`p90_len:.0f`; the medians of the valid and test splits are
# {glue:text}`median_len_valid:.0f` and {glue:text}`median_len_test:.0f`.
#
# ## Rank–frequency
#
# Sorting the word types of the training split by frequency and plotting frequency against
# rank on log–log axes gives the familiar near-straight line of Zipf's law,
# $f(r) \propto r^{-s}$; the tendencies chapter fits $s$ by maximum likelihood and asks whether
# generated text follows the same curve.

# %% tags=["hide-input"]
rf = laws.rank_frequency(train_tokens)
hapax = int((rf["count"] == 1).sum())
glue("n_hapax", hapax, display=False)
glue("hapax_pct", 100 * hapax / len(rf), display=False)
glue("top10_pct", 100 * float(rf["freq"].head(10).sum()), display=False)

fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.8))
ax.loglog(rf["rank"], rf["freq"], ".", ms=2, color=plots.SPLIT_COLORS["train"])
ax.set(xlabel="rank $r$ of the word type", ylabel="relative frequency $f(r)$",
       title="Rank–frequency, training split")
glue("fig_rank_frequency", fig, display=False)
plt.close(fig)
tables.show(rf.head(10).set_index("rank"), "The ten most frequent word types",
            formats={"freq": "{:.5f}"})

# %% [markdown]
# ```{glue:figure} fig_rank_frequency
# :name: fig-corpus-rank-frequency
#
# Relative frequency of each word type of the training split against its frequency rank,
# log–log. The table above lists the ten most frequent types.
# ```
#
# The ten most frequent types make up {glue:text}`top10_pct:.1f`% of the training tokens,
# while {glue:text}`n_hapax:,` types ({glue:text}`hapax_pct:.0f`% of all types) occur exactly
# once: the long tail that the word-level and distortion chapters probe.
#
# ## Type–token relation
#
# Reading the training split in order and counting the distinct types seen after $n$ tokens
# gives the type–token curve $V(n)$. Heaps' law says $V(n) \approx K n^{\beta}$ with
# $\beta < 1$: new types keep appearing, ever more slowly.

# %% tags=["hide-input"]
tt = laws.type_token_curve(train_tokens, points=type_token_points)
upper_half = tt.iloc[len(tt) // 2:]
slope = np.polyfit(np.log(upper_half["tokens"]), np.log(upper_half["types"]), 1)[0]
glue("tt_slope", float(slope), display=False)

fig, ax = plt.subplots(figsize=(plots.COLUMN, 3.8))
ax.loglog(tt["tokens"], tt["types"], "-", color=plots.SPLIT_COLORS["train"],
          label="training split")
ax.loglog(tt["tokens"], tt["tokens"], ":", color="grey",
          label="$V(n) = n$ (every token new)")
ax.set(xlabel="tokens read $n$", ylabel="distinct types $V(n)$",
       title="Type–token curve, training split")
ax.legend()
glue("fig_type_token", fig, display=False)
plt.close(fig)
points = tt.iloc[np.linspace(0, len(tt) - 1, 8).round().astype(int)]
tables.show(points.set_index("tokens"), "The type–token curve at eight points")

# %% [markdown]
# ```{glue:figure} fig_type_token
# :name: fig-corpus-type-token
#
# Number of distinct word types among the first $n$ tokens of the training split (articles in
# the order of the source), log–log; the dotted line is the upper bound $V(n) = n$. The table above gives
# the curve at eight points.
# ```
#
# On log–log axes the upper half of the curve has a slope of {glue:text}`tt_slope:.2f` (a
# least-squares line, a quick look; the tendencies chapter fits Heaps' law properly).
#
# ## Sample sentences
#
# A few sentences of the training split, drawn with a fixed seed, as raw text (what subword
# models see) beside their Moses-tokenized, lower-cased words (what word statistics count).

# %% tags=["hide-input"]
rng = random.Random(sample_seed)
pairs = list(zip(train.sentences, train.words))
samples = rng.sample(pairs, min(n_samples, len(pairs)))
tables.show(pd.DataFrame({"raw sentence": [s for s, _ in samples],
                          "Moses words": [" ".join(ws) for _, ws in samples]}),
            index=False)
