"""The closed-vocabulary analysis (lmnotes.studies.segmentation.comparability) on small known cases."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from lmnotes.studies.segmentation import comparability as C
from lmnotes.text import segment
from lmnotes.models.ngram import NGramModel

TRAIN = ["the cat sat on the mat .", "the dog sat on the log .", "a cat and a dog ."] * 2 + ["zebra"]


@pytest.fixture(scope="module")
def seg():
    return segment.train("word", TRAIN, min_count=2)


def test_oov_tokens_and_coverage(seg):
    assert C.oov_tokens(seg, "the zebra sat on the sofa .") == ["zebra", "sofa"]
    assert C.oov_tokens(seg, "the cat sat .") == []
    cov = C.vocabulary_coverage(seg, ["the zebra sat .", "the cat sat ."])
    assert cov["oov token rate"] == pytest.approx(1 / 8)
    assert cov["texts with oov"] == pytest.approx(0.5)


def test_oov_mass_with_wilson_interval(seg):
    samples = ["the cat sat .", "the zebra sat .", "a dog", "the sofa"]
    out = C.oov_mass(seg, samples, finished=[True, True, True, False])
    # the unfinished "the sofa" already holds an unknown word: it counts
    assert out["mass"] == pytest.approx(2 / 4) and out["dropped"] == 0
    assert out["low"] < 0.5 < out["high"]
    dropped = C.oov_mass(seg, ["the cat", "the zebra"], finished=[False, True])
    assert dropped["n"] == 1 and dropped["dropped"] == 1 and dropped["mass"] == 1.0


def test_speller_renormalises_to_unknown_words(seg):
    chars = segment.train("char", ["zebra", "sofa", "cat", "dog"], min_count=1)
    spell_lm = NGramModel(chars, 3, "kn").fit(["zebra", "sofa", "cat", "dog"])
    sp = C.Speller(spell_lm, seg.vocab)
    words = [w for w in seg.vocab if not w.startswith("<")]
    mass = math.exp(logsumexp(spell_lm.score(words).logprob))
    assert sp.vocab_mass == pytest.approx(mass) and 0 < mass < 1
    assert sp.logprob(["zebra"])[0] == pytest.approx(spell_lm.score(["zebra"]).logprob[0] - math.log1p(-mass))
    word_lp = np.array([-5.0, -7.0])
    texts = ["the cat sat .", "the zebra sat on the sofa ."]
    out = C.open_word_logprob(word_lp, texts, seg, sp)
    assert out[0] == -5.0  # no unknown word: unchanged
    assert out[1] == pytest.approx(-7.0 + sp.logprob(["zebra", "sofa"]).sum())


def test_document_ids_follow_the_training_stream():
    from toy import Bigram

    lm = Bigram()
    ids = C.document_ids(lm, ["ab", "c"])
    assert ids == lm.encode("ab") + [lm.eos_id] + lm.encode("c")
    assert C.document_counts(["ab c", "é"]) == {"word": 3 + 2, "char": 5 + 2, "byte": 6 + 2}
