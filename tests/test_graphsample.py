"""The accelerator's sampler (lmnotes.models.static, lmnotes.models.graphsample), checked on
the CPU: its forward pass against transformers', its tokens against the step-by-step sampler
for the same seed, its log-probabilities against the model's scores, and that a step never
waits for the host (what lets CUDA capture it as a graph)."""

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from lmnotes.models import graphsample
from lmnotes.models.graphsample import GraphSampler
from lmnotes.models.neural import NeuralLM
from lmnotes.models.sampling import Strategy, draw
from lmnotes.models.static import Decoder, unsupported

STRATEGIES = [
    Strategy("ancestral"),
    Strategy("ancestral", temperature=0.8),
    Strategy("top-k", top_k=20),
    Strategy("nucleus", top_p=0.9, temperature=1.2),
]


class _Types:
    """A stand-in segmentation (and tokenizer) of ``vocab_size`` types."""

    kind = "bpe"
    eos_token_id, bos_token_id, pad_token_id = 1, 1, 0

    def __init__(self, vocab_size):
        self.vocab_size = vocab_size

    def encode(self, text, add_special_tokens=False):
        return [5, 6, 7][: len(text)]

    def decode(self, ids, **kwargs):
        return " ".join(map(str, ids))


def gpt2(vocab_size=300):
    torch.manual_seed(0)
    return NeuralLM(
        _Types(vocab_size),
        "transformer",
        name="tiny-gpt2",
        d_model=32,
        n_layers=2,
        n_heads=4,
        context=96,
        dropout=0.0,
    )


def llama(vocab_size=300):
    from transformers import LlamaConfig, LlamaForCausalLM
    from lmnotes.models.hf import HFModel

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=48,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=6,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=False,
    )
    return HFModel(LlamaForCausalLM(cfg), _Types(vocab_size), "tiny-llama")


MODELS = {"gpt2": gpt2, "llama": llama}


def _causal(lm):
    return lm.hf if hasattr(lm, "hf") else lm.net.lm


@pytest.mark.parametrize("arch", MODELS)
@torch.inference_mode()
def test_the_static_step_gives_transformers_logits(arch):
    """A prefill, then one token at a time at a position held in a tensor: the logits of
    transformers' own forward over the whole sequence (grouped-query attention for Llama)."""
    lm = MODELS[arch]()
    ids = torch.randint(2, lm.vocab_size, (3, 12), generator=torch.Generator().manual_seed(1))
    full = _causal(lm)(ids).logits  # [3, 12, V]
    dec = Decoder(lm, torch.float32, capacity=16)
    kv = dec.new_kv(3)
    got = [dec.logits(ids[:, :5], 0, kv)]
    for t in range(5, 12):
        got.append(dec.logits(ids[:, t : t + 1], torch.tensor([t]), kv))
    want = full[:, 4:]
    assert torch.allclose(torch.stack(got, 1), want, atol=2e-5)


def test_only_gpt2_and_llama_have_a_static_step():
    assert unsupported(gpt2()) is None and unsupported(llama()) is None
    torch.manual_seed(0)
    lstm = NeuralLM(_Types(50), "lstm", name="tiny-lstm", d_model=16, n_layers=1, dropout=0.0)
    assert "not a transformers" in unsupported(lstm)
    assert not graphsample.available(lstm, Strategy("ancestral"))
    assert not graphsample.available(gpt2(), Strategy("beam", beam=2))
    with pytest.raises(ValueError, match="no graph path"):
        GraphSampler(gpt2(), Strategy("beam", beam=2), [1], 8)
    with pytest.raises(ValueError, match="CUDA"):
        GraphSampler(gpt2(), Strategy("ancestral"), [1], 8, graphs=True)


@pytest.mark.parametrize("arch", MODELS)
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: f"{s.kind}-T{s.temperature}")
@torch.inference_mode()
def test_same_tokens_as_the_step_by_step_sampler_for_the_same_seed(arch, strategy):
    """In float32 on the CPU, while no row has ended, both draw the same uniforms in the same
    order (a [steps, B] block is the stream of B-row draws), so they give the same tokens."""
    lm = MODELS[arch](vocab_size=3000)  # EOS is one type of 3,000: rows rarely end
    context = [lm.bos_id, 5, 6]
    old = lm._sample_batch(8, strategy, context, 24, torch.Generator().manual_seed(3))
    new = GraphSampler(lm, strategy, context, 24).batch(8, torch.Generator().manual_seed(3))
    assert not old[3].any() and not new[3].any(), "a row ended: pick another seed"
    same = (old[0] == new[0]).all(1)
    if strategy.kind == "nucleus":
        # its candidates come sorted in full, not from a growing top-k, so a uniform within
        # float64 rounding of a boundary can pick the neighbouring token, and the row goes its
        # own way from there: rare, not never
        assert same.sum() >= 7
    else:
        assert same.all()
    for a, b in zip(old[1:3], new[1:3]):
        assert torch.allclose(a[same], b[same], atol=1e-4)


@pytest.mark.parametrize("arch", MODELS)
@torch.inference_mode()
def test_rows_that_end_leave_the_batch_and_their_log_probabilities_are_the_scores(arch):
    """With 12 types EOS is frequent: rows end at different steps, the live ones move to
    smaller batches (the sizes run), and every finished sample's log-probability under the
    model is what scoring it gives."""
    lm = MODELS[arch](vocab_size=12)
    fast = GraphSampler(lm, Strategy("ancestral", temperature=0.9), [lm.bos_id], 60)
    tokens, lp_model, lp_samp, finished = fast.batch(64, torch.Generator().manual_seed(0))
    assert len(fast.sizes) > 1 and fast.sizes[0] == 64 and fast.sizes[1] < 16
    assert finished.float().mean() > 0.9
    rows = [r[: r.index(lm.eos_id)] for r, f in zip(tokens.tolist(), finished.tolist()) if f]
    done = finished.numpy()
    for lp, T in ((lp_model, 1.0), (lp_samp, 0.9)):  # under the model, and under what was sampled
        scores = np.array([x.sum() for x in lm.score_ids(rows, temperature=T)])
        assert np.allclose(scores, lp.numpy()[done], atol=1e-4)
    # the buffers serve the next batch: another seed gives another batch, the same seed this one
    other = fast.batch(64, torch.Generator().manual_seed(1))
    assert not torch.equal(other[0][:, :5], tokens[:, :5])
    again = fast.batch(64, torch.Generator().manual_seed(0))
    assert all(torch.equal(a, b) for a, b in zip(again, (tokens, lp_model, lp_samp, finished)))


class _NoHostSync(TorchDispatchMode):
    """Fails on an operation that makes the host wait for the device (a tensor's value read
    into Python, or a result whose size depends on values)."""

    SYNC = {"_local_scalar_dense", "nonzero", "masked_select", "_unique2", "unique_dim", "item"}
    MASKED = {"index", "index_put", "index_put_"}  # with a boolean index they call nonzero inside

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.__name__.split(".")[0]
        masked = name in self.MASKED and any(
            isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in args[1] if i is not None
        )
        if name in self.SYNC or masked:
            raise AssertionError(f"host synchronisation: {func}")
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("arch", MODELS)
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.kind)
@torch.inference_mode()
def test_a_step_never_waits_for_the_host(arch, strategy):
    lm = MODELS[arch]()
    fast = GraphSampler(lm, strategy, [lm.bos_id], 10)
    step = fast._step

    def checked(*args):
        with _NoHostSync():
            return step(*args)

    fast._step = checked
    fast.batch(4, torch.Generator().manual_seed(0))


def test_the_host_sync_check_would_catch_the_step_by_step_nucleus():
    """The check is not vacuous: the CPU path's nucleus grows its top-k on the host."""
    logits = torch.randn(4, 500, generator=torch.Generator().manual_seed(0))
    with pytest.raises(AssertionError, match="host synchronisation"), _NoHostSync():
        draw(logits, Strategy("nucleus", top_p=0.9), generator=torch.Generator().manual_seed(0))
    with _NoHostSync():
        draw(logits, Strategy("nucleus", top_p=0.9), u=torch.rand(4, 1, dtype=torch.float64), sync_free=True)


def test_the_sort_nucleus_keeps_the_same_tokens():
    from lmnotes.models.sampling import _nucleus, _nucleus_sorted

    probs = torch.softmax(torch.randn(6, 400, generator=torch.Generator().manual_seed(2)) * 3, -1)
    for p in (0.5, 0.9, 0.999):
        ids, kept = _nucleus(probs, p)
        ids2, kept2 = _nucleus_sorted(probs, p)
        for r in range(6):
            a = dict(zip(ids[r].tolist(), kept[r].tolist()))
            b = dict(zip(ids2[r].tolist(), kept2[r].tolist()))
            assert {k for k, v in a.items() if v > 0} == {k for k, v in b.items() if v > 0}


def test_the_sampler_is_kept_on_the_model_until_its_weights_change():
    lm = gpt2()
    s = Strategy("ancestral")
    first = graphsample.sampler(lm, s, [1], 8, torch.float32)
    assert graphsample.sampler(lm, s, [1], 8, torch.float32) is first
    assert graphsample.sampler(lm, s, [1], 9, torch.float32) is not first  # other settings
    kept = graphsample.sampler(lm, s, [1], 9, torch.float32)
    with torch.no_grad():
        next(lm.net.parameters()).add_(1.0)  # an optimiser step
    assert graphsample.sampler(lm, s, [1], 9, torch.float32) is not kept


def test_sampling_on_the_cpu_keeps_the_step_by_step_path(monkeypatch):
    """The CPU edition's samples come from the path they always came from."""
    monkeypatch.setattr(graphsample.GraphSampler, "batch", lambda *a: pytest.fail("graph path on the CPU"))
    gpt2().sample(4, "ancestral", max_tokens=6)


def test_a_model_with_a_sampler_still_copies_and_pickles():
    """The distortion chapter deep-copies a model it has sampled from; a captured graph cannot
    be copied, so the sampler is kept beside the model, not on it."""
    import copy
    import pickle

    lm = gpt2()
    graphsample.sampler(lm, Strategy("ancestral"), [1], 8, torch.float32).batch(2, torch.Generator())
    assert "_graph_sampler" not in vars(lm) and lm in graphsample._KEPT
    copy.deepcopy(lm)
    pickle.dumps(lm)


def test_no_tokens_asked_for():
    lm = gpt2()
    with pytest.raises(ValueError, match="at least 1"):
        GraphSampler(lm, Strategy("ancestral"), [1], 0)
    assert lm.sample(3, max_tokens=0).token_ids == [[], [], []]


@pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a CUDA device (run on the accelerator machine)"
)
@pytest.mark.parametrize("arch", MODELS)
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: f"{s.kind}-T{s.temperature}")
def test_on_cuda_the_graphs_give_what_the_same_steps_give_launched_one_by_one(arch, strategy):
    """Replayed graphs (with the captures after each compaction) against the same steps run
    kernel by kernel: the same tokens and log-probabilities, batch after batch."""
    lm = MODELS[arch](vocab_size=12).to("cuda") if arch == "gpt2" else _on_cuda(MODELS[arch](vocab_size=12))
    with torch.inference_mode():
        graphs = GraphSampler(lm, strategy, [lm.bos_id], 40, graphs=True)
        steps = GraphSampler(lm, strategy, [lm.bos_id], 40, graphs=False)
        for seed in (0, 1, 0):
            a = graphs.batch(64, torch.Generator("cuda").manual_seed(seed))
            b = steps.batch(64, torch.Generator("cuda").manual_seed(seed))
            assert torch.equal(a[0], b[0]) and torch.equal(a[3], b[3])
            assert torch.allclose(a[1], b[1]) and torch.allclose(a[2], b[2])
        assert len(graphs.sizes) > 1  # a compaction, and its capture, took place


def _on_cuda(lm):
    lm.hf.to("cuda")
    lm.device = torch.device("cuda")
    return lm


def test_a_step_attends_over_a_bucket_that_covers_its_position():
    """Buckets of 16 positions up to 256, then of an eighth of the power of two below: never
    short of the positions a step needs, never past the cache, at most an eighth (or 15) more."""
    assert [graphsample.bucket(n, 1000) for n in (1, 16, 17, 129, 256, 257, 300, 513)] == [
        16,
        16,
        32,
        144,
        256,
        288,
        320,
        576,
    ]
    for n in range(1, 2000):
        b = graphsample.bucket(n, 1500)
        assert n <= b <= 1500 or n > 1500 and b == 1500
        assert b - n <= max(15, n / 8) or b == 1500
    sampler = GraphSampler(gpt2(), Strategy("ancestral"), [1, 5], 40)
    assert sampler._length[1:] == [graphsample.bucket(2 + t, 42) for t in range(1, 40)]
    assert sorted(set(sampler._length[1:])) == [16, 32, 42]


@pytest.mark.parametrize("arch", MODELS)
@torch.inference_mode()
def test_a_step_reads_the_cache_only_up_to_its_length(arch):
    """With ``length`` set, positions past it are never read (NaN there changes nothing), and
    the logits are those of attention over the whole cache."""
    lm = MODELS[arch]()
    ids = torch.randint(2, lm.vocab_size, (3, 6), generator=torch.Generator().manual_seed(1))
    dec = Decoder(lm, torch.float32, capacity=40)
    kv = dec.new_kv(3)
    dec.logits(ids[:, :5], 0, kv)
    full = dec.logits(ids[:, 5:], torch.tensor([5]), kv)
    kv.k[:, :, :, 16:] = kv.v[:, :, :, 16:] = float("nan")
    kv.length = 16
    short = dec.logits(ids[:, 5:], torch.tensor([5]), kv)
    assert torch.isfinite(short).all() and torch.allclose(short, full, atol=1e-6)
