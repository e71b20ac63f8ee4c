"""Models trained from scratch on a corpus, registered by name (``wiki/transformer-bpe8k``).
Models chapter and every study that needs a self-trained model.

A :class:`Recipe` says what to build: the architecture (``ngram-mle``, ``ngram-kn``, ``lstm``,
``transformer``) and the segmentation (word, char, byte, or BPE with a vocabulary size).
:func:`build` trains a recipe on **any list of strings** (the distortion chapter trains on
samples of another model); the registered ``wiki/...`` names train on the sentences of the
embedded corpus (train split; early stopping on valid). Sizes come in two profiles: ``cpu``
(minutes on a 2-core CPU, what the book and CI run) and ``gpu`` (larger models and longer
training, for the accelerator machine).

Trained models are kept in the shared cache (:mod:`lmnotes.core.cache`) under a key that hashes the
training strings, the recipe, the size, the seed, the code that trains them and the library
versions; an interrupted training leaves no entry that loads.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Sequence

from lmnotes.core import cache as lmcache
from lmnotes.core import codeversion, io
from lmnotes.text import segment as seglib
from lmnotes.core.progress import note
from lmnotes.models.train import TrainConfig, train
from lmnotes.models.base import LanguageModel, ModelError
from lmnotes.models.zoo import register

# The `cpu` size trains in float32, the one precision that gives the same weights on every
# CPU (lmnotes.core.numerics), without dropout, 400 steps of 16 blocks of 128 tokens. Measured on
# the BPE-8k Transformer (test bits per byte; 2 cores, AVX2): 300 steps of 32 blocks with
# dropout 0.1 gave 2.327, without dropout 2.282 in 5% less time, and 400 steps of 16 blocks
# without dropout 2.293 in half the time (269 s). The models see the training text less than
# twice, too little for dropout to pay for the updates it weakens.
SIZES = {
    "cpu": {
        "transformer": dict(d_model=192, n_layers=4, n_heads=4, context=256, dropout=0.0),
        "lstm": dict(d_model=256, n_layers=2, dropout=0.0),
        "train": TrainConfig(
            block=128, batch_size=16, lr=3e-3, max_steps=400, eval_every=100, patience=3, precision="float32"
        ),
    },
    "gpu": {
        "transformer": dict(d_model=512, n_layers=8, n_heads=8, context=512, dropout=0.1),
        "lstm": dict(d_model=1024, n_layers=3, dropout=0.3),
        # 12 epochs: at 20 on an H200 (bench/results/h200-2026-11-27-buckets/gpu_edition_03.log,
        # evaluated every 500 steps), char's and byte's validation loss was lowest at epoch 12
        # and rose after, and BPE-1k's and BPE-4k's was lower at their one evaluation before the
        # end (epochs 10 and 14) than at it; 12 fits a chapter in an 8-minute slice there
        "train": TrainConfig(
            block=256,
            batch_size=64,
            lr=1e-3,
            max_steps=20000,
            max_epochs=12,
            eval_every=250,
            patience=4,
            precision="bfloat16",
        ),
    },
}
ARCHS = ("ngram-mle", "ngram-kn", "lstm", "transformer")


@dataclass(frozen=True)
class Recipe:
    arch: str  # one of ARCHS
    segmentation: str  # word, char, byte, bpe
    vocab_size: int | None = None  # BPE merges target, or a cap on the closed vocabulary
    order: int = 3  # n-gram order
    min_count: int = 2  # closed vocabularies keep types seen this often

    def __post_init__(self):
        if self.arch not in ARCHS:
            raise ValueError(f"unknown architecture {self.arch!r}; use one of {list(ARCHS)}")
        if self.segmentation not in seglib.KINDS:
            raise ValueError(f"unknown segmentation {self.segmentation!r}; use one of {list(seglib.KINDS)}")


#: The registered recipes, trained on the embedded corpus's sentences.
RECIPES = {
    "wiki/trigram-word-mle": (Recipe("ngram-mle", "word"), "unsmoothed word trigram (zero probabilities)"),
    "wiki/kn3-word": (Recipe("ngram-kn", "word"), "interpolated Kneser-Ney word trigram"),
    "wiki/lstm-bpe8k": (Recipe("lstm", "bpe", 8000), "2-layer LSTM over byte-level BPE, 8k types"),
    "wiki/transformer-bpe8k": (
        Recipe("transformer", "bpe", 8000),
        "GPT-2 decoder over byte-level BPE, 8k types",
    ),
    "wiki/transformer-word": (
        Recipe("transformer", "word"),
        "GPT-2 decoder over words, closed vocabulary with <unk>",
    ),
    "wiki/transformer-byte": (Recipe("transformer", "byte"), "GPT-2 decoder over UTF-8 bytes"),
}

# The code that decides a trained model's weights (scoring and sampling code, in
# models/base.py, does not; editing it does not retrain).
_CODE = (
    "lmnotes.models.trained",
    "lmnotes.models.neural",
    "lmnotes.models.ngram",
    "lmnotes.models.train",
    "lmnotes.text.segment",
    "lmnotes.core.numerics",
    "lmnotes.core.kernels",
)


def _code_version() -> str:
    import torch
    import transformers

    return codeversion.version(_CODE, torch.__version__, transformers.__version__)


lmcache.register_kind("trained", _code_version)


def build(
    recipe: Recipe,
    train_texts: Sequence[str],
    valid_texts: Sequence[str],
    name: str,
    size: str = "cpu",
    seed: int = 0,
    device: str | None = "cpu",
    cache: bool = True,
    progress: bool | None = None,
) -> LanguageModel:
    """Train (or load from the cache) a model of ``recipe`` on ``train_texts``.

    ``valid_texts`` drive early stopping of neural models. The model has attributes
    ``train_seconds`` (wall time of the training that made it) and ``history`` (neural
    models: the validation curve).

    (9 parameters: a recipe, its data, the run's settings (name, size, seed, device), and the cache
    and progress bar it reports to.)
    """
    if size not in SIZES:
        raise ModelError(f"unknown size {size!r}; use one of {list(SIZES)}")
    train_texts, valid_texts = list(train_texts), list(valid_texts)
    if not train_texts or not any(t.strip() for t in train_texts):
        raise ModelError(f"{name}: no training text")
    neural = recipe.arch in ("lstm", "transformer")
    if neural and not valid_texts:
        raise ModelError(f"{name}: neural models need validation strings for early stopping")
    config = replace(SIZES[size]["train"], seed=seed)
    key = io.digest(
        "trained",
        name,
        asdict(recipe),
        size,
        SIZES[size].get(recipe.arch),
        config.asdict(),
        io.digest(train_texts),
        io.digest(valid_texts) if neural else "",
        _code_version(),
    )

    def train_it() -> LanguageModel:
        t0 = time.perf_counter()
        note(f"training {name} ({size} size, {recipe.arch}) on {len(train_texts):,} sentences")
        seg = seglib.train(
            recipe.segmentation, train_texts, vocab_size=recipe.vocab_size, min_count=recipe.min_count
        )
        if neural:
            import torch

            from lmnotes.models.neural import NeuralLM

            torch.manual_seed(seed)  # the initial weights
            model = NeuralLM(seg, recipe.arch, name=name, device=device, **SIZES[size][recipe.arch])
            model.history = train(model, train_texts, valid_texts, config, progress=progress)
        else:
            from lmnotes.models.ngram import NGramModel

            model = NGramModel(seg, recipe.order, recipe.arch.split("-")[1], name=name).fit(train_texts)
            model.history = None
        model.train_seconds = time.perf_counter() - t0
        model.cache_key = key
        return model

    return _kept(name, key, train_it, device, neural) if cache else train_it()


def _kept(name: str, key: str, train_it, device, neural: bool) -> LanguageModel:
    """``train_it()``, kept in the shared cache under ``key``."""

    def build_entry(folder: Path) -> LanguageModel:
        model = train_it()
        if neural:
            model.to("cpu")  # stored on the CPU, moved to the device asked for when loaded
        io.write_pickle(folder / "model.pkl", model)
        return model

    lm = lmcache.fetch("trained", name, key, build_entry, lambda folder: io.read_pickle(folder / "model.pkl"))
    return lm.to(device) if neural else lm


def on_ids(
    arch: str,
    seg: seglib.Segmentation,
    train_ids: Sequence[Sequence[int]],
    valid_ids: Sequence[Sequence[int]],
    name: str,
    net_config: dict,
    config: TrainConfig,
    tokenizer_key: str,
    seed: int = 0,
    device: str | None = "cpu",
    callback=None,
    callback_key: str = "",
    soft_targets=None,
    teacher_key: str = "",
    progress: bool | None = None,
    stop_below: float | None = None,
) -> LanguageModel:
    """A neural model of ``arch`` with ``net_config``, trained from scratch on token-id
    sequences of an existing segmentation ``seg`` (the distortion chapter: M learns a
    language L's samples as ids, with L's tokenizer). The cache key hashes the ids, the
    tokenizer (``tokenizer_key``, e.g. L's cache key), the configuration and the code;
    ``callback(epoch, lm)`` (see :func:`lmnotes.models.train.train`) is part of the key through
    ``callback_key``, and what it returns is in the model's ``history``. ``soft_targets`` (a
    teacher's distributions, see :func:`lmnotes.models.train.train`) enter it through
    ``teacher_key``, and ``stop_below`` (stop at that validation loss) through itself.

    (16 parameters: the settings of one training run (architecture, segmentation, data, network and
    training configurations, seed, device, stop rule), the parts of its cache key (tokenizer,
    teacher), its callbacks and its distillation targets; the cache key hashes them all.)
    """
    if arch not in ("lstm", "transformer"):
        raise ModelError(f"training on ids needs a neural architecture (lstm or transformer), not {arch!r}")
    train_ids, valid_ids = [list(map(int, s)) for s in train_ids], [list(map(int, s)) for s in valid_ids]
    if not train_ids or not valid_ids:
        raise ModelError(
            f"{name}: no training ids ({len(train_ids)}) or no validation ids ({len(valid_ids)})"
        )
    bad = sorted({t for s in train_ids + valid_ids for t in s if not 0 <= t < seg.vocab_size})
    if bad:
        raise ModelError(f"{name}: ids {bad[:5]} lie outside the tokenizer's vocabulary of {seg.vocab_size}")
    config = replace(config, seed=seed)
    key = io.digest(
        "trained-ids",
        name,
        arch,
        net_config,
        config.asdict(),
        tokenizer_key,
        io.digest(train_ids),
        io.digest(valid_ids),
        callback_key,
        teacher_key,
        _code_version(),
        *(() if stop_below is None else (("stop below", stop_below),)),
    )

    def train_it() -> LanguageModel:
        import torch

        from lmnotes.models.neural import NeuralLM

        t0 = time.perf_counter()
        torch.manual_seed(seed)  # the initial weights
        model = NeuralLM(seg, arch, name=name, device=device, **net_config)
        targets = soft_targets() if callable(soft_targets) else soft_targets
        model.history = train(
            model,
            train_ids,
            valid_ids,
            config,
            progress=progress,
            callback=callback,
            soft_targets=targets,
            stop_below=stop_below,
        )
        model.train_seconds = time.perf_counter() - t0
        model.cache_key = key
        return model

    return _kept(name, key, train_it, device, neural=True)


def on_corpus(
    recipe: Recipe,
    name: str | None = None,
    size: str = "cpu",
    seed: int = 0,
    corpus: str = "enwiki",
    device: str | None = "cpu",
    progress: bool | None = None,
) -> LanguageModel:
    """A model of ``recipe`` trained on a corpus's sentences (train split; early stopping on
    valid), as the registered ``wiki/...`` models are: a recipe that is registered gets its
    registered name (and shares its cache), another one a name that spells it out
    (``wiki/transformer-bpe1000``). The segmentation chapter builds its BPE sweep this way."""
    if name is None:
        name = next((n for n, (r, _) in RECIPES.items() if r == recipe), None) or (
            f"wiki/{recipe.arch}-{recipe.segmentation}{recipe.vocab_size or ''}"
        )
    from lmnotes.text import corpus as corpora

    data = corpora.load(corpus)
    return build(
        recipe,
        data["train"].sentences,
        data["valid"].sentences,
        name=name,
        size=size,
        seed=seed,
        device=device,
        progress=progress,
    )


def _register(name: str, recipe: Recipe, description: str) -> None:
    @register(name, f"{description}; trained on the embedded corpus")
    def factory(device="cpu", dtype="float32", size="cpu", seed=0, corpus="enwiki", progress=None):
        if dtype != "float32":
            raise ModelError(f"{name} is trained and used in float32; dtype {dtype!r} is not supported")
        return on_corpus(recipe, name, size=size, seed=seed, corpus=corpus, device=device, progress=progress)


for _name, (_recipe, _description) in RECIPES.items():
    _register(_name, _recipe, _description)
