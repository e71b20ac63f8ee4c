"""A forward pass with a static key–value cache for the two architectures the report samples
from on an accelerator: GPT-2 (the project's own Transformers) and Llama (SmolLM2). Used by
:mod:`lmnotes.models.graphsample`, the sampler of every chapter that samples on CUDA.

Every tensor of a decoding step has a shape fixed while it is replayed: the cache is
allocated once for ``capacity`` positions, a new token's keys and values are written at a
position held in a device tensor (``index_copy_``), and attention runs over the first
``length`` positions (:attr:`StaticKV.length`, a number fixed when a step is captured) with a
mask of the positions filled so far. A step therefore makes no host synchronisation and
allocates nothing new, which is what lets it be captured as a CUDA graph and replayed with
one launch; the sampler captures one step per bucket of lengths, so that early steps do not
read the empty end of the cache (a profile on an H100 found the attention over the whole
capacity to be 40–58 % of a step's GPU time).

Why this is written here and not taken from transformers: its static cache is made for
``torch.compile``, which costs tens of seconds of compilation per batch shape, and its forward
builds masks and positions on the host in ways that change between its releases (the
accelerator machine runs another version than this one). The step below calls the models' own
modules (embeddings, layer norms, projections, MLPs) and writes only what joins them: the
attention over the static cache and, for Llama, the rotary embedding (Su et al. 2021, Eq. 34,
in transformers' rotate-half form). ``tests/test_graphsample.py`` checks it against
transformers' forward.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn


class StaticKV:
    """Keys and values of every layer for ``B`` rows and ``capacity`` positions."""

    def __init__(
        self,
        n_layers: int,
        B: int,
        heads: int,
        capacity: int,
        head_dim: int,
        dtype: torch.dtype,
        device: torch.device,
    ):
        shape = (n_layers, B, heads, capacity, head_dim)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.capacity = capacity
        self.positions = torch.arange(capacity, device=device)
        #: the positions a single new token's attention reads (those after it are masked
        #: anyway): set by the sampler before it runs or captures a step
        self.length = capacity

    def attend(
        self, i: int, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, pos: int | torch.Tensor
    ) -> torch.Tensor:
        """Attention of queries q [B, Hq, T, D] in layer ``i`` after storing k, v [B, H, T, D].

        ``pos`` is either 0 (a prefill: the T tokens at positions 0..T-1, causal attention
        among them) or a device tensor [1] holding the position of a single new token, which
        attends to every filled position up to it among the first :attr:`length` (:meth:`_decode`).
        """
        if isinstance(pos, int):
            if pos != 0:
                raise ValueError("a prefill starts at position 0")
            T = k.shape[2]
            self.k[i, :, :, :T] = k
            self.v[i, :, :, :T] = v
            return F.scaled_dot_product_attention(
                q, k, v, is_causal=T > 1, enable_gqa=q.shape[1] != k.shape[1]
            )
        self.k[i].index_copy_(2, pos, k)
        self.v[i].index_copy_(2, pos, v)
        return self._decode(q, self.k[i], self.v[i], pos)

    def _decode(self, q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """softmax(q K^T / sqrt(D)) V for one query per row over the positions <= ``pos``
        (which must be < :attr:`length`).

        Written out because ``scaled_dot_product_attention`` with a mask over the cache falls
        back to its reference kernel for a single query, which (on CUDA) copies the keys and
        values to float32 at every step: more memory traffic than the attention itself. Here
        the two products read the cache once in its dtype and only the scores [B, Hq, cap]
        are float32. The queries of a key-value head are grouped (grouped-query attention,
        as Llama's ``repeat_kv`` pairs them).
        """
        B, Hq, _, D = q.shape
        H = K.shape[1]
        L = self.length
        K, V = K[:, :, :L], V[:, :, :L]  # views: one batch stride over B and H, no copy
        g = q.view(B, H, Hq // H, D)  # [B, H, group, D]
        scores = torch.matmul(g, K.transpose(-1, -2)).float() * D**-0.5  # [B, H, group, L]
        scores = scores.masked_fill(self.positions[:L] > pos, float("-inf"))
        weights = torch.softmax(scores, dim=-1).to(V.dtype)
        return torch.matmul(weights, V).view(B, Hq, 1, D)

    def select(self, rows: torch.Tensor) -> "StaticKV":
        """A cache of rows ``rows`` only (a shorter batch); this one is left as it is (a
        captured graph may still write into it)."""
        new = copy.copy(self)
        new.k, new.v = self.k.index_select(1, rows), self.v.index_select(1, rows)
        return new


def _heads(x: torch.Tensor, n: int) -> torch.Tensor:
    """[B, T, n*D] -> [B, n, T, D]."""
    B, T, _ = x.shape
    return x.view(B, T, n, -1).transpose(1, 2)


def _merge(x: torch.Tensor) -> torch.Tensor:
    """[B, n, T, D] -> [B, T, n*D]."""
    B, n, T, D = x.shape
    return x.transpose(1, 2).reshape(B, T, n * D)


class GPT2Step(nn.Module):
    """GPT-2's decoder (transformers' ``GPT2Model``) over a :class:`StaticKV`."""

    def __init__(self, model):
        super().__init__()
        self.m = model
        cfg = model.config
        self.heads = cfg.n_head
        self.head_dim = cfg.n_embd // cfg.n_head
        self.n_layers = cfg.n_layer
        self.kv_heads = self.heads

    def forward(self, ids: torch.Tensor, pos: int | torch.Tensor, kv: StaticKV) -> torch.Tensor:
        m = self.m
        where = torch.arange(ids.shape[1], device=ids.device) if isinstance(pos, int) else pos
        x = m.wte(ids) + m.wpe(where)[None]  # [B, T, d]
        for i, block in enumerate(m.h):
            q, k, v = block.attn.c_attn(block.ln_1(x)).split(x.shape[-1], dim=2)
            a = kv.attend(i, _heads(q, self.heads), _heads(k, self.heads), _heads(v, self.heads), pos)
            x = x + block.attn.c_proj(_merge(a))
            x = x + block.mlp(block.ln_2(x))
        return m.ln_f(x)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaStep(nn.Module):
    """Llama's decoder (transformers' ``LlamaModel``: SmolLM2) over a :class:`StaticKV`, with
    the rotary embedding's cosines and sines tabulated once for ``capacity`` positions."""

    def __init__(self, model, capacity: int):
        super().__init__()
        self.m = model
        cfg = model.config
        self.heads = cfg.num_attention_heads
        self.kv_heads = cfg.num_key_value_heads
        self.head_dim = model.layers[0].self_attn.q_proj.out_features // self.heads
        self.n_layers = len(model.layers)
        where = torch.arange(capacity, device=model.embed_tokens.weight.device)[None]
        cos, sin = model.rotary_emb(model.embed_tokens.weight[:1], where)  # [1, capacity, D]
        self.cos, self.sin = cos[0], sin[0]

    def _rope(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        return x * cos + _rotate_half(x) * sin

    def forward(self, ids: torch.Tensor, pos: int | torch.Tensor, kv: StaticKV) -> torch.Tensor:
        m = self.m
        where = torch.arange(ids.shape[1], device=ids.device) if isinstance(pos, int) else pos
        cos, sin = self.cos.index_select(0, where), self.sin.index_select(0, where)  # [T, D]
        x = m.embed_tokens(ids)
        for i, layer in enumerate(m.layers):
            att = layer.self_attn
            h = layer.input_layernorm(x)
            q = self._rope(_heads(att.q_proj(h), self.heads), cos, sin)
            k = self._rope(_heads(att.k_proj(h), self.kv_heads), cos, sin)
            a = kv.attend(i, q, k, _heads(att.v_proj(h), self.kv_heads), pos)
            x = x + att.o_proj(_merge(a))
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        return m.norm(x)


def unsupported(lm) -> str | None:
    """Why ``lm`` has no static step (None if it has one): only GPT-2 and Llama models do."""
    net = _causal_lm(lm)
    if net is None:
        return f"{lm.name} is not a transformers causal LM"
    cfg = net.config
    if cfg.model_type == "gpt2":
        if not cfg.scale_attn_weights or cfg.scale_attn_by_inverse_layer_idx or cfg.add_cross_attention:
            return f"{lm.name}: a GPT-2 with non-standard attention scaling or cross-attention"
        return None
    if cfg.model_type == "llama":
        rope = getattr(net.base_model.rotary_emb, "rope_type", "default")
        if rope != "default":
            return f"{lm.name}: rotary embedding of type {rope!r}"
        return None
    return f"{lm.name}: architecture {cfg.model_type!r} (static steps exist for gpt2 and llama)"


def _causal_lm(lm):
    """The transformers causal LM behind a LanguageModel, or None."""
    net = getattr(lm, "hf", None)
    if net is None:
        inner = getattr(getattr(lm, "net", None), "lm", None)
        net = inner
    return net if net is not None and hasattr(net, "config") else None


class Decoder:
    """A model's static step and output layer at one dtype: the layers in ``dtype`` (a copy
    of the weights when it differs from the model's), the output layer in float32 so that the
    logits the draw reads keep their precision. (For a model loaded in bfloat16 the output
    layer then runs in float32 here and in bfloat16 when it scores; no chapter loads one.)"""

    def __init__(self, lm, dtype: torch.dtype, capacity: int, body=None):
        why = unsupported(lm)
        if why:
            raise ValueError(why)
        net = _causal_lm(lm)
        if body is None:  # else: the copy in ``dtype`` of an earlier Decoder of the same weights
            body = net.base_model
            if next(body.parameters()).dtype != dtype:
                body = copy.deepcopy(body).to(dtype)
        self.body = body
        head = net.get_output_embeddings()
        self.head_weight = head.weight.detach().float()
        self.head_bias = None if head.bias is None else head.bias.detach().float()
        self.softcap = getattr(net.config, "final_logit_softcapping", None)
        self.step = GPT2Step(body) if net.config.model_type == "gpt2" else LlamaStep(body, capacity)
        self.dtype, self.capacity = dtype, capacity
        self.device = self.head_weight.device

    def new_kv(self, B: int) -> StaticKV:
        s = self.step
        return StaticKV(s.n_layers, B, s.kv_heads, self.capacity, s.head_dim, self.dtype, self.device)

    def logits(self, ids: torch.Tensor, pos: int | torch.Tensor, kv: StaticKV) -> torch.Tensor:
        """Next-token logits [B, V] (float32) after feeding ids [B, T] at ``pos``."""
        h = self.step(ids, pos, kv)[:, -1].float()
        out = F.linear(h, self.head_weight, self.head_bias)
        if self.softcap:
            out = torch.tanh(out / self.softcap) * self.softcap
        return out
