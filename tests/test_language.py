"""Artificial languages and their learners (lmnotes.studies.distortion.language), on toys with exact answers."""

import numpy as np
import pytest
import torch

from lmnotes.studies.distortion import distortion as D
from lmnotes.stats import inference as stats
from lmnotes.studies.distortion import language as LG
from lmnotes.text import segment as seglib
from lmnotes.models.base import ModelError
from lmnotes.models.neural import NeuralLM
from lmnotes.models.train import TrainConfig, _stream

from toy import Bigram, SubwordBigram


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))


def test_tempered_sampling_logprobs_equal_tempered_scores():
    lm = Bigram(seed=0)
    lang = LG.Language(lm, 0.7)
    s = lang.sample(300, seed=1)
    assert s.unfinished == 0 and lang.log_finished == 0.0
    direct = np.array([lm.logprob(lm.decode(x), temperature=0.7) for x in s.ids])
    np.testing.assert_allclose(s.logp, direct, atol=1e-6)
    np.testing.assert_allclose(lang.logprob(s.ids), direct, atol=1e-6)
    # and a neural L at random initialisation (float32 tolerance)
    seg = seglib.train("byte", ["abc def", "ghi"])
    torch.manual_seed(0)
    net = NeuralLM(seg, "transformer", "rand", d_model=16, n_layers=1, n_heads=2, context=64, dropout=0.0)
    nl = LG.Language(net, 1.3, max_tokens=20)
    t = nl.sample(40, seed=0)
    np.testing.assert_allclose(nl.logprob(t.ids), t.logp, atol=1e-4)


def test_truncation_is_a_constant_shift_and_long_sequences_lie_outside():
    lm = Bigram(seed=0, sharpness=0.5)  # flat: many samples outlast a short cap
    lang = LG.Language(lm, 1.0, max_tokens=6)
    s = lang.sample(400, seed=0)
    assert 0 < s.unfinished < 400 and all(len(x) <= 5 for x in s.ids)
    shift = np.log(1 - s.unfinished / s.n_drawn)
    assert lang.log_finished == pytest.approx(shift)
    raw = np.array([lm.logprob(lm.decode(x)) for x in s.ids])
    np.testing.assert_allclose(s.logp, raw - shift, atol=1e-6)
    assert np.isneginf(lang.logprob([[0] * 6])[0]) and np.isfinite(lang.logprob([[0] * 5])[0])


def test_mean_error_is_minus_the_exact_kl_of_two_markov_chains():
    """KL(p_L ‖ p_M) of two absorbing Markov chains over sequences: the expected visits
    v = e_BOS (I − Q)⁻¹ of the transient states weight the per-state KL of the next token."""
    T = 0.8
    lang, model = LG.Language(Bigram(seed=0), T), Bigram(seed=1)
    pl = torch.softmax(lang.lm.table.double() / T, -1).numpy()
    pm = torch.softmax(model.table.double(), -1).numpy()
    transient = list(range(len(pl) - 1))  # the letters and BOS; EOS (last id) absorbs
    Q = pl[np.ix_(transient, transient)]
    v = np.linalg.solve((np.eye(len(Q)) - Q).T, np.eye(len(Q))[lang.lm.bos_id])
    per_state = (pl * (np.log(pl + 1e-300) - np.log(pm + 1e-300))).sum(1)
    kl = float(v @ per_state[transient])
    s = lang.sample(20_000, seed=3, batch_size=1000)
    err = D.estimation_error(LG.model_logprob(model, s.ids), s.logp)
    assert abs(err.mean() + kl) < 4 * err.std() / np.sqrt(len(err))
    assert kl > 0.5  # the test has power: the chains differ


def test_roundtrip_counts_noncanonical_samples():
    assert LG.Language(Bigram(seed=0), 1.0).sample(200).roundtrip_changed == 0
    sub = LG.Language(SubwordBigram(seed=0), 1.0).sample(200)
    assert sub.roundtrip_changed > 0  # "a" + "b" decodes to "ab", which encodes as one token


def test_bad_inputs_get_clear_errors():
    with pytest.raises(ValueError, match="temperature must be > 0"):
        LG.Language(Bigram(), 0.0)
    with pytest.raises(ValueError, match="at least one sample"):
        LG.Language(Bigram(), 1.0).sample(0)
    with pytest.raises(ValueError, match="max_tokens"):
        LG.Language(Bigram(max_length=10), 1.0, max_tokens=50)
    with pytest.raises(ModelError, match="different vocabularies"):
        LG.Language(Bigram(), 1.0).check_learner(SubwordBigram())
    seg = seglib.train("byte", ["abc"])
    lang = LG.Language(NeuralLM(seg, "lstm", "L", d_model=8, n_layers=1), 1.0, max_tokens=10)
    empty = LG.SampleSet([], np.zeros(0), 1, 0, 0)
    with pytest.raises(ValueError, match="N = 0"):
        LG.learn(lang, "lstm", empty, empty, 1, LG.TRAINING["cpu"])
    with pytest.raises(ValueError, match="unknown learner"):
        LG.learn(lang, "gpt-9", empty, empty, 1, LG.TRAINING["cpu"])


def test_learners_train_on_ids_with_a_per_epoch_monitor():
    seg = seglib.train("byte", ["some text to learn", "and more text"])
    lm = NeuralLM(seg, "transformer", "L", d_model=16, n_layers=1, n_heads=2, context=64, dropout=0.0)
    lm.cache_key = "toy-L"
    assert _stream(lm, [[5, 6], [7]]).tolist() == [lm.bos_id, 5, 6, lm.eos_id, 7, lm.eos_id]
    lang = LG.Language(lm, 1.0, max_tokens=30)
    ids = D.random_sequences(120, lang.vocabulary, seed=0)  # a random L rarely ends early
    s = LG.SampleSet(ids, lang.logprob(ids), len(ids), 0, 0)
    train, valid, test = s.take(0, 80), s.take(80, 100), s.take(100, len(s))
    config = TrainConfig(block=32, batch_size=4, lr=3e-3, warmup=5)
    m = LG.learn(lang, "tf-tiny", train, valid, 3, config, watch=(train.take(0, 10), test))
    assert list(m.history["epoch"]) == [1, 2, 3]
    assert all(len(e) == 10 for e in m.history["train_error"])
    # the last epoch's monitor saw the last epoch's weights, not the restored best ones
    again = LG.learn(lang, "tf-tiny", train, valid, 3, config, watch=(train.take(0, 10), test))
    assert again.cache_key == m.cache_key  # loaded from the cache, keyed on the ids
    other = LG.learn(lang, "tf-tiny", train.take(1, 80), valid, 3, config)
    assert other.cache_key != m.cache_key


def test_entropies_match_the_next_token_distributions():
    lm = Bigram(seed=2)
    seqs = [[0, 1, 2], [3]]
    h = LG.entropies(lm, seqs, temperature=0.9)
    p = torch.softmax(lm.table.double() / 0.9, -1)
    expect = (-(p * torch.log(p.clamp_min(1e-300))).sum(-1)).numpy()
    for s, hs in zip(seqs, h):
        np.testing.assert_allclose(hs, expect[[lm.bos_id] + s], atol=1e-6)


def test_good_turing_and_missing_mass_curves_match_brute_force():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(50) * 0.3)
    items = rng.choice(50, size=500, p=p)
    sizes = [1, 10, 100, 500]
    gt = D.good_turing_curve(items, sizes)
    m0 = D.missing_mass_curve(items, p[items], sizes)
    for n, g, m in zip(sizes, gt, m0):
        assert g == pytest.approx(D.good_turing(items[:n]))
        assert m == pytest.approx(D.missing_mass(items[:n], dict(enumerate(p))))


def test_the_expected_good_turing_curve_is_the_mean_over_orders():
    """Over the orders of a sample, the mean of P̂_N is the rarefied expectation; at N = 1 a
    lone item is a singleton, at the whole sample it is N₁/T, whatever the order."""
    rng = np.random.default_rng(0)
    items = rng.choice(40, size=120, p=rng.dirichlet(np.ones(40) * 0.3))
    sizes = [1, 5, 30, 60, 120]
    expected = D.expected_good_turing_curve(items, sizes)
    mean = np.mean([D.good_turing_curve(rng.permutation(items), sizes) for _ in range(4000)], axis=0)
    np.testing.assert_allclose(expected, mean, atol=0.01)
    assert expected[0] == pytest.approx(1.0)
    assert expected[-1] == pytest.approx(D.good_turing(items))
    with pytest.raises(ValueError, match="sizes"):
        D.expected_good_turing_curve(items, [121])


def test_ols_recovers_known_coefficients():
    rng = np.random.default_rng(0)
    n_, s_ = rng.integers(5, 60, 2000), rng.gamma(4, 1, 2000)
    y = 1.0 - 0.3 * n_ + 0.0 * s_ + rng.normal(0, 1, 2000)
    fit = stats.bootstrap_ols(y, {"n": n_, "s": s_}, n_boot=200).set_index("term")
    assert fit.loc["n", "low"] < -0.3 < fit.loc["n", "high"]
    assert fit.loc["s", "low"] < 0 < fit.loc["s", "high"]
    assert fit.loc["n", "partial R²"] > 0.9 and fit.loc["s", "partial R²"] < 0.01


def test_distillation_targets_and_loss():
    from lmnotes.models.train import cross_entropy

    logits = torch.randn(6, 9, dtype=torch.float32, requires_grad=True)
    q = torch.softmax(logits.detach(), -1)
    loss = cross_entropy(logits, q)
    loss.backward()
    entropy = float(-(q * torch.log(q)).sum(-1).mean())
    assert float(loss.detach()) == pytest.approx(entropy, abs=1e-5)  # KL = 0 when M = L
    assert float(logits.grad.abs().max()) < 1e-6
    lm = Bigram(seed=0)
    lang = LG.Language(lm, 0.8)
    seqs = [[0, 1], [2]]
    q = LG.teacher_targets(lang, seqs).float()
    table = torch.softmax(lm.table / 0.8, -1)
    prev = [lm.bos_id, 0, 1, lm.bos_id, 2]  # the stream's targets 0, 1, EOS, 2, EOS follow these
    torch.testing.assert_close(q, table[prev], atol=1e-3, rtol=0)
    # k draws per context: empirical distributions of k tokens, unbiased for L's
    few = LG.teacher_targets(lang, seqs, draws=4, seed=1).float()
    assert torch.allclose(few.sum(1), torch.ones(5)) and torch.equal(few * 4, (few * 4).round())
    assert torch.equal(few, LG.teacher_targets(lang, seqs, draws=4, seed=1).float())
    many = LG.teacher_targets(lang, seqs, draws=20000, seed=2).float()
    torch.testing.assert_close(many, table[prev], atol=0.02, rtol=0)
    with pytest.raises(ValueError, match="needs distill"):
        LG.learn(lang, "tf-tiny", lang.sample(20), lang.sample(5, seed=1), 1, TrainConfig(), teacher_draws=3)


def test_learners_of_a_borrowed_tokenizer_share_its_ids():
    L = SubwordBigram(seed=0)
    L.cache_key = "toy-subword"
    lang = LG.Language(L, 1.0, max_tokens=40)
    s = lang.sample(60, seed=0)
    config = TrainConfig(block=16, batch_size=4, lr=3e-3, warmup=2)
    m = LG.learn(lang, "tf-tiny", s.take(0, 40), s.take(40, 50), 1, config)
    assert (m.bos_id, m.eos_id, m.vocab_size) == (L.bos_id, L.eos_id, L.vocab_size)
    assert np.isfinite(LG.model_logprob(m, s.ids)).all()
    d = LG.learn(lang, "tf-tiny", s.take(0, 40), s.take(40, 50), 1, config, distill=True)
    assert d.cache_key != m.cache_key and d.name.endswith("distilled")


def test_roundtrip_splits_other_segmentations_from_lossy_decoding():
    sub = SubwordBigram(seed=0)
    counts = LG.roundtrip(sub, [[0], [0, 1], [1]])
    assert counts["kept"] + counts["same text"] + counts["text changed"] == 3
    a, b = sub.encode("a"), sub.encode("b")
    assert LG.roundtrip(sub, [a + b])["same text"] == 1  # "a" + "b" re-encodes as "ab"

    class Lossy(Bigram):  # token 0 is half of a two-byte UTF-8 character
        def token_bytes(self):
            return [b"\xc3"] + [c.encode() for c in "bcdefg "] + [None, None]

        def decode(self, ids):
            return b"".join(self.token_bytes()[i] for i in ids).decode("utf-8", errors="replace")

        def encode(self, text):
            return [1 + "bcdefg ".index(c) if c in "bcdefg " else 1 for c in text]  # U+FFFD → "b"

    assert LG.roundtrip(Lossy(), [[0, 1], [1, 2]]) == {"kept": 1, "same text": 0, "text changed": 1}
