#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two kernels measured in the same processes, round by round: for each `xpose bench --format json`
report (one case, run with --rounds R), memcpy's median, each kernel's median and ratio to memcpy,
their difference, their means, and in how many rounds the first kernel's median was the lower.
This is how a difference smaller than one process's spread is told from noise (as for `auto`
against the seed tiled_padded_rows on 8192^2 f64, 200 runs in 20 rounds: docs/design/gpu-tuning-notes.md).

Usage: paired_rounds.py KERNEL_A KERNEL_B ROUNDS REPORT.json...
"""
import json
import statistics
import sys


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    first, second, rounds, reports = argv[1], argv[2], int(argv[3]), argv[4:]
    for path in reports:
        try:
            case = json.load(open(path))["cases"][0]
        except (OSError, ValueError, IndexError, KeyError) as error:
            print(f"{path}: no report ({error})")
            continue
        by_kernel = {r["kernel"]: r for r in case["results"]}
        a, b, memcpy = by_kernel.get(first), by_kernel.get(second), by_kernel.get("memcpy")
        if not a or not b or not a.get("samples_us") or not b.get("samples_us"):
            print(f"{path}: {first} or {second} has no runs")
            continue
        per = len(a["samples_us"]) // rounds

        def round_median(result, r):
            return statistics.median(result["samples_us"][r * per:(r + 1) * per])

        ahead = sum(round_median(a, r) < round_median(b, r) for r in range(rounds))
        base = memcpy["median_us"] if memcpy and memcpy.get("median_us") else None

        def cell(result):
            ratio = f" {100 * base / result['median_us']:.2f}%" if base else ""
            return f"{result['median_us']:.2f}{ratio} ({result['status']})"

        head = f"memcpy {base:.2f}  " if base else ""
        print(f"{path.split('/')[-1]}: {head}{first} {cell(a)}  {second} {cell(b)}"
              f"  difference {a['median_us'] - b['median_us']:+.2f} us ({100 * (a['median_us'] / b['median_us'] - 1):+.3f}%),"
              f" means {statistics.mean(a['samples_us']):.2f} / {statistics.mean(b['samples_us']):.2f},"
              f" {first} ahead in {ahead} of {rounds} rounds")


if __name__ == "__main__":
    main(sys.argv)
