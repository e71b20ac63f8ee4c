"""The tendencies study's view of text and its comparison (lmnotes.studies.tendencies.measures)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as ss

from lmnotes.stats import clusters, laws
from lmnotes.text import segment
from lmnotes.studies.tendencies import measures as T


def test_tokenize_is_the_sources_view_and_keeps_unk_whole():
    assert T.tokenize("The cat, 2 <unk> dogs!") == ["the", "cat", ",", "2", "<unk>", "dogs", "!"]
    assert T.tokenize("") == []


def test_symbols_and_stopwords():
    assert T.is_symbol(",") and T.is_symbol("1990") and T.is_symbol("--") and T.is_symbol("3.5")
    assert not T.is_symbol("b2") and not T.is_symbol("the") and not T.is_symbol("")
    s = T.TextSet.from_texts("s", ["The cat sat on the mat .", "1990 , 12", ""])
    assert s.lengths.tolist() == [7, 3, 0]
    assert s.types.tolist() == [6, 3, 0]
    assert s.symbol_fraction.tolist() == pytest.approx([1 / 7, 1.0, 0.0])
    # gensim's list has "the" and "on", not "cat"/"sat"/"mat"
    assert s.stopword_fraction[0] == pytest.approx(3 / 7)
    with pytest.raises(ValueError, match="no documents"):
        T.TextSet.from_texts("e", [])


def test_rank_pmf_sorts_truncates_and_pads():
    p = T.rank_pmf(np.array([1, 5, 0, 2]), max_rank=3)
    assert p.tolist() == [[5 / 8, 2 / 8, 1 / 8]]
    assert T.rank_pmf(np.array([3, 1]), max_rank=4).tolist() == [[0.75, 0.25, 0, 0]]


def _zipf_texts(n_docs, s, rng, vocab=2000):
    p = laws.zipf_pmf(s, vocab)
    lengths = rng.integers(5, 40, size=n_docs)
    return [" ".join(f"w{k}" for k in rng.choice(vocab, size=n, p=p)) for n in lengths]


def test_compare_same_source_is_close_and_different_source_is_far():
    rng = np.random.default_rng(0)
    a = T.TextSet.from_texts("a", _zipf_texts(600, 1.1, rng))
    b = T.TextSet.from_texts("b", _zipf_texts(600, 1.1, rng))
    c = T.TextSet.from_texts("c", _zipf_texts(600, 0.7, rng))
    same, diff = T.compare(a, b, n_boot=50), T.compare(c, b, n_boot=50)
    # Zipf exponent recovered from ~13,000 tokens within 0.05
    assert same["Zipf s"].value == pytest.approx(1.1, abs=0.05)
    assert diff["Zipf s"].value == pytest.approx(0.7, abs=0.05)
    for key in ["rank KS to reference", "unigram TVD", "top-types TVD"]:
        assert diff[key].low > same[key].high
    # the lengths come from the same law in all three: no significant length difference here
    assert same["length mean diff"].pvalue > 0.01 and same["length KS"].value < 0.1
    assert same["length KS"].value == pytest.approx(ss.ks_2samp(a.lengths, b.lengths).statistic)
    for est in same.values():
        if hasattr(est, "low"):
            assert est.low <= est.value <= est.high


def test_type_token_by_length_bins_and_nhpp():
    rng = np.random.default_rng(1)
    a = T.TextSet.from_texts("a", _zipf_texts(400, 1.1, rng))
    b = T.TextSet.from_texts("b", _zipf_texts(400, 1.1, rng))
    df, mean = T.type_token_by_length(a, b, bins=[5, 15, 25, 40], n_boot=50)
    assert df["bin"].tolist() == ["5-14", "15-24", "25-39"]
    assert df["length"].between(5, 39).all() and mean.low <= mean.value <= mean.high
    w = np.array([(a.lengths >= lo) & (a.lengths < hi) for lo, hi in [(5, 15), (15, 25), (25, 40)]]).sum(1)
    w += np.array([(b.lengths >= lo) & (b.lengths < hi) for lo, hi in [(5, 15), (15, 25), (25, 40)]]).sum(1)
    assert mean.value == pytest.approx(np.average(df["KS to reference"], weights=w))
    assert df["documents"].sum() == 400
    assert ((df["KS to reference"] >= 0) & (df["KS to reference"] <= 1)).all()
    assert (df["KS to NHPP(sample)"] < 1).all()


def test_first_document_cuts_a_line_or_a_sentence_and_says_if_it_ended():
    page = "\n\nThe cat sat on the mat. It purred.\nA second line"
    assert T.first_document(page) == ("The cat sat on the mat. It purred.", True)
    assert T.first_document(page, "sentence") == ("The cat sat on the mat.", True)
    assert T.first_document("A sentence cut off by the tok", "sentence") == (
        "A sentence cut off by the tok",
        False,
    )
    assert T.first_document("One line only.") == ("One line only.", False)  # complete only with EOS
    assert T.first_document("\n \n") == ("", False)
    with pytest.raises(ValueError, match="unit"):
        T.first_document("x", "paragraph")


def test_rank_distances_share_one_support_whatever_the_type_count():
    # two samples of one Zipf law, one over a vocabulary 4 times larger: on the first 200
    # ranks their rank-frequency curves agree, though their type counts differ
    rng = np.random.default_rng(2)
    a = T.TextSet.from_texts("a", _zipf_texts(800, 1.3, rng, vocab=500))
    b = T.TextSet.from_texts("b", _zipf_texts(800, 1.3, rng, vocab=2000))
    assert len(b.vocabulary) > 1.5 * len(a.vocabulary)
    r = T.compare(a, b, n_boot=30, rank_support=200)
    assert r["rank KS to reference"].value < 0.03


def test_matched_type_token_compares_at_equal_lengths():
    # same law, different length distributions: the raw ratio differs (it falls with
    # length), the ratio at matched lengths does not
    rng = np.random.default_rng(3)
    p = laws.zipf_pmf(1.1, 2000)

    def texts(lo, hi, n):
        return [
            " ".join(f"w{k}" for k in rng.choice(2000, size=m, p=p)) for m in rng.integers(lo, hi, size=n)
        ]

    short, long = T.TextSet.from_texts("s", texts(5, 30, 800)), T.TextSet.from_texts("l", texts(15, 60, 800))
    assert (short.types / short.lengths).mean() > (long.types / long.lengths).mean() + 0.05
    est, p_same = T.matched_type_token(short, long)
    assert abs(est.value) < 0.02 and p_same > 0.01
    # a sample that repeats itself has fewer types at every length
    rep = T.TextSet.from_texts(
        "r", [" ".join(t.split()[: len(t.split()) // 2] * 2) for t in texts(15, 60, 800)]
    )
    est, p_rep = T.matched_type_token(rep, long)
    assert est.high < 0 and p_rep < 1e-3
    # the interval and the p-value are those of the cluster-robust test over lengths, with the
    # reference's articles as clusters, restricted to the lengths asked for
    groups = np.arange(len(long)) // 40
    est, p = T.matched_type_token(short, long, min_length=20, reference_groups=groups)
    keep_x, keep_y = short.lengths >= 20, long.lengths >= 20
    t = clusters.cell_contrast_test(
        (short.types / short.lengths)[keep_x],
        short.lengths[keep_x],
        (long.types / long.lengths)[keep_y],
        long.lengths[keep_y],
        None,
        groups[keep_y],
    )
    assert est.value == pytest.approx(t.statistic) and p == pytest.approx(t.pvalue)
    assert est.high - est.value == pytest.approx(ss.t.ppf(0.975, t.df) * t.se)
    with pytest.raises(ValueError, match="no length"):
        T.matched_type_token(short, long, min_length=200)


def test_unk_is_left_out_of_the_word_frequency_distances_only():
    # a sample of the reference's own documents, each with one <unk> more: over words it is
    # the reference; with <unk> counted as a type its unigram TVD is exactly <unk>'s share
    rng = np.random.default_rng(6)
    texts = _zipf_texts(300, 1.1, rng)
    ref = T.TextSet.from_texts("r", texts)
    unk = T.TextSet.from_texts("u", [t + " <unk>" for t in texts])
    share = len(texts) / unk.lengths.sum()
    assert unk.unk_rate == pytest.approx(share) and ref.unk_rate == 0
    assert len(unk.type_totals()) == len(ref.vocabulary) and unk.type_totals().sum() == ref.lengths.sum()
    words, counted = T.compare(unk, ref, n_boot=20), T.compare(unk, ref, n_boot=20, exclude=())
    for key in ["rank KS to reference", "unigram TVD", "top-types TVD"]:
        assert words[key].value == pytest.approx(0, abs=1e-12)
    assert counted["unigram TVD"].value == pytest.approx(share)
    assert counted["top-types TVD"].value > 0.5 * share
    # lengths still count it: every document is one token longer
    assert words["length mean diff"].statistic == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no words"):
        T.compare(T.TextSet.from_texts("only", ["<unk> <unk>"]), ref, n_boot=5)


def test_through_vocabulary_writes_unk_for_every_word_outside_it():
    seg = segment.train("word", ["the cat sat", "the cat ran", "a dog"], min_count=2)
    out = T.through_vocabulary(seg, ["the dog sat", "the cat"])
    assert out == ["the <unk> <unk>", "the cat"]
    assert T.TextSet.from_texts("h", out).unk_rate == pytest.approx(2 / 5)


def test_growth_beyond_nets_out_the_baselines_change_over_shared_bins():
    reps = lambda *v: np.array(v, dtype=float)
    table = pd.DataFrame(
        {
            "bin": ["1-5", "6-10", "11-20"],
            "KS to reference": [0.1, 0.2, 0.5],
            "replicates": [reps(0.1, 0.1), reps(0.2, 0.3), reps(0.5, 0.4)],
        }
    )
    base = pd.DataFrame(
        {
            "bin": ["1-5", "6-10"],
            "KS to reference": [0.05, 0.1],
            "replicates": [reps(0.0, 0.1), reps(0.1, 0.1)],
        }
    )
    where, e = T.growth_beyond(table, base)
    assert where == "1-5 to 6-10"  # the last bin the baseline lacks is left out
    assert e.value == pytest.approx((0.2 - 0.1) - (0.1 - 0.05))
    assert np.allclose(e.replicates, [(0.2 - 0.1) - (0.1 - 0.0), (0.3 - 0.1) - (0.1 - 0.1)])
    assert T.growth_beyond(table, base.iloc[:1]) is None


def test_null_checks_play_every_deciding_check_on_one_population(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))  # the checks are kept in the cache
    rng = np.random.default_rng(7)
    texts, groups = [], []
    for g in range(30):
        mean_length = rng.uniform(8, 30)
        for _ in range(rng.integers(10, 60)):
            texts.append(" ".join(f"w{k}" for k in rng.zipf(1.5, 1 + rng.poisson(mean_length)) % 500))
            groups.append(g)
    pool = T.TextSet.from_texts("pool", texts)
    df = T.null_checks(
        pool,
        groups,
        n_splits=12,
        articles=8,
        documents=150,
        n_boot=40,
        length_bins=[1, 11, 21, 41],
        long_length=21,
        rank_support=100,
        top_types=50,
    )
    rate = df.groupby(["check", "quantity"])["rejected"].mean()
    assert set(rate["paired interval"].index) >= set(T.PAIRED_DISTANCES)
    assert "types per token, at least 21 tokens" in rate["matched-length t test"].index
    assert (df.groupby(["check", "quantity"]).size() <= 12).all()
    # the null is true: nothing rejects often (12 splits: a rate of 5% rejects 0.6 times)
    assert rate.max() <= 0.25 and df["rejected"].mean() <= 0.1


def test_null_rejections_of_article_level_tests_are_near_their_level(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))  # the checks are kept in the cache
    # articles with their own mean length and share of symbols: document-level tests reject
    # often, article-level ones near their level
    rng = np.random.default_rng(4)
    texts, groups = [], []
    for g in range(40):
        mean_length, symbols = rng.uniform(8, 30), rng.uniform(0.0, 0.3)
        for _ in range(rng.integers(10, 80)):
            words = [f"w{k}" if rng.random() > symbols else "," for k in range(1 + rng.poisson(mean_length))]
            texts.append(" ".join(words))
            groups.append(g)
    pool = T.TextSet.from_texts("pool", texts)
    df = T.null_rejections(pool, groups, n_splits=40, articles=10, documents=300, n_permutations=199)
    rate = df.groupby(["design", "test"])["rejected"].mean()
    assert rate["articles vs articles", "article permutation"] <= 0.12
    assert rate["documents vs articles", "cluster-robust Welch"] <= 0.15
    assert (
        rate["articles vs articles", "document permutation"]
        > 2 * rate["articles vs articles", "article permutation"]
    )


def test_significance_by_size_ends_at_the_whole_sample_and_gains_power():
    rng = np.random.default_rng(5)
    ref = T.TextSet.from_texts("r", _zipf_texts(300, 1.1, rng))
    longer = T.TextSet.from_texts("l", [t + " " + t for t in _zipf_texts(120, 1.1, rng)])
    df = T.significance_by_size(longer, ref, sizes=[10, 40, 500], repeats=20)
    assert sorted(df["documents"].unique()) == [10, 40, 120]  # 500 > the sample: the whole sample instead
    length = df[df["statistic"] == "length"].set_index("documents")["rejected"]
    assert length[120] == 1.0 and length[10] <= length[40] <= length[120]


def test_zipf_documents_and_the_dispersion_of_types_given_the_length():
    lengths = np.array([5, 10, 40, 3] * 50)
    z = T.zipf_documents(lengths, 1.1, seed=3)
    assert list(z.lengths) == list(lengths) and z.docs == T.zipf_documents(lengths, 1.1, seed=3).docs
    # every word new: as many types as tokens, no spread at a given length
    distinct = T.TextSet("distinct", [[f"w{i}" for i in range(n)] for n in lengths])
    assert (T.dispersion_by_length(distinct, [1, 6, 11, 41]) == 0).all()
    # a document of n tokens has at most n types: far less spread than a Poisson count's
    assert (T.dispersion_by_length(z, [1, 6, 11, 41]) < 0.5).all()
