"""The book's one table formatter (lmnotes.report.tables) and the figure style's colours."""

import numpy as np
import pandas as pd
import pytest

from lmnotes.report import plots, tables
from lmnotes.stats.inference import Estimate


def test_missing_cells_show_a_dash_never_nan():
    t = pd.DataFrame(
        {"a": [0.5, np.nan], "b": ["x", None], "c": [Estimate(1.0, 0.5, 1.5), None]}, index=["r1", "r2"]
    )
    shown = tables.show(t)
    assert "NaN" not in shown.html and "nan" not in shown.html and "None" not in shown.html
    assert "NaN" not in shown.text and "None" not in shown.text
    assert shown.text.splitlines()[-1].split()[1:] == [tables.MISSING] * 3


def test_numbers_have_separators_and_a_stated_precision():
    t = pd.DataFrame({"count": [1234567, 89], "rate": [2.03125, 11.5], "small": [0.000123, 0.5]})
    text = tables.show(t, digits=3).text
    assert "1,234,567" in text and "89" in text
    assert " 2.0 " in text and "11.5" in text  # 3 significant digits for the largest value
    assert "0.000" in text and "0.500" in text
    assert tables.show(t, formats={"rate": "{:.1%}"}).text.count("%") == 2
    assert "2.0312" in tables.show(t, formats={"rate": 4}).text


def test_estimates_show_their_interval_under_the_value_in_html_and_beside_it_in_text():
    t = pd.DataFrame({"bits / byte": [Estimate(2.0312, 1.92, 2.15), Estimate(3.2, 3.17, 3.28)]})
    shown = tables.show(t)
    # the interval decides the precision: two significant digits of the narrowest half-width
    assert "2.031 [1.920, 2.150]" in shown.text
    assert '2.031<br><span class="ci">[1.920, 2.150]</span>' in shown.html
    no_interval = tables.show(pd.DataFrame({"x": [Estimate(1.5, np.nan, np.nan)]}))
    assert "[" not in no_interval.text and "nan" not in no_interval.text.lower()


def test_html_is_deterministic_escaped_and_captioned():
    t = pd.DataFrame({"a<b": ["<i>x</i>"]}, index=["r&1"])
    one, two = tables.show(t, "Tab. 1 <x>"), tables.show(t, "Tab. 1 <x>")
    assert one.html == two.html  # pandas draws a random table id unless it is set
    assert "<i>" not in one.html and "&lt;i&gt;" in one.html and "r&amp;1" in one.html
    assert "<caption>Tab. 1 &lt;x&gt;</caption>" in one.html
    assert one.text.startswith("Tab. 1 <x>\n")
    assert 'class="dataframe lmnotes-table"' in one.html


def test_hidden_index_infinite_values_and_booleans():
    t = pd.DataFrame({"x": [np.inf, -np.inf, 1.0], "ok": [True, False, True]})
    shown = tables.show(t, index=False)
    assert "∞" in shown.text and "−∞" in shown.text and "yes" in shown.text and "no" in shown.text
    assert "<th" not in shown.html.split("<tbody>")[1]  # no row labels
    with pytest.raises(ValueError, match="unique"):
        tables.show(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_every_model_has_one_colour_in_every_chapter():
    assert plots.model_color("wiki/transformer-bpe8k") == plots.model_color("Transformer")
    assert plots.model_color("wiki/kn3-word + speller") == plots.model_color("wiki/kn3-word")
    assert len(set(plots.MODEL_COLORS.values())) == len(plots.MODEL_COLORS)
    assert plots.model_color("my/own-model") == plots.model_color("my/own-model")
    assert plots.REFERENCE_COLOR not in plots.MODEL_COLORS.values()


def test_a_shared_precision_for_a_table_of_one_measure():
    t = pd.DataFrame({"a": [Estimate(0.034, 0.031, 0.037)], "b": [Estimate(0.42, 0.40, 0.44)]})
    assert tables.show(t).text.split()[-2:] != tables.show(t, shared=True).text.split()[-2:]
    shared = tables.show(t, shared=True).text
    assert "0.0340 [0.0310, 0.0370]" in shared and "0.4200 [0.4000, 0.4400]" in shared


def test_dash_missing_shows_a_dash_and_keeps_the_values():
    t = pd.DataFrame({"a": [0.5, np.nan], "b": ["x", None]}, index=["r1", "r2"])
    shown = tables.dash_missing(t)
    assert shown.loc["r1", "a"] == 0.5 and shown.loc["r1", "b"] == "x"
    assert shown.loc["r2", "a"] == shown.loc["r2", "b"] == tables.MISSING
    assert "NaN" not in shown.to_html() and "None" not in shown.to_html()
    assert t.isna().sum().sum() == 2  # the input is left as it was


def test_index_names_stand_in_the_header_not_in_a_row_of_their_own():
    t = pd.DataFrame(
        {"a": [1, 2]}, index=pd.MultiIndex.from_tuples([("m", "s"), ("m", "t")], names=["model", "strategy"])
    )
    html = tables.show(t).html
    assert html.count("<tr>") == 3  # one header row, two rows of data
    assert '<th class="index_name" >model</th>' in html and '<th class="index_name" >strategy</th>' in html

    named = pd.DataFrame(
        [[1, 2]], columns=pd.Index(["1–5", "6–10"], name="bin"), index=pd.Index(["a"], name="model")
    )
    html = tables.show(named).html
    assert '<th class="index_name" >model</th>' in html and ">bin<" not in html  # not over the wrong column


def test_significant_digits_per_value_with_infinities():
    from lmnotes.stats.inference import Estimate

    f = tables.significant(3)
    assert f(-1234.5678) == "−1,230" and f(0.000123456) == "0.000123"
    assert f(float("-inf")) == "−∞" and f(float("inf")) == "∞"
    assert f(Estimate(1.0, 0.5, 2.25)) == "1.00 [0.500, 2.25]"


def test_a_model_given_by_path_is_labelled_by_its_file_name():
    from lmnotes.report import plots

    assert plots.label("/home/me/models/SmolLM2-135M-Instruct.Q4_1.gguf") == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert plots.label("~/models/my-model") == "my-model" and plots.label("my.gguf") == "my.gguf"
    assert plots.label("smollm2-135m") == "SmolLM2-135M" and plots.label("org/name") == "org/name"


def test_inline_math_goes_to_mathjax_and_rows_can_carry_ids():
    """``$...$`` in a cell (a claim's words) becomes inline math as Sphinx writes it, which
    MathJax typesets inside a notebook's output; the text keeps the dollars. Row ids make
    each row a link target (a claims table's claim-02-7a)."""
    df = pd.DataFrame({"claim": ["falls with $\\log p_L$", "costs $5 or $6"]})
    t = tables.show(df, index=False, row_ids=["claim-06-2c", "claim-06-3"])
    assert '<span class="math notranslate nohighlight">\\(\\log p_L\\)</span>' in t.html
    assert "costs $5 or $6" in t.html  # a dollar before a space does not open math
    assert '<tr id="claim-06-2c">' in t.html and '<tr id="claim-06-3">' in t.html
    assert "falls with $\\log p_L$" in t.text
    with pytest.raises(ValueError, match="row ids"):
        tables.show(df, row_ids=["one"])
