"""The book's runner: sync, execute and build. ``python -m lmnotes.book --help``.

- ``sync``: write each ``notebooks/NAME.py`` (jupytext py:percent, the source of truth)
  to its paired, output-free ``notebooks/NAME.ipynb``.
- ``run [NAME ...] [--profile P] [-p KEY VALUE ...]``: execute notebooks with papermill
  using the parameters of ``params/P.yaml`` plus overrides, into ``book/NAME.ipynb``. Every
  value is checked first (:mod:`lmnotes.book.params`); the values are written into the
  notebook's parameters cell (no injected cell). A run is all or nothing: its notebooks
  execute in a hidden staging folder, and their pages and claims files reach the book together
  when every one succeeded (:mod:`lmnotes.book.staging`); a failing cell stops the run with
  that cell's message first, then its traceback, and exit code 2, the book unchanged. The
  intro, which summarises the chapters' verdicts, runs after any chapter.
- ``build``: render the book with jupyter-book (notebooks are not re-executed; warnings
  are errors) and print the path of ``_build/html/index.html``.
- ``all``: sync, run every notebook, build.
- ``list``: a table of each notebook's parameters, defaults and profile values.
- ``timings``: each notebook's last wall times on this machine, cold and warm. A run is
  *warm* when it found everything in the shared cache, *cold* when it built, of every kind of
  entry (models, scores, samples...) the notebook's last cold run built, at least as many, and
  *partial* in between; the runner records the time under that name in ``timings.json``
  beside the cache's entries, not in the committed notebook.
- ``cache [--prune] [--export FILE] [--import FILE]``: the entries of the shared cache
  (:mod:`lmnotes.core.cache`): kind, name, size, age, and whether the current code still
  produces them; ``--prune`` removes those it does not and the temporaries of killed runs;
  ``--export`` writes every entry but the converted pretrained models to a tarball, which
  ``--import`` adds to another machine's cache after checking each entry (a refused entry,
  or an archive without one, is an error).
- ``readme``: write what the claims tables found into the README (:mod:`lmnotes.book.findings`).

A profile is a YAML file with two sections: ``common`` (parameters applied to every notebook
that declares them) and ``notebooks`` (a mapping from notebook name to its parameters).
Unknown profiles, notebooks and parameter names are errors, never silently ignored.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import yaml

from lmnotes.core import cache as lmcache
from lmnotes.core import io, numerics, progress
from lmnotes.book import editions, findings, params, staging, timing

NOTEBOOKS = io.ROOT / "notebooks"
BOOK = io.ROOT / "book"
PARAMS = io.ROOT / "params"
HTML_INDEX = io.ROOT / "_build" / "html" / "index.html"
PROFILE_SECTIONS = ("common", "notebooks")


class BookError(RuntimeError):
    """A user error in running the book: the message says what to do."""


#: The pages that summarise what the chapters saved, so they run after them: the GPU part's
#: first page (each claim's verdict in both editions), the status page (what a re-run costs),
#: the page on running a chapter with one's own model, and the book's first page.
SUMMARIES = ("at_scale", "status", "own_model", "intro")


def notebook_names() -> list[str]:
    """Names of the sources in ``notebooks/``: the chapters (``NN_name``) in order, then the
    summaries, which read what they saved."""
    chapters = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.py"))
    return chapters + [s for s in SUMMARIES if (NOTEBOOKS / f"{s}.py").is_file()]


def chapter_names() -> list[str]:
    return [n for n in notebook_names() if n not in SUMMARIES]


def profiles() -> list[str]:
    return sorted(p.stem for p in PARAMS.glob("*.yaml"))


def load_profile(name: str) -> dict[str, Any]:
    """The parsed ``params/<name>.yaml``, checked for its shape."""
    path = PARAMS / f"{name}.yaml"
    if not path.is_file():
        raise BookError(f"unknown profile {name!r}; the profiles are {profiles()} (files in {PARAMS})")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise BookError(f"profile {path} is not valid YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict) or set(data) - set(PROFILE_SECTIONS):
        raise BookError(
            f"profile {path} must be a mapping with the sections {list(PROFILE_SECTIONS)}; "
            f"found {sorted(data) if isinstance(data, dict) else type(data).__name__}"
        )
    unknown = set(data.get("notebooks") or {}) - set(notebook_names())
    if unknown:
        raise BookError(
            f"profile {name!r} names unknown notebooks {sorted(unknown)}; "
            f"the notebooks are {notebook_names()}"
        )
    return {"common": data.get("common") or {}, "notebooks": data.get("notebooks") or {}}


def _parameters_cell(nb, name: str):
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise BookError(
            f"notebooks/{name}.py must have exactly one cell tagged 'parameters' (found {len(cells)})"
        )
    return cells[0]


def parameters(name: str) -> dict[str, params.Parameter]:
    """The parameters a notebook's ``parameters`` cell declares (:mod:`lmnotes.book.params`)."""
    import jupytext

    try:
        return params.parse(_parameters_cell(jupytext.read(NOTEBOOKS / f"{name}.py"), name).source)
    except params.ParameterError as exc:
        raise BookError(f"notebooks/{name}.py: {exc}") from None


def declared_parameters(name: str) -> dict[str, Any]:
    """The parameters of a notebook's ``parameters`` cell, with their default values."""
    return {k: p.default for k, p in parameters(name).items()}


def resolve_parameters(
    names: Sequence[str], profile: str, overrides: dict[str, Any], cwd: str | os.PathLike | None = None
) -> dict[str, dict[str, Any]]:
    """Parameters for each notebook: profile ``common``, then its section, then overrides.

    Raises :class:`BookError` for a parameter that no notebook concerned declares, and for a
    value of the wrong type or outside its range (:func:`lmnotes.book.params.check`), before
    anything runs. Relative paths among the overrides are resolved against ``cwd`` (the
    directory the command was run from; the notebooks run in ``book/``), and ``~`` is expanded
    in every path (:func:`lmnotes.book.params.resolve_paths`). The overrides reach the chapters
    named: the summaries that run after them (:data:`SUMMARIES`) take only their profile's
    values, unless no chapter is named.
    """
    overrides = params.resolve_paths(overrides, cwd or os.getcwd())
    prof = load_profile(profile)
    declared = {n: parameters(n) for n in notebook_names()}
    everything = set().union(*declared.values()) if declared else set()
    unknown = set(prof["common"]) - everything
    if unknown:
        raise BookError(
            f"profile {profile!r}: no notebook declares {sorted(unknown)}; "
            f"declared parameters are {sorted(everything)}"
        )
    settable = [n for n in names if n not in SUMMARIES] or list(names)
    selected = set().union(*(declared[n] for n in settable)) if settable else set()
    unknown = set(overrides) - selected
    if unknown:
        raise BookError(
            f"unknown parameter(s) {sorted(unknown)} for {settable}; their parameters are {sorted(selected)}"
        )
    out = {}
    for n in names:
        section = prof["notebooks"].get(n) or {}
        bad = set(section) - set(declared[n])
        if bad:
            raise BookError(
                f"profile {profile!r}, notebook {n!r}: unknown parameter(s) {sorted(bad)}; "
                f"it declares {sorted(declared[n])}"
            )
        values = {k: v for k, v in prof["common"].items() if k in declared[n]}
        values.update(section)
        values.update({k: v for k, v in overrides.items() if k in declared[n] and n in settable})
        values = params.resolve_paths(values)  # ~ in the profile's paths too
        try:
            params.check(n, declared[n], values, set_by_user=set(overrides))
        except params.ParameterError as exc:
            raise BookError(str(exc)) from None
        out[n] = values
    return out


def sync(names: Sequence[str] | None = None) -> None:
    """Write each ``notebooks/NAME.py`` to its paired, output-free ``.ipynb``; renew the GPU
    edition's banners and the table of contents (:func:`refresh`)."""
    import jupytext

    for n in names or notebook_names():
        nb = jupytext.read(NOTEBOOKS / f"{n}.py")
        _stable_ids(nb)
        io.write_text(NOTEBOOKS / f"{n}.ipynb", jupytext.writes(nb, fmt="ipynb"))
    refresh()


def profile_values(name: str, profile: str) -> dict[str, Any] | None:
    """A notebook's values at ``profile`` now (None if the profile or notebook is gone)."""
    try:
        return resolve_parameters([name], profile, {})[name]
    except BookError:
        return None


def run_values(name: str, profile: str) -> dict[str, Any]:
    """Every value a notebook runs with at ``profile``: its parameters cell's, then the
    profile's; what a run with other values is told apart from (:func:`lmnotes.book.timing.key`)."""
    return {**declared_parameters(name), **(profile_values(name, profile) or {})}


def gpu_folder() -> Path:
    return editions.folder("gpu", None, BOOK)


def refresh(where: Path | None = None) -> list[Path]:
    """Regenerate the banner of each page of the GPU edition (or of ``where``): a page whose
    source or parameters changed since it ran is marked stale. Also write the book's
    ``_toc.yml`` when the pages present changed. Returns the pages rewritten."""
    import nbformat

    changed = []
    for path in editions.pages(where or gpu_folder()):
        nb = nbformat.read(path, as_version=4)
        meta = nb.metadata.get("lmnotes", {}).get("edition")
        if not meta:
            raise BookError(f"{path} has no edition record: execute it with `run --profile gpu`")
        source = NOTEBOOKS / f"{path.stem}.py"
        if editions.set_banner(nb, editions.banner(nb, source, profile_values(path.stem, meta["profile"]))):
            io.write_text(path, nbformat.writes(nb) + "\n")  # as nbformat.write ends a file
            changed.append(path)
    toc = BOOK.parent / "_toc.yml"
    if where is None and (not toc.is_file() or toc.read_text() != toc_text()):
        io.write_text(toc, toc_text())
    return changed


def toc_text() -> str:
    """The table of contents: the CPU edition's chapters, then the part "At scale (GPU
    edition)" with its first page and whichever chapters ``book/gpu/`` holds."""
    lines = [
        "# Table of contents: the only files the book builds (only_build_toc_files: true).",
        "# Written by `python -m lmnotes.book sync` (and build) from the pages present: the GPU",
        "# part lists the chapters that book/gpu/ holds.",
        "format: jb-book",
        "root: book/intro",
        "parts:",
        "  - caption: The report",
        "    chapters:",
    ]
    lines += [f"      - file: book/{n}" for n in chapter_names()]
    if "status" in notebook_names():
        lines += [
            "  - caption: Using the book",
            "    chapters:",
            "      - file: book/status",
            "      - file: book/own_model",
        ]
    if "at_scale" in notebook_names():
        lines += ["  - caption: At scale (GPU edition)", "    chapters:", "      - file: book/at_scale"]
        gpu = editions.pages(gpu_folder())
        if gpu:
            lines += ["        sections:"] + [f"          - file: book/gpu/{p.stem}" for p in gpu]
    return "\n".join(lines) + "\n"


# Metadata that papermill writes and that changes from run to run (times, paths): dropped so
# that the same parameters give the same committed notebook.
_VOLATILE_NB = ("start_time", "end_time", "duration", "input_path", "output_path", "exception", "parameters")


def _stable_ids(nb) -> None:
    """Give cells ids derived from their position and source (jupytext and papermill draw
    random ones), so that the same source gives the same file."""
    for i, cell in enumerate(nb.cells):
        cell.id = hashlib.sha1(f"{i}:{cell.cell_type}:{cell.source}".encode()).hexdigest()[:8]


def _coalesce_streams(nb) -> None:
    """Join each cell's consecutive outputs of one stream (stdout, stderr) into one: how the
    kernel chunks what a cell prints depends on timing (a loaded machine flushes more often),
    not on what it prints. nbval compares streams joined the same way."""
    for cell in nb.cells:
        joined = []
        for out in cell.get("outputs", []):
            if (
                joined
                and out.get("output_type") == "stream"
                and joined[-1].get("output_type") == "stream"
                and joined[-1].get("name") == out.get("name")
            ):
                joined[-1]["text"] = joined[-1]["text"] + out["text"]
            else:
                joined.append(out)
        if "outputs" in cell:
            cell.outputs = joined


def _scrub(nb) -> None:
    _stable_ids(nb)
    _coalesce_streams(nb)
    for key in _VOLATILE_NB:
        nb.metadata.get("papermill", {}).pop(key, None)
    for cell in nb.cells:
        cell.metadata.pop("papermill", None)
        cell.metadata.pop("execution", None)


def _entry_paths() -> set[Path]:
    """The entry folders of the shared cache (a cheap listing, no hashing)."""
    root = lmcache.root()
    return {p for p in root.glob("*/*") if p.is_dir() and not p.name.startswith(".")}


# ipykernel warns on every start that its TCP sockets are not encrypted (they listen on
# localhost), and logs an interrupt when it is shut down after a failed cell; its own log goes
# to the runner's console, so it is kept to critical errors.
_KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL"]


def _kernel_manager(log):
    """A kernel manager whose kernels write their own standard error to ``log`` (an open file),
    not to the runner's console. A cell's output reaches the notebook by another way and
    progress lines by :func:`lmnotes.core.progress.relay`; what is left on the kernel's own
    stream is what libzmq or tornado print as a kernel shuts down (``Assertion failed:
    pfd.revents & POLLIN``), which would otherwise come before the runner's one error line."""
    from jupyter_client import AsyncKernelManager

    class QuietKernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd, **kw):
            kw["stderr"] = log
            return await super()._async_launch_kernel(kernel_cmd, **kw)

    return QuietKernelManager


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _failure(name: str, profile: str, exc) -> BookError:
    """The error of a failed cell: its message first, on one line, then the traceback."""
    message = " ".join(f"{exc.ename}: {exc.evalue}".split())
    tb = "\n".join(exc.traceback) if exc.traceback else ""
    return BookError(
        f"{name}: {message}\n  (cell {exc.exec_count} failed, profile {profile!r}; "
        f"nothing of this run was written to the book; the traceback follows)\n{tb}"
    )


def execute(
    name: str,
    values: dict[str, Any],
    profile: str,
    kernel: str = "python3",
    folder: Path = BOOK,
    stage: Path | None = None,
) -> Path:
    """Execute ``notebooks/NAME.ipynb`` into ``NAME.ipynb`` of the run's staging folder
    ``stage`` (:mod:`lmnotes.book.staging`; by default one of its own, moved into ``folder``,
    ``book/`` by default, on success), with ``values`` written into its parameters cell (so
    that the executed notebook shows the values used, once), and record its wall time (see
    ``timings``). The notebook runs in the staging folder, where its claims go to ``claims/``.
    A page of another edition than the CPU one (``folder`` other than ``book/``) is stamped
    with its run and gets its banner (:mod:`lmnotes.book.editions`)."""
    if stage is None:
        with staging.staged(folder) as own:
            execute(name, values, profile, kernel, folder, own)
        return folder / f"{name}.ipynb"
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    source = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    cell = _parameters_cell(source, name)
    cell.source = params.write_into(cell.source, values)
    target = staging.page(stage, name)
    before, t0 = _entry_paths(), time.perf_counter()
    # the kernel saves its claims into the staging folder's claims/, whatever the caller's
    # environment says (the tests point LMNOTES_CLAIMS elsewhere for nbval)
    from lmnotes.report.claims import FOLDER_ENV

    redirected = os.environ.pop(FOLDER_ENV, None)
    with io.atomic_path(target, suffix=".ipynb") as tmp, tempfile.TemporaryFile("w+") as kernel_log:
        try:
            papermill.execute_notebook(
                source,
                str(tmp),
                parameters=None,
                kernel_name=kernel,
                language="python",
                cwd=str(stage),
                progress_bar=sys.stderr.isatty(),
                report_mode=False,
                extra_arguments=_KERNEL_ARGS,
                kernel_manager_class=_kernel_manager(kernel_log),
            )
        except PapermillExecutionError as exc:
            raise _failure(name, profile, exc) from None
        except Exception as exc:  # the kernel died, or did not start: what it said is the clue
            kernel_log.seek(0)
            said = kernel_log.read().strip()
            if not said:
                raise
            raise BookError(
                f"{name}: {type(exc).__name__}: {exc}\n  the kernel's last words:\n"
                + "\n".join(said.splitlines()[-20:])
            ) from exc
        finally:
            if redirected is not None:
                os.environ[FOLDER_ENV] = redirected
        nb = nbformat.read(tmp, as_version=4)
        nb.metadata.setdefault("lmnotes", {}).update(profile=profile, arithmetic=numerics.describe())
        _scrub(nb)
        plain = profile_values(name, profile)  # the profile's own values, without -p
        if folder != BOOK:
            source = NOTEBOOKS / f"{name}.py"
            editions.stamp(nb, source, profile, values, time.perf_counter() - t0)
            # run with -p overrides, the page is stale from the start: not the profile's values
            editions.set_banner(nb, editions.banner(nb, source, plain))
        nbformat.write(nb, tmp)
    timing.record(
        timing.key(name, profile, values, run_values(name, profile)),
        time.perf_counter() - t0,
        _entry_paths() - before,
    )
    return target


def run(
    names: Sequence[str] | None = None,
    profile: str = "default",
    overrides: dict[str, Any] | None = None,
    into: str | os.PathLike | None = None,
    allow_cpu: bool = False,
) -> list[Path]:
    """Execute the named notebooks (all by default), printing progress per notebook. Every
    value is checked before the first notebook starts. The CPU edition (profile ``default``)
    goes to ``book/``, where the summaries (the intro and "At scale"), which read the chapters'
    verdicts, run again after any chapter; the GPU edition goes to ``book/gpu/``, any other
    profile only to a folder given as ``into`` (:func:`lmnotes.book.editions.folder`). The
    ``gpu`` profile needs an accelerator unless ``allow_cpu`` (:func:`refuse_gpu_profile_on_cpu`)."""
    if profile == "gpu" and not allow_cpu:
        refuse_gpu_profile_on_cpu(names)
    known = notebook_names()
    load_profile(profile)  # an unknown profile is named as such, before where it would go
    try:
        folder = editions.folder(profile, into, BOOK)
    except editions.EditionError as exc:
        raise BookError(str(exc)) from None
    main_book = folder == BOOK
    names = list(names or (known if main_book else chapter_names()))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise BookError(f"unknown notebook(s) {unknown}; the notebooks are {known}")
    if main_book:
        names += [s for s in SUMMARIES if s in known and s not in names]
    elif set(names) & set(SUMMARIES):
        raise BookError(
            f"{sorted(set(names) & set(SUMMARIES))} summarise the CPU edition: run them "
            "with the default profile into book/"
        )
    values = resolve_parameters(names, profile, overrides or {})
    for key in overrides or {}:  # a value meant for every chapter named reaches only some
        skip = [n for n in names if n not in SUMMARIES and key not in values[n]]
        if skip:
            print(
                f"note: -p {key} applies to {[n for n in names if key in values[n]]} only; "
                f"{skip} do not declare it",
                flush=True,
            )
    sync(names)
    out, last = [folder / f"{n}.ipynb" for n in names], timing.read()
    print(_plan(names, profile, values, last), flush=True)
    # the pages, claims and summaries of the whole run reach the book together, or not at all
    with progress.relay(), staging.staged(folder) as stage:
        for i, n in enumerate(names, 1):
            seen = last.get(timing.key(n, profile, values[n], run_values(n, profile)), {})
            hint = "; ".join(
                f"last {mode} run {progress.duration(seen[mode]['seconds'])}"
                for mode in ("warm", "cold")
                if mode in seen
            )
            print(f"[{i}/{len(names)}] {n} (profile {profile}{'; ' + hint if hint else ''}) ...", flush=True)
            t0 = time.perf_counter()
            execute(n, values[n], profile, folder=folder, stage=stage)
            print(f"[{i}/{len(names)}] {n} done in {progress.duration(time.perf_counter() - t0)}", flush=True)
    if not main_book:  # another edition's claims folder, which "At scale" reads, even if empty
        (folder / "claims").mkdir(exist_ok=True)
    claimed = [n for n in names if (folder / "claims" / f"{n}.csv").is_file()]
    print(
        f"written: {', '.join(os.path.relpath(p) for p in out)}"
        + (f", and the claims of {', '.join(claimed)}" if claimed else ""),
        flush=True,
    )
    if folder == gpu_folder():
        print(
            "the GPU edition's pages are in book/gpu/; `run at_scale` puts their verdicts beside the "
            "CPU edition's, and `build` lists them in the book",
            flush=True,
        )
    return out


def _plan(names: Sequence[str], profile: str, values: dict[str, dict], last: dict) -> str:
    """The line a run starts with: what it runs and about how long that takes here, warm and
    cold, from this machine's last runs of the same notebooks and values; for a notebook never
    run with these values, from its last run at the profile's own values, else (the default
    profile) from the committed record, ``book/status.json``. A mode with no time is named, not
    filled in with the other mode's."""
    record = timing.status_record(BOOK).get("notebooks", {}) if profile == "default" else {}
    total, missing, approx = {"warm": 0.0, "cold": 0.0}, {"warm": [], "cold": []}, []
    for n in names:
        plain = run_values(n, profile)
        key = timing.key(n, profile, values[n], plain)
        seen, plain_key = last.get(key), timing.key(n, profile, plain, plain)
        if not seen:
            seen = last.get(plain_key) or {}
            if key != plain_key and (seen or record.get(n)):
                approx.append(n)
        for mode in total:
            t = seen.get(mode) or record.get(n, {}).get(mode)
            if t:
                total[mode] += t["seconds"]
            else:
                missing[mode].append(n)
    head = f"running {len(names)} notebook(s), profile {profile}: {', '.join(names)}"
    if all(len(missing[m]) == len(names) for m in total):
        return f"{head}; no earlier run to estimate the time from"
    parts = [
        f"about {progress.duration(total[m])} {what}"
        + (f" (no time for {', '.join(missing[m])})" if missing[m] else "")
        for m, what in (("warm", "with everything in the cache"), ("cold", "if it must be built"))
        if len(missing[m]) < len(names)
    ]
    return (
        f"{head}; "
        + ", ".join(parts)
        + (
            f"; {', '.join(approx)} from {'its' if len(approx) == 1 else 'their'} runs at the profile's "
            f"own values"
            if approx
            else ""
        )
    )


def parameter_table() -> "pd.DataFrame":  # noqa: F821
    """One row per notebook and parameter: its default, its value in each profile (blank where
    the profile keeps the default), the values it allows beyond its type (lmnotes.book.params.RULES),
    and what it is (the cell's comment). Values are the cells' literals, whole."""
    import pandas as pd

    profs = {p: load_profile(p) for p in profiles()}
    rows = []
    for n in notebook_names():
        for name, p in parameters(n).items():
            row = {"notebook": n, "parameter": name, "default": params._literal(p.default)}
            for prof, data in profs.items():
                v = {**data["common"], **(data["notebooks"].get(n) or {})}.get(name, p.default)
                row[f"{prof} profile"] = "" if v == p.default else params._literal(v)
            rule = params.rule_of(p, n)
            row["allowed"] = str(rule) if rule else ""
            row["what"] = p.comment
            rows.append(row)
    return pd.DataFrame(rows)


def parameter_listing(width: int = 100, names: Sequence[str] = ()) -> str:
    """What ``list`` prints (for ``names``, else every notebook): a block per notebook, headed
    by its committed wall times (``book/status.json``), with each parameter as in its cell (``name = default  # what``),
    then the profiles' values and what it allows. Lines are wrapped to ``width`` columns, never
    cut: a long list or comment goes on over the next lines, indented."""
    import textwrap

    def wrap(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(
            text, width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
        ) or [first.rstrip()]

    table = parameter_table()
    if unknown := [n for n in names if n not in notebook_names()]:
        raise BookError(f"unknown notebook(s) {unknown}; the notebooks are {notebook_names()}")
    if names:
        table = table[table["notebook"].isin(names)]
    record = timing.status_record(BOOK).get("notebooks", {})
    lines = []
    for n, group in table.groupby("notebook", sort=False):
        times = ", ".join(
            f"{mode} {progress.duration(record[n][mode]['seconds'])}"
            for mode in ("cold", "warm")
            if mode in record.get(n, {})
        )
        lines += ["", f"{n}: {times} (book/{timing.STATUS})" if times else n]
        for row in group.to_dict("records"):
            head = f"{row['parameter']} = {row['default']}"
            if row["what"] and len(head) + len(row["what"]) + 6 <= width:
                lines.append(f"  {head}  # {row['what']}")
            else:
                lines += wrap(head, "  ", "      ") + (
                    wrap(f"# {row['what']}", "      ", "        ") if row["what"] else []
                )
            notes = [f"{c}: {row[c]}" for c in table.columns if c.endswith(" profile") and row[c]]
            notes += [f"allowed: {row['allowed']}"] if row["allowed"] else []
            if notes:
                lines += wrap("; ".join(notes), "      ", "        ")
    lines += [
        "",
        f"profiles: params/{{{','.join(profiles())}}}.yaml (a profile not named under a "
        f"parameter keeps its default)",
    ]
    return "\n".join(lines)


def _register_every_kind() -> None:
    """Import every module, so that every kind of entry is registered: an entry of a kind that
    no imported module registers counts as unknown (and would be pruned or refused)."""
    import importlib
    import pkgutil

    import lmnotes

    for module in pkgutil.walk_packages(lmnotes.__path__, "lmnotes."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)


def share_cache(export: str | None = None, import_: str | None = None) -> str:
    """``cache --export FILE`` and ``--import FILE``: a lecturer builds the cache once and the
    students' machines skip the training (:func:`lmnotes.core.cache.export`). A file to import
    that is not there or is no tar archive is refused before every module is imported."""
    import tarfile

    if import_ and not Path(import_).is_file():
        raise BookError(f"--import {import_}: no such file")
    if import_ and not tarfile.is_tarfile(import_):
        raise BookError(
            f"--import {import_}: not a cache archive (the .tar.gz that `cache --export` "
            f"writes); it is no tar archive"
        )
    _register_every_kind()
    lines = []
    if export:
        done = lmcache.export(export)
        if not done:  # an archive that every student's import would refuse
            Path(export).unlink(missing_ok=True)
            raise BookError(
                f"--export {export}: the cache at {lmcache.root()} holds no entry to share; "
                f"`make book` builds them"
            )
        lines.append(
            f"exported {len(done)} entries ({', '.join(sorted({e.kind for e in done}))}), "
            f"{Path(export).stat().st_size / 1e6:,.1f} MB, to {export}"
        )
    if import_:
        done = lmcache.import_(import_)
        # a refusal is never a success: a student whose import refused an entry would train it
        if done.refused:
            n = len(done.refused)
            raise BookError(
                f"--import {import_}: refused {n} {'entry' if n == 1 else 'entries'} "
                f"({'; '.join(done.refused)}); imported {len(done.added)}, "
                f"{len(done.present)} already present"
            )
        if not (done.added or done.present):
            raise BookError(
                f"--import {import_}: not a cache archive (the .tar.gz that `cache --export` "
                f"writes); it holds no cache entry"
            )
        lines.append(
            f"imported {len(done.added)} entries into {lmcache.root()}; "
            f"{len(done.present)} already present, kept; refused 0"
        )
    return "\n".join(lines)


def cache_report(prune: bool = False) -> str:
    """The listing of the shared cache (and what ``prune`` removed) as text."""
    import pandas as pd

    lines = [
        f"cache folder: {lmcache.root()} (LMNOTES_CACHE, else XDG_CACHE_HOME/lmnotes, else ~/.cache/lmnotes)"
    ]
    if not prune and not lmcache.holds_entries():  # before importing every module (seconds)
        return "\n".join(lines + ["(empty)"])
    _register_every_kind()

    if prune:
        gone = lmcache.prune()
        lines.append(
            f"removed {len(gone)} entries, {sum(e.bytes for e in gone) / 1e6:,.1f} MB"
            + "".join(f"\n  {e.kind}/{e.name} ({e.status})" for e in gone)
        )
    listed = lmcache.entries()
    if not listed:
        return "\n".join(lines + ["(empty)"])
    df = pd.DataFrame(
        [
            {
                "kind": e.kind,
                "name": e.name,
                "MB": round(e.bytes / 1e6, 1),
                "age (days)": round(e.age_days, 1),
                "status": e.status,
            }
            for e in listed
        ]
    )
    lines.append(df.to_string(index=False))
    lines.append(
        f"total {df['MB'].sum():,.1f} MB in {len(df)} entries; "
        f"{(~df['status'].isin(['current', 'kept'])).sum()} not current (`cache --prune` removes them)"
    )
    return "\n".join(lines)


def refuse_gpu_profile_on_cpu(names: Sequence[str] | None) -> None:
    """Raise :class:`BookError` if this machine has no accelerator that PyTorch can use: the
    ``gpu`` profile sizes its models and sample counts for one (its ``device: auto`` would fall
    back to the CPU without a word and run for hours). The message gives this CPU's last time
    for the chapters where ``timings.json`` has one for every chapter named, and names the flag
    that runs them anyway (``--allow-cpu``)."""
    import torch

    if torch.cuda.is_available():
        return
    chapters = [n for n in names or chapter_names() if n not in SUMMARIES]
    records = timing.read()
    seen = [records.get(timing.key(n, "gpu", {}), {}).get("cold", {}).get("seconds") for n in chapters]
    committed = timing.status_record(BOOK).get("notebooks", {})
    default = [committed.get(n, {}).get("cold", {}).get("seconds") for n in chapters]
    if chapters and None not in seen:
        estimate = f"its last cold run of {', '.join(chapters)} here took {progress.duration(sum(seen))}"
    elif chapters and None not in default:  # no gpu run here: what the smaller default profile takes
        estimate = (
            f"it has not run here at gpu, and {', '.join(chapters)} at the default profile, several "
            f"times smaller, takes {progress.duration(sum(default))} cold (book/status.json)"
        )
    else:
        estimate = "it has not run here at gpu"
    raise BookError(
        f"--profile gpu sizes the chapters for an accelerator, and this machine has none that "
        f"PyTorch can use: {estimate}; run the default profile, or add --allow-cpu to run it "
        f"on the CPU anyway"
    )


def build() -> Path:
    """Render the book with jupyter-book, warnings as errors; return ``index.html``'s path. The
    GPU edition's banners and the table of contents are renewed first (:func:`refresh`)."""
    refresh()
    cmd = [
        str(Path(sys.executable).parent / "jupyter-book"),
        "build",
        str(io.ROOT),
        "--warningiserror",
        "--nitpick",
        "--keep-going",
        "--quiet",
    ]
    print("building the book ...", flush=True)
    if subprocess.run(cmd, cwd=io.ROOT).returncode != 0:
        raise BookError("jupyter-book build failed (warnings are errors); see the messages above")
    return HTML_INDEX


def _overrides(pairs: Sequence[Sequence[str]]) -> dict[str, Any]:
    """``-p KEY VALUE`` pairs, each value a YAML scalar or list, as on papermill's command line:
    3 -> int, 0.5 -> float, x -> str, [a, b] -> list."""
    out = {}
    for key, value in pairs:
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            where = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise BookError(
                f"-p {key} {value!r}: not a valid YAML value ({where}); quote the value for "
                f"the shell, e.g. -p {key} '[a, b]'"
            ) from None
    return out


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def _quiet_teardown() -> None:
    """After an interruption, what the kernel's client still says as it is torn down (a
    ``DeadKernelError`` of the task that watched the kernel, logged by asyncio when the
    interpreter exits, or raised in a thread) says nothing the one line has not: it is not
    printed (a Ctrl-C printed such a traceback after the line about once in four)."""
    import logging
    import threading

    for name in ("asyncio", "traitlets", "papermill", "nbclient"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    threading.excepthook = lambda args: None
    sys.unraisablehook = lambda unraisable: None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lmnotes.book", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for cmd in ("run", "all"):
        p = sub.add_parser(cmd, help="execute notebooks" + (", then build" if cmd == "all" else ""))
        if cmd == "run":
            p.add_argument("names", nargs="*", help="notebooks (default: all), e.g. 00_corpus")
        p.add_argument("--profile", default="default", help="params/PROFILE.yaml (default: default)")
        p.add_argument(
            "-p",
            "--parameter",
            nargs=2,
            action="append",
            default=[],
            metavar=("KEY", "VALUE"),
            help="override one parameter (YAML value)",
        )
        p.add_argument(
            "--into",
            metavar="DIR",
            help="write the executed notebooks to DIR (needed for a "
            "profile that is not published; default: book/, or book/gpu/ for --profile gpu)",
        )
        p.add_argument(
            "--allow-cpu",
            action="store_true",
            help="run --profile gpu on a machine without a GPU (hours; refused without this flag)",
        )
    sub.add_parser("build", help="render _build/html with jupyter-book")
    sub.add_parser("sync", help="write notebooks/*.py to their paired .ipynb")
    ls = sub.add_parser("list", help="list notebooks, their parameters and the profiles' values")
    ls.add_argument("names", nargs="*", help="notebooks (default: all), e.g. 03_segmentation")
    sub.add_parser("readme", help="write what the claims tables in book/claims found into README.md")
    t = sub.add_parser("timings", help="wall time of each notebook's last runs here, cold and warm cache")
    t.add_argument(
        "--record",
        nargs="*",
        choices=["cold", "warm"],
        metavar="MODE",
        help="write this machine's last times (warm, or the modes named) into book/status.json",
    )
    c = sub.add_parser("cache", help="list the shared cache's entries")
    c.add_argument("--prune", action="store_true", help="remove entries the current code no longer produces")
    c.add_argument(
        "--export",
        metavar="FILE",
        help="write the cache (every entry but the converted pretrained "
        "models, which each machine converts itself) to a tarball that another machine can --import "
        "(a class's shared cache)",
    )
    c.add_argument(
        "--import",
        dest="import_",
        metavar="FILE",
        help="add the entries of such a tarball, "
        "each checked against its key, this code's version and its files' SHA-256",
    )
    args = parser.parse_args(argv)
    # SIGTERM (a CI time-out, `kill`) ends the run like Ctrl-C, so temporary files are removed
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.command == "sync":
            sync()
        elif args.command == "list":
            print(parameter_listing(names=args.names))
        elif args.command == "readme":
            print(f"updated {findings.update(io.ROOT / 'README.md', BOOK)}")
        elif args.command == "timings" and args.record is not None:
            print(f"recorded in {timing.record_status(BOOK, notebook_names(), args.record or ['warm'])}")
        elif args.command == "timings":
            import pandas as pd

            from lmnotes.report.tables import dash_missing

            with pd.option_context("display.width", 200, "display.max_columns", None):
                print(dash_missing(timing.table(notebook_names())))
            print(f"(recorded in {timing.timings_file()})")
        elif args.command == "cache" and (args.export or args.import_):
            print(share_cache(args.export, args.import_))
        elif args.command == "cache":
            print(cache_report(args.prune))
        elif args.command == "build":
            print(f"the book is at {build()}")
        else:
            run(
                getattr(args, "names", None),
                args.profile,
                _overrides(args.parameter),
                args.into,
                allow_cpu=args.allow_cpu,
            )
            if args.command == "all":
                print(f"the book is at {build()}")
    except (BookError, lmcache.CacheError) as exc:
        message = str(exc) if sys.stderr.isatty() else _ANSI.sub("", str(exc))
        print(f"error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: one line, not the traceback
        _quiet_teardown()
        how = str(exc) or "Ctrl-C"
        print(
            f"interrupted ({how}): nothing of this run was written to the book, and the cache keeps "
            "only complete entries",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
