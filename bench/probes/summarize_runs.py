#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One line per case and label from `xpose bench --format json` reports: the named kernel's median
in each report, in us, with its ratio to memcpy's median in the same report, and whether every run
was verified.

Usage: summarize_runs.py KERNEL LABEL=REPORT.json... (reports of one label are its rounds, in order)
"""
import collections
import json
import sys


def main(argv):
    kernel, runs = argv[1], argv[2:]
    rows = collections.OrderedDict()  # (case, label) -> ["median (ratio)", ...]
    for run in runs:
        label, path = run.split("=", 1)
        try:
            report = json.load(open(path))
        except (OSError, ValueError) as error:
            print(f"{label}: no report ({error})")
            continue
        for case in report["cases"]:
            by_kernel = {r["kernel"]: r for r in case["results"]}
            result, memcpy = by_kernel.get(kernel), by_kernel.get("memcpy")
            if not result or result.get("median_us") is None:
                cell = "n/a"
            else:
                ratio = ""
                if memcpy and memcpy.get("median_us"):
                    ratio = f" ({100 * memcpy['median_us'] / result['median_us']:.1f}%)"
                flag = "" if result.get("status") == "passed" else f" {result.get('status')}"
                cell = f"{result['median_us']:.2f}{ratio}{flag}"
            rows.setdefault((case["label"], label), []).append(cell)
    width = max((len(case) for case, _ in rows), default=0)
    for (case, label), cells in rows.items():
        print(f"{case:{width}}  {label:22} " + "  ".join(cells))


if __name__ == "__main__":
    main(sys.argv)
