"""Scores and samples kept in the shared cache (lmnotes.models.memo)."""

import numpy as np
import pytest

from lmnotes.core import cache
from lmnotes.models import memo
from lmnotes.studies.segmentation import cached
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


def test_importance_samples_are_cached_with_the_marginal_code(tmp_cache, monkeypatch):
    from lmnotes.studies.segmentation import marginal
    from test_marginal import SubwordBigram

    calls = []
    real = marginal.importance_sample
    monkeypatch.setattr(marginal, "importance_sample", lambda *a, **k: calls.append(1) or real(*a, **k))
    lm = SubwordBigram(seed=2)
    lm.cache_key = "toy-subword-bigram"
    a = cached.importance_sample(lm, ["ab ba b", "aba"], 50, seed=1)
    b = cached.importance_sample(lm, ["ab ba b", "aba"], 50, seed=1)
    assert len(calls) == 1 and np.array_equal(a.logw, b.logw) and np.array_equal(a.canonical, b.canonical)
    assert np.array_equal(a.logw, real(lm, ["ab ba b", "aba"], 50, seed=1).logw)
    cached.importance_sample(lm, ["ab ba b", "aba"], 50, seed=1, stay=0.0, explore=0.0)  # another proposal
    assert len(calls) == 2 and len([p for p in (tmp_cache / "draws").glob("*--*") if p.is_dir()]) == 2
    # the entries' version covers the marginal's module, which scores and samples do not depend on
    assert cache.KINDS["draws"]() != cache.KINDS["scores"]()


def test_the_cuda_sampler_keys_only_what_is_sampled_on_cuda(monkeypatch):
    """An edit to the sampler that runs on CUDA alone (graphsample, static) leaves the CPU's
    samples where they are and gives new keys to those made on CUDA."""
    import torch

    from lmnotes.core import codeversion

    seen = []
    monkeypatch.setattr(cache, "fetch", lambda kind, name, key, build, read: seen.append(key))
    lm, real = Counting(), codeversion.source_digest

    def keys(edited: bool) -> dict:
        monkeypatch.setattr(
            codeversion,
            "source_digest",
            lambda m: real(m) + ("x" if edited and m in memo.CUDA_SAMPLING else ""),
        )
        out = {}
        for device in ("cpu", "cuda"):
            lm.device = torch.device(device)
            memo.sample(lm, 2, max_tokens=3)
            out[device] = seen[-1]
        return out

    before, after = keys(False), keys(True)
    assert before["cpu"] == after["cpu"] and before["cuda"] != after["cuda"]
    assert memo._ON_CUDA["samples"] == memo._ON_CUDA["draws"] == memo.CUDA_SAMPLING
