# SPDX-License-Identifier: Apache-2.0
"""How xpose meets each array library.

For every call an adapter exports the input through DLPack on the stream the work will run on,
lets the compiled core validate the call, allocates the result with the input's own library on
the input's device (or takes ``out``), and runs the plan on the stream that library calls
current. Adapters are chosen once per array type.

Stream rule (DLPack's ``stream`` argument): on a GPU, xpose runs on the caller library's current
stream of the array's device -- PyTorch's ``torch.cuda.current_stream()``, CuPy's
``cupy.cuda.get_current_stream()``; for JAX the stream JAX names for external work on that device
-- and never synchronises the device or the host.
"""

import sys

from . import _xpose

_KDL_CPU = 1
_KDL_CUDA = 2
_KDL_CUDA_HOST = 3


def _type_name(obj):
    kind = type(obj)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _export(array, stream, what):
    """The DLPack capsule of `array`, ready for work on `stream` (None: no stream, the CPU)."""
    export = getattr(array, "__dlpack__", None)
    if export is None:
        raise TypeError(f"{what} ({_type_name(array)}) is not an array: xpose takes arrays that support DLPack")
    try:
        return export() if stream is None else export(stream=stream)
    except (BufferError, RuntimeError, TypeError) as error:
        # Read-only NumPy arrays cannot be exported unversioned; the buffer protocol reads them.
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(array, numpy.ndarray):
            return array
        kind = TypeError if what == "x" else ValueError
        raise kind(f"{what} ({_type_name(array)}) cannot be exported through DLPack: {error}") from None


class _NumPy:
    def __init__(self):
        import numpy

        self.numpy = numpy

    def apply(self, x, prepare, args, out):
        pending = prepare(_export(x, None, "x"), *args)
        if out is None:
            out = self.numpy.empty(pending.shape, dtype=x.dtype)
        pending.run(_export(out, None, "out"), 0)
        return out


class _Torch:
    """PyTorch tensors are exported with torch.utils.dlpack.to_dlpack, which is
    ``__dlpack__(stream=None)`` without its Python-level checks: the work runs on PyTorch's current
    stream, the stream PyTorch orders its own work on, so no stream handshake is needed. The checks
    that matter are made here: conjugate and negative views are resolved (DLPack cannot say them),
    and a tensor that requires grad is detached (the result does not join the graph). Bool tensors
    go as uint8 views, which PyTorch exports on every version (bool only since DLPack 0.8)."""

    def __init__(self):
        import torch
        import torch.utils.dlpack

        self.torch = torch
        self.to_dlpack = torch.utils.dlpack.to_dlpack
        self.raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device

    def export(self, tensor, what):
        if tensor.requires_grad:
            if what == "out":
                raise ValueError("out requires grad: xpose cannot write into a tensor that autograd tracks")
            tensor = tensor.detach()
        if tensor.dtype.is_complex and (tensor.is_conj() or tensor.is_neg()):
            if what == "out":
                raise ValueError("out is a conjugate or negative view; pass a plain tensor")
            tensor = tensor.resolve_conj().resolve_neg()
        elif tensor.dtype == self.torch.bool:
            tensor = tensor.view(self.torch.uint8)
        try:
            return self.to_dlpack(tensor)
        except (BufferError, RuntimeError, TypeError) as error:
            kind = TypeError if what == "x" else ValueError
            raise kind(f"{what} ({_type_name(tensor)}) cannot be exported through DLPack: {error}") from None

    def current_stream(self, index):
        if self.raw_stream is not None:
            return self.raw_stream(index)
        return self.torch.cuda.current_stream(index).cuda_stream

    def apply(self, x, prepare, args, out):
        # Tensor attributes that need no Python object (is_cuda, get_device) keep the call short.
        if x.is_cuda:
            index = x.get_device()
            if self.current_device() != index:
                with self.torch.cuda.device(index):
                    return self._apply(x, prepare, args, out, self.current_stream(index))
            return self._apply(x, prepare, args, out, self.current_stream(index))
        if x.device.type != "cpu":
            raise TypeError(f"x lives on {x.device}; xpose works on CPU and CUDA tensors")
        return self._apply(x, prepare, args, out, 0)

    def _apply(self, x, prepare, args, out, stream):
        pending = prepare(self.export(x, "x"), *args)
        if out is None:
            out = x.new_empty(pending.shape)  # x's dtype and device, without autograd
            pending.run_fresh(out.data_ptr(), stream)
        else:
            pending.run(self._export_out(out), stream)
        return out

    def _export_out(self, out):
        # `out` may be any DLPack array (a NumPy array for a CPU tensor, say).
        return self.export(out, "out") if isinstance(out, self.torch.Tensor) else _export(out, None, "out")


class _CuPy:
    def __init__(self):
        import cupy

        self.cupy = cupy

    def apply(self, x, prepare, args, out):
        device = x.device
        if self.cupy.cuda.runtime.getDevice() != device.id:
            with device:
                return self._apply(x, prepare, args, out)
        return self._apply(x, prepare, args, out)

    def _apply(self, x, prepare, args, out):
        stream = self.cupy.cuda.get_current_stream().ptr
        exchange = stream if stream else 1  # DLPack spells the legacy default stream 1
        _refuse_negative_strides(x, "x")
        if out is not None and isinstance(out, self.cupy.ndarray):
            _refuse_negative_strides(out, "out")
        pending = prepare(_export(x, exchange, "x"), *args)
        if out is None:
            out = self.cupy.empty(pending.shape, dtype=x.dtype)
            pending.run_fresh(out.data.ptr, stream)
        else:
            pending.run(_export(out, exchange, "out"), stream)
        return out


def _refuse_negative_strides(array, what):
    """CuPy exports a negative stride as a huge positive one (an unsigned division), so reversed
    views are refused here, with the core's message, before the export."""
    if 0 in array.shape:
        return
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides)):
        if size != 1 and stride < 0:
            raise ValueError(
                f"{what} has a negative stride on axis {axis} ({stride // array.itemsize} elements): xpose reads "
                "and writes views of non-negative strides; make a contiguous copy of a reversed view first")


class _WrittenOnImport:
    """A DLPack producer that writes the result when JAX imports it, on the stream JAX names.

    JAX arrays are immutable, so the result is a new JAX array: its memory is allocated by JAX
    (jnp.empty), written by xpose on the stream that JAX's from_dlpack passes (JAX waits on that
    stream before using the result), and imported without a copy. The capsule keeps the input's
    export alive until JAX releases the result, after the work is done.
    """

    def __init__(self, x, pending, buffer, exported, stream):
        self.x, self.pending, self.buffer = x, pending, buffer
        self.exported, self.stream = exported, stream

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()

    def __dlpack__(self, stream=None, **unused):
        if self.stream is None:  # the CPU
            out = _export(self.buffer, None, "out")
            self.pending.run(out, 0)
            return _xpose.keep_alive_capsule(out, (self.pending, self.buffer, self.exported))
        if stream is None or stream == -1:
            stream = self.stream
        if stream != self.stream:
            self.exported = (self.exported, _export(self.x, stream, "x"))
        out = _export(self.buffer, stream, "out")
        self.pending.run(out, stream)
        return _xpose.keep_alive_capsule(out, (self.pending, self.buffer, self.exported))


class _Jax:
    def __init__(self):
        import jax
        import jax.dlpack
        import jax.numpy

        self.jax, self.jnp = jax, jax.numpy

    def apply(self, x, prepare, args, out):
        if out is not None:
            raise TypeError("out= cannot be a JAX array: JAX arrays are immutable; use the returned array")
        devices = x.devices()
        if len(devices) != 1:
            raise TypeError(f"x is spread over {len(devices)} devices; xpose permutes single-device arrays")
        (device,) = devices
        kind, _ = x.__dlpack_device__()
        stream = device.get_stream_for_external_ready_events() if kind == _KDL_CUDA else None
        exported = _export(x, stream, "x")
        pending = prepare(exported, *args)
        buffer = self.jnp.empty(pending.shape, dtype=x.dtype, device=device)
        return self.jax.dlpack.from_dlpack(_WrittenOnImport(x, pending, buffer, exported, stream))


class _ArrayApi:
    """Any other DLPack array: the legacy default stream, and the result from its Array API
    namespace (``x.__array_namespace__()``), or ``out``."""

    def apply(self, x, prepare, args, out):
        kind, _ = x.__dlpack_device__()
        pending = prepare(_export(x, None, "x"), *args)
        if out is None:
            namespace = getattr(x, "__array_namespace__", None)
            if namespace is None:
                raise TypeError(f"x ({_type_name(x)}) has no Array API namespace to allocate the result; pass out=")
            out = namespace().empty(pending.shape, dtype=x.dtype, device=x.device)
        pending.run(_export(out, None, "out"), 0)
        return out


def _make_adapter(kind):
    root = kind.__module__.partition(".")[0]
    numpy = sys.modules.get("numpy")
    if numpy is not None and issubclass(kind, numpy.ndarray):
        return _NumPy()
    if root == "torch" and hasattr(kind, "__dlpack__"):
        return _Torch()
    if root == "cupy" and hasattr(kind, "__dlpack__"):
        return _CuPy()
    if root in ("jax", "jaxlib") and hasattr(kind, "__dlpack__"):
        return _Jax()
    if hasattr(kind, "__dlpack__") and hasattr(kind, "__dlpack_device__"):
        return _ArrayApi()
    return None


_adapters = {}


def apply(x, prepare, args, out):
    """Runs `prepare(exported x, *args)` then the returned call into `out` or a new array."""
    kind = type(x)
    adapter = _adapters.get(kind)
    if adapter is None:
        adapter = _make_adapter(kind)
        if adapter is None:
            raise TypeError(
                f"x ({_type_name(x)}) is not an array: xpose takes arrays that support DLPack "
                "(NumPy, CuPy, PyTorch, JAX, ...)"
            )
        _adapters[kind] = adapter
    return adapter.apply(x, prepare, args, out)
