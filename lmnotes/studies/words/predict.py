"""Whole-word prediction from language models of any segmentation (Dudy & Bedrick 2020, §2.2
and App. B). The word-level chapter.

The words are the Moses tokens of a sentence (the corpus's word unit, :func:`lmnotes.text.
moses_words`, case kept), located in the raw text. At each word after the first, a model
predicts the next *whole word* from the text before it:

- **greedy, boundary-aware**: argmax tokens from the word's start until the argmax token
  ends the word (the paper's §2.2, "until end-of-word is indicated");
- **Algorithm 1 as printed**: the same argmax path, a hit as soon as its text *equals* the
  target, with no end-of-word check, so that "the" + "ory" is a hit for "the";
- **Algorithm 2 (DFS top-10)**: a hit if some path whose every token is in the top 10 of its
  step spells the target (depth at most 5, as the public code);
- **exact top-k** (beyond the paper, :func:`exact_topk_hits`): the target is among the k most
  probable whole words, by best-first search over token paths.

When does a token end a word? A token ends the word so far ``u`` when ``u`` has a
non-space character and either the token starts with whitespace or punctuation (a *boundary
token*: ``Ġ``/``▁`` tokens, a space byte, ``,``, ``'s``, end-of-sequence) or ``u`` ends with
punctuation (Moses splits punctuation into words of its own). The probability of a word is
then p(w | h) = ∏_j p(u_j | h, u_<j) · P(end | h, u) over its canonical tokens, where
P(end) sums p over the boundary tokens (1 after punctuation): the end-of-word factor that
the paper's Eq. 2 omits. A closed word vocabulary predicts a word in one token.

A target is *decodable* by a model when its tokens start and end on the word's edges, no
token inside it ends it, and the token after it does; other targets (a token straddling two
Moses words, "U.S." whose "." ends the word) are excluded for that model and counted.

Distributions along the gold tokens come from one teacher-forced pass per sentence; only
paths that leave them need further forward passes, batched by length.
"""

from __future__ import annotations

import heapq
import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from lmnotes.models.base import LanguageModel, ModelError
from lmnotes.core.progress import note
from lmnotes.text.tokenize import moses_words

#: Tokens kept per distribution: the top 10 of Algorithm 2 and the argmax.
TOP = 10


# --- words in text ---------------------------------------------------------------------------
@dataclass
class Sentence:
    """A sentence's Moses words with their spans in the UTF-8 bytes of ``text``: word i is
    ``text_bytes[start[i]:end[i]]``; the whitespace before it runs from ``end[i-1]``."""

    text: str
    words: list[str]
    start: list[int]
    end: list[int]


def locate(text: str) -> Sentence | None:
    """The Moses words of ``text`` located in it, or None if a word is not found verbatim
    (Moses rewrote a character)."""
    words = moses_words(text, lower=False)
    start, end, at = [], [], 0
    for w in words:
        i = text.find(w, at)
        if i < 0 or text[at:i].strip():
            return None
        start.append(len(text[:i].encode()))
        end.append(start[-1] + len(w.encode()))
        at = i + len(w)
    return Sentence(text, words, start, end)


def _char_class(ch: str) -> str:
    """'space', 'punct' (punctuation and symbols: a word of its own) or 'word'."""
    if ch.isspace():
        return "space"
    if ch.isalnum() or unicodedata.category(ch).startswith("M"):
        return "word"
    return "punct"


def _first_class(b: bytes) -> str:
    """The class of the first character of a token's bytes. A token that begins inside a
    character (a UTF-8 continuation byte) continues a word; one that holds only the lead byte
    of a character is read as punctuation for 0xE2 (U+2000–U+2FFF: dashes, quotes, symbols)
    and as a letter otherwise."""
    if b[0] < 0x80:
        return _char_class(chr(b[0]))
    if b[0] < 0xC0:
        return "word"
    ch = b[:4].decode("utf-8", errors="ignore")[:1]
    if ch and ch.encode() == b[: len(ch.encode())]:
        return _char_class(ch)
    return "punct" if b[0] == 0xE2 else "word"


def ends_in_punct(text: str) -> bool:
    """Whether a word so far ends with punctuation (and so is complete)."""
    return bool(text) and _char_class(text[-1]) == "punct"


def has_content(text: str) -> bool:
    return bool(text.strip())


# --- a model's view of words -------------------------------------------------------------------
class Speller:
    """What a model's tokens spell: the bytes of each token (None for special tokens) and the
    boundary tokens, or, for a closed word vocabulary, the word each token is."""

    def __init__(self, lm: LanguageModel):
        self.lm = lm
        self.closed_words = lm.segmentation == "word"
        if self.closed_words:
            vocab = getattr(getattr(lm, "seg", None), "vocab", None)
            if vocab is None:
                raise ModelError(f"{lm.name}: a word-segmented model needs its vocabulary (lm.seg.vocab)")
            # <pad> and <s> (BOS/EOS) spell nothing; <unk> is a prediction that never matches
            self.words = ["" if i in (lm.pad_id, lm.bos_id, lm.eos_id) else v for i, v in enumerate(vocab)]
            self.unk = vocab.index("<unk>") if "<unk>" in vocab else -1
            self.boundary = torch.ones(lm.vocab_size, dtype=torch.bool)
            self.special_mask = torch.tensor([w == "" for w in self.words])
            return
        self.bytes = lm.token_bytes()
        self.unk = -1
        mask = [b is None or len(b) == 0 or _first_class(b) != "word" for b in self.bytes]
        self.boundary = torch.tensor(mask, dtype=torch.bool)
        self.special_mask = torch.tensor([b is None for b in self.bytes])

    def text(self, path: Sequence[int]) -> str:
        """The text a token path spells (special tokens spell nothing)."""
        if self.closed_words:
            return "".join(self.words[t] for t in path)
        return b"".join(self.bytes[t] or b"" for t in path).decode("utf-8", errors="replace")

    def special(self, token: int) -> bool:
        return bool(self.special_mask[token])

    def ends(self, word_so_far: str, token: int) -> bool:
        """Whether ``token`` ends the word ``word_so_far`` (see the module's docstring)."""
        if not has_content(word_so_far):
            return self.special(token)
        return self.closed_words or bool(self.boundary[token]) or ends_in_punct(word_so_far)

    def complete(self, word_so_far: str) -> bool:
        """Whether the word is over whatever comes next (closed words, punctuation)."""
        return has_content(word_so_far) and (self.closed_words or ends_in_punct(word_so_far))

    def starters(self, previous_word: str) -> torch.Tensor:
        """The tokens that can begin a word after ``previous_word``: every token that spells
        something after punctuation or in a word vocabulary, else the boundary tokens (a
        letter token would continue the previous word)."""
        if self.closed_words or ends_in_punct(previous_word):
            return ~self.special_mask
        return self.boundary & ~self.special_mask

    def tokens(self, sentence: Sentence) -> tuple[list[int], list[tuple[int, int] | None]]:
        """The sentence's token ids and, per word, its token span [a, b) (None where the
        word's edges fall inside a token)."""
        ids = self.lm.encode(sentence.text)
        if self.closed_words:
            if len(ids) != len(sentence.words):
                raise ModelError(f"{self.lm.name}: {len(ids)} tokens for {len(sentence.words)} words")
            return ids, [(i, i + 1) for i in range(len(ids))]
        ends = np.cumsum([len(self.bytes[t] or b"") for t in ids])
        where = {int(e): k + 1 for k, e in enumerate(ends)}
        where[0] = 0
        spans = []
        for i, e in enumerate(sentence.end):
            a = where.get(sentence.end[i - 1] if i else 0)
            spans.append((a, where[e]) if a is not None and e in where else None)
        return ids, spans


# --- distributions --------------------------------------------------------------------------
@dataclass
class Dist:
    """What the decoders keep of a next-token distribution: the top tokens and their
    log-probabilities among all tokens, among those that spell something (a word's start
    after punctuation) and among the boundary tokens that do (a word's start after a
    letter); and the log-probability of ending the word (the boundary tokens)."""

    top: tuple[np.ndarray, np.ndarray]
    top_spelt: tuple[np.ndarray, np.ndarray]
    top_start: tuple[np.ndarray, np.ndarray]
    log_end: float
    log_spelt: float
    log_start: float

    def root(self, speller: "Speller", previous_word: str) -> tuple[tuple[np.ndarray, np.ndarray], float]:
        """The top word-starting tokens after ``previous_word`` and the log-probability that a
        word starts (see :meth:`Speller.starters`)."""
        if speller.closed_words or ends_in_punct(previous_word):
            return self.top_spelt, self.log_spelt
        return self.top_start, self.log_start


def _summaries(lp: torch.Tensor, sp: Speller) -> list[Dist]:
    def top(mask):
        t = (lp if mask is None else lp.masked_fill(~mask, -torch.inf)).topk(TOP, dim=-1)
        return t.indices.numpy(), t.values.double().numpy()

    masks = [sp.boundary, ~sp.special_mask, sp.boundary & ~sp.special_mask]
    tops = [top(None), top(masks[1]), top(masks[2])]
    mass = [torch.logsumexp(lp.masked_fill(~m, -torch.inf), dim=-1).double().numpy() for m in masks]
    return [Dist(*[(i[r], v[r]) for i, v in tops], *[float(m[r]) for m in mass]) for r in range(len(lp))]


@torch.inference_mode()
def next_logprobs(lm: LanguageModel, rows: Sequence[Sequence[int]], batch_tokens: int = 4096) -> torch.Tensor:
    """log p(next token | row) for token rows that start with BOS: float32 [N, V], batched by
    length (right padding, exact for causal models)."""
    out = torch.empty((len(rows), lm.vocab_size), dtype=torch.float32)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]), reverse=True)
    a = 0
    while a < len(order):
        width = len(rows[order[a]])
        idx = order[a : a + max(1, min(64, batch_tokens // width))]
        states = lm._padded_states([list(rows[i]) for i in idx], width)
        last = states[torch.arange(len(idx)), torch.tensor([len(rows[i]) - 1 for i in idx])]
        out[idx] = torch.log_softmax(lm._head(last).float(), dim=-1).cpu()
        a += len(idx)
    return out


@torch.inference_mode()
def gold_pass(lm: LanguageModel, seqs: Sequence[Sequence[int]], sp: Speller, batch_tokens: int = 4096):
    """Teacher-forced distributions after every prefix of BOS + ids of each sequence, and the
    log-probability of each gold token (EOS last): one forward pass per sequence."""
    out: list = [None] * len(seqs)
    rows = [[lm.bos_id] + list(s) for s in seqs]
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]), reverse=True)
    a = 0
    while a < len(order):
        width = len(rows[order[a]])
        idx = order[a : a + max(1, batch_tokens // width)]
        states = lm._padded_states([rows[i] for i in idx], width)
        for r, i in enumerate(idx):
            lp = torch.log_softmax(lm._head(states[r, : len(rows[i])]).float(), dim=-1).cpu()
            gold = torch.tensor(list(seqs[i]) + [lm.eos_id])
            out[i] = (_summaries(lp, sp), lp.gather(1, gold[:, None])[:, 0].double().numpy())
        a += len(idx)
    return out


# --- the decoders -------------------------------------------------------------------------------
@dataclass
class _Target:
    row: int  # index in the output table
    unit: int  # the token sequence of the gold pass that holds the word
    a: int  # first token of the word in it
    word: str
    previous: str  # the word before it


class _Nodes:
    """Distributions after context + path, from the gold pass where the path follows the
    gold tokens, else computed (and kept) in batches."""

    def __init__(self, lm: LanguageModel, sp: Speller, units: list[list[int]], passes):
        self.lm, self.sp, self.units, self.passes = lm, sp, units, passes
        self.extra: dict[tuple, Dist] = {}

    def key(self, t: _Target, path: tuple[int, ...]) -> tuple:
        gold = tuple(self.units[t.unit][t.a : t.a + len(path)])
        return ("gold", t.unit, t.a + len(path)) if gold == path else (t.unit, t.a, path)

    def need(self, keys: list[tuple]) -> None:
        todo = sorted({k for k in keys if k[0] != "gold" and k not in self.extra})
        if todo:
            rows = [[self.lm.bos_id] + list(self.units[u][:a]) + list(p) for u, a, p in todo]
            self.extra.update(zip(todo, _summaries(next_logprobs(self.lm, rows), self.sp)))

    def get(self, k: tuple) -> Dist:
        return self.passes[k[1]][0][k[2]] if k[0] == "gold" else self.extra[k]

    def top(self, t: _Target, path: tuple[int, ...], d: Dist) -> tuple[np.ndarray, np.ndarray]:
        """The top tokens after ``path``, renormalised over word starts at the root."""
        if path:
            return d.top
        (ids, lp), log_norm = d.root(self.sp, t.previous)
        return ids, lp - log_norm


def _greedy(nodes: _Nodes, targets: list[_Target], max_steps: int) -> dict[int, dict]:
    """Boundary-aware greedy decoding, and Algorithm 1's rule (a hit when the text equals
    the target, with no end-of-word check) on the same argmax path."""
    sp = nodes.sp
    state = {t.row: dict(path=(), lp=0.0, done=False, alg1=False, alg1_done=False) for t in targets}
    live = list(targets)
    while live:
        keys = {t.row: nodes.key(t, state[t.row]["path"]) for t in live}
        nodes.need(list(keys.values()))
        nxt = []
        for t in live:
            st = state[t.row]
            d = nodes.get(keys[t.row])
            ids, lps = nodes.top(t, st["path"], d)
            text, tok, steps = sp.text(st["path"]), int(ids[0]), len(st["path"])
            if not st["done"] and (sp.complete(text) or sp.ends(text, tok) or steps >= max_steps):
                end = 0.0 if sp.complete(text) else d.log_end
                st.update(
                    done=True,
                    pred=text.strip(),
                    capped=not sp.ends(text, tok) and not sp.complete(text),
                    conf=st["lp"] + end if has_content(text) else -np.inf,
                )
            if not st["alg1_done"]:
                if text.lstrip() == t.word and has_content(text):
                    st.update(alg1=True, alg1_done=True)
                elif not t.word.startswith(text.lstrip()) or sp.special(tok) or steps >= max_steps:
                    st["alg1_done"] = True
            if not (st["done"] and st["alg1_done"]):
                st["path"] += (tok,)
                st["lp"] += float(lps[0])
                nxt.append(t)
        live = nxt
    return state


def _dfs_top(nodes: _Nodes, targets: list[_Target], depth: int) -> dict[int, bool]:
    """Algorithm 2: is the target spelt by a path of top-10 tokens (at most ``depth`` of
    them)? Only paths whose text is a prefix of the target can lead to it, so only those are
    expanded, breadth first as in the authors' code (the paper calls it depth-first; the order
    does not change which targets are hit). The code checks a path's children before it prunes
    paths longer than 5 tokens, so its words have up to 6 tokens: ``depth=6``."""
    sp = nodes.sp
    hit = {t.row: False for t in targets}
    frontier = [(t, ()) for t in targets]
    for _ in range(depth):
        keys = [nodes.key(t, p) for t, p in frontier]
        nodes.need(keys)
        nxt = []
        for (t, p), k in zip(frontier, keys):
            for tok in nodes.top(t, p, nodes.get(k))[0]:
                if hit[t.row]:
                    break
                text = sp.text(p + (int(tok),)).lstrip()
                if text == t.word:
                    hit[t.row] = True
                elif t.word.startswith(text) and not sp.special(int(tok)):
                    nxt.append((t, p + (int(tok),)))
        frontier = [(t, p) for t, p in nxt if not hit[t.row]]
        if not frontier:
            break
    return hit


def evaluate(
    lm: LanguageModel,
    sentences: Sequence[str],
    sentence_ids: Sequence[int] | None = None,
    max_steps: int = 24,
    dfs_depth: int = 5,
) -> pd.DataFrame:
    """One row per word after the first of each sentence (the paper's positions 2..n): the
    target; whether the model can decode it (``decodable``) or it is outside a closed
    vocabulary (``oov``); its log-probability as a whole word given that a word starts, with
    the end-of-word factor (``logp``) and as the paper's Eq. 2 (``logp_prefix``: its tokens'
    log-probabilities only); the greedy prediction ``pred`` with its log-probability
    ``conf``; and the hits of the greedy decoder (``hit1``), Algorithm 1 (``hit1_alg1``) and
    Algorithm 2 (``hit10_dfs``).

    A word's context is its sentence before it; where sentence and decoding would not fit
    the model's window, the context keeps the last tokens that do.
    """
    if max_steps < 1 or dfs_depth < 1:
        raise ValueError(f"max_steps and dfs_depth must be at least 1, got {max_steps} and {dfs_depth}")
    sp = Speller(lm)
    sentence_ids = list(range(len(sentences))) if sentence_ids is None else list(sentence_ids)
    room = lm.max_length - max_steps - 2  # context tokens (without BOS) that leave room to decode
    if room < 8:
        raise ValueError(
            f"{lm.name}: a context of {lm.max_length} tokens leaves no room to decode "
            f"{max_steps} tokens; lower max_steps"
        )
    units: list[list[int]] = []
    rows, targets, pending = [], [], []
    for s, text in enumerate(sentences):
        loc = locate(text)
        if loc is None or len(loc.words) < 2:
            continue
        ids, spans = sp.tokens(loc)
        whole = len(ids) <= room
        if whole:
            units.append(ids)
        for i in range(1, len(loc.words)):
            r = dict(
                model=lm.name,
                sentence=sentence_ids[s],
                index=i,
                word=loc.words[i],
                decodable=False,
                oov=False,
                n_tokens=0,
            )
            if spans[i] is not None:
                a, b = spans[i]
                text_ = ""
                ok = b > a
                for m in range(a, b):
                    ok = ok and not (m > a and sp.ends(text_, ids[m]))
                    text_ += sp.text([ids[m]])
                ok = (
                    ok
                    and text_.strip() == loc.words[i]
                    and sp.ends(text_, ids[b] if b < len(ids) else lm.eos_id)
                )
                oov = ids[a] == sp.unk
                r.update(decodable=bool(ok and not oov), oov=bool(oov), n_tokens=b - a)
                if ok or oov:
                    if not whole:  # its own unit: the last `room` tokens before it, and it
                        start = max(0, a - room)
                        units.append(ids[start:b])
                        a, b = a - start, b - start
                    pending.append((len(rows), len(units) - 1, a, b, text_))
                    targets.append(_Target(len(rows), len(units) - 1, a, loc.words[i], loc.words[i - 1]))
            rows.append(r)
    passes = gold_pass(lm, units, sp)
    for (row, u, a, b, text_), t in zip(pending, targets):
        dists, lp_gold = passes[u]
        prefix = float(lp_gold[a:b].sum())
        end = 0.0 if sp.complete(text_) else dists[b].log_end
        rows[row].update(logp_prefix=prefix, logp=prefix - dists[a].root(sp, t.previous)[1] + end)
    nodes = _Nodes(lm, sp, units, passes)
    note(f"{lm.name}: whole-word prediction at {len(targets):,} words")
    greedy = _greedy(nodes, targets, max_steps)
    dfs = _dfs_top(nodes, [t for t in targets if not rows[t.row]["oov"]], dfs_depth)
    for t in targets:
        g, r = greedy[t.row], rows[t.row]
        r.update(
            pred=g["pred"],
            conf=g["conf"],
            capped=g["capped"],
            hit1=bool(g["pred"] == t.word and not r["oov"]),
            hit1_alg1=bool(g["alg1"] and not r["oov"]),
            hit10_dfs=bool(dfs.get(t.row, False)),
        )
    columns = [
        "model",
        "sentence",
        "index",
        "word",
        "decodable",
        "oov",
        "n_tokens",
        "logp",
        "logp_prefix",
        "pred",
        "conf",
        "capped",
        "hit1",
        "hit1_alg1",
        "hit10_dfs",
    ]
    df = pd.DataFrame(rows).reindex(columns=columns)
    for c in ("capped", "hit1", "hit1_alg1", "hit10_dfs"):
        df[c] = df[c].astype("boolean").fillna(False).astype(bool)
    df.attrs["forward_rows"] = len(nodes.extra)
    return df


def exact_topk_hits(
    lm: LanguageModel,
    sentences: Sequence[str],
    table: pd.DataFrame,
    k: int = TOP,
    max_steps: int = 24,
    max_pops: int = 200,
) -> pd.Series:
    """Whether each decodable target of ``table`` (from :func:`evaluate` on the same
    ``sentences``, in order) is among the ``k`` most probable whole words: 1.0 or 0.0, NaN
    where the search gave up after ``max_pops`` expansions. Best-first search over token
    paths: open paths are expanded in order of their prefix probability, an upper bound on
    every word below them; it stops when ``k`` other words beat the target (a miss) or no
    open path can (a hit). A word reached by several paths keeps its best."""
    sp = Speller(lm)
    out = pd.Series(np.nan, index=table.index)
    room = lm.max_length - max_steps - 2
    by_id = {sid: s for s, sid in enumerate(dict.fromkeys(table["sentence"]))}
    for r, row in table[table["decodable"]].iterrows():
        loc = locate(sentences[by_id[row["sentence"]]])
        ids, spans = sp.tokens(loc)
        context = [lm.bos_id] + ids[: spans[row["index"]][0]][-room:]
        out[r] = _best_first(
            lm, sp, context, row["word"], loc.words[row["index"] - 1], row["logp"], k, max_steps, max_pops
        )
    return out


def _best_first(
    lm: LanguageModel,
    sp: Speller,
    context: list[int],
    target: str,
    previous: str,
    target_lp: float,
    k: int,
    max_steps: int,
    max_pops: int,
    batch: int = 8,
) -> float:
    """Best-first search over the token paths after ``context`` for words more probable than
    ``target`` (log-probability ``target_lp``), at most ``max_steps`` tokens and ``max_pops``
    expansions: 1.0 if fewer than ``k`` other words beat it (a hit of the exact top-k,
    :func:`exact_topk_hits`), 0.0 if ``k`` do, NaN if the search ends undecided.

    (10 parameters: one search's state (model, speller, context, target and its
    log-probability) and its limits.)"""
    # Up to `batch` open paths are expanded per forward pass: the answer (do k other words
    # beat the target?) does not depend on the order of expansion, only the work does, and one
    # batched pass costs little more than one path's (measured on the BPE-1k Transformer).
    better: set[str] = set()
    heap = [(0.0, ())]
    pops = 0
    while pops < max_pops:
        if not heap or -heap[0][0] < target_lp:
            return 1.0  # no open path can beat the target
        popped = []
        while heap and len(popped) < min(batch, max_pops - pops) and -heap[0][0] >= target_lp:
            popped.append(heapq.heappop(heap))
        pops += len(popped)
        for (neg, path), lp in zip(
            popped, next_logprobs(lm, [context + list(p) for _, p in popped]).double()
        ):
            text = sp.text(path)
            if not path:  # the root: word starts only, renormalised
                allowed = sp.starters(previous)
                lp = lp - torch.logsumexp(lp[allowed], 0)
                cont = lp.masked_fill(~allowed, -torch.inf)
            else:
                if has_content(text):
                    end = 0.0 if sp.complete(text) else float(torch.logsumexp(lp[sp.boundary], 0))
                    if -neg + end > target_lp and text.strip() != target:
                        better.add(text.strip())
                        if len(better) >= k:
                            return 0.0
                if sp.complete(text) or len(path) >= max_steps:
                    continue
                cont = lp.masked_fill(sp.boundary if has_content(text) else sp.special_mask, -torch.inf)
            for t in torch.nonzero(cont - neg > target_lp)[:, 0].tolist():
                heapq.heappush(heap, (neg - float(cont[t]), path + (t,)))
    return np.nan
