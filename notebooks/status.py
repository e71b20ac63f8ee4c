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
# # Status: what a re-run costs
#
# Every page of this book is a notebook that anyone can execute again. This page says what
# that costs: each chapter's wall time on the project's machine, from an empty cache
# (*cold*: every model trained, every score and sample computed) and from a full one
# (*warm*), when and where it was measured, and which chapters need which. The numbers come
# from the committed record of the last full measurement (`book/status.json`), not from
# your own cache; `python -m lmnotes.book timings` shows the times recorded on your
# machine, and `python -m lmnotes.book list` both.
#
# {glue:md}`status_about`

# %% tags=["parameters", "remove-cell"]
record_file = "status.json"  # the committed record (relative to book/)

# %% tags=["remove-cell"]
import json

import pandas as pd

from lmnotes.book import run as book
from lmnotes.core.progress import duration
from lmnotes.report import claims, tables
from lmnotes.report.glue import glue_md

# %% tags=["remove-input"]
record = json.loads(open(record_file).read())
rows = []
for name in book.notebook_names():
    entry = record["notebooks"].get(name, {})
    cold, warm = entry.get("cold", {}), entry.get("warm", {})
    rows.append({"page": claims.title(name),
                 "cold": duration(cold["seconds"]) if cold else "not measured",
                 "warm": duration(warm["seconds"]) if warm else "not measured",
                 "measured (cold, warm)": f"{cold.get('date', '–')}, {warm.get('date', '–')}",
                 "needs": ", ".join(record.get("needs", {}).get(name, [])) or "–",
                 "note": cold.get("note", "")})
table = pd.DataFrame(rows)
machines = sorted({e[m]["machine"] for e in record["notebooks"].values() for m in e})
glue_md("status_about", f"{record['about']} Machine: {'; '.join(machines)}.")
tables.show(table, "Each page's wall time, cold and warm, and the chapters whose "
            "cached results it needs", index=False)

# %% tags=["remove-input"]
chapters = book.chapter_names()
total = {m: sum(record["notebooks"].get(n, {}).get(m, {}).get("seconds", 0) for n in chapters)
         for m in ("cold", "warm")}
glue_md("status_total", f"about {duration(total['cold'])} cold and {duration(total['warm'])} "
        "warm")

# %% [markdown]
# The whole book takes {glue:md}`status_total`, on two cores. A chapter finds in the
# shared cache what the chapters it needs put there: re-running chapter 05 on a fresh
# clone trains the models of chapters 01 and 03 first. To skip that, a lecturer can build
# the cache once (`make book`) and hand it to the students' machines (the folder
# `LMNOTES_CACHE` names, or `~/.cache/lmnotes`). The GPU edition's times are on
# {doc}`at_scale`.
