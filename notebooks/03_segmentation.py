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
# # Comparing perplexity across segmentations
#
# A language model is a distribution over strings. How it cuts a string into tokens (words,
# subwords, characters, bytes) is an implementation choice, yet the number most often
# reported, perplexity *per token*, depends on it. {cite:t}`mielke-2019-compare` asks when
# perplexities of models with different segmentations can be compared, and answers:
#
# 1. perplexities per *token* of models with different segmentations are not comparable;
# 2. measures whose denominator does not depend on the segmentation (per word, per
#    character, bits per character) are comparable, for open-vocabulary models, and a
#    measure per one unit converts to any other;
# 3. a closed vocabulary gives a model a large advantage (it spends no probability on the
#    strings it cannot produce) that makes its perplexity incomparable with an
#    open-vocabulary model's;
# 4. the probability of a string is the sum over all its segmentations, but the difference
#    from the canonical segmentation's probability is negligible (the post's footnote 6).
#
# This chapter recomputes the post's worked examples, then measures each claim on real
# models: one Transformer architecture trained on this report's corpus with each of several
# segmentations, and a pretrained model with a tokenizer of its own (SmolLM2's; Gemma-3's,
# five times larger, is one `-p pretrained` away). It goes past the post where the post
# stops: it *estimates* the marginal over segmentations.

# %% [markdown]
# :::{admonition} What this chapter found
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# :::

# %% tags=["parameters"]
# the Transformer family: char, byte, bpe<types>, word
segmentations = ["byte", "bpe1000", "bpe8000", "word"]
pretrained = ["smollm2-135m"]  # scored on the test split
size = "cpu"  # size of the self-trained models: "cpu" or "gpu"
device = "cpu"  # "cpu", "cuda" or "auto"
corpus = "enwiki"  # what the models learn and are tested on
max_sentences_pretrained = 400  # test sentences for the pretrained (0: all)
n_boot = 1000  # bootstrap resamples per interval
open_model = "bpe8000"  # the open member compared with the word model
n_open_samples = 500  # its samples, for its mass on unknown words
speller_order = 4  # order of the character n-gram spelling <unk> (≤ 4)
stride_model = "bpe8000"  # the member scored with a sliding window
stride_fractions = [1.0, 0.5, 0.25, 0.125]  # strides, as shares of window
stride_pretrained_window = 256  # window of the first pretrained model there
stride_pretrained_documents = 3  # test articles it scores per stride
marginal_model = "bpe8000"  # the member whose marginal is estimated
n_marginal = 50  # test sentences for its marginal
n_marginal_pretrained = 6  # test sentences for the pretrained model's
max_marginal_bytes = 120  # longest sentence (bytes) for the marginal
n_is_samples = 32  # importance samples per word or pretrained sentence
is_sweep = [32, 64, 128, 256]  # draws per sentence in the sweep
n_coverage_runs = 20  # runs per word that check the interval's coverage
is_stay = 0.5  # the guided proposal draws s* with at least this probability
is_explore = 0.5  # share of its uniform draw over the candidate tokens
# strings whose segmentations are enumerated
exact_words = [" raining", " deforestation", " segmentation", " perplexity",
               " Wikipedia"]
max_segmentations = 1000  # enumeration limit per string
negligible_share = 0.01  # "negligible" gap, as a share of bits per char
negligible_share_alt = 0.005  # a stricter choice
n_prefix_sentences = 20  # sentences scored after another prefix token
prefix_alternative = ""  # that token ("": the BOS its model file declares)
seed = 0  # seeds sampling, subsets, importance sampling and the bootstrap

# %% tags=["remove-cell"]
import numpy as np
import pandas as pd
from myst_nb import glue

from lmnotes import models
from lmnotes.models import budget, memo, recipes
from lmnotes.models.trained import on_corpus
from lmnotes.report import claims as lmclaims, plots, sections, tables
from lmnotes.report.sections import Measured
from lmnotes.report.glue import glue_all
from lmnotes.stats import units
from lmnotes.studies.segmentation import comparability as C
from lmnotes.studies.segmentation import claims as segmentation_claims
from lmnotes.studies.segmentation import closed, estimates, family as FAM
from lmnotes.studies.segmentation import pretrained as PRE
from lmnotes.studies.segmentation import strides as strides_study
from lmnotes.studies.segmentation.family import label
from lmnotes.text import corpus as lmcorpus

plots.use_style()

# %% tags=["hide-input"]
data = lmcorpus.load(corpus)
test = data["test"].sentences
article = data["test"].article_ids()
rng = np.random.default_rng(seed)
family = {spec: on_corpus(recipes.transformer(spec), size=size,
                          corpus=corpus, device=device)
          for spec in segmentations}
glue_all(FAM.corpus_facts(data, segmentations))

# %% [markdown]
# ## The post's worked examples
#
# The post illustrates its argument with numbers. Each is recomputed here from the inputs the
# post gives (probabilities, perplexities, and the counts of words and characters of its
# strings, recounted), with `lmnotes.stats.units`, the one implementation of every unit
# conversion in this report. *follows* says whether the printed value is the recomputed one
# rounded as printed.

# %% tags=["hide-input"]
examples = C.worked_examples()
glue("n_examples", len(examples), display=False)
glue("n_examples_follow", int(examples["follows"].sum()), display=False)
tables.show(examples.set_index("quantity"),
            "The post's worked examples, recomputed",
            formats={"printed": "{:.6g}", "recomputed": "{:.6g}"})

# %% [markdown]
# {glue:text}`n_examples_follow` of the {glue:text}`n_examples` printed numbers follow from
# their inputs. The others do not, for three reasons, none of which touches the argument:
# the character perplexity of the first sentence divides by 22 where the formula says 22+1;
# the word-model example multiplies 0.1 and 0.01 where its listed conditionals are 0.01 and
# 0.001 (so 42.04 is right for the product; the formula that sums the listed conditionals
# gives the row *ppl per word from the listed conditionals*); and the last example rounds
# the negative log-likelihoods to one decimal before exponentiating and counts "the deforestation" as 16 characters (it has 17).
# The post's conclusion, that segmentation 2 is the better model despite its higher
# perplexity per subword, holds with the exact numbers.
#
# ## Measures
#
# For test strings $x^{(1)},\dots,x^{(N)}$ with total log-likelihood
# $\log p = \sum_i \log p(x^{(i)})$ (natural logarithms; each string's probability includes
# its end-of-sequence symbol) and $n_u$ units of kind $u$ in total,
#
# $$\mathrm{ppl}_u = \exp\Big(-\frac{\log p}{n_u}\Big), \qquad
#   \mathrm{bits}_u = -\frac{\log p}{n_u \ln 2},$$
#
# $$-\log p = n_u \ln \mathrm{ppl}_u = n_{u'} \ln \mathrm{ppl}_{u'} .$$
#
# Only $n_u$ depends on the unit; the last identity is the post's conversion. Two
# conventions count the units:
#
# - **string** (the post's): end-of-sequence counts as one more unit of every kind
#   ($n_u + 1$ per string); tokens are the model's predictions, EOS included;
# - **harness** (the common evaluation harnesses', e.g. the `word_perplexity` and
#   `bits_per_byte` of {cite:t}`gao-etal-2021-harness`): the text's tokens are scored, EOS is not; *words*
#   are the whitespace-separated strings of the original text and *bytes* its UTF-8 bytes.
#
# Every figure below carries a 95% bootstrap interval over the test *articles* (the harnesses
# report none): an article's sentences are resampled together, because they share a topic
# and are not independent draws. The test split has only {glue:text}`n_test_articles`
# articles, so each interval rests on few clusters, and the normal quantile would cover too
# little: it takes Student's $t$ with one degree of freedom fewer than the articles
# (`lmnotes.stats.quantile`). A rough guide to the spread, wider (and more honest) than one
# that treats the sentences as independent; a corpus with a larger test split (the `corpus`
# parameter) narrows them.
#
# ## One architecture, several segmentations
#
# The Transformer of {doc}`01_models` (same size, same training budget, same seed) trained on
# the corpus's training sentences with each of {glue:text}`n_segmentations` segmentations
# (the `segmentations` parameter): UTF-8 bytes, byte-level BPE at different vocabulary sizes,
# and words with a closed vocabulary (types seen at least twice in training; the rest
# `<unk>`). A character model is one `-p segmentations` away; on this corpus, where
# {glue:text}`non_ascii_pct`% of the training characters lie outside ASCII, it is a
# near-copy of the byte model, and both profiles spend their minutes elsewhere. All are
# scored on the {glue:text}`n_test:,` test sentences of {glue:text}`n_test_articles` articles
# ({glue:text}`n_test_bytes:,` bytes).

# %% tags=["hide-input"]
# as chapter 01's
scores = {spec: memo.score(lm, test) for spec, lm in family.items()}
rates = {spec: FAM.rate_row(s, n_boot, seed, article)
         for spec, s in scores.items()}
# training steps and epochs
budgets = budget.budget_table(family, data["train"].sentences, size)
family_table = FAM.family_table(family, scores, rates, budgets, segmentations)
about = ["vocabulary", "open", "epochs", "tokens"]
display(tables.show(family_table[about],
                    "The family: one architecture, several segmentations",
                    formats={"epochs": 2}))
short_names = lambda c: c.replace("perplexity", "ppl")
tables.show(family_table[FAM.COLUMNS].rename(columns=short_names),
            "Test scores (string convention; 95% interval over test "
            "articles underneath)")

# %% [markdown]
# The conversion, in code: each member's per-token perplexity in the table and its token
# count give the test split's $-\log p$, and dividing by its bytes (EOS counted once per
# string, the string convention) gives its bits per byte, the table's other column:

# %%
for spec, s in scores.items():
    # tokens count each string's EOS already; bytes count it once more
    n_token, n_byte = s.n_tokens.sum(), (s.n_bytes + 1).sum()
    ppl_token = rates[spec]["perplexity / token"].value
    nll = n_token * np.log(ppl_token)  # -log p = n_u ln ppl_u
    bits_byte = nll / (n_byte * np.log(2))
    assert np.isclose(bits_byte, rates[spec]["bits / byte"].value)
    print(f"{FAM.label(spec):>13}: -log p = {nll:9,.0f} nats over "
          f"{n_byte:,} bytes → {bits_byte:.4f} bits/byte")

# %% [markdown]
# The models differ in how many predictions they make for the same text (the *tokens*
# column), so their per-token perplexities answer different questions: the byte model
# chooses among a few hundred symbols at each of many steps, the word model among thousands
# at each of few. The figure sets the per-token perplexity against bits per byte, which
# counts the same bytes for every model.

# %% tags=["hide-input"]
# does per-token perplexity grow with the vocabulary? does the budget order
# bits per byte?
glue_all(FAM.order_findings(family, rates, budgets,
                          segmentations))
fig = FAM.family_figure(family, rates, segmentations)
glue("fig_family", fig, display=False)

# %% [markdown]
# ```{glue:figure} fig_family
# :name: fig-family
# Per-token perplexity against bits per byte for the Transformer trained with each
# segmentation (square: the closed-vocabulary word model). {glue:text}`ppl_vocab_sentence`
# Bits per byte orders the models by the probability they give the same text; but the
# models saw their training text a different number of times (the *epochs* column: an
# equal budget of tokens is not an equal budget of text), and {glue:text}`epoch_order_sentence`
# ```
#
# The rankings (1: the lowest value), and Kendall's τ between each measure's ranking and the
# per-token ranking (1: the same order).

# %% tags=["hide-input"]
ranks, tau = FAM.rankings(rates, segmentations)
open_specs = [s for s in segmentations if family[s].seg.open_vocabulary]
best_token = ranks["perplexity / token"].idxmin()
best_byte = ranks["bits / byte"].idxmin()
glue("best_token", best_token, display=False)
glue("best_byte", best_byte, display=False)
glue("tau_byte", float(tau["bits / byte"]), display=False)
display(tables.show(ranks.rename(columns=short_names),
                    "Rank of each model by each measure"))
tables.show(pd.DataFrame(tau, index=["Kendall τ with the per-token order"])
            .rename(columns=short_names),
            formats={short_names(c): 3 for c in FAM.COLUMNS})

# %% [markdown]
# By perplexity per token the best model is the **{glue:text}`best_token`** one; by bits per
# byte it is the **{glue:text}`best_byte`** one (τ = {glue:text}`tau_byte:.2f` between the
# two orders). The four segmentation-independent measures give one order: they are the same
# total log-likelihood divided by the same counts for every model, so they cannot disagree.
# Whether the comparison is *fair* is another matter: the word model's figures include
# `<unk>`, the next section.
#
# ## The closed vocabulary
#
# The word model cannot produce a word it has not kept: it predicts `<unk>` in its place. On a
# test sentence with such a word its log-likelihood is that of the sentence with the word
# *replaced by* `<unk>`, a set of strings rather than the string; and the probability mass
# that an open model spends on strings with unknown words, the closed model spends on the
# strings it can produce. Both favour the closed model. We measure each.

# %% tags=["hide-input"]
word_lm, open_lm = family["word"], family[open_model]
seg = word_lm.seg
cov = C.vocabulary_coverage(seg, test)
has_oov = np.array([bool(C.oov_tokens(seg, s)) for s in test])
glue("oov_token_rate", float(100 * cov["oov token rate"]), display=False)
glue("oov_sentence_rate", float(100 * cov["texts with oov"]), display=False)
glue("word_vocab", word_lm.vocab_size, display=False)

# the speller: a Kneser-Ney character n-gram over the training words the
# vocabulary maps to <unk> (one string per occurrence), renormalised to the
# strings outside it
speller = C.train_speller(seg, data["train"].sentences, speller_order,
                          corpus)
glue("n_unk_train", speller.n_words, display=False)
glue("speller_order_used", speller_order, display=False)
glue("speller_vocab_mass", float(100 * speller.vocab_mass), display=False)

word_raw = scores["word"].logprob
word_open = C.open_word_logprob(word_raw, test, seg, speller)
n_char = scores["word"].n_chars + 1  # string convention: EOS is one more
closed_rows = {
    "word, <unk> as a word": word_raw,
    "word, <unk> spelled out": word_open,
    **{label(s): scores[s].logprob for s in open_specs},
}
closed_table = closed.bpc_by_subset(closed_rows, has_oov, n_char, article,
                                    n_boot, seed)
tables.show(closed_table, "Bits per character, by sentences (how many); "
            "95% interval underneath")

# %% [markdown]
# Of the test sentences, {glue:text}`oov_sentence_rate:.1f` % hold at least one word outside
# the word model's {glue:text}`word_vocab:,` types ({glue:text}`oov_token_rate:.1f` % of the
# word tokens). The row *`<unk>` spelled out* makes the word model open: after each `<unk>` it
# predicts the actual word with a character {glue:text}`speller_order_used`-gram trained on the
# {glue:text}`n_unk_train:,` word tokens of the training split that the vocabulary maps to
# `<unk>`, renormalised to the strings outside the vocabulary (the n-gram gives
# {glue:text}`speller_vocab_mass:.1f` % of its mass to in-vocabulary words, which the word
# model already covers): the two-level construction of {cite:t}`mielke-eisner-2019-spell`,
# with a simpler speller.
#
# The second effect, the mass an open model spends on strings the word model cannot produce,
# is measured by sampling: the share of the open {glue:text}`open_label` model's samples that
# contain a word outside the vocabulary estimates that mass, $m$. Restricted to the closed
# model's strings and renormalised, the open model would gain $-\log_2(1-m)$ bits on *every*
# sentence without unknown words.

# %% tags=["hide-input"]
glue("open_label", label(open_model), display=False)
samples = memo.sample(open_lm, n_open_samples, "ancestral",
                      max_tokens=open_lm.max_length, seed=seed)
mass = C.oov_mass(seg, samples.texts, samples.finished)
# the word model's advantage over the open model, all sentences, in parts
adv = closed.decompose(scores[open_model].logprob, word_raw, word_open,
                       n_char, has_oov, mass)
glue_all(closed.mass_values(mass) | adv.values())
glue("word_epochs", float(budgets.loc["word", "epochs"]), display=False)
glue("open_epochs", float(budgets.loc[open_model, "epochs"]), display=False)
tables.show(adv.table(), "Where the word model's advantage comes from",
            formats={"bits / char": 4, "share of the advantage (%)": 1})

# %% [markdown]
# {glue:text}`oov_mass:.1f` % of the open model's {glue:text}`n_mass_samples` samples
# (95% interval {glue:text}`oov_mass_low:.1f`–{glue:text}`oov_mass_high:.1f` %) hold a word
# the closed model cannot produce. Renormalising the open model to the closed model's
# strings would lower its bits per character on the sentences without unknown words by
# only {glue:text}`renorm_bits_char:.4f`: {glue:text}`renorm_bits_sentence:.1f` bits per
# sentence, spread over the sentence's many characters. Scoring `<unk>` as if it were the
# word explains {glue:text}`unk_share:.0f` % of the word model's advantage, the
# renormalisation, the post's mechanism, {glue:text}`renorm_share:.1f` %. The rest is
# unexplained by the vocabulary, and this chapter cannot split it further. It includes the
# training budget (the word model saw its training text {glue:text}`word_epochs:.2f` times,
# the {glue:text}`open_label` model {glue:text}`open_epochs:.2f` times), the models
# themselves (a word model makes a few predictions per sentence, each over a unit a
# character model must spell out), and the tokenization the word model stands on, which is
# not reversible: the word model never predicts spacing, which the open models pay for on
# every character (the conversion to raw strings needs a reversible tokenization, as the
# post's last paragraph says).
#
# ## Pretrained models: tokens, words and bytes
#
# SmolLM2-135M (a byte-level BPE; `-p pretrained '[smollm2-135m, gemma3-270m]'` adds
# Gemma-3-270M, a SentencePiece
# vocabulary with byte fallback; the table gives the vocabulary sizes) was trained on web
# text, not on this corpus. Both
# conventions are shown: the string convention of this report, and the harness convention
# (whitespace words and UTF-8 bytes of the original text, EOS not scored).

# %% tags=["hide-input"]
# chapter 01's subset
sub_idx = data["test"].sentence_sample(max_sentences_pretrained, seed)
sub = [test[i] for i in sub_idx]
glue("n_pretrained_sentences", len(sub), display=False)
pre_models = {name: models.load(name, device=device) for name in pretrained}
pre_scores = {name: memo.score(lm, sub) for name, lm in pre_models.items()}
pre_table = PRE.convention_table(pre_models, pre_scores, article[sub_idx],
                               n_boot, seed)
tables.show(pre_table,
            "Pretrained models on the test subset, in both conventions")

# %% [markdown]
# The table scores {glue:text}`n_pretrained_sentences` test sentences. A model with a
# larger vocabulary needs fewer tokens for the same text; per token it must choose among
# more types, so its perplexity per token carries its tokenizer as well as its quality,
# while bits per byte and perplexity per word compare models whatever their tokenizers
# (Gemma-3, with five times SmolLM2's types, is one `-p pretrained` away). The
# conventions move every figure (EOS is a hard prediction for a model trained on
# documents, not sentences).
#
# Every sentence is scored after a *prefix* token (the *prefix* column), which is part of
# the convention too. For {glue:text}`stride_pre_name` this report uses
# {glue:text}`prefix_ours`, the separator of documents in its pretraining data. The
# model's file declares {glue:text}`prefix_alt` as its BOS (SmolLM2's chat format begins
# every turn with it), and lm-evaluation-harness prefixes the declared BOS. On
# {glue:text}`n_prefix_used` of the sentences, drawn at random, that prefix changes the harness convention's
# bits per byte from {glue:text}`prefix_bpb_ours:.3f` to {glue:text}`prefix_bpb_alt:.3f`
# ({glue:text}`prefix_diff:+.3f`): a reported figure needs its prefix token as well as its
# counting convention.

# %% tags=["hide-input"]
# drawn at random from the subset, so that they come from several articles
prefix_ids = np.sort(np.random.default_rng([seed, 2]).choice(
    sub_idx, min(n_prefix_sentences, len(sub_idx)), replace=False))
prefix_texts = [test[i] for i in prefix_ids]
# the model of the prefix check, the stride study and the marginal
pre_name = pretrained[0]
prefix_ours, prefix_alt = PRE.prefix_tokens(pre_models[pre_name], pre_name,
                                          prefix_alternative)
alt_lm = models.load(pre_name, device=device, bos=prefix_alt)
prefix_bpb, prefix_diff = PRE.prefix_check(
    {"ours": pre_models[pre_name], "alt": alt_lm}, prefix_texts,
    article[prefix_ids], n_boot, seed)
glue("prefix_alt", prefix_alt, display=False)
glue("prefix_ours", prefix_ours, display=False)
glue("n_prefix_used", len(prefix_texts), display=False)
glue("prefix_bpb_ours", float(prefix_bpb["ours"].value), display=False)
glue("prefix_bpb_alt", float(prefix_bpb["alt"].value), display=False)
glue("prefix_diff", float(prefix_diff.value), display=False)
glue("prefix_diff_interval",
     f"[{prefix_diff.low:+.3f}, {prefix_diff.high:+.3f}]", display=False)
tables.show(pd.DataFrame({"prefix": [prefix_ours, prefix_alt],
                          "bits / byte (harness)": [prefix_bpb["ours"],
                                                    prefix_bpb["alt"]]},
                         index=pd.Index([pre_name] * 2, name="model")),
            "The prefix token moves bits per byte (harness convention)")

# %% [markdown]
# The difference, {glue:text}`prefix_diff:+.3f` bits per byte, has a paired interval of
# {glue:text}`prefix_diff_interval` over the sentences' articles.
#
# ## Sliding windows over long documents
#
# A document longer than a model's window is scored window by window; a window moved by a
# stride $s$ scores its last $s$ tokens with at least $W - s$ tokens of context. A smaller
# stride gives each token more context and costs $W/s$ times more computation. The
# self-trained model scores each test article as its training stream ({glue:text}`stride_label`
# over sentences separated by `<s>`, window {glue:text}`stride_window` tokens);
# {glue:text}`stride_pre_name` scores the raw text of the {glue:text}`stride_pre_docs`
# shortest articles with its window cut to {glue:text}`stride_pre_window` tokens.

# %% tags=["hide-input"]
stride_lm = family[stride_model]
articles = data["test"].documents
self_label = label(stride_model)
glue("stride_label", self_label, display=False)
glue("stride_window", stride_lm.max_length, display=False)
self_rows, self_runs = strides_study.self_trained_runs(
    stride_lm, articles, stride_fractions, self_label)

pre_lm = models.load(pre_name, device=device,
                     max_length=stride_pretrained_window)
by_length = sorted(articles, key=lambda d: len(d.text))
shortest = by_length[:stride_pretrained_documents]
texts = [d.text for d in shortest]
glue("stride_pre_name", pre_name, display=False)
glue("stride_pre_docs", len(texts), display=False)
glue("stride_pre_window", stride_pretrained_window, display=False)
pre_rows, pre_runs = strides_study.pretrained_runs(
    pre_lm, texts, stride_fractions[:3], stride_pretrained_window, pre_name)

# per model, per stride: (log p, bytes) of each document
doc_bits = {self_label: self_runs, pre_name: pre_runs}
strides = strides_study.stride_table(self_rows + pre_rows, doc_bits, n_boot,
                                     seed)
# the gain from the smallest stride: disjoint windows minus the smallest stride
stride_gain, per_doc_gain = strides_study.gains(doc_bits, n_boot, seed)
glue_all(strides_study.stride_findings(stride_gain, per_doc_gain,
                                       self_label, pre_name,
                                       len(articles)))

color = {self_label: plots.model_color(stride_lm.name),
         pre_name: plots.model_color(pre_name)}
fig = strides_study.stride_figure(strides, color)
glue("fig_stride", fig, display=False)
tables.show(strides.set_index(["model", "stride"]),
            "Sliding windows (computed per scored: tokens computed per "
            "token scored; no interval for fewer than "
            f"{strides_study.MIN_DOCUMENTS} documents)",
            formats={"computed per scored": 2})

# %% [markdown]
# ```{glue:figure} fig_stride
# :name: fig-stride
# Bits per byte of whole test articles against the minimum context a scored token gets,
# for strides from the whole window down to an eighth of it. The self-trained model's
# intervals resample its {glue:text}`stride_n_self_docs` articles; the pretrained model
# scores {glue:text}`stride_pre_docs` articles, too few for an interval, so it has none.
# ```
#
# Bits per byte with disjoint windows minus bits per byte with the smallest stride, paired by
# article: {glue:text}`stride_gain_self:.3f` for the self-trained model (95% interval
# {glue:text}`stride_gain_self_interval`, over its articles), and
# {glue:text}`stride_gain_pre:.3f` for {glue:text}`stride_pre_name`, whose
# {glue:text}`stride_pre_docs` articles each gain ({glue:text}`stride_gain_pre_docs`); this at
# the computational cost of the column *computed per scored* (tokens computed per token
# scored). The pretrained model, trained on long
# documents, turns the extra context into probability in every article it scores; the
# self-trained one, whose training stream is sentences separated by `<s>` in windows of
# {glue:text}`stride_window` tokens, has learned to use little beyond the current sentence:
# {glue:text}`stride_self_verdict`. A bits-per-byte figure of
# a long-document benchmark is therefore incomplete without its window and stride, and how
# much they matter depends on the model.
#
# (fold-03-marginal)=
# ## Beyond the post: the marginal over segmentations
#
# A subword model assigns probability to token sequences, and many of them spell the same
# string: the tokenizer's canonical `rain|ing`, but also `r|ain|ing` and, down to single
# bytes, `r|a|i|n|i|n|g`, all in the vocabulary. The string's probability is the sum over
# its segmentations $S(x)$,
#
# $$p(x) = \sum_{s \in S(x)} p(s) \;\ge\; p(s^*(x)),$$
#
# of which the canonical segmentation $s^*$ is one term. For short strings the sum can be
# enumerated. For sentences it is estimated by importance sampling (`lmnotes.studies.segmentation.marginal`).
# The natural proposal is the *constrained* sampler of {cite:t}`cao-rimell-2021-evaluate`:
# walk the string left to right, drawing each token from the model's own next-token
# distribution restricted to the tokens that continue the string; a drawn segmentation's
# weight is then the product of the restricted masses,
#
# $$w(s) = \frac{p(s)}{q(s)} = \Big(\prod_i Z_i\Big)\, p(\mathrm{EOS} \mid s), \qquad
#   Z_i = \sum_{t \in C_i} p(t \mid t_{<i}), \qquad \mathbb{E}_q[w] = p(x),$$
#
# with $C_i$ the tokens that continue the string. It is unbiased in probability, but
# myopic: it prefers `per` to `perplexity` because `per` is the likelier *token*, though a
# model trained on canonical segmentations gives almost nothing to what follows. It then
# rarely draws $s^*$, which often holds most of $p(x)$, and its estimates scatter widely,
# often *below* $p(s^*)$, a lower bound of the quantity estimated (the tables count how
# often). This chapter's
# estimator changes two things. Its proposal is *guided*: wherever the walk stands on a
# boundary of $s^*$ it takes the canonical token $c$ with probability $a$, and otherwise
# mixes the restricted model with a uniform draw over $C_i$ (a defensive mixture,
# {cite:t}`hesterberg-1995-defensive`; share {glue:text}`is_explore_used`),
#
# $$q(t_i \mid t_{<i}) = a\,[t_i = c] + (1 - a)\Big((1 - e)\frac{p(t_i \mid t_{<i})}{Z_i}
#   + \frac{e}{|C_i|}\Big), \qquad a = \mathit{stay}^{1/|s^*|},$$
#
# so that $s^*$ is drawn with probability at least *stay* = {glue:text}`is_stay_used`. And
# it is *stratified*: the canonical term is computed exactly, the rest sampled,
#
# $$\hat p(x) = p(s^*) + \frac1N \sum_{k=1}^N w(s_k)\,[s_k \ne s^*], \qquad
#   \mathbb{E}\big[\hat p(x)\big] = p(x), \qquad \hat p(x) \ge p(s^*),$$
#
# unbiased in probability (the importance-sampling chapter discusses why its logarithm is
# biased low) and never below the canonical segmentation.
# {cite:t}`chirkova-etal-2023-marginalize` counter the same myopia differently, drawing the
# tokens of a block of characters at a time, and find the gap below 0.5% of the
# log-likelihood in most of their settings, larger for text with long, complex words. First both estimators against the exact sum,
# on words whose segmentations can be enumerated:

# %% tags=["hide-input"]
glue("is_stay_used", is_stay, display=False)
glue("is_explore_used", is_explore, display=False)
m_lm = family[marginal_model]
exact_models = {label(marginal_model): m_lm, pre_name: pre_models[pre_name]}
# n_coverage_runs independent runs of n_is_samples draws per word
exact_table, skipped = estimates.exact_table(
    exact_models, exact_words, max_segmentations, n_is_samples,
    n_coverage_runs, rng, n_boot, seed, is_stay, is_explore)
found = estimates.exact_findings(exact_table, skipped, n_coverage_runs,
                                 max_segmentations)
glue_all(found)
logs = ["log p(s*)", "log p(x), exact", "guided (3)", "constrained"]
display(tables.show(exact_table[logs],
                    "Log-marginals of single words (nats; the guided "
                    "estimate's 95% percentile interval underneath)",
                    formats={c: 3 for c in logs}))
tables.show(exact_table[["segmentations", "runs covering", "share of s*"]],
            "Their segmentations, the coverage of the guided intervals, "
            "and the canonical segmentation's share of p(x)",
            formats={"share of s*": "{:.1%}"})

# %% [markdown]
# The tables leave out the words with more than {glue:text}`max_segmentations_used`
# segmentations, whose exact sum would cost too many forward passes: {glue:text}`skipped_words`.
# The guided estimate lies within a median {glue:text}`err_guided:.3f` nats of the exact
# log-marginal. Its percentile bootstrap interval (over the {glue:text}`n_is_samples_used`
# draws) is another matter: over {glue:text}`n_coverage_runs_used` independent runs per word,
# it covered the exact value in {glue:text}`coverage_pct:.0f` % of the runs.
# {glue:text}`coverage_sentence` The constrained proposal misses by a median
# {glue:text}`err_constrained:.2f` nats and falls below the canonical term itself for
# {glue:text}`n_constrained_below` of them. On single words the canonical segmentation is
# not everything: its share of the word's probability falls to
# {glue:text}`min_canonical_share:.0f` %. Now whole test sentences:

# %% tags=["hide-input"]
glue("n_is_samples_used", n_is_samples, display=False)
glue("max_marginal_bytes_used", max_marginal_bytes, display=False)
self_name = label(marginal_model)
# (name, model, sentences, guided draws per sentence)
gaps, runs = estimates.sentence_gaps(
    [(self_name, m_lm, n_marginal, max(is_sweep)),
     (pre_name, pre_models[pre_name], n_marginal_pretrained, n_is_samples)],
    test, max_marginal_bytes, n_is_samples, seed, is_stay, is_explore,
    n_boot)
gap_table = pd.DataFrame(gaps).T
glue_all(estimates.gap_findings(gap_table, self_name, pre_name,
                                max(is_sweep)))
shown = ["sentences", "draws per sentence", "bits / char (canonical)"]
display(tables.show(
    gap_table[shown + ["_estimate"]]
    .rename(columns={"_estimate": "gap (bits / char)"}),
    "The marginal's gain over s* on test sentences (95% interval "
    "underneath)",
    formats={"bits / char (canonical)": 3}))
tables.show(estimates.gap_shares(gap_table),
            "The gap as a share of the bits per character (%), and the "
            "draws off s* (%)",
            formats={c: 3 for c in estimates.SHARES.values()}
            | {"draws off s*": 1, "largest gap (nats)": 2})

# %% [markdown]
# The gap is the estimated $\log_2 \hat p(x) - \log_2 p(s^*(x))$ summed over the sentences,
# per character; its interval resamples both the sentences (drawn at random from the test
# split's sentences of at most {glue:text}`max_marginal_bytes_used` bytes, so nearly all from
# different articles) and each sentence's importance samples, and
# is cut at 0. Summing over all its segmentations gains the self-trained model
# {glue:text}`gap_self_pct:.2f` % of its bits per character (estimated from
# {glue:text}`n_sweep_max` draws per sentence) and {glue:text}`stride_pre_name`
# {glue:text}`gap_pre_pct:.2g` % (from {glue:text}`n_is_samples_used`). Two cautions
# go with these figures.
#
# - **The estimate is biased low.** $\hat p(x)$ is unbiased, but its logarithm is not:
#   $\mathbb{E}[\log \hat p(x)] \le \log p(x)$ (Jensen's inequality), and the bias shrinks
#   as the number of draws $N$ grows. The interval's upper end (*upper end* in the second
#   table) is therefore *not* an upper bound on the gap.
# - **A certified lower bound needs no estimate.** The segmentations that were drawn are
#   terms of the sum (1); adding up the probabilities of the distinct ones and of $s^*$ gives
#   a partial sum, which lies below $p(x)$ for certain:
#   $\log \sum_{s \in \{s^*\} \cup \{s_1, \dots, s_N\}} p(s) \le \log p(x)$. For the
#   self-trained model it is {glue:text}`cert_self_pct:.2f` % of its bits per character, for
#   {glue:text}`stride_pre_name` {glue:text}`cert_pre_pct:.2g` %, against an interval whose
#   upper end is {glue:text}`upper_pre_pct:.2g` %.
#
# The pretrained model's figures rest on fewer sentences
# ({glue:text}`n_marginal_pre_used` against {glue:text}`n_marginal_used`, the parameters
# `n_marginal_pretrained` and `n_marginal`) and fewer draws, because each of its draws costs a
# forward pass of a far larger model at every token. The column *constrained* shows what the
# naive estimator (the constrained proposal) reports: {glue:text}`constrained_note`.
#
# **How the estimate grows with the number of draws.** The self-trained model's
# {glue:text}`n_sweep_max` draws per sentence, cut into disjoint runs of $N$ draws, are
# independent runs of the estimator at each $N$:

# %% tags=["hide-input"]
r = runs[self_name]
ns = sorted(is_sweep)
sweep_pct = estimates.sweep_table(r, ns)
self_gap = estimates.share(gap_table, self_name, "gap / bits per char")
found, levelled = estimates.sweep_findings(r, sweep_pct, ns, self_gap)
glue_all(found)
# the pretrained model's draws, cut in halves: has its estimate levelled off too?
pre_ns = [n_is_samples // 2, n_is_samples]
levelled_by_model = {
    self_name: levelled,
    pre_name: estimates.levelled_off(
        estimates.sweep_table(runs[pre_name], pre_ns))}
fig = estimates.sweep_figure(sweep_pct, ns, plots.model_color(m_lm.name),
                             [negligible_share, negligible_share_alt],
                             self_name)
glue("fig_sweep", fig, display=False)
tables.show(sweep_pct.set_index(pd.Index(ns, name="N")),
            "The gap (% of bits per character) by the number of draws per "
            "sentence",
            formats={c: 3 for c in sweep_pct.columns[1:]})

# %% [markdown]
# ```{glue:figure} fig_sweep
# :name: fig-sweep
# The gap between the log-marginal and the canonical segmentation's log-probability, as a
# share of the bits per character, against the number of importance samples per sentence.
# Points: the mean over disjoint runs of $N$ draws, bars from the lowest to the highest run;
# dashed: the certified lower bound from the first $N$ draws; grey: the thresholds of
# "negligible" discussed below.
# ```
#
# The estimate grows with $N$, from {glue:text}`sweep_first_mean:.2f` % at
# $N$ = {glue:text}`sweep_first_n` to {glue:text}`sweep_last_mean:.2f` % at
# {glue:text}`n_sweep_max`, and {glue:text}`sweep_levelled`. At
# $N$ = {glue:text}`sweep_first_n`, {glue:text}`n_first_below_cert` of the
# {glue:text}`n_first_runs` runs estimate a gap below the certified lower bound of all the
# draws: {glue:text}`first_runs_sentence`.
#
# **Where the gap comes from.** The sentence with the largest estimated gap, and the most
# probable of its other segmentations that was drawn, shown where it differs from $s^*$:

# %% tags=["hide-input"]
largest, top_values = estimates.largest_gap(r, m_lm)
glue_all(top_values)
tables.show(largest, "The sentence with the largest gap: where its "
            "segmentations differ", formats={"log p(s)": 2})

# %% [markdown]
# The sentence is "{glue:text}`top_sentence`". Its estimated gap is
# {glue:text}`top_gap:.2f` nats, of which the {glue:text}`top_n_distinct` distinct other
# segmentations drawn certify {glue:text}`top_cert:.2f`. The most probable of them is
# {glue:text}`top_alt_delta` $s^*$, so on its own it adds
# $\log\big(1 + p(s)/p(s^*)\big)$ = {glue:text}`top_alt_nats:.3f` nats,
# {glue:text}`top_alt_share:.0f` % of the estimated gap; the rest comes from the other
# segmentations, drawn and not. A model trained only on canonical segmentations can still
# prefer another one: BPE's merges are fixed by frequencies in the training text, not by
# what the model later finds probable.
#
# (claims-03_segmentation)=
# ## The claims

# %% tags=["hide-input"]
measured = Measured(
    ppl_token={s: FAM.value(rates, s, "perplexity / token")
               for s in segmentations},
    tau_byte=tau["bits / byte"], best_token=best_token, best_byte=best_byte,
    open_ranks=ranks.loc[[label(s) for s in open_specs]], examples=examples,
    word_bpb=rates["word"]["bits / byte"],
    open_bpb={label(s): rates[s]["bits / byte"] for s in open_specs},
    open_label=label(open_model), advantage=adv.advantage,
    unk=adv.unk, renorm=adv.renorm_all,
    word_epochs=budgets.loc["word", "epochs"],
    open_epochs=budgets.loc[open_model, "epochs"], gaps=gaps,
    self_name=self_name, levelled=levelled_by_model)
rules = segmentation_claims.Rules(negligible_share, negligible_share_alt)
glue_all(sections.values(segmentation_claims.SECTIONS, measured, rules))
claims = segmentation_claims.claims(measured, rules)
# saved for the summary of every verdict on the first page
lmclaims.publish(claims, "03_segmentation")
lmclaims.show(claims, "The claims of the post and the verdicts",
              thresholds=segmentation_claims.thresholds(rules))

# %% [markdown]
# **Reading the verdicts.** Claims 1 and 2 are arithmetic, and the models obey it: the
# per-token order (best: {glue:text}`best_token`) and the per-byte order (best:
# {glue:text}`best_byte`) disagree (τ = {glue:text}`tau_byte:.2f`), and the
# segmentation-independent measures give {glue:text}`independent_orders` over the
# open-vocabulary models. Claim 2 holds by construction: the four measures divide one
# total log-likelihood by counts that are the same for every model, so they cannot order
# the models differently; what the claim adds is that these counts do not depend on the
# segmentation, which is true only of open vocabularies (the word model's log-likelihood is
# of another event, the next claim). Of the post's printed numbers that do not follow from
# their inputs: {glue:text}`causes_text`.
#
# Claim 3 is about *why* a closed vocabulary looks good, and here the numbers add to the
# post: of the word model's lead over {glue:text}`open_label`, scoring `<unk>` as if it were
# the word explains {glue:text}`unk_share:.0f` %, and the mass on unknown-word strings, the
# post's mechanism, {glue:text}`renorm_share:.1f` %. The remaining
# {glue:text}`rest_share:.0f` % is unexplained, and includes the training budget.
#
# Claim 4 is decided by the threshold, which is this chapter's choice: the post says
# "negligible" without a number. At {glue:text}`negligible_pct:g` % the verdict is
# **{glue:text}`v4`**, at {glue:text}`negligible_alt_pct:g` % it is
# **{glue:text}`v4_alt`**. The certified lower bound is what a verdict of "not negligible"
# can rest on, since the estimate is biased low; as for every threshold its source does not
# fix, a case counts against only with that bound above twice the threshold, and for only
# with the interval's upper end below half of it *and* an estimate that no longer grows with the
# number of draws (the last doubling of $N$ adds less than a tenth: over the sweep above for
# the self-trained model, over the two halves of its draws for the pretrained one; here
# {glue:text}`levelled_text`). A model whose estimate still grows has no upper bound: its
# case can never count for, only against, when its certified bound lies above twice the threshold.
# At {glue:text}`negligible_alt_pct:g` %, {glue:text}`alt_text` (a certified bound holds for
# the sentences drawn). On the sentences drawn, the marginal adds at least
# {glue:text}`cert_self_pct:.2f` % ({glue:text}`marginal_label`; certified,
# {glue:text}`gap_self_trend`) and at least {glue:text}`cert_pre_pct:.2g` %
# ({glue:text}`stride_pre_name`; estimated at {glue:text}`gap_pre_pct:.2g` % from fewer
# draws) to the canonical segmentation's bits per character, while a single long word can
# owe much of its probability to other segmentations.
#
# **Which verdicts could be artefacts of the models.** The self-trained models are small and
# briefly trained (see {doc}`01_models`), and their budget is equal in tokens, not in text:
# {glue:text}`epoch_order_sentence` Claims 1 and 2 are arithmetic and hold for any model.
# Claim 3's size (how large the closed vocabulary's lead is, and the unexplained share) and
# the ranking of segmentations by bits per byte depend on how well each model is trained,
# and the `gpu` profile, which trains larger models for longer, may change them. Claim 4
# depends on how a model spreads its probability over non-canonical segmentations, which
# training on canonical segmentations teaches it to avoid: a better-trained model may well
# give them less, and the pretrained model, trained far longer, gives them less than the
# self-trained one here.

# %% [markdown]
# ## Summary
#
# {glue:md}`summary`

# %% [markdown]
# ## Exercises
#
# Make a prediction first, then run the code of the solution (it runs on the
# results of this page, in seconds).
#
# ```{exercise}
# :label: ex-03-units
# Perplexity per token mixes how well a member predicts text (its bits per byte) with how
# much text a token holds, $\mathrm{ppl}_\text{token} = 2^{\text{bits/byte} \cdot
# n_\text{byte}/n_\text{token}}$ (the identity of the section on measures). Separate the
# two: predict each member's perplexity per token if all had the word model's bits per
# byte, and whether the members then come in the order of their printed perplexities per
# token. Then compute it.
# ```
#
# ```{solution-start} ex-03-units
# :class: dropdown
# ```

# %% tags=["solution"]
word_bpb = units.corpus_rate(scores["word"], "byte", "bits")
rows = {}
for spec, s in scores.items():
    per_token = (units.counts(s, "byte").sum()
                 / units.counts(s, "token").sum())
    # ppl per token, were its bits per byte the word model's
    rows[label(spec)] = {"bytes/token": per_token,
                         "ppl/token": 2 ** (word_bpb * per_token)}
tables.show(pd.DataFrame(rows).T, "At the word model's bits/byte")

# %% [markdown]
# At equal bits per byte the members come in the order of their tokens' lengths, byte
# first and word last, and the perplexity per token grows exponentially with the bytes a
# token holds. The table's order differs only in the word model, which its much lower bits
# per byte (partly the closed vocabulary's `<unk>`, measured above) move down the order,
# below a BPE member whose tokens are shorter. Token length alone nearly decides a ranking by
# perplexity per token: such a ranking ranks segmentations, the post's point.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise}
# :label: ex-03-pooled
# The chapter pools the test split: total bits over total bytes. Predict whether the mean
# of the per-sentence bits per byte is larger or smaller, and whether it reorders the
# models.
# ```
#
# ```{solution-start} ex-03-pooled
# :class: dropdown
# ```

# %% tags=["solution"]
for spec, s in scores.items():
    pooled = units.corpus_rate(s, "byte", "bits")
    per_sentence = -s.logprob / units.counts(s, "byte") / np.log(2)
    print(f"{label(spec):13} pooled {pooled:.3f}  "
          f"sentence mean {per_sentence.mean():.3f}")

# %% [markdown]
# The sentence mean is larger for every member, by far less than the gaps between the
# members: the order does not change. The mean weighs a short
# sentence as much as a long one, and short sentences cost more bits per byte: the first
# tokens of a sentence, with no context, are the hardest to predict.
#
# ```{solution-end}
# ```
