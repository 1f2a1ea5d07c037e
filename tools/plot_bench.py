#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws an `xpose bench --format json` result: effective bandwidth (GB/s) per variant, grouped by
case, with the memcpy baseline of each case as a dashed line across its group.

    tools/plot_bench.py result.json -o result.png

Bars of variants whose verification FAILED are hatched and edged in red; variants that could not
run a case (n/a, error) have no bar. Needs matplotlib (e.g. /usr/bin/python3 on Debian with
python3-matplotlib).
"""
import argparse
import json
import math
import sys

BASELINE = "memcpy"
CASES_PER_PANEL = 8


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json_file", help="output of xpose bench --format json")
    parser.add_argument("-o", "--output", help="PNG to write (default: the JSON name with .png)")
    return parser.parse_args()


def timed_cases(run):
    """The 2D and permute cases with at least one timed variant, as (case, {kernel: result})."""
    cases = []
    for case in run.get("cases", []):
        if case.get("kind") not in ("transpose2d", "permute"):
            continue
        results = {r["kernel"]: r for r in case.get("results", []) if r.get("gbps") is not None}
        if results:
            cases.append((case, results))
    return cases


def variant_order(cases):
    """Every non-baseline variant, in the order the run listed them."""
    order = []
    for case, _ in cases:
        for result in case["results"]:
            name = result["kernel"]
            if name != BASELINE and name not in order:
                order.append(name)
    return order


def case_label(case):
    if case.get("kind") == "permute":
        dims = "x".join(str(d) for d in case["dims"])
        perm = " ".join(str(p) for p in case["perm"])
        label = f"{dims}\n[{perm}] {case['dtype']}"
    else:
        label = f"{case['rows']}x{case['cols']} {case['dtype']}"
        if case.get("batch", 1) != 1:
            label += f" x{case['batch']}"
    megabytes = case["bytes"] / 1e6
    label += f"\n{megabytes:.0f} MB" if megabytes >= 10 else f"\n{megabytes:.2g} MB"
    if case.get("cache_resident"):
        label += " (in cache)"
    return label


def title(run):
    device = run.get("device", {})
    text = f"xpose bench on {device.get('name', 'unknown device')} ({device.get('kind', '?')})"
    if device.get("kind") == "cuda":
        text += f", driver {device.get('driver_version')}, runtime {device.get('runtime_version')}"
    text += f"\ncommit {run.get('git_commit', 'unknown')}, {run.get('date_utc', '')}"
    text += f", verification {run.get('verification', '?')}"
    return text


def draw_panel(axes, cases, variants, colors):
    group_width = 0.8
    bar_width = group_width / max(len(variants), 1)
    for position, (case, results) in enumerate(cases):
        left = position - group_width / 2
        for index, name in enumerate(variants):
            result = results.get(name)
            if result is None:
                continue
            failed = result.get("status") == "FAILED"
            axes.bar(left + (index + 0.5) * bar_width, result["gbps"], bar_width,
                     color=colors[name], edgecolor="red" if failed else "none",
                     hatch="xx" if failed else None, linewidth=1.0 if failed else 0)
        baseline = results.get(BASELINE)
        if baseline is not None:
            axes.hlines(baseline["gbps"], left, left + group_width, colors="black",
                        linestyles="dashed", linewidth=1.5, zorder=3)
            axes.annotate(f"memcpy {baseline['gbps']:.3g}", (left, baseline["gbps"]),
                          xytext=(0, 2), textcoords="offset points", fontsize=7)
    axes.set_xticks(range(len(cases)))
    axes.set_xticklabels([case_label(case) for case, _ in cases], fontsize=8)
    axes.set_xlim(-0.6, len(cases) - 0.4)
    axes.set_ylabel("GB/s (2 x bytes / median time)")
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)


def main():
    arguments = parse_arguments()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
    except ImportError:
        sys.exit("plot_bench.py: matplotlib is not installed for " + sys.executable)

    with open(arguments.json_file) as file:
        run = json.load(file)
    cases = timed_cases(run)
    if not cases:
        sys.exit(f"plot_bench.py: {arguments.json_file} has no timed 2D case to draw")
    variants = variant_order(cases)
    palette = plt.get_cmap("tab20").colors
    colors = {name: palette[i % len(palette)] for i, name in enumerate(variants)}

    panels = [cases[i:i + CASES_PER_PANEL] for i in range(0, len(cases), CASES_PER_PANEL)]
    columns = min(len(cases), CASES_PER_PANEL)
    width = max(8.0, 1.0 + columns * (0.6 + 0.18 * len(variants)))
    figure, axes_list = plt.subplots(len(panels), 1, figsize=(width, 4.2 * len(panels) + 1.2),
                                     squeeze=False)
    for axes, panel in zip(axes_list[:, 0], panels):
        draw_panel(axes, panel, variants, colors)

    handles = [Patch(color=colors[name], label=name) for name in variants]
    handles.append(Line2D([0], [0], color="black", linestyle="dashed", label="memcpy (baseline)"))
    if any(r.get("status") == "FAILED" for _, results in cases for r in results.values()):
        handles.append(Patch(facecolor="white", edgecolor="red", hatch="xx", label="verification FAILED"))
    figure.legend(handles=handles, loc="lower center", ncol=min(len(handles), 6), fontsize=8,
                  frameon=False)
    figure.suptitle(title(run), fontsize=10)
    legend_rows = math.ceil(len(handles) / 6)
    figure.tight_layout(rect=(0, 0.04 + 0.03 * legend_rows, 1, 1))
    output = arguments.output or arguments.json_file.rsplit(".", 1)[0] + ".png"
    figure.savefig(output, dpi=110)
    print(f"plot_bench.py: wrote {output}", file=sys.stderr)


if __name__ == "__main__":
    main()
