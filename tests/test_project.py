"""Project files agree with each other: pins, the CI script, the README's commands."""

import re
import tomllib

import yaml

from lmnotes.core.io import ROOT


def _pins(lines):
    return {re.split(r"==", line)[0].lower(): line.split("==")[1] for line in lines if "==" in line}


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + project["optional-dependencies"]["test"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert sorted(p for p in pip if "==" in p) == sorted(declared)
    assert "-e ." in pip
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    assert project["requires-python"] == ">=" + python.split("=")[1]


def test_lock_agrees_with_direct_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    direct = _pins(project["dependencies"] + project["optional-dependencies"]["test"])
    locked = _pins((ROOT / "requirements.lock").read_text().splitlines())
    for name, version in direct.items():
        assert locked.get(name.replace("_", "-")) == version or locked.get(name) == version, name


def test_readme_and_ci_commands():
    readme = (ROOT / "README.md").read_text()
    assert "make book" in readme and "make test" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def test_the_readme_says_what_the_claims_files_found_and_stays_short():
    """The README's findings are the claims tables' (``python -m lmnotes.book readme``), so they
    cannot go stale; it stays a newcomer's page of at most 10 KB, without commit hashes, dates
    or times of its own (those are the status page's and the CHANGELOG's)."""
    from lmnotes.book import findings, run as book

    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index(findings.BEGIN) : readme.index(findings.END) + len(findings.END)]
    assert block == findings.block(book.BOOK)
    assert len(readme.encode()) <= 10_000, len(readme.encode())
    commit = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
    assert not commit.search(readme), commit.search(readme)
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", readme)
    assert not re.search(r"\b\d+ (?:min|h)\b", readme), "a time: link the status page instead"
