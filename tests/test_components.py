"""The switch-LM's components (lmnotes.studies.importance.components) and its repeated runs
(lmnotes.studies.importance.switch_runs)."""

import math

import numpy as np
import pytest

from lmnotes.studies.importance import components as CP
from lmnotes.studies.importance import latent as L
from lmnotes.studies.importance import switch_runs as SR


def test_cache_counts_the_article_so_far_and_empties_between_articles():
    log_uni = np.log(np.array([0.5, 0.25, 0.25]))
    out = CP.cache_logprobs([[1, 1], [2, 1], [1]], ["a", "a", "b"], log_uni, mu=2.0)
    # p_c(w) = (c(w) + mu p_uni(w)) / (n + mu)
    assert math.exp(out[0][0]) == pytest.approx(0.5 / 2)  # empty cache: the unigram
    assert math.exp(out[0][1]) == pytest.approx((1 + 0.5) / 3)  # one "1" seen
    assert math.exp(out[1][1]) == pytest.approx((2 + 0.5) / 5)  # the earlier sentence counts
    assert math.exp(out[2][0]) == pytest.approx(0.5 / 2)  # a new article: empty again
    with pytest.raises(ValueError, match="mu"):
        CP.cache_logprobs([[0]], ["a"], log_uni, mu=0)


def test_cache_is_a_distribution_at_every_position():
    log_uni = np.log(np.full(4, 0.25))
    history = [[0, 3, 3]]
    counts = np.bincount(history[0], minlength=4)
    probs = [(counts[w] + 100 * 0.25) / (3 + 100) for w in range(4)]
    assert sum(probs) == pytest.approx(1)
    nxt = CP.cache_logprobs([history[0] + [2]], ["a"], log_uni, 100.0)[0][-1]
    assert math.exp(nxt) == pytest.approx(probs[2])


def test_repeated_runs_measure_errors_against_the_truth():
    rng = np.random.default_rng(0)
    model = L.SwitchLM(np.array([0.5, 0.5]), np.array([[0.8, 0.2], [0.3, 0.7]]))
    em = L.Emissions.stack([np.log(rng.uniform(0.05, 0.5, size=(T, 2))) for T in (4, 6, 3, 5)])
    props = SR.proposals(model, em, [0, 1, 2], [0.5, 1.0, 2.0])
    assert {"no peeking", "peek 1", "peek 2", "mean-field", "exact posterior", "peek 1, τ = 0.5"} <= set(
        props
    )
    exact = SR.repeated(model, em, props["exact posterior"], 3, 4, seed=0, groups=[0, 0, 1, 1])
    assert np.allclose(exact[["instance", "corpus", "article"]], 0, atol=1e-9)
    prior = SR.repeated(model, em, props["no peeking"], 200, 10, seed=1, groups=[0, 0, 1, 1])
    # Jensen and Rao-Blackwell: corpus <= article <= instance <= 0 on average
    assert prior["corpus"].mean() < prior["article"].mean() < prior["instance"].mean() < 0
    assert (prior["corpus ESS"] <= 10 + 1e-9).all()
    err, logw = SR.curve(model, em, props["peek 1"], [1, 10, 100], seed=2)
    assert err.shape == (3, 4) and logw.shape == (4, 100)
    table = SR.expected(logw, model.logprob(em), [1, 10, 100])
    assert list(table.index) == [1, 10]  # K = 100 has a single run: left out
    with pytest.raises(ValueError, match="K >= 2"):
        SR.repeated(model, em, props["peek 1"], 2, 1, seed=0, groups=[0, 0, 1, 1])
