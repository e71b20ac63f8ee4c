"""A bigram language model with known probabilities, for exact tests of the shared operations.

Tokens are the characters of ALPHABET plus BOS and EOS; p(next | current) is a fixed random
table, so every score, next-token distribution and sampling distribution has a closed form.
The model is Markov (order 1): context beyond the last token does not matter, which makes
sliding-window scoring exactly equal to full-context scoring whatever the window.
"""

import torch

from lmnotes.models.base import LanguageModel

ALPHABET = "abcdefg "


def longest_match(tokens, text):
    """Token ids of ``text`` by greedy longest match: the toys' "canonical" segmentation."""
    ids, j = [], 0
    while j < len(text):
        best = max((i for i, t in enumerate(tokens) if text.startswith(t, j)), key=lambda i: len(tokens[i]))
        ids.append(best)
        j += len(tokens[best])
    return ids


class Bigram(LanguageModel):
    name = "toy-bigram"
    segmentation = "char"

    def __init__(self, seed=0, max_length=512, sharpness=2.0):
        g = torch.Generator().manual_seed(seed)
        self.vocab_size = len(ALPHABET) + 2
        self.bos_id, self.eos_id = len(ALPHABET), len(ALPHABET) + 1
        self.pad_id = self.eos_id
        self.max_length = max_length
        self.device = torch.device("cpu")
        self.table = sharpness * torch.randn(
            self.vocab_size, self.vocab_size, generator=g
        )  # logits[cur, next]
        self.table[:, self.bos_id] = -1e9  # BOS is never predicted

    def encode(self, text):
        return [ALPHABET.index(c) for c in text]

    def decode(self, ids):
        return "".join(ALPHABET[i] for i in ids)

    def _hidden(self, ids, past=None, use_cache=False):
        return torch.nn.functional.one_hot(ids, self.vocab_size).double(), None

    def _head(self, states):
        return states @ self.table.double()

    def logprob(self, text, temperature=1.0):
        """log p(text + EOS) computed directly from the table."""
        seq = [self.bos_id] + self.encode(text) + [self.eos_id]
        lp = torch.log_softmax(self.table.double() / temperature, dim=-1)
        return sum(float(lp[a, b]) for a, b in zip(seq, seq[1:]))


class SubwordBigram(LanguageModel):
    """A bigram model over subword tokens (single characters and some multi-character ones),
    so that strings have many segmentations whose total probability has a closed form: the
    forward algorithm over (byte offset, last token) in :meth:`logmarginal`."""

    name = "toy-subword-bigram"
    segmentation = "bpe"
    TOKENS = ["a", "b", " ", "ab", "ba", "aba", "b a"]

    def __init__(self, seed=0, max_length=512, sharpness=1.5):
        g = torch.Generator().manual_seed(seed)
        self.vocab_size = len(self.TOKENS) + 2
        self.bos_id, self.eos_id = len(self.TOKENS), len(self.TOKENS) + 1
        self.pad_id = self.eos_id
        self.max_length = max_length
        self.device = torch.device("cpu")
        self.table = sharpness * torch.randn(self.vocab_size, self.vocab_size, generator=g)
        self.table[:, self.bos_id] = -1e9

    def token_bytes(self):
        return [t.encode() for t in self.TOKENS] + [None, None]

    def encode(self, text):  # greedy longest match: the "canonical" segmentation
        return longest_match(self.TOKENS, text)

    def decode(self, ids):
        return "".join(self.TOKENS[i] for i in ids if i < len(self.TOKENS))

    def _hidden(self, ids, past=None, use_cache=False):
        return torch.nn.functional.one_hot(ids, self.vocab_size).double(), None

    def _head(self, states):
        return states @ self.table.double()

    def logmarginal(self, text):
        """log sum over all segmentations of p(BOS s EOS), by the forward algorithm."""
        import math

        lp = torch.log_softmax(self.table.double(), dim=-1)
        alpha = [dict() for _ in range(len(text) + 1)]  # offset -> {last token: log prob}
        alpha[0][self.bos_id] = 0.0
        for j in range(len(text)):
            for last, a in alpha[j].items():
                for i, t in enumerate(self.TOKENS):
                    if text.startswith(t, j):
                        k = j + len(t)
                        v = a + float(lp[last, i])
                        alpha[k][i] = (
                            v
                            if i not in alpha[k]
                            else max(alpha[k][i], v) + math.log1p(math.exp(-abs(alpha[k][i] - v)))
                        )
        ends = [a + float(lp[last, self.eos_id]) for last, a in alpha[len(text)].items()]
        m = max(ends)
        return m + math.log(sum(math.exp(e - m) for e in ends))


class WordToy(LanguageModel):
    """A bigram model over given subword strings with hand-set logits, for whole-word
    decoding: ``prefer(a, b, logit)`` raises the logit of token ``b`` after token ``a`` (or
    after BOS with ``a=None``), so argmax paths are known."""

    name = "toy-words"
    segmentation = "bpe"

    def __init__(self, tokens, max_length=512, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.tokens = list(tokens)
        self.vocab_size = len(self.tokens) + 2
        self.bos_id, self.eos_id = len(self.tokens), len(self.tokens) + 1
        self.pad_id = self.eos_id
        self.max_length = max_length
        self.device = torch.device("cpu")
        self.table = 0.1 * torch.randn(self.vocab_size, self.vocab_size, generator=g, dtype=torch.float64)
        self.table[:, self.bos_id] = -1e9

    def id(self, token):
        return self.tokens.index(token) if token is not None else self.bos_id

    def prefer(self, a, b, logit=5.0):
        self.table[self.id(a) if a != "EOS" else self.eos_id, self.id(b) if b != "EOS" else self.eos_id] = (
            logit
        )
        return self

    def token_bytes(self):
        return [t.encode() for t in self.tokens] + [None, None]

    def encode(self, text):
        return longest_match(self.tokens, text)

    def decode(self, ids):
        return "".join(self.tokens[i] for i in ids if i < len(self.tokens))

    def _hidden(self, ids, past=None, use_cache=False):
        return torch.nn.functional.one_hot(ids, self.vocab_size).double(), None

    def _head(self, states):
        return states @ self.table
