#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Times the peers of xpose on the cases of an `xpose bench --format json` report, and prints one
table: each case, xpose (`auto`, from the report) and each peer as % of a device-to-device copy.

    xpose bench --random 300 --seed 1 --format json --output run.json
    python3 tools/peers_bench.py run.json [--json peers.json] [--peers torch,cupy,jax]

Peers (each only where installed): PyTorch `x.permute(p).contiguous()`, CuPy
`cp.ascontiguousarray(x.transpose(p))`, JAX `jnp.transpose(x, p)` under `jax.jit`; cuBLAS geam comes
from the report itself, when the bench ran it (`--kernels memcpy,auto,cublas_geam`: 2D cases of
f32/f64/c64/c128). Every peer is timed in
this process against a device-to-device copy of the same bytes timed the same way, so its ratio is
measured side by side like xpose's. Every peer's result is compared with PyTorch's; a mismatch is
marked '!'. docs/shape-space.md explains the table.

Timing: per case and library, warm-up calls, then `--reps` batches of `--calls` back-to-back calls
timed on the host up to the device's completion; the median batch / calls is the time. Inputs of
strided cases are slices of a larger tensor (JAX has no views: it reports "-" there); outputs are
packed. Peers move elements of the case's size (2-byte types as float16, as the data movement is
the same).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

def case_layout(case):
    """(parent dims, view slices, perm, element bytes) of a report case, all as input dims."""
    elem = case["element_bytes"]
    if case["kind"] == "transpose2d":
        rows, cols, batch, ld_in = case["rows"], case["cols"], case["batch"], case["ld_in"]
        parent = [batch, rows, ld_in]
        view = [batch, rows, cols]
        return parent, view, [0, 2, 1], elem
    dims, perm = case["dims"], case["perm"]
    strides = case.get("in_strides")
    if not strides:
        return list(dims), list(dims), list(perm), elem
    # A row-major parent whose strides are the view's: each parent dim is stride[k-1] / stride[k].
    parent = []
    for k in range(len(dims)):
        parent.append(dims[0] if k == 0 else strides[k - 1] // strides[k])
    return parent, list(dims), list(perm), elem


class Timer:
    """Median over `reps` batches of `calls` back-to-back calls, each batch timed on the host up to
    the device's completion (`sync`), after `warmup` calls."""

    def __init__(self, calls, reps, warmup):
        self.calls, self.reps, self.warmup = calls, reps, warmup

    def seconds(self, run, sync):
        for _ in range(self.warmup):
            run()
        sync()
        batches = []
        for _ in range(self.reps):
            start = time.perf_counter()
            for _ in range(self.calls):
                run()
            sync()
            batches.append((time.perf_counter() - start) / self.calls)
        return statistics.median(batches)


TORCH_DTYPE_BY_SIZE = {1: "uint8", 2: "float16", 4: "float32", 8: "float64", 16: "complex128"}


def time_case(parent, view, perm, elem, peers, timer):
    """% of a device copy for each peer on one case; a peer whose result differs from PyTorch's is
    reported as wrong. The input lives in PyTorch memory and reaches CuPy and JAX through DLPack."""
    import torch
    dtype = getattr(torch, TORCH_DTYPE_BY_SIZE[elem])
    volume = math.prod(parent)
    base = torch.randint(1, 255, (volume * elem,), dtype=torch.uint8, device="cuda").view(dtype).reshape(parent)
    x = base[tuple(slice(0, v) for v in view)]
    nbytes = x.numel() * elem
    copy_src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    copy_dst = torch.empty_like(copy_src)
    copy = timer.seconds(lambda: copy_dst.copy_(copy_src), torch.cuda.synchronize)
    del copy_src, copy_dst
    expected = x.permute(*perm).contiguous()
    figures = {}
    for name in peers:
        try:
            if name == "torch":
                seconds = timer.seconds(lambda: x.permute(*perm).contiguous(), torch.cuda.synchronize)
                result = x.permute(*perm).contiguous()
            elif name == "cupy":
                import cupy as cp
                xc = cp.from_dlpack(x)
                seconds = timer.seconds(lambda: cp.ascontiguousarray(xc.transpose(perm)), torch.cuda.synchronize)
                result = torch.from_dlpack(cp.ascontiguousarray(xc.transpose(perm)))
            else:
                if list(parent) != list(view):
                    continue  # JAX arrays are never views
                import jax
                import jax.numpy as jnp
                xj = jnp.from_dlpack(base)
                fn = jax.jit(lambda a: jnp.transpose(a, perm))
                state = {}

                def run():
                    state["out"] = fn(xj)

                seconds = timer.seconds(run, lambda: state["out"].block_until_ready())
                result = torch.from_dlpack(fn(xj))
            same = torch.equal(result.reshape(-1).view(torch.uint8), expected.reshape(-1).view(torch.uint8))
            figures[name] = (100.0 * copy / seconds, same)
            del result
        except Exception as error:  # a peer that fails on a case (memory, dtype) reports "-"
            print(f"peers_bench: {name}: {type(error).__name__}: {error}", file=sys.stderr)
    del base, x, expected
    torch.cuda.empty_cache()
    return figures


def xpose_figures(case):
    figures = {}
    for variant in case["results"]:
        if variant["status"] == "passed" and variant.get("pct_memcpy") is not None:
            figures[variant["kernel"]] = variant["pct_memcpy"]
    return figures


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(fraction * (len(values) - 1) + 0.5))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="JSON report of xpose bench (--format json --output FILE)")
    parser.add_argument("--peers", default="torch,cupy,jax", help="peers to time (default torch,cupy,jax)")
    parser.add_argument("--calls", type=int, default=5, help="back-to-back calls per timed batch")
    parser.add_argument("--reps", type=int, default=5, help="timed batches per case and library")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--max-bytes", type=float, default=4e9,
                        help="skip cases larger than this (each library holds input, output and copy buffers)")
    parser.add_argument("--json", help="write every figure there")
    args = parser.parse_args()

    with open(args.report) as f:
        report = json.load(f)
    peers = []
    for name in args.peers.split(","):
        try:
            __import__(name)
            peers.append(name)
        except ImportError:
            print(f"peers_bench: {name} is not installed; skipped", file=sys.stderr)
    if "jax" in peers:
        import jax
        jax.config.update("jax_enable_x64", True)  # f64 and c128 cases
    timer = Timer(args.calls, args.reps, args.warmup)
    rows = []
    for number, case in enumerate(report["cases"], 1):
        figures = xpose_figures(case)
        row = {"label": case["label"], "class": case.get("class"), "bytes": case["bytes"],
               "xpose": figures.get("auto"), "cublas": figures.get("cublas_geam")}
        parent, view, perm, elem = case_layout(case)
        if case["bytes"] <= args.max_bytes:
            for name, (percent, same) in time_case(parent, view, perm, elem, peers, timer).items():
                row[name] = percent
                if not same:
                    row[name + "_wrong"] = True
        rows.append(row)
        print(f"{number}/{len(report['cases'])} {case['label']}", file=sys.stderr, flush=True)

    names = ["xpose", "cublas"] + peers
    print(f"{'case':52} {'class':13} " + " ".join(f"{n:>7}" for n in names))
    for row in rows:
        cells = []
        for n in names:
            v = row.get(n)
            cells.append(f"{'-':>7}" if v is None else f"{v:6.1f}{'!' if row.get(n + '_wrong') else ' '}")
        print(f"{row['label'][:52]:52} {str(row['class'] or '')[:13]:13} " + " ".join(cells))
    print("\n% of a device copy by class: min / p10 / median; 'faster' counts cases where the peer beat xpose")
    classes = sorted({row["class"] for row in rows if row["class"]}) + ["all"]
    for cls in classes:
        members = [r for r in rows if cls == "all" or r["class"] == cls]
        parts = []
        for n in names:
            values = [r[n] for r in members if r.get(n) is not None]
            if not values:
                parts.append(f"{n}: -")
                continue
            text = f"{n}: {min(values):.0f}/{percentile(values, 0.1):.0f}/{percentile(values, 0.5):.0f}"
            if n != "xpose":
                both = [r for r in members if r.get(n) is not None and r.get("xpose") is not None]
                text += f" faster {sum(r[n] > r['xpose'] for r in both)}/{len(both)}"
            parts.append(text)
        print(f"{cls:13} " + "; ".join(parts))
    wrong = [(r["label"], n) for r in rows for n in names if r.get(n + "_wrong")]
    if wrong:
        print(f"peers_bench: {len(wrong)} peer results did not match NumPy (marked '!')", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"source_report": args.report, "device": report.get("device"), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
