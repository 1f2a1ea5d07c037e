# SPDX-License-Identifier: Apache-2.0
"""Every error: the exception kind and message, and `out` untouched by a failed call."""

import numpy as np
import pytest

import xpose
from conftest import random_array

POISON = 0x5A


@pytest.fixture
def x(rng):
    return random_array(rng, (3, 4, 5), np.float32)


def poisoned(shape, dtype=np.float32):
    out = np.empty(shape, dtype)
    out.view(np.uint8).fill(POISON)
    return out


def untouched(out):
    return (np.ascontiguousarray(out).view(np.uint8) == POISON).all()


@pytest.mark.parametrize("axes, kind, message", [
    ((0, 0, 1), ValueError, "axes repeats axis 0"),
    ((0, 1), ValueError, "axes has 2 entries for an array of rank 3"),
    ((0, 1, 2, 3), ValueError, "axes has 4 entries"),
    ((0, 1, 3), ValueError, r"axes\[2\] \(3\) is out of range for an array of rank 3"),
    ((0, 1, -4), ValueError, r"axes\[2\] \(-4\) is out of range"),
    ((0, 1, 10**30), ValueError, r"axes\[2\] \(1000000000000000000000000000000\) is out of range"),
    ((0, 1, 2.0), TypeError, r"axes\[2\] is float, not an int"),
    ((0, 1, True), TypeError, r"axes\[2\] is bool"),
    ((0, 1, None), TypeError, r"axes\[2\] is NoneType"),
    ("012", TypeError, "axes must be a sequence of ints, not str"),
    (3, TypeError, "axes must be a sequence of ints, not int"),
    (None, None, None),  # None reverses, like np.transpose
])
def test_bad_axes(x, axes, kind, message):
    out = poisoned((5, 4, 3))
    if kind is None:
        xpose.permute(x, axes, out=out)
        assert (out == np.transpose(x)).all()
        return
    with pytest.raises(kind, match=message):
        xpose.permute(x, axes, out=out)
    assert untouched(out)


@pytest.mark.parametrize("make_out, message", [
    (lambda: poisoned((5, 4, 3)), "out has shape \\(5, 4, 3\\) but the result has shape \\(5, 3, 4\\)"),
    (lambda: poisoned((5, 3, 4), np.int32), "out has dtype int32 but x has float32"),
    (lambda: poisoned((5, 3, 4), np.float64), "out has dtype float64 but x has float32"),
    (lambda: poisoned((5, 3)), "out has shape"),
    (lambda: poisoned((5, 3, 8))[:, :, ::-2], "out has a negative stride on axis 2"),
    (lambda: poisoned((5, 3, 4, 2))[..., 0].transpose(0, 1, 2)[:, :, :], None),  # strided: fine
    (lambda: np.broadcast_to(poisoned((1, 3, 4)), (5, 3, 4)), "read-only"),
], ids=["shape", "int32", "float64", "rank", "negative-stride", "strided-ok", "broadcast"])
def test_bad_out(x, make_out, message):
    out = make_out()
    if message is None:
        xpose.permute(x, (2, 0, 1), out=out)
        assert (out == np.transpose(x, (2, 0, 1))).all()
        return
    with pytest.raises(ValueError, match=message):
        xpose.permute(x, (2, 0, 1), out=out)
    assert untouched(out)


def test_read_only_out(x):
    out = poisoned((5, 3, 4))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        xpose.permute(x, (2, 0, 1), out=out)
    assert untouched(out)


def test_out_overlapping_x_is_refused():
    buffer = np.arange(64, dtype=np.float32)
    x = buffer[:16].reshape(4, 4)
    out = buffer[8:24].reshape(4, 4)
    before = buffer.copy()
    with pytest.raises(ValueError, match="overlap"):
        xpose.transpose(x, out=out)
    assert (buffer == before).all()


@pytest.mark.parametrize("bad, kind, message", [
    ([[1, 2], [3, 4]], TypeError, r"x \(list\) is not an array"),
    (3.0, TypeError, r"x \(float\) is not an array"),
    (None, TypeError, r"x \(NoneType\) is not an array"),
    (b"abcd", TypeError, "is not an array"),
    (np.array([[None, 1]], dtype=object), TypeError, "buffer format 'O'"),
    (np.zeros((2, 2), dtype="datetime64[s]"), TypeError, "cannot be read"),
    (np.zeros((2, 2), dtype=[("a", "i4"), ("b", "f4")]), TypeError, "x"),
    (np.zeros((2, 2), dtype=np.longdouble), TypeError, "x"),
    (np.zeros((4, 4), np.float32)[::-1], ValueError, "negative stride on axis 0"),
    (np.broadcast_to(np.zeros(4, np.float32), (3, 4)), ValueError, "would overlap"),
], ids=["list", "float", "None", "bytes", "object", "datetime", "structured", "longdouble",
        "reversed", "broadcast"])
def test_bad_inputs(bad, kind, message):
    with pytest.raises(kind, match=message):
        xpose.transpose(bad)


def test_bad_out_type(x):
    with pytest.raises(TypeError, match=r"out \(list\) is not an array"):
        xpose.permute(x, (2, 0, 1), out=[0] * 60)


def test_matrix_transpose_needs_two_axes():
    with pytest.raises(ValueError, match="matrix_transpose needs an array of rank 2 or more; x has rank 1"):
        xpose.matrix_transpose(np.zeros(3))
    with pytest.raises(ValueError, match="rank 0"):
        xpose.matrix_transpose(np.zeros(()))


def test_cuda_arrays_need_the_cuda_backend_or_a_device():
    if xpose.cuda_compiled() and xpose.cuda_device_count() > 0:
        pytest.skip("a GPU is visible")
    # A CUDA plan without a backend (ValueError) or without a device (RuntimeError, the library's
    # device_error) is refused with the library's reason.
    with pytest.raises((ValueError, RuntimeError), match="CUDA"):
        xpose.Plan((4, 4), (1, 0), "f32", device="cuda")


@pytest.mark.parametrize("kwargs, kind, message", [
    (dict(dtype="f33"), ValueError, "f33"),
    (dict(dtype="float32", device="tpu"), ValueError, "tpu"),
    (dict(dtype="float32", device="cuda:x"), ValueError, "cuda:x"),
    (dict(dtype="float32", kernel="fastest"), ValueError, "unknown permute kernel 'fastest'"),
    (dict(dtype="float32", strides=[1, 2]), ValueError, "strides has 2 entries for rank 3"),
    (dict(dtype="float32", strides=[-20, 5, 1]), ValueError, "negative stride"),
    (dict(dtype="float32", strides=[1, 1, 1]), ValueError, "overlap"),
], ids=["dtype", "device", "device-index", "kernel", "strides-rank", "strides-negative", "strides-overlap"])
def test_bad_plans(kwargs, kind, message):
    with pytest.raises(kind, match=message):
        xpose.Plan((3, 4, 5), (2, 0, 1), **kwargs)


def test_plan_refuses_arrays_it_was_not_made_for(x):
    plan = xpose.Plan((3, 4, 5), (2, 0, 1), "f32")
    out = poisoned((5, 3, 4))
    with pytest.raises(ValueError, match=r"x has shape \(3, 5, 4\) but the plan is for \(3, 4, 5\)"):
        plan(np.zeros((3, 5, 4), np.float32), out=out)
    with pytest.raises(ValueError, match="x has dtype int32 \\(moved as i32\\) but the plan is for f32"):
        plan(np.zeros((3, 4, 5), np.int32), out=out)
    with pytest.raises(ValueError, match="strides"):
        plan(np.zeros((3, 4, 10), np.float32)[:, :, ::2], out=out)
    with pytest.raises(ValueError, match="row-major"):
        plan(x, out=poisoned((5, 3, 8))[:, :, ::2])
    assert untouched(out)
