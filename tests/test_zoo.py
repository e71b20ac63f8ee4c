"""The model registry's choice of models (lmnotes.models.zoo.chosen), which chapter 01 shows."""

import pytest

from lmnotes import models
from lmnotes.book import run as book
from lmnotes.core import checks
from lmnotes.models import zoo


def test_every_registered_model_less_those_left_out_including_one_registered_later(monkeypatch):
    monkeypatch.setitem(zoo.REGISTRY, "zz-later", zoo.Entry("zz-later", "registered after the profile", None))
    shown = models.chosen([], ["gemma3-270m"])
    assert "zz-later" in shown and "gemma3-270m" not in shown and "smollm2-135m" in shown
    assert models.chosen(["wiki/kn3-word", "gemma3-270m"], ["gemma3-270m"]) == ["wiki/kn3-word"]


def test_the_default_profile_shows_every_model_but_gemma_in_chapter_01():
    values = {**book.declared_parameters("01_models"), **book.profile_values("01_models", "default")}
    shown = models.chosen(values["model_names"], values["leave_out"])
    assert shown == [n for n in models.names() if n != "gemma3-270m"]


def test_leave_out_takes_registered_names_only():
    assert checks.registered("gemma3-270m") is None
    assert "not a registered model" in checks.registered("gemma-3")
    with pytest.raises(book.BookError, match="leave_out"):
        book.resolve_parameters(["01_models"], "default", {"leave_out": ["gemma-3"]})
