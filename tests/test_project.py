"""Project files agree with each other: pins, the CI script, the README's commands."""

import re
import tomllib

import yaml

from lmnotes.core.io import ROOT
from lmnotes.core.progress import duration


def _pins(lines):
    return {re.split(r"==", l)[0].lower(): l.split("==")[1] for l in lines if "==" in l}


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


def test_the_readmes_times_are_the_status_records():
    """The README states no time of its own: its table is book/status.json's, which the status
    page shows (it once said 49 min cold where the status page said 54 min 25 s)."""
    from lmnotes.book import run as book, timing

    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index(timing.README_BEGIN):readme.index(timing.README_END) + len(timing.README_END)]
    assert block == timing.readme_table(timing.status_record(book.BOOK), book.chapter_names())
    total = sum(timing.status_record(book.BOOK)["notebooks"][n]["cold"]["seconds"] for n in book.chapter_names())
    assert f"about {duration(total)} |" in block
