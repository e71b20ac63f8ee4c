"""Sections a chapter folds away: a Sphinx extension of the book (``_config.yml``), used by
the study chapters 02–06, so that a page reads in about 15 screens while its details,
extensions and checks stay one click away.

A section is folded when its label starts with ``fold-`` (a MyST target above its
heading, ``(fold-02-samples)=``; the GPU edition's ``gpu-fold-…`` too). Its heading stays
in the page and in the page's contents; everything under it goes into a closed
``<details>`` whose summary says what it holds. A link into a folded section opens it
(``_static/lmnotes.js``).

Written here because neither MyST nor Jupyter Book folds a whole section of a notebook:
their toggles fold one cell or one directive, and a section is many cells.
"""

from __future__ import annotations

from docutils import nodes

PREFIX = "fold-"
CLASS = "lmnotes-fold"


def folded(section: nodes.section) -> bool:
    """Whether ``section`` carries a ``fold-`` label (or the GPU edition's ``gpu-fold-``)."""
    return any(name.removeprefix("gpu-").startswith(PREFIX) for name in section["names"] + section["ids"])


def summary(section: nodes.section) -> str:
    """What the fold's summary says: that it opens, and how many tables and figures it holds."""
    # a notebook's tables are HTML it displayed (raw nodes), a Markdown table is a table node
    tables = sum(1 for _ in section.findall(nodes.table)) + sum(
        n.astext().count("<table") for n in section.findall(nodes.raw) if n.get("format") == "html"
    )
    counts = {"table": tables, "figure": sum(1 for _ in section.findall(nodes.image))}
    held = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n]
    return "Show this section" + (f" ({', '.join(held)})" if held else "")


def fold(app, doctree: nodes.document, docname: str) -> None:
    """Wrap the body of every folded section of ``doctree`` in a closed ``<details>``."""
    if app.builder.format != "html":
        return
    for section in list(doctree.findall(nodes.section)):
        if not folded(section) or len(section.children) < 2:
            continue
        title = section.children[0]
        opening = nodes.raw(
            "", f'<details class="{CLASS}"><summary>{summary(section)}</summary>', format="html"
        )
        section.insert(section.index(title) + 1, opening)
        section.append(nodes.raw("", "</details>", format="html"))


def setup(app):
    app.connect("doctree-resolved", fold)
    app.add_js_file("lmnotes.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
