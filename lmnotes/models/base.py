"""The one interface every language model of the report implements. Every chapter uses it.

A :class:`LanguageModel` supplies tokenization (``encode``/``decode``), a forward pass to
hidden states with an optional key–value cache (``_hidden``) and an output head
(``_head``). On top of these this class implements, once for every model:

- :meth:`score`: log p(x) of strings including end-of-sequence, per token and in total, with
  the counts to normalise per token, word, character and byte; batched, sorted by length,
  sliding-window for strings longer than the context, and under a temperature;
- :meth:`next_token_logprobs`: next-token log-distributions after a batch of prefixes;
- :meth:`sample`: samples under a decoding strategy (:mod:`lmnotes.models.sampling`) with a KV cache,
  with each sample's log-probability under the model and under the sampling distribution.

Log-probabilities are natural logarithms (nats) throughout.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from typing import Any, Sequence

import numpy as np
import torch

from lmnotes.models import graphsample
from lmnotes.models.outputs import Samples, Scores
from lmnotes.models.sampling import Strategy, draw

#: Logit elements computed at once by the output head (bounds memory for 262k vocabularies).
HEAD_CHUNK_ELEMENTS = 1 << 25

#: Tokens per scoring batch (padding included) by device type, measured in bench/README.md:
#: on the 2-core CPU 1,024 stays in cache (4,096 is 30% slower); on an H100 16,384 is 2.7x
#: faster than 1,024 for SmolLM2 and 65,536 slower again.
BATCH_TOKENS = {"cpu": 1024, "cuda": 16384}

#: The precision of a model's layers when it samples on CUDA (:mod:`lmnotes.models.graphsample`):
#: None runs them in the model's own dtype, so that a sample's log-probabilities are those its
#: scores give (the distortion chapter compares the two); ``torch.bfloat16`` runs a copy of them
#: in bfloat16 (faster, bench/README.md). The output layer, the log-probabilities and the draw
#: stay in float32. The CPU runs the model's own dtype.
CUDA_LAYER_DTYPE: torch.dtype | None = None
#: How scoring runs a model's layers on CUDA: ``"tf32"`` (float32 values, matrix products on
#: TF32 tensor cores), ``"bfloat16"`` (autocast) or ``"float32"``; the output layer and the
#: log-probabilities are float32 in each. Scores are the chapters' numbers: TF32 moved a
#: token's log-probability by up to 1.6 nats on SmolLM2 (bench/README.md), so float32 it is.
CUDA_SCORING = "float32"

# _RIGHT_PADDING: batches are padded on the right and every model is causal, so a real
# position never attends to a padding position (all lie in its future). The states of real
# positions are therefore exact without an attention mask, and skipping the mask lets
# PyTorch's scaled-dot-product attention take its fast causal path (about 10% faster here).


def cuda_precision() -> str:
    """How models run on CUDA here, in words (the GPU edition's record of a page's run, and a
    part of the cache key of what a model computes there)."""
    layers = "the model's own dtype" if CUDA_LAYER_DTYPE is None else str(CUDA_LAYER_DTYPE).split(".")[-1]
    how = "through captured CUDA graphs" if graphsample.USE_GRAPHS else "with a static cache, without graphs"
    return (
        f"sampling of GPT-2 and Llama models {how} with the layers in {layers} (other models "
        f"and beam sampling: step by step), scoring in {CUDA_SCORING}; output layers, "
        f"log-probabilities and draws in float32"
    )


@contextlib.contextmanager
def _tf32():
    """Matrix products and cuDNN on TF32 tensor cores inside, as they were after."""
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


class ModelError(RuntimeError):
    """A model cannot be loaded or used as asked; the message says what to do."""


def resolve_device(device: str | torch.device | None) -> torch.device:
    """``"auto"``/None -> CUDA if present else CPU; ``"cuda"`` without a GPU is an error."""
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ModelError(
            "device 'cuda' was asked for but no CUDA GPU is available here; use device='cpu' (or 'auto')"
        )
    return device


class RowCache:
    """A model's cache of past positions as tensors with a batch dimension ``dim``.

    ``reorder_cache`` selects rows in place, as transformers' caches do, so that beam sampling
    (:mod:`lmnotes.models.beam`) treats every model's cache alike.
    """

    def __init__(self, tensors: tuple[torch.Tensor, ...], dim: int = 0):
        self.tensors, self.dim = tuple(tensors), dim

    def reorder_cache(self, index: torch.Tensor) -> None:
        self.tensors = tuple(t.index_select(self.dim, index.to(t.device)) for t in self.tensors)


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("pass a list of strings, not a single string (wrap it: [text])")
    texts = list(texts)
    bad = [type(t).__name__ for t in texts if not isinstance(t, str)]
    if bad:
        raise TypeError(f"texts must be strings; got {sorted(set(bad))}")
    return texts


class LanguageModel(ABC):
    """A left-to-right language model over token ids with BOS and EOS symbols."""

    name: str
    segmentation: str  # "bpe", "word", "char", "byte", ...
    vocab_size: int
    bos_id: int
    eos_id: int
    pad_id: int
    max_length: int  # context window in tokens, BOS included
    device: torch.device
    #: what decides this model's outputs, as a hash (weights, dtype, device), for the shared
    #: cache of its scores and samples (:mod:`lmnotes.models.memo`); None: not cached
    cache_key: str | None = None
    #: on CUDA, sample through captured graphs where the architecture allows it
    #: (:mod:`lmnotes.models.graphsample`); False keeps the step-by-step path everywhere
    graph_sampling: bool = True

    # --- what a model supplies --------------------------------------------------------------
    @abstractmethod
    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without BOS or EOS."""

    @abstractmethod
    def decode(self, ids: Sequence[int]) -> str:
        """The string of token ids (the inverse of encode on its image)."""

    @abstractmethod
    def _hidden(
        self, ids: torch.Tensor, past: Any = None, use_cache: bool = False
    ) -> tuple[torch.Tensor, Any]:
        """States [B, T, H] for ids [B, T] (right-padded, see _RIGHT_PADDING), given the cache
        ``past`` of earlier positions; returns the new cache when ``use_cache``."""

    @abstractmethod
    def _head(self, states: torch.Tensor) -> torch.Tensor:
        """Next-token logits [N, V] for states [N, H]."""

    def token_bytes(self) -> list[bytes | None]:
        """The UTF-8 bytes each token id stands for in text, None for special tokens, so that
        the bytes of ``encode(text)`` joined give ``text.encode()``. Needed to enumerate a
        string's other segmentations (:mod:`lmnotes.studies.segmentation.marginal`); models whose tokens do not
        spell out the text (a closed word vocabulary) raise :class:`ModelError`."""
        raise ModelError(
            f"{self.name}: its tokens do not spell out the text, so it has no "
            f"segmentations other than its own"
        )

    @property
    def n_parameters(self) -> int:
        return 0

    # --- shared operations ------------------------------------------------------------------
    def _logprobs_at(self, states: torch.Tensor, targets: torch.Tensor, temperature: float) -> torch.Tensor:
        """log softmax(head(states) / T)[targets] for states [N, H], in chunks of the head."""
        out = torch.empty(len(states), dtype=torch.float32, device=states.device)
        step = max(1, HEAD_CHUNK_ELEMENTS // self.vocab_size)
        for a in range(0, len(states), step):
            logits = self._head(states[a : a + step]).float() / temperature  # [n, V]
            picked = logits.gather(1, targets[a : a + step, None])[:, 0]
            out[a : a + step] = picked - torch.logsumexp(logits, dim=-1)
        return out

    def _padded_states(self, rows: list[list[int]], width: int) -> torch.Tensor:
        """States [B, width, H] of token rows right-padded to ``width`` (see _RIGHT_PADDING)."""
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = torch.tensor(row)
        if self.device.type != "cuda" or CUDA_SCORING == "float32":
            return self._hidden(ids.to(self.device))[0]
        if CUDA_SCORING == "tf32":
            with _tf32():
                return self._hidden(ids.to(self.device))[0]
        with torch.autocast("cuda", dtype=torch.bfloat16):  # the layers only
            states = self._hidden(ids.to(self.device))[0]
        return states.to(self._weights_dtype())  # the output layer's own precision

    def _weights_dtype(self) -> torch.dtype:
        """The dtype of the model's weights (its output layer reads states of this dtype)."""
        return torch.float32

    def windows(self, length: int, stride: int | None = None) -> list[tuple[int, int, int]]:
        """The windows (begin, end, first) in which :meth:`score` scores a BOS…EOS sequence of
        ``length`` tokens: tokens [begin, end) are fed and targets [first, end) are scored,
        each target exactly once. Their total width is the cost of scoring."""
        W = self.max_length
        if length <= W:
            return [(0, length, 1)]
        stride = W // 2 if stride is None else stride
        if not 1 <= stride <= W - 1:
            raise ValueError(f"stride must be in [1, {W - 1}] for a context of {W} tokens, got {stride}")
        out, done, begin = [], 1, 0
        while done < length:
            end = min(begin + W, length)
            out.append((begin, end, max(done, begin + 1)))
            done, begin = end, begin + stride
        return out

    @torch.inference_mode()
    def score(
        self,
        texts: Sequence[str],
        temperature: float = 1.0,
        stride: int | None = None,
        batch_tokens: int | None = None,
    ) -> Scores:
        """Score strings: per-token and total log p(text + EOS), see :class:`Scores`.

        Strings longer than the context window are scored with a sliding window of
        ``max_length`` tokens moved by ``stride`` (default half the window): every token is
        scored once, with at least ``max_length - stride`` tokens of context. Under
        ``temperature`` T the scores are those of softmax(logits / T), the distribution that
        sampling at temperature T draws from. Batches hold at most ``batch_tokens`` tokens
        (padding included; default :data:`BATCH_TOKENS` of the device); segments are sorted
        by length so that padding stays small.
        """
        texts = _check_texts(texts)
        token_lp = self._score_sequences([self.encode(t) for t in texts], temperature, stride, batch_tokens)
        return Scores(
            token_logprobs=token_lp,
            logprob=np.array([x.sum() for x in token_lp]),
            n_tokens=np.array([len(x) for x in token_lp]),
            n_words=np.array([len(t.split()) for t in texts]),
            n_chars=np.array([len(t) for t in texts]),
            n_bytes=np.array([len(t.encode("utf-8")) for t in texts]),
        )

    @torch.inference_mode()
    def score_ids(
        self,
        sequences: Sequence[Sequence[int]],
        temperature: float = 1.0,
        stride: int | None = None,
        batch_tokens: int | None = None,
    ) -> list[np.ndarray]:
        """Per-token log-probs of token sequences given as ids (without BOS and EOS), the last
        entry being EOS: :meth:`score` for segmentations other than the tokenizer's own (the
        segmentation chapter's marginal over segmentations)."""
        seqs = [list(map(int, s)) for s in sequences]
        bad = [t for s in seqs for t in s if not 0 <= t < self.vocab_size]
        if bad:
            raise ValueError(f"token ids must lie in [0, {self.vocab_size}); got {sorted(set(bad))[:5]}")
        return self._score_sequences(seqs, temperature, stride, batch_tokens)

    def _score_sequences(
        self, encoded: list[list[int]], temperature: float, stride: int | None, batch_tokens: int | None
    ) -> list[np.ndarray]:
        """log p of each token of BOS + ids + EOS given its prefix (see :meth:`score`)."""
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        if batch_tokens is None:
            batch_tokens = BATCH_TOKENS.get(self.device.type, BATCH_TOKENS["cpu"])
        seqs = [[self.bos_id] + ids + [self.eos_id] for ids in encoded]
        jobs = [(i, b, e, f) for i, s in enumerate(seqs) for (b, e, f) in self.windows(len(s), stride)]
        jobs.sort(key=lambda j: j[2] - j[1], reverse=True)
        pieces: list[list[tuple[int, np.ndarray]]] = [[] for _ in seqs]  # (first target, log-probs)
        start = 0
        while start < len(jobs):
            width = jobs[start][2] - jobs[start][1]
            stop = min(len(jobs), start + max(1, batch_tokens // width))
            batch = jobs[start:stop]
            states = self._padded_states([seqs[i][b:e] for (i, b, e, _) in batch], width)
            # state at position p (relative to b) predicts token b + p + 1
            rows, cols, tgts = [], [], []
            for r, (i, b, e, f) in enumerate(batch):
                pos = np.arange(f - 1 - b, e - 1 - b)
                rows.append(np.full(len(pos), r))
                cols.append(pos)
                tgts.append(seqs[i][f:e])
            rows_t = torch.from_numpy(np.concatenate(rows)).to(self.device)
            cols_t = torch.from_numpy(np.concatenate(cols)).to(self.device)
            tgt_t = torch.tensor([t for ts in tgts for t in ts], device=self.device)
            lp = self._logprobs_at(states[rows_t, cols_t], tgt_t, temperature).cpu().numpy()
            a = 0
            for i, b, e, f in batch:  # noqa: B007
                pieces[i].append((f, lp[a : a + e - f]))
                a += e - f
            start = stop
        return [
            np.concatenate([x for _, x in sorted(p, key=lambda fx: fx[0])]).astype(np.float64) for p in pieces
        ]

    @torch.inference_mode()
    def next_token_logprobs(
        self, prefixes: Sequence[str], temperature: float = 1.0, batch_size: int = 32
    ) -> torch.Tensor:
        """log p(next token | BOS + prefix) for each prefix: a float32 CPU tensor [N, V].

        A prefix longer than the context keeps its last ``max_length - 1`` tokens.
        """
        prefixes = _check_texts(prefixes)
        seqs = [([self.bos_id] + self.encode(p))[-self.max_length :] for p in prefixes]
        out = torch.empty((len(seqs), self.vocab_size), dtype=torch.float32)
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]), reverse=True)
        for a in range(0, len(order), batch_size):
            idx = order[a : a + batch_size]
            width = len(seqs[idx[0]])
            states = self._padded_states([seqs[i] for i in idx], width)
            ends = torch.tensor([len(seqs[i]) - 1 for i in idx], device=self.device)
            last = states[torch.arange(len(idx), device=self.device), ends]
            logits = self._head(last).float() / temperature
            out[idx] = torch.log_softmax(logits, dim=-1).cpu()
        return out

    def _new_cache(self, capacity: int = 0) -> Any:
        """An empty key–value cache for :meth:`_hidden` with room for ``capacity`` positions,
        or None to let the model make its own."""
        return None

    @staticmethod
    def _select_rows(past: Any, index: torch.Tensor) -> Any:
        """Keep rows ``index`` of a cache (transformers' caches and :class:`RowCache` reorder in place)."""
        if past is not None and hasattr(past, "reorder_cache"):
            past.reorder_cache(index)
        return past

    def _sample_batch(
        self, B: int, strategy: Strategy, context: list[int], max_tokens: int, gen: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """One batch of ``B`` samples: tokens [B, steps] (EOS after the end), log-probabilities
        under the model and under the sampling distribution [B], and ended-with-EOS flags [B].

        Rows that have ended stop costing: when a quarter of the rows still computed have
        ended, they are dropped from the batch and the cache (transformers' generate keeps
        computing them until the last row ends).
        """
        dev = self.device
        states, past = self._hidden(
            torch.tensor([context] * B, device=dev),
            self._new_cache(len(context) + max_tokens),
            use_cache=True,
        )
        last = states[:, -1]
        rows = torch.arange(B, device=dev)  # the sample each computed row belongs to
        live = torch.ones(B, dtype=torch.bool, device=dev)  # computed rows that have not ended
        out = torch.full((B, max_tokens), self.eos_id, dtype=torch.long, device=dev)
        lp_model = torch.zeros(B, dtype=torch.float64, device=dev)
        lp_samp = torch.zeros(B, dtype=torch.float64, device=dev)
        steps = 0
        for step in range(max_tokens):
            d = draw(self._head(last), strategy, 1, gen)
            tok = d.tokens[:, 0]
            at = rows[live]
            out[at, step] = tok[live]
            lp_model[at] += d.logprob_model[live, 0]
            lp_samp[at] += d.logprob_sampling[live, 0]
            live &= tok != self.eos_id
            steps = step + 1
            n_live = int(live.sum())
            if n_live == 0 or step == max_tokens - 1:
                break  # the last token is never fed: the window holds context + max_tokens - 1
            if len(rows) - n_live >= max(1, len(rows) // 4):
                keep = live.nonzero()[:, 0]
                past = self._select_rows(past, keep)
                rows, tok, live = rows[keep], tok[keep], live[keep]
            states, past = self._hidden(tok[:, None], past, use_cache=True)
            last = states[:, -1]
        out = out[:, :steps].cpu()
        return out, lp_model.cpu(), lp_samp.cpu(), (out == self.eos_id).any(1)

    @torch.inference_mode()
    def sample(
        self,
        n: int,
        strategy: Strategy | str = "ancestral",
        max_tokens: int = 128,
        prefix: str = "",
        seed: int = 0,
        batch_size: int = 32,
        **settings,
    ) -> Samples:
        """Draw ``n`` samples that continue BOS + ``prefix`` until EOS or ``max_tokens``.

        ``strategy`` is a :class:`~lmnotes.models.sampling.Strategy` or its kind (``"ancestral"``,
        ``"top-k"``, ``"nucleus"``, ``"beam"``, ``"beam-k2"``) with ``temperature``, ``top_k``, ``top_p``,
        ``beam`` as keywords. Deterministic for a given seed, batch size and device.
        """
        if isinstance(strategy, str):
            strategy = Strategy(strategy, **settings)
        elif settings:
            raise TypeError("give the settings inside the Strategy or pass its kind as a string")
        if not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be a non-negative integer, got {n!r}")
        context = [self.bos_id] + self.encode(_check_texts([prefix])[0])
        # the last sampled token is never fed back: the window holds context + max_tokens - 1
        if len(context) + max_tokens - 1 > self.max_length:
            raise ValueError(
                f"prefix ({len(context)} tokens with BOS) + max_tokens ({max_tokens}) - 1 "
                f"exceeds the context window of {self.max_length} tokens"
            )
        if strategy.kind == "beam":
            from lmnotes.models.beam import fairseq_beam

            return fairseq_beam(self, n, strategy, context, max_tokens, seed, batch_size)
        if strategy.kind == "beam-k2":
            from lmnotes.models.beam import k2_beam

            ids_out, lp_model, finished = k2_beam(self, n, strategy, context, max_tokens, seed, batch_size)
            return Samples(
                texts=[self.decode(t) for t in ids_out],
                token_ids=ids_out,
                logprob_model=np.array(lp_model, dtype=float),
                logprob_sampling=np.full(len(ids_out), np.nan),
                finished=np.array(finished, dtype=bool),
            )
        return self._ancestral(n, strategy, context, max_tokens, seed, batch_size)

    def _ancestral(
        self, n: int, strategy: Strategy, context: list[int], max_tokens: int, seed: int, batch_size: int
    ) -> Samples:
        """``n`` samples drawn token by token from ``strategy``'s distribution (ancestral,
        top-k, nucleus), in batches of ``batch_size``."""
        gen = torch.Generator(device=self.device).manual_seed(seed)
        sample_batch = self._sample_batch
        if (
            self.device.type == "cuda"
            and self.graph_sampling
            and max_tokens >= 1
            and graphsample.available(self, strategy)
        ):
            fast = graphsample.sampler(
                self, strategy, context, max_tokens, CUDA_LAYER_DTYPE or self._weights_dtype()
            )
            sample_batch = lambda B, *_: fast.batch(B, gen)  # noqa: E731
        ids_out, lp_model, lp_samp, finished = [], [], [], []
        for a in range(0, n, batch_size):
            toks, lm, ls, done = sample_batch(min(batch_size, n - a), strategy, context, max_tokens, gen)
            for row, d in zip(toks.tolist(), done.tolist()):
                cut = row.index(self.eos_id) if d else len(row)
                ids_out.append(row[:cut])
                finished.append(d)
            lp_model.extend(lm.tolist())
            lp_samp.extend(ls.tolist())
        return Samples(
            texts=[self.decode(t) for t in ids_out],
            token_ids=ids_out,
            logprob_model=np.array(lp_model),
            logprob_sampling=np.array(lp_samp),
            finished=np.array(finished, dtype=bool),
        )
