"""Segmentations of raw text into token ids for the self-trained models. Models, segmentation
and every chapter that trains a model.

Four segmentations, one interface (:class:`Segmentation`):

- ``word``: Moses tokens (case kept) with a closed vocabulary: the types seen at least
  ``min_count`` times in training (at most ``vocab_size`` of them), every other word ``<unk>``;
  decoding detokenizes with the Moses detokenizer.
- ``char``: Unicode characters seen in training, others ``<unk>`` (closed over characters).
- ``byte``: the 256 UTF-8 byte values; open vocabulary, nothing is unknown.
- ``bpe``: byte-level BPE trained with the ``tokenizers`` library to ``vocab_size`` types;
  open vocabulary.

Every segmentation reserves ids 0–2 for ``<pad>``, ``<s>`` (BOS/EOS: one symbol marks both
ends, as GPT-2's ``<|endoftext|>``) and ``<unk>``. Segmentations pickle, so trained models
cache them with their weights.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Sequence

from lmnotes.text.tokenize import moses_words

SPECIALS = ("<pad>", "<s>", "<unk>")
PAD, BOS, UNK = 0, 1, 2
EOS = BOS
KINDS = ("word", "char", "byte", "bpe")


@lru_cache(maxsize=None)
def _byte_decoder() -> dict[str, int]:
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    return {c: b for b, c in bytes_to_unicode().items()}


def byte_level_bytes(token: str) -> bytes:
    """The bytes of a byte-level BPE token (GPT-2's printable alphabet: ``Ġ`` is a space)."""
    table = _byte_decoder()
    return bytes(table[c] for c in token)


@lru_cache(maxsize=None)
def _detokenizer():
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang="en")


class Segmentation:
    """Maps text to ids and back. Subclasses set ``kind``, ``vocab`` and the two methods."""

    kind: str
    open_vocabulary: bool
    vocab: list[str]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        raise NotImplementedError

    def decode(self, ids: Sequence[int]) -> str:
        raise NotImplementedError

    def token_bytes(self) -> list[bytes | None]:
        """The UTF-8 bytes each id stands for in text, None for the special symbols: the
        bytes of ``encode(text)`` joined give ``text.encode()`` (open vocabularies)."""
        raise ValueError(
            f"the {self.kind} segmentation's tokens do not spell out the text "
            f"(closed vocabulary with <unk>, or a detokenizer between tokens and text)"
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.vocab_size} types)"


class _Closed(Segmentation):
    """A closed vocabulary over symbols of ``split`` (words or characters)."""

    open_vocabulary = False

    def __init__(self, texts: Sequence[str], vocab_size: int | None, min_count: int):
        counts = Counter(s for t in texts for s in self.split(t))
        kept = sorted((s for s, c in counts.items() if c >= min_count), key=lambda s: (-counts[s], s))
        self.vocab = list(SPECIALS) + kept[: None if vocab_size is None else vocab_size - len(SPECIALS)]
        self.index = {s: i for i, s in enumerate(self.vocab)}

    def encode(self, text: str) -> list[int]:
        return [self.index.get(s, UNK) for s in self.split(text)]


class WordSegmentation(_Closed):
    kind = "word"

    @staticmethod
    def split(text: str) -> list[str]:
        return moses_words(text, lower=False)

    def decode(self, ids: Sequence[int]) -> str:
        return _detokenizer().detokenize([self.vocab[i] for i in ids if i not in (PAD, BOS)])


class CharSegmentation(_Closed):
    kind = "char"

    @staticmethod
    def split(text: str) -> list[str]:
        return list(text)

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.vocab[i] if i > UNK else ("\ufffd" if i == UNK else "") for i in ids)

    def token_bytes(self) -> list[bytes | None]:
        return [None] * len(SPECIALS) + [c.encode("utf-8") for c in self.vocab[len(SPECIALS) :]]


class ByteSegmentation(Segmentation):
    kind = "byte"
    open_vocabulary = True

    def __init__(self):
        self.vocab = list(SPECIALS) + [f"<0x{b:02X}>" for b in range(256)]

    def encode(self, text: str) -> list[int]:
        return [b + len(SPECIALS) for b in text.encode("utf-8")]

    def decode(self, ids: Sequence[int]) -> str:
        return bytes(i - len(SPECIALS) for i in ids if i >= len(SPECIALS)).decode("utf-8", errors="replace")

    def token_bytes(self) -> list[bytes | None]:
        return [None] * len(SPECIALS) + [bytes([b]) for b in range(256)]


class BPESegmentation(Segmentation):
    """Byte-level BPE (``tokenizers``), trained on ``texts`` to ``vocab_size`` types."""

    kind = "bpe"
    open_vocabulary = True

    def __init__(self, texts: Sequence[str], vocab_size: int):
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=list(SPECIALS),
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tok.train_from_iterator(texts, trainer=trainer)
        self.tokenizer = tok
        self.vocab = [tok.id_to_token(i) for i in range(tok.get_vocab_size())]

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text).ids

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode([i for i in ids if i > UNK], skip_special_tokens=False)

    def token_bytes(self) -> list[bytes | None]:
        return [None] * len(SPECIALS) + [byte_level_bytes(t) for t in self.vocab[len(SPECIALS) :]]

    def __getstate__(self):
        state = dict(self.__dict__)
        state["tokenizer"] = self.tokenizer.to_str()
        return state

    def __setstate__(self, state):
        from tokenizers import Tokenizer

        state["tokenizer"] = Tokenizer.from_str(state["tokenizer"])
        self.__dict__.update(state)


def train(kind: str, texts: Sequence[str], vocab_size: int | None = None, min_count: int = 2) -> Segmentation:
    """A segmentation of ``kind`` (word, char, byte, bpe) fitted on ``texts``."""
    if kind == "word":
        return WordSegmentation(texts, vocab_size, min_count)
    if kind == "char":
        return CharSegmentation(texts, vocab_size, min_count)
    if kind == "byte":
        return ByteSegmentation()
    if kind == "bpe":
        if not vocab_size or vocab_size < 256 + len(SPECIALS):
            raise ValueError(
                f"BPE needs vocab_size >= {256 + len(SPECIALS)} (the byte alphabet), got {vocab_size}"
            )
        return BPESegmentation(texts, vocab_size)
    raise ValueError(f"unknown segmentation {kind!r}; the segmentations are {list(KINDS)}")
