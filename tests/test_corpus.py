"""The embedded corpus and the corpus API (lmnotes.text.corpus)."""

import re

import pytest

from lmnotes.core import cache as lmcache
from lmnotes.text import corpus as lmcorpus
from lmnotes.text.corpus import CorpusError

MARKUP = [
    "<ref",
    "</ref",
    "{{",
    "}}",
    "[[",
    "]]",
    "|-",
    "{|",
    "|}",
    "&amp;",
    "&nbsp;",
    "&lt;",
    "&gt;",
    "&quot;",
    "&#",
    "''",
    "<!--",
    "http://",
    "https://",
    "www.",
    "==",
    "__TOC__",
    "Category:",
    "File:",
    "Image:",
    "thumb|",
]


def test_no_markup_residue(enwiki):
    for name, split in enwiki.splits.items():
        text = "\n".join(split.sentences)
        for residue in MARKUP:
            assert residue not in text, f"{residue!r} in the {name} split"
        assert not re.search(r"</?(ref|div|span|small|br|sup|sub|math|table)\b", text, re.I)


def test_size_of_embedded_corpus(enwiki):
    stats = enwiki.stats()
    assert stats.loc["total", "articles"] >= 90
    assert stats.loc["total", "words"] >= 400_000  # Moses tokens, the corpus's word view
    for split in lmcorpus.SPLITS:
        assert stats.loc[split, "sentences"] > 1000


def test_views_are_aligned_and_tokenized(enwiki):
    test = enwiki["test"]
    assert len(test.sentences) == len(test.words)
    for sentence, words in zip(test.sentences[:200], test.words[:200]):
        assert words == lmcorpus.moses_words(sentence)
        assert all(w == w.lower() for w in words)
    assert "\n\n" in test.texts[0] or len(test.documents[0].paragraphs) == 1


def test_splits_are_disjoint_by_article_and_cover_the_corpus(enwiki):
    titles = {name: {d.title for d in s.documents} for name, s in enwiki.splits.items()}
    assert not titles["train"] & titles["valid"]
    assert not titles["train"] & titles["test"]
    assert not titles["valid"] & titles["test"]
    n = sum(map(len, titles.values()))
    assert len(titles["train"]) == pytest.approx(0.8 * n, abs=1)
    sentences = {name: set(s.sentences) for name, s in enwiki.splits.items()}
    assert len(sentences["test"] - sentences["train"]) > 0.95 * len(sentences["test"])


def test_assign_splits_is_deterministic_and_order_free():
    titles = [f"article {i}" for i in range(200)]
    a = dict(zip(titles, lmcorpus.assign_splits(titles, (0.8, 0.1, 0.1), seed=0)))
    rev = titles[::-1]
    b = dict(zip(rev, lmcorpus.assign_splits(rev, (0.8, 0.1, 0.1), seed=0)))
    assert a == b
    assert sorted(a.values()).count("test") == 20
    c = dict(zip(titles, lmcorpus.assign_splits(titles, (0.8, 0.1, 0.1), seed=1)))
    assert c != a


def test_full_preparation_is_deterministic(enwiki, tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))
    fresh = lmcorpus.load(cache=False)
    assert fresh.key == enwiki.key
    for name in lmcorpus.SPLITS:
        assert fresh[name].documents == enwiki[name].documents
        assert fresh[name].words == enwiki[name].words
    assert list(tmp_path.iterdir()) == []  # cache=False writes nothing


@pytest.mark.parametrize("fractions", [(0.5, 0.5), (0.9, 0.2, -0.1), (0.5, 0.2, 0.2)])
def test_bad_fractions(fractions):
    with pytest.raises(CorpusError, match="fractions"):
        lmcorpus.assign_splits(["a", "b", "c"], fractions, seed=0)


def _texts(folder, n):
    folder.mkdir()
    for i in range(n):
        (folder / f"doc{i}.txt").write_text(
            f"Document {i} opens here. It has a second sentence, Mr. Smith said.\n\n"
            f"A second paragraph of document {i} follows it.\n"
        )
    return folder


def test_local_folder_corpus(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))
    c = lmcorpus.load(str(_texts(tmp_path / "docs", 20)))
    assert sum(len(s.documents) for s in c.splits.values()) == 20
    doc = c["train"].documents[0]
    assert doc.sentences[1] == "It has a second sentence, Mr. Smith said."
    assert doc.text.count("\n\n") == 1
    listed = lmcache.entries()
    assert [(e.kind, e.name, e.status) for e in listed] == [("corpus", "docs", "current")]
    assert lmcorpus.load(str(tmp_path / "docs")).key == c.key  # from the cache


def test_empty_split_is_an_error_and_caches_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))
    with pytest.raises(CorpusError, match="split 'valid' .* is empty"):
        lmcorpus.load(str(_texts(tmp_path / "docs", 3)), fractions=(0.9, 0.05, 0.05))
    assert lmcache.entries() == []  # no entry and no leftover temporary folder


def test_empty_text_file_is_an_error(tmp_path):
    (tmp_path / "empty.txt").write_text("\n\n  \n")
    with pytest.raises(CorpusError, match="no documents"):
        lmcorpus.load(str(tmp_path / "empty.txt"), cache=False)


def test_unknown_source_names_the_default():
    with pytest.raises(CorpusError, match="enwiki"):
        lmcorpus.load("no-such-corpus-anywhere")


def test_hf_dataset_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(CorpusError, match="embedded default 'enwiki'"):
        lmcorpus.load("wikitext-103-raw-v1", cache=False)


def test_wikitext_grouping():
    lines = [
        " = Valkyria = \n",
        " \n",
        " Senjō no Valkyria is a game . \n",
        " = = Gameplay = = \n",
        " It is played . \n",
        " = Tower Building = \n",
        " A tower stands . \n",
    ]
    assert lmcorpus.wikitext_articles(lines) == [
        ("Valkyria", ["Senjō no Valkyria is a game .", "It is played ."]),
        ("Tower Building", ["A tower stands ."]),
    ]


@pytest.mark.parametrize("damage", ["truncate", "garbage", "missing"])
def test_corrupt_or_missing_dump_is_a_clear_error(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path / "cache"))
    bad = tmp_path / "dump.xml.bz2"
    if damage == "truncate":
        data = lmcorpus.embedded_path().read_bytes()
        bad.write_bytes(data[: len(data) // 50])
    elif damage == "garbage":
        bad.write_bytes(b"BZh9 this is not a bzip2 stream at all")
    if damage == "missing":
        monkeypatch.setattr(lmcorpus, "EMBEDDED_RESOURCE", ("gensim", "test/test_data/no-such-dump.bz2"))
    else:
        monkeypatch.setattr(lmcorpus, "embedded_path", lambda: bad)
    with pytest.raises(CorpusError, match="corrupt|missing"):
        lmcorpus.load()
    assert not (tmp_path / "cache").exists() or lmcache.entries() == []


@pytest.mark.parametrize(
    "content, message",
    [
        (
            b"caf\xe9 au lait is nice and warm.\n",
            r"bad\.txt is not UTF-8 text \(byte b'\\xe9' at line 1\); convert it",
        ),
        (b"\x89PNG\r\n\x1a\n\x00\x00", r"bad\.txt is not a text file \(it holds NUL bytes\)"),
    ],
)
def test_a_file_that_is_not_utf8_text_is_named(tmp_path, content, message):
    folder = _texts(tmp_path / "docs", 12)
    (folder / "bad.txt").write_bytes(content)
    with pytest.raises(CorpusError, match=message):
        lmcorpus.load(str(folder), cache=False)
    with pytest.raises(CorpusError, match=message):
        lmcorpus.load(str(folder / "bad.txt"), cache=False)


def test_describe_follows_the_source(tmp_path):
    assert "Wikipedia" in lmcorpus.describe("enwiki")["what"]
    folder = _texts(tmp_path / "docs", 4)
    about = lmcorpus.describe(str(folder))
    assert "the 4 `.txt` files of the folder `docs`" in about["what"] and "Wikipedia" not in str(about)
    assert "blank lines" in lmcorpus.describe(str(folder / "doc0.txt"))["what"]
