"""Where a decoding step of the accelerator's sampler spends its time: a profile of the step of
:mod:`lmnotes.models.graphsample` launched kernel by kernel and replayed as a captured graph,
and the same step fused by ``torch.compile`` (Inductor) before it is captured. Run by hand on a
CUDA machine, never in CI:

    python3 bench/step_profile.py --model random-gpu --batch 256 1024 --layers bfloat16 [--compile]

For each batch it prints the step's milliseconds (graph replay, kernel by kernel, and compiled
then captured), the GPU time a step's kernels add up to, their number, and the kernels that
take most of it. If the kernels' sum is close to the replayed step, the step is bound by its
kernels (fusing them helps); if it is far below, by the gaps between them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_speed import load, sync  # noqa: E402

from lmnotes.models import graphsample  # noqa: E402
from lmnotes.models.sampling import Strategy  # noqa: E402


def _reset(s):
    s.pos.fill_(1)  # stay inside the cache
    s.step.zero_()


def step_ms(step, s, device, n: int = 50) -> float:
    _reset(s)
    step()
    sync(device)
    t = time.perf_counter()
    for _ in range(n):
        _reset(s)
        step()
    sync(device)
    return 1e3 * (time.perf_counter() - t) / n


def profile(step, s, n: int = 10, rows: int = 15) -> dict:
    """GPU time and kernel count per step, and the table of the kernels that take most."""
    from torch.profiler import ProfilerActivity, profile as prof

    step()
    torch.cuda.synchronize()
    with prof(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(n):
            _reset(s)
            step()
        torch.cuda.synchronize()
    events = [e for e in p.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA]
    total_us = sum(e.device_time for e in events) if events else float("nan")
    key = "self_device_time_total"
    try:
        table = p.key_averages().table(sort_by=key, row_limit=rows)
    except Exception:  # noqa: BLE001 - older profilers name it after CUDA
        table = p.key_averages().table(sort_by="self_cuda_time_total", row_limit=rows)
    return {"kernels_per_step": len(events) / n, "gpu_ms_per_step": total_us / n / 1e3, "table": table}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="random-gpu")
    ap.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--layers", default="bfloat16", choices=["float32", "bfloat16"])
    ap.add_argument(
        "--compile",
        action="store_true",
        help="also the step fused by torch.compile (on an H100, 2026-11-27, 5x slower: bench/README.md)",
    )
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    dtype = getattr(torch, args.layers)
    lm = load(args.model, "cuda")
    print(
        f"{torch.cuda.get_device_name(0)}; torch {torch.__version__}; {lm.name}, layers {args.layers}",
        flush=True,
    )
    rows = []
    plain_step = graphsample.GraphSampler._step
    compiled_step = torch.compile(plain_step, dynamic=False)
    with torch.inference_mode(), graphsample._nondeterministic_writes(lm.device):
        for B in args.batch:
            row = {"batch": B}
            for name, fn in (("plain", plain_step), ("compiled", compiled_step)):
                if name == "compiled" and not args.compile:
                    continue
                graphsample.GraphSampler._step = fn
                fast = None
                try:
                    t = time.perf_counter()
                    fast = graphsample.GraphSampler(
                        lm, Strategy("ancestral"), [lm.bos_id], args.max_tokens, dtype
                    )
                    s, u, out, graphs = fast._fresh(B)
                    length = fast._length[-1]  # the last step's: attention over the whole cache
                    graph = graphs[length]
                    sync(lm.device)
                    row[f"{name}_capture_s"] = time.perf_counter() - t
                    row[f"{name}_graph_ms"] = step_ms(graph.replay, s, lm.device)
                    row[f"{name}_eager_ms"] = step_ms(lambda: fast._step(s, u, out, length), s, lm.device)  # noqa: B023, F821
                    p = profile(lambda: fast._step(s, u, out, length), s)  # noqa: B023, F821
                    row[f"{name}_kernels"], row[f"{name}_gpu_ms"] = (
                        p["kernels_per_step"],
                        p["gpu_ms_per_step"],
                    )
                    g = profile(graph.replay, s)
                    row[f"{name}_graph_profiled_gpu_ms"] = g["gpu_ms_per_step"]
                    print(
                        f"--- batch {B}, {name}: graph {row[f'{name}_graph_ms']:.3f} ms a step, kernel by kernel "
                        f"{row[f'{name}_eager_ms']:.3f} ms; {p['kernels_per_step']:.0f} kernels whose GPU time adds "
                        f"up to {p['gpu_ms_per_step']:.3f} ms (in the replayed graph: "
                        f"{g['gpu_ms_per_step']:.3f} ms over {g['kernels_per_step']:.0f} kernels seen); "
                        f"built and captured in {row[f'{name}_capture_s']:.1f} s",
                        flush=True,
                    )
                    print(p["table"], flush=True)
                except Exception as exc:  # noqa: BLE001 - a benchmark reports what did not run
                    row[f"{name}_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                    print(f"--- batch {B}, {name}: failed: {row[f'{name}_error']}", flush=True)
                finally:
                    graphsample.GraphSampler._step = plain_step
                del fast
                torch.cuda.empty_cache()
            rows.append(row)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "device": torch.cuda.get_device_name(0),
                    "torch": torch.__version__,
                    "model": lm.name,
                    "layers": args.layers,
                    "rows": rows,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
