#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compares two `xpose bench --format json` reports case by case (docs/benchmarking.md):

    tools/compare_reports.py before.json after.json              # auto against auto
    tools/compare_reports.py run.json run.json --kernels tiled,packed   # two variants of one run

Cases are matched by their label (a repeated label by its order among equals); each side's figure is
the variant's % of the same report's memcpy, so two builds, two machines or two variants compare
as ratios, never as raw times. Prints the cases whose figure moved by at least --min-delta points
(all by default), largest move first, then for each class and for all matched cases: how many,
how many each side ran below --below, each side's min / p10 / median (nearest rank, as `xpose
bench` summarises a draw), and the median and range of the moves. Cases that only one side has, or
whose variant did not pass on a side, are counted and left out. Exits 0, or 2 when a file is not a
report or no case matches.
"""
import argparse
import json
import math
import sys


def percentile(values, fraction):
    """Nearest rank, as tools/xpose/random_cases.cpp: the ceil(fraction * n)-th smallest."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def load(path):
    try:
        with open(path, encoding="utf-8") as file:
            report = json.load(file)
    except (OSError, ValueError) as error:
        raise SystemExit(f"compare_reports: {path}: {error}") from None
    if not isinstance(report, dict) or not isinstance(report.get("cases"), list):
        raise SystemExit(f"compare_reports: {path}: not an xpose bench report (no 'cases' list)")
    return report


def figures(report, kernel):
    """{(label, n): (class, % of memcpy or None, chosen kernel)} for one variant of a report."""
    seen, table = {}, {}
    for case in report["cases"]:
        label = case.get("label", "?")
        n = seen.get(label, 0)
        seen[label] = n + 1
        result = next((r for r in case.get("results", []) if r.get("kernel") == kernel), None)
        passed = result is not None and result.get("status") == "passed" and result.get("pct_memcpy") is not None
        chosen = (result or {}).get("chosen_kernel") or kernel
        table[(label, n)] = (case.get("class") or case.get("kind") or "-", result["pct_memcpy"] if passed else None,
                             chosen)
    return table


def summary(values, below):
    if not values:
        return "-"
    return (f"{sum(v < below for v in values):3d} below, "
            f"{min(values):5.1f} / {percentile(values, 0.1):5.1f} / {percentile(values, 0.5):5.1f}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--kernels", default="auto",
                        help="the variant compared, or BEFORE,AFTER: one variant from each report (default auto)")
    parser.add_argument("--min-delta", type=float, default=0.0, help="list only cases that moved by this many points")
    parser.add_argument("--below", type=float, default=85.0, help="the threshold counted per class (default 85)")
    args = parser.parse_args(argv)
    names = args.kernels.split(",")
    if len(names) not in (1, 2) or not all(names):
        parser.error("--kernels takes one variant or two separated by a comma")
    kernel_before, kernel_after = names[0], names[-1]

    before = figures(load(args.before), kernel_before)
    after = figures(load(args.after), kernel_after)
    matched = [key for key in before if key in after]
    only = len(before) + len(after) - 2 * len(matched)
    rows = [(key, before[key], after[key]) for key in matched
            if before[key][1] is not None and after[key][1] is not None]
    if not rows:
        print(f"compare_reports: no case has a passed '{kernel_before}' in {args.before} and a passed "
              f"'{kernel_after}' in {args.after}", file=sys.stderr)
        return 2

    print(f"before: {args.before} ({kernel_before});  after: {args.after} ({kernel_after});  % of each report's memcpy")
    listed = sorted((r for r in rows if abs(r[2][1] - r[1][1]) >= args.min_delta),
                    key=lambda r: -abs(r[2][1] - r[1][1]))
    if listed:
        print(f"\n{'case':64s} {'class':13s} {'before':>18s} {'after':>18s} {'move':>6s}")
    for (label, _), (cls, old, old_kernel), (_, new, new_kernel) in listed:
        print(f"{label[:64]:64s} {cls[:13]:13s} {old_kernel[:11]:>11s} {old:5.1f} {new_kernel[:11]:>11s} {new:5.1f} "
              f"{new - old:+6.1f}")

    print(f"\n{'class':13s} {'cases':>5s}  {'before: <' + format(args.below, 'g') + ', min / p10 / median':38s} "
          f"{'after':38s} moves: median [min, max]")
    classes = sorted({r[1][0] for r in rows}) + ["all"]
    for cls in classes:
        group = [r for r in rows if cls in ("all", r[1][0])]
        moves = [r[2][1] - r[1][1] for r in group]
        print(f"{cls[:13]:13s} {len(group):5d}  {summary([r[1][1] for r in group], args.below):38s} "
              f"{summary([r[2][1] for r in group], args.below):38s} {percentile(moves, 0.5):+5.1f} "
              f"[{min(moves):+.1f}, {max(moves):+.1f}]")
    left_out = len(matched) - len(rows)
    if only or left_out:
        print(f"\nleft out: {only} case(s) in one report only, {left_out} without a passed variant on a side")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
