"""Style by tool: ruff's linter and formatter pass over the package, its tests, benchmarks and
set-up ([tool.ruff] in pyproject.toml); the chapters are laid out for the page
(tests/test_teaching_code.py)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).with_name("ruff")


def test_ruff_finds_nothing_to_lint():
    done = subprocess.run([str(RUFF), "check", "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_ruff_format_would_change_nothing():
    done = subprocess.run(
        [str(RUFF), "format", "--check", "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, "run `.venv/bin/ruff format`:\n" + done.stdout[-3000:] + done.stderr[-2000:]


def test_ruff_covers_the_package():
    # a configuration that matched no file would pass the two tests above
    done = subprocess.run(
        [str(RUFF), "check", "--no-cache", "--show-files"], cwd=ROOT, capture_output=True, text=True
    )
    files = done.stdout
    assert "lmnotes/core/checks.py" in files and "tests/test_style.py" in files, files[:500]
    assert "notebooks/" not in files


def test_a_function_of_more_than_eight_parameters_says_why():
    """A function that takes more than 8 parameters says how many and why in its docstring
    ("(10 parameters: ...)"), so that a wide call is a choice, seen again when it grows."""
    import ast

    wide = []
    for path in sorted((ROOT / "lmnotes").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                n = len([x for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")])
                if n > 8 and f"({n} parameters: " not in " ".join((ast.get_docstring(node) or "").split()):
                    wide.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({n})")
    assert not wide, wide
