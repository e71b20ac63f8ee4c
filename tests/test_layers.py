"""The package's layers, as ARCHITECTURE.md draws them: import-linter's contracts in
pyproject.toml (layers, independent studies, no circles) hold."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "Contracts: 3 kept, 0 broken." in done.stdout


def test_every_study_declares_its_parameters_and_the_runner_learns_them():
    import pkgutil

    import lmnotes.studies
    from lmnotes.book import params

    studies = [m.name for m in pkgutil.iter_modules(lmnotes.studies.__path__)]
    assert sorted(studies) == ["distortion", "importance", "segmentation", "tendencies", "words"]
    for name in studies:
        declared = __import__(f"lmnotes.studies.{name}", fromlist=["PARAMETERS"]).PARAMETERS
        assert declared and all(params.RULES[k] is rule for k, rule in declared.items())
    assert params.RULES["learners"](["nonsense"])  # the distortion study's rule, refused
    assert params.RULES["learners"](["tf-small"]) is None


def test_the_cache_listing_knows_every_kind_any_module_registers(tmp_path):
    # in a fresh process: an entry of a kind that no imported module registers is pruned
    (tmp_path / "corpus" / "demo--k1").mkdir(parents=True)  # not empty: an empty cache answers at once
    code = (
        "from lmnotes.book import run; run.cache_report(); from lmnotes.core import cache; "
        "print(' '.join(sorted(cache.KINDS)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "LMNOTES_CACHE": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [
        "calibration",
        "corpus",
        "draws",
        "latent",
        "paraphrase",
        "pretrained",
        "samples",
        "scores",
        "trained",
        "word2vec",
        "wordnet",
        "words",
    ]
