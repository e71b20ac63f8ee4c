"""The sections of a study: what a chapter has measured, and the part of it each section reads.

A study chapter measures as it goes and keeps what its claims need in one :class:`Measured`
mapping, filled under the names its sections read. A study is a list of :class:`Section`
entries, one per section of its chapter that decides claims: the section's name (the
chapter's heading, tested), what it
``reads`` of the measured mapping (each name with what it is), and the values its prose
quotes (``values(measured, rules)``, under literal glue keys). A claim of the study's
declarative list (:class:`lmnotes.report.claims.Claim`) names the section whose measurements
decide it, and its ``decide`` sees only what that section reads (:meth:`Section.view`): a
claim that reads a measurement its section does not declare, or one the chapter has not
measured, fails at once with the names. Used by every study chapter (02–06) and its claims
module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence


class NotMeasured(KeyError):
    """A name read that the chapter has not measured (a KeyError whose message reads as one)."""

    def __str__(self) -> str:
        return str(self.args[0])


class Measured(dict):
    """What a chapter has measured, by name: a mapping whose entries are also read as
    attributes (``measured.gaps`` is ``measured["gaps"]``). A missing name raises a KeyError
    (:class:`NotMeasured`; an AttributeError when read as an attribute) that lists the
    names there are."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def __missing__(self, name: str) -> Any:
        raise NotMeasured(f"{name!r} has not been measured; the measured names are {sorted(self)}")


@dataclass(frozen=True)
class Section:
    """One section of a study's chapter: its ``name``, what it ``reads`` of the chapter's
    :class:`Measured` (each name with a line saying what it is), and ``values``, the function
    that gives the values its prose quotes from what it reads and the chapter's rules
    (``values(view, rules) -> {glue key: value}``; none where the prose quotes nothing)."""

    name: str
    reads: Mapping[str, str]
    values: Callable[[Measured, Any], Mapping[str, Any]] | None = field(default=None, compare=False)

    def view(self, measured: Mapping[str, Any]) -> Measured:
        """The part of ``measured`` this section reads, as a :class:`Measured` that holds
        nothing else; a name it reads that was not measured raises :class:`NotMeasured`,
        naming the section."""
        missing = [k for k in self.reads if k not in measured]
        if missing:
            raise NotMeasured(
                f"section {self.name!r} reads {missing}, which the chapter has not measured "
                f"(measured: {sorted(measured)})"
            )
        return Measured({k: measured[k] for k in self.reads})


def reading(reads: Mapping[str, str], *names: str) -> dict[str, str]:
    """The entries ``names`` of a study's ``reads`` (each name with what it is): what one
    :class:`Section` reads."""
    return {n: reads[n] for n in names}


def named(sections: Sequence[Section], name: str) -> Section:
    """The section of ``sections`` called ``name``; a KeyError lists the names there are."""
    for s in sections:
        if s.name == name:
            return s
    raise KeyError(f"no section {name!r}; the sections are {[s.name for s in sections]}")


def values(sections: Sequence[Section], measured: Mapping[str, Any], rules: Any) -> dict[str, Any]:
    """The values every section's prose quotes, in the sections' order; a glue key that two
    sections give is an error."""
    out: dict[str, Any] = {}
    for s in sections:
        if s.values is None:
            continue
        got = dict(s.values(s.view(measured), rules))
        twice = sorted(set(got) & set(out))
        if twice:
            raise ValueError(f"section {s.name!r} gives the glue keys {twice} another section gives")
        out.update(got)
    return out
