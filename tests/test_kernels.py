"""lmnotes.core.kernels means what PyTorch's own CPU kernels mean: the same shapes, dtypes, layouts,
refusals, out= and in-place rules, and values up to rounding, checked case by case against a process
with the kernels not installed (LMNOTES_NATIVE_CPU=1); gradients by gradcheck; no NumPy warning leaks."""

import json
import os
import subprocess
import sys
import warnings

import pytest
import torch

import lmnotes.models  # noqa: F401  (installs the kernels)
from lmnotes.core import kernels
from lmnotes.core.io import ROOT

CASES = r"""
import json, warnings
import lmnotes, lmnotes.models, torch
torch.manual_seed(0)
A, B = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, 5, dtype=torch.float64)
nan, inf = float("nan"), float("inf")
big = torch.randn(96, 300)
def out_into(fn, out):
    fn(out)
    return out
cases = {
    "exp 0-d": lambda: torch.exp(torch.tensor(1.0)),
    "sqrt_ 0-d": lambda: torch.tensor(4.0).sqrt_(),
    "pow_ 0-d": lambda: torch.tensor(4.0).pow_(0.5),
    "dot": lambda: torch.dot(torch.ones(3), torch.arange(3.0)),
    "1-d @ 1-d": lambda: torch.ones(3) @ torch.arange(3.0),
    "exp out 0-d": lambda: out_into(lambda o: torch.exp(torch.tensor(1.0), out=o), torch.empty(())),
    "exp transposed": lambda: torch.exp(A.t()),
    "exp empty": lambda: torch.exp(torch.empty(0, 3)),
    "log int": lambda: torch.log(torch.tensor([1, 2, 3])),
    "sqrt negative": lambda: torch.sqrt(torch.tensor([-1.0, 4.0])),
    "log zero": lambda: torch.log(torch.tensor([0.0, 1.0])),
    "tanh half": lambda: torch.tanh(torch.tensor([0.5, 1.0], dtype=torch.float16)),
    "erf complex": lambda: torch.erf(torch.tensor([1 + 1j])),
    "int sqrt_": lambda: torch.tensor([4, 9]).sqrt_(),
    "exp_ strided": lambda: torch.arange(12.0).view(3, 4).t().exp_(),
    "refused: exp_ expanded": lambda: torch.ones(3).expand(2, 3).exp_(),
    "exp out=int": lambda: torch.exp(torch.tensor([1.0]), out=torch.empty(1, dtype=torch.long)),
    "int ** 0.0": lambda: torch.tensor([2, 3]) ** 0.0,
    "int ** 1.0": lambda: torch.tensor([2, 3]) ** 1.0,
    "int ** 2": lambda: torch.tensor([2, 3]) ** 2,
    "int ** -1": lambda: torch.tensor([2, 3]) ** -1,
    "bool ** 2": lambda: torch.tensor([True, False]) ** 2,
    "float ** powers": lambda: torch.stack([torch.tensor([0.0, 2.0, 5.0]) ** e for e in (2, 3, 0.5, -0.5, -1, -2, 2.5)]),
    "mm": lambda: A @ B,
    "mm transposed": lambda: B.t() @ A.t(),
    "mm large": lambda: big @ big.t(),
    "bmm": lambda: torch.bmm(A.expand(2, 3, 4), B.expand(2, 4, 5)),
    "matmul 4-d": lambda: A.expand(2, 2, 3, 4) @ B,
    "linear 3-d": lambda: torch.nn.functional.linear(A.expand(2, 3, 4), B.t(), torch.ones(5, dtype=torch.float64)),
    "mv": lambda: A.mv(B[:, 0]),
    "einsum": lambda: torch.einsum("ij,jk->ik", A, B),
    "addmm beta alpha": lambda: torch.addmm(torch.ones(5, dtype=torch.float64), A, B, beta=0.3, alpha=1.7),
    "addmm beta 0 nan": lambda: torch.addmm(torch.full((3, 5), nan, dtype=torch.float64), A, B, beta=0),
    "addmm alpha 0 nan": lambda: torch.addmm(torch.ones(2, 2), torch.tensor([[nan, 1.0], [1.0, 1.0]]), torch.ones(2, 2), alpha=0),
    "addmm_": lambda: torch.ones(3, 5, dtype=torch.float64).addmm_(A, B),
    "baddbmm": lambda: torch.baddbmm(torch.ones(1, 3, 5, dtype=torch.float64), A.expand(2, 3, 4), B.expand(2, 4, 5), alpha=2),
    "addbmm": lambda: torch.addbmm(torch.ones(3, 5, dtype=torch.float64), A.expand(2, 3, 4), B.expand(2, 4, 5)),
    "mm int": lambda: torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[5], [6]]),
    "mm 0-size": lambda: torch.ones(0, 3) @ torch.ones(3, 2),
    "mm out": lambda: out_into(lambda o: torch.mm(A, B, out=o), torch.empty(3, 5, dtype=torch.float64)),
    "mm inf": lambda: torch.mm(torch.tensor([[inf, 1.0]]), torch.tensor([[0.0], [1.0]])),
    "refused: dot sizes": lambda: torch.dot(torch.ones(3), torch.ones(1)),
    "refused: mm of a vector": lambda: torch.mm(torch.ones(3), torch.ones(3, 2)),
    "refused: bmm batches": lambda: torch.bmm(torch.ones(1, 2, 3), torch.ones(4, 3, 2)),
    "refused: mm dtypes": lambda: torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)),
    "refused: mm bool": lambda: torch.mm(torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.bool)),
    "refused: mm out dtype": lambda: torch.mm(A, B, out=torch.empty(3, 5)),
    "refused: mm shapes": lambda: torch.mm(torch.ones(2, 3), torch.ones(2, 3)),
}
out = {}
for name, case in cases.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            v = case()
            out[name] = {"shape": list(v.shape), "dtype": str(v.dtype), "stride": list(v.stride()),
                         "values": torch.view_as_real(v.to(torch.complex128)).flatten().tolist() if v.is_complex()
                         else v.to(torch.float64).flatten().tolist()}
        except Exception as exc:
            out[name] = {"refused": type(exc).__name__}
    out[name]["warnings"] = [str(w.message)[:80] for w in caught]
print(json.dumps(out))
"""


def results(native: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "LMNOTES_NATIVE_CPU"}
    if native:
        env["LMNOTES_NATIVE_CPU"] = "1"
    run = subprocess.run(
        [sys.executable, "-c", CASES], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_the_kernels_mean_what_pytorchs_own_mean():
    ours, theirs = results(native=False), results(native=True)
    assert set(ours) == set(theirs)
    for name, mine in ours.items():
        ref = theirs[name]
        if "refused" in ref:
            assert "refused" in mine, f"{name}: PyTorch refuses it ({ref['refused']}), the kernels do not"
            continue
        assert "refused" not in mine, f"{name}: the kernels refuse it ({mine['refused']}), PyTorch does not"
        for key in ("shape", "dtype", "stride"):
            assert mine[key] == ref[key], f"{name}: {key} {mine[key]} where PyTorch gives {ref[key]}"
        tol = 1e-10 if "float64" in ref["dtype"] else 1e-4  # rounding: float32 sums differ in the last bits
        assert torch.allclose(
            torch.tensor(mine["values"], dtype=torch.float64),
            torch.tensor(ref["values"], dtype=torch.float64),
            rtol=tol,
            atol=tol,
            equal_nan=True,
        ), name
        assert mine["warnings"] == [], f"{name} warns: {mine['warnings']}"
    assert sum("refused" in r for r in theirs.values()) >= 8  # the refusals are exercised


def test_gradients_through_the_kernels():
    assert kernels.installed()
    g = torch.Generator().manual_seed(0)
    a, b = (
        torch.randn(5, 4, dtype=torch.float64, generator=g, requires_grad=True),
        torch.randn(4, 3, dtype=torch.float64, generator=g, requires_grad=True),
    )
    c = torch.randn(3, dtype=torch.float64, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b, c: torch.addmm(c, a, b, beta=0.3, alpha=1.7), (a, b, c))
    assert torch.autograd.gradcheck(lambda a, b: torch.bmm(a.expand(2, 5, 4), b.expand(2, 4, 3)), (a, b))
    assert torch.autograd.gradcheck(
        lambda a: a.abs().add(0.1).sqrt().log().exp().tanh().pow(0.5).atan(), (a,)
    )


def test_a_large_product_is_cut_by_its_shape_and_is_right():
    g = torch.Generator().manual_seed(1)
    x, w = torch.randn(700, 300, generator=g), torch.randn(300, 500, generator=g)
    assert 700 * 300 * 500 >= kernels.SPLIT_WORK  # it is cut into blocks
    exact = (x.double() @ w.double()).float()
    assert torch.allclose(x @ w, exact, rtol=1e-4, atol=1e-4)
    assert torch.equal(x @ w, x @ w)  # and the same bits every time


def test_no_numpy_warning_leaks():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.log(torch.tensor([0.0, -1.0]))
        torch.mm(torch.tensor([[float("inf"), 1.0]]), torch.tensor([[0.0], [1.0]]))
        torch.dot(torch.tensor([float("inf"), 1.0]), torch.tensor([0.0, 1.0]))


@pytest.mark.parametrize("op", sorted(kernels.KERNELS))
def test_every_kernel_is_registered_for_an_existing_operator(op):
    name, _, overload = op.partition(".")
    packet = getattr(torch.ops.aten, name)
    assert (overload or "default") in packet.overloads()
