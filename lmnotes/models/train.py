"""Seeded training of neural language models, with early stopping. Models chapter and every
study that trains a model (the distortion chapter trains on samples of another model).

Training strings (any list of str, or of token-id sequences, used as they are: the
distortion chapter trains on a language's ids, which decoding and re-encoding would change)
are encoded as ``<s> text <s>`` and concatenated into one stream, cut into blocks of
``block + 1`` tokens; each epoch visits the blocks in a seeded random order. The loss is the
mean next-token cross-entropy (nats). Validation loss is computed on the validation strings
every ``eval_every`` steps (``eval_every=0``: at the end of each epoch); training stops after
``patience`` evaluations without improvement (:func:`improves`), at ``max_steps``, after
``max_epochs``, or, with ``stop_below``, at the first evaluation whose loss is at most that
(a checkpoint of the same run at a chosen quality), and the best weights are restored. With the
same seed, data and device the run is deterministic.

A ``callback(epoch, lm)``, called after each epoch, may return a dict of measurements that the
history records (the distortion chapter scores fixed train and test subsets there).
``soft_targets`` [stream length − 1, V], a teacher's next-token distribution at each target of
the stream, replace the one-hot targets (word-level knowledge distillation: Hinton et al.
2015, Kim & Rush 2016); the loss −Σ_v q_v log p_M(v) is the KL to the teacher up to the
teacher's entropy. The distortion chapter's control trains on L's full conditionals so.

``precision="bfloat16"`` trains with mixed precision (Micikevicius et al. 2018) on a GPU:
matrix products run in bfloat16 under ``torch.autocast`` while the weights, the optimiser
state and the loss stay in float32. On the CPU it trains in float32: bfloat16 arithmetic there
runs on native instructions where a CPU has them and is emulated elsewhere, with other
rounding (and on an AVX2 CPU a step of the default Transformer took 26.8 s against 2.2 s in
float32), so only float32 gives the same weights on every CPU (:mod:`lmnotes.core.numerics`).
Models are always scored in float32.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from lmnotes.models.neural import NeuralLM
from lmnotes.core.progress import Timer, note


PRECISIONS = {"float32": None, "bfloat16": torch.bfloat16}


def _autocast(lm: NeuralLM, precision: str):
    dtype = PRECISIONS[precision]
    return torch.autocast(lm.device.type, dtype=dtype, enabled=dtype is not None and lm.device.type != "cpu")


@dataclass(frozen=True)
class TrainConfig:
    block: int = 128  # tokens per training sequence
    batch_size: int = 32  # sequences per step
    lr: float = 3e-3  # peak learning rate (AdamW), linear warm-up then cosine decay
    weight_decay: float = 0.01
    warmup: int = 50  # warm-up steps
    max_steps: int = 1000  # upper bound on optimiser steps
    max_epochs: int = 20
    eval_every: int = 100  # steps between validation evaluations (0: at each epoch's end)
    patience: int = 3  # evaluations without improvement before stopping
    clip: float = 1.0  # gradient-norm clipping
    precision: str = "float32"  # or "bfloat16": mixed-precision matmuls, float32 weights
    seed: int = 0

    def __post_init__(self):
        if self.precision not in PRECISIONS:
            raise ValueError(f"unknown precision {self.precision!r}; use one of {list(PRECISIONS)}")

    def asdict(self) -> dict:
        return asdict(self)


def _stream(lm: NeuralLM, texts: Sequence[str] | Sequence[Sequence[int]]) -> torch.Tensor:
    ids = [lm.bos_id]
    for t in texts:
        ids.extend(lm.encode(t) if isinstance(t, str) else map(int, t))
        ids.append(lm.eos_id)
    return torch.tensor(ids, dtype=torch.long)


def _blocks(stream: torch.Tensor, block: int) -> torch.Tensor:
    n = (len(stream) - 1) // block
    if n == 0:
        raise ValueError(f"the training text has {len(stream)} tokens, fewer than one block of {block + 1}")
    # blocks overlap by one token so that every token is a target exactly once
    return torch.stack([stream[i * block : i * block + block + 1] for i in range(n)])


class _CrossEntropy(torch.autograd.Function):
    """Mean cross-entropy of logits [N, V] against targets [N] (ids) or [N, V] (distributions
    q), with the gradient written out: d loss / d logits = (softmax(logits) − q) / N.

    Written by hand for speed: PyTorch's CPU backward of ``cross_entropy`` (through
    ``log_softmax``) took 368 ms of a 1.8 s training step of the `cpu` Transformer (logits
    [4096, 8000], profiled on the project's CPU); this backward is one exponential pass over the
    saved log-probabilities.
    """

    @staticmethod
    def forward(ctx, logits, targets):
        logp = torch.log_softmax(logits, -1)
        ctx.logp, ctx.targets = logp, targets
        if targets.dim() == 2:
            return -(targets * logp).sum(-1).mean()
        return -logp.gather(1, targets[:, None]).mean()

    @staticmethod
    def backward(ctx, grad):
        g = ctx.logp.exp_()  # the saved log-probabilities are not needed again: reuse them
        if ctx.targets.dim() == 2:
            g -= ctx.targets
        else:
            rows = torch.arange(len(g), device=g.device)
            g[rows, ctx.targets] -= 1.0
        g.mul_(grad / len(g))
        ctx.logp = None
        return g, None


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy (nats) of logits [..., V] against targets [...] (ids) or
    [..., V] (distributions)."""
    V = logits.shape[-1]
    flat = targets.reshape(-1, V).float() if targets.is_floating_point() else targets.reshape(-1)
    return _CrossEntropy.apply(logits.float().reshape(-1, V), flat)


@torch.no_grad()
def evaluate(lm: NeuralLM, blocks: torch.Tensor, batch_size: int = 64, precision: str = "float32") -> float:
    """Mean next-token cross-entropy (nats) over ``blocks`` [N, block + 1]."""
    lm.net.eval()
    total, count = 0.0, 0
    for a in range(0, len(blocks), batch_size):
        x = blocks[a : a + batch_size].to(lm.device)
        with _autocast(lm, precision):
            h, _ = lm.net.hidden(x[:, :-1])
            logits = lm.net.head(h)
        logits = logits.float()
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction="sum"
        )
        total, count = total + float(loss), count + x[:, 1:].numel()
    return total / count


def lr_factor(step: int, warmup: int, total: int) -> float:
    """The learning rate as a share of its peak after ``step`` updates of ``total``: a linear
    warm-up over ``warmup`` updates, then a cosine decay that reaches 0 at ``total``."""
    return min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(step, total) / total))


#: How far below the best validation loss so far a new one must fall to count as better.
IMPROVEMENT = 1e-4


def improves(valid: float, best: float) -> bool:
    """Whether a validation loss ``valid`` improves on ``best``: training keeps the weights
    of the last evaluation that does, and counts the others towards its patience."""
    return valid < best - IMPROVEMENT


def train(
    lm: NeuralLM,
    train_texts: Sequence[str],
    valid_texts: Sequence[str],
    config: TrainConfig = TrainConfig(),
    progress: bool | None = None,
    callback: Callable[[int, NeuralLM], dict | None] | None = None,
    soft_targets: torch.Tensor | None = None,
    stop_below: float | None = None,
) -> pd.DataFrame:
    """Train ``lm`` in place; return the history (step, epoch, train and valid loss, seconds,
    and what ``callback`` returned after each epoch). ``stop_below`` (nats per token) ends
    training at the first evaluation whose validation loss is at most it."""
    torch.manual_seed(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    # A block of block + 1 tokens feeds `block` inputs, positions 0 .. block - 1.
    block = min(config.block, lm.max_length)
    stream = _stream(lm, train_texts)
    train_blocks = _blocks(stream, block)
    if soft_targets is not None and soft_targets.shape != (len(stream) - 1, lm.vocab_size):
        raise ValueError(
            f"soft targets must be [{len(stream) - 1}, {lm.vocab_size}] (one distribution per "
            f"target of the training stream), got {list(soft_targets.shape)}"
        )
    valid_blocks = _blocks(_stream(lm, valid_texts), block)
    steps_per_epoch = math.ceil(len(train_blocks) / config.batch_size)
    total = min(config.max_steps, steps_per_epoch * config.max_epochs)
    opt = torch.optim.AdamW(lm.net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(s, config.warmup, total))
    history, best, best_state, bad, step, t0 = [], math.inf, None, 0, 0, time.perf_counter()
    reached = False
    # progress: True forces a bar, False hides it, None shows it on a terminal only (tqdm's
    # disable=None). The lines of lmnotes.core.progress are printed in every case.
    bar = tqdm(
        total=total, desc=f"training {lm.name}", unit="step", disable={True: False, False: True}.get(progress)
    )
    note(f"training {lm.name}: {total} steps of {config.batch_size} x {block} tokens on {lm.device.type}")
    timer = Timer(total)
    running = []
    for epoch in range(config.max_epochs):
        order = torch.randperm(len(train_blocks), generator=gen)
        for a in range(0, len(order), config.batch_size):
            lm.net.train()
            x = train_blocks[order[a : a + config.batch_size]].to(lm.device)
            with _autocast(lm, config.precision):
                h, _ = lm.net.hidden(x[:, :-1])
                logits = lm.net.head(h)
            if soft_targets is None:
                loss = cross_entropy(logits, x[:, 1:])
            else:  # block i's targets are stream positions i·block + 1 … i·block + block
                rows = order[a : a + config.batch_size, None] * block + torch.arange(block)
                loss = cross_entropy(logits, soft_targets[rows].to(lm.device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(lm.net.parameters(), config.clip)
            opt.step()
            sched.step()
            step += 1
            running.append(loss.item())
            bar.update(1)
            if step == min(10, total):
                note(f"training {lm.name}: about {timer.left(step)} to go")
            epoch_end = a + config.batch_size >= len(order) or step == total
            if (step % config.eval_every == 0 if config.eval_every else epoch_end) or step == total:
                valid = evaluate(lm, valid_blocks, precision=config.precision)
                history.append(
                    {
                        "step": step,
                        "epoch": epoch + 1,
                        "train_loss": float(np.mean(running)),
                        "valid_loss": valid,
                        "seconds": time.perf_counter() - t0,
                    }
                )
                running = []
                bar.set_postfix(valid=f"{valid:.3f}")
                note(
                    f"training {lm.name}: step {step}/{total}, valid loss {valid:.3f}, about {timer.left(step)} to go"
                )
                # a stop at a quality keeps the weights that reached it, even when they improve
                # on the best so far by less than IMPROVEMENT (a relative 1e-9 absorbs the
                # rounding of a loss converted from bits per byte and back)
                reached = stop_below is not None and valid <= stop_below * (1 + 1e-9)
                if improves(valid, best) or reached:
                    best, best_state, bad = valid, copy.deepcopy(lm.net.state_dict()), 0
                else:
                    bad += 1
            if step >= total or bad >= config.patience or reached:
                break
        if callback is not None:
            lm.net.eval()
            extra = callback(epoch + 1, lm) or {}
            if history and history[-1]["epoch"] == epoch + 1:
                history[-1].update(extra)
            else:
                history.append({"step": step, "epoch": epoch + 1, **extra})
        if step >= total or bad >= config.patience or reached:
            break
    bar.close()
    if best_state is not None:
        lm.net.load_state_dict(best_state)
    lm.net.eval()
    if lm.net.context:  # a network with learned positions (the LSTM has none)
        # Positions beyond the training blocks keep their random initial embeddings: the
        # model's window is what it was trained on (sliding windows cover longer strings).
        lm.max_length = min(lm.max_length, block)
    return pd.DataFrame(history)
