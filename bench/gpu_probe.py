"""How long the `gpu` size's training takes on this machine's accelerator: for the GPU
edition's plan (bench/gpu_edition.py). Run on the accelerator machine, by hand, never in CI.

    python3 bench/gpu_probe.py --steps 200 --out gpu_probe.json

For each self-trained recipe that chapter 01 trains, train a fresh model at the `gpu` size for
``--steps`` optimiser steps (no cache, nothing kept) and time the steps after the first
evaluation; the `gpu` size allows at most ``max_steps`` steps (early stopping may end sooner),
so ``max_minutes`` is an upper bound on that model's training there.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import replace

import torch

from lmnotes.models import trained
from lmnotes.text import corpus as lmcorpus


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--out", default="gpu_probe.json")
    parser.add_argument("--models", nargs="*", help="registered names (default: every neural wiki/ model)")
    parser.add_argument("--device", default="cuda", help="cuda (the point), or cpu to check the script")
    args = parser.parse_args(argv)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("no CUDA device: this probe times the accelerator")
    data = lmcorpus.load("enwiki")
    gpu = trained.SIZES["gpu"]
    full = gpu["train"]
    # a size of the probe's own: the gpu models, stopped after --steps (one evaluation at the end)
    trained.SIZES["gpu-probe"] = {**gpu, "train": replace(full, max_steps=args.steps, eval_every=args.steps)}
    device = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "cpu"
    out = {"device": device, "steps": args.steps, "models": {}}
    for name, (recipe, _) in trained.RECIPES.items():
        if recipe.arch not in ("lstm", "transformer") or (args.models and name not in args.models):
            continue
        t0 = time.perf_counter()
        model = trained.build(
            recipe,
            data["train"].sentences,
            data["valid"].sentences,
            name,
            size="gpu-probe",
            device=args.device,
            cache=False,
        )
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        history = model.history
        train_seconds = float(history["seconds"].iloc[-1])
        tokens = sum(len(model.encode(s)) + 1 for s in data["train"].sentences)
        steps_per_epoch = math.ceil(tokens / (full.block + 1) / full.batch_size)
        max_steps = min(full.max_steps, steps_per_epoch * full.max_epochs)
        per_step = train_seconds / args.steps
        out["models"][name] = {
            "seconds_total": round(seconds, 1),
            "seconds_per_step": per_step,
            "steps_per_epoch": steps_per_epoch,
            "max_steps": max_steps,
            "max_minutes": max_steps * per_step / 60,
        }
        print(name, out["models"][name], flush=True)
        del model
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
