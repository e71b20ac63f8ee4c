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
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


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
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ParameterError(f"line {node.lineno} of the parameters cell is not `name = literal  # comment`")
        try:
            default = ast.literal_eval(node.value)
        except ValueError:
            raise ParameterError(f"parameter {node.targets[0].id!r} is not a literal (derive values in the "
                                 f"next cell, not in the parameters cell)") from None
        start = (node.value.lineno, _column(lines[node.value.lineno - 1], node.value.col_offset))
        end = (node.value.end_lineno, _column(lines[node.value.end_lineno - 1], node.value.end_col_offset))
        trailing = re.match(r"\s*#\s?(.*)$", lines[end[0] - 1][end[1]:])
        above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
        comment = (trailing.group(1).strip() if trailing else
                   above[1:].strip() if above.startswith("#") else "")
        out[node.targets[0].id] = Parameter(node.targets[0].id, default, comment, start, end)
    return out


def _column(line: str, offset: int) -> int:
    """The character index of a byte offset of ``ast`` (which counts UTF-8 bytes)."""
    return len(line.encode("utf-8")[:offset].decode("utf-8"))


# --------------------------------------------------------------------------------------------
# checks


Check = Callable[[Any], "str | None"]  # None if the value is fine, else what is wrong


def _at_least(low: float) -> Check:
    return lambda v: None if v >= low else f"must be at least {low}"


def _between(low: float, high: float, open_low: bool = False) -> Check:
    def check(v):
        ok = (low < v if open_low else low <= v) and v <= high
        return None if ok else f"must lie in {'(' if open_low else '['}{low}, {high}]"
    return check


def _each(check: Check) -> Check:
    def each(values):
        for i, v in enumerate(values):
            problem = check(v)
            if problem:
                return f"item {i} ({v!r}) {problem}"
        return None
    return each


def _one_of(allowed: Callable[[], list[str]]) -> Check:
    return lambda v: None if v in allowed() else f"must be one of {allowed()}"


def _fractions(v):
    if len(v) != 3 or any(not isinstance(x, (int, float)) or x <= 0 for x in v) or not math.isclose(sum(v), 1.0):
        return "must be three positive shares (train, valid, test) that sum to 1"
    return None


def _increasing(v):
    return None if all(a < b for a, b in zip(v, v[1:])) and v and v[0] >= 1 else \
        "must be positive and strictly increasing"


def _positive(v):
    return None if math.isfinite(v) and v > 0 else "must be a positive number"


def _containing(*required) -> Check:
    def check(v):
        missing = [r for r in required if r not in v]
        return f"must include {missing}" if missing else None
    return check


def _all(*checks: Check) -> Check:
    def check(v):
        return next((p for p in (c(v) for c in checks) if p), None)
    return check


def _sizes():
    from .models.trained import SIZES

    return list(SIZES)


def _strategies():
    from .sampling import STRATEGIES

    return list(STRATEGIES)


def _learners():
    from .language import LEARNERS

    return list(LEARNERS)


def _device(v):
    return None if v in ("cpu", "auto") or re.fullmatch(r"cuda(:\d+)?", v) else \
        "must be 'cpu', 'cuda' (or 'cuda:N') or 'auto'"


def _segmentation(v):
    m = re.fullmatch(r"bpe(\d+)", v)
    if v in ("char", "byte", "word") or (m and int(m.group(1)) >= 259):
        return None
    return "must be 'char', 'byte', 'word' or 'bpe<types>' with at least 259 types (bytes and specials)"


def _model(v):
    """A registered model, an existing local model folder or .gguf file, or an HF hub id."""
    from .models import names

    if v in names() or Path(v).is_dir() or (Path(v).is_file() and v.endswith(".gguf")):
        return None
    if v.startswith("wiki/"):
        return f"is not a registered model; the wiki/ models are {[n for n in names() if n.startswith('wiki/')]}"
    if "/" in v and not v.startswith((".", "/", "~")) and not Path(v).exists():
        return None  # an HF hub id: the chapter says what is wrong if there is no network
    return (f"is neither a registered model ({names()}) nor a local model folder or .gguf file "
            f"(looked for {Path(v).resolve()})")


def _corpus(v):
    from .corpus import EMBEDDED, HF_DATASETS

    if v == EMBEDDED or v in HF_DATASETS or Path(v).exists():
        return None
    return (f"is not {EMBEDDED!r} (the embedded corpus), an HF dataset id {sorted(HF_DATASETS)}, nor an existing "
            f".txt file or folder (looked for {Path(v).resolve()})")


#: Ranges and allowed values by parameter name, with what a reader of ``list`` is told. An
#: integer parameter that no rule names must be at least 0 (a count or a seed).
RULES: dict[str, tuple[Check, str]] = {
    "fractions": (_fractions, "3 positive shares summing to 1"),
    "size": (_one_of(_sizes), "a size of lmnotes.models.trained.SIZES"),
    "device": (_device, "cpu, cuda, cuda:N or auto"),
    "strategies": (_each(_one_of(_strategies)), "strategies of lmnotes.sampling"),
    "model_names": (_each(_model), "registered models, model folders or .gguf files"),
    "pretrained": (_each(_model), "registered models, model folders or .gguf files"),
    "corpus": (_corpus, "enwiki, an HF dataset id, or a .txt file or folder"),
    "segmentations": (_each(_segmentation), "char, byte, word or bpe<types>"),
    "open_model": (_segmentation, "a segmentation of the family"),
    "stride_model": (_segmentation, "a segmentation of the family"),
    "marginal_model": (_segmentation, "a segmentation of the family"),
    "top_p": (_between(0, 1, open_low=True), "(0, 1]"),
    "n_boot": (_at_least(2), "≥ 2"),
    "n_permutations": (_at_least(1), "≥ 1"),
    "calibration_permutations": (_at_least(1), "≥ 1"),
    "calibration_splits": (_at_least(1), "≥ 1"),
    "calibration_articles": (_at_least(1), "≥ 1"),
    "beam": (_at_least(1), "≥ 1"),
    "batch_size": (_at_least(1), "≥ 1"),
    "max_tokens": (_at_least(1), "≥ 1"),
    "max_tokens_pretrained": (_at_least(1), "≥ 1"),
    "sample_max_tokens": (_at_least(1), "≥ 1"),
    "max_rank": (_at_least(2), "≥ 2"),
    "rank_support": (_at_least(2), "≥ 2"),
    "top_types": (_at_least(1), "≥ 1"),
    "type_token_points": (_at_least(2), "≥ 2"),
    "speller_order": (_between(1, 4), "1 to 4"),
    "length_bins": (_increasing, "increasing, ≥ 1"),
    "power_sizes": (_increasing, "increasing, ≥ 1"),
    "power_repeats": (_at_least(1), "≥ 1"),
    "floor_repeats": (_at_least(1), "≥ 1"),
    "long_length": (_at_least(1), "≥ 1"),
    "stride_fractions": (_each(_between(0, 1, open_low=True)), "each in (0, 1]"),
    "stride_pretrained_window": (_at_least(2), "≥ 2"),
    "n_is_samples": (_at_least(1), "≥ 1"),
    "is_sweep": (_increasing, "increasing, ≥ 1"),
    "n_coverage_runs": (_at_least(2), "≥ 2"),
    "is_stay": (_between(0, 1), "[0, 1]"),
    "is_explore": (_between(0, 1), "[0, 1]"),
    "max_segmentations": (_at_least(1), "≥ 1"),
    "max_marginal_bytes": (_at_least(1), "≥ 1"),
    "small_unigram_tvd": (_between(0, 1, open_low=True), "(0, 1]"),
    "close_length_ks": (_between(0, 1, open_low=True), "(0, 1]"),
    "negligible_share": (_between(0, 1, open_low=True), "(0, 1]"),
    "negligible_share_alt": (_between(0, 1, open_low=True), "(0, 1]"),
    "components": (_each(_model), "registered models sharing one vocabulary"),
    "tokenization_models": (_each(_model), "registered models, model folders or .gguf files"),
    "cache_mu": (_positive, "> 0"),
    "em_iterations": (_at_least(1), "≥ 1"),
    "stickiness": (_between(0, 0.999), "[0, 0.999]"),
    "temperatures": (_all(_each(_positive), _containing(1.0)), "each > 0, 1 among them"),
    "peek_horizons": (_all(_each(_at_least(0)), _containing(0, 1, 2)), "each ≥ 0, with 0, 1 and 2"),
    "n_runs": (_at_least(2), "≥ 2"),
    "k_runs": (_at_least(2), "≥ 2"),
    "k_max": (_at_least(100), "≥ 100"),
    "beam_sizes": (_increasing, "increasing, ≥ 1"),
    "kglm_samples_per_batch": (_at_least(1), "≥ 1"),
    "n_words": (_at_least(1), "≥ 1"),
    "word_letters": (lambda v: None if len(v) == 2 and 1 <= v[0] <= v[1] else
                     "must be [fewest, most] letters, 1 ≤ fewest ≤ most", "[fewest, most]"),
    "n_is": (_at_least(2), "≥ 2"),
    "n_ancestral": (_at_least(1), "≥ 1"),
    "sentence_models": (_each(_model), "registered models, model folders or .gguf files"),
    "n_sentences_tokenization": (_at_least(1), "≥ 1"),
    "max_sentence_bytes": (_at_least(1), "≥ 1"),
    "k_reference": (_at_least(100), "≥ 100"),
    "tok_runs": (_at_least(2), "≥ 2"),
    "n_coverage": (_at_least(10), "≥ 10"),
    "block_sizes": (_all(_increasing, lambda v: None if v and v[0] == 1 else "must start at 1 (sentences)"),
                    "increasing, from 1"),
    "n_tau_grid": (_at_least(3), "≥ 3"),
    "law_stickiness": (_all(_each(_between(0, 0.999)), lambda v: None if v else "must hold at least one ρ"),
                       "each in [0, 0.999]"),
    "n_law_sentences": (_at_least(0), "≥ 0 (0: all)"),
    "n_smc_runs": (_at_least(2), "≥ 2"),
    "smc_resample": (_between(0, 1), "[0, 1]"),
    "converged_gap": (_between(0, 1, open_low=True), "(0, 1]"),
    "bias_removed": (_between(0, 1, open_low=True), "(0, 1]"),
    "overlap_shared": (_between(0, 1, open_low=True), "(0, 1]"),
    "approx_share": (_between(0, 1, open_low=True), "(0, 1]"),
    "family": (_all(_each(_segmentation), lambda v: None if v else "must name at least one segmentation"),
               "char, byte, word or bpe<types>, at least one"),
    "others": (_each(_model), "registered models"),
    "exact_models": (_each(_segmentation), "segmentations of the family"),
    "encoder_model": (_model, "a pretrained transformers model (smollm2-135m, gemma3-270m)"),
    "max_word_tokens": (_at_least(1), "≥ 1"),
    "dfs_depth": (_at_least(1), "≥ 1"),
    "soft_k": (_increasing, "increasing, ≥ 1"),
    "w2v_epochs": (_at_least(1), "≥ 1"),
    "w2v_min_count": (_at_least(1), "≥ 1"),
    "n_chance": (_at_least(1), "≥ 1"),
    "n_triples": (_at_least(2), "≥ 2"),
    "rare_zipf": (_between(0, 8), "a Zipf frequency, 0 to 8"),
    "common_zipf": (_between(0, 8), "a Zipf frequency, 0 to 8"),
    "similar_share": (_between(0, 1), "[0, 1] (0: from the paper's readings)"),
    "size_compare": (_each(_segmentation), "segmentations of the family"),
    "equal_points": (_between(0, 100, open_low=True), "(0, 100] percentage points"),
    "language": (_segmentation, "a segmentation of chapter 03's family"),
    "temperature": (_positive, "> 0"),
    "n_train": (_at_least(1), "≥ 1"),
    "n_valid": (_at_least(1), "≥ 1"),
    "n_test": (_at_least(22), "≥ 22 (two bins of more than 10)"),
    "n_real": (_at_least(1), "≥ 1"),
    "learners": (_all(_each(_one_of(_learners)), lambda v: None if v else "must name at least one learner"),
                 "learners of lmnotes.language.LEARNERS, at least one"),
    "learner_seeds": (lambda v: None if v else "must hold at least one seed", "at least one seed"),
    "epochs": (_at_least(1), "≥ 1"),
    "data_sizes": (_increasing, "increasing, ≥ 1"),
    "size_patience": (_at_least(1), "≥ 1"),
    "teacher_draws": (_at_least(0), "≥ 0 (0: skip)"),
    "n_watch": (_at_least(20), "≥ 20"),
    "n_strata": (_at_least(2), "≥ 2"),
    "language_temperatures": (_all(_each(_positive), lambda v: None if len(v) >= 2 else "must hold at least two"),
                              "each > 0, at least two"),
    "n_train_temperature": (_at_least(1), "≥ 1"),
    "n_test_temperature": (_at_least(22), "≥ 22"),
    "n_bins": (_at_least(2), "≥ 2"),
    "n_perturb": (_at_least(1), "≥ 1"),
    "perturb_levels": (lambda v: None if v and v[0] == 0 and all(a < b for a, b in zip(v, v[1:])) else
                       "must start at 0 and be strictly increasing", "increasing, from 0"),
    "n_random": (_at_least(1), "≥ 1"),
    "n_reverse": (_at_least(1), "≥ 1"),
    "prefix_lengths": (_increasing, "increasing, ≥ 1"),
    "size_margin": (_between(0, 1), "[0, 1] (0: the paper's own GPT2-small → medium gain)"),
    "temperature_seeds": (lambda v: None if v else "must hold at least one seed", "at least one seed"),
    "lnre_acceleration": (_positive, "> 0"),
    "linear_margin": (_between(0, 1, open_low=True), "(0, 1]"),
    "near_zero_nats": (_positive, "> 0"),
    "lnre_share": (_between(0, 1, open_low=True), "(0, 1]"),
    "level_margin": (_between(0, 1, open_low=True), "(0, 1]"),
    "pretrained_language": (lambda v: None if v == "" else _model(v), "a pretrained model, or empty to skip"),
    "n_train_pretrained": (_at_least(1), "≥ 1"),
    "n_test_pretrained": (_at_least(22), "≥ 22"),
}
#: Parameters whose strings may name files or folders, resolved against the caller's directory.
PATHS = ("corpus", "model_names", "pretrained")


def _type_problem(p: Parameter, value: Any) -> str | None:
    kind = p.kind
    if kind == "any":
        return None
    if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return None
    if kind != "float" and _kind(value) == kind:
        if kind == "list" and p.item_kind != "any":
            bad = [x for x in value if not (_kind(x) == p.item_kind or p.item_kind == "float" and _kind(x) == "int")]
            if bad:
                return f"must be a list of {p.item_kind} values, got {bad[0]!r} in {value!r}"
        return None
    return f"must be {'a number' if kind == 'float' else 'an integer' if kind == 'int' else 'a ' + kind}, " \
           f"got {value!r} ({type(value).__name__})"


def rule_of(p: Parameter) -> tuple[Check, str] | None:
    """The range check of a parameter and what it allows: its rule in :data:`RULES`, else, for
    an integer, at least 0."""
    return RULES.get(p.name, (_at_least(0), "≥ 0") if p.kind == "int" else None)


def check(notebook: str, declared: dict[str, Parameter], values: dict[str, Any]) -> None:
    """Raise :class:`ParameterError` if a value has the wrong type or lies outside its range.

    Every type is checked before any range, so that a misspelt value fails at once (the
    ranges of model names and sizes import the model registry).
    """
    problems = [f"{name} {problem}" for name, value in values.items()
                if (problem := _type_problem(declared[name], value))]
    if not problems:
        for name, value in values.items():
            rule = rule_of(declared[name])
            if rule and (problem := rule[0](value)):
                problems.append(f"{name}={value!r} {problem}")
    if problems:
        raise ParameterError(f"{notebook}: " + "; ".join(problems))


def resolve_paths(values: dict[str, Any], cwd: str | os.PathLike) -> dict[str, Any]:
    """``values`` with each relative path of a :data:`PATHS` parameter that exists under ``cwd``
    made absolute (the notebook runs in another directory); other strings are left alone."""
    def resolve(v):
        if isinstance(v, list):
            return [resolve(x) for x in v]
        if isinstance(v, str) and v and not os.path.isabs(v):
            path = Path(cwd) / Path(v).expanduser()
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
        lines[l0 - 1:l1] = new
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")
