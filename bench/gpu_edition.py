"""The GPU edition's plan: what to carry to an accelerator machine, in which order to run the
chapters there, and what each step costs. Run here, by hand, never in CI.

    .venv/bin/python bench/gpu_edition.py plan              # the steps, their minutes, what to carry
    .venv/bin/python bench/gpu_edition.py wheels [--extra nltk wordfreq]   # .whl/ for that machine

The machine this plan is written for (an H100 or H200 lent to a development session) starts
bare, reaches no network, runs one command of at most 10 minutes at a time, takes at most
64 MiB of files with each command and gives back at most 64 MiB (16 MiB a file). Its Python
(3.12) has PyTorch, transformers, numpy, scipy, pandas, matplotlib and seaborn; the rest of what
the chapters import travels as wheels (``wheels``). Its disk keeps what a command wrote (the
installed wheels, the shared cache) only while the machine stays warm between commands, so
the plan runs the steps that share trained models back to back; when it has gone cold, the
next step retrains what it needs. That costs time, and on a GPU it gives other weights in the
last bits (cuDNN's attention backward is not deterministic), so the chapters of one edition
should come from one warm stretch where they can.

On the machine, each step is one command: ``bench/gpu_chapter.sh NAME ...`` (it installs the
wheels, executes the chapters at ``--profile gpu`` into ``book/gpu/`` and copies the pages and
their claims to the folder that comes back). Bring them into ``book/gpu/`` here, commit, then
``python -m lmnotes.book run at_scale`` and ``build``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEELS = ROOT / ".whl"
#: What the chapters import that the accelerator machine's image lacks (their own
#: dependencies follow); myst-nb is installed without its dependencies (the chapters use
#: only its glue, which needs none of them).
NEEDED = ["papermill", "jupytext", "ipykernel", "nbformat", "nbclient", "gensim", "mwparserfromhell",
          "pysbd", "sacremoses"]
NO_DEPS = ["myst-nb", "docutils"]
#: Packages the image already has (its package list, 2026-11): their wheels are not carried.
IMAGE_HAS = {
    "attrs", "certifi", "charset-normalizer", "click", "cloudpickle", "filelock", "fsspec", "idna", "jinja2",
    "joblib", "markdown-it-py", "markupsafe", "matplotlib", "mdurl", "numpy", "packaging", "pandas", "pillow",
    "psutil", "pygments", "python-dateutil", "pyyaml", "regex", "requests", "scipy", "seaborn",
    "six", "tqdm", "typing-extensions", "urllib3", "wrapt", "torch", "transformers", "tokenizers",
    "safetensors", "accelerate", "huggingface-hub", "sentencepiece",
}
#: The steps in order, what each does and what it costs on the accelerator: measured there
#: (an H200, 2026-11-26, a cold machine's start of about a minute not included) or not yet.
STEPS = [
    ("00_corpus", "parse, split and tokenize the corpus (CPU work, as in the CPU edition)",
     "46 s and 54 s in two measurements (cold cache; plus about 20 s to install the wheels once "
     "per machine)"),
    ("01_models", "train the six wiki/ models at the gpu size (Transformers d = 512, 8 layers; LSTM "
                  "d = 1024; at most 20 epochs) and score the whole test split",
     "4 min 9 s measured for the six self-trained models (cold); the page also needs the two GGUF "
     "models (94 and 245 MB), which exceed one command's 64 MiB: carry them in pieces of about 50 MB "
     "over consecutive commands while the machine stays warm, then run the whole chapter"),
    ("03_segmentation", "train the BPE sweep (char to BPE-32k, word) at the gpu size",
     "not finished in one command (H200, 2026-11-27, bench/results/h200-2026-11-27-buckets/"
     "gpu_edition_03.log): after 00 (54 s) and the wheels, 6 min trained char (2,460 steps, about "
     "2 min 8 s), byte (2,460, about 1 min 54 s), BPE-1k (980, 41 s) and BPE-4k (700, 29 s) and "
     "were inside BPE-8k; BPE-16k, BPE-32k, word and the scoring remain: more than one 8-minute "
     "slice, so the sweep needs fewer steps for char and byte, or two slices on a warm machine"),
    ("02_tendencies", "10,000 samples per model and strategy, 1,000 of each pretrained model", "not measured"),
    ("05_word_level", "whole-word prediction by the family, exact top-10 on 300 sentences; needs "
                      "WordNet's data and `wheels --extra nltk wordfreq gguf`", "not measured"),
    ("06_distortion", "N = 200,000 samples of L, four learners, three seeds, 10 epochs",
     "not measured; by the probe's step time (about 0.03 s for 64 x 256 tokens) each learner's "
     "10 epochs over 200,000 sequences take several minutes, so this chapter needs more than one "
     "10-minute command and a split of its learners across commands"),
    ("04_importance_sampling", "200 runs per proposal, K to 10^5", "not measured"),
]


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-")


def wheels(extra: list[str]) -> None:
    """Download, for CPython 3.12 on x86-64 Linux, the wheels of what the chapters need beyond
    the machine's image, at the versions of requirements.lock, into .whl/."""
    platforms = [f"--platform=manylinux_2_{n}_x86_64" for n in (17, 24, 26, 27, 28, 31, 34, 35)]
    common = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--python-version=3.12",
              "--implementation=cp", *platforms, "--platform=manylinux2014_x86_64", "--platform=manylinux1_x86_64",
              "-c", str(ROOT / "requirements.lock"), "-d", str(WHEELS)]
    WHEELS.mkdir(exist_ok=True)
    subprocess.run([*common, *NEEDED, *extra], check=True)
    subprocess.run([*common, "--no-deps", *NO_DEPS], check=True)
    for whl in WHEELS.glob("*.whl"):
        if _normalise(whl.name.split("-")[0]) in IMAGE_HAS:
            whl.unlink()
    size = sum(w.stat().st_size for w in WHEELS.glob("*.whl"))
    print(f"{len(list(WHEELS.glob('*.whl')))} wheels, {size / 2**20:.1f} MiB in {WHEELS.relative_to(ROOT)}/")


def plan() -> None:
    """Print the steps in order, with their minutes and what stays between them."""
    probe = ROOT / "bench" / "gpu_probe.json"
    measured = json.loads(probe.read_text()) if probe.is_file() else {}
    print("Each step is one command on the accelerator machine: bench/gpu_chapter.sh NAME\n")
    for i, (name, what, cost) in enumerate(STEPS, 1):
        print(f"{i}. {name}: {what}\n   {cost}")
    if measured:
        print("\nThe training step times behind the estimates (bench/gpu_probe.py, "
              f"{measured['device']}):")
        for model, row in measured["models"].items():
            print(f"  {model}: {row['seconds_per_step'] * 1e3:.0f} ms a step, {row['steps_per_epoch']} steps an "
                  f"epoch, at most {row['max_steps']} steps: at most {row['max_minutes']:.1f} min")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("plan", help="the steps in order, with their minutes")
    w = sub.add_parser("wheels", help="the wheels the accelerator machine lacks, into .whl/")
    w.add_argument("--extra", nargs="*", default=[], help="more packages (nltk wordfreq gguf for chapter 05)")
    args = parser.parse_args(argv)
    if args.command == "plan":
        plan()
    else:
        wheels(args.extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
