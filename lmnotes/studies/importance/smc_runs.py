"""Sequential Monte Carlo against importance sampling at equal cost on the switch-LM
(:func:`lmnotes.studies.importance.smc.smc`, K particles against K draws from the same
proposal): the bias of the instance-level log-estimate and the spread of single runs.
Chapter 04, beyond the paper.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from lmnotes.core.progress import note
from lmnotes.report.glue import Prose
from lmnotes.studies.importance import cached
from lmnotes.studies.importance import smc as SMC
from lmnotes.studies.importance.summaries import runs_interval


#: The particle filter resamples when its effective sample size falls below this share of K: the
#: usual threshold (Doucet & Johansen 2011, §3.5), fixed rather than a parameter.
RESAMPLE_BELOW = 0.5


@cached.remembered
def compare(
    switch: Mapping,
    em,
    props: Mapping,
    logp: Mapping,
    runs: Mapping,
    names: Sequence[str],
    k_runs: int,
    n_smc_runs: int,
    seed: int,
    resample_below: float,
    n_sentences: int,
) -> dict:
    """Per ``(model, proposal)``, nats per sentence: the bias of ``n_smc_runs`` importance
    sampling runs (the first of ``runs[key]``) and of as many particle filters of ``k_runs``
    particles (seeded ``seed * 1000 + 900 + i`` for the i-th proposal), with 95% intervals over
    the runs, and the standard deviation of a single run of each.

    (11 parameters: the switch-LM's parts and the chapter's parameters of the runs.)
    """
    N_test = n_sentences
    smc_rows = {}
    for m, s in switch.items():
        truth = logp[m]
        for i, name in enumerate(names):
            note(f"SMC and IS, {m}, {name}: {n_smc_runs} runs of {k_runs}")
            est = SMC.smc(
                s,
                em,
                props[m][name],
                k_runs,
                n_smc_runs,
                seed=seed * 1000 + 900 + i,
                resample_below=resample_below,
            )
            is_runs = runs[m, name]["instance"].to_numpy()[:n_smc_runs]
            smc_err = (est - truth[:, None]).sum(0)  # [runs]
            smc_rows[m, name] = {
                "IS: bias": runs_interval(is_runs / N_test),
                "SMC: bias": runs_interval(smc_err / N_test),
                "IS: sd of a run": float(is_runs.std(ddof=1) / N_test),
                "SMC: sd of a run": float(smc_err.std(ddof=1) / N_test),
            }
    return smc_rows


def smc_values(smc_rows: Mapping) -> dict:
    """What the chapter quotes about :func:`compare`, by name, in order: the pairs where SMC is
    closer to the truth beyond the intervals, those where it is worse, IS's bias over SMC's,
    and the pair with the largest gain."""
    smc_better = [k for k, r in smc_rows.items() if r["SMC: bias"].low > r["IS: bias"].high]
    smc_worse = [k for k, r in smc_rows.items() if r["SMC: bias"].high < r["IS: bias"].low]
    values = {"n_smc_better": len(smc_better), "n_smc_cases": len(smc_rows)}
    values["smc_worse_sentence"] = Prose(
        ("SMC is worse for " + ", ".join(f"{n} ({m})" for m, n in smc_worse) + ". ") if smc_worse else ""
    )
    ratio_far = {
        k: r["IS: bias"].value / r["SMC: bias"].value for k, r in smc_rows.items() if r["SMC: bias"].value < 0
    }
    values["smc_ratio_sentence"] = Prose(
        "; ".join(f"{n} ({m}) {v:.1f} times" for (m, n), v in ratio_far.items())
    )
    largest_gain = max(ratio_far, key=ratio_far.get)
    values["smc_largest"] = f"{largest_gain[1]} on the {largest_gain[0]} model"
    return values
