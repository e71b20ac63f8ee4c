"""Scoring and sampling speed of the LanguageModel toolkit, against plain transformers loops.

Run by hand (not in CI):  .venv/bin/python bench/lm_speed.py [--model smollm2-135m] [--n 256]
                          .venv/bin/python bench/lm_speed.py --model wiki/transformer-bpe8k

Prints, measured in this one run on this machine:
- the fp32 matmul peak (FLOP/s) of torch on this device;
- scoring tokens/s of ``LanguageModel.score`` vs a naive per-string loop over the HF model
  (one forward per sentence, log-softmax over the full logits), their ratio, and model FLOPs
  utilisation (2 x matmul parameters x tokens / time / peak);
- the same scoring in bfloat16, with its effect on the log-probs (pretrained models);
- sampling tokens/s of ``LanguageModel.sample`` vs ``model.generate`` with the same settings.
Corpus: the first N sentences of the test split of the embedded corpus.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from lmnotes.text import corpus
from lmnotes import models
from score_speed import matmul_params, matmul_peak  # bench/, beside this script


def hf_model(lm):
    """The transformers model behind ``lm``: a pretrained model's, or the GPT-2 decoder of a
    self-trained ``wiki/transformer-*`` model."""
    if hasattr(lm, "hf"):
        return lm.hf
    if hasattr(getattr(lm, "net", None), "lm"):
        return lm.net.lm
    raise SystemExit(
        f"{lm.name} has no transformers model to compare with; use a pretrained model "
        f"or a wiki/transformer-* model"
    )


def timed(fn, reps=1):
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def naive_score(lm, texts):
    out, hf = [], hf_model(lm)
    with torch.inference_mode():
        for t in texts:
            ids = torch.tensor([[lm.bos_id] + lm.encode(t) + [lm.eos_id]], device=lm.device)
            logp = torch.log_softmax(hf(input_ids=ids).logits[0, :-1].float(), -1)
            out.append(float(logp.gather(1, ids[0, 1:, None]).sum()))
    return np.array(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--n", type=int, default=256, help="test sentences to score")
    ap.add_argument("--samples", type=int, default=16, help="samples to draw")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()

    lm = models.load(args.model, device=args.device)
    device, hf = lm.device, hf_model(lm)
    texts = corpus.load()["test"].sentences[: args.n]
    n_tokens = sum(len(lm.encode(t)) + 1 for t in texts)
    print(
        f"device {device} ({torch.get_num_threads()} threads), model {lm.name}, "
        f"{len(texts)} sentences, {n_tokens} scored tokens"
    )

    peak = matmul_peak(device)
    flops_per_token = 2 * matmul_params(hf)

    lm.score(texts[:8])  # warm-up
    t_ours, ours = timed(lambda: lm.score(texts), reps=2)
    t_naive, naive = timed(lambda: naive_score(lm, texts))
    ours_tps, naive_tps = n_tokens / t_ours, n_tokens / t_naive
    print(
        f"scoring: ours {ours_tps:.0f} tok/s, naive loop {naive_tps:.0f} tok/s, "
        f"ratio {ours_tps / naive_tps:.2f}x; max |difference| {np.abs(ours.logprob - naive).max():.2e} nats"
    )
    peak = max(peak, matmul_peak(device))  # measured before and after: the best of both
    print(f"fp32 matmul peak: {peak / 1e9:.1f} GFLOP/s")
    print(
        f"scoring MFU: {flops_per_token * ours_tps / peak:.0%} of the fp32 matmul peak "
        f"({flops_per_token / 1e6:.0f} MFLOP/token); naive loop {flops_per_token * naive_tps / peak:.0%}"
    )

    try:
        bf = models.load(args.model, device=args.device, dtype="bfloat16")
    except models.ModelError as e:
        print(f"scoring bf16: skipped ({e})")
    else:
        bf.score(texts[:8])
        t_bf, bf_scores = timed(lambda: bf.score(texts), reps=2)
        diff = (bf_scores.logprob - ours.logprob) / ours.n_tokens
        print(
            f"scoring bf16: {n_tokens / t_bf:.0f} tok/s ({t_ours / t_bf:.2f}x fp32); log-prob change "
            f"per token: mean {diff.mean():+.4f}, max |.| {np.abs(diff).max():.4f} nats"
        )
        del bf

    # sampling: same strategy, batch and length in both, compared in generated tokens per second
    settings = dict(top_p=0.9, max_tokens=args.max_tokens)
    lm.sample(2, "nucleus", **{**settings, "max_tokens": 4})
    t_s, s = timed(lambda: lm.sample(args.samples, "nucleus", seed=0, batch_size=args.samples, **settings))
    ours_gen = sum(len(ids) + int(f) for ids, f in zip(s.token_ids, s.finished))
    ids = torch.full((args.samples, 1), lm.bos_id, device=device)
    torch.manual_seed(0)
    with torch.inference_mode():
        t_g, g = timed(
            lambda: hf.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                do_sample=True,
                top_p=0.9,
                top_k=0,
                temperature=1.0,
                max_new_tokens=args.max_tokens,
                eos_token_id=lm.eos_id,
                pad_token_id=lm.pad_id,
            )
        )
    gen_tokens = 0
    for row in g[:, 1:].tolist():  # tokens up to and including the first EOS
        gen_tokens += row.index(lm.eos_id) + 1 if lm.eos_id in row else len(row)
    print(
        f"sampling: ours {ours_gen / t_s:.0f} tok/s, generate {gen_tokens / t_g:.0f} tok/s, "
        f"ratio {(ours_gen / t_s) / (gen_tokens / t_g):.2f}x ({args.samples} samples, nucleus p=0.9, "
        f"up to {args.max_tokens} tokens)"
    )


if __name__ == "__main__":
    main()
