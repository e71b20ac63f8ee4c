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
# # At scale: the GPU edition
#
# The chapters of this book run on two CPU cores: their self-trained models have a few
# million parameters and train for minutes, and their samples number in the hundreds or
# thousands. Some verdicts are *inconclusive* for that reason alone, and a reader should
# know which verdicts survive larger models and more samples. The **GPU edition** executes
# the same chapters, unchanged, at the `gpu` profile (`params/gpu.yaml`: larger models,
# more samples and sentences, each chapter sized by estimate to an eight-minute slice of
# one H200) on an accelerator, and publishes each executed
# page beside the CPU one. Each of its pages opens with a banner that says where, on what
# and at which commit it ran, and says *stale* when the chapter's source or the profile
# changed since.
#
# {glue:md}`gpu_state`
#
# ## The pages

# %% tags=["parameters", "remove-cell"]
claims_folder = "claims"  # the CPU edition's claims tables (relative to book/)
gpu_folder = "gpu"  # the GPU edition's pages; its claims in gpu/claims

# %% tags=["remove-cell"]
from pathlib import Path

import pandas as pd
from myst_nb import glue

from lmnotes.book import editions, run as book
from lmnotes.report import claims, tables
from lmnotes.report.glue import glue_md

# %% tags=["remove-input"]
chapters = book.chapter_names()
pages = editions.pages_table(chapters, book.profile_values, Path(gpu_folder),
                            book.NOTEBOOKS)
titles = {c: claims.title(c) for c in chapters}
pages.insert(0, "title", [titles[c] for c in pages["chapter"]])
tables.show(pages.drop(columns="chapter"), "The GPU edition's pages: a chapter not yet "
            "executed at the gpu profile says not run", index=False)

# %% [markdown]
# ## The verdicts in both editions
#
# Each claim of the CPU edition's claims tables, beside its verdict at the `gpu` profile.
# Until a chapter has run at `gpu`, its GPU column says *not run*. A verdict that changes
# is the point of this page: a claim *inconclusive* on the CPU and *reproduced* at scale
# was a question of resolution; one that flips between *reproduced* and *contradicted* is
# a finding about scale, or about the models the `gpu` profile adds (Gemma-3 in chapters
# 01 and 02, more members of the segmentation family in 03 and 05), and the chapter's GPU
# page says which numbers moved.

# %% tags=["remove-input"]
cpu = claims.load_all(claims_folder)
gpu = claims.load_all(Path(gpu_folder) / "claims")
both = claims.side_by_side(cpu, gpu, titles)
ran = both[both["verdict (GPU)"] != claims.NOT_RUN]
to_run = list(pages.loc[pages["page"] != "current", "chapter"])  # not run, or stale
glue_md("gpu_state", (
    f"Of the {len(chapters)} chapters, **{int((pages['page'] != 'not run').sum())}** "
    f"{'has' if (pages['page'] != 'not run').sum() == 1 else 'have'} run at `gpu` "
    f"({int((pages['page'] == 'stale').sum())} of them stale), and "
    f"{len(ran)} of the {len(both)} claims have a verdict in both editions, "
    f"{int((ran['changed'] == 'yes').sum())} of them a different one. "
    + (f"Still to run at `gpu`: {', '.join(titles[c] for c in to_run)}." if to_run
       else "Every chapter has run.")))
counts = pd.crosstab(ran["verdict (CPU)"], ran["verdict (GPU)"])
tables.show(counts if len(ran) else pd.DataFrame({"claims": [0]}, index=["none yet"]),
            "Verdicts on the CPU (rows) and at the gpu profile (columns), for the "
            "chapters that have run at both")

# %% tags=["remove-input"]
tables.show(both.drop(columns=["measured (CPU)", "measured (GPU)"]),
            "Each claim's verdict in both editions", index=False)

# %% [markdown]
# The measured numbers behind each verdict, in both editions:

# %% tags=["remove-input"]
tables.show(both[["chapter", "claim", "measured (CPU)", "measured (GPU)"]],
            "What each edition measured for each claim", index=False)

# %% [markdown]
# ## How to reproduce it
#
# The GPU edition needs an accelerator with a CUDA build of PyTorch. On such a machine, with
# the project set up as for the CPU edition:
#
# ```bash
# # one chapter, into book/gpu/01_models.ipynb
# python -m lmnotes.book run 01_models --profile gpu
# # every chapter, cheapest first
# python -m lmnotes.book run --profile gpu
# # this page, with the new verdicts; then the book
# python -m lmnotes.book run at_scale
# python -m lmnotes.book build
# ```
#
# Chapters 02–06 use the models chapter 01 trains, through the shared cache, so on one
# machine 01 runs first; `make book PROFILE=gpu` runs them all in order. A machine lent for
# short commands only (this project's: 8-minute slices, 64 MiB a command) runs one chapter
# per slice from a bare machine: `bench/gpu_edition.py plan` prints each chapter's minutes
# there, and `prepare` the calls that carry what it needs, in pieces checked on arrival.
