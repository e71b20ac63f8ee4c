"""Pretrained models' scores under both counting conventions, and the prefix token: chapter 03.

- :func:`convention_table`: tokens, perplexity per token and per word, and bits per byte of
  each pretrained model under the "string" and "harness" conventions
  (:data:`lmnotes.stats.units.CONVENTIONS`);
- :func:`prefix_tokens`, :func:`prefix_check`: the token a sentence is scored after is part
  of the convention too; the harness convention's bits per byte after two prefixes, and
  their paired difference.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

from lmnotes.models import memo
from lmnotes.stats import units


def convention_table(
    lms: Mapping[str, object], scores: Mapping[str, object], groups, n_boot: int, seed: int
) -> pd.DataFrame:
    """One row per (model, convention): vocabulary size, prefix token, tokens scored, and
    perplexity per token and per word and bits per byte with intervals over ``groups``."""
    rows = {}
    for name, s in scores.items():
        lm = lms[name]
        for conv in units.CONVENTIONS:
            r = units.rate_table(s, convention=conv, n_resamples=n_boot, seed=seed, groups=groups)
            rows[(name, conv)] = {
                "types": lm.vocab_size,
                "prefix": lm.tokenizer.convert_ids_to_tokens(lm.bos_id),
                "tokens": int(units.counts(s, "token", conv).sum()),
                "ppl / token": r["perplexity / token"],
                "ppl / word": r["perplexity / word"],
                "bits / byte": r["bits / byte"],
            }
    table = pd.DataFrame(rows).T
    table.index.names = ["model", "convention"]
    return table


def prefix_tokens(lm, name: str, alternative: str = "") -> tuple[str, str]:
    """The prefix token ``lm`` scores after (this report's) and the alternative: ``alternative``,
    or the BOS its tokenizer declares when empty. Raises ValueError if the alternative is not
    a token of the model."""
    tokenizer = lm.tokenizer
    ours = tokenizer.convert_ids_to_tokens(lm.bos_id)
    alt = alternative or tokenizer.bos_token
    if alt not in tokenizer.get_vocab():
        raise ValueError(f"{name} has no token {alt!r}: set prefix_alternative to one of its tokens")
    return ours, alt


def prefix_check(lms: Mapping[str, object], texts: Sequence[str], groups, n_boot: int, seed: int):
    """Bits per byte (harness convention) of ``texts`` under each model of ``lms`` (keys
    ``"ours"`` and ``"alt"``, one model after two prefixes) with an interval over ``groups``,
    and the paired difference alt minus ours."""
    scores = {k: memo.score(lm, texts) for k, lm in lms.items()}
    harness = {
        k: (units.logprobs(s, "harness"), units.counts(s, "byte", "harness")) for k, s in scores.items()
    }
    bpb = {k: units.bootstrap_rate(*v, "bits", n_boot, seed, groups=groups) for k, v in harness.items()}
    diff = units.paired_difference(*harness["alt"], *harness["ours"], "bits", n_boot, seed, groups=groups)
    return bpb, diff
