"""Checks of parameter values, for the rules by which the runner refuses a bad value before
anything runs (:mod:`lmnotes.book.params`). The book's own rules and each study's
(``lmnotes.studies.<study>.PARAMETERS``) are built from these. Every chapter.

A check (:class:`Check`) takes a value and returns ``None`` if it is fine, else what is wrong
with it, in words that follow the parameter's name ("n_boot=1 must be at least 2"), and says
what it allows, in words written from its own arguments.
"""

from __future__ import annotations

import importlib
import math
import os
import re
from pathlib import Path
from typing import Any, Callable


class Check:
    """A parameter's rule: called with a value, ``None`` if it is fine, else what is wrong with
    it; ``str()`` of it says what it allows, as ``book list`` shows it, written from the
    check's own arguments (``at_least(2)`` allows "≥ 2"), as scikit-learn's parameter
    constraints describe themselves. ``allows`` may be a function, for a list known only once
    a heavy module is imported (the model registry)."""

    def __init__(self, test: Callable[[Any], "str | None"], allows: "str | Callable[[], str]"):
        self.test, self._allows = test, allows

    def __call__(self, value: Any) -> str | None:
        return self.test(value)

    def __str__(self) -> str:
        return self._allows() if callable(self._allows) else self._allows

    def noting(self, what: str) -> "Check":
        """The same check, with ``what`` said after what it allows ("≥ 0 (0: all)")."""
        return Check(self.test, lambda: f"{self} ({what})")


def at_least(low: float) -> Check:
    return Check(lambda v: None if v >= low else f"must be at least {low}", f"≥ {low}")


def between(low: float, high: float, open_low: bool = False) -> Check:
    interval = f"{'(' if open_low else '['}{low}, {high}]"

    def check(v):
        ok = (low < v if open_low else low <= v) and v <= high
        return None if ok else f"must lie in {interval}"

    return Check(check, f"in {interval}")


def each(check: Check) -> Check:
    def each(values):
        for i, v in enumerate(values):
            problem = check(v)
            if problem:
                return f"item {i} ({v!r}) {problem}"
        return None

    return Check(each, lambda: f"each {check}")


def one_of(allowed: Callable[[], list[str]], among: str) -> Check:
    """A value among ``allowed()``, called when a value is checked (the list may need a heavy
    import, which ``book list`` does not make: it says where the values come from, ``among``)."""
    return Check(lambda v: None if v in allowed() else f"must be one of {allowed()}", f"one of {among}")


def nonempty(what: str) -> Check:
    return Check(lambda v: None if v else f"must hold at least one {what}", f"at least one {what}")


def at_least_items(n: int) -> Check:
    return Check(lambda v: None if len(v) >= n else f"must hold at least {n} values", f"at least {n} of them")


def starting_at(first: Any) -> Check:
    return Check(lambda v: None if v and v[0] == first else f"must start at {first}", f"starting at {first}")


fractions = Check(
    lambda v: (
        "must be three positive shares (train, valid, test) that sum to 1"
        if len(v) != 3
        or any(not isinstance(x, (int, float)) or x <= 0 for x in v)
        or not math.isclose(sum(v), 1.0)
        else None
    ),
    "3 positive shares summing to 1",
)

increasing = Check(
    lambda v: (
        None
        if all(a < b for a, b in zip(v, v[1:])) and v and v[0] >= 1
        else "must be positive and strictly increasing"
    ),
    "increasing, ≥ 1",
)

ascending = Check(
    lambda v: None if all(a < b for a, b in zip(v, v[1:])) else "must be strictly increasing",
    "strictly increasing",
)

positive = Check(lambda v: None if math.isfinite(v) and v > 0 else "must be a positive number", "> 0")


def containing(*required, why: str = "") -> Check:
    """A list holding every one of ``required``; ``why`` says what the chapter needs them for."""

    def check(v):
        missing = [r for r in required if r not in v]
        return (
            (f"must include {', '.join(map(str, missing))}" + (f" ({why})" if why else ""))
            if missing
            else None
        )

    names = [str(r) for r in required]
    return Check(
        check,
        "including " + (" and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]),
    )


def or_empty(check: Check, meaning: str) -> Check:
    """``check``, or an empty value, which means ``meaning``."""
    return Check(lambda v: None if not v else check(v), lambda: f"{check}, or empty ({meaning})")


def all_of(*checks: Check) -> Check:
    def check(v):
        return next((p for p in (c(v) for c in checks) if p), None)

    return Check(check, lambda: ", ".join(map(str, checks)))


def deferred(target: str, allows: str) -> Check:
    """The check ``"package.module:function"``, imported when first used, so that a value
    that fails a cheap check is refused before a heavy package (the model registry) loads."""

    def check(v):
        module, name = target.split(":")
        return getattr(importlib.import_module(module), name)(v)

    return Check(check, allows)


#: What a GGUF file begins with: these four bytes, then its format version (a uint32).
GGUF_MAGIC = b"GGUF"


def gguf_file(v: str | os.PathLike) -> str | None:
    """``None`` if ``v`` is a file that begins as a GGUF model file does (the magic bytes
    ``GGUF``, then a version that the ``gguf`` library reads); else what was found instead.
    Only the first 8 bytes are read: ``gguf.GGUFReader`` would map the file and parse the
    record of every tensor (seconds for a model of gigabytes), where the header alone tells a
    text file named ``.gguf`` from a model, before anything loads."""
    path = Path(v).expanduser()
    if not path.is_file():
        return f"is not a file (looked for {path.resolve()})"
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if head[:4] != GGUF_MAGIC:
        return (
            "is not a GGUF model file: it is empty"
            if not head
            else f"is not a GGUF model file: it begins with {head[:4]!r}, not {GGUF_MAGIC!r}"
        )
    if len(head) < 8:
        return f"is not a GGUF model file: it ends inside its header ({len(head)} bytes)"
    from gguf.gguf_reader import READER_SUPPORTED_VERSIONS

    version = int.from_bytes(head[4:], "little")
    if not version & 0xFFFF:  # a big-endian file, as gguf's reader tells them apart
        version = int.from_bytes(head[4:], "big")
    if version > 1000:  # the format has had three versions: "GGUF" then text, not a model's header
        return (
            f"is not a GGUF model file: it begins with {GGUF_MAGIC!r}, but the 4 bytes after it "
            f"({head[4:]!r}) are no version of the format"
        )
    if version not in READER_SUPPORTED_VERSIONS:
        return (
            f"is a GGUF file of version {version}, which the gguf library cannot read "
            f"(it reads versions {list(READER_SUPPORTED_VERSIONS)})"
        )
    return None


def _gguf_first(check: Check) -> Check:
    """``check``, after a value ending in ``.gguf`` passed :func:`gguf_file`: a file that is not
    there or not a model is refused before the model registry loads (it imports PyTorch)."""

    def first(v):
        if isinstance(v, str) and v.endswith(".gguf") and (problem := gguf_file(v)):
            return problem
        return check(v)

    return Check(first, lambda: str(check))


#: A registered model, a local model folder or .gguf file, or an HF hub id
#: (:func:`lmnotes.models.zoo.check_name`).
model = _gguf_first(
    deferred("lmnotes.models.zoo:check_name", "a registered model, a model folder or a .gguf file")
)
#: A registered model's name (not a file or folder).
registered = deferred("lmnotes.models.zoo:check_registered", "a registered model")


def model_of(*kinds: str) -> Check:
    """A model of one of ``kinds`` (``self-trained``, ``pretrained``:
    :func:`lmnotes.models.zoo.kind_of`)."""

    def check(v):
        import importlib

        return importlib.import_module("lmnotes.models.zoo").check_kind(kinds)(v)

    where = (
        "registered (wiki/...)"
        if kinds == ("self-trained",)
        else "registered, a model folder or a .gguf file"
    )
    return _gguf_first(Check(check, f"a {' or '.join(kinds)} model: {where}"))


def including(kind: str, why: str) -> Check:
    """A list of models with at least one of ``kind``; ``why`` says what the chapter needs it for."""

    def check(v):
        import importlib

        zoo = importlib.import_module("lmnotes.models.zoo")
        if any(zoo.kind_of(x) == kind for x in v):
            return None
        them = [n for n in zoo.names() if zoo.kind_of(n) == kind]
        return (
            f"must include a {kind} model: {why}; add one of {them}, e.g. "
            f"[{', '.join([them[0], *v]) if them else ''}]"
        )

    return Check(check, f"at least one {kind} model")


def _segmentation(v):
    m = re.fullmatch(r"bpe(\d+)", v)
    if v in ("char", "byte", "word") or (m and int(m.group(1)) >= 259):
        return None
    return "must be 'char', 'byte', 'word' or 'bpe<types>' with at least 259 types (bytes and specials)"


#: A segmentation of the self-trained family (:mod:`lmnotes.text.segment`).
segmentation = Check(_segmentation, "char, byte, word or bpe<types>")
