# SPDX-License-Identifier: Apache-2.0
"""xpose on CUDA arrays of PyTorch, CuPy and JAX: results, streams, zero copy, errors.

Each library's tests skip where it is not installed, and all of them where this build has no
CUDA backend or no GPU is visible (CI). Run them on a GPU machine (docs/python.md).
"""

import numpy as np
import pytest

import xpose

pytestmark = pytest.mark.skipif(not (xpose.cuda_compiled() and xpose.cuda_device_count() > 0),
                                reason="no CUDA backend in this build or no GPU visible")

SPIN_CYCLES = 1_000_000_000  # about 0.5 s of a GPU's clock: work still queued when the call returns
# The stream tests run every step once before the spin: the first launch of a kernel loads its
# module, which waits for the whole device (CUDA's lazy loading), so a first `x * 2` would itself
# wait out the spin. Each test checks that the stream is still busy just before the call.


def _import(name):
    module = pytest.importorskip(name)
    return module


def random_axes(rng, rank):
    return tuple(int(a) for a in rng.permutation(rank))


def random_shape(rng, rank):
    while True:
        shape = tuple(int(n) for n in rng.integers(1, 9 if rank > 3 else 70, size=rank))
        if np.prod(shape) <= 200_000:
            return shape


# --------------------------------------------------------------------------------------------
# PyTorch

@pytest.fixture
def torch():
    torch = _import("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "float16", "bfloat16", "int32", "float32", "int64",
                "float64", "complex64", "complex128"]


def torch_random(torch, shape, dtype, device="cuda"):
    dtype = getattr(torch, dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device=device).bool()
    count = int(np.prod(shape, dtype=np.int64))
    size = torch.empty((), dtype=dtype).element_size()
    raw = torch.randint(0, 256, (count * size,), dtype=torch.uint8, device=device)
    return raw.view(dtype).view(shape)


def torch_same_bytes(torch, a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype == torch.bool:
        return bool((a == b).all())
    return bool((a.contiguous().reshape(-1).view(torch.uint8) == b.contiguous().reshape(-1).view(torch.uint8)).all())


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_random_shapes(torch, dtype):
    rng = np.random.default_rng(11)
    for rank in range(1, 9):
        shape = random_shape(rng, rank)
        axes = random_axes(rng, rank)
        x = torch_random(torch, shape, dtype)
        y = xpose.permute(x, axes)
        assert isinstance(y, torch.Tensor) and y.device == x.device and y.dtype == x.dtype and y.is_contiguous()
        assert torch_same_bytes(torch, y, x.permute(axes).contiguous()), (shape, axes)


def test_torch_strided_views_and_out(torch):
    base = torch_random(torch, (16, 40, 64), "float32")
    for x in (base[:, ::2, 1:], base.transpose(0, 2), base[3:, :, ::4]):
        for axes in ((2, 0, 1), (1, 0, 2), (2, 1, 0)):
            assert torch_same_bytes(torch, xpose.permute(x, axes), x.permute(axes).contiguous())
    x = base
    out = torch.empty(64, 16, 40, device="cuda")
    pointer = out.data_ptr()
    assert xpose.permute(x, (2, 0, 1), out=out) is out and out.data_ptr() == pointer
    assert torch_same_bytes(torch, out, x.permute(2, 0, 1).contiguous())


def test_torch_result_is_one_fresh_tensor(torch):
    # Zero copy: the result is the tensor xpose wrote, not a copy of a temporary.
    x = torch_random(torch, (32, 48, 64), "float16")
    y = xpose.permute(x, (0, 2, 1))
    assert y._base is None and y.storage_offset() == 0
    assert y.untyped_storage().nbytes() == y.numel() * y.element_size()


def test_torch_runs_on_the_current_stream_without_synchronising(torch):
    x = torch_random(torch, (256, 512), "float32")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(1)
        xpose.transpose(x * 2)
        side.synchronize()
        torch.cuda._sleep(SPIN_CYCLES)
        source = x * 2  # ready only after the spin, on `side`
        assert not side.query()
        y = xpose.transpose(source)
        # The call returned while the side stream is still spinning: no device or host sync.
        assert not side.query()
    side.synchronize()
    assert torch_same_bytes(torch, y, (x * 2).t().contiguous())


def test_torch_requires_grad_input(torch):
    x = torch_random(torch, (8, 9), "float32").requires_grad_()
    assert torch_same_bytes(torch, xpose.transpose(x), x.detach().t().contiguous())


def test_torch_errors_leave_out_untouched(torch):
    x = torch_random(torch, (8, 9, 10), "float32")
    out = torch.full((10, 8, 9), 7.0, device="cuda")
    with pytest.raises(ValueError, match="out has dtype float64 but x has float32"):
        xpose.permute(x, (2, 0, 1), out=torch.empty(10, 8, 9, dtype=torch.float64, device="cuda"))
    with pytest.raises(ValueError, match="out lives on cpu but x on cuda:0"):
        xpose.permute(x, (2, 0, 1), out=torch.empty(10, 8, 9))
    with pytest.raises(ValueError, match="out has shape"):
        xpose.permute(x, (2, 1, 0), out=out)
    with pytest.raises(ValueError, match="axes repeats"):
        xpose.permute(x, (2, 2, 0), out=out)
    torch.cuda.synchronize()
    assert bool((out == 7.0).all())


@pytest.mark.skipif(xpose.cuda_device_count() < 2, reason="one GPU")
def test_torch_second_gpu(torch):
    x = torch_random(torch, (64, 65), "float32", device="cuda:1")
    with torch.cuda.device(0):
        y = xpose.transpose(x)
    assert y.device == x.device and torch_same_bytes(torch, y, x.t().contiguous())


def test_torch_plan(torch):
    x = torch_random(torch, (4, 64, 32, 32), "float16")
    plan = xpose.Plan(x.shape, (0, 2, 3, 1), torch.float16, device="cuda")
    assert plan.kernel_name
    assert plan.describe().startswith(plan.kernel_name + ": ")  # a GPU kernel states its launch
    assert torch_same_bytes(torch, plan(x), x.permute(0, 2, 3, 1).contiguous())


# --------------------------------------------------------------------------------------------
# CuPy

@pytest.fixture
def cupy():
    return _import("cupy")


CUPY_DTYPES = ["bool", "uint8", "int8", "uint16", "float16", "uint32", "float32", "uint64", "float64",
               "complex64", "complex128"]


def cupy_random(cupy, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return cupy.random.randint(0, 2, shape).astype(bool)
    count = int(np.prod(shape, dtype=np.int64))
    raw = cupy.random.randint(0, 256, count * dtype.itemsize, dtype=cupy.uint8)
    return raw.view(dtype).reshape(shape)


def cupy_same_bytes(cupy, a, b):
    return a.shape == b.shape and a.dtype == b.dtype and bool(
        (cupy.ascontiguousarray(a).reshape(-1).view(cupy.uint8) ==
         cupy.ascontiguousarray(b).reshape(-1).view(cupy.uint8)).all())


@pytest.mark.parametrize("dtype", CUPY_DTYPES)
def test_cupy_random_shapes(cupy, dtype):
    rng = np.random.default_rng(12)
    for rank in range(1, 9):
        shape = random_shape(rng, rank)
        axes = random_axes(rng, rank)
        x = cupy_random(cupy, shape, dtype)
        y = xpose.permute(x, axes)
        assert isinstance(y, cupy.ndarray) and y.device == x.device and y.flags.c_contiguous
        assert cupy_same_bytes(cupy, y, cupy.ascontiguousarray(x.transpose(axes))), (shape, axes)


def test_cupy_strided_views_and_out(cupy):
    base = cupy_random(cupy, (16, 40, 64), "float32")
    for x in (base[:, ::2, 1:], base.transpose(2, 0, 1), base[3:, :, ::4]):
        assert cupy_same_bytes(cupy, xpose.permute(x, (2, 0, 1)), cupy.ascontiguousarray(x.transpose(2, 0, 1)))
    out = cupy.empty((64, 16, 40), cupy.float32)
    pointer = out.data.ptr
    assert xpose.permute(base, (2, 0, 1), out=out) is out and out.data.ptr == pointer
    assert cupy_same_bytes(cupy, out, cupy.ascontiguousarray(base.transpose(2, 0, 1)))


SPIN_SOURCE = r"""
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}
"""


@pytest.mark.parametrize("non_blocking", [True, False])
def test_cupy_runs_on_the_current_stream_without_synchronising(cupy, non_blocking):
    spin = cupy.RawKernel(SPIN_SOURCE, "spin")
    x = cupy_random(cupy, (256, 512), "float32")
    stream = cupy.cuda.Stream(non_blocking=non_blocking)
    with stream:
        spin((1,), (1,), (np.int64(1),))
        xpose.transpose(x * 2)
        stream.synchronize()
        spin((1,), (1,), (np.int64(SPIN_CYCLES),))
        source = x * 2  # ready only after the spin, on `stream`
        assert not stream.done
        y = xpose.transpose(source)
        assert not stream.done
    stream.synchronize()
    assert cupy_same_bytes(cupy, y, cupy.ascontiguousarray((x * 2).T))


def test_cupy_errors(cupy):
    x = cupy_random(cupy, (8, 9), "float32")
    with pytest.raises(ValueError, match="out has dtype int32 but x has float32"):
        xpose.transpose(x, out=cupy.empty((9, 8), cupy.int32))
    with pytest.raises(ValueError, match="x has a negative stride on axis 0 \\(-9 elements\\)"):
        xpose.transpose(x[::-1])
    out = cupy.full((9, 16), 7.0, cupy.float32)
    with pytest.raises(ValueError, match="out has a negative stride on axis 1 \\(-2 elements\\)"):
        xpose.transpose(x, out=out[:, ::-2])
    assert bool((out == 7.0).all())


# --------------------------------------------------------------------------------------------
# JAX

@pytest.fixture
def jax():
    jax = _import("jax")
    if not any(device.platform == "gpu" for device in jax.devices()):
        pytest.skip("JAX sees no GPU")
    return jax


JAX_DTYPES = ["bool", "uint8", "int8", "float16", "bfloat16", "int32", "float32", "complex64"]


def test_jax_random_shapes(jax):
    import jax.numpy as jnp

    rng = np.random.default_rng(13)
    for dtype in JAX_DTYPES:
        for rank in range(1, 9):
            shape = random_shape(rng, rank)
            axes = random_axes(rng, rank)
            x = jnp.asarray(rng.integers(0, 100, shape)).astype(dtype)
            y = xpose.permute(x, axes)
            assert isinstance(y, jax.Array) and y.devices() == x.devices() and y.dtype == x.dtype
            assert bool((y == jnp.transpose(x, axes)).all()), (dtype, shape, axes)


def test_jax_result_is_written_in_place_of_jax_memory(jax, monkeypatch):
    import jax.numpy as jnp

    buffers = []
    empty = jnp.empty

    def recording_empty(*args, **kwargs):
        buffers.append(empty(*args, **kwargs))
        return buffers[-1]

    monkeypatch.setattr(jnp, "empty", recording_empty)
    x = jnp.arange(64 * 96, dtype=jnp.float32).reshape(64, 96)
    y = xpose.transpose(x)
    y.block_until_ready()
    assert len(buffers) == 1
    assert y.unsafe_buffer_pointer() == buffers[0].unsafe_buffer_pointer()  # imported, not copied
    assert bool((y == x.T).all())


def test_jax_out_is_refused(jax):
    import jax.numpy as jnp

    x = jnp.zeros((4, 5))
    with pytest.raises(TypeError, match="immutable"):
        xpose.transpose(x, out=jnp.zeros((5, 4)))
