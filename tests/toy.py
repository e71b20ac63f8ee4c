"""A bigram language model with known probabilities, for exact tests of the shared operations.

Tokens are the characters of ALPHABET plus BOS and EOS; p(next | current) is a fixed random
table, so every score, next-token distribution and sampling distribution has a closed form.
The model is Markov (order 1): context beyond the last token does not matter, which makes
sliding-window scoring exactly equal to full-context scoring whatever the window.
"""

import torch

from lmnotes.models.base import LanguageModel

ALPHABET = "abcdefg "


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
        self.table = sharpness * torch.randn(self.vocab_size, self.vocab_size, generator=g)  # logits[cur, next]
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
