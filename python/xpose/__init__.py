# SPDX-License-Identifier: Apache-2.0
"""xpose: tensor permutations and matrix transposes at the speed of memory, on CUDA GPUs and CPUs.

    import numpy as np, xpose
    y = xpose.permute(x, (0, 2, 3, 1))     # np.transpose(x, (0, 2, 3, 1)), materialised row-major
    y = xpose.transpose(x)                 # np.transpose(x): the axes reversed
    y = xpose.matrix_transpose(x)          # the last two axes swapped
    xpose.permute(x, (1, 0), out=y)        # into an existing array; returns it
    y = xpose.transpose_(x)                # in place: x's memory, now the last two axes swapped

Inputs are NumPy, CuPy, PyTorch or JAX arrays (any array with ``__dlpack__``), on the CPU or a
CUDA GPU, contiguous or strided. The result is an array of the input's library on the input's
device. GPU work runs on that library's current stream, asynchronously. Bad arguments raise
ValueError or TypeError and leave ``out`` untouched. docs/python.md has the details.
"""

from . import _xpose
from ._arrays import apply as _apply

__all__ = [
    "Plan",
    "clear_plan_cache",
    "cuda_compiled",
    "cuda_device_count",
    "dtype_names",
    "kernel_names",
    "kernel_permutes",
    "matrix_transpose",
    "permute",
    "plan_cache_info",
    "set_plan_cache_capacity",
    "transpose",
    "transpose_",
]

_prepare = _xpose.prepare
_prepare_matrix_transpose = _xpose.prepare_matrix_transpose


def permute(x, axes, out=None):
    """``np.transpose(x, axes)`` materialised row-major (C-contiguous): output axis i is input
    axis ``axes[i]`` (negative axes count from the end). Writes into ``out`` when given (same
    library device, dtype and result shape; any non-overlapping strides) and returns it."""
    return _apply(x, _prepare, (axes,), out)


def transpose(x, out=None):
    """``np.transpose(x)``: the axes reversed, materialised row-major."""
    return _apply(x, _prepare, (None,), out)


def matrix_transpose(x, out=None):
    """The last two axes swapped (the Array API's ``matrix_transpose``); x has rank 2 or more."""
    return _apply(x, _prepare_matrix_transpose, (), out)


def transpose_(x):
    """The last two axes of a C-contiguous array transposed in place, for matrices too large to
    copy: afterwards x's memory holds each ``rows x cols`` matrix as its ``cols x rows``
    transpose, and the result is x's memory viewed with that shape (``x.reshape(..., cols, rows)``,
    no copy). x itself keeps its old shape, so use the result. GPU work runs on the library's
    current stream. JAX arrays are immutable and are refused (use ``matrix_transpose``)."""
    root = type(x).__module__.partition(".")[0]
    if root in ("jax", "jaxlib"):
        raise TypeError("x is a JAX array, which is immutable: transpose_ cannot change it in place; "
                        "use xpose.matrix_transpose(x)")
    if root == "torch":
        if x.requires_grad:
            raise ValueError("x requires grad: transpose_ cannot change a tensor that autograd tracks")
        if x.dtype.is_complex and (x.is_conj() or x.is_neg()):
            raise ValueError("x is a conjugate or negative view; transpose_ writes plain tensors only")
    shape = tuple(x.shape)
    if len(shape) < 2:
        raise ValueError(f"transpose_ needs an array of rank 2 or more; x has rank {len(shape)}")
    # The result view first: nothing is written if it cannot be made.
    new_shape = shape[:-2] + (shape[-1], shape[-2])
    reshape = getattr(x, "reshape", None)
    if reshape is not None:
        result = reshape(new_shape)
    elif hasattr(x, "__array_namespace__"):
        result = x.__array_namespace__().reshape(x, new_shape)
    else:
        raise TypeError(f"x ({type(x).__name__}) has no reshape: xpose cannot return its transposed view")
    _apply(x, _xpose.prepare_inplace, (), x)
    if root == "torch":
        # Autograd must see that x changed (a graph that saved x would otherwise use the new bytes).
        bump = getattr(getattr(__import__("torch").autograd, "graph", None), "increment_version", None)
        if bump is not None:
            bump(x)
    return result


# Names of element types as libraries spell them -> xpose's names. Only the size matters to the
# kernels; the name is checked against the arrays a plan runs on.
_DTYPE_NAMES = {
    "bool": "u8", "bool_": "u8", "uint8": "u8", "int8": "i8", "uint16": "u16", "int16": "i16",
    "float16": "f16", "bfloat16": "bf16", "uint32": "u32", "int32": "i32", "float32": "f32",
    "uint64": "u64", "int64": "i64", "float64": "f64", "complex64": "c64", "complex128": "c128",
}


def _dtype_name(dtype):
    """An xpose type name from a name or a dtype object: np.dtype (.name), a scalar type such as
    np.float32 or jnp.float32 (__name__), torch.float32 (str: "torch.float32")."""
    name = dtype
    if not isinstance(name, str):
        name = getattr(dtype, "name", None)
    if not isinstance(name, str):
        name = getattr(dtype, "__name__", None)
    if not isinstance(name, str):
        name = str(dtype)
    name = name.rpartition(".")[2]
    return _DTYPE_NAMES.get(name, name)


class Plan:
    """One permutation of one array layout, planned once and run many times.

    ``Plan(shape, axes, dtype, device="cpu", strides=None, kernel="auto", threads=0)``: `dtype`
    is an xpose name ("f32"), a NumPy/PyTorch/CuPy/JAX dtype or its name; `device` is "cpu",
    "cuda" or "cuda:N" (make a CUDA plan while that device is current); `strides` (in elements)
    describes a strided input view, None a row-major one; `kernel` names one of
    ``kernel_names(device)``. Calling the plan on an array of that layout returns the result
    like ``permute`` (or writes a row-major ``out``).
    """

    def __init__(self, shape, axes, dtype, device="cpu", strides=None, kernel="auto", threads=0):
        kind, _, index = str(device).partition(":")
        if index and not index.isdigit():
            raise ValueError(f"device '{device}' is not 'cpu', 'cuda' or 'cuda:N'")
        strides = None if strides is None else [int(s) for s in strides]
        self._plan = _xpose.Plan([int(n) for n in shape], axes, _dtype_name(dtype), kind, int(index or 0),
                                 strides, kernel, int(threads))
        self._prepare = self._plan.prepare

    def __call__(self, x, out=None):
        return _apply(x, self._prepare, (), out)

    execute = __call__

    kernel_name = property(lambda self: self._plan.kernel_name, doc="The kernel the plan runs.")

    def describe(self):
        """The kernel and what it launches, chosen when the plan was made (C++ ``Plan::describe``):
        on the GPU the tile shape, threads and walk of the 2D kernel, the N-D kernels' tile or box."""
        return self._plan.describe()
    shape = property(lambda self: self._plan.shape, doc="The input shape.")
    out_shape = property(lambda self: self._plan.out_shape, doc="The result's shape.")
    axes = property(lambda self: self._plan.axes, doc="The permutation, non-negative.")
    dtype = property(lambda self: self._plan.dtype, doc="The xpose element type name.")
    device = property(lambda self: self._plan.device, doc="'cpu' or 'cuda:N'.")

    def __repr__(self):
        return (f"xpose.Plan(shape={self.shape}, axes={self.axes}, dtype='{self.dtype}', "
                f"device='{self.device}', kernel='{self.kernel_name}')")


def kernel_names(device="cpu"):
    """The permute kernels of `device` ("cpu" or "cuda") in this build, "auto" first."""
    return _xpose.kernel_names(str(device).partition(":")[0])


def kernel_permutes(name, device="cpu"):
    """Whether kernel `name` of `device` permutes (False for the copy baselines of the benches)."""
    return _xpose.kernel_permutes(name, str(device).partition(":")[0])


dtype_names = _xpose.dtype_names
cuda_compiled = _xpose.cuda_compiled
cuda_device_count = _xpose.cuda_device_count
plan_cache_info = _xpose.plan_cache_info
set_plan_cache_capacity = _xpose.set_plan_cache_capacity
clear_plan_cache = _xpose.clear_plan_cache
