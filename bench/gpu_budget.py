"""What each chapter costs at the gpu profile on one H200, from a bare machine: set-up (wheels,
corpus), GGUF conversions and the training the chapter does, from training step times
measured there, so that ``params/gpu.yaml`` can be sized to the 8-minute slice of one command
on the accelerator (``bench/gpu_edition.py plan`` prints it). The chapter's scoring, sampling
and statistics were not measured at ``gpu`` and are not counted: what the plan prints is the
floor of a chapter's minutes and the room left for the rest.

Every constant says where it comes from. Until a chapter has run at ``gpu`` on the card, its
row is an estimate; its measured minutes replace it in ``bench/gpu_edition.py``'s ``MEASURED``.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from pathlib import Path

#: The slice: one chapter from a bare machine, after its transfers.
SLICE_S = 8 * 60

#: Set-up on the H200 (2026-11-26/27): the corpus, parsed, split and tokenized in the chapter
#: that first needs it (00_corpus took 46 s and 54 s), and the wheels installed (42 MiB in 5 s;
#: with the models' packages, about 20 s).
SETUP_S = {"corpus": 54, "wheels": 20}
#: Converting a GGUF file to float32 weights (CPU work; 20-60 s on this project's 2 cores,
#: not measured on the accelerator machine's 16): the upper figure.
CONVERT_S = {"smollm2-135m": 60, "gemma3-270m": 60}

#: Where the step times come from: chapter 03 at the gpu profile of 2026-11-27 on an H200 (20
#: epochs, an evaluation every 500 steps), and the probe of single training steps.
LOG = Path(__file__).resolve().parent / "results" / "h200-2026-11-27-buckets" / "gpu_edition_03.log"
PROBE = Path(__file__).resolve().parent / "gpu_probe.json"
_PROGRESS = re.compile(
    r"training wiki/transformer-(\w+): step (\d+)/(\d+), valid loss [\d.]+, about (.+) to go"
)


def _seconds(text: str) -> float:
    """``1 min 42 s`` -> 102."""
    units = {"h": 3600, "min": 60, "s": 1}
    parts = text.split()
    return float(sum(float(n) * units[u] for n, u in zip(parts[::2], parts[1::2])))


def measured_steps(log: str) -> dict[str, tuple[int, float]]:
    """Per segmentation in a chapter's training log, its steps (20 epochs) and seconds a step:
    the last progress line before the end says how long the steps left will take at the mean
    rate so far (lmnotes.core.progress.Timer), evaluations included."""
    out = {}
    for seg, done, total, left in _PROGRESS.findall(log):
        done, total = int(done), int(total)
        if done < total:
            out[{"bpe8k": "bpe8000"}.get(seg, seg)] = (total, _seconds(left) / (total - done))
    return out


_MEASURED = measured_steps(LOG.read_text())
_PROBE = json.loads(PROBE.read_text())["models"]
#: The epochs the log's runs were planned for (its steps are 20 epochs' worth).
EPOCHS_MEASURED = 20


@functools.lru_cache(maxsize=None)
def steps_per_epoch(segmentation: str) -> int:
    """Optimiser steps per epoch over the enwiki training split at the gpu size, counted with
    the segmenter the chapters train (as lmnotes.models.train streams it: BOS, then each
    sentence and an EOS, cut into blocks): the H200 log's 2,460 steps of 20 epochs for byte,
    980 for BPE-1k and 700 for BPE-4k are 123, 49 and 35 an epoch."""
    from lmnotes.text import corpus, segment

    config = _project()[0].SIZES["gpu"]["train"]
    texts = corpus.load()["train"].sentences
    kind, types = ("bpe", int(segmentation[3:])) if segmentation.startswith("bpe") else (segmentation, None)
    seg = segment.train(kind, texts, vocab_size=types)
    tokens = 1 + sum(len(seg.encode(t)) + 1 for t in texts)
    return math.ceil((tokens - 1) // config.block / config.batch_size)


#: Seconds a step inside a chapter on the H200, evaluations included: measured for char, byte,
#: BPE-1k and BPE-4k (the log); BPE-8k and word at the mean of BPE-1k's and BPE-4k's; BPE-16k
#: and BPE-32k 5 % and 15 % above (larger output layers: an assumption); the LSTM by the
#: probe's ratio of its step to the BPE-8k Transformer's.
STEP_S = {s: r for s, (_, r) in _MEASURED.items()}
STEP_S["bpe8000"] = STEP_S["word"] = (STEP_S["bpe1000"] + STEP_S["bpe4000"]) / 2
STEP_S |= {
    "bpe16000": 1.05 * STEP_S["bpe8000"],
    "bpe32000": 1.15 * STEP_S["bpe8000"],
    "lstm": STEP_S["bpe8000"]
    * _PROBE["wiki/lstm-bpe8k"]["seconds_per_step"]
    / _PROBE["wiki/transformer-bpe8k"]["seconds_per_step"],
}
#: Chapter 06's learners (block 128, batch 64): seconds a step, extrapolated from the probe's
#: 34 ms for the gpu-size Transformer at 64 x 256 tokens by tokens and width; not measured.
LEARNER_STEP_S = {
    "tf-large": 0.020,
    "tf-medium": 0.010,
    "tf-small": 0.006,
    "tf-tiny": 0.005,
    "lstm-large": 0.016,
    "lstm": 0.006,
}
#: Tokens per sample of L (BPE-8k at T = 0.85), EOS included: the CPU edition's BPE-1k
#: samples average 41 tokens; BPE-8k's words take fewer. An assumption, not a measurement.
L_TOKENS = 30
#: Chapter 04's runs per proposal draw latent paths in numpy on the CPU, whatever the device:
#: 2.6 minutes per 50 runs on this project's 2 cores (README, *What the sample size costs*),
#: taken as the accelerator host's too (its cores are not slower; numpy draws on one).
RUNS_S_PER_RUN = 2.6 * 60 / 50


def _project():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from lmnotes.models import trained
    from lmnotes.studies.distortion import language

    return trained, language


def max_epochs() -> int:
    """The gpu size's epochs at most (lmnotes.models.trained.SIZES; early stopping may end
    sooner)."""
    return _project()[0].SIZES["gpu"]["train"].max_epochs


def train_s(segmentation: str, epochs: float | None = None, arch: str = "transformer") -> float:
    """Seconds to train one gpu-size model over ``segmentation`` for ``epochs`` (the gpu
    size's at most, by default)."""
    step = STEP_S["lstm"] if arch == "lstm" else STEP_S[segmentation]
    return steps_per_epoch(segmentation) * (max_epochs() if epochs is None else epochs) * step


def _learner_s(learner: str, sequences: float, epochs: float) -> float:
    config = _project()[1].TRAINING["gpu"]
    return sequences * L_TOKENS / (config.block * config.batch_size) * epochs * LEARNER_STEP_S[learner]


def _seg(name: str) -> str:
    """``bpe8000`` from ``wiki/transformer-bpe8k`` or ``bpe8000``."""
    tail = name.rsplit("-", 1)[-1]
    return {"bpe8k": "bpe8000"}.get(tail, tail)


def training(chapter: str, v: dict) -> dict[str, float]:
    """The seconds of training the chapter does at the gpu values ``v`` (its parameters), by
    what is trained."""
    if chapter.startswith("01_"):
        return {
            "Transformers over bytes, BPE-8k, words": sum(train_s(s) for s in ("byte", "bpe8000", "word")),
            "LSTM (BPE-8k)": train_s("bpe8000", arch="lstm"),
        }
    if chapter.startswith("02_"):
        wiki = [m for m in v["model_names"] if m.startswith("wiki/") and "gram" not in m]
        return {m: train_s(_seg(m), arch="lstm" if "lstm" in m else "transformer") for m in wiki}
    if chapter.startswith("03_"):
        return {f"{s} Transformer": train_s(s) for s in v["segmentations"]}
    if chapter.startswith("04_"):
        wiki = {
            m
            for m in [*v["components"], *v["tokenization_models"], *v["sentence_models"]]
            if m.startswith("wiki/transformer")
        }
        return {m: train_s(_seg(m)) for m in sorted(wiki)}
    if chapter.startswith("05_"):
        out = {f"{s} Transformer": train_s(s) for s in v["family"]}
        again = v["family"] if v["epochs_all"] else ["byte"]
        # a one-pass run, its probe at the level, and a bisection of shorter annealed runs
        out["one-pass and equal-bpb runs"] = sum(train_s(s, epochs=v["equal_epochs"]) for s in again) * 4
        return out
    if chapter.startswith("06_"):
        main, *others = v["learners"]
        seeds = len(v["learner_seeds"])  # every seed repeats the comparisons of claims 3, 6 and 7
        lstm = [m for m in others if m.startswith("lstm")][:1]
        # a probe on the full set's schedule and an annealed run (at most as long) per size
        sizes = seeds * sum(_learner_s(m, n, v["epochs"]) * 2 for m in [main, *lstm] for n in v["data_sizes"])
        temps = (  # an early-stopped probe and an annealed run (at most as long) each
            2
            * len(v["language_temperatures"])
            * len(v["temperature_seeds"])
            * _learner_s(main, v["n_train_temperature"], v["epochs"])
        )
        out = {
            "L (BPE-8k Transformer)": train_s(_seg(v["language"])),
            f"main learner {main}, {seeds} seeds": seeds * _learner_s(main, v["n_train"], v["epochs"]),
            f"other learners, {seeds} seeds": seeds
            * sum(_learner_s(m, v["n_train"], v["epochs"]) for m in others),
            "smaller N, a probe and an annealed run each": sizes,
            "temperature sweep, a probe and an annealed run each": temps,
            "distillation control (1.5x a run)": 1.5
            * _learner_s(main, v["n_train"], v["epochs"])
            * v["distill"],
            "teacher draws": v["teacher_draws"] * _learner_s(main, v["n_train"], v["epochs"]),
        }
        if v["pretrained_language"]:  # a 49k-type output layer: twice a step
            out["learner on the pretrained L"] = 2 * _learner_s(main, v["n_train_pretrained"], v["epochs"])
        return out
    return {}


def pretrained(v: dict) -> list[str]:
    """The registered pretrained models among the values ``v``."""
    found = {
        x
        for value in v.values()
        for x in (value if isinstance(value, list) else [value])
        if isinstance(x, str) and x in CONVERT_S
    }
    return [m for m in CONVERT_S if m in found]


def floor(chapter: str, v: dict, pretrained_models: list[str]) -> dict[str, float]:
    """Set-up, conversions, training (and chapter 04's draws, CPU work measured here): the
    seconds a chapter needs besides its scoring, sampling and statistics."""
    out = {"wheels": SETUP_S["wheels"]}
    if not chapter.startswith("00_"):
        out["corpus"] = SETUP_S["corpus"]
    out |= {f"convert {m}": CONVERT_S[m] for m in pretrained_models}
    out |= {f"train {k}": s for k, s in training(chapter, v).items() if s}
    if chapter.startswith("04_"):
        out["draw the runs (CPU)"] = v["n_runs"] * RUNS_S_PER_RUN
    return out
