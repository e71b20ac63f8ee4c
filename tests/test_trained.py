"""Self-trained models (lmnotes.models.trained, lmnotes.models.train): determinism, cache, errors."""

import numpy as np
import pytest
import torch

from lmnotes import models
from lmnotes.models import ModelError, trained
from lmnotes.models.train import TrainConfig

TINY = {
    "transformer": dict(d_model=32, n_layers=1, n_heads=2, context=64, dropout=0.1),
    "lstm": dict(d_model=32, n_layers=1, dropout=0.1),
    "train": TrainConfig(block=32, batch_size=8, lr=3e-3, max_steps=12, eval_every=4, patience=2),
}


@pytest.fixture(autouse=True)
def tiny(request, monkeypatch, tmp_path):
    """The tiny size, and a temporary cache for the models the tests train, except in tests
    marked ``shared_cache``: those load the registered models, which the chapters train the
    same way, from the shared cache (and leave them there)."""
    monkeypatch.setitem(trained.SIZES, "tiny", TINY)
    if "shared_cache" not in request.keywords:
        monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))


@pytest.fixture(scope="module")
def texts(enwiki):
    return enwiki["train"].sentences[:400], enwiki["valid"].sentences[:80]


@pytest.mark.parametrize("arch, seg, vocab", [("transformer", "bpe", 400), ("lstm", "char", None)])
def test_training_is_deterministic_and_cached(texts, tmp_path, arch, seg, vocab):
    recipe = trained.Recipe(arch, seg, vocab)
    a = trained.build(recipe, *texts, name="t", size="tiny", cache=False)
    b = trained.build(recipe, *texts, name="t", size="tiny", cache=False)
    for (ka, va), (kb, vb) in zip(a.net.state_dict().items(), b.net.state_dict().items()):
        assert ka == kb and torch.equal(va, vb)
    assert len(a.history) == 3 and a.history["valid_loss"].iloc[-1] < a.history["valid_loss"].iloc[0] + 0.5
    # the window is what training covered: positions beyond the blocks were never trained
    assert a.max_length == (32 if arch == "transformer" else 1 << 30)
    assert not list(tmp_path.glob("trained/*"))  # cache=False writes nothing
    c = trained.build(recipe, *texts, name="t", size="tiny")
    assert len(list((tmp_path / "trained").glob("t--*/model.pkl"))) == 1
    d = trained.build(recipe, *texts, name="t", size="tiny")  # from the cache
    sents = texts[1][:10]
    assert np.array_equal(c.score(sents).logprob, d.score(sents).logprob)
    assert np.array_equal(a.score(sents).logprob, d.score(sents).logprob)
    s = d.sample(3, "nucleus", top_p=0.9, max_tokens=20)
    assert len(s.texts) == 3 and np.isfinite(s.logprob_model).all()
    beam = d.sample(2, "beam-k2", beam=3, max_tokens=20)  # the model's cache reorders under beams
    expected = [
        lp.sum() if f else lp[:-1].sum() for lp, f in zip(d.score(beam.texts).token_logprobs, beam.finished)
    ]
    if seg == "char":  # characters round-trip exactly
        assert np.allclose(expected, beam.logprob_model, atol=1e-3)


def test_any_strings_and_a_changed_text_is_a_new_model(tmp_path):
    words = ["alpha beta gamma delta", "beta gamma alpha", "gamma delta alpha beta"] * 30
    recipe = trained.Recipe("transformer", "word", min_count=1)
    lm = trained.build(recipe, words, words[:10], name="toy", size="tiny")
    assert lm.vocab_size == 3 + 4 and lm.score(["alpha beta"]).logprob[0] < 0
    trained.build(recipe, words + ["delta"], words[:10], name="toy", size="tiny")
    assert len(list((tmp_path / "trained").glob("toy--*/model.pkl"))) == 2


def test_interrupted_training_caches_nothing(texts, tmp_path, monkeypatch):
    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(trained, "train", boom)
    with pytest.raises(KeyboardInterrupt):
        trained.build(trained.Recipe("lstm", "byte"), *texts, name="t", size="tiny")
    assert not [p for p in tmp_path.glob("trained/*") if not p.name.endswith(".lock")]


def test_errors(texts):
    with pytest.raises(ModelError, match="size"):
        trained.build(trained.Recipe("lstm", "byte"), *texts, name="t", size="huge")
    with pytest.raises(ModelError, match="no training text"):
        trained.build(trained.Recipe("lstm", "byte"), ["", " "], texts[1], name="t", size="tiny")
    with pytest.raises(ModelError, match="validation"):
        trained.build(trained.Recipe("lstm", "byte"), texts[0], [], name="t", size="tiny")
    with pytest.raises(ValueError, match="architecture"):
        trained.Recipe("gru", "byte")
    with pytest.raises(ModelError, match="float32"):
        models.load("wiki/kn3-word", dtype="bfloat16")


@pytest.mark.shared_cache
def test_registered_ngram_models(enwiki):
    assert {"wiki/transformer-bpe8k", "wiki/kn3-word", "wiki/trigram-word-mle"} <= set(models.names())
    kn = models.load("wiki/kn3-word")
    mle = models.load("wiki/trigram-word-mle")
    test = enwiki["test"].sentences[:100]
    assert np.isfinite(kn.score(test).logprob).all()
    assert np.isneginf(mle.score(test).logprob).mean() > 0.5


@pytest.mark.shared_cache  # it reads the prepared corpus and builds nothing
def test_on_corpus_names_registered_recipes_and_spells_out_others(monkeypatch):
    seen = []
    monkeypatch.setattr(trained, "build", lambda recipe, tr, va, name, **kw: seen.append(name))
    trained.on_corpus(trained.Recipe("transformer", "bpe", 8000), size="tiny")
    trained.on_corpus(trained.Recipe("transformer", "bpe", 1000), size="tiny")
    assert seen == ["wiki/transformer-bpe8k", "wiki/transformer-bpe1000"]


def test_cross_entropy_gradient_matches_pytorch():
    from lmnotes.models.train import cross_entropy

    g = torch.Generator().manual_seed(0)
    logits = (3 * torch.randn(2, 5, 50, generator=g, dtype=torch.float64)).requires_grad_()
    targets = torch.randint(0, 50, (2, 5), generator=g)
    ours = cross_entropy(logits.float(), targets)
    reference = torch.nn.functional.cross_entropy(logits.reshape(-1, 50), targets.reshape(-1))
    assert torch.isclose(ours.double(), reference, atol=1e-5)
    (grad_ours,) = torch.autograd.grad(ours, logits)
    (grad_ref,) = torch.autograd.grad(reference, logits)
    assert torch.allclose(grad_ours, grad_ref, atol=1e-6)


def test_training_budget_counts_steps_tokens_and_epochs(texts):
    from lmnotes.models import budget
    from lmnotes.models.train import _blocks, _stream

    lm = trained.build(trained.Recipe("transformer", "byte"), *texts, name="t", size="tiny", cache=False)
    row = budget.training_budget(lm, texts[0], TINY["train"])
    n_blocks = len(_blocks(_stream(lm, texts[0]), 32))
    # 12 steps of 8 blocks of 32 tokens; the split is n_blocks blocks long
    assert row["steps"] == 12 and row["tokens seen"] == 12 * 8 * 32
    assert row["epochs"] == pytest.approx(12 * 8 / n_blocks) and row["training tokens"] == n_blocks * 32
    assert row["steps planned"] == 12 and not row["stopped early"]
    from lmnotes.models.train import lr_factor

    # the schedule ended: its rate at the last update is 0; the factors of its 12 updates summed
    assert row["learning rate at stop"] == 0.0
    assert row["Σ learning rate"] == pytest.approx(sum(lr_factor(s, 50, 12) for s in range(12)))
    assert row["best step"] in (4, 8, 12) and row["valid loss, best"] == lm.history["valid_loss"].min()
    assert "valid bits per byte" not in row
    # a byte model has a token per byte (and one per text's end, as the bytes count one):
    # its bits per byte are its nats per token over ln 2
    bpb = budget.training_budget(lm, texts[0], TINY["train"], texts[1])["valid bits per byte"]
    assert sum(len(lm.encode(t)) for t in texts[1]) == sum(len(t.encode()) for t in texts[1])
    assert bpb == pytest.approx(row["valid loss, best"] / np.log(2))
    words = trained.build(trained.Recipe("transformer", "word"), *texts, name="w", size="tiny", cache=False)
    assert np.isnan(budget.training_budget(words, texts[0], TINY["train"], texts[1])["valid bits per byte"])
    # a history cut short by early stopping
    lm.history = lm.history.iloc[:2]
    assert budget.training_budget(lm, texts[0], TINY["train"])["stopped early"]
    table = budget.budget_table({"t": lm}, texts[0], "tiny")
    assert list(table.index) == ["t"] and table.loc["t", "steps"] == 8
    with pytest.raises(ValueError, match="no training history"):
        budget.training_budget(
            trained.build(
                trained.Recipe("ngram-kn", "byte"), texts[0][:50], [], name="n", size="tiny", cache=False
            ),
            texts[0],
            TINY["train"],
        )
    with pytest.raises(ValueError, match="unknown size"):
        budget.budget_table({"t": lm}, texts[0], "huge")


@pytest.mark.parametrize("progress, bar", [(True, True), (False, False), (None, False)])
def test_training_progress(texts, tmp_path, monkeypatch, capfd, progress, bar):
    """progress=True forces a bar even when stderr is not a terminal (as here), False and None
    (off a terminal) show none; the lines saying what trains and how long it takes go to the
    console in every case (LMNOTES_PROGRESS, which the runner points at its own stderr)."""
    monkeypatch.setenv("LMNOTES_PROGRESS", str(tmp_path / "console.log"))
    trained.build(
        trained.Recipe("lstm", "char"), *texts, name="t", size="tiny", cache=False, progress=progress
    )
    err = capfd.readouterr().err
    assert ("training t:" in err and "step/s" in err) == bar, err
    console = (tmp_path / "console.log").read_text()
    assert "training t (tiny size, lstm) on 400 sentences" in console
    assert "training t: 12 steps of 8 x 32 tokens on cpu" in console and "to go" in console


def test_at_epochs_trains_every_member_for_the_same_passes_over_its_text(texts, monkeypatch):
    """The equal-epoch family (word-level chapter): one pass over the training split for a
    byte model means about four times the updates of a BPE model, and the history says so."""
    import math

    from lmnotes.models import budget
    from lmnotes.text import corpus
    from lmnotes.models.train import _blocks, _stream

    small = {
        "train": type("S", (), {"sentences": texts[0][:80]}),
        "valid": type("S", (), {"sentences": texts[1][:40]}),
    }
    monkeypatch.setattr(corpus, "load", lambda name: small)
    config = budget.epoch_config("tiny", 1)
    assert config.max_epochs == 1 and config.max_steps > 10**6 and config.block == TINY["train"].block
    steps = {}
    for recipe in (trained.Recipe("transformer", "byte"), trained.Recipe("transformer", "bpe", 400)):
        lm = budget.at_epochs(recipe, 1, size="tiny")
        n_blocks = len(_blocks(_stream(lm, small["train"].sentences), 32))
        row = budget.training_budget(lm, small["train"].sentences, config)
        assert row["steps"] == math.ceil(n_blocks / 8) and 1 <= row["epochs"] < 1 + 8 / n_blocks
        assert lm.name.endswith("@1ep")
        steps[recipe.segmentation] = row["steps"]
    assert steps["byte"] > 1.5 * steps["bpe"]  # equal text, not equal tokens
    with pytest.raises(ModelError, match="neural"):
        budget.at_epochs(trained.Recipe("ngram-kn", "word"), 1, size="tiny")
    with pytest.raises(ValueError, match="whole number"):
        budget.at_epochs(trained.Recipe("transformer", "byte"), 0, size="tiny")


def test_at_level_is_the_shortest_annealed_schedule_whose_end_reaches_the_level(texts, monkeypatch):
    """The matched-quality view with schedules that finish (word-level chapter): the member
    at a level is the run of the shortest one-pass schedule, shortened on a grid of updates,
    whose annealed end reaches it; one grid step shorter does not."""
    from lmnotes.models import budget
    from lmnotes.models.train import lr_factor
    from lmnotes.text import corpus

    small = {
        "train": type("S", (), {"sentences": texts[0][:120]}),
        "valid": type("S", (), {"sentences": texts[1][:40]}),
    }
    monkeypatch.setattr(corpus, "load", lambda name: small)
    recipe = trained.Recipe("transformer", "bpe", 400)
    full = budget.at_quality(recipe, 1, 1e-3, size="tiny", eval_every=2)  # the whole pass, never reached
    per_byte = budget.bits_per_byte(full, small["valid"].sentences)
    curve = (full.history["valid_loss"] * per_byte).to_numpy()
    level = float((curve[len(curve) // 2] + curve[len(curve) // 2 - 1]) / 2)
    probe = budget.at_quality(recipe, 1, level, size="tiny", eval_every=2)
    lm, config, reached, tried = budget.at_level(recipe, 1, level, size="tiny", grid=2, tolerance=0.0)
    assert reached == probe.history["step"].iloc[-1]
    ends = dict(tried)
    end = lm.history["valid_loss"].iloc[-1] * per_byte
    assert end <= level and ends[config.max_steps] == pytest.approx(end)
    assert lm.history["step"].iloc[-1] == config.max_steps and len(lm.history) == 1  # evaluated at its end
    assert lr_factor(config.max_steps, config.warmup, config.max_steps) == 0.0  # annealed at its end
    planned = budget.training_budget(full, small["train"].sentences, budget.epoch_config("tiny", 1))[
        "steps planned"
    ]
    assert config.warmup == max(1, round(50 * config.max_steps / planned))
    # the shortest on the grid: every schedule tried that is shorter ends above the level
    assert all(b > level for u, b in tried if u < config.max_steps)
    assert config.max_steps - 2 <= 0 or config.max_steps - 2 in ends
    with pytest.raises(ValueError, match="1..5"):
        budget.shortened(budget.epoch_config("tiny", 1), 6, 5)
    with pytest.raises(ModelError, match="closed vocabulary"):
        budget.at_level(trained.Recipe("transformer", "word"), 1, 2.0, size="tiny", grid=2)


def test_at_quality_is_the_equal_epoch_run_stopped_at_a_bits_per_byte(texts, monkeypatch):
    """The matched-quality view (word-level chapter): the run of at_epochs, evaluated more
    often, stops at the first evaluation at or below the bits per byte asked for, and up to
    there it is the same run (evaluating draws nothing at random)."""
    from lmnotes.models import budget
    from lmnotes.text import corpus

    small = {
        "train": type("S", (), {"sentences": texts[0][:80]}),
        "valid": type("S", (), {"sentences": texts[1][:40]}),
    }
    monkeypatch.setattr(corpus, "load", lambda name: small)
    recipe = trained.Recipe("transformer", "bpe", 400)
    full = budget.at_quality(recipe, 3, 1e-3, size="tiny", eval_every=2)  # never reached
    per_byte = budget.bits_per_byte(full, small["valid"].sentences)
    bits = (full.history["valid_loss"] * per_byte).to_numpy()
    assert (
        len(bits) > 4
        and full.history["step"].iloc[-1]
        == budget.training_budget(full, small["train"].sentences, budget.epoch_config("tiny", 3))[
            "steps planned"
        ]
    )
    # the same run as the equal-epoch one, at every evaluation both make (every 4 updates)
    plain = budget.at_epochs(recipe, 3, size="tiny").history.set_index("step")["valid_loss"]
    both = full.history.set_index("step")["valid_loss"].reindex(plain.index)
    assert len(plain) >= 2 and both.tolist() == plain.tolist()
    first = next(i for i in range(2, len(bits)) if bits[i] < bits[:i].min() - 1e-3)
    target = (bits[first] + bits[:first].min()) / 2  # between that evaluation and the ones before
    stopped = budget.at_quality(recipe, 3, float(target), size="tiny", eval_every=2)
    h = stopped.history
    assert len(h) == first + 1 and h["valid_loss"].iloc[-1] == full.history["valid_loss"].iloc[first]
    assert h["valid_loss"].iloc[-1] * per_byte <= target < h["valid_loss"].iloc[:-1].min() * per_byte
    assert stopped.name.endswith(f"@3ep@{target:.3f}bpb")
    with pytest.raises(ModelError, match="closed vocabulary"):
        budget.at_quality(trained.Recipe("transformer", "word"), 1, 2.0, size="tiny", eval_every=2)
    with pytest.raises(ValueError, match="positive"):
        budget.at_quality(recipe, 1, 0.0, size="tiny")
    with pytest.raises(ValueError, match="eval_every"):
        budget.at_quality(recipe, 1, 2.0, size="tiny", eval_every=0)
    with pytest.raises(ValueError, match="must divide"):
        budget.at_quality(recipe, 1, 2.0, size="tiny", eval_every=3)  # the tiny size evaluates every 4
    # a run stopped at its own bits per byte, converted to a loss and back, stops there
    again = budget.at_quality(recipe, 3, float(bits[first]), size="tiny", eval_every=2)
    assert len(again.history) == first + 1
    assert np.isnan(
        budget.bits_per_byte(
            trained.build(trained.Recipe("transformer", "word"), *texts, name="w", size="tiny", cache=False),
            texts[1],
        )
    )


def test_bfloat16_trains_in_float32_on_the_cpu(texts, monkeypatch):
    """bf16 arithmetic on a CPU rounds by the CPU's instructions: a bfloat16 config trains there in
    float32, the same weights bit for bit."""
    recipe = trained.Recipe("transformer", "bpe", 300)
    a = trained.build(recipe, *texts, name="t", size="tiny", cache=False)
    monkeypatch.setitem(
        trained.SIZES,
        "tiny",
        {**TINY, "train": TrainConfig(**{**TINY["train"].asdict(), "precision": "bfloat16"})},
    )
    b = trained.build(recipe, *texts, name="t", size="tiny", cache=False)
    assert all(torch.equal(x, y) for x, y in zip(a.net.state_dict().values(), b.net.state_dict().values()))
