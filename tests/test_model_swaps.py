"""A chapter re-run with another model list works, or stops before anything runs with the
reason. At the tiny `smoke` profile (params/smoke.yaml), into a temporary folder: chapter 01
with a pretrained model beside one trained here, and with the pretrained model alone, which
it cannot rank; chapter 02 with the pretrained model alone, refused; chapters 03-06 with
every parameter that takes pretrained models set to SmolLM2 alone (the pretrained model's
conversion comes from the shared cache). The numbers of such a run mean nothing; that it
runs through, or stops at once, is the test."""

import json

import nbformat
import pytest

from lmnotes.book import run as book
from lmnotes.book.run import BookError
from lmnotes.models import zoo

#: Each study chapter's parameters that take pretrained models, as the smoke profile sets them.
PRETRAINED_ONLY = {
    "03_segmentation": ("pretrained",),
    "04_importance_sampling": ("tokenization_models",),
    "05_word_level": ("pretrained", "encoder_model"),
    "06_distortion": ("pretrained_language",),
}


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


def test_the_tendencies_chapter_refuses_a_pretrained_model_alone_at_once(tmp_path):
    with pytest.raises(BookError, match="model_names=.* must include a self-trained model"):
        book.run(
            ["02_tendencies"], profile="smoke", overrides={"model_names": ["smollm2-135m"]}, into=tmp_path
        )
    assert not (tmp_path / "02_tendencies.ipynb").exists()


@pytest.mark.shared_cache
@pytest.mark.parametrize("name", sorted(PRETRAINED_ONLY))
def test_a_study_chapter_runs_with_pretrained_models_only(tmp_path, name):
    values = {p.name: p.default for p in book.parameters(name).values()} | book.profile_values(name, "smoke")
    for parameter in PRETRAINED_ONLY[name]:
        chosen = values[parameter] if isinstance(values[parameter], list) else [values[parameter]]
        assert chosen == ["smollm2-135m"] and zoo.kind_of(chosen[0]) == "pretrained", parameter
    before = {p: p.read_bytes() for p in book.BOOK.glob("*.ipynb")}
    book.run([name], profile="smoke", into=tmp_path)
    nb = nbformat.read(tmp_path / f"{name}.ipynb", as_version=4)
    assert "smollm2" in json.dumps([c.get("outputs", []) for c in nb.cells]).lower()
    assert {p: p.read_bytes() for p in book.BOOK.glob("*.ipynb")} == before


@pytest.mark.shared_cache
def test_the_refusals_own_advice_runs_through(tmp_path):
    """Chapter 02 with SmolLM2 alone is refused with a list to use instead; that list runs the
    chapter to its end (it once failed after 34 minutes: an exercise named a model the list
    did not hold)."""
    with pytest.raises(BookError, match=r"e\.g\. \[") as refused:
        book.run(
            ["02_tendencies"], profile="smoke", overrides={"model_names": ["smollm2-135m"]}, into=tmp_path
        )
    advice = str(refused.value).rsplit("e.g. ", 1)[1].strip().rstrip(".")
    names = [n.strip() for n in advice.strip("[]").split(",")]
    assert "smollm2-135m" in names and len(names) == 2
    before = {p: p.read_bytes() for p in book.BOOK.glob("*.ipynb")}
    book.run(["02_tendencies"], profile="smoke", overrides={"model_names": names}, into=tmp_path)
    nb = nbformat.read(tmp_path / "02_tendencies.ipynb", as_version=4)
    assert names[0] in json.dumps([c.get("outputs", []) for c in nb.cells])
    assert {p: p.read_bytes() for p in book.BOOK.glob("*.ipynb")} == before
