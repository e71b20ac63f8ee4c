"""Wall times: this machine's record of each notebook's last runs (``timings.json`` beside the
shared cache, cold, warm or partial) and the committed record of the last full measurement
(``book/status.json``), which the status page and ``python -m lmnotes.book list`` show. Used
by the runner (:mod:`lmnotes.book.run`).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from lmnotes.core import cache as lmcache
from lmnotes.core import io

lmcache.register_file("timings.json", "each notebook's last wall times here (book timings)")


def timings_file() -> Path:
    """Where this machine's runs record their wall times: beside the cache they depend on, not
    in the committed notebooks (a notebook's bytes must not change with the clock)."""
    return lmcache.root() / "timings.json"


def read() -> dict[str, dict]:
    try:
        return json.loads(timings_file().read_text())
    except (OSError, ValueError):  # none yet, or unreadable: no record worth keeping
        return {}


def key(name: str, profile: str, values: dict[str, Any], profiled: dict[str, Any] | None = None) -> str:
    """Under which name a run's time is kept: the notebook's for the default profile on the
    embedded corpus (the times ``timings`` shows), else with the profile, the corpus and every
    value that differs from the profile's own (``profiled``) added, so that a run on another
    corpus, or with another model (``-p``), does not stand for the next plain one."""
    corpus = values.get("corpus", "enwiki")
    changed = (
        []
        if profiled is None
        else [
            f"{k}={v!r}"
            for k, v in sorted(values.items())
            if k != "corpus" and (k not in profiled or profiled[k] != v)
        ]
    )
    extra = (
        ([f"profile={profile}"] if profile != "default" else [])
        + ([f"corpus={corpus}"] if corpus != "enwiki" else [])
        + changed
    )
    return name + (f" [{', '.join(extra)}]" if extra else "")


def record(name: str, seconds: float, built: set[Path]) -> None:
    """Record this run's wall time under "cold", "warm" or "partial" for ``name``, keeping the
    others."""
    records = read()
    old = records.get(name, {})
    kinds = Counter(path.parent.name for path in built)
    # warm: nothing built. cold: of every kind the last cold run built, at least as many entries
    # (the cache held none of the chapter's own work). In between, "partial": kept apart, so
    # that a run that found most of its work cached (or rebuilt only entries of one kind, after
    # an edit of their code) does not pass for a cold one.
    last_cold = old.get("cold", {}).get("built", {})
    mode = (
        "warm"
        if not built
        else "cold"
        if all(kinds.get(kind, 0) >= n for kind, n in last_cold.items())
        else "partial"
    )
    records[name] = {
        **old,
        mode: {
            "seconds": round(seconds, 1),
            "date": time.strftime("%Y-%m-%d"),
            "built": dict(sorted(kinds.items())),
        },
    }
    io.write_text(timings_file(), json.dumps(records, indent=1, sort_keys=True))


#: The committed record of the last full measurement of every notebook's wall time (cold and
#: warm, with the machine and the dates): what the status page and ``list`` show, whatever
#: the reader's own cache holds. ``timings --record`` renews it from this machine's records.
STATUS = "status.json"


def status_record(book: Path) -> dict:
    """The committed timing record (:data:`STATUS` in ``book``); empty if there is none."""
    try:
        return json.loads((book / STATUS).read_text())
    except (OSError, ValueError):
        return {}


def record_status(book: Path, names: Sequence[str], modes: Sequence[str] = ("warm",)) -> Path:
    """Write this machine's last ``modes`` times of ``names`` (default profile, embedded corpus)
    into the committed record in ``book``, keeping the other mode's entries; return its path."""
    import platform

    record = status_record(book)
    notebooks = record.setdefault("notebooks", {})
    mine = read()
    cpu = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            platform.machine(),
        )
        if Path("/proc/cpuinfo").is_file()
        else platform.machine()
    )
    for n in names:
        for mode in modes:
            if mode in mine.get(n, {}):
                t = mine[n][mode]
                notebooks.setdefault(n, {})[mode] = {
                    "seconds": t["seconds"],
                    "date": t["date"],
                    "machine": f"{cpu}, {os.cpu_count()} cores",
                }
    io.write_text(book / STATUS, json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return book / STATUS


def table(names: Sequence[str]) -> "pd.DataFrame":  # noqa: F821
    """One row per notebook of ``names`` and per set of values it ran with here (a profile, a
    corpus, ``-p`` values): its last cold and warm wall times on this machine."""
    import pandas as pd

    records = read()
    rows = []
    # each notebook's plain runs, then its runs with other values ("03_segmentation [pretrained=...]")
    keys = [k for n in names for k in [n, *sorted(k for k in records if k.startswith(f"{n} ["))]]
    for n in keys:
        row = {"notebook": n}
        for mode in ("cold", "warm"):
            t = records.get(n, {}).get(mode)
            row[f"{mode} (s)"] = t["seconds"] if t else None
            row[f"{mode} measured"] = t["date"] if t else None
        row["cold run built"] = (
            ", ".join(f"{v} {k}" for k, v in records.get(n, {}).get("cold", {}).get("built", {}).items())
            or None
        )
        rows.append(row)
    df = pd.DataFrame(rows).set_index("notebook")
    plain = df.loc[[n for n in names if n in df.index]]
    df.loc["total"] = {
        "cold (s)": plain["cold (s)"].sum(min_count=1),
        "warm (s)": plain["warm (s)"].sum(min_count=1),
        "cold measured": "",
        "warm measured": "",
        "cold run built": "",
    }
    return df
