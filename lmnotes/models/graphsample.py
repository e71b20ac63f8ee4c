"""Sampling on an accelerator without the host: a static cache, a draw from uniforms drawn
in advance, ended rows tracked on the device, and each decoding step captured once as a CUDA
graph and replayed. Used by :meth:`LanguageModel.sample` on CUDA (every chapter that samples,
in the GPU edition); the CPU edition keeps the step-by-step path of :mod:`lmnotes.models.base`.

Measured on an H100 before this module (``bench/README.md``), the step-by-step sampler spent
six times as long on the host as the GPU spent computing: about 276 kernel launches a step,
each waited for by Python, and a host synchronisation per step to drop the rows that had
ended. Here a step is one graph launch:

1. the token fed is written at the position held in a device tensor (:mod:`lmnotes.models.static`);
2. the draw (:func:`lmnotes.models.sampling.draw`) reads this step's row of uniforms, drawn
   for every step before the first (``torch.rand`` of [steps, B] from the sample's generator,
   the same stream of numbers the step-by-step path draws while no row has ended);
3. the token, its log-probabilities and the ended flags are written on the device.

A step's attention reads the cache only up to a length fixed at its capture
(:attr:`lmnotes.models.static.StaticKV.length`), so each batch has one graph per bucket of
positions (:func:`bucket`: multiples of 16, or of an eighth of a power of two beyond 256) and
the host, which knows which step comes next, replays the graph of its bucket. On an H100 the
attention over the whole cache was 40 % of a step's GPU time at batch 256 and 58 % at 1,024
(``bench/step_profile.py``); the buckets make a step read at most 15 positions, or an
eighth, more than the filled part.

The host looks at the ended flags only every ``CHECK_EVERY`` steps, to stop when every row
has ended. Rows that have ended keep being computed (fixed shapes); when at most a quarter of
the rows are live at a check, the live ones move to a smaller batch and its graphs are captured
(the step-by-step path drops ended rows as soon as a quarter have ended: a graph's capture
costs more than a step, so this path waits longer).

On the CPU one draw of [steps, B] uniforms is the same stream of numbers as the step-by-step
path's draws of [B, 1] at each step, so in float32 (no graph) the tokens are that path's for
the same seed while no row has ended (``tests/test_graphsample.py``). On CUDA the two paths
consume the generator differently: a seed gives other (equally exact) samples there.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass

import torch

from lmnotes.models.sampling import Strategy, draw
from lmnotes.models.static import Decoder, StaticKV, unsupported

#: Steps between two looks of the host at the ended flags.
CHECK_EVERY = 8
#: Capture steps as CUDA graphs on CUDA (False: the same steps launched one kernel at a time).
USE_GRAPHS = True
#: The narrowest bucket of cache positions a step attends over (:func:`bucket`).
MIN_BUCKET = 16


def bucket(n: int, capacity: int) -> int:
    """The cache length a step whose token needs the first ``n`` positions attends over: ``n``
    rounded up to a multiple of 16, or of an eighth of the power of two below it when that is
    larger (at most an eighth more than ``n``), and at most ``capacity``."""
    width = max(MIN_BUCKET, 1 << max(0, (n - 1).bit_length() - 4))
    return min(capacity, -(-n // width) * width)


def sync_free(strategy: Strategy) -> bool:
    """Whether ``strategy`` draws token by token (beam sampling reorders hypotheses on the host)."""
    return strategy.kind in ("ancestral", "top-k", "nucleus")


def available(lm, strategy: Strategy) -> bool:
    """Whether ``lm`` can sample under ``strategy`` here: a GPT-2 or Llama model
    (:func:`lmnotes.models.static.unsupported`) and a token-by-token strategy."""
    return sync_free(strategy) and unsupported(lm) is None


#: One sampler per model, for as long as the model lives: kept here, not on the model, so that
#: copying or pickling a model (the distortion chapter deep-copies one) never meets a graph.
_KEPT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def sampler(
    lm, strategy: Strategy, context: list[int], max_tokens: int, dtype: torch.dtype
) -> "GraphSampler":
    """``lm``'s :class:`GraphSampler` for these settings, kept while its weights stay as they
    are: the copy of the weights in ``dtype`` and the captured graph of a full batch serve the
    next call with the same settings (one sampler is kept per model)."""
    # an optimiser step bumps a version; a new tensor or device moves a data pointer
    weights = tuple((_version(p), p.data_ptr(), str(p.device)) for p in _parameters(lm))
    key = (strategy, tuple(context), max_tokens, dtype, USE_GRAPHS, weights)
    kept = _KEPT.get(lm)
    if kept is None or kept[0] != key:
        body = kept[1].decoder.body if kept is not None and kept[0][3:] == key[3:] else None
        kept = (key, GraphSampler(lm, strategy, context, max_tokens, dtype, body=body))
        _KEPT[lm] = kept
    return kept[1]


def _version(t: torch.Tensor) -> int:
    """A tensor's count of in-place changes; -1 for one made under inference mode, which has
    none (a model made there is never trained further: training needs gradients)."""
    try:
        return t._version
    except RuntimeError:
        return -1


def _parameters(lm) -> list[torch.Tensor]:
    net = getattr(lm, "hf", None) or getattr(lm, "net", None)
    return list(net.parameters()) if net is not None else []


@dataclass
class _State:
    """The device tensors one step reads and writes, for a batch of ``B`` rows."""

    kv: StaticKV
    rows: torch.Tensor  # [B] the sample each computed row belongs to
    tok: torch.Tensor  # [B, 1] the token fed at this step
    pos: torch.Tensor  # [1] its position
    step: torch.Tensor  # [1] the index of the token drawn at this step
    live: torch.Tensor  # [B] rows that have not ended
    lp_model: torch.Tensor  # [B] log-probabilities so far (float64), under the model
    lp_samp: torch.Tensor  # [B] and under the sampling distribution

    def small(self) -> tuple[torch.Tensor, ...]:
        """The tensors a step writes besides the cache and the token record."""
        return self.tok, self.pos, self.step, self.live, self.lp_model, self.lp_samp


@contextlib.contextmanager
def _nondeterministic_writes(device: torch.device):
    """PyTorch's deterministic mode (:mod:`lmnotes.core.numerics`) off on CUDA while sampling.

    Its CUDA versions of ``index_copy_`` sort their indices to order writes to the same place;
    a step's writes all go to distinct places, so they are deterministic without it, and the
    sorting versions are not what a CUDA graph should capture."""
    if device.type != "cuda" or not torch.are_deterministic_algorithms_enabled():
        yield
        return
    warn = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(False)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(True, warn_only=warn)


class GraphSampler:
    """Draws batches of samples from ``lm`` under ``strategy`` (see the module docstring).

    ``dtype`` is the precision of the layers (the output layer and the draw are float32);
    ``graphs`` captures each step as a CUDA graph (CUDA only).
    """

    def __init__(
        self,
        lm,
        strategy: Strategy,
        context: list[int],
        max_tokens: int,
        dtype: torch.dtype = torch.float32,
        graphs: bool | None = None,
        body=None,
    ):
        if not sync_free(strategy):
            raise ValueError(f"{strategy.kind} sampling has no graph path")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
        self.strategy, self.context, self.max_tokens = strategy, list(context), max_tokens
        self.device = lm.device
        self.graphs = USE_GRAPHS and self.device.type == "cuda" if graphs is None else graphs
        if self.graphs and self.device.type != "cuda":
            raise ValueError("CUDA graphs need a CUDA device")
        self.decoder = Decoder(lm, dtype, len(context) + max_tokens, body=body)
        self.eos = lm.eos_id
        self.sizes: list[int] = []  # the last batch's sizes: the full one, a smaller one per compaction
        self._full: dict[int, tuple] = {}  # B -> (state, uniforms, record, graphs) of a full batch
        C, cap = len(self.context), self.decoder.capacity
        # step t (1 <= t < max_tokens) feeds the token at position C + t - 1: it reads C + t positions
        self._length = [0] + [bucket(C + t, cap) for t in range(1, max_tokens)]

    # --- one step ---------------------------------------------------------------------------
    def _record(self, logits: torch.Tensor, s: _State, u: torch.Tensor, out: dict) -> None:
        """Draw this step's tokens from ``logits`` [B, V] with the uniforms ``u`` [steps, N] of
        every sample, and record them in ``out`` (the whole batch's buffers)."""
        step_u = u.index_select(0, s.step)[0].index_select(0, s.rows)[:, None]  # [B, 1]
        d = draw(logits, self.strategy, 1, u=step_u, sync_free=True)
        tok = d.tokens[:, 0]
        live = s.live
        row_tok = torch.where(live, tok, self.eos)
        N = out["tokens"].shape[1]  # out["tokens"] [steps, N]: rows s.rows of step s.step
        out["tokens"].view(-1).index_copy_(0, s.step * N + s.rows, row_tok)
        s.lp_model.add_(torch.where(live, d.logprob_model[:, 0], 0.0))
        s.lp_samp.add_(torch.where(live, d.logprob_sampling[:, 0], 0.0))
        s.live.copy_(live & (tok != self.eos))
        s.tok.copy_(tok[:, None])

    def _step(self, s: _State, u: torch.Tensor, out: dict, length: int) -> None:
        """Feed ``s.tok`` at ``s.pos`` (attending over the first ``length`` positions, which
        must cover it), draw the next token, advance."""
        s.kv.length = length
        logits = self.decoder.logits(s.tok, s.pos, s.kv)
        s.step.add_(1)
        self._record(logits, s, u, out)
        s.pos.add_(1)

    def _capture(self, s: _State, u: torch.Tensor, out: dict, first: int = 1) -> dict:
        """CUDA graphs of :meth:`_step` on ``s``, one per cache length that the steps from
        ``first`` on attend over. Capturing runs a step on a side stream first (CUDA's rule
        for graph capture); what that writes is restored afterwards. The graphs share one
        memory pool: they are replayed one at a time, and what a step keeps is written into
        tensors made before the capture."""
        saved = {k: v.clone() for k, v in out.items()}
        small = [t.clone() for t in s.small()]
        graphs, pool = {}, torch.cuda.graph_pool_handle()
        stream = torch.cuda.Stream(device=self.device)
        for length in sorted(set(self._length[first:])):
            stream.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(stream):
                self._step(s, u, out, length)
            torch.cuda.current_stream(self.device).wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=pool):
                self._step(s, u, out, length)
            graphs[length] = graph
            for k, v in saved.items():
                out[k].copy_(v)
            for t, v in zip(s.small(), small):
                t.copy_(v)
        # the cache rows written at later positions are overwritten before they are attended
        return graphs

    # --- a batch ------------------------------------------------------------------------------
    def batch(
        self, B: int, gen: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """``B`` samples: tokens [B, steps] (EOS after the end), log-probabilities under the
        model and under the sampling distribution [B] (float64), ended flags [B]; on the CPU,
        as :meth:`LanguageModel._sample_batch` returns them."""
        self.sizes = []
        with _nondeterministic_writes(self.device):
            s, u, out, graphs = self._fresh(B)
            u.copy_(torch.rand(u.shape, generator=gen, dtype=torch.float64, device=self.device))
            done = self._run(s, u, out, graphs)
        # copies: the buffers serve the next batch (on the CPU .cpu() would return them)
        tokens = out["tokens"][:done].T.to("cpu", copy=True)
        lp = [out[k].to("cpu", copy=True) for k in ("lp_model", "lp_samp")]
        return tokens, lp[0], lp[1], (tokens == self.eos).any(1)

    def _fresh(self, B: int):
        """The buffers of a full batch of ``B`` rows, set to their start, and its graphs (None
        without graphs): made and captured at the first batch of this size, reset at the next
        (the graphs read the same tensors, so they are refilled in place)."""
        dev, T, C = self.device, self.max_tokens, len(self.context)
        if B not in self._full:
            s = _State(
                kv=self.decoder.new_kv(B),
                rows=torch.arange(B, device=dev),
                tok=torch.zeros((B, 1), dtype=torch.long, device=dev),
                pos=torch.zeros(1, dtype=torch.long, device=dev),
                step=torch.zeros(1, dtype=torch.long, device=dev),
                live=torch.ones(B, dtype=torch.bool, device=dev),
                lp_model=torch.zeros(B, dtype=torch.float64, device=dev),
                lp_samp=torch.zeros(B, dtype=torch.float64, device=dev),
            )
            u = torch.zeros((T, B), dtype=torch.float64, device=dev)
            out = {
                "tokens": torch.full((T, B), self.eos, dtype=torch.long, device=dev),
                "lp_model": torch.zeros(B, dtype=torch.float64, device=dev),
                "lp_samp": torch.zeros(B, dtype=torch.float64, device=dev),
            }
            s.pos.fill_(C)
            graphs = self._capture(s, u, out) if self.graphs and T > 1 else None
            self._full = {B: (s, u, out, graphs)}  # one size kept: each holds a cache
        s, u, out, graphs = self._full[B]
        s.pos.fill_(C)  # where step 1 feeds the first token drawn
        s.step.zero_()
        s.live.fill_(True)
        for t in (s.lp_model, s.lp_samp, out["lp_model"], out["lp_samp"]):
            t.zero_()
        out["tokens"].fill_(self.eos)
        return s, u, out, graphs

    def _run(self, s: _State, u: torch.Tensor, out: dict, graphs: dict | None) -> int:
        """Steps until every row has ended or ``max_tokens`` are drawn; their number."""
        T = self.max_tokens
        ctx = torch.tensor([self.context] * len(s.rows), device=self.device)
        self._record(self.decoder.logits(ctx, 0, s.kv), s, u, out)  # step 0 from the prefill
        self.sizes.append(len(s.rows))
        done = 1
        while done < T:
            n = min(CHECK_EVERY, T - done)
            for t in range(done, done + n):
                length = self._length[t]
                graphs[length].replay() if graphs is not None else self._step(s, u, out, length)
            done += n
            if done >= T:
                break
            n_live = int(s.live.sum())
            if n_live == 0:
                break
            if n_live <= len(s.rows) // 4:  # a smaller batch: keep the live rows
                self._settle(s, out)
                keep = s.live.nonzero()[:, 0]
                s = _State(
                    kv=s.kv.select(keep),
                    rows=s.rows[keep],
                    tok=s.tok[keep],
                    pos=s.pos,
                    step=s.step,
                    live=s.live[keep],
                    lp_model=s.lp_model[keep],
                    lp_samp=s.lp_samp[keep],
                )
                graphs = self._capture(s, u, out, first=done) if graphs is not None else None
                self.sizes.append(len(s.rows))
        self._settle(s, out)
        return done

    @staticmethod
    def _settle(s: _State, out: dict) -> None:
        """Copy the rows' log-probabilities so far into the whole batch's."""
        out["lp_model"][s.rows] = s.lp_model
        out["lp_samp"][s.rows] = s.lp_samp
