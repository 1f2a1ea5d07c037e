# SPDX-License-Identifier: Apache-2.0
"""python -m xpose.bench: xpose against the permutations of PyTorch, CuPy, NumPy and JAX.

Every case is timed in one process on the same input: xpose.permute(x, p); PyTorch's
x.permute(p).contiguous(); CuPy's cp.ascontiguousarray(x.transpose(p)); JAX's jnp.transpose under
jit; on the CPU NumPy's np.ascontiguousarray(x.transpose(p)); and a copy of the same bytes (the
roofline: a device-to-device copy on the GPU, memcpy on the CPU). Each figure is the median of
--repeat runs after --warmup runs, as a % of the copy's time. Every result is checked byte for byte
against PyTorch's (or NumPy's) result on fresh random input.

    python -m xpose.bench                          # the default cases on the GPU (the CPU without one)
    python -m xpose.bench --cases more.json        # cases from a file: [{"dims": [..], "perm": [..], "dtype": "f32"}]
    python -m xpose.bench --cases more.json --defaults --json run.json
    python -m xpose.bench --overhead               # host time per call on a 1 MB array, Python vs C++ execute

Timing: GPU work of xpose, PyTorch, CuPy and the copy is timed with CUDA events around each run;
JAX, whose work runs on its own streams, by the wall clock around a batch of --jax-batch calls
ended by block_until_ready (its dispatch overlaps the previous call's work), divided by the batch.
"""

import argparse
import json
import statistics
import sys
import time

import xpose

from . import _xpose

# Large enough (about 100 MB and more) that no case fits in the L2 of a current GPU.
DEFAULT_CASES = [
    {"name": "NCHW->NHWC", "dims": [32, 256, 56, 56], "perm": [0, 2, 3, 1], "dtype": "f32"},
    {"name": "NCHW->NHWC", "dims": [64, 256, 56, 56], "perm": [0, 2, 3, 1], "dtype": "f16"},
    {"name": "rank-5 reversal", "dims": [24, 30, 34, 28, 36], "perm": [4, 3, 2, 1, 0], "dtype": "f32"},
    {"name": "2D transpose", "dims": [8192, 12288], "perm": [1, 0], "dtype": "u8"},
    {"name": "heads (b,s,h,d)->(b,h,s,d)", "dims": [8, 2048, 32, 128], "perm": [0, 2, 1, 3], "dtype": "f16"},
    {"name": "batched K^T", "dims": [8, 32, 2048, 128], "perm": [0, 1, 3, 2], "dtype": "f16"},
    {"name": "odd 2D", "dims": [5003, 4999], "perm": [1, 0], "dtype": "f32"},
]

# xpose's type names -> the libraries' names (bool moves as u8).
DTYPES = {"u8": "uint8", "i8": "int8", "u16": "uint16", "i16": "int16", "f16": "float16",
          "bf16": "bfloat16", "u32": "uint32", "i32": "int32", "f32": "float32", "u64": "uint64",
          "i64": "int64", "f64": "float64", "c64": "complex64", "c128": "complex128", "bool": "bool"}
ITEMSIZE = {"uint8": 1, "int8": 1, "bool": 1, "uint16": 2, "int16": 2, "float16": 2, "bfloat16": 2,
            "uint32": 4, "int32": 4, "float32": 4, "uint64": 8, "int64": 8, "float64": 8,
            "complex64": 8, "complex128": 16}


def _optional(name):
    try:
        return __import__(name)
    except Exception:  # not installed, or installed without a working backend
        return None


def read_cases(path):
    """The cases of a JSON file: a list of {"dims": [...], "perm": [...], "dtype": "f32"} objects."""
    with open(path) as f:
        cases = json.load(f)
    if not isinstance(cases, list):
        raise ValueError(f"{path}: expected a JSON list of cases")
    checked = []
    for i, case in enumerate(cases):
        if not isinstance(case, dict) or not {"dims", "perm", "dtype"} <= case.keys():
            raise ValueError(f"{path}: case {i} needs \"dims\", \"perm\" and \"dtype\"")
        dims, perm, dtype = case["dims"], case["perm"], case["dtype"]
        if not all(isinstance(n, int) and n >= 0 for n in dims):
            raise ValueError(f"{path}: case {i}: dims must be non-negative integers")
        if sorted(perm) != list(range(len(dims))):
            raise ValueError(f"{path}: case {i}: perm {perm} is not a permutation of {len(dims)} axes")
        if dtype not in DTYPES:
            raise ValueError(f"{path}: case {i}: unknown dtype '{dtype}' (known: {' '.join(DTYPES)})")
        checked.append({"name": case.get("name", "file"), "dims": dims, "perm": perm, "dtype": dtype})
    return checked


def _median_summary(times):
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "runs": len(times)}


class GpuTimer:
    """CUDA events (PyTorch's or CuPy's) on the current stream, around batches of runs."""

    def __init__(self, torch, cupy):
        self.torch, self.cupy = torch, cupy

    def _events(self):
        if self.torch is not None:
            return tuple(self.torch.cuda.Event(enable_timing=True) for _ in range(2))
        return self.cupy.cuda.Event(), self.cupy.cuda.Event()

    def _seconds(self, start, end):
        if self.torch is not None:
            return start.elapsed_time(end) / 1e3
        return self.cupy.cuda.get_elapsed_time(start, end) / 1e3

    def time(self, runs, warmup, repeat, batch=1):
        """Seconds per call of each run in `runs` ({label: run}): events around
        `batch` back-to-back runs, so that the host's time per call hides behind the GPU's work as
        in a program that does not wait after every call. The runs take turns, one batch each per
        round, so that clock and temperature drift reach every label alike."""
        for run in runs.values():
            for _ in range(warmup):
                run()
        times = {label: [] for label in runs}
        for _ in range(repeat):
            for label, run in runs.items():
                start, end = self._events()
                start.record()
                for _ in range(batch):
                    run()
                end.record()
                end.synchronize()
                times[label].append(self._seconds(start, end) / batch)
        return {label: _median_summary(t) for label, t in times.items()}


def _wall(run, sync, warmup, repeat, batch=1):
    """Wall-clock seconds per call: batches of `batch` calls, each batch ended by sync(last result)."""
    result = None
    for _ in range(warmup):
        result = run()
    sync(result)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(batch):
            result = run()
        sync(result)
        times.append((time.perf_counter() - start) / batch)
    return _median_summary(times)


def _same_bytes(a, b, lib):
    """Byte equality of two row-major arrays of one library (NaN patterns included)."""
    if tuple(a.shape) != tuple(b.shape):
        return False
    return bool((a.reshape(-1).view(lib.uint8) == b.reshape(-1).view(lib.uint8)).all())


def bench_gpu(cases, args):
    torch, cupy, jax = _optional("torch"), _optional("cupy"), _optional("jax")
    if torch is not None and not torch.cuda.is_available():
        torch = None
    if torch is None and cupy is None:
        sys.exit("xpose.bench: the GPU bench needs PyTorch or CuPy (for buffers and CUDA events)")
    jnp = None
    if jax is not None and not args.no_jax:
        try:
            import jax.dlpack
            import jax.numpy as jnp

            if not any(d.platform == "gpu" for d in jax.devices()):
                jnp = None
        except Exception:
            jnp = None
    timer = GpuTimer(torch, cupy)
    rows = []
    for case in cases:
        dims, perm, name = case["dims"], case["perm"], DTYPES[case["dtype"]]
        nbytes = ITEMSIZE[name]
        for n in dims:
            nbytes *= n
        row = {"case": case["name"], "dims": dims, "perm": perm, "dtype": case["dtype"], "bytes": nbytes,
               "results": {}}
        # Fresh random bytes, viewed as the case's type.
        if torch is not None:
            raw = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device="cuda")
            x = raw.view(getattr(torch, name)).view(dims) if name != "bool" else (raw & 1).bool().view(dims)
            copy_out = torch.empty_like(x)
            lib = torch
        else:
            raw = cupy.random.randint(0, 256, nbytes, dtype=cupy.uint8)
            x = raw.view(cupy.dtype(name)).reshape(dims)
            copy_out = cupy.empty_like(x)
            lib = cupy
        runs = {"copy": (lambda: copy_out.copy_(x)) if lib is torch else (lambda: cupy.copyto(copy_out, x))}
        runs["xpose"] = lambda: xpose.permute(x, perm)
        # The same call into one preallocated result: what the Python layer costs without an
        # allocation per call (the `xpose C++` column below does the same from C++).
        out_shape = tuple(dims[p] for p in perm)
        xpose_out = torch.empty(out_shape, dtype=x.dtype, device="cuda") if lib is torch else \
            cupy.empty(out_shape, x.dtype)
        runs["xpose out="] = lambda: xpose.permute(x, perm, out=xpose_out)
        if torch is not None:
            runs["torch"] = lambda: x.permute(perm).contiguous()
        if cupy is not None and name != "bfloat16":
            xc = cupy.from_dlpack(x) if lib is torch else x
            runs["cupy"] = lambda: cupy.ascontiguousarray(xc.transpose(perm))
        reference = (runs["torch"] if torch is not None else runs["cupy"])()
        check = _same_bytes(runs["xpose"](), reference, lib)
        # The same plan run by the C++ Plan::execute, looped in C++ into one result array: the
        # path without Python, which xpose.permute's figure is compared with.
        pending = _xpose.prepare(x.__dlpack__(), perm)
        cpp_out = torch.empty(reference.shape, dtype=x.dtype, device="cuda") if lib is torch else \
            cupy.empty(reference.shape, x.dtype)
        cpp_capsule = cpp_out.__dlpack__()
        stream = torch.cuda.current_stream().cuda_stream if lib is torch else cupy.cuda.get_current_stream().ptr
        runs["xpose C++"] = lambda: pending.time_execute(cpp_capsule, stream, 1)
        row["results"].update(timer.time(runs, args.warmup, args.repeat, args.batch))
        check = check and _same_bytes(xpose_out, reference, lib)
        del pending, cpp_capsule, cpp_out, xpose_out
        if jnp is not None:
            xj = jax.dlpack.from_dlpack(x)
            f = jax.jit(lambda a: jnp.transpose(a, perm))
            row["results"]["jax"] = _wall(lambda: f(xj), lambda r=None: r is not None and r.block_until_ready(),
                                          args.warmup, args.repeat, args.jax_batch)
        row["check"] = "PASSED" if check else "FAILED"
        rows.append(row)
        del x, raw, copy_out, reference
    device = torch.cuda.get_device_name() if torch is not None else \
        cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
    return rows, device


def bench_cpu(cases, args):
    import numpy as np

    torch, jax = _optional("torch"), None if args.no_jax else _optional("jax")
    jnp = None
    if jax is not None:
        try:
            import jax.numpy as jnp
        except Exception:
            jnp = None
    rng = np.random.default_rng(args.seed)
    rows = []
    for case in cases:
        dims, perm, name = case["dims"], case["perm"], DTYPES[case["dtype"]]
        row = {"case": case["name"], "dims": dims, "perm": perm, "dtype": case["dtype"], "results": {}}
        if name == "bfloat16":
            row.update(bytes=0, check="n/a (NumPy has no bfloat16)")
            rows.append(row)
            continue
        dtype = np.dtype(name)
        count = int(np.prod(dims, dtype=np.int64))
        row["bytes"] = count * dtype.itemsize
        x = rng.integers(0, 256, count * dtype.itemsize, dtype=np.uint8).view(dtype).reshape(dims)
        if name == "bool":
            x = (x.view(np.uint8) & 1).astype(bool)
        copy_out = np.empty_like(x)
        reference = np.ascontiguousarray(x.transpose(perm))
        result = xpose.permute(x, perm)
        check = result.shape == reference.shape and bool((result.reshape(-1).view(np.uint8)
                                                          == reference.reshape(-1).view(np.uint8)).all())
        xpose_out = np.empty(reference.shape, x.dtype)
        runs = {"copy": lambda: np.copyto(copy_out, x), "xpose": lambda: xpose.permute(x, perm),
                "xpose out=": lambda: xpose.permute(x, perm, out=xpose_out),
                "numpy": lambda: np.ascontiguousarray(x.transpose(perm))}
        if torch is not None:
            xt = torch.from_numpy(x)
            runs["torch"] = lambda: xt.permute(perm).contiguous()
        for label, run in runs.items():
            row["results"][label] = _wall(run, lambda r=None: None, args.warmup, args.repeat)
        if jnp is not None:
            xj = jnp.asarray(x)
            f = jax.jit(lambda a: jnp.transpose(a, perm))
            row["results"]["jax"] = _wall(lambda: f(xj), lambda r=None: r is not None and r.block_until_ready(),
                                          args.warmup, args.repeat)
        check = check and bool((xpose_out.reshape(-1).view(np.uint8) == reference.reshape(-1).view(np.uint8)).all())
        row["check"] = "PASSED" if check else "FAILED"
        rows.append(row)
    import platform

    return rows, platform.processor() or platform.machine()


def print_table(rows, device, out=None):
    out = out or sys.stdout
    labels = []
    for row in rows:
        labels += [k for k in row["results"] if k not in labels and k != "copy"]
    print(f"device: {device}", file=out)
    header = f"{'case':<28} {'dtype':<5} {'shape':<22} {'MB':>7} {'copy us':>9}"
    header += "".join(f" {label + ' us':>10} {'%copy':>6}" for label in labels) + "  check"
    print(header, file=out)
    for row in rows:
        results = row["results"]
        copy = results.get("copy", {}).get("median_s")
        shape = "x".join(str(n) for n in row["dims"])
        line = f"{row['case'][:28]:<28} {row['dtype']:<5} {shape:<22} {row['bytes'] / 1e6:>7.1f} "
        line += f"{copy * 1e6:>9.1f}" if copy else f"{'-':>9}"
        for label in labels:
            r = results.get(label)
            if r is None:
                line += f" {'n/a':>10} {'':>6}"
            else:
                t = r["median_s"]
                line += f" {t * 1e6:>10.1f} {100 * copy / t if copy else 0:>5.0f}%"
        print(line + "  " + row["check"], file=out)


def measure_overhead(args):
    """Host time per call of xpose.permute on a 1 MB float32 array (256 x 1024, transposed) against
    the C++ Plan::execute of the same plan, both back to back without synchronisation."""
    device, lib = args.device, None
    if device == "cuda":
        torch, cupy = _optional("torch"), _optional("cupy")
        if torch is not None and torch.cuda.is_available():
            lib = torch
            x = torch.rand(256, 1024, device="cuda")
            out = torch.empty(1024, 256, device="cuda")
            stream = torch.cuda.current_stream().cuda_stream
            sync = torch.cuda.synchronize
        elif cupy is not None:
            lib = cupy
            x = cupy.random.rand(256, 1024, dtype=cupy.float32)
            out = cupy.empty((1024, 256), cupy.float32)
            stream = cupy.cuda.get_current_stream().ptr
            sync = cupy.cuda.get_current_stream().synchronize
        else:
            sys.exit("xpose.bench --overhead on the GPU needs PyTorch or CuPy")
    else:
        import numpy as np

        lib = np
        x = np.random.default_rng(args.seed).random((256, 1024), dtype=np.float32)
        out = np.empty((1024, 256), np.float32)
        stream = 0
        sync = lambda: None  # noqa: E731
    axes = (1, 0)
    iterations = args.overhead_iterations
    gpu_seconds = None
    pending = _xpose.prepare(x.__dlpack__(), axes)
    out_capsule = out.__dlpack__() if lib.__name__ != "numpy" else out
    figures = {}
    for _ in range(3):  # interleaved rounds; the best of each is kept
        sync()
        cpp = pending.time_execute(out_capsule, stream, iterations)
        sync()
        start = time.perf_counter()
        for _ in range(iterations):
            xpose.permute(x, axes, out=out)
        python_out = (time.perf_counter() - start) / iterations
        sync()
        start = time.perf_counter()
        for _ in range(iterations):
            xpose.permute(x, axes)
        python_new = (time.perf_counter() - start) / iterations
        sync()
        for key, value in (("cpp_execute_us", cpp), ("python_out_us", python_out), ("python_alloc_us", python_new)):
            figures[key] = min(figures.get(key, float("inf")), value * 1e6)
    if device == "cuda":
        # The device time per transpose: when the C++ loop is no faster than this, it waited for
        # the GPU, and the difference understates the Python call's overhead.
        timer = GpuTimer(lib if lib.__name__ == "torch" else None, lib if lib.__name__ == "cupy" else None)
        timed = timer.time({"execute": lambda: pending.time_execute(out_capsule, stream, 1)}, 1, 5, 100)
        gpu_seconds = timed["execute"]["median_s"]
        figures["gpu_kernel_us"] = gpu_seconds * 1e6
    figures["overhead_out_us"] = figures["python_out_us"] - figures["cpp_execute_us"]
    figures["overhead_alloc_us"] = figures["python_alloc_us"] - figures["cpp_execute_us"]
    figures.update(library=lib.__name__, device=device, iterations=iterations, bytes=x.nbytes if hasattr(x, "nbytes") else 0)
    print(f"host time per call, 1 MB float32 transpose ({lib.__name__}, {device}, {iterations} calls, best of 3):")
    print(f"  C++ Plan::execute            {figures['cpp_execute_us']:8.2f} us")
    print(f"  xpose.permute(x, p, out=out) {figures['python_out_us']:8.2f} us  (+{figures['overhead_out_us']:.2f} us)")
    print(f"  xpose.permute(x, p)          {figures['python_alloc_us']:8.2f} us  (+{figures['overhead_alloc_us']:.2f} us)")
    if gpu_seconds is not None:
        print(f"  GPU time per transpose       {figures['gpu_kernel_us']:8.2f} us")
        if figures["cpp_execute_us"] <= 1.1 * figures["gpu_kernel_us"]:
            print("  note: the C++ loop ran at the GPU's pace; the differences above are lower bounds")
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m xpose.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], help="default: cuda when a GPU is visible")
    parser.add_argument("--cases", action="append", default=[], metavar="FILE",
                        help="a JSON list of {dims, perm, dtype} cases to time (repeatable)")
    parser.add_argument("--defaults", action="store_true", help="the default cases too, with --cases")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--batch", type=int, default=10,
                        help="back-to-back calls between two CUDA events (GPU timing)")
    parser.add_argument("--jax-batch", type=int, default=50,
                        help="calls between two waits of JAX's wall-clock timing")
    parser.add_argument("--no-jax", action="store_true", help="leave JAX out")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", metavar="OUT", help="write every row (median, min, max) as JSON")
    parser.add_argument("--overhead", action="store_true",
                        help="measure the host time per call on a 1 MB array against C++ Plan::execute")
    parser.add_argument("--overhead-iterations", type=int, default=20000)
    args = parser.parse_args(argv)
    if args.warmup < 0 or min(args.repeat, args.batch, args.jax_batch, args.overhead_iterations) < 1:
        parser.error("--warmup must be >= 0; --repeat, --batch, --jax-batch and --overhead-iterations >= 1")
    if args.device is None:
        args.device = "cuda" if xpose.cuda_compiled() and xpose.cuda_device_count() > 0 else "cpu"
    if args.device == "cuda" and not (xpose.cuda_compiled() and xpose.cuda_device_count() > 0):
        parser.error("--device cuda: this xpose build has no CUDA backend or no GPU is visible")

    report = {"device_kind": args.device, "xpose_kernels": xpose.kernel_names(args.device)}
    if args.overhead:
        report["overhead"] = measure_overhead(args)
    else:
        try:
            cases = [case for path in args.cases for case in read_cases(path)]
        except (OSError, ValueError) as error:
            parser.error(str(error))
        if not args.cases or args.defaults:
            cases = DEFAULT_CASES + cases
        rows, device = (bench_gpu if args.device == "cuda" else bench_cpu)(cases, args)
        print_table(rows, device)
        ratios = [row["results"]["xpose C++"]["median_s"] / row["results"]["xpose"]["median_s"]
                  for row in rows if "xpose C++" in row["results"]]
        if ratios:
            print(f"xpose.permute's speed / the C++ Plan::execute's: min {min(ratios):.3f}, "
                  f"median {statistics.median(ratios):.3f}")
        report.update(device=device, rows=rows)
        if any(row["check"] == "FAILED" for row in rows):
            print("Verification: FAILED")
        else:
            print("Verification: PASSED")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 1 if any(row.get("check") == "FAILED" for row in report.get("rows", [])) else 0


if __name__ == "__main__":
    sys.exit(main())
