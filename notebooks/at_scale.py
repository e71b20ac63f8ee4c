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
# more samples and sentences, each chapter sized to run in about eight minutes on one
# H200) on an accelerator, and publishes each executed
# page beside the CPU one. Each of its pages opens with a banner that says where, on what
# and at which commit it ran, and says *stale* when the chapter's source or the profile
# changed since.
#
# {glue:md}`gpu_state`

# %% tags=["parameters", "remove-cell"]
claims_folder = "claims"  # the CPU edition's claims tables (relative to book/)
gpu_folder = "gpu"  # the GPU edition's pages; its claims in gpu/claims

# %% tags=["remove-cell"]
from pathlib import Path

import pandas as pd
from IPython.display import display

from lmnotes.book import editions, run as book
from lmnotes.report import claims, tables
from lmnotes.report.glue import glue_md

chapters = book.chapter_names()
pages = editions.pages_table(chapters, book.profile_values, Path(gpu_folder),
                            book.NOTEBOOKS)
titles = {c: claims.title(c) for c in chapters}
pages.insert(0, "title", [titles[c] for c in pages["chapter"]])
run_at_gpu = pages[pages["page"] != "not run"]
cpu = claims.load_all(claims_folder)
gpu = claims.load_all(Path(gpu_folder) / "claims")
both = claims.side_by_side(cpu, gpu, titles)
ran = both[both["verdict (GPU)"] != claims.NOT_RUN]
to_run = [titles[c] for c in pages.loc[pages["page"] != "current", "chapter"]]  # not run, or stale
glue_md("gpu_state", (
    f"**{len(run_at_gpu)} of the {len(chapters)} chapters "
    f"{'has' if len(run_at_gpu) == 1 else 'have'} run at `gpu`**"
    + (f" ({int((pages['page'] == 'stale').sum())} of them stale)" if (pages["page"] == "stale").any() else "")
    + f"; {len(ran)} of the {len(both)} claims have a verdict in both editions"
    + (f", {int((ran['changed'] == 'yes').sum())} of them a different one" if len(ran) else "")
    + ". " + (f"Still to run at `gpu`: {', '.join(to_run)}." if to_run else "Every chapter has run.")))

# %% [markdown]
# ## The pages that ran

# %% tags=["remove-input"]
tables.show(run_at_gpu.drop(columns="chapter"), "The GPU edition's pages: where, when and at "
            "which commit each ran", index=False)

# %% [markdown]
# ## The verdicts in both editions
#
# Each claim of a chapter that has run at `gpu`, beside its verdict on the CPU. A verdict
# that changes is the point of this page: a claim *inconclusive* on the CPU and *reproduced*
# at scale was a question of resolution; one that flips between *reproduced* and
# *contradicted* is a finding about scale, or about the models the `gpu` profile adds
# (Gemma-3 in chapters 01 and 02, more members of the segmentation family in 03 and 05),
# and the chapter's GPU page says which numbers moved.
#
# {glue:md}`gpu_verdicts`

# %% tags=["remove-input"]
glue_md("gpu_verdicts", f"The tables below count and list the {len(ran)} claims." if len(ran) else
        "No chapter with claims (02–06) has run at `gpu` yet, so there is no verdict to set "
        "beside the CPU edition's; the tables appear here as each chapter runs.")
if len(ran):
    display(tables.show(pd.crosstab(ran["verdict (CPU)"], ran["verdict (GPU)"]),
                        "Verdicts on the CPU (rows) and at the gpu profile (columns)"))
    display(tables.show(ran.drop(columns=["measured (CPU)", "measured (GPU)"]),
                        "Each claim's verdict in both editions", index=False))
    display(tables.show(ran[["chapter", "claim", "measured (CPU)", "measured (GPU)"]],
                        "What each edition measured for each claim", index=False))

# %% [markdown]
# ## How to reproduce it
#
# The GPU edition needs an accelerator with a CUDA build of PyTorch. On such a machine, with
# the project set up as for the CPU edition:
#
# ```bash
# # one chapter, into book/gpu/01_models.ipynb
# python -m lmnotes.book run 01_models --profile gpu
# # every chapter, in order
# python -m lmnotes.book run --profile gpu
# # this page, with the new verdicts; then the book
# python -m lmnotes.book run at_scale
# python -m lmnotes.book build
# ```
#
# Chapters 02–06 use the models chapter 01 trains, through the shared cache, so on one
# machine 01 runs first; `make book PROFILE=gpu` runs them all in order. On a remote
# accelerator reached by short commands with limited transfers, one chapter runs per command
# from a bare machine: `bench/gpu_edition.py plan` prints each chapter's minutes there, and
# `prepare` the calls that carry what it needs, in pieces checked on arrival (DEVELOPERS.md).
