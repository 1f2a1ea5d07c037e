# SPDX-License-Identifier: Apache-2.0
"""xpose.transpose_: the last two axes transposed in place, on NumPy arrays (the CPU) and on
PyTorch and CuPy arrays on a GPU; errors leave the array untouched."""

import numpy as np
import pytest

import xpose
from conftest import NUMPY_DTYPES, assert_same_bytes, random_array

GPU = xpose.cuda_compiled() and xpose.cuda_device_count() > 0
SHAPES = [(1, 1), (7, 7), (33, 33), (2, 3), (3, 2), (4, 6), (37, 101), (101, 37), (1, 17), (17, 1), (0, 4),
          (3, 5, 7), (2, 3, 8, 8), (4, 30, 2)]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_numpy_matches_swapaxes(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    want = np.swapaxes(x, -1, -2).copy()
    y = xpose.transpose_(x)
    assert y.shape == want.shape
    assert_same_bytes(y, want)
    if x.size:
        assert np.shares_memory(x, y)  # the same memory, no copy


def test_random_batches(rng):
    for _ in range(20):
        shape = tuple(int(n) for n in rng.integers(1, 60, size=int(rng.integers(2, 5))))
        if np.prod(shape) > 300_000:
            continue
        x = random_array(rng, shape, np.float32)
        want = np.swapaxes(x, -1, -2).copy()
        assert_same_bytes(xpose.transpose_(x), want)


def test_errors_leave_the_array_untouched():
    x = np.arange(12, dtype=np.float32)
    with pytest.raises(ValueError, match="rank 2 or more"):
        xpose.transpose_(x)
    m = np.arange(24, dtype=np.float32).reshape(4, 6)
    before = m.copy()
    with pytest.raises(ValueError, match="C-contiguous"):
        xpose.transpose_(m[:, ::2])
    with pytest.raises(ValueError, match="C-contiguous"):
        xpose.transpose_(m.T)
    m.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        xpose.transpose_(m)
    assert_same_bytes(m, before)
    with pytest.raises((TypeError, AttributeError)):
        xpose.transpose_([[1, 2], [3, 4]])


def test_empty_arrays_of_large_other_sizes():
    x = np.empty((0, 2**20, 3 * 2**20), np.uint8)
    assert xpose.transpose_(x).shape == (0, 3 * 2**20, 2**20)


def test_jax_arrays_are_refused():
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(TypeError, match="immutable"):
        xpose.transpose_(jnp.zeros((3, 4)))


@pytest.mark.skipif(not GPU, reason="no CUDA backend in this build or no GPU visible")
@pytest.mark.parametrize("shape", [(3, 5), (64, 64), (257, 1031), (4, 100, 37), (2, 513, 513)], ids=str)
def test_torch_cuda(shape):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    for dtype in (torch.uint8, torch.float16, torch.float32, torch.float64, torch.complex128):
        x = torch.randint(0, 100, shape, device="cuda").to(dtype)
        want = x.transpose(-1, -2).contiguous()
        pointer = x.data_ptr()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            y = xpose.transpose_(x)
        stream.synchronize()
        assert y.data_ptr() == pointer and tuple(y.shape) == tuple(want.shape)
        assert torch.equal(y, want)


@pytest.mark.skipif(not GPU, reason="no CUDA backend in this build or no GPU visible")
def test_cupy_cuda():
    cupy = pytest.importorskip("cupy")
    for shape in [(3, 5), (100, 100), (6, 1000, 7)]:
        x = cupy.random.rand(*shape).astype(cupy.float32)
        want = cupy.ascontiguousarray(cupy.swapaxes(x, -1, -2))
        y = xpose.transpose_(x)
        assert y.data.ptr == x.data.ptr
        assert bool((y == want).all())
