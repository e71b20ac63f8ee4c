"""Chapter 01's scoreboard (lmnotes.studies.segmentation.scoreboard) on the toy bigram, whose
scores have a closed form: each row's bits per byte is the corpus rate of its scores, and the
share of <unk> counts the end-of-sentence symbol."""

import math

import numpy as np
import pytest

from lmnotes.studies.segmentation import scoreboard as S
from lmnotes.text.segment import WordSegmentation
from toy import Bigram

TEST = ["abc de", "fg a", "bad cafe", "ge"]
ARTICLE = np.array([0, 0, 1, 2])


@pytest.fixture
def board(monkeypatch):
    toys = {"toy-a": Bigram(seed=0), "toy-b": Bigram(seed=1)}
    monkeypatch.setattr(S.models, "load", lambda name, device, **kw: toys[name])
    monkeypatch.setattr(S.memo, "score", lambda lm, texts: lm.score(texts))  # no cache writes
    return S.score_models(
        list(toys),
        TEST,
        TEST,
        ARTICLE,
        device="cpu",
        size="cpu",
        speller_order=2,
        corpus="enwiki",
        n_boot=50,
        seed=0,
    ), toys


def test_every_model_is_a_row_with_its_bits_per_byte(board):
    board, toys = board
    assert list(board.table.index) == ["toy-a", "toy-b"]
    assert (board.table["vocabulary"] == "open").all() and not board.table["trained here"].any()
    for name, lm in toys.items():
        s = lm.score(TEST)
        bits = -s.logprob.sum() / math.log(2) / sum(len(t.encode()) + 1 for t in TEST)  # + end of sentence
        assert board.bpb[name].value == pytest.approx(bits, rel=1e-9)
        assert board.table.loc[name, "bits / byte"].value == board.bpb[name].value
        assert board.bpb[name].low < board.bpb[name].value < board.bpb[name].high
        assert board.lms[name] is lm


def test_unk_share_counts_end_of_sentence():
    seg = WordSegmentation(["the cat sat", "the dog"], vocab_size=None, min_count=2)  # keeps only "the"
    # "the cat" and "a dog": 4 words + 2 ends of sentence, 3 of them <unk>
    assert S.unk_share(seg, ["the cat", "a dog"]) == pytest.approx(3 / 6)
