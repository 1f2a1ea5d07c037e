#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs Nsight Compute over chosen xpose GPU kernels and prints, per kernel, what the seeds ask:
DRAM bytes read and written, global load/store sectors per request, and shared-memory bank
conflicts. The kernels run through `xpose bench` (one kernel per ncu run, one launch profiled
after the warm-up).

  tools/profile_kernels.py --xpose build/tools/xpose/xpose --rows 8192 --cols 8192 --dtype f32 \
      --kernels naive_read_contiguous,naive_write_contiguous,tiled,tiled_padded,tile

ncu runs with --clock-control none (the lent machines' setting; the GPU's clocks are left alone).
"""
import argparse
import csv
import io
import subprocess
import sys

# xpose kernel name -> a regex matching its CUDA function name(s).
KERNEL_FUNCTIONS = {
    "copy": "regex:copy_kernel",
    "copy_shared": "regex:copy_shared_kernel",
    "naive_read_contiguous": "regex:naive_read_contiguous_kernel",
    "naive_write_contiguous": "regex:naive_write_contiguous_kernel",
    "tiled": r"regex:tiled_kernel<[^>]*\(int\)0>",
    "tiled_padded": r"regex:tiled_kernel<[^>]*\(int\)1>",
    "tiled_padded_rows": "regex:tiled_padded_rows_kernel",
    "tiled_diagonal": "regex:tiled_diagonal_kernel",
    "tile": "regex:tile_transpose_kernel|element_tile_kernel",
    "interleave": "regex:interleave_kernel",
    "deinterleave": "regex:deinterleave_kernel",
    "cublas_geam": "regex:geam|transpose_readWrite",  # cuBLAS 13 names its kernel transpose_readWrite_*
}

METRICS = {
    "time_us": "gpu__time_duration.sum",
    "dram_read": "dram__bytes_read.sum",
    "dram_write": "dram__bytes_write.sum",
    "ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "shared_ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}

# Bytes to bytes, times to microseconds.
UNIT_SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9,
              "nsecond": 1e-3, "ns": 1e-3, "usecond": 1, "us": 1, "msecond": 1e3, "ms": 1e3,
              "second": 1e6, "s": 1e6}


def profile(args, kernel):
    command = [args.ncu, "--clock-control", "none", "--csv", "--page", "raw",
               "--metrics", ",".join(METRICS.values()),
               "--kernel-name-base", "demangled", "--kernel-name", KERNEL_FUNCTIONS[kernel], "--launch-skip", "1", "--launch-count", "1",
               args.xpose, "bench", "--device", "cuda", "--rows", str(args.rows), "--cols", str(args.cols),
               "--dtype", args.dtype, "--kernels", kernel, "--reps", "2", "--warmup", "1",
               "--format", "csv"]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ncu failed for {kernel} (exit {run.returncode}):\n{run.stderr[-2000:]}")
    # The raw page: a header row, a units row, then one row per profiled kernel.
    text = run.stdout[run.stdout.find('"ID"'):]
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 3:
        sys.exit(f"ncu profiled no launch of {kernel}:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    header, units, values = rows[0], rows[1], rows[2]
    result = {}
    for key, metric in METRICS.items():
        i = header.index(metric)
        value = float(values[i].replace(",", ""))
        result[key] = value * UNIT_SCALE.get(units[i], 1)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--xpose", default="build/tools/xpose/xpose")
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--cols", type=int, default=8192)
    parser.add_argument("--dtype", default="f32")
    parser.add_argument("--kernels", default=",".join(k for k in KERNEL_FUNCTIONS if k not in
                                                       ("interleave", "deinterleave")))
    args = parser.parse_args()

    print(f"Nsight Compute, {args.rows} x {args.cols} {args.dtype}, one launch per kernel after warm-up; "
          f"shared-memory conflicts are extra wavefronts")
    print(f"{'kernel':<24}{'time us':>10}{'DRAM rd MB':>12}{'DRAM wr MB':>12}{'ld sect/req':>12}"
          f"{'st sect/req':>12}{'shm ld confl':>14}{'shm st confl':>14}")
    for kernel in args.kernels.split(","):
        if kernel not in KERNEL_FUNCTIONS:
            sys.exit(f"unknown kernel '{kernel}' (known: {', '.join(KERNEL_FUNCTIONS)})")
        m = profile(args, kernel)
        per_request = lambda s, r: s / r if r else 0.0
        print(f"{kernel:<24}{m['time_us']:>10.1f}{m['dram_read'] / 1e6:>12.1f}{m['dram_write'] / 1e6:>12.1f}"
              f"{per_request(m['ld_sectors'], m['ld_requests']):>12.2f}"
              f"{per_request(m['st_sectors'], m['st_requests']):>12.2f}"
              f"{m['shared_ld_conflicts']:>14.0f}{m['shared_st_conflicts']:>14.0f}", flush=True)


if __name__ == "__main__":
    main()
