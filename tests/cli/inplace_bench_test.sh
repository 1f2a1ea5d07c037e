#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `xpose bench --inplace` on the CPU: small square, rectangular (wide and tall), prime-sided,
# single-row and batched cases of every element size (1, 2, 4, 8, 16 bytes) must pass, their
# in-place result checked after an odd number of executes, in the table, CSV and JSON reports;
# a suite file works; options that do not apply, padded and permute suite lines are refused with
# exit status 2 and one stderr line that names them. No GPU needed.
# Usage: inplace_bench_test.sh PATH/TO/xpose
set -u

xpose="${1:?usage: $0 PATH/TO/xpose}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/xpose-inplace-test-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

failures=0
cases=0
inplace=(bench --inplace --device cpu --reps 2 --warmup 1 --no-progress)

pass() { echo "ok   $1"; }
fail() {
  failures=$((failures + 1))
  echo "FAIL $1"
  shift
  for file in "$@"; do [ -f "$file" ] && sed "s|^|    $(basename "$file") |" "$file"; done
}

# run NAME ARGS...: runs xpose, keeping stdout, stderr and the exit status.
run() {
  local name="$1"
  shift
  status=0
  timeout 120 "$xpose" "$@" >"$scratch/$name.stdout" 2>"$scratch/$name.stderr" </dev/null || status=$?
}

# Every shape kind and element size in one run: 16 shapes x 5 types. Each in_place row must read
# "passed (every element, after N executes)" with N odd (2 timed + 1 warm-up runs, then one more to
# leave the data transposed once), and each out_of_place row "passed (every element)".
cases=$((cases + 1))
run shapes "${inplace[@]}" --rows 64,31,48,1 --cols 64,37,80,7 --dtype u8,f16,f32,f64,c128
stdout="$scratch/shapes.stdout"
in_place_passed="$(grep -cE '^  in_place -> inplace_[a-z_]+ .* passed \(every element, after [0-9]*[13579] executes\)$' "$stdout")"
out_of_place_passed="$(grep -cE '^  out_of_place -> [a-z_]+ .* passed \(every element\)$' "$stdout")"
if [ "$status" -eq 0 ] && grep -q '^Verification: PASSED$' "$stdout" && [ "$in_place_passed" -eq 80 ] &&
   [ "$out_of_place_passed" -eq 80 ] && grep -q '^Summary: 160 passed, 0 failed, 0 skipped, 0 errors$' "$stdout" &&
   grep -q '^\[1/80\] In place 64 x 64 u8, batch 1: .* method inplace_square' "$stdout" &&
   grep -q '^\[.*\] In place 31 x 37 c128, batch 1: .* method inplace_square_part' "$stdout" &&
   grep -q '^\[.*\] In place 64 x 37 f16, batch 1: .* method inplace_square_part' "$stdout" &&
   grep -q '^\[.*\] In place 1 x 7 f64, batch 1: .* method inplace_none' "$stdout" &&
   grep -q 'nothing to move: a single row or column is its own transpose (not timed)' "$stdout" &&
   [ ! -s "$scratch/shapes.stderr" ]; then
  pass "every_shape_and_element_size_passes (80 cases)"
else
  fail "every_shape_and_element_size_passes: exit status $status, $in_place_passed in-place and $out_of_place_passed out-of-place checks passed of 80" \
    "$stdout" "$scratch/shapes.stderr"
fi

# Batches, as JSON on stdout: every check passed, executes odd, both directions timed, % of memcpy
# figured; the summary goes to stderr.
cases=$((cases + 1))
run batch bench --inplace --device cpu --reps 4 --warmup 1 --no-progress --rows 24 --cols 40 --batch 3 --dtype i8,u32 \
  --format json
json="$scratch/batch.stdout"
if [ "$status" -eq 0 ] && python3 - "$json" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["tool"] == "xpose bench --inplace" and run["verification"] == "PASSED", run["verification"]
assert len(run["cases"]) == 2
for case in run["cases"]:
    assert case["batch"] == 3 and case["rows"] == 24 and case["cols"] == 40, case["label"]
    assert case["method"] == "inplace_square_part" and case["check"] == "elements"
    assert case["executes"] % 2 == 1 and case["second_buffer"], case["executes"]
    variants = {v["variant"]: v for v in case["results"]}
    assert list(variants) == ["memcpy", "out_of_place", "in_place"]
    in_place = variants["in_place"]
    assert in_place["status"] == "passed" and in_place["checked"] and in_place["runs"] == 4
    assert in_place["median_forward_us"] is not None and in_place["median_back_us"] is not None
    assert in_place["samples_forward"].count(True) == 2 and in_place["pct_memcpy"] > 0
    assert variants["out_of_place"]["status"] == "passed" and variants["memcpy"]["pct_memcpy"] == 100.0
EOF
then
  if grep -q '^Verification: PASSED$' "$scratch/batch.stderr"; then
    pass batch_json_passes
  else
    fail "batch_json_passes: no verification line on stderr" "$scratch/batch.stderr"
  fi
else
  fail "batch_json_passes: exit status $status" "$json" "$scratch/batch.stderr"
fi

# A suite of 2D lines (a batch among them), CSV to --output with the table on stdout.
cases=$((cases + 1))
printf '# in-place cases\n16 16 u16\n10 6 f64 2\n7 13 c64  # prime sides\n' >"$scratch/suite.txt"
run suite "${inplace[@]}" --suite "$scratch/suite.txt" --format csv --output "$scratch/suite.csv"
if [ "$status" -eq 0 ] && grep -q '^Verification: PASSED$' "$scratch/suite.stdout" &&
   head -1 "$scratch/suite.csv" | grep -q '^device,device_name,case,rows,cols,dtype,batch,bytes,method,' &&
   [ "$(grep -c ',in_place,inplace_[a-z_]*,passed,' "$scratch/suite.csv")" -eq 3 ] &&
   [ "$(grep -c ',memcpy,memcpy,baseline,' "$scratch/suite.csv")" -eq 3 ] &&
   grep -q '^cpu,.*,10x6 f64 batch 2,10,6,f64,2,960,inplace_square_part,' "$scratch/suite.csv"; then
  pass suite_to_csv_passes
else
  fail "suite_to_csv_passes: exit status $status" "$scratch/suite.stdout" "$scratch/suite.stderr" "$scratch/suite.csv"
fi

# expect_usage_error NAME TEXT ARGS...: exit 2, one stderr line "xpose: error: ..." containing
# TEXT, nothing on stdout.
expect_usage_error() {
  local name="$1" text="$2"
  shift 2
  cases=$((cases + 1))
  run "$name" "$@"
  local problems=()
  [ "$status" -ne 2 ] && problems+=("exit status $status, expected 2")
  [ "$(wc -l <"$scratch/$name.stderr")" -ne 1 ] && problems+=("not one line on stderr")
  grep -q '^xpose: error: ' "$scratch/$name.stderr" || problems+=("stderr does not start with 'xpose: error: '")
  grep -qF -- "$text" "$scratch/$name.stderr" || problems+=("stderr does not contain '$text'")
  [ -s "$scratch/$name.stdout" ] && problems+=("stdout is not empty")
  if [ "${#problems[@]}" -gt 0 ]; then
    fail "$name: ${problems[*]}" "$scratch/$name.stderr" "$scratch/$name.stdout"
  else
    pass "$name: $(cat "$scratch/$name.stderr")"
  fi
}

expect_usage_error refuses_kernels "--kernels does not apply to --inplace" "${inplace[@]}" --rows 8 --kernels blocked
expect_usage_error refuses_padding "--pad-in does not apply to --inplace: an in-place transpose takes packed matrices only" \
  "${inplace[@]}" --rows 8 --pad-in 2
expect_usage_error refuses_permutations "--dims does not apply to --inplace" "${inplace[@]}" --dims "4 5" --perm "1 0"
expect_usage_error refuses_random_cases "--random does not apply to --inplace" "${inplace[@]}" --random 3
expect_usage_error refuses_seed "--seed does not apply to --inplace" "${inplace[@]}" --rows 8 --seed 1
expect_usage_error refuses_gpus "--gpus excludes --inplace" "${inplace[@]}" --rows 8 --gpus 2
printf '8 8 f32\n9 7 u8 pad_out 3\n' >"$scratch/padded.txt"
expect_usage_error refuses_padded_suite_line "padded.txt:2: 9x7 u8 pad_out 3: --inplace takes packed matrices only" \
  "${inplace[@]}" --suite "$scratch/padded.txt"
printf 'dims 4 5 6 | perm 2 0 1\n' >"$scratch/permute.txt"
expect_usage_error refuses_permute_suite_line "permute.txt:1: permute lines do not apply to --inplace" \
  "${inplace[@]}" --suite "$scratch/permute.txt"
expect_usage_error refuses_dtype_with_suite "--dtype needs --rows with --inplace" \
  "${inplace[@]}" --suite "$scratch/suite.txt" --dtype f32
expect_usage_error bad_dtype "f33" "${inplace[@]}" --rows 8 --dtype f33

echo "$((cases - failures)) of $cases cases behaved as required"
[ "$failures" -eq 0 ]
