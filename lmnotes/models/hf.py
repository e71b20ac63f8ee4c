"""Transformer language models from Hugging Face ``transformers``. Models and every study.

:class:`HFModel` adapts any causal LM of ``transformers`` (a local directory, a GGUF file
dequantised by transformers' ``gguf_file`` support, or a hub id when a network is there) to
:class:`~lmnotes.models.base.LanguageModel`: the base model gives hidden states with a
key–value cache, the output embedding (with Gemma's final logit soft-capping where the
config sets one) gives logits.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

import torch

from lmnotes.text.segment import byte_level_bytes
from lmnotes.models.base import LanguageModel, ModelError, resolve_device
from lmnotes.models.kvcache import new_cache

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


class HFModel(LanguageModel):
    """A ``transformers`` causal LM and its tokenizer behind the LanguageModel interface.

    BOS is ``bos`` if given, else the tokenizer's BOS token, else its EOS token (GPT-2's
    ``<|endoftext|>`` convention); EOS is ``eos`` if given, else the tokenizer's EOS token.
    """

    def __init__(
        self,
        model,
        tokenizer,
        name: str,
        segmentation: str = "bpe",
        bos: str | None = None,
        eos: str | None = None,
        device: str | None = "cpu",
        dtype: str = "float32",
        max_length: int | None = None,
    ):
        """(9 parameters: the model, its tokenizer and what the wrapper must know of them (name,
        segmentation, special ids, device, dtype, context length), passed by name by the zoo's
        loaders.)"""
        if dtype not in DTYPES:
            raise ModelError(f"unknown dtype {dtype!r}; use one of {list(DTYPES)}")
        self.device = resolve_device(device)
        self.hf = model.to(device=self.device, dtype=DTYPES[dtype]).eval()
        self.tokenizer = tokenizer
        self.name, self.segmentation, self.dtype = name, segmentation, dtype
        self.vocab_size = int(model.get_output_embeddings().weight.shape[0])
        eos_id = tokenizer.convert_tokens_to_ids(eos) if eos else tokenizer.eos_token_id
        bos_id = (
            tokenizer.convert_tokens_to_ids(bos)
            if bos
            else tokenizer.bos_token_id
            if tokenizer.bos_token_id is not None
            else eos_id
        )
        if eos_id is None or bos_id is None:
            raise ModelError(f"{name}: the tokenizer defines no EOS token; pass eos='<token>'")
        self.bos_id, self.eos_id = int(bos_id), int(eos_id)
        self.pad_id = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos_id)
        cfg = model.config
        window = max_length or getattr(cfg, "max_position_embeddings", None) or 1024
        self.max_length = int(window)
        self._softcap = getattr(cfg, "final_logit_softcapping", None)
        self._token_bytes = None

    def _weights_dtype(self) -> torch.dtype:
        return next(self.hf.parameters()).dtype

    @property
    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.hf.parameters())

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False)

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False, clean_up_tokenization_spaces=False)

    def token_bytes(self) -> list[bytes | None]:
        """Byte-level BPE (GPT-2, SmolLM2: ``Ġ`` for a space) or SentencePiece with byte
        fallback (Gemma: ``▁`` for a space, ``<0x41>`` for a byte); special tokens are None."""
        if self._token_bytes is None:
            decoder = json.loads(self.tokenizer.backend_tokenizer.to_str()).get("decoder") or {}
            kinds = {d.get("type") for d in decoder.get("decoders", [decoder])}
            tokens = self.tokenizer.convert_ids_to_tokens(list(range(self.vocab_size)))
            if "ByteLevel" in kinds:
                spell = byte_level_bytes
            elif "ByteFallback" in kinds:

                def spell(t):
                    m = _BYTE_TOKEN.fullmatch(t)
                    return bytes([int(m.group(1), 16)]) if m else t.replace("\u2581", " ").encode("utf-8")
            else:
                raise ModelError(
                    f"{self.name}: unknown tokenizer decoder {sorted(kinds)}; cannot map its tokens to bytes"
                )
            out = [None if t is None else spell(t) for t in tokens]
            # added tokens hold raw text (Gemma's "\n\n"), special ones no text at all
            for i, tok in self.tokenizer.added_tokens_decoder.items():
                if i < len(out):
                    out[i] = None if tok.special else tok.content.encode("utf-8")
            self._token_bytes = out
        return self._token_bytes

    def _hidden(
        self, ids: torch.Tensor, past: Any = None, use_cache: bool = False
    ) -> tuple[torch.Tensor, Any]:
        out = self.hf.base_model(input_ids=ids, past_key_values=past, use_cache=use_cache)
        return out.last_hidden_state, (out.past_key_values if use_cache else None)

    def _new_cache(self, capacity: int = 0):
        return new_cache(self.hf.config, capacity)

    def _head(self, states: torch.Tensor) -> torch.Tensor:
        logits = self.hf.get_output_embeddings()(states)
        if self._softcap:
            logits = torch.tanh(logits / self._softcap) * self._softcap
        return logits
