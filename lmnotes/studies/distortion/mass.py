"""Where a learner's probability mass goes, measured with its own samples scored under L: the
distortion chapter's (06) two end-to-end checks and the direct answer to LeBrun, Sordoni &
O'Donnell's (2022) claims 8–9, which the paper approaches through perturbed sequences.

- L′ gives every sequence under the cap n_max positive probability and M sums to 1 over Σ*,
  so E_{p_L′}[e^error] = Σ_{|x|<n_max} p_M(x) = P_M(finished) ≤ 1 (an importance-sampling
  estimate; its effective n is (Σw)²/Σw²);
- TV(p_L, p_M) = E_{p_L}[(1 − e^error)₊] = E_{p_M}[(1 − e^−error)₊]: two estimates from
  disjoint samples that must agree (:func:`.distortion.tvd_from_l`, :func:`.distortion.tvd_from_m`);
- with A the set of sequences M overestimates, P_M(A) − P_L(A) is the mass moved (= TV);
- :func:`where_mass_goes` bins M's and L's samples into one partition of Σ* (past the cap, rarer
  than every test sequence, fifths of L's test sequences by log p_L or by length) and
  compares the shares (:func:`.deficit.mass_by_bin`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmnotes import stats
from lmnotes.models import memo
from lmnotes.report.glue import Prose
from lmnotes.studies.distortion import deficit as F
from lmnotes.studies.distortion import distortion as D
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion.resample import ci, est

FIFTHS = ["rarest fifth", "second fifth", "third fifth", "fourth fifth", "most probable fifth"]


def check_learner(boot, name: str, model, lang, err, n_reverse: int, seed: int = 0):
    """One learner's checks from ``n_reverse`` of its own samples scored under L and its test
    errors ``err``: the row of the identities (E_L[e^error] against P_M(finished), the
    effective n, TV from both sides and their difference), the row of the mass moved onto A,
    its samples (log p_L, lengths with EOS, the number unfinished), its own entropy rate (nats
    per token) and the TV difference. Intervals from ``boot`` (:class:`.resample.Bootstrap`)."""
    s = memo.sample(model, n_reverse, "ancestral", max_tokens=lang.max_tokens, seed=seed, batch_size=256)
    done = np.asarray(s.finished)
    ids = [t for t, d in zip(s.token_ids, done) if d]
    lp_l = lang.logprob(ids)
    e_fin = D.estimation_error(np.asarray(s.logprob_model)[done], lp_l)
    reverse = (lp_l, np.array([len(t) + 1 for t in ids]), int((~done).sum()))
    # M's own entropy rate, from its finished samples (nats per token)
    own_rate = F.ratio(-np.asarray(s.logprob_model)[done], reverse[1], seed=seed)
    # an unfinished sample is longer than the cap: outside L′'s support
    e_rev = np.r_[e_fin, np.full((~done).sum(), np.inf)]
    ratio = np.exp(np.minimum(err, 50))
    tv_l_v = np.clip(1 - ratio, 0, None)
    tv_m_v = np.clip(1 - np.exp(-np.maximum(e_rev, -50)), 0, None)
    diff = boot.means(tv_l_v) - boot.means(tv_m_v)
    tv_diff = est(tv_l_v.mean() - tv_m_v.mean(), diff)
    row = {
        "model": name,
        "E_L[e^error]": ci(boot.mean_ci(ratio)),
        "expected: P_M(finished)": done.mean(),
        "effective n": ratio.sum() ** 2 / (ratio**2).sum(),
        "TV from L's samples": ci(boot.mean_ci(tv_l_v)),
        "TV from M's samples": ci(boot.mean_ci(tv_m_v)),
        "difference": ci(tv_diff),
    }
    over_m, over_l = boot.mean_ci(e_rev > 0), boot.mean_ci(err > 0)
    moved = boot.means(e_rev > 0) - boot.means(err > 0)
    row_m = {
        "model": name,
        "P_M(A)": ci(over_m),
        "P_L(A)": ci(over_l),
        "mass moved P_M(A) − P_L(A)": ci(
            stats.Estimate(over_m.value - over_l.value, *np.quantile(moved, [0.025, 0.975]))
        ),
        "KL(p_M‖p_L) per token, finished": float(np.mean(e_fin)) / np.mean([len(t) + 1 for t in ids]),
    }
    return row, row_m, reverse, own_rate, tv_diff


def blind_spots(L, lang, test, logp_m, err):
    """How much the TV check can see: TV from L's samples as measured, with the truncation
    correction dropped, and with L scored at T = 1 instead of its temperature."""
    tv_main = D.tvd_from_l(err)
    tv_untruncated = D.tvd_from_l(err - lang.log_finished)
    at_one = LG.Language(L, 1.0, max_tokens=lang.max_tokens).logprob(test.ids)
    tv_wrong_t = D.tvd_from_l(D.estimation_error(logp_m, at_one))
    return tv_main, tv_untruncated, tv_wrong_t


def mass_bins(test, logp_l, lengths, unfinished: int, by: str) -> np.ndarray:
    """Each sample's bin of Σ*: 0 past the cap (the ``unfinished`` samples, last), 1 rarer than
    every test sequence of L, or 2 + the fifth of L's ``test`` sequences it falls in, by
    "log p_L" or by "length"."""
    ref = test.logp if by == "log p_L" else test.lengths
    x = logp_l if by == "log p_L" else lengths
    b = 2 + np.digitize(x, np.quantile(ref, [0.2, 0.4, 0.6, 0.8]))
    if by == "log p_L":
        b[x < test.logp.min()] = 1
    return np.r_[b, np.zeros(unfinished, dtype=int)]


def where_mass_goes(reverse: dict, test, learners, seed: int = 0):
    """The share of M's samples and L's test samples in each bin of Σ* (by log p_L and by
    length) with P_M(B) − P_L(B) per learner, and that difference on L's most probable fifth."""
    where, head_mass = [], {}
    for by, labels in (
        ("log p_L", ["past the cap (outside L′)", "rarer than every test sequence"] + FIFTHS),
        (
            "length",
            ["past the cap (outside L′)", "—"]
            + [f.replace("rarest", "shortest").replace("most probable", "longest") for f in FIFTHS],
        ),
    ):
        cols = {}
        for name in learners:
            t = F.mass_by_bin(
                mass_bins(test, *reverse[name], by),
                mass_bins(test, test.logp, test.lengths, 0, by),
                labels,
                seed=seed,
            )
            cols["P_L(B)"] = t["P_L(B)"]
            cols[f"P_M(B) − P_L(B), {name}"] = t["P_M(B) − P_L(B)"].map(ci)
            if by == "log p_L":  # the head: L's most probable fifth
                head_mass[name] = t["P_M(B) − P_L(B)"].iloc[-1]
        part = pd.DataFrame({"binned by": by, "bin B": labels} | cols)
        where.append(part[part["bin B"] != "—"])
    return pd.concat(where, ignore_index=True), head_mass


def past_cap(where: pd.DataFrame, name: str) -> str:
    """The mass a learner sends past the length cap, minus L's (zero), as shown."""
    return where.query("`binned by` == 'log p_L'")[f"P_M(B) − P_L(B), {name}"].iloc[0]


def head_text(head_mass: dict, learners) -> str:
    """The sentence on the learners that put more mass than L on L's most probable fifth."""
    to_head = [n for n in learners if head_mass[n].low > 0]
    return (
        "No learner puts more mass than L on L's most probable fifth beyond its interval."
        if not to_head
        else f"One bin answers the paper's claim 8 directly: {', '.join(to_head)} "
        f"put{'s' if len(to_head) == 1 else ''} more mass than L on L's most probable fifth ("
        + "; ".join(ci(head_mass[n]) for n in to_head)
        + "), although L's "
        "test sequences there are underestimated on average. Both hold at "
        "once, since a negative mean of log(p_M/p_L) over a bin allows a "
        "ratio of masses above 1 (Jensen's inequality): the learner "
        "underestimates most head sequences and overestimates a few by much "
        "(the length rows point to short ones). Claim 8 counts both tests."
    )


def tv_note(tv_diff: dict, tv_main: float, tv_untruncated: float, tv_wrong_t: float) -> str:
    """How many TV differences exclude zero, what chance alone gives, and what the check is
    blind to."""
    n_excl = sum(not e.low <= 0 <= e.high for e in tv_diff.values())
    return (
        (
            "Every interval includes zero."
            if n_excl == 0
            else f"{n_excl} of these {len(tv_diff)} intervals "
            f"{'excludes' if n_excl == 1 else 'exclude'} zero; by "
            f"chance alone, at least one of {len(tv_diff)} independent 95 % "
            f"intervals misses zero with probability "
            f"{1 - 0.95 ** len(tv_diff):.0%}."
        )
        + " The check is blind to some "
        "errors and not to others: scoring L at T = 1 instead of its "
        f"temperature would move the main learner's TV from L's samples by "
        f"{abs(tv_wrong_t - tv_main):.3f}, but dropping the truncation "
        f"correction moves it by only {abs(tv_untruncated - tv_main):.4f}, "
        "far less than the intervals; the truncation correction is checked "
        "by a unit test instead."
    )


def facts(rows: list, rows_m: list, tv_note_md: str, n_test: int) -> dict:
    """The values the chapter states about the checks, by name, in the order it glues them
    (``tv_note`` is Markdown)."""
    return {
        "tv_l": rows[0]["TV from L's samples"],
        "tv_m": rows[0]["TV from M's samples"],
        "tv_diffs": "; ".join(f"{r['model']} {r['difference']}" for r in rows),
        "ess_main": f"{rows[0]['effective n']:.0f}",
        "tv_note": Prose(tv_note_md),
        "ess_range": f"{min(r['effective n'] for r in rows):.0f} to "
        f"{max(r['effective n'] for r in rows):.0f}",
        "ess_n": f"{n_test:,}",
        "ratio_main": rows[0]["E_L[e^error]"],
        "expected_main": f"{rows[0]['expected: P_M(finished)']:.3f}",
        "over_main": rows_m[0]["P_M(A)"],
        "over_l_main": rows_m[0]["P_L(A)"],
        "moved_main": rows_m[0]["mass moved P_M(A) − P_L(A)"],
    }
