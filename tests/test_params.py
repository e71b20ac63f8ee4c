"""Parameters cells: parsing, type and range checks, paths, and writing the values used."""

import ast

import pytest

from lmnotes.book import params
from lmnotes.book.params import ParameterError
from lmnotes.book import run as book
from lmnotes.book.run import BookError

CELL = """corpus = "enwiki"  # where the text comes from
fractions = [0.8, 0.1, 0.1]  # shares of articles
n_samples = 6  # sample sentences shown
top_p = 0.9  # nucleus mass
flag = False  # a switch
# a long list
names = ["a", "b"]
"""


def test_parse_reads_defaults_types_and_comments():
    p = params.parse(CELL)
    assert list(p) == ["corpus", "fractions", "n_samples", "top_p", "flag", "names"]
    assert p["n_samples"].default == 6 and p["n_samples"].kind == "int"
    assert p["fractions"].kind == "list" and p["fractions"].item_kind == "float"
    assert p["flag"].kind == "bool" and p["top_p"].kind == "float"
    assert p["corpus"].comment == "where the text comes from"
    assert p["names"].comment == "a long list"
    with pytest.raises(ParameterError, match="not a literal"):
        params.parse("x = 2 * 3  # derived\n")
    with pytest.raises(ParameterError, match="name = literal"):
        params.parse("import os\n")


@pytest.mark.parametrize(
    "values, message",
    [
        ({"n_samples": "abc"}, r"n_samples must be an integer, got 'abc'"),
        ({"n_samples": 2.5}, r"n_samples must be an integer"),
        ({"n_samples": True}, r"n_samples must be an integer"),
        ({"n_samples": -1}, r"n_samples=-1 must be at least 0"),
        ({"top_p": "x"}, r"top_p must be a number"),
        ({"top_p": 1.5}, r"top_p=1.5 must lie in \(0, 1\]"),
        ({"fractions": [0.5, 0.5]}, r"fractions=\[0.5, 0.5\] must be three positive shares"),
        ({"fractions": ["a", 0.5, 0.5]}, r"fractions must be a list of float values"),
        ({"flag": "yes"}, r"flag must be a bool"),
    ],
)
def test_check_rejects_wrong_types_and_ranges(values, message):
    with pytest.raises(ParameterError, match=message):
        params.check("00_x", params.parse(CELL), values)


def test_counts_and_shown_rows_have_upper_bounds():
    """A sample count of 10^8 was accepted and made a 34 MB notebook: counts have a ceiling,
    and the rows a page shows a tighter one, in the notebooks where the name means that."""
    declared = params.parse(CELL + "seed = 0  # a seed\nsizes = [1, 2]  # sizes\n")
    with pytest.raises(ParameterError, match=r"n_samples=100000000 is larger than any count"):
        params.check("02_x", declared, {"n_samples": 100_000_000})
    with pytest.raises(ParameterError, match=r"sizes=\[1, 100000000\] is larger than any count"):
        params.check("02_x", declared, {"sizes": [1, 100_000_000]})
    params.check("02_x", declared, {"n_samples": 10_000, "seed": 2**40})  # seeds are exempt
    with pytest.raises(ParameterError, match=r"n_samples=201 must lie in \[0, 200\]"):
        params.check("00_corpus", declared, {"n_samples": 201})
    with pytest.raises(ParameterError, match=r"n_samples=51 must lie in \[0, 50\]"):
        params.check("01_models", declared, {"n_samples": 51})
    params.check("00_corpus", declared, {"n_samples": 200})
    assert str(params.rule_of(declared["n_samples"], "00_corpus")) == "in [0, 200] (rows shown)"


def test_a_rule_says_what_it_allows_from_its_own_arguments():
    """A rule's words are written by the check from its arguments, so that they cannot say
    another range than the one checked."""
    from lmnotes.core import checks

    assert str(checks.at_least(3)) == "≥ 3" and checks.at_least(3)(2) == "must be at least 3"
    assert str(checks.between(0, 1, open_low=True)) == "in (0, 1]" and checks.between(0, 1, True)(0)
    assert str(checks.each(checks.at_least(7))) == "each ≥ 7"
    assert (
        str(checks.all_of(checks.each(checks.positive), checks.containing(1.0, 2)))
        == "each > 0, including 1.0 and 2"
    )
    assert str(checks.at_least(0).noting("0: all")) == "≥ 0 (0: all)"
    assert str(checks.or_empty(checks.at_least_items(2), "skip")) == "at least 2 of them, or empty (skip)"
    assert checks.or_empty(checks.at_least_items(2), "skip")([]) is None
    assert checks.starting_at(1)([2, 3]) == "must start at 1"
    # every rule of the book is such a check: none is a bare function or a (check, words) pair
    rules = [*params.RULES.values(), *params.NOTEBOOK_RULES.values()]
    assert rules and all(isinstance(r, checks.Check) and str(r) for r in rules)


def test_check_accepts_good_values_and_reports_all_types_first():
    declared = params.parse(CELL)
    params.check("00_x", declared, {"n_samples": 3, "top_p": 1, "fractions": [0.6, 0.2, 0.2]})
    with pytest.raises(ParameterError) as err:
        params.check("00_x", declared, {"n_samples": "a", "top_p": "b", "fractions": [1, 1]})
    assert "n_samples" in str(err.value) and "top_p" in str(err.value)
    assert "fractions=" not in str(err.value)  # ranges wait until every type is right


def test_relative_paths_resolve_against_the_callers_directory(tmp_path):
    (tmp_path / "texts").mkdir()
    out = params.resolve_paths(
        {"corpus": "texts", "model_names": ["texts", "smollm2-135m"], "size": "texts"}, tmp_path
    )
    assert out["corpus"] == str(tmp_path / "texts")
    assert out["model_names"] == [str(tmp_path / "texts"), "smollm2-135m"]
    assert out["size"] == "texts"  # not a path parameter
    assert params.resolve_paths({"corpus": "enwiki"}, tmp_path)["corpus"] == "enwiki"


def test_non_ascii_values_keep_their_comments():
    cell = 'label = "k-of-k²"  # the beam ² variant\nn = 1  # count\n'
    assert params.parse(cell)["label"].comment == "the beam ² variant"
    out = params.write_into(cell, {"label": "β-test"})
    assert out == 'label = "β-test"  # the beam ² variant\nn = 1  # count\n'


def test_write_into_keeps_comments_and_shows_each_value_once():
    out = params.write_into(CELL, {"n_samples": 10, "corpus": "/data/texts", "top_p": 0.9})
    assert 'corpus = "/data/texts"  # where the text comes from' in out
    assert "n_samples = 10  # sample sentences shown" in out
    assert "top_p = 0.9  # nucleus mass" in out  # unchanged value, unchanged line
    assert params.parse(out)["n_samples"].default == 10
    long = params.write_into(CELL, {"names": [f"model-number-{i}" for i in range(12)]})
    ast.parse(long)
    assert max(map(len, long.splitlines())) <= 76
    assert "# a long list\nnames = [" in long
    assert params.parse(long)["names"].default[-1] == "model-number-11"


IS_CELL = """temperatures = [0.5, 1.0, 2.0]  # proposal temperatures
peek_horizons = [0, 1, 2]  # tokens read ahead
word_letters = [6, 9]  # letters, fewest and most
cache_mu = 100.0  # cache prior
stickiness = 0.9  # rho
components = ["wiki/transformer-word", "wiki/kn3-word"]  # switched LMs
block_sizes = [1, 2, 4]  # sentences per instance
law_stickiness = [0.0, 0.9]  # rho of the law
converged_gap = 0.001  # converged
bias_removed = 0.5  # most
overlap_shared = 0.05  # overlap
tok_runs = 4  # runs
n_smc_runs = 20  # runs
"""


@pytest.mark.parametrize(
    "values, message",
    [
        ({"temperatures": [0.5, 2.0]}, r"must include 1.0"),
        ({"temperatures": [0.0, 1.0]}, r"positive number"),
        ({"peek_horizons": [0, 1]}, r"must include 2"),
        ({"peek_horizons": [-1, 0, 1, 2]}, r"at least 0"),
        ({"word_letters": [9, 6]}, r"fewest, most"),
        ({"cache_mu": 0.0}, r"positive number"),
        ({"stickiness": 1.0}, r"must lie in \[0, 0.999\]"),
        ({"components": ["wiki/nothing"]}, r"not a registered model"),
        ({"block_sizes": [2, 4]}, r"must start at 1"),
        ({"block_sizes": [1, 1]}, r"strictly increasing"),
        ({"law_stickiness": []}, r"at least one"),
        ({"law_stickiness": [1.0]}, r"must lie in \[0, 0.999\]"),
        ({"converged_gap": 0.0}, r"must lie in \(0, 1\]"),
        ({"bias_removed": 2.0}, r"must lie in \(0, 1\]"),
        ({"overlap_shared": 0.0}, r"must lie in \(0, 1\]"),
        ({"tok_runs": 1}, r"at least 2"),
        ({"n_smc_runs": 1}, r"at least 2"),
    ],
)
def test_importance_sampling_chapter_rules(values, message):
    with pytest.raises(ParameterError, match=message):
        params.check("04_x", params.parse(IS_CELL), values)
    params.check("04_x", params.parse(IS_CELL), {"temperatures": [1, 1.1], "peek_horizons": [0, 1, 2, 8]})


WORDS_CELL = """family = ["byte", "bpe8000", "word"]  # segmentations
exact_models = ["bpe8000"]  # searched exactly
encoder_model = "smollm2-135m"  # BERTScore states
soft_k = [3, 10, 100]  # neighbours
rare_zipf = 2.7  # rare below
similar_share = 0.2  # margin
size_compare = []  # sizes
equal_points = 15  # margin
n_triples = 50  # triples
"""


@pytest.mark.parametrize(
    "values, message",
    [
        ({"family": []}, r"at least one segmentation"),
        ({"family": ["bpe100"]}, r"at least 259 types"),
        ({"exact_models": ["words"]}, r"'char', 'byte', 'word' or 'bpe<types>'"),
        ({"encoder_model": "no-such-model"}, r"neither a registered model"),
        ({"soft_k": [10, 3]}, r"strictly increasing"),
        ({"rare_zipf": 9.0}, r"must lie in \[0, 8\]"),
        ({"similar_share": -0.1}, r"must lie in \[0, 1\]"),
        ({"size_compare": ["bpe8k"]}, r"'char', 'byte', 'word' or 'bpe<types>'"),
        ({"equal_points": 0}, r"must lie in \(0, 100\]"),
        ({"n_triples": 1}, r"at least 2"),
    ],
)
def test_word_level_chapter_rules(values, message):
    with pytest.raises(ParameterError, match=message):
        params.check("05_x", params.parse(WORDS_CELL), values)
    params.check(
        "05_x",
        params.parse(WORDS_CELL),
        {"family": ["char", "bpe1000"], "soft_k": [1, 5], "similar_share": 0.0, "size_compare": ["bpe1000"]},
    )


DISTORTION_CELL = """
language = "bpe1000"  # L
temperature = 0.85  # T
n_test = 2000  # test
learners = ["tf-small", "lstm"]  # models
learner_seeds = [0]  # seeds
data_sizes = [750, 1500]  # sizes
language_temperatures = [0.7, 1.0]  # sweep
perturb_levels = [0, 1, 5]  # ladder
size_margin = 0.1  # margin
near_zero_nats = 1.0  # converged
lnre_share = 0.01  # LNRE
temperature_seeds = [0, 1]  # seeds
lnre_doublings = 1.0  # decay
linear_margin = 0.2  # line
teacher_draws = 0  # draws
temperature_patience = 2  # patience
pretrained_language = ""  # skip
"""


@pytest.mark.parametrize(
    "values, message",
    [
        ({"language": "bpe10"}, r"at least 259 types"),
        ({"temperature": 0.0}, r"positive number"),
        ({"temperature": -1.0}, r"positive number"),
        ({"n_test": 10}, r"at least 22"),
        ({"learners": []}, r"at least one learner"),
        ({"learners": ["gpt-9"]}, r"must be one of"),
        ({"learner_seeds": []}, r"at least one seed"),
        ({"data_sizes": [0, 10]}, r"strictly increasing"),
        ({"language_temperatures": [0.85]}, r"at least 2 values"),
        ({"language_temperatures": [0.85, 0.0]}, r"positive number"),
        ({"perturb_levels": [1, 2]}, r"start at 0"),
        ({"size_margin": -0.1}, r"must lie in \[0, 1\]"),
        ({"temperature_seeds": []}, r"at least one seed"),
        ({"lnre_doublings": 0.0}, r"positive number"),
        ({"linear_margin": 1.5}, r"must lie in \(0, 1\]"),
        ({"teacher_draws": -1}, r"at least 0"),
        ({"temperature_patience": 0}, r"at least 1"),
        ({"near_zero_nats": 0.0}, r"positive number"),
        ({"lnre_share": 0.0}, r"must lie in \(0, 1\]"),
        ({"pretrained_language": "no-such-model"}, r"neither a registered model"),
    ],
)
def test_distortion_chapter_rules(values, message):
    with pytest.raises(ParameterError, match=message):
        params.check("06_x", params.parse(DISTORTION_CELL), values)
    params.check(
        "06_x",
        params.parse(DISTORTION_CELL),
        {"learners": ["tf-tiny"], "perturb_levels": [0, 30], "size_margin": 0.0, "teacher_draws": 4},
    )


def test_a_value_outside_the_list_it_must_lie_in_is_refused_at_once():
    """Chapter 03's members (open, stride, marginal) are members of its segmentations, one of
    them the word model; chapter 05's searched and resized members are in its family."""
    with pytest.raises(BookError, match="segmentations=\\['byte'\\] must include word"):
        book.resolve_parameters(["03_segmentation"], "default", {"segmentations": ["byte"]})
    # the user set segmentations alone: the message names it, not open_model, which they never set
    with pytest.raises(
        BookError,
        match="segmentations=\\['byte', 'word'\\] leaves out \\['bpe8000'\\], which "
        "open_model='bpe8000' \\(not set with -p\\) needs",
    ):
        book.resolve_parameters(["03_segmentation"], "default", {"segmentations": ["byte", "word"]})
    with pytest.raises(
        BookError, match="family=\\['byte', 'word'\\] leaves out \\[.*\\], which exact_models"
    ):
        book.resolve_parameters(["05_word_level"], "default", {"family": ["byte", "word"]})
    # a profile's own values are not the user's: the message still starts from -p
    with pytest.raises(BookError, match="^03_segmentation: segmentations=\\['byte', 'word'\\] leaves out"):
        book.resolve_parameters(["03_segmentation"], "smoke", {"segmentations": ["byte", "word"]})
    with pytest.raises(BookError, match="exact_models=\\['char'\\] names \\['char'\\], not in family"):
        book.resolve_parameters(["05_word_level"], "default", {"exact_models": ["char"]})
    assert book.resolve_parameters(
        ["03_segmentation"],
        "default",
        {
            "segmentations": ["byte", "word"],
            "open_model": "byte",
            "stride_model": "word",
            "marginal_model": "byte",
        },
    )


def test_a_gguf_file_is_checked_by_its_header(tmp_path):
    """A text file named .gguf passed the model check and the chapter trained for 36 minutes
    before transformers refused it: the first 8 bytes (magic, version) decide at once."""
    from lmnotes.core import checks

    fake, empty, future, good = (tmp_path / f"{n}.gguf" for n in ("fake", "empty", "future", "good"))
    fake.write_text("hello, I am text\n")
    empty.write_bytes(b"")
    future.write_bytes(b"GGUF" + (99).to_bytes(4, "little") + bytes(16))
    good.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + bytes(16))
    assert checks.gguf_file(fake) == "is not a GGUF model file: it begins with b'hell', not b'GGUF'"
    assert checks.gguf_file(empty) == "is not a GGUF model file: it is empty"
    assert "version 99, which the gguf library cannot read" in checks.gguf_file(future)
    assert checks.gguf_file(good) is None
    assert checks.gguf_file(tmp_path / "gone.gguf") == f"is not a file (looked for {tmp_path / 'gone.gguf'})"
    declared = params.parse('pretrained = ["smollm2-135m"]  # models\n')
    with pytest.raises(
        ParameterError,
        match=r"pretrained=\[.*\] item 1 \('.*fake.gguf'\) is not a GGUF model "
        r"file: it begins with b'hell'",
    ):
        params.check("03_segmentation", declared, {"pretrained": [str(good), str(fake)]})


@pytest.mark.parametrize(
    "fractions, needed",
    [([0.8, 0.1, 0.1], 8), ([0.5, 0.25, 0.25], 4), ([1 / 3, 1 / 3, 1 / 3], 3), ([0.98, 0.01, 0.01], 76)],
)
def test_documents_needed_follows_the_corpus_split_rule(fractions, needed):
    from lmnotes.text.corpus import SPLITS, assign_splits

    def fills(n):
        return set(assign_splits([f"doc {i}" for i in range(n)], fractions, 0)) == set(SPLITS)

    assert params.documents_needed(fractions) == needed
    assert not fills(needed - 1) and all(fills(n) for n in range(needed, 3 * needed))


def test_a_corpus_with_too_few_documents_for_its_splits_is_refused_at_once(tmp_path):
    """A folder of 7 (or 0) .txt files failed after 17 s inside the notebook with a traceback:
    every split needs a document, and the check counts them first."""
    folder = tmp_path / "texts"
    folder.mkdir()
    declared = params.parse(CELL)
    with pytest.raises(
        ParameterError,
        match=r"corpus='.*texts' holds 0 \.txt files with text; splitting it "
        r"by fractions \[0.8, 0.1, 0.1\] needs at least 8",
    ):
        params.check("00_x", declared, {"corpus": str(folder)})
    for i in range(7):
        (folder / f"{i}.txt").write_text(f"Document {i} has a few words.\n")
    (folder / "empty.txt").write_text("")
    with pytest.raises(ParameterError, match=r"holds 7 \.txt files with text; .* needs at least 8"):
        params.check("00_x", declared, {"corpus": str(folder)})
    params.check("00_x", declared, {"corpus": str(folder), "fractions": [0.5, 0.25, 0.25]})  # 4 are enough
    (folder / "7.txt").write_text("The eighth document.\n")
    params.check("00_x", declared, {"corpus": str(folder)})
    one_file = tmp_path / "docs.txt"  # documents between blank lines
    one_file.write_text("First document.\n\n\nSecond, on\ntwo lines.\n\nThird.\n")
    with pytest.raises(ParameterError, match=r"holds 3 documents \(blocks of text between blank lines\)"):
        params.check("00_x", declared, {"corpus": str(one_file)})
    params.check("00_x", declared, {"corpus": str(one_file), "fractions": [0.4, 0.3, 0.3]})


def test_a_tilde_is_the_home_folder_in_every_path(tmp_path, monkeypatch):
    """A missing ~/x.gguf was reported as <cwd>/~/x.gguf."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    out = params.resolve_paths(
        {"corpus": "~/texts", "pretrained": ["~/x.gguf", "smollm2-135m"], "size": "~/cpu"}, tmp_path
    )
    assert out == {
        "corpus": str(tmp_path / "home" / "texts"),
        "size": "~/cpu",
        "pretrained": [str(tmp_path / "home" / "x.gguf"), "smollm2-135m"],
    }
    with pytest.raises(BookError) as err:
        book.resolve_parameters(["03_segmentation"], "default", {"pretrained": ["~/x.gguf"]})
    assert f"is not a file (looked for {tmp_path / 'home' / 'x.gguf'})" in str(err.value)
    assert "/~/" not in str(err.value)


def test_the_unknown_parameter_error_lists_the_chapters_parameters_only():
    """The summaries that run after a chapter (intro, at_scale, status, own_model) have
    parameters of their own that are not the reader's to set: the error does not offer them."""
    with pytest.raises(BookError) as err:
        book.resolve_parameters(["00_corpus", *book.SUMMARIES], "default", {"n_sample": 3})
    message = str(err.value)
    assert "unknown parameter(s) ['n_sample'] for ['00_corpus']" in message and "'n_samples'" in message
    for internal in ("claims_folder", "gpu_folder", "record_file", "width"):
        assert internal not in message
