"""Corpora: loading, cleaning, deterministic splits, raw and tokenized views. Every chapter.

The embedded default, ``"enwiki"``, is the English Wikipedia excerpt that ships inside gensim's
wheel (about a hundred articles, half a million words), read through ``importlib.resources``
and never from the network. Other sources go through the same :func:`load`:

- a local ``.txt`` file (documents separated by blank lines) or a folder of ``.txt`` files
  (one document each);
- an HF ``datasets`` id such as ``"wikitext-103-raw-v1"`` (needs the ``datasets`` package and
  a network; offline the error names the embedded default).

Each split has two views: raw text (``sentences``, ``texts``) for subword, character and byte
models, and Moses-tokenized, lower-cased words (``words``) for word-level statistics. Prepared
corpora are kept in the shared cache (:mod:`lmnotes.core.cache`), keyed by a hash of the source's
bytes, the split settings and the preparing code.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd
from tqdm import tqdm

from lmnotes.core import cache as lmcache
from lmnotes.core import codeversion, io
from lmnotes.text.tokenize import moses_words, split_sentences

#: Bump when the meaning of a prepared corpus changes; edits to the code that prepares it and
#: the versions of the libraries it uses are part of the cache key anyway (see _prep_version).
PREP_VERSION = 1
SPLITS = ("train", "valid", "test")
EMBEDDED = "enwiki"
EMBEDDED_RESOURCE = (
    "gensim",
    "test/test_data/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
)
HF_DATASETS = {  # id -> (dataset name, config)
    "wikitext-103-raw-v1": ("wikitext", "wikitext-103-raw-v1"),
    "wikitext-2-raw-v1": ("wikitext", "wikitext-2-raw-v1"),
}


class CorpusError(RuntimeError):
    """A corpus cannot be loaded or split; the message says what to do."""


@dataclass(frozen=True)
class Document:
    """One article: a title and its paragraphs, each a tuple of sentences."""

    title: str
    paragraphs: tuple[tuple[str, ...], ...]

    @property
    def sentences(self) -> list[str]:
        return [s for p in self.paragraphs for s in p]

    @property
    def text(self) -> str:
        """The raw text: sentences joined by a space, paragraphs by a blank line."""
        return "\n\n".join(" ".join(p) for p in self.paragraphs)


@dataclass
class Split:
    """The documents of one split, with the raw and the Moses-tokenized views."""

    name: str
    documents: list[Document]
    words: list[list[str]] = field(repr=False)  # one token list per sentence, in order

    @property
    def sentences(self) -> list[str]:
        """Raw sentences, in document order (aligned with ``words``)."""
        return [s for d in self.documents for s in d.sentences]

    @property
    def texts(self) -> list[str]:
        """Raw text of each document."""
        return [d.text for d in self.documents]

    def sentence_sample(self, n: int, seed: int = 0) -> "np.ndarray":  # noqa: F821
        """Sorted indices of ``n`` sentences drawn at random without replacement (all of them
        when ``n`` is 0 or at least their number): the subset that chapters score with the
        slow pretrained models, the same in every chapter for the same ``n`` and ``seed``."""
        import numpy as np

        total = sum(len(d.sentences) for d in self.documents)
        if not n or n >= total:
            return np.arange(total)
        return np.sort(np.random.default_rng(seed).choice(total, n, replace=False))

    def article_ids(self) -> "np.ndarray":  # noqa: F821
        """The article (index into ``documents``) of each sentence, for article-level intervals."""
        import numpy as np

        return np.repeat(np.arange(len(self.documents)), [len(d.sentences) for d in self.documents])

    def stats(self) -> dict[str, int]:
        """Counts: articles, sentences, words (Moses tokens), characters, bytes, word types."""
        sentences = self.sentences
        return {
            "articles": len(self.documents),
            "sentences": len(sentences),
            "words": sum(map(len, self.words)),
            "characters": sum(map(len, sentences)),
            "bytes": sum(len(s.encode("utf-8")) for s in sentences),
            "word types": len(Counter(w for ws in self.words for w in ws)),
        }


@dataclass
class Corpus:
    """A named corpus with its ``train``, ``valid`` and ``test`` splits."""

    name: str
    splits: dict[str, Split]
    key: str = ""

    def __getitem__(self, split: str) -> Split:
        if split not in self.splits:
            raise KeyError(f"unknown split {split!r}; the splits are {list(self.splits)}")
        return self.splits[split]

    def stats(self) -> pd.DataFrame:
        """One row per split (and a total) of :meth:`Split.stats`."""
        rows = {name: s.stats() for name, s in self.splits.items()}
        df = pd.DataFrame.from_dict(rows, orient="index")
        total = df.sum()
        total["word types"] = len(Counter(w for s in self.splits.values() for ws in s.words for w in ws))
        df.loc["total"] = total
        df.index.name = "split"
        return df


# --------------------------------------------------------------------------------------------
# sources


def embedded_path() -> Path:
    """Path of the Wikipedia excerpt inside the installed gensim package."""
    package, resource = EMBEDDED_RESOURCE
    try:
        path = importlib.resources.files(package).joinpath(resource)
    except ModuleNotFoundError as exc:
        raise CorpusError(
            "the embedded corpus ships with gensim, which is not installed: "
            "run `pip install -e .` (or `make book`) in the repository"
        ) from exc
    if not path.is_file():
        raise CorpusError(
            f"the embedded corpus file is missing from gensim ({path}); reinstall it "
            f"with `pip install --force-reinstall --no-deps gensim`"
        )
    return Path(str(path))


def read_dump(path: Path) -> list[tuple[str, list[str]]]:
    """(title, paragraphs) of each article of a MediaWiki XML dump."""
    from xml.etree.ElementTree import ParseError

    from lmnotes.text.wiki import iter_pages

    try:
        with open(path, "rb") as fh:
            pages = [
                (p.title, list(p.paragraphs))
                for p in tqdm(iter_pages(fh), desc="cleaning articles", unit="article", disable=None)
            ]
    except (OSError, EOFError, ParseError, ValueError) as exc:
        raise CorpusError(
            f"the Wikipedia dump {path} is corrupt or truncated ({exc}); reinstall "
            f"its package with `pip install --force-reinstall --no-deps gensim`"
        ) from exc
    return pages


def _utf8(path: Path) -> str:
    """The text of a file, or a CorpusError that names the file and what is wrong with it."""
    data = path.read_bytes()
    if b"\x00" in data[:65536]:
        raise CorpusError(
            f"{path} is not a text file (it holds NUL bytes); a corpus is UTF-8 text: "
            f"remove the file or give its text version"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CorpusError(
            f"{path} is not UTF-8 text (byte {data[exc.start : exc.start + 1]!r} at line {line}); "
            f"convert it, e.g. `iconv -f latin1 -t utf-8`"
        ) from None


def read_text(path: Path) -> list[tuple[str, list[str]]]:
    """(title, paragraphs) from a .txt file (documents split by blank lines) or a folder."""
    if path.is_dir():
        files = sorted(path.rglob("*.txt"))
        if not files:
            raise CorpusError(f"the folder {path} holds no .txt files")
        return [(str(f.relative_to(path)), _paragraphs(_utf8(f))) for f in files]
    blocks = re.split(r"\n\s*\n", _utf8(path))
    return [(f"{path.name}:{i}", [" ".join(b.split())]) for i, b in enumerate(blocks) if b.strip()]


def describe(source: str) -> dict[str, str]:
    """What a corpus source is, in words for the corpus chapter: ``what`` (the source) and
    ``cleaning`` (how its text becomes paragraphs), both Markdown."""
    if source == EMBEDDED:
        return {
            "what": "the English Wikipedia excerpt that ships inside gensim's wheel "
            f'(`{Path(EMBEDDED_RESOURCE[1]).name}`, a 2016 dump of early "A" articles, licensed '
            "CC BY-SA 3.0 and GFDL like all Wikipedia text)",
            "cleaning": "The wikitext of each page is parsed with `mwparserfromhell`; redirects, references "
            "and their content, templates, tables, files and images, categories, interlanguage "
            "links, headings, lists, bare URLs, comments and math are dropped; links keep their "
            "visible text; HTML entities are unescaped. A paragraph is kept if it has at least "
            "six words and ends like a sentence.",
        }
    if source in HF_DATASETS:
        return {
            "what": f"the HF dataset `{source}`, in its own train, validation and test splits",
            "cleaning": "Each article starts at its top-level heading; headings are dropped and every other "
            "line is a paragraph.",
        }
    path = Path(source)
    what = (
        f"the {len(list(path.rglob('*.txt')))} `.txt` files of the folder `{path.name}`, one document each"
        if path.is_dir()
        else f"the text file `{path.name}`, whose documents are separated by blank lines"
    )
    return {"what": what, "cleaning": "Paragraphs are separated by blank lines; whitespace is normalised."}


def _paragraphs(text: str) -> list[str]:
    return [" ".join(b.split()) for b in re.split(r"\n\s*\n", text) if b.strip()]


def wikitext_articles(lines: Iterable[str]) -> list[tuple[str, list[str]]]:
    """Group the lines of a WikiText file into (title, paragraphs) articles.

    In WikiText-2/103 each article starts with a top-level heading line `` = Title = `` and
    sub-headings are `` = = Section = = ``; headings are dropped, other lines are paragraphs.
    """
    articles: list[tuple[str, list[str]]] = []
    for line in lines:
        s = line.strip()
        if not s:
            continue
        m = re.fullmatch(r"= ([^=].*?) =", s)
        if m:
            articles.append((m.group(1), []))
        elif not s.startswith("= ") and articles:
            articles[-1][1].append(s)
    return [(t, ps) for t, ps in articles if ps]


def _read_hf(dataset_id: str) -> dict[str, list[tuple[str, list[str]]]]:
    """The splits of a WikiText dataset from the HF hub (network needed)."""
    try:
        import datasets
    except ModuleNotFoundError as exc:
        raise CorpusError(
            f"{dataset_id!r} is an HF dataset: `pip install datasets` and a network "
            f"are needed; offline, use the embedded default {EMBEDDED!r}"
        ) from exc
    name, config = HF_DATASETS[dataset_id]
    try:
        ds = datasets.load_dataset(name, config)
    except Exception as exc:  # offline: ConnectionError, OfflineModeIsEnabled, ...
        raise CorpusError(
            f"could not fetch {dataset_id!r} from the HF hub ({type(exc).__name__}: "
            f"{exc}); without a network use the embedded default {EMBEDDED!r}"
        ) from exc
    names = {"train": "train", "valid": "validation", "test": "test"}
    return {ours: wikitext_articles(ds[theirs]["text"]) for ours, theirs in names.items()}


# --------------------------------------------------------------------------------------------
# splitting and preparation


def assign_splits(titles: Sequence[str], fractions: Sequence[float], seed: int) -> list[str]:
    """Assign each title to a split, deterministically and by article.

    Articles are ordered by SHA-256 of ``f"{seed}:{title}"`` and cut by cumulative fraction,
    so the assignment depends only on the titles and the seed (not on the input order), and
    no article is in two splits.
    """
    if len(fractions) != len(SPLITS) or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise CorpusError(
            f"split fractions must be {len(SPLITS)} non-negative numbers summing to 1, got {list(fractions)}"
        )
    if len(set(titles)) != len(titles):
        raise CorpusError("article titles must be unique to split by article")
    order = sorted(
        range(len(titles)), key=lambda i: hashlib.sha256(f"{seed}:{titles[i]}".encode()).hexdigest()
    )
    n = len(titles)
    bounds = [round(n * sum(fractions[: k + 1])) for k in range(len(SPLITS))]
    out = [""] * n
    start = 0
    for name, stop in zip(SPLITS, bounds):
        for i in order[start:stop]:
            out[i] = name
        start = stop
    return out


def _make_split(name: str, articles: list[tuple[str, list[str]]]) -> Split:
    docs = [Document(t, tuple(tuple(split_sentences(p)) for p in ps)) for t, ps in articles]
    docs = [d for d in docs if d.sentences]
    words = [moses_words(s) for d in tqdm(docs, desc=f"tokenizing {name}", disable=None) for s in d.sentences]
    return Split(name=name, documents=docs, words=words)


def _source_key(source: str) -> tuple[str, str]:
    """(kind, identity) of a source: identity changes whenever the source's content does."""
    if source == EMBEDDED:
        path = embedded_path()
        return "dump", io.file_digest(path)
    if source in HF_DATASETS:
        return "hf", source
    path = Path(source).expanduser()
    if path.is_file():
        return "text", io.file_digest(path)
    if path.is_dir():
        return "text", io.digest([(str(f), io.file_digest(f)) for f in sorted(path.rglob("*.txt"))])
    raise CorpusError(
        f"unknown corpus source {source!r}: use the embedded default {EMBEDDED!r}, "
        f"a local .txt file or folder, or one of the HF datasets {sorted(HF_DATASETS)}"
    )


def _prep_version() -> str:
    """Digest of the code and library versions that prepare a corpus, for the cache key."""
    from importlib.metadata import version

    libs = [version(p) for p in ("mwparserfromhell", "pysbd", "sacremoses", "gensim")]
    return codeversion.version(
        ("lmnotes.text.corpus", "lmnotes.text.wiki", "lmnotes.text.tokenize"), PREP_VERSION, libs
    )


def load(
    source: str = EMBEDDED, fractions: Sequence[float] = (0.8, 0.1, 0.1), seed: int = 0, cache: bool = True
) -> Corpus:
    """Load a corpus with its train/valid/test splits, from the cache when possible.

    Parameters
    ----------
    source : ``"enwiki"`` (the embedded Wikipedia excerpt), a path to a ``.txt`` file or a
        folder of them, or an HF dataset id such as ``"wikitext-103-raw-v1"``.
    fractions : shares of articles in train, valid and test (ignored for HF datasets, which
        come split).
    seed : seeds the assignment of articles to splits.
    cache : read and write the prepared corpus in the shared cache (:mod:`lmnotes.core.cache`).
    """
    kind, identity = _source_key(str(source))
    key = io.digest("corpus", _prep_version(), kind, identity, list(fractions), seed)
    if not cache:
        return _prepare(str(source), kind, fractions, seed, key)

    def build(folder: Path) -> Corpus:
        prepared = _prepare(str(source), kind, fractions, seed, key)
        io.write_pickle(folder / "corpus.pkl", prepared)
        return prepared

    return lmcache.fetch(
        "corpus",
        Path(str(source)).name or str(source),
        key,
        build,
        lambda folder: io.read_pickle(folder / "corpus.pkl"),
    )


def _prepare(source: str, kind: str, fractions: Sequence[float], seed: int, key: str) -> Corpus:
    """Read, clean, split and tokenize a corpus (what :func:`load` caches)."""
    if kind == "hf":
        by_split = _read_hf(source)
    else:
        articles = read_dump(embedded_path()) if kind == "dump" else read_text(Path(source))
        if not articles:
            raise CorpusError(f"the corpus {source!r} has no documents with text")
        names = assign_splits([t for t, _ in articles], fractions, seed)
        by_split = {s: [a for a, n in zip(articles, names) if n == s] for s in SPLITS}
    splits = {name: _make_split(name, by_split[name]) for name in SPLITS}
    for name, split in splits.items():
        if not split.documents:
            raise CorpusError(
                f"split {name!r} of {source!r} is empty: the corpus has "
                f"{sum(len(s.documents) for s in splits.values())} documents; use a "
                f"larger corpus or give {name!r} a larger fraction (now {list(fractions)})"
            )
    return Corpus(name=source, splits=splits, key=key)


lmcache.register_kind("corpus", _prep_version)
