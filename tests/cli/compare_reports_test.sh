#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/compare_reports.py on synthetic reports: cases matched by label (a repeated label by its
# order), the moves listed largest first, per-class summaries, cases left out, two variants of one
# report, and the files it refuses. No GPU needed.
# Usage: compare_reports_test.sh PATH/TO/SOURCE_DIR
set -u
source_dir="${1:?usage: $0 PATH/TO/SOURCE_DIR}"
tool="$source_dir/tools/compare_reports.py"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/xpose-compare-reports-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
failures=0

source "$(dirname "${BASH_SOURCE[0]}")/check_output.sh"

# expect NAME STATUS ARGS... -- TEXT...: the tool exits with STATUS and prints every TEXT (fixed strings).
expect() {
  local name="$1" want="$2"
  shift 2
  local args=()
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  local status=0
  python3 "$tool" "${args[@]}" >"$scratch/out" 2>&1 || status=$?
  check_output "$name" "$want" "$status" "$scratch/out" "$@"
}

python3 - "$scratch" <<'PY'
import json, sys
def case(label, cls, **pct):
    results = [{"kernel": "memcpy", "chosen_kernel": "memcpy", "status": "passed", "pct_memcpy": 100.0}]
    for kernel, value in pct.items():
        status = "failed" if value is None else "passed"
        results.append({"kernel": kernel, "chosen_kernel": "tile" if kernel == "auto" else kernel,
                        "status": status, "pct_memcpy": value})
    return {"label": label, "class": cls, "results": results}
before = {"cases": [case("64x32 f32", "large2d", auto=90.0, tiled=50.0),
                    case("dims 2 3 4 | perm 2 1 0 u8", "permute", auto=40.0, tiled=40.0),
                    case("dims 2 3 4 | perm 2 1 0 u8", "permute", auto=60.0, tiled=61.0),
                    case("only before", "permute", auto=10.0),
                    case("failed after", "permute", auto=70.0)]}
after = {"cases": [case("64x32 f32", "large2d", auto=91.0),
                   case("dims 2 3 4 | perm 2 1 0 u8", "permute", auto=55.0),
                   case("dims 2 3 4 | perm 2 1 0 u8", "permute", auto=58.0),
                   case("only after", "permute", auto=99.0),
                   case("failed after", "permute", auto=None)]}
for name, report in (("before", before), ("after", after), ("empty", {"cases": []})):
    json.dump(report, open(f"{sys.argv[1]}/{name}.json", "w"))
open(f"{sys.argv[1]}/not_json.json", "w").write("{not json")
json.dump({"rows": []}, open(f"{sys.argv[1]}/no_cases.json", "w"))
PY

expect moves_largest_first 0 "$scratch/before.json" "$scratch/after.json" -- \
  "dims 2 3 4 | perm 2 1 0 u8" "40.0" "55.0" "+15.0" "-2.0" "+1.0" \
  "permute           2    2 below,  40.0 /  40.0 /  40.0" \
  "all               3    2 below,  40.0 /  40.0 /  60.0" \
  "left out: 2 case(s) in one report only, 1 without a passed variant on a side"
# The largest move is listed first.
python3 "$tool" "$scratch/before.json" "$scratch/after.json" | grep -m1 -E '^[^ ].*[+-][0-9]+\.[0-9]$' | grep -qF -- "+15.0" \
  && echo "ok   largest_move_first" || { failures=$((failures + 1)); echo "FAIL largest_move_first"; }
expect min_delta_filters 0 "$scratch/before.json" "$scratch/after.json" --min-delta 5 -- "+15.0"
python3 "$tool" "$scratch/before.json" "$scratch/after.json" --min-delta 5 | grep -qE -- "-2\.0$" \
  && { failures=$((failures + 1)); echo "FAIL min_delta_hides_small_moves"; } || echo "ok   min_delta_hides_small_moves"
expect two_variants_of_one_report 0 "$scratch/before.json" "$scratch/before.json" --kernels tiled,auto -- \
  "(tiled)" "(auto)" "+40.0" "+0.0" "-1.0"
expect below_threshold 0 "$scratch/before.json" "$scratch/after.json" --below 50 -- \
  "all               3    1 below"
expect no_match 2 "$scratch/before.json" "$scratch/empty.json" -- "no case has a passed 'auto'"
expect not_json 1 "$scratch/not_json.json" "$scratch/after.json" -- "not_json.json"
expect not_a_report 1 "$scratch/no_cases.json" "$scratch/after.json" -- "not an xpose bench report"
expect missing_file 1 "$scratch/missing.json" "$scratch/after.json" -- "missing.json"
expect bad_kernels 2 "$scratch/before.json" "$scratch/after.json" --kernels a,b,c -- "--kernels takes one variant or two"

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
