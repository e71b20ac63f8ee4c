"""The values a chapter's prose reads: numbers and text for ``{glue:text}``, sentences for
``{glue:md}`` (myst-nb's glue). A study function returns the values of one step as a dict,
in the order the chapter glues them, and the chapter's cell glues them with :func:`glue_all`
(the glue must happen in the cell: its outputs belong to the notebook). Every chapter.
"""

from __future__ import annotations

from typing import Mapping

from IPython.display import Markdown
from myst_nb import glue


class Prose(str):
    """A sentence glued as Markdown (for ``{glue:md}``), not as plain text."""


def glue_md(name: str, text: str, display: bool = False) -> None:
    """Glue a sentence for ``{glue:md}``, as Markdown."""
    glue(name, Markdown(str(text)), display=display)


def glue_all(values: Mapping[str, object]) -> None:
    """Glue each value by its name, in order: :class:`Prose` as Markdown, the rest as numbers
    and text."""
    for name, value in values.items():
        if isinstance(value, Prose):
            glue_md(name, value)
        else:
            glue(name, value, display=False)
