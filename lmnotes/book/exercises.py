"""Exercises numbered per page: a Sphinx extension of the book (``_config.yml``), so that each
chapter's exercises read "Exercise 1", "Exercise 2" (and their solutions "Solution to
Exercise 1"), not the book-wide count that chapter 06 showed as "Exercise 9" and "10".

sphinx-exercise numbers its exercises through Sphinx's ``numfig``, whose counter runs across
the whole book unless the table of contents is ``numbered``; then every heading of the book
gets a section number too, and a chapter's exercises read "Exercise 3.1" in chapter 02 (its
place in the contents, not its name), which ``numfig_secnum_depth`` cannot change. So this
extension renumbers, after Sphinx has assigned the numbers, the exercises of each page from
1 in the order Sphinx numbered them (the page's order). Cross-references stay unambiguous:
the book's exercises are referred to from their own page only.
"""

from __future__ import annotations

#: The numbered kinds renumbered per page (sphinx-exercise's ``exercise`` figure type).
PER_PAGE = ("exercise",)


def per_page(app, env) -> list[str]:
    """Renumber each page's exercises 1, 2, ... (``env.toc_fignumbers``, which sphinx-exercise
    reads for the titles and references); return the pages whose numbers changed, for Sphinx
    to write again."""
    changed = []
    for docname, kinds in env.toc_fignumbers.items():
        for kind in PER_PAGE:
            numbers = kinds.get(kind)
            if not numbers:
                continue
            renumbered = {ids: (i + 1,) for i, ids in enumerate(sorted(numbers, key=numbers.get))}
            if renumbered != numbers:
                kinds[kind] = renumbered
                changed.append(docname)
    return changed


def setup(app):
    # after Sphinx's own toctree collector (priority 500), which assigns the book-wide numbers
    app.connect("env-get-updated", per_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
