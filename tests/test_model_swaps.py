"""A chapter re-run with another model list works, or stops before anything runs with the
reason: chapter 01 with a pretrained model beside one trained here, at the tiny `smoke`
profile, into a temporary folder (the pretrained model's conversion comes from the shared
cache), and with the pretrained model alone, which the chapter cannot rank."""

import json

import nbformat
import pytest

from lmnotes.book import run as book
from lmnotes.book.run import BookError


@pytest.mark.shared_cache  # the trained and converted models; its few scores and samples stay there
def test_the_models_chapter_runs_with_a_pretrained_model(tmp_path):
    before = {p: p.read_bytes() for p in book.BOOK.glob("*.ipynb")}
    names = ["wiki/transformer-bpe8k", "smollm2-135m"]
    book.run(["01_models"], profile="smoke", overrides={"model_names": names}, into=tmp_path)
    nb = nbformat.read(tmp_path / "01_models.ipynb", as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "smollm2-135m" in text and "wiki/transformer-word" not in text
    assert {p: p.read_bytes() for p in book.BOOK.glob("*.ipynb")} == before


def test_the_models_chapter_refuses_a_pretrained_model_alone_at_once(tmp_path):
    with pytest.raises(BookError, match="model_names=.* must include a self-trained model"):
        book.run(["01_models"], profile="smoke", overrides={"model_names": ["smollm2-135m"]}, into=tmp_path)
    assert not (tmp_path / "01_models.ipynb").exists()
