"""Sampling speed of ``LanguageModel.sample`` against transformers' ``generate``, measured in one run.

Run by hand (not in CI):
    .venv/bin/python bench/sample_speed.py --model random --batch 256 1024
    .venv/bin/python bench/sample_speed.py --model wiki/transformer-bpe8k --batch 256 1024
    .venv/bin/python bench/sample_speed.py --model smollm2-135m --batch 64 --max-tokens 64

``--model random`` is a GPT-2 of the `cpu` size (d = 192, 4 layers, 8,000 types) with random
weights, as in the issue that set the targets: it almost never ends a sample, so every row
runs to ``--max-tokens`` and the comparison is of the cost per step. A trained model ends its
samples at different lengths, where ``generate`` keeps computing the ended rows until the
last one ends and ``sample`` drops them.

For each batch size it prints generated tokens per second (up to and including EOS) of both,
with the same strategy, batch and length, their ratio, and the fraction of the output-matmul
bound reached: the speed sampling would have if a step cost only the output layer
(B x d x V), timed alone on the same machine. It also times the token draw alone against
``torch.multinomial``, and the ceiling: ``generate``'s time per step divided by that of our
forward pass alone (layers and output layer, no draw, full batch), the ratio a sampler with a
free draw would reach if no row ended.
"""

from __future__ import annotations

import argparse
import time

import torch

from lmnotes import models
from lmnotes.models.neural import NeuralLM
from lmnotes.models.trained import SIZES
from lmnotes.models.sampling import Strategy, draw


class _Types:
    """A stand-in segmentation of 8,000 types for the random-weight model."""

    kind, vocab_size = "bpe", 8000

    def encode(self, text):
        return []

    def decode(self, ids):
        return ""


def load(name: str):
    if name == "random":
        torch.manual_seed(0)
        lm = NeuralLM(_Types(), "transformer", name="random-cpu-transformer", **SIZES["cpu"]["transformer"])
        return lm, lm.net.lm
    lm = models.load(name)
    hf = lm.hf if hasattr(lm, "hf") else lm.net.lm
    return lm, hf


def useful_tokens(rows, eos: int) -> int:
    """Tokens up to and including the first EOS of each row."""
    return sum(r.index(eos) + 1 if eos in r else len(r) for r in rows)


def best(fn, reps: int):
    out, t = None, float("inf")
    for _ in range(reps):
        s = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - s)
    return t, out


@torch.inference_mode()
def forward_step(lm, B: int, T: int) -> float:
    """Seconds per step of the model alone (its layers and output layer, with our key-value
    cache, no draw) at batch ``B``, fed ``T`` random tokens one at a time."""
    toks = torch.randint(0, lm.vocab_size, (B, T), generator=torch.Generator().manual_seed(0))
    states, past = lm._hidden(torch.full((B, 1), lm.bos_id), lm._new_cache(T + 1), use_cache=True)
    t = time.perf_counter()
    for i in range(T):
        lm._head(states[:, -1])
        states, past = lm._hidden(toks[:, i:i + 1], past, use_cache=True)
    return (time.perf_counter() - t) / T


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="random")
    ap.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--strategy", default="ancestral", choices=["ancestral", "nucleus"])
    ap.add_argument("--reps", type=int, default=1)
    args = ap.parse_args()
    lm, hf = load(args.model)
    strategy = Strategy(args.strategy, top_p=0.9 if args.strategy == "nucleus" else None)
    extra = {"top_p": 0.9} if args.strategy == "nucleus" else {}
    print(f"model {lm.name} (V = {lm.vocab_size}), {torch.get_num_threads()} threads, {args.strategy}, "
          f"up to {args.max_tokens} tokens")
    for B in args.batch:
        d = hf.config.hidden_size if hasattr(hf.config, "hidden_size") else hf.config.n_embd
        states = torch.randn(B, d)
        with torch.inference_mode():
            t_head, logits = best(lambda: lm._head(states), 5)
            t_multi, _ = best(lambda: torch.multinomial(torch.softmax(logits.float(), -1), 1), 3)
            t_draw, _ = best(lambda: draw(logits, strategy), 3)
        lm.sample(min(B, 8), strategy, max_tokens=4, batch_size=B)  # warm-up
        t_ours, s = best(lambda: lm.sample(B, strategy, max_tokens=args.max_tokens, seed=0, batch_size=B), args.reps)
        ours = sum(len(ids) + int(f) for ids, f in zip(s.token_ids, s.finished)) / t_ours
        ids = torch.full((B, 1), lm.bos_id)
        with torch.inference_mode():
            t_gen, g = best(lambda: hf.generate(ids, attention_mask=torch.ones_like(ids), do_sample=True, top_k=0,
                                                max_new_tokens=args.max_tokens, eos_token_id=lm.eos_id,
                                                pad_token_id=lm.pad_id, **extra), args.reps)
        gen = useful_tokens(g[:, 1:].tolist(), lm.eos_id) / t_gen
        t_fwd = min(forward_step(lm, B, args.max_tokens) for _ in range(args.reps))
        gen_step = t_gen / (g.shape[1] - 1)  # generate computes every row at every step
        ceiling = gen_step / t_fwd  # a sampler with a free draw over our forward pass, at full batch
        bound = B / t_head
        print(f"batch {B}: sample {ours:,.0f} tok/s, generate {gen:,.0f} tok/s, ratio {ours / gen:.2f}x; "
              f"output-matmul bound {bound:,.0f} tok/s, reached {ours / bound:.0%}; per step: output layer "
              f"{t_head * 1e3:.1f} ms, draw {t_draw * 1e3:.1f} ms, multinomial {t_multi * 1e3:.1f} ms; "
              f"{sum(map(len, s.token_ids)) / B:.1f} tokens per sample, {s.finished.mean():.0%} ended; "
              f"generate's step {gen_step * 1e3:.1f} ms, our forward pass alone {t_fwd * 1e3:.1f} ms: "
              f"full-batch ceiling with a free draw {ceiling:.2f}x, reached {ours / gen / ceiling:.0%}", flush=True)


if __name__ == "__main__":
    main()
