"""A chapter's parameters: what its cell tagged ``parameters`` declares, how a value given on
the command line or in a profile is checked before anything runs, and how the values used are
written back into that cell. Used by the runner (:mod:`lmnotes.book`) for every chapter.

A parameters cell holds plain literals with a trailing comment each (nanoGPT's configuration
style)::

    n_boot = 1000  # bootstrap resamples per interval

The literal's type is the parameter's type: an ``int`` parameter takes an integer, a ``float``
one any number, a ``str`` one a string, a ``list`` one a list whose items have the type of the
default's items. :data:`RULES` adds the ranges and the allowed values, by parameter name (a
name means the same thing in every chapter). Paths given by the user (a corpus folder, a model
file) are resolved against the directory the command was run from, not the notebook's.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import os
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmnotes.core import checks


class ParameterError(ValueError):
    """A parameter value that the chapter cannot take; the message says which and why."""


@dataclass(frozen=True)
class Parameter:
    """One assignment of a parameters cell."""

    name: str
    default: Any
    comment: str
    start: tuple[int, int]  # (line, character) of the value's first character, 1-based line
    end: tuple[int, int]  # (line, character) just past its last character

    @property
    def kind(self) -> str:
        """The type a value must have: bool, int, float, str, list or any."""
        return _kind(self.default)

    @property
    def item_kind(self) -> str:
        """For a list parameter, the type of its items (from the default's; str if empty)."""
        kinds = {_kind(x) for x in self.default} if isinstance(self.default, list) else set()
        return kinds.pop() if len(kinds) == 1 else "str" if not kinds else "any"


def _kind(value: Any) -> str:
    for kind in (bool, int, float, str, list):  # bool before int: True is an int to Python
        if isinstance(value, kind):
            return kind.__name__
    return "any"


def parse(source: str) -> dict[str, Parameter]:
    """The parameters declared by the source of a parameters cell, in order.

    Every statement must assign a literal to one name; the comment is the one that ends the
    assignment (or, for a value too long for one line, the one on the line above it).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ParameterError(f"the parameters cell is not valid Python: {exc}") from None
    lines = source.splitlines()
    out = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            raise ParameterError(
                f"line {node.lineno} of the parameters cell is not `name = literal  # comment`"
            )
        try:
            default = ast.literal_eval(node.value)
        except ValueError:
            raise ParameterError(
                f"parameter {node.targets[0].id!r} is not a literal (derive values in the "
                f"next cell, not in the parameters cell)"
            ) from None
        start = (node.value.lineno, _column(lines[node.value.lineno - 1], node.value.col_offset))
        end = (node.value.end_lineno, _column(lines[node.value.end_lineno - 1], node.value.end_col_offset))
        trailing = re.match(r"\s*#\s?(.*)$", lines[end[0] - 1][end[1] :])
        above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
        comment = (
            trailing.group(1).strip() if trailing else above[1:].strip() if above.startswith("#") else ""
        )
        out[node.targets[0].id] = Parameter(node.targets[0].id, default, comment, start, end)
    return out


def _column(line: str, offset: int) -> int:
    """The character index of a byte offset of ``ast`` (which counts UTF-8 bytes)."""
    return len(line.encode("utf-8")[:offset].decode("utf-8"))


# --------------------------------------------------------------------------------------------
# the book's own rules (a study's rules are in lmnotes.studies.<study>.PARAMETERS)


def _sizes():
    from lmnotes.models.trained import SIZES

    return list(SIZES)


def _device(v):
    """cpu, auto, or a CUDA device that this machine has (asked before anything runs: a chapter
    that found out after converting a model failed only after minutes)."""
    m = re.fullmatch(r"cuda(?::(\d+))?", v)
    if v in ("cpu", "auto"):
        return None
    if not m:
        return "must be 'cpu', 'cuda' (or 'cuda:N') or 'auto'"
    import torch

    if not torch.cuda.is_available():
        return "asks for a GPU, and this machine has none that PyTorch can use; use 'cpu' or 'auto'"
    if m.group(1) is not None and int(m.group(1)) >= torch.cuda.device_count():
        return f"names a GPU this machine lacks (it has {torch.cuda.device_count()})"
    return None


def _corpus(v):
    from lmnotes.text.corpus import EMBEDDED, HF_DATASETS

    if v in HF_DATASETS:
        return _hf_dataset(v)
    if v == EMBEDDED or Path(v).exists():
        return None
    return (
        f"is not {EMBEDDED!r} (the embedded corpus), an HF dataset id {sorted(HF_DATASETS)}, nor an existing "
        f".txt file or folder (looked for {Path(v).resolve()})"
    )


def _hf_dataset(v):
    """An HF dataset id needs the ``datasets`` package (not among the book's own dependencies) and
    the dataset in this machine's cache or a hub that answers: both asked before the kernel
    starts, where a missing package was a 55-line traceback from the chapter's first cell."""
    import importlib.util

    if importlib.util.find_spec("datasets") is None:
        return (
            "is an HF dataset id, which needs the `datasets` package, not installed here "
            "(.venv/bin/pip install datasets; offline, use 'enwiki' or a folder of .txt files)"
        )
    from huggingface_hub import dataset_info, try_to_load_from_cache

    from lmnotes.text.corpus import HF_DATASETS

    name = HF_DATASETS[v][0]
    if isinstance(try_to_load_from_cache(name, "README.md", repo_type="dataset"), str):
        return None
    try:
        dataset_info(name, timeout=10)
    except Exception as exc:  # no network, no such dataset
        return (
            f"is an HF dataset that cannot be reached ({type(exc).__name__}) and is not in this "
            f"machine's Hugging Face cache; offline, use 'enwiki' or a folder of .txt files"
        )
    return None


#: The ranges and allowed values of the parameters that several chapters declare (or the
#: corpus and models chapters), by name, with what a reader of ``list`` is told.
COMMON: dict[str, checks.Check] = {
    "fractions": checks.fractions,
    "size": checks.one_of(_sizes, "lmnotes.models.trained.SIZES"),
    "device": checks.Check(_device, "cpu, cuda, cuda:N or auto"),
    "model_names": checks.each(checks.model),
    "pretrained": checks.each(checks.model_of("pretrained")),
    "corpus": checks.Check(_corpus, "enwiki, an HF dataset id, or a .txt file or folder"),
    "n_boot": checks.at_least(2),
    "n_permutations": checks.at_least(1),
    "max_tokens": checks.at_least(1),
    "sample_max_tokens": checks.at_least(1),
    "type_token_points": checks.at_least(2),
    "speller_order": checks.between(1, 4),
    "max_segmentations": checks.at_least(1),
}


def study_rules() -> dict[str, checks.Check]:
    """Every study's own rules (``lmnotes.studies.<study>.PARAMETERS``): the runner learns them
    from the studies, and a name two studies declare must be one rule."""
    import lmnotes.studies

    rules: dict[str, checks.Check] = {}
    for info in pkgutil.iter_modules(lmnotes.studies.__path__):
        declared = importlib.import_module(f"lmnotes.studies.{info.name}").PARAMETERS
        for name, rule in declared.items():
            if name in COMMON or (name in rules and rules[name] is not rule):
                raise ParameterError(
                    f"the parameter {name!r} has a rule in two places ({info.name} and "
                    f"{'the book' if name in COMMON else 'another study'}); keep one"
                )
            rules[name] = rule
    return rules


#: Ranges and allowed values by parameter name (a name means the same thing in every
#: chapter). An integer parameter that no rule names must be at least 0 (a count or a seed).
RULES: dict[str, checks.Check] = {**COMMON, **study_rules()}
#: Parameters whose strings may name files or folders (a corpus, models), resolved against the
#: caller's directory, ``~`` expanded, and looked at before any rule runs (:func:`check`).
PATHS = (
    "corpus",
    "model_names",
    "pretrained",
    "tokenization_models",
    "sentence_models",
    "pretrained_language",
)


def _type_problem(p: Parameter, value: Any) -> str | None:
    kind = p.kind
    if kind == "any":
        return None
    if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return None
    if kind != "float" and _kind(value) == kind:
        if kind == "list" and p.item_kind != "any":
            bad = [
                x
                for x in value
                if not (_kind(x) == p.item_kind or p.item_kind == "float" and _kind(x) == "int")
            ]
            if bad:
                return f"must be a list of {p.item_kind} values, got {bad[0]!r} in {value!r}"
        return None
    return (
        f"must be {'a number' if kind == 'float' else 'an integer' if kind == 'int' else 'a ' + kind}, "
        f"got {value!r} ({type(value).__name__})"
    )


#: Rules that hold in one notebook only, where a name counts rows a page shows (a table of
#: 14,000 sample sentences makes a 34 MB notebook) rather than what the name counts elsewhere.
NOTEBOOK_RULES: dict[tuple[str, str], checks.Check] = {
    ("00_corpus", "n_samples"): checks.between(0, 200).noting("rows shown"),
    ("01_models", "n_samples"): checks.between(0, 50).noting("samples shown per model"),
    ("01_models", "model_names"): checks.all_of(
        checks.each(checks.model),
        checks.or_empty(
            checks.including(
                "self-trained",
                "the chapter ranks the models trained here against the others "
                "([] takes every registered model)",
            ),
            "every registered model",
        ),
    ),
    ("01_models", "leave_out"): checks.each(checks.registered),
    ("03_segmentation", "segmentations"): checks.all_of(
        checks.each(checks.segmentation),
        checks.containing("word", why="the closed vocabulary is measured on the word model"),
    ),
    ("02_tendencies", "model_names"): checks.all_of(
        checks.each(checks.model),
        checks.including(
            "self-trained",
            "the chapter measures every model against the models trained on "
            "its corpus (their bias and the human floor use them)",
        ),
    ),
}
#: Rules between two parameters of one notebook: the value of the first (a name, or a list
#: of names) must lie in the list that the second holds.
WITHIN: dict[str, tuple[tuple[str, str], ...]] = {
    "03_segmentation": (
        ("open_model", "segmentations"),
        ("stride_model", "segmentations"),
        ("marginal_model", "segmentations"),
    ),
    "05_word_level": (("exact_models", "family"), ("size_compare", "family")),
}
#: No count in this book needs more: larger values run for days or make notebooks of
#: gigabytes. Seeds are exempt.
MAX_COUNT = 10_000_000


def rule_of(p: Parameter, notebook: str | None = None) -> checks.Check | None:
    """The range check of a parameter and what it allows: its rule in ``notebook``
    (:data:`NOTEBOOK_RULES`), else in :data:`RULES`, else, for an integer, at least 0."""
    if (notebook, p.name) in NOTEBOOK_RULES:
        return NOTEBOOK_RULES[notebook, p.name]
    return RULES.get(p.name, checks.at_least(0) if p.kind == "int" else None)


def _too_large(name: str, value: Any) -> str | None:
    """A count beyond :data:`MAX_COUNT`, alone or in a list (seeds are exempt)."""
    if "seed" in name:
        return None
    counts = value if isinstance(value, list) else [value]
    big = [v for v in counts if isinstance(v, int) and not isinstance(v, bool) and v > MAX_COUNT]
    return f"is larger than any count this book needs (at most {MAX_COUNT:,})" if big else None


def check(
    notebook: str, declared: dict[str, Parameter], values: dict[str, Any], set_by_user: set[str] | None = None
) -> None:
    """Raise :class:`ParameterError` if a value has the wrong type or lies outside its range;
    ``set_by_user`` (the ``-p`` names; by default every value given) decides which parameter a
    message about two that must agree starts from.

    Every type is checked before any range, so that a misspelt value fails at once (the
    ranges of model names and sizes import the model registry, which imports PyTorch: seconds),
    and the files that values name are looked at before any range (:func:`_files`).
    """
    problems = [
        f"{name} {problem}"
        for name, value in values.items()
        if (problem := _type_problem(declared[name], value))
    ]
    if not problems:
        problems += _files(declared, values)
    if not problems:
        for name, value in values.items():
            rule = rule_of(declared[name], notebook)
            if rule and (problem := rule(value)) or (problem := _too_large(name, value)):
                problems.append(f"{name}={value!r} {problem}")
    if not problems:
        problems += _outside(notebook, declared, values, set(values) if set_by_user is None else set_by_user)
    if problems:
        raise ParameterError(f"{notebook}: " + "; ".join(problems))


def _files(declared: dict[str, Parameter], values: dict[str, Any]) -> list[str]:
    """What is wrong with the files that the :data:`PATHS` values name, found on disk alone: a
    ``.gguf`` model that is missing or whose header is not GGUF's
    (:func:`lmnotes.core.checks.gguf_file`), a corpus file or folder with too few documents to
    give each split one (the notebook found out after preparing it, with a traceback)."""
    problems = []
    for name in (n for n in PATHS if n in values):
        items = values[name] if isinstance(values[name], list) else [values[name]]
        for i, v in enumerate(items):
            if isinstance(v, str) and v.endswith(".gguf") and (problem := checks.gguf_file(v)):
                where = f" item {i} ({v!r})" if isinstance(values[name], list) else ""
                problems.append(f"{name}={values[name]!r}{where} {problem}")
    if isinstance(values.get("corpus"), str) and (problem := _too_few_documents(declared, values)):
        problems.append(f"corpus={values['corpus']!r} {problem}")
    return problems


def _too_few_documents(declared: dict[str, Parameter], values: dict[str, Any]) -> str | None:
    """For a corpus given as a ``.txt`` file or folder: whether it holds documents enough for
    its split fractions (the notebook's ``fractions``, else those of
    :func:`lmnotes.text.corpus.load`) to give train, valid and test one each."""
    import inspect

    from lmnotes.text import corpus

    path = Path(values["corpus"])
    if values["corpus"] == corpus.EMBEDDED or values["corpus"] in corpus.HF_DATASETS or not path.exists():
        return None  # not a file or folder, or not there: the corpus rule says so
    fractions = values.get(
        "fractions",
        declared["fractions"].default
        if "fractions" in declared
        else inspect.signature(corpus.load).parameters["fractions"].default,
    )
    if checks.fractions(fractions):
        return None  # the fractions' own rule refuses them
    needed = documents_needed(fractions)
    found = count_documents(path, needed)
    if found >= needed:
        return None
    what = ".txt files with text" if path.is_dir() else "documents (blocks of text between blank lines)"
    return (
        f"holds {found} {what}; splitting it by fractions {list(fractions)} needs at least {needed}, "
        f"to give each of train, valid and test one"
    )


def documents_needed(fractions: list[float]) -> int:
    """The fewest documents from which :func:`lmnotes.text.corpus.assign_splits` gives every
    split one or more, and so does any larger number (rounding leaves a split of a few smaller
    counts empty: 7 documents at [0.8, 0.1, 0.1] leave valid empty, 8 do not). From 2 / (the
    smallest fraction) documents on, every split's share is two or more and rounds to one or
    more, so the count goes down from there."""

    def fills(n: int) -> bool:
        # where assign_splits ends each split: the cumulative fractions of n, rounded
        bounds = [0] + [round(n * sum(fractions[: k + 1])) for k in range(len(fractions))]
        return all(b > a for a, b in zip(bounds, bounds[1:]))

    n = math.ceil(2 / min(fractions))
    while n > 1 and fills(n - 1):
        n -= 1
    return n


def count_documents(path: Path, enough: int) -> int:
    """How many documents the ``.txt`` file or folder ``path`` gives
    :func:`lmnotes.text.corpus.load` (a folder's ``.txt`` files with text one each, a file's
    blocks of text between blank lines one each), counted up to ``enough``: a check reads no
    more of a large corpus than it needs."""
    found = 0
    if path.is_dir():
        for f in path.rglob("*.txt"):
            found += f.is_file() and f.stat().st_size > 0
            if found >= enough:
                break
        return found
    inside = False
    with open(path, "rb") as fh:
        for line in fh:
            found += bool(line.strip()) and not inside
            inside = bool(line.strip())
            if found >= enough:
                break
    return found


def _outside(
    notebook: str, declared: dict[str, Parameter], values: dict[str, Any], set_by_user: set[str]
) -> list[str]:
    """The :data:`WITHIN` rules of ``notebook`` that its values (over the defaults) break."""
    now = {name: p.default for name, p in declared.items()} | values
    problems = []
    for name, pool in WITHIN.get(notebook, ()):
        chosen = now[name] if isinstance(now[name], list) else [now[name]]
        if not (missing := [v for v in chosen if v not in now[pool]]):
            continue
        if name in set_by_user or pool not in set_by_user:
            problems.append(f"{name}={now[name]!r} names {missing}, not in {pool}={now[pool]!r}")
        else:  # the user set the pool alone: the message starts from what they set
            problems.append(
                f"{pool}={now[pool]!r} leaves out {missing}, which {name}={now[name]!r} (not set "
                f"with -p) needs; add them to {pool}, or set {name} to members of it"
            )
    return problems


def resolve_paths(values: dict[str, Any], cwd: str | os.PathLike | None = None) -> dict[str, Any]:
    """``values`` with each string of a :data:`PATHS` parameter that starts with ``~`` expanded
    to the home folder (whether or not it exists: a missing ``~/x.gguf`` is reported as
    missing in the home folder, not under the current one) and, given ``cwd``, each relative
    path that exists under ``cwd`` made absolute (the notebook runs in another directory);
    other strings (model names, ``enwiki``) are left alone."""

    def resolve(v):
        if isinstance(v, list):
            return [resolve(x) for x in v]
        if isinstance(v, str) and v.startswith("~"):
            return os.path.expanduser(v)
        if isinstance(v, str) and v and cwd is not None and not os.path.isabs(v):
            path = Path(cwd) / v
            if path.exists():
                return str(path.resolve())
        return v

    return {k: resolve(v) if k in PATHS else v for k, v in values.items()}


def _literal(value: Any) -> str:
    """Python source of a parameter value, in the cells' style (double-quoted strings)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a Python string literal
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def _wrapped(value: Any, indent: int, width: int) -> str:
    """The literal of ``value``, its list items wrapped to lines of at most ``width``
    characters, continuation lines aligned after the bracket at column ``indent``."""
    text = _literal(value)
    if not isinstance(value, list) or indent + len(text) <= width:
        return text
    lines, line = [], "["
    for i, item in enumerate(_literal(v) for v in value):
        piece = item + ("," if i < len(value) - 1 else "]")
        if len(line) > 1 and indent + len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = " " * (indent + 1) + piece
        else:
            line += (" " if len(line) > 1 and not line.endswith("[") else "") + piece
    return "\n".join(lines + [line])


def write_into(source: str, values: dict[str, Any], width: int = 76) -> str:
    """The parameters cell's ``source`` with the values of ``values`` written in place of the
    defaults, each keeping its comment, so that the executed notebook shows one parameters cell
    holding the values that were used. A value too long for its line moves its comment to the
    line above and wraps."""
    declared = parse(source)
    lines = source.splitlines()
    # replace from the bottom up so that earlier positions stay valid
    for p in sorted((declared[k] for k in values if k in declared), key=lambda p: p.start, reverse=True):
        if values[p.name] == p.default and type(values[p.name]) is type(p.default):
            continue
        (l0, c0), (l1, c1) = p.start, p.end
        head, tail = lines[l0 - 1][:c0], lines[l1 - 1][c1:]
        comment = re.match(r"\s*#\s?(.*)$", tail)
        new = (head + _literal(values[p.name]) + tail).splitlines()
        if len(new[0]) > width:  # too long for one line: the comment goes above it
            above = [f"# {comment.group(1)}"] if comment else []
            new = above + (head + _wrapped(values[p.name], len(head), width)).splitlines()
        lines[l0 - 1 : l1] = new
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")
