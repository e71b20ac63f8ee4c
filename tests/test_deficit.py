"""The per-token deficit law, calibration and mass statistics of the distortion chapter
(lmnotes.studies.distortion.deficit), on synthetic data with known answers."""

import numpy as np
import pytest
import torch

from lmnotes.studies.distortion import deficit as F
from lmnotes.studies.distortion import language as LG
from toy import Bigram


def _lengths(n=3000, seed=0):
    return np.random.default_rng(seed).integers(5, 80, size=n).astype(float)


def test_length_law_recovers_k_and_h():
    n = _lengths()
    rng = np.random.default_rng(1)
    logp = -2.5 * n + rng.normal(0, 3, len(n))
    law = F.length_law(-0.1 * n, logp, n)
    assert law.k == pytest.approx(0.1) and law.h == pytest.approx(2.5, abs=0.01)
    assert law.slope == pytest.approx(0.04, abs=1e-3)
    np.testing.assert_allclose(law.predict([10, 20]), [-1.0, -2.0])
    with pytest.raises(ValueError):
        F.length_law([-np.inf, 1.0], [-1.0, -2.0], [2, 3])


def test_residual_contrast_finds_a_tail_beyond_length_and_nothing_without_one():
    n = _lengths()
    rng = np.random.default_rng(2)
    surprisal = rng.uniform(1, 4, len(n))
    logp = -surprisal * n
    bins = np.digitize(logp, np.quantile(logp, np.linspace(0, 1, 11)[1:-1]))
    noise = rng.normal(0, 1, len(n))
    flat = F.residual_contrast(-0.1 * n + noise, n, bins, n_boot=500)
    assert flat.low < 0 < flat.high
    tail = -0.1 * n + noise - 3.0 * (bins == 0)  # the rarest tenth loses 3 nats beyond its length
    est = F.residual_contrast(tail, n, bins, n_boot=500)
    assert est.high < 0 and est.value == pytest.approx(-3.0, abs=0.6)
    # the other sign is reachable too
    assert F.residual_contrast(-0.1 * n + noise + 3.0 * (bins == 0), n, bins, n_boot=500).low > 0


def test_curvature_is_zero_for_a_line_and_exact_for_a_parabola():
    rng = np.random.default_rng(3)
    x = rng.uniform(-200, -5, 4000)
    line = F.curvature(0.05 * x + rng.normal(0, 0.5, len(x)), x, n_boot=400)
    assert line.low < 0 < line.high and abs(line.value) < 0.05
    b, c = 0.05, 2e-4
    lo, hi = np.quantile(x, [0.025, 0.975])
    exact = 2 * c * (hi - lo) / (b + 2 * c * (lo + hi) / 2)
    bent = F.curvature(b * x + c * x * x, x, n_boot=100)
    assert bent.value == pytest.approx(exact, rel=1e-6)


def test_ratio_is_the_token_weighted_mean():
    rng = np.random.default_rng(4)
    n = _lengths(500)
    a = rng.normal(0.2, 1, len(n)) * n
    r = F.ratio(a, n, n_boot=500)
    assert r.value == pytest.approx(a.sum() / n.sum()) and r.low < r.value < r.high
    other = F.ratio(a + 0.5 * n, n, n_boot=500, seed=1)  # 0.5 more per token
    d = F.independent_difference(other, r)
    assert d.value == pytest.approx(0.5) and d.low < 0.5 < d.high
    assert d.high - d.low > r.high - r.low  # two independent samples' noise


def test_best_temperature_undoes_a_known_sharpening():
    rng = np.random.default_rng(5)
    z = rng.normal(0, 2, 50)
    p = np.exp(z - z.max())
    p /= p.sum()
    x = rng.choice(50, size=20000, p=p)
    taus = np.geomspace(0.5, 3, 25)
    for s in (0.7, 1.6):  # M's logits are z·s: dividing them by τ = s gives back L
        logits = z[None, :] * s / taus[:, None]
        logq = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        nll = -logq[:, x].T  # [samples, τ]
        est = F.best_temperature(nll, taus, n_boot=200)
        assert est.value == pytest.approx(s, rel=0.05) and est.low < s < est.high * 1.02
    with pytest.raises(ValueError):
        F.best_temperature(nll, [0.5, 1.0, 3.0], n_boot=10)


def test_mass_by_bin_compares_two_samples():
    rng = np.random.default_rng(6)
    bl = rng.choice(3, size=4000, p=[0.2, 0.5, 0.3])
    bm = rng.choice(3, size=4000, p=[0.4, 0.5, 0.1])
    t = F.mass_by_bin(bm, bl, ["a", "b", "c"], n_boot=300)
    d = t["P_M(B) − P_L(B)"]
    assert d[0].low > 0.15 and d[1].low < 0 < d[1].high and d[2].high < -0.15
    assert t["P_M(B)"].sum() == pytest.approx(1) and t["P_L(B)"].sum() == pytest.approx(1)


def test_decay_exponent_tells_a_power_law_from_a_die():
    N = np.geomspace(10, 1e6, 41)
    assert F.decay_exponent(N, N**-0.3, 1e6) == pytest.approx(0.3)
    K, span = 1e5, 10**0.5
    die = np.exp(-N / K)
    assert F.decay_exponent(N, die, K, span) == pytest.approx((1 - 1 / span) / np.log(span), rel=0.02)
    assert F.decay_exponent(N, np.where(N > 5e5, 0.0, die), 1e6) == np.inf
    with pytest.raises(ValueError):
        F.decay_exponent(N, die, 1e7)


def test_temperature_scan_matches_scores_and_entropies():
    lm = Bigram(seed=3)
    seqs = [[0, 1, 2, 5], [3], [6, 6]]
    out = LG.temperature_scan(lm, seqs, [0.5, 1.0, 2.0])
    scores = [float(s.sum()) for s in lm.score_ids(seqs)]
    np.testing.assert_allclose(out["nll"][:, 1], -np.array(scores), atol=1e-5)
    h = [float(x.sum()) for x in LG.entropies(lm, seqs)]
    np.testing.assert_allclose(out["entropy"], h, atol=1e-5)
    p = torch.log_softmax(lm.table.double() / 2.0, -1)
    expect = -sum(float(p[a, b]) for a, b in zip([lm.bos_id, 3], [3, lm.eos_id]))
    assert out["nll"][1, 2] == pytest.approx(expect, abs=1e-5)


def test_up_to_tokens_keeps_the_budget():
    s = LG.SampleSet([[1, 2], [3], [4, 5, 6]], np.zeros(3), 3, 0, 0)
    assert len(s.up_to_tokens(5)) == 2 and len(s.up_to_tokens(4)) == 1
    with pytest.raises(ValueError):
        s.up_to_tokens(2)
