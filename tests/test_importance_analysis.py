"""The analysis chapter 04 reads from its package (lmnotes.studies.importance: summaries,
temperature, tokenization, curves) on constructed inputs and toys."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as ss
from scipy.special import logsumexp

from lmnotes.studies.importance import curves as CV
from lmnotes.studies.importance import estimators as I
from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import summaries as S
from lmnotes.studies.importance import switch_runs as SR
from lmnotes.studies.importance import temperature as TP
from lmnotes.studies.importance import tokenization as TK
from test_latent import toy


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """The chapter's heavy functions keep their values in the cache
    (:mod:`lmnotes.studies.importance.cached`): here, a temporary one."""
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))


def test_runs_interval_is_the_student_t_interval():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    e = S.runs_interval(x)
    half = ss.t.ppf(0.975, 3) * x.std(ddof=1) / 2
    assert e.value == pytest.approx(2.5)
    assert (e.low, e.high) == pytest.approx((2.5 - half, 2.5 + half))
    assert S.mean_estimate(x * 10, 10).value == pytest.approx(2.5)


def test_overlap_of_identical_disjoint_and_constant_samples():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(500)
    assert S.overlap(a, a) == pytest.approx(1.0, abs=0.01)
    assert S.overlap(a, a + 100) < 1e-6
    assert S.overlap(np.ones(3), np.ones(3)) == 1.0 and S.overlap(np.ones(3), 2 * np.ones(3)) == 0.0
    b = rng.standard_normal(500) + 1  # two unit normals one sd apart share 2 Φ(−1/2) ≈ 0.62
    assert S.overlap(a, b) == pytest.approx(2 * ss.norm.cdf(-0.5), abs=0.06)


def test_perplexity_of_errors_and_level_table():
    logp = {"m": np.array([-10.0, -20.0])}
    ppl_of = S.perplexity_of(logp, {"m": -10.0}, 5)
    assert ppl_of("m", 0.0) == pytest.approx(np.exp(2.0))
    assert ppl_of("m", -5.0) == pytest.approx(np.exp(3.0))  # a lower log p̂: a higher perplexity
    assert ppl_of("m", 0.0, 10) == pytest.approx(np.exp(3.0))
    runs = {("m", "q"): pd.DataFrame({"instance": np.linspace(-2.0, 0.0, 41)})}
    t = S.level_table(runs, ["m"], ["q"], "instance", ppl_of, 10)
    est = t.loc["q", "m"]
    assert est.value == pytest.approx(np.exp(3.1))
    assert est.low < est.value < est.high  # the range of the runs, in perplexity order
    assert t.loc["exact (no sampling)", "m"] == pytest.approx(np.exp(3.0))
    assert S.fmt(1234.5, 2) == "1,200"
    assert S.fmt(S.runs_interval([0.1, 0.12, 0.14]), 2).startswith("0.12 [")
    assert S.p_text(0.0001) == "p < 0.001" and S.p_text(0.0123) == "p = 0.012"
    assert S.percent(S.runs_interval([0.1, 0.2, 0.3])).value == pytest.approx(20.0)


def test_run_errors_are_zero_for_exact_weights_and_cut_into_runs():
    truth = np.log([0.2, 0.05])
    logw = np.tile(truth[:, None], (1, 12))  # every weight is p(x): no error at either level
    inst, corp = TK.run_errors(logw, truth, 4)
    assert inst.shape == corp.shape == (3,)
    assert np.allclose(inst, 0) and np.allclose(corp, 0)
    rng = np.random.default_rng(1)
    logw = truth[:, None] + rng.normal(0, 1, (2, 12))
    inst, corp = TK.run_errors(logw, truth, 4)
    r = logw.reshape(2, 3, 4)
    assert inst[1] == pytest.approx((logsumexp(r[:, 1], axis=1) - np.log(4) - truth).sum())
    assert corp[1] == pytest.approx(I.corpus_level(r[:, 1]) - truth.sum())
    row = TK.error_row("wiki/x", "guided", inst, corp)
    assert row["RMSE per run"] == pytest.approx(np.sqrt(np.mean(inst**2)))


def test_tokenization_rows_configs_and_words():
    configs = TK.proposal_configs([0.5, 1.0])
    assert list(configs) == ["constrained, τ = 0.5", "constrained, τ = 1", "guided"]
    assert configs["constrained, τ = 0.5"]["temperature"] == 0.5
    exact = np.log([0.1, 0.2])
    rows = TK.beam_rows("wiki/x", np.column_stack([exact - 0.1, exact]), exact, [1, 10])
    assert rows[0]["instance level"] == pytest.approx(-0.2) and rows[1]["instance level"] == 0.0
    anc = TK.ancestral_row("wiki/x", np.array([-np.inf, -1.0]), exact)
    assert anc["instance level"] == -np.inf and anc["proposal"] == SR.NO_PEEKING
    sentences = [["the", "letters", "apple", "a", "Capital"], ["bananas", "letters", "x1yzab"]]
    words = TK.pick_words(sentences, [5, 7], 10, seed=0)
    assert words == [" apple", " bananas", " letters"]  # all there are, sorted, with a space
    assert len(TK.pick_words(sentences, [5, 7], 2, seed=0)) == 2


def test_with_warnings_records_instead_of_showing():
    def noisy(x):
        warnings.warn("careful")
        return x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning that escaped would raise here
        out, caught = TK.with_warnings(noisy, 1)
    assert out == 2 and caught == ["careful"]


def test_best_temperatures_read_the_minimum_and_the_ties():
    grid = np.array([0.5, 1.0, 2.0])
    tau_div = {("m", "peek 1"): (np.array([3.0, 1.0, 2.0]), np.array([5.0, 4.0, 1.0]))}
    rng = np.random.default_rng(0)
    runs = {
        ("m", SR.peek_label(1, t)): pd.DataFrame({"instance": mean + 0.01 * rng.standard_normal(20)})
        for t, mean in [(0.5, -10.0), (1.0, -1.0), (2.0, -1.001)]
    }
    rows = TP.best_temperatures(tau_div, grid, runs, ["m"], ["peek 1"], [0.5, 1.0, 2.0], 100.0, 20, 10)
    r = rows["m", "peek 1"]
    assert r["τ* (χ²)"] == 2.0 and r["τ* (KL)"] == 1.0
    assert r["log(1 + χ²) at τ = 1"] == 4.0 and r["at τ*"] == 1.0
    assert r["best τ of the runs (K = 10)"] in (1.0, 2.0)
    assert r["tied with it"] == "1, 2"  # τ = 0.5 far worse, 1 and 2 within the noise
    # the models as the chapter passes them (a dict of switch-LMs): the gains on the sticky chain
    sticky = {("sticky", n): v for (_, n), v in tau_div.items()}
    sticky["sticky", SR.MEAN_FIELD] = (np.ones(3), np.array([8.0, 4.0, 2.0]))
    runs = {("sticky", n): v for (_, n), v in runs.items()}
    rows = TP.best_temperatures(
        sticky, grid, runs, {"sticky": None}, ["peek 1", SR.MEAN_FIELD], [0.5, 1.0, 2.0], 100.0, 20, 10
    )
    values = TP.temperature_values(grid, rows, runs, {"sticky": None}, [0.5, 1.0, 2.0], 100)
    assert values["tau_gain_mf_sticky"] == pytest.approx(50.0) and "tau_gain_prior_sticky" not in values
    assert str(values["tau_gain_sentence"]) == "peek 1 (sticky) 75 %; mean-field (sticky) 50 %"


def test_divergences_of_tempered_proposals_on_a_toy():
    model, em = toy(sticky=0.5)
    props = {"m": {SR.EXACT: L.posterior(model, em), "peek 1": L.lookahead(model, em, 1)}}
    sub = np.arange(em.shape[0])
    grid = np.array([0.5, 1.0, 2.0])
    d = TP.divergences(props, ["m"], ["peek 1"], sub, grid)
    kl, chi = d["m", "peek 1"]
    kl1, chi1 = L.divergence(props["m"][SR.EXACT], props["m"]["peek 1"])
    assert kl[1] == pytest.approx(kl1.mean()) and chi[1] == pytest.approx(chi1.mean())
    assert (kl >= -1e-12).all() and (chi >= -1e-12).all()
    post = TP.divergences(
        {"m": {SR.EXACT: props["m"][SR.EXACT], "post": props["m"][SR.EXACT]}},
        ["m"],
        ["post"],
        sub,
        np.array([1.0]),
    )["m", "post"]
    assert post[0][0] == pytest.approx(0, abs=1e-9)  # the posterior is at distance 0 from itself


def test_curves_measure_on_a_toy_posterior_is_exact():
    model, em = toy(sticky=0.5, lengths=(4, 3, 5, 2))
    props = {"m": {SR.EXACT: L.posterior(model, em), "peek 1": L.lookahead(model, em, 1)}}
    sub = np.arange(em.shape[0])
    logp = {"m": model.logprob(em)}
    out = CV.measure(
        {"m": model},
        logp,
        props,
        em,
        np.array([0, 0, 1, 1]),
        sub,
        [1, 10, 100, 2000],
        [SR.EXACT, "peek 1"],
        seed=0,
        kglm_samples_per_batch=1,
    )
    curves, expect, khat, kglm, err_at_max, mc_var, err10 = out
    assert np.allclose(curves["m", SR.EXACT], 0)  # every weight of the posterior is p(x)
    assert np.allclose(err10["m", SR.EXACT], 0) and len(err10["m", SR.EXACT]) == 200
    assert list(expect["m", "peek 1"].index) == [1, 10, 100, 1000]
    bugged, right = kglm["m", SR.EXACT]["sentences"]
    assert right == pytest.approx(logp["m"].sum())
    assert bugged - right == pytest.approx(4 * np.log(2000))  # log K too high per instance
    assert abs(curves["m", "peek 1"][-1]) < 0.05  # 2000 draws of a near proposal
    ppl_of = S.perplexity_of(logp, {"m": logp["m"].sum()}, em.lengths.sum())
    fig = CV.excess_curves(["m"], [1, 10, 100, 2000], curves, ppl_of, ["peek 1"], {"peek 1": "k"}, "t")
    assert fig.axes[0].get_title() == "m switch-LM"


# ---------------------------------------------------------------------------------------------
# convergence, aggregation, bias, beams, coverage, the paper's tables, rankings


from lmnotes.stats import Estimate, Z95  # noqa: E402
from lmnotes.studies.importance import aggregation as AG  # noqa: E402
from lmnotes.studies.importance import beams as BM  # noqa: E402
from lmnotes.studies.importance import bias as BS  # noqa: E402
from lmnotes.studies.importance import convergence as CG  # noqa: E402
from lmnotes.studies.importance import coverage as CO  # noqa: E402
from lmnotes.studies.importance import paper as PA  # noqa: E402
from lmnotes.studies.importance import ranking as RK  # noqa: E402
from lmnotes.studies.importance import switch_summary as SW  # noqa: E402


def test_gap_interval_is_the_relative_perplexity_with_its_monte_carlo_interval():
    err = {("m", "q"): np.array([-1.0, -1.0])}  # log p^ 2 nats below log p over 100 tokens
    var = {("m", "q"): np.array([0.0, 0.0])}
    g = CG.gap_intervals(err, var, [("m", "q")], 100)["m", "q"]
    assert g.value == pytest.approx(np.expm1(0.02)) and g.low == g.high == pytest.approx(g.value)
    var = {("m", "q"): np.array([0.5, 0.5])}
    g = CG.gap_intervals(err, var, [("m", "q")], 100)["m", "q"]
    assert g.low < g.value < g.high


def test_tail_shares_and_the_sentence_that_names_mismatches():
    kl = {("m", "a"): np.array([1.0, 20.0]), ("m", "b"): np.array([1.0, 2.0])}
    tail = CG.tail_shares(kl, np.array([0, 1]), 10_000, list(kl))
    assert tail == {("m", "a"): 0.5, ("m", "b"): 0.0}
    gaps = {("m", "a"): Estimate(0.1, 0.05, 0.15), ("m", "b"): Estimate(0.0, -1e-4, 1e-4)}
    agree, text = CG.tail_sentence(tail, gaps, 0.001)
    assert agree and text.startswith("The proposals whose estimate is still more than 0.1%")
    gaps["m", "b"] = Estimate(0.1, 0.05, 0.15)  # unconverged without a tail
    agree, text = CG.tail_sentence(tail, gaps, 0.001)
    assert not agree and "b, m: 0.0 % of the curves' sentences beyond, gap resolved" in text


def test_monotone_cases_for_a_clear_rise_against_for_a_fall():
    expect = {
        ("m", "q"): pd.DataFrame(
            {"K": [1, 10, 100], "runs": [100, 10, 2], "mean": [-10.0, -1.0, -0.1], "se": [0.01, 0.01, 0.01]}
        ).set_index("K")
    }
    chi = {("m", "q"): np.full(5, np.log(101.0))}  # chi^2 = 100 per sentence: big predicted rises
    curves = {("m", "q"): np.array([-3.0, -2.0, -2.5])}  # one step where the running estimate turns
    cases, drops = CG.monotone_cases(expect, chi, curves, [("m", "q")], np.arange(5))
    assert [c.decision for c in cases] == ["for"] and drops == 1
    assert cases[0].name == "q, m" and "from K = 10 to 100" in cases[0].why  # the smaller rise
    assert cases[0].estimate == pytest.approx(0.9)
    expect["m", "q"]["mean"] = [-1.0, -10.0, -0.1]  # a fall beyond the interval
    fall = CG.monotone_cases(expect, chi, curves, [("m", "q")], np.arange(5))[0][0]
    assert fall.decision == "against" and "from K = 1 to 10, the step that falls lowest" in fall.why
    chi = {("m", "q"): np.full(5, 1e-12)}  # nothing the runs could resolve: open
    expect["m", "q"]["mean"] = [-0.1, -0.1, -0.1]
    assert CG.monotone_cases(expect, chi, curves, [("m", "q")], np.arange(5))[0][0].decision == "open"


def _runs_table(instance, corpus, article=None, n=20, seed=0):
    rng = np.random.default_rng(seed)
    noise = 0.01 * rng.standard_normal(n)
    return pd.DataFrame(
        {
            "instance": instance + noise,
            "corpus": corpus + noise,
            "article": (article if article is not None else corpus) + noise,
            "corpus ESS": np.full(n, 1.5),
        }
    )


def test_instance_vs_corpus_and_the_share_of_bias_removed():
    runs = {("m", "a"): _runs_table(-1.0, -10.0, article=-4.0), ("m", "b"): _runs_table(-0.5, -0.5)}
    ppl_of = S.perplexity_of({"m": np.array([-100.0])}, {"m": -100.0}, 10)
    ic = AG.instance_vs_corpus(runs, list(runs), ppl_of, 100)
    assert [c.decision for c in ic.cases] == ["for", "open"] and ic.cases[0].name == "a, m"
    assert (ic.values["n_ic_for"], ic.values["n_ic_cases"], ic.values["n_ic_unresolved"]) == (1, 2, 1)
    assert ic.values["ic_worst"] == "a on the m model" and ic.values["corpus_ess_median"] == 1.5
    assert ic.min_gap == pytest.approx(0, abs=1e-9) and ic.max_gap == pytest.approx(100 * np.expm1(0.09))
    removed = AG.bias_removed(runs, [("m", "a")], ["instance", "article"])
    assert removed["m", "a"]["instance"].value == pytest.approx(0.9, abs=1e-3)
    assert removed["m", "a"]["article"].value == pytest.approx(0.6, abs=1e-3)
    cases, values = AG.document_values(removed, runs, ppl_of, 100, 0.5, 1234.0, [1])
    assert [(c.decision, c.threshold) for c in cases] == [("for", 0.5)] and values["long_blocks"] == "–"
    assert (values["n_doc_against"], values["n_doc_cases"]) == (0, 1)
    assert values["doc_example"] == "a on the m model" and values["article_tokens"] == 1234.0
    assert list(AG.removed_table(removed).columns) == ["1", "article"]
    tokens = AG.grain_tokens(
        np.array([10.0, 20.0, 30.0]), 60.0, np.array([0, 0, 1]), {"2 sentences": [0, 0, 1]}
    )
    assert tokens == {"instance": 20.0, "corpus": 60.0, "article": 30.0, "2 sentences": 30.0}


def test_a_pair_pinned_to_the_floor_by_its_kl_is_not_applicable_and_a_wide_bound_keeps_its_case():
    """Claim 5: the gap lies in [0, Σ KL(q ‖ p) / tokens]; a pair whose runs do not resolve it
    and whose bound keeps it below Table 1's last digit of perplexity ties at the floor (not
    applicable); a wider bound, a resolved gap or no KL keeps its interval case."""
    noise = 1e-6 * np.random.default_rng(3).standard_normal(20)  # the runs' gap, nats: noise only
    near = _runs_table(-1.0, -1.0).assign(corpus=lambda d: d["instance"] - noise)
    runs = {("m", "near"): near, ("m", "far"): _runs_table(-1.0, -10.0)}
    ppl_of = S.perplexity_of({"m": np.array([-100.0])}, {"m": -100.0}, 10)
    ppl = ppl_of("m", near["corpus"].mean(), 100)  # about e
    tiny = AG.instance_vs_corpus(
        runs,
        list(runs),
        ppl_of,
        100,
        kl_q={("m", "near"): np.full(3, 1e-12), ("m", "far"): np.full(3, 1e-12)},
    )
    near_case, far_case = tiny.cases
    assert near_case.decision == "not applicable" and near_case.name == "near, m"
    assert (near_case.estimate, near_case.low, near_case.high, near_case.floor) == (0.0, 0.0, 0.0, 0.0)
    assert "theory pins the gap to [0, 3e-14]" in near_case.why and "a tie at the floor" in near_case.why
    # resolved by its runs: a tiny bound does not make it a tie (theory says ≥ 0, the runs agree)
    assert far_case.decision == "for" and far_case.low > 0
    assert (tiny.values["n_ic_for"], tiny.values["n_ic_floor"], tiny.values["n_ic_unresolved"]) == (1, 1, 0)
    # a bound of 0.03 nats per token reaches ppl × 0.03 > 0.05 in perplexity: the case stays open
    wide = AG.instance_vs_corpus(runs, list(runs), ppl_of, 100, kl_q={k: np.full(3, 1.0) for k in runs})
    kept = wide.cases[0]
    assert ppl * np.expm1(0.03) > 0.05 and kept.decision == "open" and kept.low < 0 < kept.high
    without = AG.instance_vs_corpus(runs, list(runs), ppl_of, 100).cases[0]  # no KL: the same case
    assert kept.estimate == pytest.approx(noise.mean() / 100, rel=1e-9, abs=0) == without.estimate


def test_exact_floor_is_the_kl_of_the_proposal_from_the_posterior():
    model, em = toy(sticky=0.5)
    props = {"m": {SR.EXACT: L.posterior(model, em), "peek 1": L.lookahead(model, em, 1)}}
    kl = AG.exact_floor(props, [("m", SR.EXACT), ("m", "peek 1")])
    assert np.allclose(kl["m", SR.EXACT], 0, atol=1e-12) and np.all(kl["m", "peek 1"] > 0)
    assert np.allclose(kl["m", "peek 1"], L.divergence(props["m"]["peek 1"], props["m"][SR.EXACT])[0])


def test_bias_rows_on_a_toy_with_the_exact_posterior_and_peek_1():
    model, em = toy(sticky=0.5)
    props = {"m": {SR.EXACT: L.posterior(model, em), "peek 1": L.lookahead(model, em, 1)}}
    runs = {
        ("m", n): SR.repeated(model, em, props["m"][n], 10, 20, seed=1, groups=np.zeros(3))
        for n in (SR.EXACT, "peek 1")
    }
    chi = {("m", n): L.divergence(props["m"][SR.EXACT], props["m"][n])[1] for n in (SR.EXACT, "peek 1")}
    rows = BS.bias_rows(runs, chi, props, [("m", SR.EXACT), ("m", "peek 1")], 20, 3)
    exact, peek = rows["m", SR.EXACT], rows["m", "peek 1"]
    assert exact["exact floor −KL(q‖p)"] == pytest.approx(0, abs=1e-9)
    assert exact["measured"].value == pytest.approx(0, abs=1e-9)
    assert peek["exact floor −KL(q‖p)"] <= peek["measured"].value + 1e-9  # never below the floor
    values = BS.bias_values(rows, chi, 20, 3, em.lengths.sum())
    assert values["n_bias_cases"] == 2 and values["n_above_floor"] >= 1
    assert values["markov_factor"] == pytest.approx(0.05 ** (-1 / em.lengths.sum()))


def test_psis_rows_and_values():
    khat = {("m", "a"): np.array([0.9, np.nan, 0.1]), ("m", "b"): np.array([0.1, 0.1, 0.1])}
    err = {("m", "a"): np.array([-3.0, -4.0, -0.1]), ("m", "b"): np.array([0.0, 0.1, 0.0])}
    rows = BS.psis_rows(khat, err, list(khat), 0.7)
    assert rows["m", "a"]["flagged"] == pytest.approx(2 / 3)  # an undefined k^ counts as flagged
    assert rows["m", "a"]["RMSE if flagged"] == pytest.approx(np.sqrt(12.5))
    assert rows["m", "b"]["RMSE if flagged"] is None
    values = BS.psis_values(rows)
    assert (values["n_psis_sep"], values["n_psis_both"], str(values["psis_exceptions"])) == (1, 1, "none")


def test_beam_bounds_are_lower_bounds_on_a_toy():
    model, em = toy(sticky=0.5)
    props = {"m": {"peek 1": L.lookahead(model, em, 1), SR.EXACT: L.posterior(model, em)}}
    logp = {"m": model.logprob(em)}
    ppl_of = S.perplexity_of(logp, {"m": logp["m"].sum()}, em.lengths.sum())
    T = em.lengths.sum()
    rows, share, best = BM.beam_bounds({"m": model}, em, props, logp, [1, 4], ppl_of, T)
    assert (share["m", 4] <= 1 + 1e-9).all() and (share["m", 4] >= share["m", 1] - 1e-9).all()
    assert rows["k = 4"]["exact k best, m"] <= rows["k = 4"]["beam under q, m"] + 1e-9
    assert rows["k = 1"]["exact k best, m"] >= ppl_of("m", 0.0, T)
    runs = {("m", "peek 1"): pd.DataFrame({"instance": [-0.1, -0.2]})}
    table = BM.beam_table(rows, ["m"], runs, ppl_of, T, 2)
    assert list(table.index) == ["k = 1", "k = 4", "importance sampling, K = 2", "exact (all paths)"]
    assert BM.direction(Estimate(1.0, 0.5, 1.5), "x") == "grows with x"
    assert BM.direction(Estimate(0.0, -0.5, 0.5), "x") == "does not move detectably with x"


def test_length_shares_and_beam_values():
    lengths = np.array([5, 8, 15, 30, 50, 60] * 4)
    article = np.repeat(np.arange(6), 4)
    share = {
        ("fitted", 2): np.where(lengths <= 10, 0.9, 0.2),
        ("sticky", 2): np.where(lengths <= 10, 0.95, 0.5),
    }
    table, short_long = BM.length_shares(share, ["fitted", "sticky"], lengths, article, 2, 200, 0)
    assert table.loc["≤ 10", "fitted"].value == pytest.approx(90.0)
    assert table.loc["> 40", "sticky − fitted"].value == pytest.approx(30.0)
    assert short_long["fitted"].value == pytest.approx(70.0)
    reg = pd.DataFrame(
        {"coefficient (nats per unit)": [Estimate(0.1, 0.05, 0.15), Estimate(1.0, 0.5, 1.5)] * 2},
        index=pd.MultiIndex.from_product([["fitted", "sticky"], ["tokens", "H(z | x)"]]),
    )
    beam = pd.DataFrame(
        {f"{c}, {m}": [110.0] for c in ("beam under q", "exact k best") for m in ("fitted", "sticky")},
        index=["k = 2"],
    )
    ppl_of = lambda m, err, tokens=None: 100.0  # noqa: E731
    cases, equal, values = BM.beam_values(beam, reg, table, short_long, ["fitted", "sticky"], ppl_of, 1.0, 2)
    assert cases == {"fitted": True, "sticky": True} and len(equal) == 4
    assert values["beam_gap_fitted"] == pytest.approx(10.0)
    assert str(values["search_loss_sentence"]) == "1.0 times (fitted) and 1.0 times (sticky)"
    assert str(values["beam_finding"]).startswith("the bound loosens with the length")


def test_coverage_of_a_known_population():
    rng = np.random.default_rng(0)
    articles = np.repeat(np.arange(40), 5)
    tokens = np.full(200, 10.0)
    logp = -tokens * 5 + rng.normal(0, 1, 200)
    c = CO.simulate(logp, tokens, articles, 40, 50, 200, 0)
    assert c.n_population == 40 and c.n_draw == 40
    assert 0.7 <= c.cover <= 1.0  # many equal clusters: close to nominal
    assert c.half == pytest.approx(Z95 * np.sqrt(c.cover * (1 - c.cover) / 50))


def test_the_papers_table_1_as_printed():
    t1 = PA.read_table1()
    assert (t1["n_lower"], t1["n_pairs"]) == (20, 20)
    assert (t1["kglm_c"], t1["kglm_i"]) == (41.7, 29.6)
    assert t1["best_tau"].loc["KGLM", "instance"] == "τ = 1.1"
    kglm_factor, values = PA.bug_factors(1, 1000.0, 10, 100)
    assert kglm_factor[100] == pytest.approx(np.exp(-np.log(100) * 60 / 245_569))
    assert values["our_article_factor"] == pytest.approx(np.exp(-np.log(100) / 100))
    quoted = PA.table1_values(t1, kglm_factor)
    assert quoted["kglm_gap"] == pytest.approx(12.1) and quoted["rnng_beam"] == 84.3
    assert quoted["paper_peek_at1"] == "4 of 4"


def test_normaliser_table_shows_the_bug_as_a_lower_perplexity():
    ppl_of = S.perplexity_of({"sticky": np.array([-50.0])}, {"sticky": -50.0}, 10)
    kglm = {"sentences": (-50.0 + np.log(100), -50.0)}
    t = PA.normaliser_table(kglm, ppl_of, -50.0)
    row = t.loc["sentences"]
    assert row["estimate, correct normaliser"] == pytest.approx(row["exact"])
    assert row["estimate, kglm-model normaliser"] < row["exact"]


def test_rank_proposals_agree_when_the_errors_follow_chi2():
    names = ["a", "b", "c", "d", "e"]
    size = {n: i + 1.0 for i, n in enumerate(names)}
    expect = {("m", n): pd.DataFrame({"mean": [-size[n]]}, index=[10]) for n in names}
    curves = {("m", n): np.array([-size[n]]) for n in names}
    kl = chi = {("m", n): np.full(3, size[n]) for n in names}
    err10 = {("m", n): np.full(4, -size[n]) for n in names}
    rows, kendall, top, single = RK.rank_proposals(expect, curves, kl, chi, err10, ["m"], names, 100)
    assert kendall["m", "χ²"].statistic == pytest.approx(1.0)
    # the exact divergences read on the runs' sentences only: elsewhere they can be anything
    far = {("m", n): np.array([size[n], size[n], 1e9 * (5 - size[n])]) for n in names}
    assert RK.rank_proposals(expect, curves, far, far, err10, ["m"], names, 100, sub=np.array([0, 1]))[1][
        "m", "χ²"
    ].statistic == pytest.approx(1.0)
    assert RK.rank_proposals(expect, curves, far, far, err10, ["m"], names, 100)[1]["m", "χ²"].statistic < 0
    assert top["m"] == ("a", "a") and single["m"] == 1.0
    assert rows["m", "e"]["rank at K = 10"] == 5
    values = RK.ranking_values(rows, kendall, top, single, 100)
    assert str(values["flattered_sentence"]) == "no proposal moves by two ranks or more"
    assert values["n_large_moved"] == 0 and values["n_ranked"] == 5
    assert list(RK.agreement_table(kendall).columns) == ["Kendall τ", "p-value"]


def test_state_gain_is_zero_for_identical_models():
    lp = np.array([-10.0, -20.0, -15.0, -12.0])
    g = SW.state_gain(lp, lp.copy(), np.array([3.0, 5.0, 4.0, 3.0]), [0, 0, 1, 1], 100, 0)
    assert g.value == 0 and g.low == pytest.approx(0) and g.high == pytest.approx(0)
    assert "adds nothing detectable" in SW.state_sentence(g)
    assert "lowers the perplexity" in SW.state_sentence(Estimate(0.1, 0.05, 0.15))


def test_the_law_of_the_best_temperature_on_a_toy():
    model, em = toy(sticky=0.3)
    law = TP.law(model, em, [0.0, 0.8], [0, 1], np.array([0.5, 1.0, 2.0]))
    assert list(law["proposal"]) == [SR.NO_PEEKING, "peek 1", SR.MEAN_FIELD] * 2
    assert set(law["τ*"]) <= {0.5, 1.0, 2.0} and (law["KL at τ = 1"] >= -1e-12).all()
    values = TP.law_values(law, 3)
    assert values["n_law_used"] == 3 and values["n_law_points"] == (law["KL at τ = 1"] > 0).sum()


class _Draws:
    """Duck-typed importance samples of strings: log weights per string and draw."""

    def __init__(self, logw, log_canonical=None):
        self.logw = np.asarray(logw, dtype=float)
        self.log_canonical = log_canonical

    def logmarginal(self):
        return I.log_mean(self.logw)


def test_the_reference_is_the_largest_estimate_and_counts_only_with_a_good_k_hat():
    rng = np.random.default_rng(0)
    good = _Draws(np.log(0.1) + 0.01 * rng.standard_normal((2, 200)), log_canonical=np.log([0.05, 0.08]))
    low = _Draws(np.log(0.01) + 0.01 * rng.standard_normal((2, 200)))
    heavy = np.log(0.01) + 0.01 * rng.standard_normal((2, 200))
    heavy[1, 0] = np.log(1000.0)  # one enormous weight: the largest estimate, heavy-tailed
    draws = {"guided": good, "low": low, "heavy": _Draws(heavy)}
    best, ref_lp, ref_k, counted = TK.reference(draws)
    assert list(best) == ["guided", "heavy"] and ref_lp[0] == pytest.approx(np.log(0.1), abs=0.01)
    assert counted.tolist() == [True, False]
    rows = TK.sentence_rows("wiki/x", draws, ["low"], ref_lp, counted, 50)
    assert rows[0]["instance level"] == pytest.approx(np.log(0.05) - ref_lp[0])
    assert rows[1]["instance level"].value == pytest.approx(np.log(0.1), abs=0.05)
    values = TK.sentence_values({"wiki/x": (best, ref_k, counted)})
    assert values["n_sent_counted"] == "1 (wiki/x)"
    assert str(values["ref_source_sentence"]) == "wiki/x: guided for 1, heavy for 1"
    assert TK.pick_sentences(["a b", "a much longer sentence", "c"], 5, 5, 0) == ["a b", "c"]


def test_word_values_decide_claim_10_from_the_ancestral_hits():
    curves = {
        ("wiki/x", f"constrained, τ = {t:g}"): np.array([-5.0, -e]) for t, e in [(1.0, 2.0), (2.0, 0.5)]
    }
    curves["wiki/x", "guided"] = np.array([-1.0, -0.01])
    hits = {"wiki/x": np.full(3, -np.inf)}
    cases, values = TK.word_values(
        [" a", " b", " c"],
        curves,
        [1.0, 2.0],
        ["wiki/x"],
        [],
        hits,
        ["no sample spelled any string"],
        1000,
        {"wiki/x": 500.0},
        64,
    )
    assert [(c.decision, c.estimate, c.low) for c in cases] == [("for", 0.0, 0.0)]
    assert cases[0].high == pytest.approx(1 - 0.025 ** (1 / 1000))  # the exact binomial upper end
    assert values["best_constrained"] == "τ = 2 (wiki/x)" and values["tok_skipped"] == "none"
    assert "“no sample spelled any string”" in str(values["ancestral_sentence"])
    cases, values = TK.word_values(
        [" a"], curves, [1.0, 2.0], ["wiki/x"], [], {"wiki/x": np.log([0.9])}, [], 1000, {"wiki/x": 1.1}, 64
    )
    assert [c.decision for c in cases] == ["against"]
    assert "spelled 1 of the words" in str(values["ancestral_sentence"])
    cases, _ = TK.word_values(
        [" a"], curves, [1.0, 2.0], ["wiki/x"], [], {"wiki/x": np.log([0.5])}, [], 1000, {"wiki/x": 2.0}, 64
    )
    assert cases[0].decision == "open"  # half the samples spell it: neither way


from lmnotes.studies.importance import densities as DN  # noqa: E402
from lmnotes.studies.importance import divergences as DV  # noqa: E402
from lmnotes.studies.importance import table1 as T1  # noqa: E402


def test_divergences_of_the_posterior_are_zero_and_the_table_counts_the_tail():
    model, em = toy(sticky=0.5)
    props = {m: SR.proposals(model, em, [0, 1, 2], [1.0]) for m in ("fitted", "sticky")}
    names = [SR.NO_PEEKING, "peek 1", SR.MEAN_FIELD, SR.EXACT]
    kl, chi = DV.exact(props, ["fitted", "sticky"], names)
    assert np.allclose(kl["fitted", SR.EXACT], 0, atol=1e-9) and np.allclose(
        chi["sticky", SR.EXACT], 0, atol=1e-9
    )
    assert all((v >= -1e-9).all() for v in kl.values()) and all((v >= -1e-9).all() for v in chi.values())
    t = DV.table(kl, ["fitted", "sticky"], names, 1)  # K = 1: every sentence with KL > 0 is beyond
    assert (
        t.loc[SR.EXACT, "exp(KL) > 1, fitted"] == 0.0 and t.loc[SR.NO_PEEKING, "exp(KL) > 1, sticky"] == 1.0
    )
    values = DV.values(kl, ["fitted", "sticky"])
    assert values["kl_corpus_nopeek_sticky"] == pytest.approx(kl["sticky", SR.NO_PEEKING].sum())
    assert list(values)[-4:] == [
        "median_k_nopeek_fitted",
        "median_k_peek1_fitted",
        "median_k_nopeek_sticky",
        "median_k_peek1_sticky",
    ]


def test_separation_orders_neighbours_and_the_exact_value_among_the_runs():
    rng = np.random.default_rng(0)
    runs = {
        ("m", n): pd.DataFrame({"instance": mean + 0.1 * rng.standard_normal(30)})
        for n, mean in [("a", -1.0), ("b", -5.0), ("c", -5.05)]
    }
    sep = DN.separation(runs, ["m"], ["c", "a", "b"], 1.0)
    assert list(zip(sep["better"], sep["next"])) == [("a", "b"), ("b", "c")]
    assert sep["_p"].iloc[0] < 1e-6 and sep["overlap"].iloc[0] < 0.01
    assert sep["overlap"].iloc[1] > 0.3
    assert DN.straddle_sentence(runs, ["m"], ["a", "b"]) == "every run lies above it"
    runs["m", "a"] = pd.DataFrame({"instance": np.array([-0.1, 0.1, -0.2, 0.2])})
    assert "50 % of the runs of a (m) fall below" in DN.straddle_sentence(runs, ["m"], ["a", "b"])


def test_expected_table_has_the_student_t_interval():
    e = pd.DataFrame({"K": [1, 10], "runs": [20, 2], "mean": [-2.0, -1.0], "se": [0.1, 0.1]}).set_index("K")
    t = CG.expected_table({("m", "q"): e}, [("m", "q")])
    assert list(t.columns) == ["K = 1", "K = 10"]
    wide = t.loc[("m", "q"), "K = 10"]
    assert wide.high - wide.value == pytest.approx(ss.t.ppf(0.975, 1) * 0.1)


def test_table1_runs_and_the_non_latent_model():
    model, em = toy(sticky=0.5)
    props = {"m": SR.proposals(model, em, [0, 1], [1.0, 2.0])}
    names = T1.run_names([1.0, 2.0], [0, 1, 2])
    assert names == [SR.NO_PEEKING, "peek 1", "peek 1, τ = 2", "peek 2", SR.MEAN_FIELD, SR.EXACT]
    article = np.array([0, 0, 1])
    runs = T1.run_all(
        {"m": model},
        em,
        props,
        [SR.EXACT, "peek 1"],
        article,
        {"2 sentences": SR.blocks(article, 2)},
        ["peek 1"],
        3,
        4,
        0,
    )
    assert np.allclose(runs["m", SR.EXACT][["instance", "corpus", "article"]], 0)
    assert "2 sentences" in runs["m", "peek 1"] and "2 sentences" not in runs["m", SR.EXACT]
    t = T1.nonlatent(em, "wiki/x", article, 3, 4, 0)
    assert t.loc["wiki/x", "instance − corpus"] < 1e-9  # every weight is p(x)


def test_gap_values_by_pair_and_the_coverage_table():
    logp = {m: np.array([-100.0]) for m in ("fitted", "sticky")}
    ppl_of = S.perplexity_of(logp, {m: -100.0 for m in logp}, 10)
    curves = {(m, n): np.array([-5.0, -1.0]) for m in logp for n in (SR.NO_PEEKING, "peek 1", "peek 2")}
    values = CG.gap_values(ppl_of, curves)
    assert values["gap_nopeek_sticky_pct"] == pytest.approx(100 * np.expm1(0.1))
    assert values["gap_peek2_fitted_pct"] == "11"  # two significant digits, as text
    t = S.by_pair({("m", "a"): {"x": 1.0}, ("m", "b"): {"x": 2.0}})
    assert t.index.names == ["model", "proposal"] and t.loc[("m", "b"), "x"] == 2.0
    c = CO.table(CO.Coverage(0.9, 0.02, 10, 40))
    assert c.index[0] == "10 articles of 40" and c.loc["10 articles of 40", "actual"].value == pytest.approx(
        90.0
    )


class _Segmentations:
    """A stand-in for the segmentation study's module: a word's segmentations are its splits
    into single letters and the whole word."""

    class _Lattice:
        def __init__(self, n):
            self.n = n

        def log_count(self):
            return np.log(self.n)

    @staticmethod
    def lattices(lm, words):
        return [_Segmentations._Lattice(2 ** (len(w.strip()) - 1)) for w in words]

    @staticmethod
    def segmentation_logprobs(lm, word, limit):
        return np.log([0.5, 0.25, 0.125])


def test_exact_marginals_skip_words_with_too_many_segmentations():
    ok, exact, topk, skipped = TK.exact_marginals(
        None, "wiki/x", [" ab", " abcdefgh"], 8, [1, 2], _Segmentations
    )
    assert ok == [" ab"] and skipped == ["'abcdefgh' (wiki/x)"]
    assert exact[0] == pytest.approx(np.log(0.875)) and topk[0].tolist() == pytest.approx(np.log([0.5, 0.75]))


def test_population_grid_and_formats():
    lp, tok, art = CO.population(
        np.array([-1.0]), np.array([-2.0, -3.0]), np.array([2]), np.array([3, 4]), ["a"], ["a", "b"]
    )
    assert lp.tolist() == [-1.0, -2.0, -3.0] and tok.dtype == float
    assert art.tolist() == ["valid a", "test a", "test b"]
    g = TP.grid(3, [1.0, 0.5])
    assert g.tolist() == pytest.approx([0.5, 1.0, np.sqrt(0.5 * 5), 5.0])
    assert set(BS.bias_formats()) == set(BS.BIAS_COLUMNS)
    assert BS.correction_formats()["runs above truth, jackknife"] == "{:.0%}"
    assert BS.psis_formats()["flagged"] == "{:.1%}"
