"""A key–value cache for transformers models that grows in place. Used by sampling (every
chapter that samples) through :meth:`LanguageModel._new_cache`.

transformers' ``DynamicLayer`` appends each new token's keys and values with ``torch.cat``,
which copies the whole cache at every step: O(T²) copying for T tokens. Sampling 64 tokens
for 256 rows with the `cpu`-size Transformer spent 46% of its time in that ``cat``
(measured with the torch profiler on the project's CPU). :class:`GrowingLayer` writes into a
buffer of the capacity the caller expects (doubled if ever exceeded) and returns views of its
filled part, so a step copies only the new token. Layers of other kinds (sliding windows, as Gemma-3 has) are left as transformers
makes them.
"""

from __future__ import annotations

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer


class GrowingLayer(DynamicLayer):
    """A full-attention cache layer over a buffer [B, H, capacity, D] that doubles when full."""

    def __init__(self, capacity: int = 0):
        super().__init__()
        self.capacity = capacity

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        super().lazy_initialization(key_states, value_states)
        self._keys = self._values = None
        self._length = 0

    def _view(self) -> None:
        self.keys = self._keys[:, :, : self._length]
        self.values = self._values[:, :, : self._length]

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        n = key_states.shape[-2]
        if self._keys is None or self._length + n > self._keys.shape[-2]:
            capacity = max(self.capacity, 16, 2 * (self._length + n) if self._keys is not None else n)
            keys = key_states.new_empty(*key_states.shape[:2], capacity, key_states.shape[-1])
            values = value_states.new_empty(*value_states.shape[:2], capacity, value_states.shape[-1])
            if self._length:
                keys[:, :, : self._length] = self.keys
                values[:, :, : self._length] = self.values
            self._keys, self._values = keys, values
        self._keys[:, :, self._length : self._length + n] = key_states
        self._values[:, :, self._length : self._length + n] = value_states
        self._length += n
        self._view()
        return self.keys, self.values

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Keep rows ``beam_idx``, copying only the filled positions (beam sampling reorders at
        every step; copying the whole buffer took a fifth of its time)."""
        if self._length:
            index = beam_idx.to(self._keys.device)
            for name in ("_keys", "_values"):
                old = getattr(self, name)
                new = old.new_empty(len(index), *old.shape[1:])
                new[:, :, : self._length] = old[:, :, : self._length].index_select(0, index)
                setattr(self, name, new)
            self._view()


def new_cache(config, capacity: int = 0) -> DynamicCache:
    """An empty cache for a transformers model of ``config`` whose full-attention layers grow
    in place (:class:`GrowingLayer`), with room for ``capacity`` positions from the start."""
    cache = DynamicCache(config=config)
    cache.layers = [
        GrowingLayer(capacity) if type(layer) is DynamicLayer else layer for layer in cache.layers
    ]
    return cache
