"""Scoring speed of ``LanguageModel.score_ids`` in each precision the device offers, and
the share of the device's matrix-product peak it reaches (model FLOPs utilisation), in one run.

On CUDA the precisions are those of ``base.CUDA_SCORING``: float32, TF32 and bfloat16 autocast.

Run by hand (not in CI):
    python3 bench/score_speed.py --device cuda --model random-gpu random-smollm2
    .venv/bin/python bench/score_speed.py --device cpu --model random --n 256

The models are those of ``sample_speed.py``. The texts are ``--n`` random token sequences whose
lengths are drawn uniformly from 8 to 120 tokens (seeded), scored with EOS the way the chapters
score sentences: sorted by length and batched (``BATCH_TOKENS`` of the device). Each precision
reports tokens per second, its MFU (2 x the parameters a token passes through in matrix
products, plus attention, per token, against the best matrix product of that precision timed
in the same run), and the change of the per-token log-probability against float32.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from lmnotes.models import base
from sample_speed import causal_lm, load, sync


def matmul_peak(device, dtype=torch.float32, n: int = 4096, reps: int = 10) -> float:
    """Best FLOP/s of an n x n matrix product in ``dtype`` over ``reps`` tries (2 n^3 FLOPs each)."""
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    for _ in range(2):
        a @ b
    best = float("inf")
    for _ in range(reps):
        sync(device)
        t = time.perf_counter()
        a @ b
        sync(device)
        best = min(best, time.perf_counter() - t)
    return 2 * n**3 / best


def matmul_params(hf) -> int:
    """Parameters that take part in a matmul per token: all but the input embedding lookup
    and the learned positions, plus the output head (counted again when it is tied to the
    embedding)."""
    emb = hf.get_input_embeddings().weight
    head = hf.get_output_embeddings().weight
    positions = getattr(getattr(hf, "transformer", None), "wpe", None)
    total = sum(p.numel() for p in hf.parameters()) - (
        positions.weight.numel() if positions is not None else 0
    )
    return total - emb.numel() + head.numel()


def flops_per_token(lm, mean_context: float) -> float:
    """2 x matmul parameters, plus attention's two products over ``mean_context`` positions."""
    net = causal_lm(lm)
    cfg = net.config
    return 2 * matmul_params(net) + 4 * cfg.num_hidden_layers * cfg.hidden_size * mean_context


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--model", nargs="+", default=["random"])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    device = base.resolve_device(args.device)
    rng = np.random.default_rng(0)
    peaks = {"float32": matmul_peak(device, torch.float32)}
    if device.type == "cuda":  # scoring's precisions there (base.CUDA_SCORING), each with its own peak
        with base._tf32():
            peaks["tf32"] = matmul_peak(device, torch.float32)
        peaks["bfloat16"] = matmul_peak(device, torch.bfloat16)
    print(
        "matrix-product peak: " + ", ".join(f"{k} {v / 1e12:,.1f} TFLOP/s" for k, v in peaks.items()),
        flush=True,
    )
    rows = []
    for name in args.model:
        lm = load(name, args.device)
        seqs = [
            rng.integers(3, lm.vocab_size, int(n)).tolist() + [lm.eos_id]
            for n in rng.integers(8, 121, args.n)
        ]
        tokens = sum(len(s) for s in seqs)
        fpt = flops_per_token(lm, np.mean([len(s) for s in seqs]) / 2)
        out, default = {}, base.CUDA_SCORING
        for dtype in peaks:
            base.CUDA_SCORING = dtype
            lm.score_ids(seqs[:64])  # warm-up
            sync(device)
            t = time.perf_counter()
            lp = lm.score_ids(seqs)
            sync(device)
            t = time.perf_counter() - t
            out[dtype] = np.concatenate(lp)
            rate = tokens / t
            row = {
                "model": lm.name,
                "dtype": dtype,
                "tokens": tokens,
                "tokens_per_s": rate,
                "mfu": fpt * rate / peaks[dtype],
            }
            if dtype != "float32":
                diff = out[dtype] - out["float32"]
                row.update(mean_change=float(diff.mean()), max_abs_change=float(np.abs(diff).max()))
            rows.append(row)
            print(
                f"{lm.name}, {dtype}: {rate:,.0f} tok/s, MFU {row['mfu']:.1%} of the {dtype} peak"
                + (
                    f"; log-prob change per token vs float32: mean {row['mean_change']:+.5f}, "
                    f"max |.| {row['max_abs_change']:.4f} nats"
                    if "mean_change" in row
                    else ""
                ),
                flush=True,
            )
        base.CUDA_SCORING = default
        del lm
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"peaks": peaks, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
