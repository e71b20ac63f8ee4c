"""Scores and samples kept in the shared cache (lmnotes.memo)."""

import numpy as np
import pytest

from lmnotes import memo
from toy import Bigram


@pytest.fixture(autouse=True)
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))
    return tmp_path


class Counting(Bigram):
    cache_key = "toy-bigram-seed-0"
    calls = 0

    def score(self, *a, **k):
        Counting.calls += 1
        return super().score(*a, **k)

    def sample(self, *a, **k):
        Counting.calls += 1
        return super().sample(*a, **k)


def test_the_same_call_is_computed_once(tmp_cache):
    lm, Counting.calls = Counting(), 0
    a = memo.score(lm, ["abc", "gf e"])
    b = memo.score(lm, ["abc", "gf e"])
    assert Counting.calls == 1 and np.array_equal(a.logprob, b.logprob)
    memo.score(lm, ["abc", "gf e"], temperature=2.0)  # another setting: another entry
    memo.score(lm, ["abc"])  # other strings: another entry
    assert Counting.calls == 3 and len([p for p in (tmp_cache / "scores").glob("*--*") if p.is_dir()]) == 3
    s = memo.sample(lm, 20, "nucleus", top_p=0.8, max_tokens=10, seed=3)
    t = memo.sample(lm, 20, "nucleus", top_p=0.8, max_tokens=10, seed=3)
    assert Counting.calls == 4 and s.token_ids == t.token_ids
    assert s.token_ids == Bigram().sample(20, "nucleus", top_p=0.8, max_tokens=10, seed=3).token_ids
    memo.sample(lm, 20, "nucleus", top_p=0.8, max_tokens=10, seed=4)
    assert Counting.calls == 5


def test_a_model_without_a_key_is_not_cached(tmp_cache):
    lm = Bigram()
    assert lm.cache_key is None
    memo.score(lm, ["abc"])
    memo.sample(lm, 3, max_tokens=5)
    assert not list(tmp_cache.glob("*/*--*"))
