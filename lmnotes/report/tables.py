"""How the book shows a table: :func:`show`, which every chapter calls for every result table.

A table is formatted once, by one set of rules, for the two ways it is read:

- the rendered book reads its HTML, made by pandas' ``Styler`` (caption, escaped labels,
  hidden index, a stable table id): an estimate with an interval is shown as its value with
  the interval underneath in smaller type, so that a column holds one number's width, not
  three;
- nbval and a reader of the ``.ipynb`` read its plain text, the same cells on one line each.

The rules: an empty cell shows :data:`MISSING` (never ``NaN``); integers have thousands
separators; the floats of a column are shown with ``digits`` significant digits for its
largest value, all with the same number of decimals so that they align; ``formats`` overrides
a column's rule with a format string (``"{:.1%}"``) or a callable.
"""

from __future__ import annotations

import hashlib
import html
import math
import numbers
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

#: What a table shows in a cell that has no value (a statistic that does not apply to the row).
MISSING = "–"


def dash_missing(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its missing cells shown as :data:`MISSING` instead of NaN (for text output,
    e.g. on the command line; chapters use :func:`show`)."""
    return table.astype(object).where(table.notna(), MISSING)


def pvalue(p: float) -> str:
    """A p-value as tables show it: two significant digits, and "< 0.001" below 0.001 (the
    digits of a smaller p-value are not worth reading: they rest on the test's tails)."""
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def significant(digits: int = 3) -> Callable[[Any], str]:
    """A cell formatter that gives every value ``digits`` significant digits of its own (for a
    column whose values span orders of magnitude), infinities as ∞ and a true minus sign; an
    estimate as its value and interval."""

    def one(x) -> str:
        x = float(x)
        if not math.isfinite(x):
            return "∞" if x > 0 else "−∞"
        if x == 0 or not 1e-4 <= abs(x) < 1e6:
            return f"{x:.{digits}g}".replace("-", "−")
        shift = digits - 1 - math.floor(math.log10(abs(x)))  # decimals for the digits
        return f"{round(x, shift):,.{max(shift, 0)}f}".replace("-", "−")

    return lambda x: f"{one(x.value)} [{one(x.low)}, {one(x.high)}]" if _is_estimate(x) else one(x)


def text(x, digits: int = 3) -> str:
    """A number, or an estimate with its interval ("value [low, high]"), for prose: ``digits``
    significant digits of its own each (:func:`significant`)."""
    return significant(digits)(x)


def fixed(e, digits: int = 3) -> str:
    """An estimate as "value [low, high]" with ``digits`` decimals and a true minus sign."""
    return f"{e.value:.{digits}f} [{e.low:.{digits}f}, {e.high:.{digits}f}]".replace("-", "−")


def _is_estimate(x: Any) -> bool:
    return all(hasattr(x, a) for a in ("value", "low", "high"))


def _missing(x: Any) -> bool:
    if x is None or x is pd.NA or x is pd.NaT:
        return True
    if _is_estimate(x):
        return _missing(x.value)
    return isinstance(x, float) and math.isnan(x)


def _number(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, (bool, np.bool_))


def decimals(values, digits: int = 3, most: int = 6) -> int:
    """Decimals that give the largest finite magnitude among ``values`` ``digits`` significant
    digits (0 for numbers of ``digits`` or more figures, at most ``most``)."""
    finite = [abs(float(v)) for v in values if _number(v) and math.isfinite(float(v)) and v != 0]
    if not finite:
        return min(digits - 1, most)
    return int(min(max(digits - 1 - math.floor(math.log10(max(finite))), 0), most))


def _column_formatter(
    values: pd.Series, digits: int, spec: str | Callable | int | None
) -> Callable[[Any], str]:
    """The function that turns one cell of a column into text."""
    if callable(spec):
        return spec
    if isinstance(spec, str):
        return spec.format
    flat = [part for x in values for part in ((x.value, x.low, x.high) if _is_estimate(x) else (x,))]
    floats = [x for x in flat if _number(x) and not float(x).is_integer()]
    places = spec if isinstance(spec, int) else decimals(floats or flat, digits)
    # an estimate is shown to the precision of its interval: two significant digits of the
    # narrowest half-width in the column, if that needs more decimals than ``digits`` give
    halves = [
        (x.high - x.low) / 2
        for x in values
        if _is_estimate(x) and not _missing(x) and math.isfinite(x.high - x.low) and x.high > x.low
    ]
    if halves and not isinstance(spec, int):
        places = int(min(max(places, 1 - math.floor(math.log10(min(halves)))), 6))
    all_int = (
        all(
            isinstance(x, (numbers.Integral, np.integer)) or (_number(x) and float(x).is_integer())
            for x in flat
            if _number(x) and math.isfinite(float(x))
        )
        and not floats
    )

    def number(x) -> str:
        if not math.isfinite(float(x)):
            return "∞" if x > 0 else "−∞" if x < 0 else MISSING
        if all_int and not isinstance(spec, int):
            return f"{int(x):,}"
        return f"{float(x):,.{places}f}".replace("-", "−")

    def fmt(x) -> str:
        if _is_estimate(x):
            if _missing(x.low) or _missing(x.high):  # an estimate without an interval
                return number(x.value)
            return f"{number(x.value)} [{number(x.low)}, {number(x.high)}]"
        if isinstance(x, (bool, np.bool_)):
            return "yes" if x else "no"
        if _number(x):
            return number(x)
        return str(x)

    return fmt


@dataclass
class Table:
    """A formatted table: HTML for the book, plain text for the notebook file and nbval."""

    html: str
    text: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def folded(table: Table, summary: str) -> Table:
    """``table`` folded under a line the reader clicks to open (a long table that backs up
    what the page says, such as every case of a claims table)."""
    return Table(
        html=f'<details class="lmnotes-folded-table"><summary>{html.escape(summary)}</summary>'
        f"{table.html}</details>",
        text=f"{summary}\n{table.text}",
    )


#: Inline math in a cell's text, ``$\\log p_L$`` (as MyST writes it): the HTML gives it to
#: MathJax as Sphinx writes inline math, ``<span class="math">\\(\\log p_L\\)</span>``
#: (MathJax skips the rest of a page's notebook output, which myst-nb marks ``mathjax_ignore``).
_MATH = re.compile(r"\$(?=\S)([^$\n]+?)(?<=\S)\$")


def _math(escaped: str) -> str:
    """Escaped HTML with its ``$...$`` spans handed to MathJax."""
    return _MATH.sub(r'<span class="math notranslate nohighlight">\\(\1\\)</span>', escaped)


def _html(x: Any, text: str) -> str:
    """HTML of a cell shown as ``text``: an estimate's interval goes under its value, smaller;
    inline math (``$...$``) is typeset."""
    value, sep, rest = text.partition(" [")
    if not (_is_estimate(x) and sep):
        return _math(html.escape(text))
    return f'{html.escape(value)}<br><span class="ci">[{html.escape(rest)}</span>'


def _row_ids(body: str, ids) -> str:
    """``body`` (a table's HTML) with the id ``ids[i]`` on the i-th row of its body."""
    head, sep, rest = body.partition("<tbody>")
    rows = rest.split("<tr>")
    if len(rows) - 1 != len(ids):
        raise ValueError(f"{len(ids)} row ids for {len(rows) - 1} rows")
    return (
        head + sep + rows[0] + "".join(f'<tr id="{html.escape(str(i))}">{r}' for i, r in zip(ids, rows[1:]))
    )


def show(
    df: pd.DataFrame | pd.Series,
    caption: str | None = None,
    *,
    digits: int = 3,
    formats: Mapping[Any, str | Callable | int] | None = None,
    index: bool = True,
    shared: bool = False,
    row_ids: Sequence[str] | None = None,
) -> Table:
    """``df`` formatted by the book's rules (see the module's docstring).

    Parameters
    ----------
    df : the table; a Series is shown as a one-column table. Cells may hold numbers, strings,
        booleans (yes/no), missing values (:data:`MISSING`) or estimates with ``value``,
        ``low`` and ``high`` (``lmnotes.stats.Estimate``), shown with their interval.
    caption : shown above the table.
    digits : significant digits of each float column's largest value.
    formats : per column, a format string, a callable, or a number of decimals.
    index : False hides the index (a table of samples, whose row numbers mean nothing).
    shared : one precision for every column (a table of one measure, a column per setting).
    row_ids : an HTML id for each row, a target a link can point at (a claims table's rows,
        ``claim-02-7a``).
    """
    if isinstance(df, pd.Series):
        df = df.to_frame()
    formats = dict(formats or {})
    if not df.columns.is_unique:
        raise ValueError("show() needs unique column labels")
    if shared:
        one = _column_formatter(pd.Series(df.to_numpy().ravel()), digits, None)
        fmts = {c: _column_formatter(df[c], digits, formats[c]) if c in formats else one for c in df.columns}
    else:
        fmts = {c: _column_formatter(df[c], digits, formats.get(c)) for c in df.columns}

    def cell(c, x) -> str:
        return MISSING if _missing(x) else fmts[c](x)

    shown_index = df.index
    if not isinstance(df.index, pd.MultiIndex) and pd.api.types.is_numeric_dtype(df.index):
        label = _column_formatter(pd.Series(df.index), digits, None)
        shown_index = pd.Index([MISSING if _missing(x) else label(x) for x in df.index], name=df.index.name)
    text_df = pd.DataFrame({c: [cell(c, x) for x in df[c]] for c in df.columns}, index=shown_index)
    text_df.columns = df.columns
    shown_text = text_df.to_string(index=index)
    if caption:
        shown_text = f"{caption}\n{shown_text}"

    html_df = pd.DataFrame(
        {c: [_html(x, t) for x, t in zip(df[c], text_df[c])] for c in df.columns}, index=shown_index
    )
    # the header's blank cells hold the index's names (below); the columns' own name, which
    # pandas would put there, is for the caption to say
    html_df.columns = df.columns.set_names([None] * df.columns.nlevels)
    styler = Styler(html_df, cell_ids=False).format_index(escape="html", axis=0)
    styler = styler.format_index(escape="html", axis=1)
    if not index:
        styler = styler.hide(axis="index")
    elif any(df.index.names):
        # pandas puts the index's names in a row of their own under the header, and has no
        # option to put them in the header: they are hidden here and written into the
        # header's blank cells below
        styler = styler.hide(axis="index", names=True)
    if caption:
        styler = styler.set_caption(html.escape(caption))
    # a stable id (pandas draws a random one), so that the same table gives the same HTML
    styler = styler.set_uuid(hashlib.sha1(shown_text.encode()).hexdigest()[:8])
    styler = styler.set_table_attributes('class="dataframe lmnotes-table"')
    body = styler.to_html(cell_ids=False)
    if index and any(df.index.names):
        # the blank cells over the row labels, in the header's last row, take their names
        head, sep, rest = body.partition("</thead>")
        last_row = head.rfind("<tr>")
        cells = re.split(r'(<th class="blank[^"]*" >&nbsp;</th>)', head[last_row:])
        names = iter(df.index.names)
        for i, part in enumerate(cells):
            if part.startswith('<th class="blank'):
                name = next(names, None)
                cells[i] = f'<th class="index_name" >{html.escape(str(name)) if name else "&nbsp;"}</th>'
        body = head[:last_row] + "".join(cells) + sep + rest
    if row_ids is not None:
        body = _row_ids(body, list(row_ids))
    return Table(html=f'<div class="lmnotes-table-wrap">{body}</div>', text=shown_text)
