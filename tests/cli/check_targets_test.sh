#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/check_targets.py on the committed H100 reference run of the 2D suite (every target met),
# on synthetic runs that break each target once, and on files it cannot check. No GPU needed.
# Usage: check_targets_test.sh PATH/TO/SOURCE_DIR
set -u
source_dir="${1:?usage: $0 PATH/TO/SOURCE_DIR}"
checker="$source_dir/tools/check_targets.py"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/xpose-check-targets-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
failures=0

source "$(dirname "${BASH_SOURCE[0]}")/check_output.sh"

# expect NAME STATUS FILE TEXT...: the checker exits with STATUS and prints every TEXT (fixed strings).
expect() {
  local name="$1" want="$2" file="$3"
  shift 3
  local status=0
  python3 "$checker" "$file" >"$scratch/out" 2>&1 || status=$?
  check_output "$name" "$want" "$status" "$scratch/out" "$@"
}

expect h100_reference_all_met 0 "$source_dir/bench/results/2026-11-24-nvidia-h100-shapes2d.json" \
  "19 of 19 cases meet every target" \
  "365.54 us   98.5% of memcpy  met" \
  "53.74 us   95.4% of memcpy  met"

# A synthetic run: a large square at 97.5%, an odd view at 95.5% beating cuBLAS and a seed, a small
# case within 1.15x of memcpy's time; then the same with each target broken once.
python3 - "$scratch" <<'PY'
import copy, json, sys
scratch = sys.argv[1]
def case(label, rows, cols, dtype, nbytes, times):
    results = [{"kernel": k, "median_us": t, "status": "passed", "chosen_kernel": "tile" if k == "auto" else None}
               for k, t in times.items()]
    return {"label": label, "kind": "transpose2d", "rows": rows, "cols": cols, "dtype": dtype, "bytes": nbytes,
            "results": results}
good = {"device": {"name": "synthetic"}, "git_commit": "test", "cases": [
    case("8192x8192 f32", 8192, 8192, "f32", 268435456, {"memcpy": 97.5, "auto": 100.0, "cublas_geam": 104.0}),
    case("8191x8193 u8", 8191, 8193, "u8", 67108863, {"memcpy": 95.5, "auto": 100.0, "tiled_padded_rows": 150.0}),
    case("1024x1024 f32", 1024, 1024, "f32", 4194304, {"memcpy": 7.0, "auto": 8.0}),
    {"label": "dims 2 3 | perm 1 0 f64", "kind": "permute", "results": []}]}
json.dump(good, open(scratch + "/good.json", "w"))
def broken(index, kernel, time, status="passed"):
    run = copy.deepcopy(good)
    for r in run["cases"][index]["results"]:
        if r["kernel"] == kernel:
            r["median_us"], r["status"] = time, status
    return run
json.dump(broken(0, "memcpy", 96.9), open(scratch + "/square_below_97.json", "w"))
json.dump(broken(0, "cublas_geam", 99.9), open(scratch + "/cublas_faster.json", "w"))
json.dump(broken(1, "tiled_padded_rows", 99.0), open(scratch + "/seed_faster.json", "w"))
json.dump(broken(2, "auto", 8.1), open(scratch + "/small_too_slow.json", "w"))
# A seed ahead by its median with samples: auto's runs 100, 101, 102, 103 against the seed's 99,
# 101, 101.5, 104: auto's faster in 7 of 16 pairs and tied in one, counted half (46.9%).
seed_samples = broken(1, "tiled_padded_rows", 99.0)
for r in seed_samples["cases"][1]["results"]:
    r["samples_us"] = {"auto": [100.0, 101.0, 102.0, 103.0], "tiled_padded_rows": [99.0, 101.0, 101.5, 104.0]}.get(r["kernel"])
json.dump(seed_samples, open(scratch + "/seed_faster_samples.json", "w"))
json.dump(broken(1, "tiled_padded_rows", 150.0, "failed"), open(scratch + "/failed_check.json", "w"))
json.dump({"cases": [case("8 8 f32", 8, 8, "f32", 256, {"auto": 1.0})]}, open(scratch + "/no_memcpy.json", "w"))
PY
expect all_met 0 "$scratch/good.json" "3 of 3 cases meet every target" "1024x1024 f32"
expect square_below_97 1 "$scratch/square_below_97.json" "96.9% of memcpy (target >= 97)" "2 of 3"
expect cublas_faster 1 "$scratch/cublas_faster.json" "cuBLAS 99.90 us <= auto's 100.00"
expect seed_faster 1 "$scratch/seed_faster.json" "seed tiled_padded_rows 99.00 us < auto's 100.00"
expect seed_faster_samples 1 "$scratch/seed_faster_samples.json" \
  "seed tiled_padded_rows 99.00 us < auto's 100.00 (1.01%; auto's run faster in 47% of run pairs)"
expect small_too_slow 1 "$scratch/small_too_slow.json" "time 1.16x memcpy's (target <= 1.15x)"
expect failed_check 1 "$scratch/failed_check.json" "verification failed: tiled_padded_rows"
expect no_memcpy 2 "$scratch/no_memcpy.json" "nothing to check"

[ "$failures" -eq 0 ] && echo "every case behaved as required"
[ "$failures" -eq 0 ]
