"""Rank–frequency and type–token statistics (lmnotes.stats.laws) against brute force."""

import numpy as np
import pytest

from lmnotes.stats.laws import rank_frequency, type_token_curve


def test_rank_frequency_orders_counts_and_breaks_ties_by_type():
    rf = rank_frequency("b a c a b a d".split())
    assert rf["type"].tolist() == ["a", "b", "c", "d"]
    assert rf["count"].tolist() == [3, 2, 1, 1]
    assert rf["rank"].tolist() == [1, 2, 3, 4]
    assert rf["freq"].sum() == pytest.approx(1.0)


def test_type_token_curve_matches_brute_force():
    rng = np.random.default_rng(0)
    tokens = [f"w{k}" for k in rng.zipf(1.5, size=2000)]
    tt = type_token_curve(tokens)
    brute = [len(set(tokens[:n])) for n in range(1, len(tokens) + 1)]
    assert tt["types"].tolist() == brute
    sub = type_token_curve(tokens, points=30)
    assert sub["tokens"].iloc[0] == 1 and sub["tokens"].iloc[-1] == len(tokens)
    assert sub["types"].tolist() == [brute[n - 1] for n in sub["tokens"]]
    assert np.all(np.diff(sub["tokens"]) > 0)


@pytest.mark.parametrize("fn", [rank_frequency, type_token_curve])
def test_empty_input_is_an_error(fn):
    with pytest.raises(ValueError, match="at least one token"):
        fn([])
