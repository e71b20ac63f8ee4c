"""Beam sampling, the third strategy of the tendencies chapter: two decoders.

Meister & Cotterell (2021, §5): "extensions are sampled from p and the k most probable of the
sampled items remain on the beam", with k = 5, fairseq's ``--sampling --beam 5``.

``"beam"`` (:func:`fairseq_beam`) is what fairseq's sampling search does (``search.Sampling``
with ``SequenceGenerator``). At the first step it draws k tokens from the (tempered) model
with replacement; after that each of the k hypotheses draws **one** token and stays in its
place on the beam (``beams_buf = arange(k)``); a hypothesis that draws EOS is finalised and
its slot is ignored from then on; the search ends when k hypotheses are final and returns
the one with the best length-normalised score (log-probability under the sampled
distribution / tokens incl. EOS, fairseq's default ``normalize_scores``). The k hypotheses
never interact, so this is exactly k independent ancestral samples and a best-of-k choice,
which is how it is computed here (with the fast ancestral sampler). Two details of fairseq
are not copied: its ``min_len = 1`` bans EOS at the first step, and at ``max_len`` it forces
EOS; here an empty document is allowed, and a hypothesis that runs into ``max_tokens`` is
unfinished, scored as log-probability / tokens.

``"beam-k2"`` (:func:`k2_beam`) is the decoder this project used first, closer to beam
search: at every step each of the k hypotheses draws k candidate tokens (with replacement),
the k² candidates are ranked by their cumulative log-probability under the model, a
candidate ending in EOS within the top k is finished, and the k best candidates that do not
end go on; a run ends when k hypotheses have finished (or at ``max_tokens``) and returns
the finished hypothesis with the best length-normalised score. It prunes to the most
probable continuations at every step, so its text is far more degenerate than fairseq's.

Neither has a closed-form distribution, so ``logprob_sampling`` is NaN.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from lmnotes.models.outputs import Samples
from lmnotes.models.sampling import Strategy, draw


def fairseq_beam(lm, n: int, strategy, context: list[int], max_tokens: int, seed: int, batch_size: int):
    """``n`` runs of fairseq's sampling search with beam size k = ``strategy.beam``: k
    ancestral samples per run (from the model at ``strategy.temperature``), the one with the
    best log-probability per token (EOS counted when reached) returned. See the module
    docstring. Returns :class:`~lmnotes.models.outputs.Samples`."""
    k = strategy.beam
    draws = lm._ancestral(
        n * k, Strategy("ancestral", temperature=strategy.temperature), context, max_tokens, seed, batch_size
    )
    lengths = np.array([len(t) for t in draws.token_ids]) + draws.finished
    score = (draws.logprob_sampling / np.maximum(lengths, 1)).reshape(n, k)
    best = np.arange(n) * k + score.argmax(1)  # the first of equal scores, as torch.topk's order
    return Samples(
        texts=[draws.texts[i] for i in best],
        token_ids=[draws.token_ids[i] for i in best],
        logprob_model=draws.logprob_model[best],
        logprob_sampling=np.full(n, np.nan),
        finished=draws.finished[best],
    )


@torch.inference_mode()
def k2_beam(lm, n: int, strategy, context: list[int], max_tokens: int, seed: int, batch_size: int):
    """``n`` runs of the k-of-k² beam sampler of beam size ``strategy.beam``; see the module docstring.

    Returns (token ids, model log-probs, finished flags), one per run.
    """
    k = strategy.beam
    dev = lm.device
    gen = torch.Generator(device=dev).manual_seed(seed)
    out_ids, out_lp, out_done = [], [], []
    runs_per_batch = max(1, batch_size // k)
    for a in range(0, n, runs_per_batch):
        R = min(runs_per_batch, n - a)
        states, past = lm._hidden(
            torch.tensor([context] * (R * k), device=dev),
            lm._new_cache(len(context) + max_tokens),
            use_cache=True,
        )
        last = states[:, -1]
        active = np.arange(R)  # the runs still computed; run active[i] owns rows i*k .. i*k+k-1
        cum = torch.full((R, k), -math.inf, dtype=torch.float64, device=dev)
        cum[:, 0] = 0.0  # at the start the k rows are one hypothesis
        final_cum = np.full((R, k), -np.inf)
        hyps = [[[] for _ in range(k)] for _ in range(R)]
        finished: list[list[tuple[float, list[int], float]]] = [[] for _ in range(R)]
        for step in range(max_tokens):
            A = len(active)
            d = draw(lm._head(last), strategy, k, gen)  # k candidates per hypothesis [A * k, k]
            # a token drawn twice by one hypothesis is one candidate
            cand, order = d.tokens.sort(1)
            dup = torch.zeros_like(cand, dtype=torch.bool)
            dup[:, 1:] = cand[:, 1:] == cand[:, :-1]
            cand_lp = torch.where(dup, -math.inf, d.logprob_model.gather(1, order))
            score = (cum.reshape(A * k, 1) + cand_lp).reshape(A, k * k)
            order = score.argsort(1, descending=True).cpu().numpy()
            score_np, cand_np = score.cpu().numpy(), cand.reshape(A, k * k).cpu().numpy()
            parents = np.zeros((A, k), dtype=np.int64)
            tokens = np.full((A, k), lm.eos_id, dtype=np.int64)
            new_cum = np.full((A, k), -np.inf)
            for i, r in enumerate(active):
                kept = 0
                for rank, c in enumerate(order[i]):
                    s = score_np[i, c]
                    if not np.isfinite(s) or kept == k:
                        break
                    parent, tok = divmod(c, k)[0], cand_np[i, c]
                    seq = hyps[r][parent] + [int(tok)]
                    if tok == lm.eos_id:
                        if rank < k and len(finished[r]) < k:
                            finished[r].append((s / len(seq), seq[:-1], s))
                        continue
                    parents[i, kept], tokens[i, kept], new_cum[i, kept] = parent, tok, s
                    kept += 1
                hyps[r] = [
                    hyps[r][p] + [int(t)] if np.isfinite(c) else []
                    for p, t, c in zip(parents[i], tokens[i], new_cum[i])
                ]
            final_cum[active] = new_cum
            # runs with k finished hypotheses are done: their rows leave the batch
            going = np.array([i for i, r in enumerate(active) if len(finished[r]) < k], dtype=np.int64)
            if len(going) == 0 or step == max_tokens - 1:
                break  # (the last tokens are not fed: the window holds context + max_tokens - 1)
            index = torch.from_numpy((going[:, None] * k + parents[going]).reshape(-1)).to(dev)
            past = lm._select_rows(past, index)
            active, cum = active[going], torch.from_numpy(new_cum[going]).to(dev)
            states, past = lm._hidden(
                torch.from_numpy(tokens[going].reshape(-1, 1)).to(dev), past, use_cache=True
            )
            last = states[:, -1]
        for r in range(R):
            if finished[r]:
                _, ids, lp = max(finished[r], key=lambda f: f[0])
                out_ids.append(ids)
                out_lp.append(lp)
                out_done.append(True)
            else:  # no hypothesis ended within max_tokens: the best unfinished one
                j = int(np.argmax(final_cum[r]))
                out_ids.append(hyps[r][j])
                out_lp.append(float(final_cum[r, j]))
                out_done.append(False)
    return out_ids, out_lp, out_done
