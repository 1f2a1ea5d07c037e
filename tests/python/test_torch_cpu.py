# SPDX-License-Identifier: Apache-2.0
"""xpose on PyTorch CPU tensors: the PyTorch adapter without a GPU (skips where PyTorch is absent)."""

import numpy as np
import pytest

import xpose

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "float16", "bfloat16", "int32", "float32", "int64", "float64",
          "complex64", "complex128"]


def random_tensor(shape, dtype, seed=5):
    generator = torch.Generator().manual_seed(seed)
    dtype = getattr(torch, dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    size = torch.empty((), dtype=dtype).element_size()
    count = int(np.prod(shape, dtype=np.int64))
    raw = torch.randint(0, 256, (count * size,), dtype=torch.uint8, generator=generator)
    return raw.view(dtype).view(shape)


def same_bytes(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype == torch.bool:
        return bool((a == b).all())
    return bool((a.contiguous().reshape(-1).view(torch.uint8) == b.contiguous().reshape(-1).view(torch.uint8)).all())


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_shapes(dtype):
    rng = np.random.default_rng(21)
    for rank in range(1, 9):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rank))
        axes = tuple(int(a) for a in rng.permutation(rank))
        x = random_tensor(shape, dtype, seed=rank)
        y = xpose.permute(x, axes)
        assert isinstance(y, torch.Tensor) and y.dtype == x.dtype and y.is_contiguous()
        assert same_bytes(y, x.permute(axes).contiguous()), (shape, axes)


def test_strided_views_and_out():
    base = random_tensor((6, 10, 12), "float32")
    for x in (base[:, ::2, 1:], base.transpose(0, 2), base[1:, :, ::3]):
        assert same_bytes(xpose.permute(x, (2, 0, 1)), x.permute(2, 0, 1).contiguous())
    out = torch.empty(12, 6, 10)
    pointer = out.data_ptr()
    assert xpose.permute(base, (2, 0, 1), out=out) is out and out.data_ptr() == pointer
    assert same_bytes(out, base.permute(2, 0, 1).contiguous())
    numpy_out = np.empty((12, 6, 10), np.float32)
    assert xpose.permute(base, (2, 0, 1), out=numpy_out) is numpy_out
    assert same_bytes(torch.from_numpy(numpy_out), base.permute(2, 0, 1).contiguous())


def test_autograd_and_conjugate_views():
    x = random_tensor((4, 5), "float32").requires_grad_()
    y = xpose.transpose(x)
    assert not y.requires_grad and same_bytes(y, x.detach().t().contiguous())
    with pytest.raises(ValueError, match="out requires grad"):
        xpose.transpose(x.detach(), out=torch.zeros(5, 4, requires_grad=True))
    z = torch.complex(torch.randn(4, 5), torch.randn(4, 5))
    assert same_bytes(xpose.transpose(z.conj()), z.conj().resolve_conj().t().contiguous())


def test_errors_leave_out_untouched():
    x = random_tensor((3, 4, 5), "float32")
    out = torch.full((5, 3, 4), 7.0)
    with pytest.raises(ValueError, match="out has dtype float64 but x has float32"):
        xpose.permute(x, (2, 0, 1), out=torch.zeros(5, 3, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="axes repeats"):
        xpose.permute(x, (2, 2, 0), out=out)
    with pytest.raises(ValueError, match="out has shape"):
        xpose.permute(x, (1, 2, 0), out=out)
    assert bool((out == 7.0).all())


def test_plan_takes_torch_dtypes():
    x = random_tensor((4, 6, 8), "bfloat16")
    plan = xpose.Plan(x.shape, (2, 1, 0), torch.bfloat16)
    assert plan.dtype == "bf16" and same_bytes(plan(x), x.permute(2, 1, 0).contiguous())
