"""Sampling speed of ``LanguageModel.sample`` against transformers' ``generate``, measured in one run.

Run by hand (not in CI):
    .venv/bin/python bench/sample_speed.py --device cpu --model random --batch 256 1024
    .venv/bin/python bench/sample_speed.py --device cpu --model smollm2-135m --batch 64 --max-tokens 64
    python3 bench/sample_speed.py --device cuda --model random random-gpu --batch 256 1024 --compile 256
    python3 bench/sample_speed.py --device cuda --model random-smollm2 --batch 64 256 --max-tokens 64 --compile 256

Models: ``random`` is a GPT-2 of the `cpu` size (d = 192, 4 layers, 8,000 types) and
``random-gpu`` one of the `gpu` size (d = 512, 8 layers), both with random weights, as in the
issues that set the targets; ``random-smollm2`` is SmolLM2-135M's architecture (Llama, 30
layers, 49,152 types) with random weights; any other name is loaded (a registered model or a
``.gguf`` file). Random weights almost never end a sample, so every row runs to
``--max-tokens`` and the comparison is of the cost per step.

For each model and batch it prints generated tokens per second (up to and including EOS) of

- ``sample``: the sampler as the chapters run it on this device (on CUDA the graph path of
  :mod:`lmnotes.models.graphsample`, its layers in the model's dtype or, with
  ``--layers bfloat16``, in a bfloat16 copy; on the CPU the step-by-step path);
- ``sample, step by step``: the step-by-step path in the model's float32 (on CUDA, the
  sampler before the graph path);
- ``generate``: transformers' ``generate`` with its dynamic cache, in float32 and (CUDA) in
  bfloat16;
- ``generate, static + compile`` (``--compile [BATCH ...]``, CUDA): ``generate`` with
  ``cache_implementation="static"``, which compiles the forward with ``torch.compile``; its
  first call (compilation included) is timed apart from the second;

their ratios to ``sample``, and the share of the memory-bandwidth bound that ``sample``
reaches: the speed if a step cost only reading the layers' weights (in the sampling dtype),
the output layer (float32) and the filled part of the cache once, at the copy bandwidth
measured in the same run. ``--json FILE`` also writes the rows.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import time
import traceback

import torch

from lmnotes import models
from lmnotes.models import base, graphsample
from lmnotes.models.neural import NeuralLM
from lmnotes.models.sampling import Strategy
from lmnotes.models.trained import SIZES


class _Types:
    """A stand-in segmentation (or tokenizer) of ``vocab_size`` types for random-weight models."""

    kind = "bpe"
    eos_token_id, bos_token_id, pad_token_id = 0, 0, 2

    def __init__(self, vocab_size: int = 8000):
        self.vocab_size = vocab_size

    def encode(self, text, add_special_tokens=False):
        return []

    def decode(self, ids, **kwargs):
        return ""


#: SmolLM2-135M's architecture (its GGUF file's configuration, as transformers reads it).
SMOLLM2 = dict(
    vocab_size=49152,
    hidden_size=576,
    intermediate_size=1536,
    num_hidden_layers=30,
    num_attention_heads=9,
    num_key_value_heads=3,
    head_dim=64,
    max_position_embeddings=8192,
    rms_norm_eps=1e-5,
    tie_word_embeddings=True,
    bos_token_id=0,
    eos_token_id=0,
    pad_token_id=2,
    rope_parameters={"rope_theta": 100000.0, "rope_type": "default"},
)


def load(name: str, device: str):
    torch.manual_seed(0)
    if name in ("random", "random-gpu"):
        size = SIZES["cpu" if name == "random" else "gpu"]["transformer"]
        return NeuralLM(_Types(), "transformer", name=f"{name} transformer", device=device, **size)
    if name == "random-smollm2":
        from transformers import LlamaConfig, LlamaForCausalLM
        from lmnotes.models.hf import HFModel

        return HFModel(LlamaForCausalLM(LlamaConfig(**SMOLLM2)), _Types(), "random-smollm2", device=device)
    return models.load(name, device=device)


def causal_lm(lm):
    return lm.hf if hasattr(lm, "hf") else lm.net.lm


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(fn, device, reps: int = 1):
    best, out = float("inf"), None
    for _ in range(reps):
        sync(device)
        t = time.perf_counter()
        out = fn()
        sync(device)
        best = min(best, time.perf_counter() - t)
    return best, out


def useful_tokens(rows, eos: int) -> int:
    """Tokens up to and including the first EOS of each row."""
    return sum(r.index(eos) + 1 if eos in r else len(r) for r in rows)


def copy_bandwidth(device) -> float:
    """Bytes per second read and written by a device-to-device copy of 1 GiB (256 MiB on the CPU)."""
    n = (1 << 28) if device.type == "cuda" else (1 << 26)
    a = torch.empty(n, dtype=torch.float32, device=device)
    b = torch.empty_like(a)
    b.copy_(a)
    t, _ = timed(lambda: b.copy_(a), device, reps=5)
    return 2 * a.numel() * 4 / t


def step_bytes(lm, B: int, positions: float, dtype: torch.dtype) -> float:
    """Bytes a step must read at least: the layers' weights in ``dtype``, the output layer in
    float32 and the keys and values of ``positions`` filled positions for ``B`` rows."""
    net = causal_lm(lm)
    cfg = net.config
    head = net.get_output_embeddings().weight
    body = sum(p.numel() for p in net.base_model.parameters()) - net.get_input_embeddings().weight.numel()
    heads = getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    kv = cfg.num_hidden_layers * 2 * B * heads * head_dim * positions
    size = torch.finfo(dtype).bits // 8
    return body * size + head.numel() * 4 + kv * size


def generate_rate(net, lm, B: int, T: int, device, **kwargs) -> tuple[float, float]:
    """Tokens per second of ``net.generate`` (ancestral, no top-k), and its seconds."""
    ids = torch.full((B, 1), lm.bos_id, device=device)
    torch.manual_seed(0)
    with torch.inference_mode():
        t, g = timed(
            lambda: net.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                do_sample=True,
                top_k=0,
                max_new_tokens=T,
                eos_token_id=lm.eos_id,
                pad_token_id=lm.pad_id,
                **kwargs,
            ),
            device,
        )
    return useful_tokens(g[:, 1:].tolist(), lm.eos_id) / t, t


def sample_rate(lm, B: int, T: int, device, graphs: bool, reps: int) -> tuple[float, float, object]:
    """Tokens per second of ``lm.sample`` (best of ``reps`` calls after one of the same shape),
    and the seconds of that first call (on CUDA it copies the weights and captures the graph)."""
    lm.graph_sampling = graphs
    first, _ = timed(lambda: lm.sample(B, "ancestral", max_tokens=T, seed=1, batch_size=B), device)
    t, s = timed(lambda: lm.sample(B, "ancestral", max_tokens=T, seed=0, batch_size=B), device, reps)
    return sum(len(ids) + int(f) for ids, f in zip(s.token_ids, s.finished)) / t, first, s


@torch.inference_mode()
def step_times(lm, B: int, T: int, n: int = 50) -> tuple[float, float]:
    """Seconds per step of the graph sampler's last step (attention over the whole cache):
    replayed as a captured graph, and launched kernel by kernel (the launch overhead that the
    graph removes)."""
    fast = graphsample.sampler(
        lm, Strategy("ancestral"), [lm.bos_id], T, base.CUDA_LAYER_DTYPE or lm._weights_dtype()
    )
    with graphsample._nondeterministic_writes(lm.device):
        return _step_times(fast, lm, B, n)


def _step_times(fast, lm, B: int, n: int) -> tuple[float, float]:
    """The step of the last bucket: attention over the whole cache."""
    s, u, out, graphs = fast._fresh(B)
    length = fast._length[-1]
    out_times = []
    for step in (
        graphs[length].replay if graphs is not None else None,
        lambda: fast._step(s, u, out, length),
    ):
        if step is None:
            out_times.append(float("nan"))
            continue
        step()
        sync(lm.device)
        t = time.perf_counter()
        for _ in range(n):
            s.pos.fill_(1)  # stay inside the cache
            s.step.zero_()
            step()
        sync(lm.device)
        out_times.append((time.perf_counter() - t) / n)
    return out_times[0], out_times[1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--model", nargs="+", default=["random"])
    ap.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument(
        "--compile",
        type=int,
        nargs="*",
        metavar="BATCH",
        help="also generate with a static cache and torch.compile (CUDA), at these batches (all if none)",
    )
    ap.add_argument(
        "--layers",
        default="model",
        choices=["model", "bfloat16"],
        help="the sampler's layers on CUDA: the model's dtype, or a bfloat16 copy",
    )
    ap.add_argument(
        "--compile-step",
        action="store_true",
        help="an experiment (CUDA): fuse the graph sampler's step with torch.compile before capturing it",
    )
    ap.add_argument("--reps", type=int, default=2, help="timed calls of each, the best kept")
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args(argv)
    device = base.resolve_device(args.device)
    cuda = device.type == "cuda"
    base.CUDA_LAYER_DTYPE = torch.bfloat16 if args.layers == "bfloat16" else None
    if (
        args.compile_step
    ):  # not the chapters' path: Inductor fuses the step's small kernels, then it is captured
        graphsample.GraphSampler._step = torch.compile(graphsample.GraphSampler._step, dynamic=False)
    card = torch.cuda.get_device_name(0) if cuda else platform.processor() or "cpu"
    import transformers

    print(
        f"device {card}; torch {torch.__version__}, transformers {transformers.__version__}; "
        f"{torch.get_num_threads()} threads; ancestral sampling, up to {args.max_tokens} tokens; "
        f"the sampler's layers in {args.layers if cuda else 'the model dtype'}",
        flush=True,
    )
    bandwidth = copy_bandwidth(device)
    print(f"copy bandwidth {bandwidth / 1e9:,.0f} GB/s (read + written)", flush=True)
    rows = []
    for name in args.model:
        lm = load(name, args.device)
        net = causal_lm(lm)
        nets = {"float32": net}
        if cuda:
            nets["bfloat16"] = copy.deepcopy(net).to(torch.bfloat16)
        T = args.max_tokens
        for B in args.batch:
            row = {
                "model": lm.name,
                "batch": B,
                "max_tokens": T,
                "device": card,
                "layers": args.layers,
                "compiled_step": args.compile_step,
            }
            try:
                ours, row["sample_first_call_s"], s = sample_rate(lm, B, T, device, True, args.reps)
            except Exception:  # noqa: BLE001 - report why, then time the same steps without graphs
                traceback.print_exc()
                graphsample.USE_GRAPHS = False  # for the rest of the run (the sampler's key holds it)
                row["graphs_failed"] = True
                ours, row["sample_first_call_s"], s = sample_rate(lm, B, T, device, True, args.reps)
            row["sample"] = ours
            row["ended"] = float(s.finished.mean())
            if cuda and graphsample.USE_GRAPHS:
                row["graph_step_ms"], row["eager_step_ms"] = (1e3 * x for x in step_times(lm, B, T))
            if cuda:
                row["sample_step_by_step"] = sample_rate(lm, B, T, device, False, 1)[0]
            for dtype, n in nets.items():
                generate_rate(n, lm, min(B, 8), 4, device)  # warm-up
                row[f"generate_{dtype}"] = max(
                    generate_rate(n, lm, B, T, device)[0] for _ in range(args.reps)
                )
            if cuda and args.compile is not None and (not args.compile or B in args.compile):
                try:
                    row["static_compile_first_s"] = generate_rate(
                        nets["bfloat16"], lm, B, T, device, cache_implementation="static"
                    )[1]
                    row["generate_static_compile"] = generate_rate(
                        nets["bfloat16"], lm, B, T, device, cache_implementation="static"
                    )[0]
                except Exception as exc:  # noqa: BLE001 - a benchmark reports what did not run
                    row["generate_static_compile"] = None
                    row["static_compile_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            dtype = (base.CUDA_LAYER_DTYPE or lm._weights_dtype()) if cuda else torch.float32
            mean_len = sum(len(i) for i in s.token_ids) / B
            bound = B / (step_bytes(lm, B, 1 + mean_len / 2, dtype) / bandwidth)
            row["bandwidth_bound"] = bound
            rows.append(row)
            others = [
                k
                for k in row
                if k.startswith(("sample_", "generate_"))
                and not k.endswith("_s")
                and isinstance(row[k], float)
            ]
            print(
                f"{lm.name}, batch {B}: sample {ours:,.0f} tok/s ({row['ended']:.0%} ended; first call "
                f"{row['sample_first_call_s']:.2f} s"
                + (
                    f"; a step {row['graph_step_ms']:.3f} ms as a graph, {row['eager_step_ms']:.3f} ms launched "
                    f"kernel by kernel"
                    if "graph_step_ms" in row
                    else ""
                )
                + "); "
                + "; ".join(f"{k} {row[k]:,.0f} tok/s ({ours / row[k]:.2f}x)" for k in others)
                + (
                    f"; compile's first call {row['static_compile_first_s']:.1f} s"
                    if "static_compile_first_s" in row
                    else ""
                )
                + (
                    f"; static + compile failed: {row['static_compile_error']}"
                    if "static_compile_error" in row
                    else ""
                )
                + f"; bandwidth bound {bound:,.0f} tok/s, reached {ours / bound:.1%}",
                flush=True,
            )
        del lm, net, nets
        if cuda:
            torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "device": card,
                    "torch": torch.__version__,
                    "transformers": transformers.__version__,
                    "bandwidth": bandwidth,
                    "rows": rows,
                },
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
