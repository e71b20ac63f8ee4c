"""PyTorch's CPU matrix products and MKL-computed elementwise functions, computed the same on
every x86-64 CPU with AVX2 and FMA. Every chapter (installed by
:func:`lmnotes.core.numerics.configure_torch`).

PyTorch's CPU build computes with MKL, which picks its kernels by CPU: its reproducible
branches other than ``COMPATIBLE`` hold on Intel CPUs only, so an AMD CPU computes other
matrix products, and ``COMPATIBLE`` makes them slower (``bench/README.md``). Its vector math
(``sqrt``, ``log``, ``log2``, ``log10``, ``tan``, ``asin``, ``acos``, ``atan`` measured) takes
other code on CPUs with AVX-512 even in ``COMPATIBLE`` mode, and its square root is not
correctly rounded. :func:`install` replaces PyTorch's CPU kernels of those operators, for
the whole process, with NumPy's (the tests hash them natively and under emulated CPUs:
``tests/test_same_bits.py``):

- the matrix products (:data:`PRODUCTS`: ``linear``, ``matmul`` and ``einsum`` are built on
  them) run on NumPy's OpenBLAS with its Haswell kernels pinned (``OPENBLAS_CORETYPE``, one
  OpenBLAS thread): AVX2 and FMA only, the same IEEE operations in the same order on any such
  CPU, Intel or AMD. OpenBLAS's own threading changes the
  bits with the thread count, and it uses fewer threads on a machine with fewer cores; so a
  large product is cut here into as many blocks of rows as the book has threads
  (:data:`lmnotes.core.numerics.THREADS`), by its shape alone, each computed by one OpenBLAS
  call on its own thread. A dot product is NumPy's
  pairwise sum of the elementwise products;
- the elementwise functions MKL's vector math computes for PyTorch (:data:`FUNCTIONS`) are
  NumPy's (SciPy's for the error functions): IEEE's correctly rounded square root, NumPy's
  AVX2 loops, or the C library's functions, none of which depends on the CPU's vendor;
  ``pow`` with exponent 0.5 (which PyTorch computes with MKL's square root) takes that square
  root too.

One fused kernel still calls MKL's products directly: PyTorch's CPU attention
(``scaled_dot_product_attention``), which runs on MKL's ``COMPATIBLE`` branch, the same on
every CPU (:mod:`lmnotes.core.numerics`). The replacements compute the same quantities from
the same inputs, with PyTorch's checks of shapes and dtypes, its result types, layouts and
``out=`` rules; results differ from MKL's in the last bits only. Autograd, the key–value
cache and every model above see ordinary tensors. The kernels are registered for the CPU dispatch key only: CUDA keeps its own.

Written by hand because no library routes PyTorch's CPU BLAS and vector-math calls elsewhere
at run time (the CPU wheel links MKL statically); ``torch.library`` is PyTorch's own mechanism
for replacing an operator's kernel.
"""

from __future__ import annotations

import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.special
import torch

#: dtypes NumPy computes natively; others (bfloat16, float16) are computed in float32 and
#: rounded back, so that no CPU-dependent reduced-precision instruction runs.
_NATIVE = {
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
}

#: Multiply-adds below which one thread computes a product (splitting costs about 20 µs).
SPLIT_WORK = 1 << 23
#: Rows of a block of a split product: a multiple of OpenBLAS's Haswell micro-kernel.
BLOCK_ROWS = 16

_LIBRARY: torch.library.Library | None = None
_THREADS = 1  # the blocks a large product is cut into: numerics.THREADS, set by install()
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _reset_pool() -> None:  # a forked child inherits no threads
    global _POOL
    _POOL = None


os.register_at_fork(after_in_child=_reset_pool)


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(1, _THREADS - 1), thread_name_prefix="lmnotes-blas")
        return _POOL


def _np(t: torch.Tensor) -> np.ndarray:
    t = t.detach()
    return (t if t.dtype in _NATIVE else t.float()).resolve_conj().resolve_neg().numpy()


def _np_dtype(t: torch.Tensor) -> np.dtype:
    """The NumPy dtype :func:`_np` gives ``t``."""
    return torch.empty(0, dtype=t.dtype if t.dtype in _NATIVE else torch.float32).numpy().dtype


def _tensor(a, dtype: torch.dtype) -> torch.Tensor:
    a = np.asarray(a)  # a 0-d result stays 0-d
    if a.size == 0:  # PyTorch's strides for an empty result
        return torch.empty(a.shape, dtype=dtype)
    out = torch.from_numpy(a)
    return out if out.dtype == dtype else out.to(dtype)


def _same_dtype(*tensors: torch.Tensor) -> None:
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise RuntimeError(
            f"expected the operands to have the same dtype, but got: "
            f"{' != '.join(str(t.dtype) for t in tensors)}"
        )
    if torch.bool in dtypes:
        raise RuntimeError("matrix products are not implemented for 'Bool'")


def _matrices(a: torch.Tensor, b: torch.Tensor) -> tuple[int, int]:
    if a.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if b.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied "
            f"({a.shape[0]}x{a.shape[1]} and {b.shape[0]}x{b.shape[1]})"
        )
    return a.shape[0], b.shape[1]


def _batches(a: torch.Tensor, b: torch.Tensor) -> tuple[int, int, int]:
    if a.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor "
            f"to be: [{a.shape[0]}, {a.shape[2]}] but got: "
            f"[{b.shape[0]}, {b.shape[1]}]."
        )
    return a.shape[0], a.shape[1], b.shape[2]


def _broadcasts(self: torch.Tensor, shape: tuple[int, ...]) -> None:
    own = tuple(self.shape)  # written out: torch.broadcast_shapes costs 11 µs a call
    if len(own) > len(shape) or any(d not in (1, t) for d, t in zip(reversed(own), reversed(shape))):
        raise RuntimeError(
            f"the tensor of shape {list(own)} cannot be broadcast to the result's {list(shape)}"
        )


def _row_blocks(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` blocks of the rows 0 … n − 1, each but the last a multiple of BLOCK_ROWS."""
    size = -(-n // parts)
    size = -(-size // BLOCK_ROWS) * BLOCK_ROWS
    return [(a, min(a + size, n)) for a in range(0, n, size)]


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (NumPy's broadcasting rules) on OpenBLAS, cut into blocks of rows of ``a`` by
    the shapes alone when large, so that the bits never depend on the machine's cores. Call it
    under ``np.errstate(all="ignore")``: PyTorch is silent on overflow and NaN."""
    if a.ndim < 2 or _THREADS < 2:
        return np.matmul(a, b)
    n, p = a.shape[-2], (b.shape[-1] if b.ndim > 1 else 1)
    batch = (
        1
        if a.ndim == 2 and b.ndim <= 2
        else int(np.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2] if b.ndim > 2 else ())))
    )
    if n * a.shape[-1] * p * batch < SPLIT_WORK or n < 2 * BLOCK_ROWS:
        return np.matmul(a, b)
    shape = a.shape[:-1] if b.ndim == 1 else np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (n, p)
    out = np.empty(shape, dtype=np.result_type(a, b))

    def block(r0: int, r1: int) -> None:
        with np.errstate(all="ignore"):  # a thread of its own starts with NumPy's defaults
            np.matmul(a[..., r0:r1, :], b, out=out[..., r0:r1] if b.ndim == 1 else out[..., r0:r1, :])

    (first, *rest) = _row_blocks(n, _THREADS)
    jobs = [_pool().submit(block, *rows) for rows in rest]
    block(*first)
    for job in jobs:
        job.result()
    return out


def _added(self: torch.Tensor, mat1: torch.Tensor, mat2: torch.Tensor, shape, beta, alpha) -> torch.Tensor:
    """``beta · self + alpha · mat1 @ mat2``, BLAS's rules: ``self`` is not read when beta is 0
    and the product is not computed when alpha is 0 (a NaN in either does not propagate)."""
    _same_dtype(self, mat1, mat2)
    _broadcasts(self, shape)
    with np.errstate(all="ignore"):
        prod = np.zeros(shape, dtype=_np_dtype(mat1)) if alpha == 0 else matmul(_np(mat1), _np(mat2))
        return _tensor(_scaled(prod, self, beta, alpha), mat1.dtype)


def _scaled(prod: np.ndarray, self: torch.Tensor, beta, alpha) -> np.ndarray:
    """``beta · self + alpha · prod``, in ``prod``'s memory (``self`` not read when beta is 0)."""
    if alpha not in (0, 1):
        np.multiply(prod, alpha, out=prod, casting="unsafe")
    if beta != 0:
        s = _np(self)
        np.add(prod, s if beta == 1 else np.multiply(s, beta, casting="unsafe"), out=prod, casting="unsafe")
    return prod


def mm(self, mat2):
    """``self @ mat2`` [n, m] @ [m, p]."""
    _matrices(self, mat2)
    _same_dtype(self, mat2)
    with np.errstate(all="ignore"):
        return _tensor(matmul(_np(self), _np(mat2)), self.dtype)


def bmm(self, mat2):
    """``self @ mat2`` [b, n, m] @ [b, m, p]."""
    _batches(self, mat2)
    _same_dtype(self, mat2)
    with np.errstate(all="ignore"):
        return _tensor(matmul(_np(self), _np(mat2)), self.dtype)


def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta · self + alpha · mat1 @ mat2`` (``self`` broadcast: a bias [p] or [n, p])."""
    return _added(self, mat1, mat2, _matrices(mat1, mat2), beta, alpha)


def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    return _added(self, batch1, batch2, _batches(batch1, batch2), beta, alpha)


def addmv(self, mat, vec, *, beta=1, alpha=1):
    """``beta · self + alpha · mat @ vec`` (``mv`` is built on it)."""
    if mat.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, {vec.dim()}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({mat.shape[0]}), mat "
            f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})"
        )
    return _added(self, mat, vec, (mat.shape[0],), beta, alpha)


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta · self + alpha · Σ_b batch1[b] @ batch2[b]`` (summed over the batch in order)."""
    _, n, p = _batches(batch1, batch2)
    _same_dtype(self, batch1, batch2)
    _broadcasts(self, (n, p))
    with np.errstate(all="ignore"):
        total = np.zeros((n, p), dtype=_np_dtype(batch1))
        if alpha != 0:
            for prod in matmul(_np(batch1), _np(batch2)):
                total += prod
        return _tensor(_scaled(total, self, beta, alpha), batch1.dtype)


def _vectors(self: torch.Tensor, other: torch.Tensor) -> None:
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    if self.numel() != other.numel():
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{self.numel()}] and src "
            f"[{other.numel()}] to have the same number of elements, but got "
            f"{self.numel()} and {other.numel()} elements respectively"
        )
    _same_dtype(self, other)


def dot(self, tensor):
    """Σ self · tensor, NumPy's pairwise sum (one thread, so the same on any core count)."""
    _vectors(self, tensor)
    with np.errstate(all="ignore"):
        return _tensor(np.add.reduce(_np(self) * _np(tensor)), self.dtype)


def vdot(self, other):
    _vectors(self, other)
    with np.errstate(all="ignore"):
        return _tensor(np.add.reduce(np.conj(_np(self)) * _np(other)), self.dtype)


def addmm_activation(self, mat1, mat2, *, beta=1, alpha=1, use_gelu=False):
    """``addmm`` then ReLU or GELU (the exact one, as PyTorch's CPU kernel)."""
    out = addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    return torch.nn.functional.gelu(out) if use_gelu else torch.relu(out)


def _castable(value: torch.Tensor, out: torch.Tensor) -> None:
    if not torch.can_cast(value.dtype, out.dtype):
        raise RuntimeError(f"result type {value.dtype} can't be cast to the desired output type {out.dtype}")


def _forms(name: str, fn, inplace: bool = True, exact_out: bool = False) -> dict:
    """The functional kernel ``name``, its in-place ``name_`` and its ``name.out`` form, with
    PyTorch's rules: a result is cast into ``self`` or ``out`` only where PyTorch would (a
    product's ``out`` must have its dtype), and an ``out`` of another shape is resized, with
    PyTorch's warning when it held elements."""

    def in_place(self, *args, **kwargs):
        value = fn(self, *args, **kwargs)
        _castable(value, self)
        return self.copy_(value)

    def out_form(*args, out, **kwargs):
        value = fn(*args, **kwargs)
        if exact_out:
            if out.dtype != value.dtype:
                raise RuntimeError(
                    f"Expected out tensor to have dtype {value.dtype}, but got {out.dtype} instead"
                )
        _castable(value, out)
        if out.shape != value.shape:
            if out.numel():
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape "
                    f"{list(out.shape)}, which does not match the required output shape "
                    f"{list(value.shape)}.",
                    stacklevel=2,
                )
            out.resize_(value.shape)
        return out.copy_(value)

    return {name: fn, f"{name}.out": out_form, **({f"{name}_": in_place} if inplace else {})}


#: The matrix products, by ATen operator.
PRODUCTS = {
    **_forms("mm", mm, inplace=False, exact_out=True),
    **_forms("bmm", bmm, inplace=False, exact_out=True),
    **_forms("addmm", addmm, exact_out=True),
    **_forms("baddbmm", baddbmm, exact_out=True),
    **_forms("addmv", addmv, exact_out=True),
    **_forms("addbmm", addbmm, exact_out=True),
    "dot": dot,
    "vdot": vdot,
    "_addmm_activation": addmm_activation,
}

#: The elementwise functions PyTorch's CPU build leaves to MKL's vector math
#: (``aten/src/ATen/cpu/vml.h``), with the NumPy or SciPy function that replaces each
#: (``trunc`` is exact everywhere and stays).
FUNCTIONS = {
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "erf": scipy.special.erf,
    "erfc": scipy.special.erfc,
    "erfinv": scipy.special.erfinv,
}
#: Those PyTorch computes for real numbers only.
REAL_ONLY = ("erf", "erfc", "erfinv")


#: Elements above which an elementwise function is cut into :data:`_THREADS` chunks, each on
#: its own thread (each element's value does not depend on the cut).
SPLIT_ELEMENTS = 1 << 17


def _elementwise(fn, x: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = fn(x)``, silent on NaN and ±inf as PyTorch is; a large contiguous array in
    chunks on the threads."""
    if x.size < SPLIT_ELEMENTS or _THREADS < 2 or not (x.flags.c_contiguous and out.flags.c_contiguous):
        with np.errstate(all="ignore"):
            fn(x, out=out)
        return
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)

    def chunk(a: int, b: int) -> None:
        with np.errstate(all="ignore"):
            fn(flat_x[a:b], out=flat_out[a:b])

    (first, *rest) = _row_blocks(x.size, _THREADS)
    jobs = [_pool().submit(chunk, *bounds) for bounds in rest]
    chunk(*first)
    for job in jobs:
        job.result()


def _unary(name: str, fn) -> dict:
    """The kernels of ``name``, ``name_`` and ``name.out`` computed by the NumPy or SciPy
    function ``fn``, in PyTorch's result type, shape and layout (0-d included). Arrays come
    from NumPy, not ``torch.empty``: PyTorch's deterministic mode fills every new tensor with
    NaN first, a pass over memory that the result overwrites anyway."""

    def operand(self: torch.Tensor) -> torch.Tensor:
        if self.is_complex() and name in REAL_ONLY:
            raise RuntimeError(f'"{name}" not implemented for {self.dtype}')
        if not (self.is_floating_point() or self.is_complex()):
            return self.to(torch.get_default_dtype())  # PyTorch's promotion of an integer input
        return self

    def kernel(self):
        x = operand(self)
        a = _np(x)
        out = np.empty_like(a)  # the input's layout
        _elementwise(fn, a, out)
        return _tensor(out, x.dtype)

    def in_place(self):
        x = operand(self)
        if x is not self:
            raise RuntimeError(f"result type {x.dtype} can't be cast to the desired output type {self.dtype}")
        if (
            self.dtype not in _NATIVE
            or self.is_conj()
            or self.is_neg()
            or torch._debug_has_internal_overlap(self)
        ):  # PyTorch's own refusal of the last
            return self.copy_(kernel(self))
        a = self.detach().numpy()  # the tensor's own memory
        _elementwise(fn, a, a)
        return self

    kernel.__name__ = in_place.__name__ = name
    return {
        name: kernel,
        f"{name}_": in_place,
        f"{name}.out": _forms(name, kernel, inplace=False)[f"{name}.out"],
    }


def pow_scalar(self, exponent):
    """``self ** exponent`` as PyTorch computes it on the CPU, but for 0.5, which PyTorch's CPU
    build sends to MKL's square root: the correctly rounded one here. Every other exponent
    takes PyTorch's own rules (1 copies, 0 gives ones, 2 and 3 multiply, −0.5 and −1 and −2
    divide) or, otherwise, its vectorised ``pow`` (the same as for a tensor exponent), in
    PyTorch's result type."""
    e = exponent.item() if isinstance(exponent, torch.Tensor) else exponent
    dtype = torch.result_type(self, e)
    x = self.to(dtype)
    if e == 0:
        return torch.ones_like(x)
    if e == 1:
        return x.clone()
    if not (dtype.is_floating_point or dtype.is_complex):
        if e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return torch.pow(x, torch.tensor(e, dtype=dtype))
    if e == 0.5:
        return _UNARY["sqrt"]["sqrt"](x)
    special = {
        2: lambda: x * x,
        3: lambda: x * x * x,
        -0.5: lambda: torch.rsqrt(x),
        -1: lambda: torch.reciprocal(x),
        -2: lambda: torch.reciprocal(x * x),
    }
    if not dtype.is_complex and e in special:
        return special[e]()
    return torch.pow(x, torch.tensor(e, dtype=dtype))


_UNARY = {name: _unary(name, fn) for name, fn in FUNCTIONS.items()}

KERNELS = {
    **PRODUCTS,
    **{k: v for forms in _UNARY.values() for k, v in forms.items()},
    "pow.Tensor_Scalar": pow_scalar,
    "pow.Tensor_Scalar_out": _forms("pow", pow_scalar)["pow.out"],
    "pow_.Scalar": _forms("pow", pow_scalar)["pow_"],
}


def install(threads: int) -> None:
    """Register :data:`KERNELS` as PyTorch's CPU kernels of those operators (once a process),
    large products cut into ``threads`` blocks."""
    global _LIBRARY, _THREADS
    if _LIBRARY is not None:
        return
    _THREADS = threads
    lib = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        # PyTorch warns that each registration overrides its own CPU kernel: that is the point
        warnings.simplefilter("ignore")
        for name, fn in KERNELS.items():
            lib.impl(name, fn, "CPU")
    _LIBRARY = lib


def installed() -> bool:
    return _LIBRARY is not None
