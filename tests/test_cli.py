"""The command line meets bad input with one clear line and exit code 2, before any work
starts, and leaves book/ exactly as it was."""

import hashlib
import json
import os
import subprocess
import sys
import time

import pytest

from lmnotes.book import run as book
from lmnotes.core.io import ROOT


def _snapshot():
    return {
        str(p.relative_to(book.BOOK)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(book.BOOK.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def book_unchanged():
    before = _snapshot()
    yield
    assert _snapshot() == before, "book/ changed"


def cli(*args, cwd=ROOT, env=None):
    """Run ``python -m lmnotes.book ARGS`` as a user would (stderr is a pipe, not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "lmnotes.book", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )


def _error_line(result):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr.split("\n", 1)[0]
    assert "\x1b[" not in result.stderr  # no colour codes when stderr is not a terminal
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: ")
    return first


def test_bad_yaml_after_p_is_one_error_line(book_unchanged):
    first = _error_line(cli("run", "00_corpus", "-p", "fractions", "[0.5,"))
    assert "-p fractions '[0.5,': not a valid YAML value" in first
    assert "Traceback" not in cli("run", "00_corpus", "-p", "fractions", "[0.5,").stderr


def test_a_value_of_the_wrong_type_fails_before_anything_is_imported_or_run(book_unchanged):
    # in a fresh interpreter, as from the shell: the check needs neither PyTorch nor papermill
    code = (
        "import sys; from lmnotes.book import run as book; rc = book.main(['run', '00_corpus', '-p', 'n_samples', 'abc']);"
        "print(rc, 'torch' in sys.modules, 'papermill' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.split() == ["2", "False", "False"], result.stderr
    assert "error: 00_corpus: n_samples must be an integer, got 'abc' (str)" in result.stderr


def test_a_value_out_of_range_fails_before_the_corpus_is_parsed(tmp_path, book_unchanged):
    result = cli("run", "00_corpus", "-p", "fractions", "[0.5, 0.5]", env={"LMNOTES_CACHE": str(tmp_path)})
    first = _error_line(result)
    assert "fractions=[0.5, 0.5] must be three positive shares (train, valid, test) that sum to 1" in first
    assert not list(tmp_path.iterdir())  # nothing prepared, nothing cached


def test_a_missing_relative_path_names_where_it_was_looked_for(tmp_path, book_unchanged):
    first = _error_line(cli("run", "00_corpus", "-p", "corpus", "no_such_folder", cwd=tmp_path))
    assert f"(looked for {tmp_path / 'no_such_folder'})" in first


def test_a_relative_corpus_path_is_the_callers_and_its_error_comes_first(tmp_path, book_unchanged):
    """A folder given relative to where the command runs is found (not looked up under book/),
    and the corpus's own message is the first line, on one line, before the traceback: a file
    that is not UTF-8 text is named. (Three documents, too few for three splits, are refused
    before the notebook runs: test_a_folder_with_too_few_documents_is_refused_at_once.)"""
    docs = tmp_path / "texts"
    docs.mkdir()
    for i in range(8):
        (docs / f"{i}.txt").write_text(f"Document number {i} has a few words in it. " * 5 + "\n")
    (docs / "latin1.txt").write_bytes(b"Caf\xe9 au lait is a drink. " * 5)
    result = cli(
        "run",
        "00_corpus",
        "-p",
        "corpus",
        "texts",
        cwd=tmp_path,
        env={"LMNOTES_CACHE": str(tmp_path / "cache")},
    )
    first = _error_line(result)
    assert first == (
        f"error: 00_corpus: CorpusError: {docs / 'latin1.txt'} is not UTF-8 text (byte b'\\xe9' "
        "at line 1); convert it, e.g. `iconv -f latin1 -t utf-8`"
    )
    assert "unknown corpus source" not in result.stderr
    assert "without encryption" not in result.stderr and "IPKernelApp" not in result.stderr  # a quiet kernel


def test_a_folder_with_too_few_documents_is_refused_at_once(tmp_path, book_unchanged):
    """7 documents leave the valid split empty (0.8, 0.1, 0.1 of 7 rounds to 6, 0, 1): the
    notebook failed after 17 s with a 44-line traceback; now one line, before anything runs."""
    docs = tmp_path / "texts"
    docs.mkdir()
    for i in range(7):
        (docs / f"{i}.txt").write_text(f"Document number {i} has a few words in it.\n")
    result = cli(
        "run",
        "00_corpus",
        "-p",
        "corpus",
        "texts",
        cwd=tmp_path,
        env={"LMNOTES_CACHE": str(tmp_path / "cache")},
    )
    assert _error_line(result) == (
        f"error: 00_corpus: corpus='{docs}' holds 7 .txt files with text; splitting "
        "it by fractions [0.8, 0.1, 0.1] needs at least 8, to give each of train, "
        "valid and test one"
    )
    assert len(result.stderr.splitlines()) == 1 and not (tmp_path / "cache").exists()


def test_unknown_names_are_errors(book_unchanged):
    assert "unknown notebook(s) ['99_none']" in _error_line(cli("run", "99_none"))
    assert "unknown parameter(s) ['n_sample']" in _error_line(cli("run", "00_corpus", "-p", "n_sample", "3"))
    assert "unknown profile 'nope'" in _error_line(cli("run", "--profile", "nope"))
    first = _error_line(cli("run", "01_models", "-p", "model_names", "[wiki/transformer-bpe9k]"))
    assert "model_names" in first and "not a registered model" in first


def test_list_shows_every_parameter_whole_within_100_columns():
    """`list` was 254 columns wide and cut values: now a block per notebook, each parameter as in
    its cell, wrapped to 100 columns, and nothing cut."""
    from lmnotes.book import params

    result = cli("list")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 100
    assert "  n_samples = 6  # sample sentences shown from the training split" in lines  # 00_corpus
    assert "  fractions = [0.8, 0.1, 0.1]  # shares of articles in train, valid and test" in lines
    assert "      allowed: 3 positive shares summing to 1" in lines
    flat = " ".join(result.stdout.split())
    for name in book.notebook_names():
        for p in book.parameters(name).values():  # every default and comment whole (some wrapped)
            assert " ".join(f"{p.name} = {params._literal(p.default)}".split()) in flat, (name, p.name)
            assert " ".join(p.comment.split()) in flat, (name, p.name)
    assert (
        'gpu profile: ["byte", "bpe1000", "bpe4000", "bpe8000", "bpe16000", "bpe32000", "word"]'
    ) in flat  # a profile's long list, whole
    assert "{'" not in result.stdout and "':" not in result.stdout  # no dict reprs


def test_progress_lines_reach_the_console_not_the_notebook(tmp_path, monkeypatch):
    """A kernel's progress note goes to the file LMNOTES_PROGRESS names (the runner's console),
    and nothing of it to the notebook's outputs."""
    import nbformat

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "params").mkdir()
    (tmp_path / "notebooks" / "00_toy.py").write_text(
        '# %% tags=["parameters"]\nx = 1  # a number\n\n# %%\nfrom lmnotes.core import progress\n'
        'progress.note("training something")\nprint(x)\n'
    )
    (tmp_path / "params" / "default.yaml").write_text("notebooks: {}\n")
    for attr in ("NOTEBOOKS", "BOOK", "PARAMS"):
        monkeypatch.setattr(book, attr, tmp_path / attr.lower())
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LMNOTES_PROGRESS", str(tmp_path / "console.log"))
    book.run()
    assert (tmp_path / "console.log").read_text() == "lmnotes: training something\n"
    nb = nbformat.read(tmp_path / "book" / "00_toy.ipynb", as_version=4)
    assert json.dumps(nb.cells[1].outputs).count("training something") == 0


def test_the_runner_relays_progress_lines_to_its_console(tmp_path, monkeypatch, capsys):
    from lmnotes.core import progress

    monkeypatch.delenv("LMNOTES_PROGRESS", raising=False)
    with progress.relay():
        for i in range(3):  # as a kernel writes them: opening the file named by the variable
            progress.note(f"line {i}")
    err = capsys.readouterr().err
    assert err == "lmnotes: line 0\nlmnotes: line 1\nlmnotes: line 2\n"
    assert "LMNOTES_PROGRESS" not in os.environ


def test_ctrl_c_is_one_line(monkeypatch, capsys):
    import logging
    import threading

    monkeypatch.setattr(threading, "excepthook", threading.excepthook)  # restored after the test
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    for name in ("asyncio", "traitlets", "papermill", "nbclient"):
        monkeypatch.setattr(logging.getLogger(name), "level", logging.getLogger(name).level)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(book, "run", interrupted)
    assert book.main(["run", "00_corpus"]) == 130
    err = capsys.readouterr().err
    assert err.startswith("interrupted (Ctrl-C): ") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    # what the kernel's client says as it is torn down after the line is not printed
    logging.getLogger("asyncio").error(
        "Task exception was never retrieved", exc_info=RuntimeError("DeadKernelError")
    )
    worker = threading.Thread(target=lambda: 1 / 0)
    worker.start()
    worker.join()
    assert capsys.readouterr().err == ""


def test_the_runners_timings_survive_a_prune():
    from lmnotes.core import cache

    assert "timings.json" in cache.FILES  # registered by the runner, so prune keeps it


def test_a_model_the_chapter_cannot_use_is_refused_at_once(book_unchanged):
    """Each model parameter takes the kinds of model its chapter can use (self-trained wiki/
    models, pretrained ones), and the check comes before anything runs: chapter 02 with
    SmolLM2 alone sampled for 12 minutes before it failed."""
    t0 = time.perf_counter()
    first = _error_line(cli("run", "02_tendencies", "-p", "model_names", "[smollm2-135m]"))
    assert "must include a self-trained model" in first
    assert "is a self-trained model; this parameter takes pretrained models" in _error_line(
        cli("run", "03_segmentation", "-p", "pretrained", "[wiki/kn3-word]")
    )
    assert "is a pretrained model; this parameter takes self-trained models" in _error_line(
        cli("run", "05_word_level", "-p", "others", "[smollm2-135m]")
    )
    assert time.perf_counter() - t0 < 60


def test_a_gpu_that_is_not_there_is_refused_at_once(book_unchanged):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    t0 = time.perf_counter()
    first = _error_line(cli("run", "01_models", "-p", "device", "cuda"))
    assert "device='cuda' asks for a GPU, and this machine has none" in first
    assert time.perf_counter() - t0 < 30


def test_cache_export_and_import_from_the_command_line(tmp_path):
    env = {"LMNOTES_CACHE": str(tmp_path / "empty")}
    # an empty cache exports nothing (an archive every import would refuse) ...
    assert "holds no entry to share" in _error_line(
        cli("cache", "--export", str(tmp_path / "c.tar.gz"), env=env)
    )
    assert not (tmp_path / "c.tar.gz").exists()
    # ... and an archive with no entry is refused, not "imported 0 entries" with exit code 0
    import tarfile

    (tmp_path / "readme.txt").write_text("a tar archive, but no cache\n")
    with tarfile.open(tmp_path / "c.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "readme.txt", arcname="readme.txt")
    assert "it holds no cache entry" in _error_line(
        cli("cache", "--import", str(tmp_path / "c.tar.gz"), env={"LMNOTES_CACHE": str(tmp_path / "b")})
    )
    assert "--import nope.tar.gz: no such file" in _error_line(
        cli("cache", "--import", "nope.tar.gz", env=env)
    )
    (tmp_path / "notes.txt").write_text("not an archive\n")  # was a tarfile traceback and exit code 1
    assert _error_line(cli("cache", "--import", str(tmp_path / "notes.txt"), env=env)) == (
        f"error: --import {tmp_path / 'notes.txt'}: not a cache archive (the .tar.gz that `cache --export` "
        "writes); it is no tar archive"
    )


def test_a_file_that_is_no_gguf_model_is_refused_in_a_moment(tmp_path, book_unchanged):
    """A text file named fake.gguf passed the check (03 then trained for 36 minutes), and a
    model's refusal took 16-22 s of PyTorch and transformers imports: its header is read first,
    and neither library is imported."""
    (tmp_path / "fake.gguf").write_text("hello, I am text\n")
    code = (
        "import sys, time; t0 = time.perf_counter(); from lmnotes.book import run as book\n"
        "try:\n    book.resolve_parameters(['03_segmentation'], 'default', {'pretrained': ['fake.gguf']})\n"
        "except book.BookError as exc:\n    print(exc)\n"
        "print(round(time.perf_counter() - t0, 1), 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    error, timing = result.stdout.splitlines()
    assert error == (
        f"03_segmentation: pretrained=['{tmp_path / 'fake.gguf'}'] item 0 ('{tmp_path / 'fake.gguf'}') "
        "is not a GGUF model file: it begins with b'hell', not b'GGUF'"
    ), result.stderr
    seconds, torch_loaded, transformers_loaded = timing.split()
    assert (torch_loaded, transformers_loaded) == ("False", "False") and float(seconds) < 10
    assert "is not a GGUF model file" in _error_line(
        cli("run", "03_segmentation", "-p", "pretrained", "[fake.gguf]", cwd=tmp_path)
    )


def test_the_gpu_profile_is_refused_on_a_machine_without_a_gpu(tmp_path, monkeypatch, capsys, book_unchanged):
    """`run 01_models --profile gpu` on a CPU went on (device auto) for hours without a word:
    it is refused with this CPU's last time where one is recorded, and --allow-cpu runs it."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))
    assert book.main(["run", "01_models", "--profile", "gpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "error: --profile gpu sizes the chapters for an accelerator, and this machine has "
        "none that PyTorch can use: it has not run here at gpu, and 01_models at the "
        "default profile, several times smaller, takes "
    )
    assert "add --allow-cpu" in err and len(err.splitlines()) == 1
    (tmp_path / "timings.json").write_text(
        json.dumps(
            {"01_models [profile=gpu]": {"cold": {"seconds": 9000, "date": "2026-11-27", "built": {}}}}
        )
    )
    assert book.main(["run", "01_models", "--profile", "gpu"]) == 2
    assert (
        f"its last cold run of 01_models here took {book.progress.duration(9000)}" in capsys.readouterr().err
    )

    def past_the_check(*args, **kwargs):  # what run() does next: nothing is executed here
        raise book.BookError("past the check")

    monkeypatch.setattr(book, "notebook_names", past_the_check)
    assert book.main(["run", "01_models", "--profile", "gpu", "--allow-cpu"]) == 2
    assert capsys.readouterr().err == "error: past the check\n"


def test_a_model_or_corpus_that_cannot_load_is_refused_before_the_kernel_starts(tmp_path, book_unchanged):
    """An empty folder, a folder with only config.json, a text file that begins with "GGUF", an
    HF hub id that cannot be reached offline and an HF dataset without the `datasets` package
    were accepted (or, for the last, failed in the kernel with a 55-line traceback): each is
    one error line and exit code 2, naming the parameter the user set."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "config.json").write_text('{"model_type": "llama"}')
    (tmp_path / "noweights").mkdir()
    (tmp_path / "noweights" / "config.json").write_text('{"model_type": "llama"}')
    (tmp_path / "noweights" / "model.safetensors").write_bytes(b"")
    (tmp_path / "text.gguf").write_text("GGUF is a file format\n")
    offline = {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    expected = {
        "empty": "is a folder without a config.json, not a Hugging Face model folder",
        "conf": "is a model folder without weights",
        "noweights": "is a model folder without a tokenizer",
        "text.gguf": "is not a GGUF model file: it begins with b'GGUF', but the 4 bytes after it",
        "nobody/no-such-model": "is an HF hub id that is not in this machine's Hugging Face cache, and "
        "HF_HUB_OFFLINE is set",
    }
    for value, says in expected.items():
        first = _error_line(
            cli("run", "03_segmentation", "-p", "pretrained", f"[{value}]", cwd=tmp_path, env=offline)
        )
        assert first.startswith("error: 03_segmentation: pretrained=") and says in first, first
    import importlib.util

    if importlib.util.find_spec("datasets") is None:
        first = _error_line(cli("run", "00_corpus", "-p", "corpus", "wikitext-2-raw-v1", env=offline))
        assert "corpus='wikitext-2-raw-v1' is an HF dataset id, which needs the `datasets` package" in first
    first = _error_line(cli("run", "05_word_level", "-p", "family", "[byte, word]"))
    assert (
        "family=['byte', 'word'] leaves out" in first
        and "which exact_models=" in first
        and "(not set with -p)" in first
    )
