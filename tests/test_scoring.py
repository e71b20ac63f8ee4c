"""Scoring and next-token distributions of the LanguageModel interface, on the exact toy."""

import numpy as np
import pytest
import torch

from toy import Bigram

TEXTS = ["abc", "", "a bad cafe", "gg" * 40, "fed cab " * 30]


def test_scores_match_closed_form_and_sum():
    lm = Bigram()
    s = lm.score(TEXTS)
    for text, total, per_token, n in zip(TEXTS, s.logprob, s.token_logprobs, s.n_tokens):
        assert total == pytest.approx(lm.logprob(text), rel=1e-6)  # float32 log-softmax
        assert per_token.sum() == pytest.approx(total, abs=1e-12)
        assert n == len(text) + 1  # characters + EOS
    assert s.n_tokens[1] == 1  # the empty string is EOS alone
    assert s.n_words.tolist() == [len(t.split()) for t in TEXTS]
    assert s.n_bytes.tolist() == [len(t.encode()) for t in TEXTS]


def test_temperature_scores_the_tempered_distribution():
    lm = Bigram()
    s = lm.score(TEXTS, temperature=0.6)
    assert np.allclose(s.logprob, [lm.logprob(t, 0.6) for t in TEXTS], rtol=1e-6)


@pytest.mark.parametrize("window, stride", [(8, 1), (8, 7), (16, 5), (64, None)])
def test_sliding_window_equals_full_context_for_a_markov_model(window, stride):
    full = Bigram().score(TEXTS)
    lm = Bigram(max_length=window)
    s = lm.score(TEXTS, stride=stride)
    for a, b in zip(full.token_logprobs, s.token_logprobs):
        assert len(a) == len(b) and np.allclose(a, b, atol=1e-6)
    with pytest.raises(ValueError, match="stride"):
        lm.score(["abcdefg" * 10], stride=window)


def test_batched_equals_one_by_one():
    lm = Bigram()
    batched = lm.score(TEXTS, batch_tokens=64)
    for text, total in zip(TEXTS, batched.logprob):
        assert lm.score([text]).logprob[0] == pytest.approx(total, abs=1e-4)


def test_next_token_logprobs():
    lm = Bigram()
    prefixes = ["", "ab", "fed cab"]
    lp = lm.next_token_logprobs(prefixes)
    assert lp.shape == (3, lm.vocab_size)
    assert torch.allclose(torch.logsumexp(lp, -1), torch.zeros(3), atol=1e-5)
    for prefix, row in zip(prefixes, lp):
        last = lm.encode(prefix)[-1] if prefix else lm.bos_id
        assert torch.allclose(row, torch.log_softmax(lm.table[last].float(), -1), atol=1e-5)


@pytest.mark.parametrize("bad", [[1, "a"], "a string", [None]])
def test_non_strings_are_rejected(bad):
    with pytest.raises(TypeError):
        Bigram().score(bad)
