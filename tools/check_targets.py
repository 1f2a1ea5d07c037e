#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks a GPU run of the 2D suite against the production targets (issue 4, docs/kernels.md):

    build/tools/xpose/xpose bench --suite shapes2d --format json --output run.json
    tools/check_targets.py run.json

For every 2D case, `auto`'s median against the same run's other variants:
  - memcpy: at least 95% of memcpy's bandwidth (large squares of f32 and f64, 8192^2 and up: 97%);
    small cases (under SMALL_BYTES, launch-bound: 1024^2 f32) instead a time within 1.15x memcpy's;
  - cuBLAS: faster than cublas_geam wherever it runs (f32, f64, c64, c128);
  - seeds: at least as fast as every transposing seed variant (SEED_KERNELS); a miss also says in
    what share of pairs of runs (one of each) auto's run was the faster, where the run has the
    samples: near 50%, the medians differ by less than the runs vary;
  - every variant of the case verified (none failed its check).
Prints one line per case and the misses; exits 0 when every target is met, 1 when one is missed,
2 when the file is not a run it can check (no auto, no memcpy).
"""
import argparse
import json
import sys

# The seeds' transposing variants (`xpose kernels`: the CUDA list's non-production transposes).
SEED_KERNELS = ("naive_read_contiguous", "naive_write_contiguous", "tiled", "tiled_padded",
                "tiled_padded_rows", "tiled_diagonal")
CUBLAS = "cublas_geam"
SMALL_BYTES = 16 * 1000 * 1000  # below this a case is launch-bound: the time target applies
MIN_PCT, MIN_PCT_LARGE_SQUARE, MAX_SMALL_TIME_RATIO = 95.0, 97.0, 1.15


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json_file", help="output of xpose bench --format json (a GPU run of shapes2d)")
    return parser.parse_args()


def median(results, kernel):
    result = results.get(kernel)
    return result["median_us"] if result and result.get("median_us") is not None else None


def share_faster(results, kernel, other):
    """The share of pairs (one run of each) in which `kernel`'s run was faster than `other`'s (ties
    count half): near 50% the two medians differ by less than the runs vary. None without samples."""
    a = (results.get(kernel) or {}).get("samples_us") or []
    b = (results.get(other) or {}).get("samples_us") or []
    if not a or not b:
        return None
    wins = sum(1.0 if x < y else 0.5 if x == y else 0.0 for x in a for y in b)
    return 100.0 * wins / (len(a) * len(b))


def check_case(case):
    """(description of auto's result, [missed targets]) for one 2D case; None where auto or memcpy did not run."""
    results = {r["kernel"]: r for r in case["results"]}
    auto, memcpy = median(results, "auto"), median(results, "memcpy")
    if auto is None or memcpy is None:
        return None
    misses = []
    pct = 100.0 * memcpy / auto
    if case["bytes"] < SMALL_BYTES:
        if auto > MAX_SMALL_TIME_RATIO * memcpy:
            misses.append("time %.2fx memcpy's (target <= %.2fx)" % (auto / memcpy, MAX_SMALL_TIME_RATIO))
    else:
        large_square = (case["rows"] == case["cols"] and case["rows"] >= 8192 and case["dtype"] in ("f32", "f64"))
        target = MIN_PCT_LARGE_SQUARE if large_square else MIN_PCT
        if pct < target:
            misses.append("%.1f%% of memcpy (target >= %.0f)" % (pct, target))
    cublas = median(results, CUBLAS)
    if cublas is not None and auto >= cublas:
        misses.append("cuBLAS %.2f us <= auto's %.2f" % (cublas, auto))
    for seed in SEED_KERNELS:
        time = median(results, seed)
        if time is not None and time < auto:
            miss = "seed %s %.2f us < auto's %.2f (%.2f%%" % (seed, time, auto, 100.0 * (auto - time) / time)
            share = share_faster(results, "auto", seed)
            if share is not None:
                miss += "; auto's run faster in %.0f%% of run pairs" % share
            misses.append(miss + ")")
    failed = [r["kernel"] for r in case["results"] if r.get("status") == "failed"]
    if failed:
        misses.append("verification failed: " + ", ".join(failed))
    chosen = results["auto"].get("chosen_kernel") or "?"
    return "auto -> %-12s %10.2f us %6.1f%% of memcpy" % (chosen, auto, pct), misses


def main():
    args = parse_arguments()
    with open(args.json_file) as f:
        run = json.load(f)
    device = run.get("device", {})
    print("%s, %s, commit %s" % (args.json_file, device.get("name", "?"), run.get("git_commit", "?")))
    checked, missed = 0, []
    for case in run.get("cases", []):
        if case.get("kind") != "transpose2d":
            continue
        outcome = check_case(case)
        if outcome is None:
            continue
        checked += 1
        line, misses = outcome
        print("%-28s %s  %s" % (case["label"], line, "MISSED: " + "; ".join(misses) if misses else "met"))
        missed.extend((case["label"], miss) for miss in misses)
    if checked == 0:
        print("no 2D case with both auto and memcpy timed: nothing to check", file=sys.stderr)
        return 2
    print("%d of %d cases meet every target" % (checked - len({label for label, _ in missed}), checked))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
