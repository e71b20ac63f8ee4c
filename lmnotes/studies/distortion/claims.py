"""The claims table of the distortion chapter (06): the claims of LeBrun, Sordoni & O'Donnell
(2022), each with the form its words give it and the cases the chapter measured
(:mod:`lmnotes.report.cases`), from which the book's one function computes the verdict.

:data:`SECTIONS` lists the chapter's sections that decide claims and what each reads of what
the chapter measured (:data:`READS`); :data:`CLAIMS` lists the claims
(:class:`lmnotes.report.claims.Claim`), each with the function that decides it and its
section; :func:`claims` builds the whole table from what the chapter measured (a mapping of
:data:`READS`' names) and ``rules`` (the chapter's thresholds, :data:`RULES`);
:func:`thresholds` states those thresholds under the table.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace
from typing import Mapping

import pandas as pd

from lmnotes.report import cases as lmcases, claims as lmclaims
from lmnotes.report.sections import Section, reading
from lmnotes.stats import scaled
from lmnotes.studies.distortion.calibration import of_learners
from lmnotes.studies.distortion.resample import bin_estimate, ci, grown, negated, num
from lmnotes.studies.distortion.training import strata_end

#: What the sections read, each name with what it holds (an "estimate" has value, low and high).
READS = {
    "main": "the main learner's name",
    "learners": "the learners' names, the main first",
    "arch": "the LSTM learners' names (empty: none trained)",
    "parameters": "learner name -> number of parameters",
    "n_models": "how many learners the training section reads (the full set's, seeds included)",
    "under": "model name -> estimate of the share of test sequences it underestimates",
    "ends": "learner -> (rarest, most probable) equal-count bin rows: mean, low, high",
    "law_miss": "the length law's largest miss at those end bins (nats)",
    "tail": "setting -> estimate of the rarest-minus-most-probable residual of the length law",
    "s_coef": "learner -> estimate of the OLS coefficient of per-token surprisal",
    "bend": "setting -> estimate of the relative slope change across log p_L",
    "size": "None (one size trained), or a mapping: tiny, pp_gain and rel (estimates, as "
    "shares), n_overlap, n_bins, n_resolved, n_paired",
    "paper_size_gain": "the paper's GPT2-small -> medium gain in mean PP (a share)",
    "final": "part ('train', 'test') -> estimate of the mean error at the last epoch",
    "gaps": "(part, epoch) -> estimate of the most probable minus the rarest stratum's error",
    "last": "the last epoch",
    "mid": "the middle epoch",
    "n_best_last": "how many learners have their best validation epoch last",
    "gap_beyond": "estimate of the test strata gap's residual beyond length (< 0: beyond it)",
    "apart": "estimate of the test gap minus the training gap at the last epoch",
    "step_gain": "(N, 2N) -> estimate of the error gained by the doubling",
    "error_at": "N -> the size of the main learner's mean test error at N (nats)",
    "rel_step": "(N, 2N) -> the gain as a share of the error at N",
    "steps": "N -> what the main learner's training at N got (schedule.summary)",
    "probes": "N -> what the main learner's probe at N got (schedule.summary; None at the full size)",
    "sizes": "the training sizes N",
    "same_n": "estimates of the Transformer's minus the LSTM's error at each N (empty: no LSTM)",
    "ahead": "estimates of the Transformer on N minus the LSTM on the next N",
    "seeds": "seed -> claims 3, 6 and 7's comparisons with every learner trained again at that seed "
    "(seeds.repeat: step_gain, rel_step, error_at, steps, same_n, pp_gain); empty: one seed",
    "head_mass": "learner -> estimate of P_M(B) − P_L(B) on L's most probable fifth",
    "perturbed": "rows (model, ci) of the mean error after the most perturbations",
    "top_level": "the most perturbations",
    "random_bins": "rows (low, high) of the random sequences' mean error per bin and model",
    "models_random": "the models scored on random sequences",
    "t_cmp": "bins of log p_L with the coldest minus warmest language's error (low, high)",
    "colder": "(T, T′, seed) -> estimate of the colder minus the warmer error per token",
    "lo_t": "the coldest temperature",
    "t_share": "(T, seed) -> estimate of the share underestimated",
    "temperatures": "the language temperatures",
    "temperature_seeds": "the seeds per temperature",
    "t_kept": "the update whose weights each temperature learner kept (the common schedule's end)",
    "t_sums": "the summed learning rate the temperature learners got, and their probes' at their best",
    "pretrained": "None (not run), why it was skipped (a sentence), or a mapping: language, "
    "checks (for, against), share and rand (estimates), rarest and top (the end "
    "bins' mean errors)",
    "lnre": "process -> its Good–Turing estimate at the largest N ('P̂_N = N₁/N')",
    "doublings": "process -> how many times its decay exponent doubled over the last decade "
    "(log₂ of the ratio, lmnotes.studies.distortion.lnre.doublings)",
    "gap": "learner -> estimate of the calibration gap ΔH − KL per token (further seeds of the main too)",
    "seq_rate": "learner -> estimate of the entropy rate of M's samples minus L's (nats per token)",
}
#: The keys of ``rules``: the chapter's thresholds.
RULES = {
    "size_cut": "size matters little when the mean-PP gain is below this (a share)",
    "size_margin": "the parameter behind size_cut (0: the paper's own gain)",
    "linear_margin": "linear in log p_L when the slope changes by less than this share",
    "near_zero_nats": "a training error within this many nats of 0 has converged",
    "level_margin": "data levels off when a doubling gains less than this share",
    "lnre_share": "LNRE zone: Good–Turing unseen mass clearly above this at the largest N",
    "lnre_doublings": "… and a decay exponent doubling clearly fewer times than this in a decade",
}


#: What most of the chapter's intervals resample (:attr:`lmnotes.report.cases.Case.unit`): L's
#: test sequences, the independent units of :class:`.resample.Bootstrap`, :func:`.distortion.bin_means`
#: and :mod:`.deficit`; and the random Σ* sequences of claims 10 and 12.
TEST, RANDOM = "test sequences", "random sequences"

#: The largest training set of the paper's Fig. 3 (sequences), against which claim 6b's N is judged.
PAPER_LARGEST_N = 30_000_000
#: How far below the paper's largest N a set must stay for claim 6b to be beyond reach (a factor).
BEYOND_REACH = 100


def levelling(step_gain: Mapping, error_at: Mapping, level_margin: float, largest_n: int) -> lmcases.Case:
    """Claim 6's levelling case: the last doubling's gain (nats) below `level_margin` times
    the size of the mean error at its smaller N; above it beyond its interval, the data have
    not levelled off. Where the largest N lies more than :data:`BEYOND_REACH` times below the
    paper's, where it sees the levelling, a doubling at the paper's N gains between 0 and the
    last one's upper end (a learning curve falls as a power law of N, Hestness et al. 2017,
    so a doubling's gain shrinks as N grows, whatever two small doublings show): the case's
    interval, which can show the levelling but never its absence. With the gain still above the threshold
    (:func:`beyond_reach`) the claim is not testable at this N: the interval is a range the
    design fixes, which more test sequences would not close
    (:data:`lmnotes.report.cases.NOT_SAMPLED`); below it, the upper end is the gain's bootstrap
    end over the test sequences, which more of them narrow."""
    (n, _), gain = list(step_gain.items())[-1]
    threshold = level_margin * error_at[n]
    why = f"nats, against level_margin × the error at N = {n:,} ({num(error_at[n])} nats)"
    if largest_n * BEYOND_REACH <= PAPER_LARGEST_N:
        return lmcases.Case(
            "the last doubling's gain",
            "below",
            gain.value,
            min(0.0, gain.low),  # a doubling that lost error: its own interval
            gain.high,
            threshold,
            why=why + f"; our largest N, {largest_n:,}, lies {PAPER_LARGEST_N / largest_n:,.0f}× below the "
            f"paper's {PAPER_LARGEST_N / 1e6:.0f} M, where it levels off: a doubling's gain shrinks as N grows, so "
            "one there gains between 0 and the last one's upper end (a gain above the threshold here is not against)",
            unit=lmcases.NOT_SAMPLED if 0 < threshold < gain.value else TEST,  # as beyond_reach
        )
    return lmcases.Case.interval("the last doubling's gain", "below", gain, threshold, why=why, unit=TEST)


#: What the chapter says of the levelling case, by its decision.
LEVELLED = {
    "for": "it has levelled off by our largest N: the last doubling gains less than the level margin's "
    "share of the error, beyond its interval",
    "against": "it has not levelled off by our largest N: the last doubling still gains more than the "
    "level margin's share of the error, beyond its interval",
    "open": "whether it has levelled off by our largest N is open: the last gain's interval straddles "
    "the level margin's share of the error",
}


def beyond_reach(case: lmcases.Case) -> bool:
    """Is the levelling case one :func:`levelling` bounded at the paper's N (its interval from 0),
    with the gain still above the threshold here?"""
    return case.low == 0 < case.threshold < case.estimate


def levelled_text(case: lmcases.Case) -> str:
    """What the chapter says of the levelling case (:func:`levelling`)."""
    if case.decision == "open" and beyond_reach(case):
        return (
            "whether it levels off cannot be decided at our N: the last doubling still gains more than "
            f"the level margin's share of the error, as it would this far below the paper's {PAPER_LARGEST_N / 1e6:.0f} M "
            "sequences, where the source sees it level off"
        )
    return LEVELLED[case.decision]


# --------------------------------------------------------------------------------------------
# the claims, each decided by its function from what its section reads (r) and the thresholds (q)

Case, est = lmcases.Case, lmcases.Case.interval


def _runs(values: Mapping) -> dict[str, list]:
    """Learner -> the values of its training runs, the first seed's first, from a mapping
    whose further seeds are named "<learner> seed <k>"."""
    runs: dict[str, list] = {}
    for name, v in values.items():
        runs.setdefault(name.split(" seed ")[0], []).append(v)
    return runs


def underestimated(r, q):
    """Claim 1: each learner's share of underestimated test sequences above one half, one case
    over its training runs (:meth:`lmnotes.report.cases.Case.over_runs`)."""
    cases = [
        Case.over_runs(
            [est(n, "above", v, 0.5, why="share of the test sequences underestimated") for v in runs]
        )
        for n, runs in _runs(r.under).items()
    ]
    return cases, "; ".join(f"{n} {ci(v)}" for n, v in r.under.items())


def rarer_worse(r, q):
    """Claim 2a: the rarest equal-count bin's mean error below the most probable bin's."""
    ends, learners = r.ends, r.learners
    cases = [
        Case.apart(
            n,
            "below",
            bin_estimate(ends[n][0]),
            bin_estimate(ends[n][1]),
            why="mean error, rarest minus most probable equal-count bin (their intervals apart)",
        )
        for n in learners
    ]
    return cases, (
        "rarest vs most probable equal-count bin: "
        + "; ".join(f"{n} {num(ends[n][0]['mean'])} vs {num(ends[n][1]['mean'])}" for n in learners)
        + f"; a constant deficit per token predicts "
        f"both ends within {num(r.law_miss, 2)} nats for these learners"
    )


def beyond_length(r, q):
    """Claim 2b: the ends apart beyond the length law, and surprisal at equal length."""
    learners = r.learners
    cases = [
        est(
            f"{n}: ends beyond the length law",
            "below",
            r.tail[n],
            why="rarest minus most probable bin, residual of the length law",
        )
        for n in learners
    ] + [
        est(
            f"{n}: surprisal at equal length",
            "below",
            r.s_coef[n],
            why="coefficient of per-token surprisal in the OLS of the error on length and surprisal (nats "
            "of error per nat); < 0: surprising sequences lose more at equal length",
        )
        for n in learners
    ]
    return cases, (
        "rarest minus most probable bin, residual of the length law: "
        + "; ".join(f"{n} {ci(r.tail[n])}" for n in learners)
        + "; OLS coefficient of per-token surprisal at equal length: "
        + "; ".join(f"{n} {ci(r.s_coef[n])}" for n in learners)
    )


def non_linear(r, q):
    """Claim 2c: the slope's relative change across the central 95 % of log p_L beyond the margin."""
    cases = [
        est(
            n,
            "outside",
            r.bend[n],
            q.linear_margin,
            why="relative change of the slope across the central 95 % of log p_L",
        )
        for n in r.learners
    ]
    return cases, "relative slope change across the central 95 % of log p_L: " + "; ".join(
        f"{n} {ci(r.bend[n])}" for n in r.learners
    )


def size_matters_little(r, q):
    """Claim 3: the larger model's mean-PP gain, its sign and its size (an effect), each one
    case over the seeds; not tested with one size trained."""
    if r.size is None:
        return [], "one size trained", {"form": "every"}
    s, main = SimpleNamespace(**r.size), r.main
    gains = {"": s.pp_gain} | {f"seed {k}: ": v["pp_gain"] for k, v in r.seeds.items() if v["pp_gain"]}
    runs = [scaled(g, 100) for g in gains.values()]
    cases = [
        Case.over_runs(
            [
                est(
                    "sign: the larger model's mean-PP gain, %",
                    "above",
                    gain,
                    why=f"{main}'s gain in mean PP over {s.tiny}, % of {s.tiny}'s",
                )
                for gain in runs
            ]
        ),
        Case.over_runs(
            [
                est(
                    "size: the same gain, %",
                    "within",
                    gain,
                    100 * q.size_cut,
                    why="'only slightly': within the size_margin threshold either way (0: twice the paper's "
                    "own gain, which it calls slight)",
                )
                for gain in runs
            ]
        ),
    ]
    return cases, (
        f"{main} vs {s.tiny} ({r.parameters[main] / 1e6:.2f} M vs "
        f"{r.parameters[s.tiny] / 1e6:.2f} M parameters): mean-PP gain "
        + "; ".join(f"{at}{ci(scaled(g, 100))}" for at, g in gains.items())
        + f" % against the paper's {100 * r.paper_size_gain:.2f} % (its "
        "'slight'); mean errors differ by "
        f"{ci(scaled(s.rel, 100))}"
        f" % of their mean; unpaired per-bin intervals overlap in "
        f"{s.n_overlap} of {s.n_bins} bins (the paper's criterion, not counted: it tests any "
        f"difference; the paired difference is resolved in {s.n_resolved} of {s.n_paired})"
    )


def training_converges(r, q):
    """Claim 4: the mean training error and the gap between training strata within ± near_zero_nats.
    The source's model has fitted its training set by its validation minimum (around its
    fifth epoch, the shaded area of its Fig. 2); where every full-set learner validates best
    at its last epoch (as a schedule annealed to 0 there makes likely), none has reached that
    regime and the claim is not tested: scoring the strata of a learner trained until it fits
    (the data sizes' probes pass their minimum) would decide it."""
    final, gaps, last = r.final, r.gaps, r.last
    if r.n_best_last == r.n_models:
        past = [N for N, p in r.probes.items() if p and p["kept update"] < p["updates"]]
        probes = (
            f"; the probes at N = {', '.join(f'{N:,}' for N in past)} pass their minimum, but their strata are not "
            "scored"
            if past
            else ""
        )
        return [], (
            f"not tested: the {r.n_models} learners of the models table validate best at their last epoch, where "
            f"their schedule anneals to 0, before fitting their training set (epoch {last}: mean train error "
            f"{ci(final['train'])} nats, the strata {strata_end(gaps['train', last])}), which the source's model "
            f"fits by its validation minimum{probes}"
        )
    cases = [
        est("mean training error", "within", final["train"], q.near_zero_nats, why=f"epoch {last}, nats"),
        est(
            "gap between the training strata",
            "within",
            gaps["train", last],
            q.near_zero_nats,
            why=f"epoch {last}, most probable minus rarest stratum, nats",
        ),
    ]
    return cases, (
        f"epoch {last}: mean train error {ci(final['train'])} nats, gap "
        f"between strata {ci(gaps['train', last])} (the strata {strata_end(gaps['train', last])}); best "
        f"validation epoch = last for {r.n_best_last} of {r.n_models} learners"
        + (" (the claim is about a model that has fitted its training set)" if r.n_best_last else "")
    )


def gaps_persist(r, q):
    """Claim 5: the gap between the test strata at the last epoch above 0."""
    gaps, last, mid = r.gaps, r.last, r.mid
    cases = [
        est(
            "gap between the test strata",
            "above",
            gaps["test", last],
            why=f"epoch {last}, most probable minus rarest stratum, nats",
        )
    ]
    return cases, (
        f"epoch {last}: test strata gap {ci(gaps['test', last])} (epoch 1: "
        f"{ci(gaps['test', 1])}; epoch {mid}: {ci(gaps['test', mid])}), of "
        f"which the length law leaves {ci(negated(r.gap_beyond))} (above 0: a gap beyond length; not counted, "
        "the claim is about the gaps themselves); exceeding the training gap "
        f"by {ci(r.apart)}; training strata gap {ci(gaps['train', last])}"
    )


# claims 6a and 6b are two: one estimate cannot show "helps" and "does not level off" wrong at once
def _at_seeds(r) -> dict:
    """The data-size comparisons at every seed: prefix of its cases' names -> the mapping of
    :func:`lmnotes.studies.distortion.seeds.repeat` (the first seed's, from the chapter's own
    learners, unprefixed)."""
    first = {"step_gain": r.step_gain, "error_at": r.error_at, "rel_step": r.rel_step, "same_n": r.same_n}
    return {"": first} | {f"seed {k}: ": v for k, v in r.seeds.items()}


def more_data_helps(r, q):
    """Claim 6a: every doubling of N gains error, each doubling one case over the seeds."""
    seeds = _at_seeds(r)
    cases = [
        Case.over_runs(
            [
                est(f"doubling N = {a:,} → {b:,}", "above", v["step_gain"][a, b], why="error gained, nats")
                for v in seeds.values()
            ]
        )
        for a, b in r.step_gain
    ]
    more = "".join(
        f"; {at}{', '.join(ci(g) for g in v['step_gain'].values())}" for at, v in seeds.items() if at
    )
    probes = [N for N in r.sizes if r.probes.get(N)]

    def listed(key: str, fmt: str, at: Mapping = r.steps, sizes=r.sizes) -> str:
        return ", ".join(format(at[N][key], fmt) for N in sizes)

    rates = (
        "each at the end of a schedule annealed to 0"
        if all(r.steps[N]["learning rate kept"] < 0.005 for N in r.sizes)
        else f"learning rate there {listed('learning rate kept', '.2f')} of its peak"
    )
    return cases, (
        f"the doublings gain {', '.join(ci(g) for g in r.step_gain.values())} nats{more}; N = "
        + ", ".join(f"{N:,}" for N in r.sizes)
        + f" kept at updates {listed('kept update', 'd')}, {rates}, summed learning rate "
        + listed("Σ learning rate", ".0f")
        + f", validation loss {listed('valid loss', '.2f')}"
        + (
            f" (N = {', '.join(f'{N:,}' for N in probes)} on schedules of their own; their probes' "
            f"{listed('Σ learning rate', '.0f', r.probes, probes)} and {listed('valid loss', '.2f', r.probes, probes)})"
            if probes
            else ""
        )
    )


def levels_off(r, q):
    """Claim 6b: the last doubling's gain against level_margin (:func:`levelling`), at every seed;
    not tested where every seed's gain is still above the margin this far below the paper's N
    (:func:`beyond_reach`: such a gain is not against, and only a larger N would decide it)."""
    lastg = list(r.step_gain.values())[-1]
    last_rel = list(r.rel_step.values())[-1]
    seeds = _at_seeds(r)
    cases = []
    for at, v in seeds.items():
        c = levelling(v["step_gain"], v["error_at"], q.level_margin, r.sizes[-1])
        cases.append(dataclasses.replace(c, name=at + c.name))
    more = "".join(f"; {at}{ci(list(v['step_gain'].values())[-1])}" for at, v in seeds.items() if at)
    text = (
        f"the last doubling gains {ci(lastg)} nats, cutting the error by {last_rel:.0%}{more}; judged up to "
        f"N = {r.sizes[-1]:,}, {PAPER_LARGEST_N / r.sizes[-1]:,.0f}× below the paper's "
        f"{PAPER_LARGEST_N / 1e6:.0f} M sequences"
    )
    if all(beyond_reach(c) for c in cases):
        return [], (
            f"not tested: {text}, where a gain above the margin is not against (on a learning curve a "
            f"doubling's gain shrinks as N grows); doublings from N ≥ {PAPER_LARGEST_N // BEYOND_REACH:,} are "
            "judged against it"
        )
    return cases, text


def transformer_efficient(r, q):
    """Claim 7: the main learner's error above the LSTM's at every equal N, each N one case over
    the seeds."""
    main, arch, same_n = r.main, r.arch, r.same_n
    if not same_n:
        return [], "no LSTM trained"
    seeds = _at_seeds(r)
    cases = [
        Case.over_runs(
            [
                est(f"N = {N:,}", "above", v["same_n"][i], why=f"{main} minus {arch[0]}, error at equal N")
                for v in seeds.values()
            ]
        )
        for i, N in enumerate(r.sizes)
    ]
    more = "".join(f"; {at}{', '.join(ci(e) for e in v['same_n'])}" for at, v in seeds.items() if at)
    return cases, (
        f"{main} minus {arch[0]} at equal N (positive: {main} closer to L): "
        + "; ".join(f"N = {N:,}: {ci(e)}" for N, e in zip(r.sizes, same_n))
        + more
        + "; against the LSTM on 2N (not counted): "
        + "; ".join(ci(e) for e in r.ahead)
    )


def not_to_the_head(r, q):
    """Claim 8: the most probable bin underestimated, and M's mass on L's head below L's."""
    ends, learners = r.ends, r.learners
    cases = [
        est(
            f"{n}: most probable bin",
            "below",
            bin_estimate(ends[n][1]),
            why="mean error in the most probable twentieth (equal-count bin)",
        )
        for n in learners
    ] + [
        est(
            f"{n}: mass on L's head",
            "below",
            r.head_mass[n],
            why="M's mass minus L's on L's most probable fifth, from M's samples",
            unit="samples of M and L",  # deficit.mass_by_bin resamples both sample sets
        )
        for n in learners
    ]
    return cases, (
        "mean error in the most probable twentieth (equal-count bin): "
        + "; ".join(f"{n} {ci(bin_estimate(ends[n][1]))}" for n in learners)
        + "; M's mass minus L's on L's most probable fifth, from M's samples: "
        + "; ".join(f"{n} {ci(r.head_mass[n])}" for n in learners)
    )


def perturbed_over(r, q):
    """Claim 9: the mean error after the most perturbations above 0."""
    cases = [
        est(p.model, "above", p.ci, why=f"mean error after {r.top_level} perturbations")
        for p in r.perturbed.itertuples()
    ]
    return cases, f"after {r.top_level} perturbations: " + "; ".join(
        f"{p.model} {ci(p.ci)}" for p in r.perturbed.itertuples()
    )


def random_over(r, q):
    """Claim 10: every bin of random Σ* sequences above 0."""
    rand_df = r.random_bins
    cases = [
        Case(f"{b.model}, bin {b.bin}", "above", b.mean, b.low, b.high, why="mean error in the bin")
        for b in rand_df.itertuples()
    ]
    return (
        cases,
        f"bins above zero: {int((rand_df['low'] > 0).sum())} of {len(rand_df)} ({', '.join(r.models_random)})",
    )


def colder_worse(r, q):
    """Claim 11a: the colder language's error per token below the warmer's, each pair of
    temperatures one case over the seeds, and the bins of log p_L where it is worse (each
    bin's interval spanning the seeds')."""
    t_cmp = r.t_cmp
    n_worse, n_better = int((t_cmp["high"] < 0).sum()), int((t_cmp["low"] > 0).sum())
    pairs: dict[tuple, list] = {}
    for (t, t2, _), c in r.colder.items():
        pairs.setdefault((t, t2), []).append(
            est(f"T = {t} against {t2}", "below", c, why="error per token, colder minus warmer")
        )
    cases = [Case.over_runs(runs) for runs in pairs.values()] + [
        Case(
            "bins of log p_L where the colder is worse",
            "above",
            n_worse / len(t_cmp),
            n_worse / len(t_cmp),
            1 - n_better / len(t_cmp),
            0.5,
            why=f"{n_worse} worse and {n_better} better of {len(t_cmp)} bins beyond their intervals; the "
            "interval counts the open bins either way",
        )
    ]
    got, probes = r.t_sums
    return cases, (
        "per token, colder minus warmer, by seed: "
        + "; ".join(
            f"T = {t} − {t2}: " + ", ".join(ci(c) for (a, b, _), c in r.colder.items() if (a, b) == (t, t2))
            for t, t2 in pairs
        )
        + f"; at equal log p_L, T = "
        f"{r.lo_t} worse in {n_worse} of {len(t_cmp)} bins; one schedule for all, annealed to 0 and kept at "
        f"its end (update {'/'.join(map(str, sorted(set(r.t_kept))))}, summed learning rate "
        f"{'/'.join(f'{x:.0f}' for x in sorted(set(got)))}; their probes' {min(probes):.0f}–{max(probes):.0f} at their best)"
    )


def holds_at_one(r, q):
    """Claim 11b: the share underestimated at T = 1 above one half, one case over the seeds."""
    warm = [T for T in r.temperatures if T == 1.0]
    cases = (
        [
            Case.over_runs(
                [
                    est("T = 1", "above", r.t_share[1.0, s], 0.5, why="share underestimated at T = 1")
                    for s in r.temperature_seeds
                ]
            )
        ]
        if warm
        else []
    )
    return cases, (
        "share underestimated at T = 1, by seed: "
        + "; ".join(ci(r.t_share[1.0, s]) for s in r.temperature_seeds)
        if warm
        else "T = 1 not among the language temperatures"
    )


def pretrained_truth(r, q):
    """Claim 12: claims 1, 2a and 10 with a pretrained L (the gpu profile's)."""
    if isinstance(r.pretrained, str):
        return [], f"skipped: {r.pretrained}"
    if not r.pretrained:
        return [], "not run at this profile (the gpu profile's pretrained L)", {"basis": "gpu profile only"}
    p = SimpleNamespace(**r.pretrained)
    cases = [
        est("share underestimated", "above", p.share, 0.5, why="share of the test sequences"),
        Case.apart(
            "rarest minus most probable bin",
            "below",
            bin_estimate(p.rarest_bin),
            bin_estimate(p.top_bin),
            why="mean error (their intervals apart)",
        ),
        est("random sequences", "above", p.rand, why="mean error", unit=RANDOM),
    ]
    return cases, (
        f"{p.language} at T = 1: underestimated {ci(p.share)}; "
        f"rarest bin {num(p.rarest)} vs most probable "
        f"{num(p.top)}; random sequences {ci(p.rand)}"
    )


def lnre_zone(r, q):
    """Claim 13: the unseen mass of language clearly above lnre_share, and its decay unlike a die's."""
    lnre, grew = r.lnre, r.doublings
    language_side = [k for k in ("real sentences", "real words") if k in lnre]
    controls = [k for k in lnre if k.startswith(("power law", "fair die"))]
    counted = [k for k in language_side if k != "real sentences"]
    unlike = [k for k in counted if not math.isnan(grew[k])]
    flat = (
        "; no decay at N/10 to compare for " + ", ".join(sorted(set(counted) - set(unlike)))
        if len(unlike) < len(counted)
        else ""
    )
    cases = [
        Case(
            f"{k}: unseen mass",
            "clearly above",
            lnre[k],
            threshold=q.lnre_share,
            why="Good–Turing P̂_N at the largest N; the paper fixes no threshold",
        )
        for k in language_side
    ] + [doublings_case(k, grew[k], q.lnre_doublings) for k in unlike]
    return cases, (
        "P̂_N and the decay exponent's doublings over the last decade: "
        + "; ".join(f"{k} {num(lnre[k])}, {grown(grew[k])}" for k in language_side)
        + " (the sentences' not counted: nearly all unique at this N, every law's exponent grows "
        f"in proportion to N there, so the doublings cannot tell laws apart{flat})"
        + "; controls (not counted): "
        + "; ".join(f"{k} {num(lnre[k])}, {grown(grew[k])}" for k in controls)
    )


def too_uniform(r, q):
    """Claim 14 (the conclusion): M spreads its mass more uniformly across the sequences than L,
    the source's words: M's entropy rate on its own samples above L's, for every learner. The
    calibration gap ΔH − KL per token (:mod:`.calibration`), whether that spread is more than
    an imperfect but calibrated learner's, goes beyond the source's words: shown, not counted."""
    cases = [
        est(
            n,
            "above",
            r.seq_rate[n],
            why="entropy rate of M's samples minus L's, nats per token (−log p_M of M's own samples)",
            unit="samples of M and test sequences",  # deficit.independent_difference resamples both
        )
        for n in r.learners
        if n in r.seq_rate
    ]
    shown = of_learners(r.gap, r.learners, r.main)
    gap = [lmcases.side("above", g) for g in shown.values()]
    return cases, (
        "entropy rate of M's samples minus L's: "
        + "; ".join(f"{n} {ci(r.seq_rate[n])}" for n in r.learners if n in r.seq_rate)
        + " nats per token, as a calibrated but imperfect learner's would be too; beyond the source's words, "
        "not counted: the calibration gap ΔH − KL (flatter than its log-loss warrants) is above 0 for "
        f"{gap.count(True)}, below for {gap.count(False)} and open for {gap.count(None)} of {len(gap)} learners"
    )


#: The chapter's sections that decide claims.
ERROR, TRAINING = "Estimation error (Fig. 1)", "Over training (Fig. 2)"
DATA = "Over data and architecture (Fig. 3)"
MASS = "Where did the mass go? (Fig. 4 and App. A.1)"
TEMPERATURE = "The temperature of the language (Fig. 5)"
PRETRAINED = "A pretrained ground truth (App. A.2)"
UNIFORM = "Beyond the paper: too uniform?"
LNRE = "The LNRE zone (App. A.5)"


#: The chapter's sections that decide claims, and what each reads of what it measured.
SECTIONS = [
    Section(
        ERROR,
        reading(
            READS,
            "main",
            "learners",
            "parameters",
            "under",
            "ends",
            "law_miss",
            "tail",
            "s_coef",
            "bend",
            "size",
            "paper_size_gain",
            "seeds",
        ),
    ),
    Section(
        TRAINING,
        reading(
            READS, "n_models", "final", "gaps", "last", "mid", "n_best_last", "gap_beyond", "apart", "probes"
        ),
    ),
    Section(
        DATA,
        reading(
            READS,
            "main",
            "arch",
            "sizes",
            "step_gain",
            "steps",
            "probes",
            "error_at",
            "rel_step",
            "same_n",
            "ahead",
            "seeds",
        ),
    ),
    Section(
        MASS,
        reading(
            READS, "learners", "ends", "head_mass", "perturbed", "top_level", "random_bins", "models_random"
        ),
    ),
    Section(
        TEMPERATURE,
        reading(
            READS,
            "colder",
            "lo_t",
            "t_cmp",
            "t_kept",
            "t_sums",
            "t_share",
            "temperatures",
            "temperature_seeds",
        ),
    ),
    Section(PRETRAINED, reading(READS, "pretrained")),
    Section(UNIFORM, reading(READS, "main", "learners", "gap", "seq_rate")),
    Section(LNRE, reading(READS, "lnre", "doublings")),
]


#: The paper's claims (and its conclusion), numbered as the chapter's list numbers them, each
#: with its form and the function that decides it (:class:`lmnotes.report.claims.Claim`).
CLAIMS = [
    lmclaims.Claim("1", "M underestimates most test sequences", underestimated, ERROR, unit=TEST),
    lmclaims.Claim(
        "2a", "The rarer the sequence, the worse the underestimation (binned)", rarer_worse, ERROR, unit=TEST
    ),
    lmclaims.Claim(
        "2b", "Rare sequences are underestimated beyond their length", beyond_length, ERROR, unit=TEST
    ),
    lmclaims.Claim("2c", "The error falls non-linearly with $\\log p_L$", non_linear, ERROR, unit=TEST),
    lmclaims.Claim("3", "Model size matters little", size_matters_little, ERROR, form="effect", unit=TEST),
    lmclaims.Claim(
        "4",
        "Training error converges to ≈ 0 in every stratum",
        training_converges,
        TRAINING,
        unit="training sequences",
    ),
    lmclaims.Claim("5", "The gaps between test strata persist", gaps_persist, TRAINING, unit=TEST),
    lmclaims.Claim("6a", "More data helps", more_data_helps, DATA, unit=TEST),
    lmclaims.Claim("6b", "… and levels off", levels_off, DATA, unit=TEST),
    lmclaims.Claim(
        "7",
        "The Transformer uses data more efficiently than the LSTM",
        transformer_efficient,
        DATA,
        unit=TEST,
    ),
    lmclaims.Claim("8", "The mass does not go to the head", not_to_the_head, MASS, unit=TEST),
    lmclaims.Claim(
        "9", "Perturbed sequences end up overestimated", perturbed_over, MASS, unit="perturbed test sequences"
    ),
    lmclaims.Claim(
        "10", "Random Σ* sequences are overestimated whatever $p_L$", random_over, MASS, unit=RANDOM
    ),
    lmclaims.Claim("11a", "Lower-entropy languages suffer more", colder_worse, TEMPERATURE, unit=TEST),
    lmclaims.Claim(
        "11b", "The underestimation holds at T = 1 (App. A.3)", holds_at_one, TEMPERATURE, unit=TEST
    ),
    lmclaims.Claim(
        "12", "The findings hold with a pretrained ground truth", pretrained_truth, PRETRAINED, unit=TEST
    ),
    lmclaims.Claim("13", "Natural language is in the LNRE zone, unlike dice", lnre_zone, LNRE),
    lmclaims.Claim(
        "14", "M spreads its mass too uniformly (the conclusion)", too_uniform, UNIFORM, unit=TEST
    ),
]


def claims(measured: Mapping, rules: Mapping) -> pd.DataFrame:
    """The chapter's claims table: one row per claim of :data:`CLAIMS`, each with its form and
    its cases (:mod:`lmnotes.report.cases`), from which :func:`lmnotes.report.claims.row`
    computes the verdict."""
    missing = [k for k in RULES if k not in rules]
    if missing:
        raise ValueError(f"the claims need the rules {missing} (see RULES)")
    return lmclaims.decide_all(CLAIMS, SECTIONS, measured, SimpleNamespace(**rules))


def doublings_case(name: str, doublings: float, threshold: float) -> lmcases.Case:
    """Claim 13's "unlike dice" case for ``name``: the decay exponent's doublings over the
    last decade of N (:func:`lmnotes.studies.distortion.lnre.doublings`) clearly below
    ``threshold``. A decay that reached P̂ = 0 (∞ doublings, a die used up) is counted
    beyond twice the threshold."""
    used_up = math.isinf(doublings)
    return lmcases.Case(
        f"{name}: decay exponent's doublings",
        "clearly below",
        max(4 * threshold, math.log2(10)) if used_up else doublings,
        threshold=threshold,
        why="over the last decade of N, log₂ of the exponent's ratio (a power law 0, a "
        "fair die log₂ 10): a power-law decay rather than a die's; the threshold is ours"
        + ("; P̂ reached 0 (∞ doublings), counted beyond twice the threshold" if used_up else ""),
    )


def thresholds(rules: Mapping, paper_size_gain: float) -> dict[str, str]:
    """The chapter's thresholds as the claims table states them, "name = value" -> meaning."""
    q = SimpleNamespace(**rules)
    return {
        f"size_margin = {q.size_margin:g}": "size matters little when the larger "
        "model's gain in mean PP lies within ± this (0: twice the paper's own "
        f"GPT2-small → medium gain, 2 × {100 * paper_size_gain:.2f} %: a gain clearly larger than the one "
        "the paper calls slight)",
        f"linear_margin = {q.linear_margin:g}": "the error is linear in log p_L when "
        "its slope changes by less than this share across the central 95 % of "
        "log p_L, non-linear when by more",
        f"lnre_doublings = {q.lnre_doublings:g}": "a process decays unlike a die (claim "
        "13's second half) when its decay exponent doubles clearly fewer times than this over "
        "the last decade of N (less than half of it; open up to twice it; a power law keeps "
        "its exponent, a fair die's grows tenfold, 3.3 doublings); being in the zone is "
        "lnre_share's",
        f"level_margin = {q.level_margin:g}": "data levels off when a doubling gains less than this share",
        f"near_zero_nats = {q.near_zero_nats:g}": "a training error within this many nats of 0 has converged",
        f"lnre_share = {q.lnre_share:g}": "a process is in the LNRE zone when the "
        "Good–Turing share of unseen mass clearly exceeds this at the largest N (twice it; open down "
        "to half of it)",
    }
