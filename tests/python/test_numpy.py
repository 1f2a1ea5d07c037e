# SPDX-License-Identifier: Apache-2.0
"""xpose on NumPy arrays (the CPU): results against np.transpose, bit for bit."""

import threading

import numpy as np
import pytest

import xpose
from conftest import NUMPY_DTYPES, assert_same_bytes, random_array


def expected(x, axes):
    return np.transpose(x, axes).copy(order="C")  # ascontiguousarray would make a 0-d array 1-d


def random_shape(rng, rank, max_elements=4096):
    """A shape of `rank` dims with at most `max_elements` elements, size-1 and odd sizes included."""
    while True:
        shape = tuple(int(n) for n in rng.integers(1, 9 if rank > 3 else 40, size=rank))
        if np.prod(shape) <= max_elements:
            return shape


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("rank", range(1, 9))
def test_random_shapes_match_numpy(rng, rank, dtype):
    for _ in range(3):
        shape = random_shape(rng, rank)
        axes = tuple(int(a) for a in rng.permutation(rank))
        x = random_array(rng, shape, dtype)
        y = xpose.permute(x, axes)
        assert type(y) is np.ndarray and y.flags.c_contiguous
        assert_same_bytes(y, expected(x, axes))


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_transpose_and_matrix_transpose(rng, dtype):
    x = random_array(rng, (3, 5, 7), dtype)
    assert_same_bytes(xpose.transpose(x), expected(x, None))
    assert_same_bytes(xpose.matrix_transpose(x), expected(x, (0, 2, 1)))
    m = random_array(rng, (33, 65), dtype)
    assert_same_bytes(xpose.transpose(m), expected(m, None))
    assert_same_bytes(xpose.matrix_transpose(m), expected(m, None))


def test_negative_axes_count_from_the_end(rng):
    x = random_array(rng, (2, 3, 4, 5), np.float32)
    assert_same_bytes(xpose.permute(x, (-1, 0, -2, 1)), expected(x, (3, 0, 2, 1)))
    assert_same_bytes(xpose.permute(x, [np.int64(3), np.int32(2), 1, 0]), expected(x, (3, 2, 1, 0)))


def test_large_array_takes_the_threaded_path(rng):
    x = random_array(rng, (64, 96, 130), np.float32)  # 3.2 MB, above the 1 MiB threading threshold
    assert_same_bytes(xpose.permute(x, (2, 0, 1)), expected(x, (2, 0, 1)))
    assert_same_bytes(xpose.permute(x, (1, 2, 0)), expected(x, (1, 2, 0)))


@pytest.mark.parametrize("view", [
    lambda a: a[:, ::2, 1:],            # steps and an offset
    lambda a: a[1:, :, ::3],
    lambda a: a.transpose(2, 0, 1),     # a permuted (non-contiguous) view
    lambda a: np.asfortranarray(a),     # column-major
    lambda a: a[:, 1:2, :],             # a size-1 dim of any stride
    lambda a: a[::2, ::-1, :][:, :1],   # a negative stride on a size-1 dim is never stepped
], ids=["steps", "offset-steps", "permuted", "fortran", "size1", "size1-negative"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_strided_views_match_numpy(rng, view, dtype):
    base = random_array(rng, (6, 10, 12), dtype)
    x = view(base)
    for axes in [(0, 2, 1), (2, 1, 0), (1, 0, 2)]:
        assert_same_bytes(xpose.permute(x, axes), expected(x, axes))


def test_read_only_input(rng):
    x = random_array(rng, (17, 9), np.int32)
    x.flags.writeable = False
    assert_same_bytes(xpose.transpose(x), expected(x, None))


def test_empty_rank0_and_size1(rng):
    for shape, axes in [((0, 3), (1, 0)), ((4, 0, 2), (2, 0, 1)), ((), ()), ((1,), (0,)),
                        ((1, 1, 1), (2, 0, 1))]:
        x = random_array(rng, shape, np.float64)
        y = xpose.permute(x, axes)
        assert_same_bytes(y, expected(x, axes))


def test_rank_16_runs_and_17_is_refused(rng):
    x = random_array(rng, (2,) * 8 + (1,) * 8, np.uint16)
    axes = tuple(range(15, -1, -1))
    assert_same_bytes(xpose.permute(x, axes), expected(x, axes))
    with pytest.raises(ValueError, match="rank 17 exceeds the limit of 16"):
        xpose.transpose(np.zeros((1,) * 17))


def test_out_is_written_and_returned(rng):
    x = random_array(rng, (5, 6, 7), np.float32)
    out = np.empty((7, 5, 6), np.float32)
    assert xpose.permute(x, (2, 0, 1), out=out) is out
    assert_same_bytes(out, expected(x, (2, 0, 1)))


def test_strided_out_leaves_the_gaps_untouched(rng):
    x = random_array(rng, (5, 6, 7), np.int16)
    poison = np.int16(-12345)
    big = np.full((9, 6, 10), poison, np.int16)
    out = big[1:8, :, ::2][:, :, :5]  # (7, 6, 5), strided
    xpose.permute(x, (2, 1, 0), out=out)
    assert_same_bytes(out, expected(x, (2, 1, 0)))
    mask = np.ones(big.shape, bool)
    mask[1:8, :, 0:10:2] = False
    assert (big[mask] == poison).all()


def test_plan_runs_again_and_again(rng):
    plan = xpose.Plan((4, 3, 8, 5), (0, 2, 3, 1), np.float32)
    assert plan.out_shape == (4, 8, 5, 3) and plan.axes == (0, 2, 3, 1) and plan.dtype == "f32"
    assert plan.device == "cpu" and plan.kernel_name
    assert plan.describe().startswith(plan.kernel_name)
    for _ in range(3):
        x = random_array(rng, (4, 3, 8, 5), np.float32)
        assert_same_bytes(plan(x), expected(x, (0, 2, 3, 1)))
    out = np.empty(plan.out_shape, np.float32)
    assert plan.execute(x, out=out) is out
    assert_same_bytes(out, expected(x, (0, 2, 3, 1)))
    assert "Plan(" in repr(plan)


def test_plan_for_a_strided_view(rng):
    base = random_array(rng, (6, 10, 12), np.float64)
    x = base[:, ::2, 1:]
    plan = xpose.Plan(x.shape, (2, 0, 1), "float64", strides=[s // 8 for s in x.strides])
    assert_same_bytes(plan(x), expected(x, (2, 0, 1)))
    with pytest.raises(ValueError, match="strides"):
        plan(np.ascontiguousarray(x))


@pytest.mark.parametrize("kernel", [k for k in xpose.kernel_names("cpu") if xpose.kernel_permutes(k, "cpu")])
def test_every_cpu_kernel_through_a_plan(rng, kernel):
    ran = 0
    for shape, axes in [((33, 65), (1, 0)), ((3, 17, 9), (0, 2, 1)), ((4, 5, 6, 7), (3, 1, 0, 2)),
                        ((8, 9, 10), (0, 1, 2))]:
        x = random_array(rng, shape, np.float32)
        try:
            plan = xpose.Plan(shape, axes, "f32", kernel=kernel)
        except ValueError as error:
            assert "cannot run" in str(error)
            continue
        assert_same_bytes(plan(x), expected(x, axes))
        ran += 1
    assert ran > 0, f"kernel {kernel} ran no case"


def test_plans_are_cached_and_the_cache_is_bounded(rng):
    xpose.clear_plan_cache()
    x = random_array(rng, (8, 9), np.float32)
    xpose.transpose(x)
    xpose.transpose(x)
    info = xpose.plan_cache_info()
    assert info["misses"] == 1 and info["hits"] == 1 and info["size"] == 1
    xpose.set_plan_cache_capacity(4)
    for n in range(1, 11):
        y = random_array(rng, (n, 3), np.uint8)
        assert_same_bytes(xpose.transpose(y), expected(y, None))
    assert xpose.plan_cache_info()["size"] == 4
    xpose.set_plan_cache_capacity(0)
    assert xpose.plan_cache_info()["size"] == 0
    assert_same_bytes(xpose.transpose(x), expected(x, None))


def test_calls_from_several_threads(rng):
    inputs = [random_array(rng, (64, 48, 40), np.float32) for _ in range(4)]  # 0.5 MB each
    errors = []

    def work(x):
        try:
            for _ in range(5):
                assert_same_bytes(xpose.permute(x, (2, 0, 1)), expected(x, (2, 0, 1)))
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(x,)) for x in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_names():
    assert xpose.kernel_names()[0] == "auto"
    assert xpose.kernel_names("cpu") == xpose.kernel_names("cpu:0")
    assert "f32" in xpose.dtype_names() and "c128" in xpose.dtype_names()
    assert isinstance(xpose.cuda_compiled(), bool)
    assert xpose.cuda_device_count() >= 0


def test_unusual_layouts(rng):
    swapped = random_array(rng, (5, 7), np.float32).astype(">f4")  # big-endian: moved as bytes
    assert_same_bytes(xpose.transpose(swapped), expected(swapped, None))
    packed = np.zeros((6, 4), dtype=[("a", "u1"), ("b", "<i4")])
    packed["b"] = np.arange(24).reshape(6, 4)
    field = packed["b"]  # 5-byte strides: not a whole number of elements
    with pytest.raises(ValueError, match="not a whole number of elements"):
        xpose.transpose(field)
    unaligned = np.frombuffer(bytes(range(256)) * 2, dtype=np.float64, count=48, offset=1).reshape(6, 8)
    assert_same_bytes(xpose.transpose(unaligned), expected(unaligned, None))


def test_random_views_run_or_raise(rng):
    """Any view of a buffer, any axes, any out: a correct result or ValueError/TypeError, and a
    failed call leaves out untouched."""
    buffer = random_array(rng, (4096,), np.uint16)
    outcomes = {"ran": 0, "refused": 0}
    for _ in range(400):
        rank = int(rng.integers(0, 5))
        shape = tuple(int(n) for n in rng.integers(0, 6, size=rank))
        strides = tuple(int(s) * 2 for s in rng.integers(-8, 40, size=rank))
        offset = int(rng.integers(0, 200))
        base = buffer[offset:]
        try:
            x = np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides, writeable=False)
        except ValueError:
            continue
        extent = [(n - 1) * s for n, s in zip(shape, strides) if n > 0]
        if any(n == 0 for n in shape) or not extent:
            low, high = 0, 0
        else:
            low = sum(e for e in extent if e < 0) // 2
            high = sum(e for e in extent if e > 0) // 2
        if offset + low < 0 or offset + high >= buffer.size:
            continue  # a view outside the buffer: not something NumPy would hand out
        axes = [int(a) for a in rng.permutation(rank)]
        if rng.random() < 0.2 and rank > 0:
            axes[int(rng.integers(0, rank))] = int(rng.integers(-rank - 2, rank + 2))
        out = np.full([shape[a] if 0 <= a < rank else 1 for a in axes] if rng.random() < 0.9 else (3,),
                      0x5A5A, np.uint16)
        before = out.copy()
        try:
            xpose.permute(x, axes, out=out)
        except (ValueError, TypeError):
            outcomes["refused"] += 1
            assert (out == before).all()
            continue
        outcomes["ran"] += 1
        assert_same_bytes(out, expected(x, axes))
    assert outcomes["ran"] > 50 and outcomes["refused"] > 50, outcomes


def test_kept_capsule_releases_what_it_keeps():
    """The capsule xpose hands JAX for a result holds the input's export and the result's memory
    until its consumer lets go, consumed (here by NumPy) or not."""
    import gc
    import weakref

    from xpose import _xpose

    class Keep:
        pass

    class Producer:
        def __init__(self, array, keep):
            self.array, self.keep = array, keep

        def __dlpack__(self, stream=None, **unused):
            return _xpose.keep_alive_capsule(self.array.__dlpack__(), self.keep)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    source = np.arange(12, dtype=np.float32).reshape(3, 4)
    keep = Keep()
    alive = weakref.ref(keep)
    imported = np.from_dlpack(Producer(source, keep))
    del keep
    gc.collect()
    assert alive() is not None and (imported == source).all()
    assert imported.__array_interface__["data"][0] == source.__array_interface__["data"][0]  # no copy
    del imported
    gc.collect()
    assert alive() is None

    keep = Keep()
    alive = weakref.ref(keep)
    unused = _xpose.keep_alive_capsule(source.__dlpack__(), keep)
    del keep, unused
    gc.collect()
    assert alive() is None
    with pytest.raises(TypeError, match="unused DLPack capsule"):
        _xpose.keep_alive_capsule(object(), None)
