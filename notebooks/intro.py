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
# Each line is one study: which of its source's claims held here and which did not, in the
# claims' own words, then the numbers of those that held only in some cases, stayed open at
# this report's scale, or were not tested. Each number is a badge in its verdict's colour
# that leads to the claim's row of its chapter's claims table.

# %% tags=["parameters", "remove-cell"]
claims_folder = "claims"  # the chapters' claims tables (relative to book/)

# %% tags=["remove-cell"]
import pandas as pd
from IPython.display import Markdown
from myst_nb import glue

from lmnotes.report import claims, tables

found = claims.load_all(claims_folder)
counts = claims.summary(found)
glue("n_chapters", len(counts) - 1, display=False)
glue("n_claims", int(counts.loc["all chapters", "claims"]), display=False)

# %% tags=["remove-input"]
Markdown(claims.headline(found))

# %% [markdown]
# Each study chapter opens with its findings and ends with a **claims table**: every claim
# of its source, the number this report measured for it with its uncertainty, and a verdict
# that follows from the intervals. The table below counts the verdicts of the chapters
# written so far ({glue:text}`n_chapters` of the five studies, {glue:text}`n_claims`
# claims); the tables after it give every claim with its verdict (green: reproduced,
# orange: differs, grey: inconclusive, red: contradicted, white: not tested), each badge
# linked to the claim's row of its chapter's claims table.

# %% tags=["remove-input"]
# chapters as columns, by number, so that the table fits a phone's screen
short = {c: c.split("_")[0] if c in set(found["chapter"]) else "all" for c in counts.index}
tables.show(counts.rename(index=short).T, "Verdicts per chapter (02–06: the chapters, "
            "linked below)")

# %% tags=["remove-input"]
bases = claims.summary(found, by="basis")
tables.show(bases.rename(index=short).T, "What the verdicts rest on, per chapter")

# %% tags=["remove-input"]
forms = claims.summary(found, by="rule")
tables.show(forms.rename(index=short).T, "How the verdicts are decided, per chapter: by one of "
            "the three older rules, or by the form the source's words give the claim")

# %% tags=["remove-input"]
Markdown(claims.overview(found))

# %% [markdown]
# Every verdict is computed by one rule from the cases the chapter tested (models,
# strategies, statistics), each decided by its 95% interval or test: a case shows the
# claim, shows the opposite, or is *open* (its interval cannot decide at this report's
# scale). Under the rule most claims use, a claim is *reproduced* when every case shows
# it; *contradicted* when every case shows the opposite; it *differs* when some cases show
# it and some the opposite; it is *inconclusive* when some cases are open and none
# conflict; it is *not tested* when no case could be run (the chapter says what would
# test it). Claims worded "mostly" or "often" are judged by a majority of the cases
# instead, and claims that a theorem guarantees in every case by "none against" (no case
# shows the opposite, and more show the claim than stay open: such claims have cases whose
# effect is expected to fall below a run's resolution). Each chapter states the rules its
# table uses under the table. The chapters are moving to rules that follow the source's
# words: each claim declares its *form* (it holds in every case, in most, in some case, an
# effect of a given sign and size, or an exact identity), its cases are shown under the
# table with the numbers that decide each and saved beside it, and one function turns a
# form and its cases into the verdict; a case whose two sides sit at a floor no data can
# move is *not applicable* and neither counts nor blocks (the third table above says which
# chapters decide by forms so far). Beside the verdict, its *basis*: measured at this report's scale; by
# construction (an identity the test could not fail, shown for completeness); in
# expectation (a claim about a mean, tested on the mean over repeated runs); or gpu
# profile only (run by the larger profile, not by the published book). A contradicted
# claim is a finding, not a failure: the claims are about the source's models and data,
# and the verdicts about the small models and the Wikipedia excerpt of this report, on two
# CPU cores.
#
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
