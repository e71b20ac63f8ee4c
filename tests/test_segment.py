"""Segmentations (lmnotes.text.segment): round trips, closed vocabularies, pickling."""

import pickle

import pytest

from lmnotes.text import segment

TRAIN = ["The cat sat on the mat.", "The dog sat on the log.", "A cat and a dog met."] * 3
NEW = "The cat met an aardvark — naïve, isn't it?"


@pytest.mark.parametrize("kind, vocab_size", [("byte", None), ("bpe", 300)])
def test_open_vocabularies_round_trip_any_text(kind, vocab_size):
    seg = segment.train(kind, TRAIN, vocab_size=vocab_size)
    assert seg.open_vocabulary
    for text in TRAIN + [NEW, "", "日本語 🙂"]:
        ids = seg.encode(text)
        assert segment.UNK not in ids and min(ids, default=3) > segment.UNK
        assert seg.decode(ids) == text


def test_bpe_merges_frequent_strings():
    seg = segment.train("bpe", TRAIN * 10, vocab_size=300)
    assert len(seg.encode(TRAIN[0])) < len(TRAIN[0].encode()) / 2
    with pytest.raises(ValueError, match="vocab_size"):
        segment.train("bpe", TRAIN, vocab_size=100)


def test_word_vocabulary_is_closed():
    seg = segment.train("word", TRAIN, min_count=2)
    assert not seg.open_vocabulary
    assert seg.vocab[:3] == list(segment.SPECIALS)
    ids = seg.encode("The cat met an aardvark.")
    assert [seg.vocab[i] for i in ids] == ["The", "cat", "met", "<unk>", "<unk>", "."]
    assert seg.decode(seg.encode(TRAIN[0])) == TRAIN[0]
    capped = segment.train("word", TRAIN, vocab_size=6, min_count=1)
    assert capped.vocab_size == 6 and capped.vocab[3:] == [".", "The", "cat"]  # by count, then by string


def test_char_vocabulary():
    seg = segment.train("char", TRAIN, min_count=1)
    assert seg.decode(seg.encode(TRAIN[1])) == TRAIN[1]
    assert seg.encode("é")[0] == segment.UNK and seg.decode(seg.encode("é")) == "\ufffd"


@pytest.mark.parametrize("kind", segment.KINDS)
def test_segmentations_pickle(kind):
    seg = segment.train(kind, TRAIN, vocab_size=300 if kind == "bpe" else None, min_count=1)
    again = pickle.loads(pickle.dumps(seg))
    assert again.encode(NEW) == seg.encode(NEW) and again.vocab == seg.vocab


def test_unknown_segmentation():
    with pytest.raises(ValueError, match="unknown segmentation"):
        segment.train("morpheme", TRAIN)


@pytest.mark.parametrize("kind, vocab_size", [("byte", None), ("bpe", 300), ("char", None)])
def test_token_bytes_spell_out_the_text(kind, vocab_size):
    seg = segment.train(kind, TRAIN + [NEW], vocab_size=vocab_size, min_count=1)
    tb = seg.token_bytes()
    assert len(tb) == seg.vocab_size and tb[:3] == [None] * 3
    for text in TRAIN + [NEW]:
        assert b"".join(tb[i] for i in seg.encode(text)) == text.encode("utf-8")


def test_word_tokens_do_not_spell_out_the_text():
    with pytest.raises(ValueError, match="closed vocabulary"):
        segment.train("word", TRAIN).token_bytes()
