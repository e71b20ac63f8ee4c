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
# # Evaluating language models beyond perplexity
#
# Perplexity is the number most language-model papers lead with, and it answers one question:
# how much probability does a model give to held-out text, per token. This report asks what
# that number leaves out, by reproducing published studies on real text and real models,
# testing every claim they make, and going past them where they stop.
#
# ## What the report found
#
# Every claim of the five sources was put to a test here on real text and real models, and
# each got one of five verdicts, computed from its cases, never typed. The first line counts them; each
# chapter's line counts its own (each badge leads to the chapter's claims table) and gives in
# the claims' words those reproduced and those contradicted.

# %% tags=["parameters", "remove-cell"]
claims_folder = "claims"  # the chapters' claims tables (relative to book/)

# %% tags=["remove-cell"]
from IPython.display import Markdown

from lmnotes.report import cases, claims, tables

found = claims.load_all(claims_folder)
counts = claims.summary(found)

# %% tags=["remove-input"]
Markdown(claims.headline(found))

# %% [markdown]
# What the verdicts mean:

# %% tags=["remove-input"]
Markdown(claims.key())

# %% [markdown]
# A contradicted claim is a finding, not a failure: the claims are about the sources' models
# and data, the verdicts about the small models and the Wikipedia excerpt of this report,
# on two CPU cores; {doc}`at_scale` is the edition that runs the chapters with larger models
# and samples, chapter by chapter, and {doc}`own_model` shows how to run a chapter on a
# model of your own.

# %% tags=["remove-input"]
# chapters as columns, by number, so that the table fits a phone's screen
short = {c: c.split("_")[0] if c in set(found["chapter"]) else "all" for c in counts.index}
tables.show(counts.rename(index=short).T, "Verdicts per chapter")

# %% [markdown]
# ## Every claim
#
# Each chapter's claims in their own words, with their verdicts; each badge leads to the
# claim's row of its chapter's claims table, where its cases and their numbers are.

# %% tags=["remove-input"]
Markdown(claims.overview(found))

# %% [markdown]
# ## How a verdict is decided
#
# A claim is tested in *cases* (models, decoding strategies, statistics, settings). Each case
# is decided against a threshold by its interval (95%, or the Bonferroni level over the
# cases where one case can decide the claim: any case *for* a claim about some case, and in
# chapter 02 any case *against* a universal claim) or by its test: it is *for* the
# claim, *against* it, or *open* when its interval cannot decide. A case whose
# estimate, interval and threshold all sit at a floor that no data can move is *not
# applicable* and counts neither way. Each claim declares the *form* its source's words give
# it, and one function turns the form and the counts of its cases into the verdict (under
# every form, a claim without an applicable case is *not tested*):

# %% tags=["remove-input"]
Markdown("\n".join(f"- **{form}**: {text}." for form, text in cases.FORMS.items()))

# %% [markdown]
# Beside the verdict stands its *basis*: measured at this report's scale; by construction
# (an identity the test could not fail, shown for completeness); in expectation (a claim
# about a mean, tested on the mean over repeated runs); gpu profile only (run by the larger
# profile only); or source code (a reading of the source's own code). The chapters' claims
# tables name the form of every claim and list its cases beneath.

# %% tags=["remove-input"]
forms = claims.summary(found, by="rule")
forms = forms[[*cases.FORMS, "claims"]]
tables.show(forms.rename(index=short).T, "The forms of the claims, per chapter")

# %% tags=["remove-input"]
bases = claims.summary(found, by="basis")
tables.show(bases.rename(index=short).T, "What the verdicts rest on, per chapter")

# %% [markdown]
# ## The chapters
#
# | chapter | source work | the question |
# | --- | --- | --- |
# | {doc}`00_corpus` | — | What text does every study draw on: its size, splits, and word statistics? |
# | {doc}`01_models` | — | Which models does the report use, and how well does each predict the test split? |
# | {doc}`02_tendencies` | {cite:t}`meister-cotterell-2021-language` | Does generated text follow the statistical laws of human text (Zipf, Heaps, unigram, length, stopwords, symbols), and how much does the decoding strategy matter? |
# | {doc}`03_segmentation` | {cite:t}`mielke-2019-compare` | Can perplexities of models with different segmentations (words, subwords, characters, bytes) be compared, and what does a closed vocabulary buy? |
# | {doc}`04_importance_sampling` | {cite:t}`logan-etal-2020-importance` | How good are importance-sampled perplexities of latent language models, measured against exact marginals? |
# | {doc}`05_word_level` | {cite:t}`dudy-bedrick-2020-words` | How accurately and how diversely do subword models predict whole words, rare ones included, and does tokenization decide it? |
# | {doc}`06_distortion` | {cite:t}`lebrun-etal-2022-evaluating` | Trained on samples of a language whose probabilities are known, where does a model put too little mass, and where the rest? |
#
# ## How to read a chapter
#
# Each chapter is a notebook executed from top to bottom, and it reads as a lesson: the
# source's question and claims, the method with its formulas (numbered as in the source),
# the experiment with its parameters, figures and result tables, and the claims table.
# Every number in the prose is computed by the notebook on the page and inserted with
# myst-nb's `glue`; every table is a DataFrame and every figure is drawn from the data in
# the notebook. The code that computes a result is folded under each table and figure
# (click to show it); the helper package `lmnotes` holds the rest.
#
# ## How to re-run a chapter
#
# From a fresh clone, `make book` creates a virtual environment in `.venv`, installs the
# pinned dependencies, executes every notebook with the `default` profile and builds this
# book into `_build/html`; `make html` only renders the executed notebooks, in seconds. To
# re-run one chapter with other parameters or another profile, in the environment
# (`source .venv/bin/activate`):
#
# ```bash
# python -m lmnotes.book list   # the parameters, their defaults, the profiles
# python -m lmnotes.book run 01_models \
#   -p model_names '[wiki/transformer-bpe8k, smollm2-135m]'
# python -m lmnotes.book run --profile gpu
# ```
#
# The parameters a chapter accepts are those of its cell tagged `parameters`; the runner
# checks every value against the type of that cell's literal and its range before anything
# runs, and writes the values it used into that cell of the executed notebook. Papermill
# works directly too: `papermill notebooks/00_corpus.ipynb out.ipynb -p corpus my_texts/`.
#
# The corpus is the English Wikipedia excerpt shipped in gensim's package, cleaned with
# `mwparserfromhell`, split into sentences with `pysbd` {cite}`sadvilkar-neumann-2020-pysbd`
# and into words with the Moses tokenizer {cite}`koehn-etal-2007-moses`; nothing is
# downloaded at run time.
#
# ## References
#
# ```{bibliography}
# ```
