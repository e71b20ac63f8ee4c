"""How far training can go on the corpus: learning curves of the BPE-8k Transformer in steps,
model size and dropout, on the validation split, with the train–valid gap and the test bits
per byte at the end. Run by hand (tens of minutes per configuration on this CPU machine);
results in bench/README.md. The `cpu` recipe of lmnotes.models.trained was chosen from them.

    LMNOTES_THREADS=1 .venv/bin/python bench/training_curve.py --steps 1200 --out /tmp/curve.csv

Each configuration trains once with the `cpu` recipe's optimiser (AdamW, warm-up, cosine
decay to zero at --steps) and no early stopping; the curve is the validation loss at every
evaluation of that one run, so a point at step s is *not* what a run of s steps would reach
(its learning rate would have decayed sooner). At the end it reports the train loss in eval
mode on as many training blocks as the validation split has (the running train loss of a
dropout model is inflated by the dropout), and the test bits per byte of the best checkpoint.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace

import numpy as np
import pandas as pd
import torch

from lmnotes.text import corpus as lmcorpus
from lmnotes.text import segment as seglib
from lmnotes.models.neural import NeuralLM
from lmnotes.models.trained import SIZES
from lmnotes.models.train import _blocks, _stream, evaluate, train

CONFIGS = {  # name: (architecture overrides of the `cpu` Transformer)
    "cpu, dropout 0": dict(),
    "cpu, dropout 0.1": dict(dropout=0.1),
    "d=256, 6 layers, dropout 0.1": dict(d_model=256, n_layers=6, dropout=0.1),
    "d=128, 4 layers, dropout 0": dict(d_model=128),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1200)
    ap.add_argument("--configs", nargs="*", default=list(CONFIGS), choices=list(CONFIGS))
    ap.add_argument("--out", default="training_curve.csv")
    args = ap.parse_args()
    data = lmcorpus.load("enwiki")
    train_texts, valid_texts, test = data["train"].sentences, data["valid"].sentences, data["test"].sentences
    seg = seglib.train("bpe", train_texts, vocab_size=8000)
    n_bytes = sum(len(t.encode()) + 1 for t in test)
    rows = []
    for name in args.configs:
        arch = {**SIZES["cpu"]["transformer"], **CONFIGS[name]}
        config = replace(SIZES["cpu"]["train"], max_steps=args.steps, patience=10**6)
        torch.manual_seed(0)
        lm = NeuralLM(seg, "transformer", name=name, device="cpu", **arch)
        t0 = time.perf_counter()
        history = train(lm, train_texts, valid_texts, config, progress=False)
        seconds = time.perf_counter() - t0
        valid_blocks = _blocks(_stream(lm, valid_texts), config.block)
        train_blocks = _blocks(_stream(lm, train_texts), config.block)
        train_eval = evaluate(lm, train_blocks[: len(valid_blocks)])
        bpb = -lm.score(test).logprob.sum() / math.log(2) / n_bytes
        epochs = args.steps * config.batch_size / len(train_blocks)
        for r in history.to_dict("records"):
            rows.append({"config": name, "parameters": lm.n_parameters, **r})
        best = history.loc[history["valid_loss"].idxmin()]
        print(
            f"{name}: {lm.n_parameters:,} parameters, {args.steps} steps ({epochs:.2f} epochs) in {seconds:.0f} s; "
            f"best valid {best.valid_loss:.3f} at step {int(best.step)}; train (eval mode) {train_eval:.3f}, "
            f"gap {best.valid_loss - train_eval:.3f} nats; test bits/byte {bpb:.3f}",
            flush=True,
        )
        print(history[["step", "train_loss", "valid_loss"]].round(3).to_string(index=False), flush=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
