import numpy as np
import pandas as pd

from lmnotes import plots


def test_dash_missing_shows_a_dash_and_keeps_the_values():
    t = pd.DataFrame({"a": [0.5, np.nan], "b": ["x", None]}, index=["r1", "r2"])
    shown = plots.dash_missing(t)
    assert shown.loc["r1", "a"] == 0.5 and shown.loc["r1", "b"] == "x"
    assert shown.loc["r2", "a"] == shown.loc["r2", "b"] == plots.MISSING
    assert "NaN" not in shown.to_html() and "None" not in shown.to_html()
    assert t.isna().sum().sum() == 2  # the input is left as it was
