# SPDX-License-Identifier: Apache-2.0
"""pytest setup: xpose is imported from the build tree (CTest sets PYTHONPATH=<build>/python) or
from an installed package."""

import zlib

import numpy as np
import pytest

import xpose

# Every NumPy dtype xpose moves (bfloat16 has no NumPy dtype; the GPU tests cover it with PyTorch).
NUMPY_DTYPES = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.float16, np.uint32, np.int32,
                np.float32, np.uint64, np.int64, np.float64, np.complex64, np.complex128]


def random_array(rng, shape, dtype):
    """Random bits of `dtype` (0/1 for bool): every byte is checked, NaN patterns included."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    raw = rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def assert_same_bytes(actual, expected):
    """Bit-exact equality of two arrays of the same shape and dtype, naming the first difference."""
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    a = np.ascontiguousarray(actual.reshape(-1)).view(np.uint8).reshape(actual.shape + (actual.itemsize,))
    e = np.ascontiguousarray(expected.reshape(-1)).view(np.uint8).reshape(expected.shape + (expected.itemsize,))
    wrong = np.argwhere((a != e).any(axis=-1))
    if wrong.size:
        index = tuple(int(i) for i in wrong[0])
        pytest.fail(f"{len(wrong)} wrong elements; the first at {index}: {actual[index]!r} != {expected[index]!r}")


@pytest.fixture
def rng(request):
    # One seed per test, derived from its name, so that a failure reproduces.
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


@pytest.fixture(autouse=True)
def default_plan_cache():
    yield
    xpose.set_plan_cache_capacity(256)
