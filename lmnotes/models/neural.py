"""Neural language models trained from scratch: LSTM and Transformer decoder. Models chapter
and every study that trains a model.

:class:`NeuralLM` puts a network and a :mod:`lmnotes.text.segment` segmentation behind the
:class:`~lmnotes.models.base.LanguageModel` interface. Two architectures:

- ``lstm``: embedding -> multi-layer LSTM -> output layer tied to the embedding
  (Merity et al. 2018's recipe without its regularisers);
- ``transformer``: transformers' GPT-2 decoder (Radford et al. 2019) with learned positions,
  tied embeddings and its key–value cache.

Both return their recurrent state or key–value cache so that sampling costs one step per
token.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch
from torch import nn

from lmnotes.text import segment as seglib
from lmnotes.models.base import LanguageModel, ModelError, RowCache, resolve_device
from lmnotes.models.kvcache import new_cache


class LSTMNet(nn.Module):
    def __init__(self, vocab_size: int, d_model: int = 256, n_layers: int = 2, dropout: float = 0.2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.drop = nn.Dropout(dropout)
        self.lstm = nn.LSTM(
            d_model, d_model, n_layers, batch_first=True, dropout=dropout if n_layers > 1 else 0.0
        )
        self.out = nn.Linear(d_model, vocab_size)
        self.out.weight = self.embed.weight  # tied
        self.context = None  # no window: the state summarises all the past

    def hidden(self, ids, past=None, use_cache=False):
        state = tuple(past.tensors) if past is not None else None
        h, (hn, cn) = self.lstm(self.drop(self.embed(ids)), state)  # h: [B, T, d]
        return self.drop(h), (RowCache((hn, cn), dim=1) if use_cache else None)

    def head(self, h):
        return self.out(h)

    def new_cache(self, capacity=0):
        return None  # the LSTM's state is its cache (RowCache, made by hidden)


class TransformerNet(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        d_model: int = 256,
        n_layers: int = 4,
        n_heads: int = 4,
        context: int = 256,
        dropout: float = 0.1,
    ):
        super().__init__()
        from transformers import GPT2Config, GPT2LMHeadModel

        cfg = GPT2Config(
            vocab_size=vocab_size,
            n_positions=context,
            n_embd=d_model,
            n_layer=n_layers,
            n_head=n_heads,
            resid_pdrop=dropout,
            embd_pdrop=dropout,
            attn_pdrop=dropout,
            bos_token_id=seglib.BOS,
            eos_token_id=seglib.EOS,
            pad_token_id=seglib.PAD,
            tie_word_embeddings=True,
            activation_function="gelu_pytorch_tanh",
        )
        self.lm = GPT2LMHeadModel(cfg)
        self.context = context

    def hidden(self, ids, past=None, use_cache=False):
        out = self.lm.transformer(input_ids=ids, past_key_values=past, use_cache=use_cache)
        return out.last_hidden_state, (out.past_key_values if use_cache else None)

    def head(self, h):
        return self.lm.lm_head(h)

    def new_cache(self, capacity=0):
        return new_cache(self.lm.config, capacity)


ARCHITECTURES = {"lstm": LSTMNet, "transformer": TransformerNet}


class NeuralLM(LanguageModel):
    """A network of ``arch`` (``lstm`` or ``transformer``) over a segmentation."""

    def __init__(
        self, seg: seglib.Segmentation, arch: str, name: str, device: str | None = "cpu", **net_config
    ):
        if arch not in ARCHITECTURES:
            raise ValueError(f"unknown architecture {arch!r}; use one of {list(ARCHITECTURES)}")
        self.seg, self.arch, self.name, self.net_config = seg, arch, name, dict(net_config)
        self.segmentation = seg.kind
        self.device = resolve_device(device)
        self.net = ARCHITECTURES[arch](seg.vocab_size, **net_config).to(self.device)
        self.net.eval()
        self.vocab_size = seg.vocab_size
        # a segmentation of this package uses its own specials; a borrowed tokenizer (the
        # distortion chapter's learners of a pretrained L) brings the model's
        self.bos_id = getattr(seg, "bos_id", seglib.BOS)
        self.eos_id = getattr(seg, "eos_id", seglib.EOS)
        self.pad_id = getattr(seg, "pad_id", seglib.PAD)
        self.max_length = self.net.context or (1 << 30)

    def _weights_dtype(self) -> torch.dtype:
        return next(self.net.parameters()).dtype

    @property
    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.net.parameters())

    def to(self, device) -> "NeuralLM":
        self.device = resolve_device(device)
        self.net.to(self.device)
        return self

    def encode(self, text: str) -> list[int]:
        return self.seg.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self.seg.decode(ids)

    def token_bytes(self) -> list[bytes | None]:
        try:
            return self.seg.token_bytes()
        except ValueError as exc:
            raise ModelError(f"{self.name}: {exc}") from exc

    def _hidden(self, ids: torch.Tensor, past: Any = None, use_cache: bool = False):
        return self.net.hidden(ids, past, use_cache)

    def _head(self, states: torch.Tensor) -> torch.Tensor:
        return self.net.head(states)

    def _new_cache(self, capacity: int = 0):
        return self.net.new_cache(capacity)
