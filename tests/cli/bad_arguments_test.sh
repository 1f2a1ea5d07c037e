#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `xpose bench` with malformed arguments: each must exit with status 2, print exactly one line on
# stderr that starts with "xpose: error: " and names the bad value, print nothing on stdout, and
# finish within 10 s (no hang, no crash). `--device cuda` is one of them where no GPU is visible (skipped where one is). One tiny
# CPU run checks that a good command still passes. No GPU needed.
# Usage: bad_arguments_test.sh PATH/TO/xpose
set -u

xpose="${1:?usage: $0 PATH/TO/xpose}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/xpose-cli-test-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

failures=0
cases=0

# expect_usage_error NAME TEXT ARGS...: exit 2, one stderr line containing TEXT, empty stdout.
expect_usage_error() {
  local name="$1" text="$2"
  shift 2
  cases=$((cases + 1))
  local status=0
  timeout 10 "$xpose" "$@" >"$scratch/stdout" 2>"$scratch/stderr" </dev/null || status=$?
  local problems=()
  [ "$status" -eq 124 ] && problems+=("timed out after 10 s")
  [ "$status" -ne 2 ] && [ "$status" -ne 124 ] && problems+=("exit status $status, expected 2")
  local lines
  lines="$(wc -l <"$scratch/stderr")"
  [ "$lines" -ne 1 ] && problems+=("$lines lines on stderr, expected 1")
  grep -qF -- "$text" "$scratch/stderr" || problems+=("stderr does not contain '$text'")
  # One prefix for every error, whichever layer reports it.
  grep -q '^xpose: error: ' "$scratch/stderr" || problems+=("stderr does not start with 'xpose: error: '")
  [ -s "$scratch/stdout" ] && problems+=("stdout is not empty")
  if [ "${#problems[@]}" -gt 0 ]; then
    failures=$((failures + 1))
    echo "FAIL $name: xpose $*"
    for problem in "${problems[@]}"; do echo "  - $problem"; done
    echo "  stderr:"; sed 's/^/    | /' "$scratch/stderr"
    echo "  stdout:"; head -5 "$scratch/stdout" | sed 's/^/    | /'
  else
    echo "ok   $name: $(cat "$scratch/stderr")"
  fi
}

# A tiny valid run on the CPU, so the cases below differ from it only in the bad argument.
good=(bench --device cpu --no-progress)

expect_usage_error unknown_dtype "f33" "${good[@]}" --rows 8 --dtype f33
expect_usage_error unknown_dtype_in_list "f33" "${good[@]}" --rows 8 --dtype f32,f33
expect_usage_error unknown_kernel "nosuchkernel" "${good[@]}" --rows 8 --kernels blocked,nosuchkernel
expect_usage_error unknown_device "gpu0" bench --device gpu0 --rows 8
expect_usage_error negative_rows "-5" "${good[@]}" --rows=-5
expect_usage_error negative_cols "-7" "${good[@]}" --rows 8 --cols=-7
expect_usage_error non_numeric_rows "abc" "${good[@]}" --rows abc
expect_usage_error non_numeric_cols "12x" "${good[@]}" --rows 8 --cols 12x
expect_usage_error zero_rows "'0'" "${good[@]}" --rows 0
expect_usage_error empty_rows "--rows" "${good[@]}" --rows ""
expect_usage_error overflowing_rows "99999999999999999999" "${good[@]}" --rows 99999999999999999999
expect_usage_error overflowing_shape "overflows 64-bit" "${good[@]}" --rows 999999999999999999
expect_usage_error zero_batch "--batch" "${good[@]}" --rows 8 --batch 0
expect_usage_error negative_pad_in "-1" "${good[@]}" --rows 8 --pad-in=-1
expect_usage_error zero_reps "--reps" "${good[@]}" --rows 8 --reps 0
expect_usage_error negative_reps "-3" "${good[@]}" --rows 8 --reps=-3
expect_usage_error non_numeric_reps "many" "${good[@]}" --rows 8 --reps many
expect_usage_error zero_rounds "--rounds" "${good[@]}" --rows 8 --rounds 0
expect_usage_error non_numeric_rounds "often" "${good[@]}" --rows 8 --rounds often
expect_usage_error negative_warmup "-1" "${good[@]}" --rows 8 --warmup=-1
expect_usage_error negative_threads "-2" "${good[@]}" --rows 8 --threads=-2
expect_usage_error non_numeric_seed "abc" "${good[@]}" --rows 8 --seed abc
expect_usage_error missing_suite_file "no such file: '$scratch/missing.txt'" "${good[@]}" --suite "$scratch/missing.txt"
expect_usage_error missing_suite_name "no such file or suite: 'nosuchsuite'" "${good[@]}" --suite nosuchsuite
expect_usage_error suite_is_a_folder "'$scratch' is a folder" "${good[@]}" --suite "$scratch"
expect_usage_error suite_dev_null_is_empty "/dev/null: the file is empty (no cases)" "${good[@]}" --suite /dev/null
: >"$scratch/zero_bytes.txt"
expect_usage_error suite_file_is_empty "zero_bytes.txt: the file is empty" "${good[@]}" --suite "$scratch/zero_bytes.txt"
printf '8 8 f32\n' >"$scratch/unreadable.txt"
chmod 000 "$scratch/unreadable.txt"
if [ -r "$scratch/unreadable.txt" ]; then
  echo "skip suite_unreadable: a mode-000 file is readable here (running as root)"
else
  expect_usage_error suite_unreadable "cannot read '$scratch/unreadable.txt'" "${good[@]}" --suite "$scratch/unreadable.txt"
fi

# Empty values and empty list items are errors, never a silent default.
expect_usage_error empty_dims_and_perm "the value is empty" "${good[@]}" --dims "" --perm ""
expect_usage_error empty_dims "--dims: the value is empty" "${good[@]}" --dims "" --perm "1 0"
expect_usage_error blank_perm "--perm: the value is empty" "${good[@]}" --dims "4 5" --perm "  "
expect_usage_error empty_suite "--suite: the value is empty" "${good[@]}" --suite ""
expect_usage_error empty_device "--device: the value is empty" bench --device "" --rows 8 --no-progress
expect_usage_error empty_output "--output: the value is empty" "${good[@]}" --rows 8 --output ""
expect_usage_error empty_plot "--plot: the value is empty" "${good[@]}" --rows 8 --plot ""
expect_usage_error empty_kernels "--kernels: the value is empty" "${good[@]}" --rows 8 --kernels ""
expect_usage_error empty_rows_item "--rows: '64,,128' has an empty item (item 2)" "${good[@]}" --rows 64,,128
expect_usage_error trailing_comma_cols "--cols: '8,' has an empty item (item 2)" "${good[@]}" --rows 8 --cols 8,
expect_usage_error empty_dtype_item "--dtype: ',f32' has an empty item (item 1)" "${good[@]}" --rows 8 --dtype ,f32
expect_usage_error empty_kernels_item "--kernels: 'blocked,,reference' has an empty item" "${good[@]}" --rows 8 --kernels blocked,,reference

# --seed is an unsigned 64-bit integer: no sign, no wrap-around.
expect_usage_error negative_seed "--seed: '-1' is not an integer from 0 to 18446744073709551615" "${good[@]}" --rows 8 --seed=-1
expect_usage_error negative_seed_separate "'-1' is not an integer from 0" "${good[@]}" --rows 8 --seed -1
expect_usage_error overflowing_seed "'18446744073709551616' is not an integer" "${good[@]}" --rows 8 --seed 18446744073709551616
expect_usage_error plus_signed_seed "'+5' is not an integer" "${good[@]}" --rows 8 --seed +5

printf '# comment\n8 8 f32\n16 16 f33\n' >"$scratch/bad_dtype.txt"
expect_usage_error suite_bad_dtype "bad_dtype.txt:3" "${good[@]}" --suite "$scratch/bad_dtype.txt"
expect_usage_error suite_bad_dtype_names_it "f33" "${good[@]}" --suite "$scratch/bad_dtype.txt"
printf '8 8\n' >"$scratch/too_few.txt"
expect_usage_error suite_too_few_fields "too_few.txt:1" "${good[@]}" --suite "$scratch/too_few.txt"
printf '8 8 f32 2 9\n' >"$scratch/too_many.txt"
expect_usage_error suite_too_many_fields "too_many.txt:1" "${good[@]}" --suite "$scratch/too_many.txt"
printf '8 8 f32 pad_in\n' >"$scratch/pad_without_count.txt"
expect_usage_error suite_pad_without_count "pad_in needs a count" "${good[@]}" --suite "$scratch/pad_without_count.txt"
printf '8 8 f32 2 pad_out -1\n' >"$scratch/negative_pad.txt"
expect_usage_error suite_negative_pad "pad_out '-1'" "${good[@]}" --suite "$scratch/negative_pad.txt"
printf '8 8 f32 pad_in 1 pad_in 2\n' >"$scratch/pad_twice.txt"
expect_usage_error suite_pad_twice "pad_in is given twice" "${good[@]}" --suite "$scratch/pad_twice.txt"
printf '8 8 f32 pad 3\n' >"$scratch/unknown_key.txt"
expect_usage_error suite_unknown_key "'pad'" "${good[@]}" --suite "$scratch/unknown_key.txt"
printf '8 abc f32\n' >"$scratch/non_numeric.txt"
expect_usage_error suite_non_numeric "'abc'" "${good[@]}" --suite "$scratch/non_numeric.txt"
printf -- '-8 8 f32\n' >"$scratch/negative.txt"
expect_usage_error suite_negative "'-8'" "${good[@]}" --suite "$scratch/negative.txt"
printf 'dims 4 5 6 | perm 0 0 1\n' >"$scratch/repeated_perm.txt"
expect_usage_error suite_perm_not_a_permutation "repeated_perm.txt:1" "${good[@]}" --suite "$scratch/repeated_perm.txt"
printf 'dims 4 5 | perm 0 2\n' >"$scratch/perm_out_of_range.txt"
expect_usage_error suite_perm_out_of_range "perm entry 2" "${good[@]}" --suite "$scratch/perm_out_of_range.txt"
printf 'dims 4 5 6 | perm 1 0\n' >"$scratch/perm_too_short.txt"
expect_usage_error suite_perm_too_short "perm_too_short.txt:1" "${good[@]}" --suite "$scratch/perm_too_short.txt"
printf 'dims 4 x | perm 1 0\n' >"$scratch/dims_non_numeric.txt"
expect_usage_error suite_dims_non_numeric "'x'" "${good[@]}" --suite "$scratch/dims_non_numeric.txt"
printf 'dims 4 5 perm 1 0\n' >"$scratch/no_bar.txt"
expect_usage_error suite_permute_line_without_bar "no_bar.txt:1" "${good[@]}" --suite "$scratch/no_bar.txt"
printf '# nothing but a comment\n\n' >"$scratch/empty.txt"
expect_usage_error suite_without_cases "no cases" "${good[@]}" --suite "$scratch/empty.txt"

expect_usage_error cols_without_rows "--cols" "${good[@]}" --cols 8
expect_usage_error dims_without_perm "--dims" "${good[@]}" --dims "4 5"
expect_usage_error perm_without_dims "--perm" "${good[@]}" --perm "1 0"
expect_usage_error perm_repeats_an_axis "perm" "${good[@]}" --dims "4 5 6" --perm "0 0 1"
expect_usage_error perm_out_of_range "2" "${good[@]}" --dims "4 5" --perm "0 2"
expect_usage_error perm_non_numeric "'b'" "${good[@]}" --dims "4 5" --perm "1 b"
expect_usage_error rows_and_suite "--suite" "${good[@]}" --rows 8 --suite seeds
expect_usage_error unknown_option "--frobnicate" "${good[@]}" --rows 8 --frobnicate
expect_usage_error unknown_command "'frobnicate'" frobnicate --rows 8
expect_usage_error no_command "subcommand"
expect_usage_error unknown_format "xml" "${good[@]}" --rows 8 --format xml
expect_usage_error output_not_writable "the folder '$scratch/no/such/dir' does not exist" "${good[@]}" --rows 8 --reps 1 --warmup 0 --output "$scratch/no/such/dir/out.json"
expect_usage_error output_is_a_folder "--output: '$scratch' is a folder" "${good[@]}" --rows 8 --output "$scratch"
expect_usage_error plot_folder_missing "--plot: the folder '$scratch/missing' does not exist" "${good[@]}" --rows 8 --plot "$scratch/missing/plot.png"
expect_usage_error plot_is_the_output "is also the --output file" "${good[@]}" --rows 8 --format json --output "$scratch/same.json" --plot "$scratch/same.json"

# --device cuda where no GPU can run it must be a usage error too. `xpose kernels` says whether the
# CUDA backend was built and how many GPUs are visible; where one is, the same command would run a
# benchmark, so the case is skipped there (and said so).
cuda_line="$(timeout 10 "$xpose" kernels 2>/dev/null | grep '^cuda' | head -1)"
case "$cuda_line" in
  "cuda: not built"*)
    expect_usage_error device_cuda_without_backend "no CUDA backend" bench --device cuda --rows 8 --no-progress ;;
  "cuda (0 devices visible):")
    expect_usage_error device_cuda_without_gpu "no CUDA device is visible" bench --device cuda --rows 8 --no-progress ;;
  "cuda ("[1-9]*" visible):")
    echo "skip device_cuda_without_gpu: a GPU is visible ($cuda_line)" ;;
  *)
    cases=$((cases + 1))
    failures=$((failures + 1))
    echo "FAIL device_cuda_without_gpu: cannot tell from 'xpose kernels' whether a GPU is visible: '$cuda_line'" ;;
esac
# A CUDA kernel named for a CPU run is not "unknown": the message says where it runs. A build
# without the CUDA backend cannot know CUDA names, and says so.
case "$cuda_line" in
  "cuda: not built"*)
    expect_usage_error cuda_kernel_without_backend "CUDA kernels are not known to this build" \
      "${good[@]}" --rows 8 --kernels tiled_padded ;;
  *)
    expect_usage_error cuda_kernel_on_cpu "'tiled_padded' exists only on CUDA, and this run is on the CPU (--device cpu" \
      "${good[@]}" --rows 8 --kernels tiled_padded
    expect_usage_error cuda_permute_kernel_on_cpu "exists only on CUDA" "${good[@]}" --dims "4 5 6" --perm "2 1 0" --kernels naive ;;
esac

# The distributed bench (--gpus N): its own arguments are checked before any GPU is counted, so
# these hold on every machine, with or without NCCL in the build.
dist=(bench --no-progress)
expect_usage_error gpus_one "--gpus: '1'" "${dist[@]}" --gpus 1
expect_usage_error gpus_non_numeric "'x'" "${dist[@]}" --gpus x
expect_usage_error gpus_zero "'0'" "${dist[@]}" --gpus 0
expect_usage_error split_without_gpus "--split" "${dist[@]}" --rows 8 --split even
expect_usage_error step_bytes_without_gpus "--step-bytes" "${dist[@]}" --rows 8 --step-bytes 1M
expect_usage_error nccl_buffers_without_gpus "--nccl-buffers" "${dist[@]}" --rows 8 --nccl-buffers plain
expect_usage_error gpus_bad_nccl_buffers "pinned" "${dist[@]}" --gpus 2 --rows 8 --nccl-buffers pinned
expect_usage_error exchange_without_gpus "--exchange" "${dist[@]}" --rows 8 --exchange copy-engine
expect_usage_error gpus_bad_exchange "teleport" "${dist[@]}" --gpus 2 --rows 8 --exchange teleport
printf '8 8 f32 diagonal\n' >"$scratch/dist_bad_split.txt"
# The next ones need a build with NCCL to reach their check (without it, --gpus 2 is refused first).
if "$xpose" bench --gpus 2 --split odd 2>&1 | grep -q "no multi-GPU support"; then
  echo "skip dist argument checks past --gpus: this build has no NCCL"
else
  expect_usage_error gpus_unknown_split "'odd'" "${dist[@]}" --gpus 2 --rows 8 --split odd
  expect_usage_error gpus_unknown_variant "nosuchvariant" "${dist[@]}" --gpus 2 --rows 8 --kernels dist,nosuchvariant
  expect_usage_error gpus_bad_step_bytes "'12Q'" "${dist[@]}" --gpus 2 --rows 8 --step-bytes 12Q
  expect_usage_error gpus_with_device "--device" "${dist[@]}" --gpus 2 --rows 8 --device cuda
  expect_usage_error gpus_with_rounds "--rounds" "${dist[@]}" --gpus 2 --rows 8 --rounds 2
  expect_usage_error gpus_suite_bad_split "dist_bad_split.txt:1" "${dist[@]}" --gpus 2 --suite "$scratch/dist_bad_split.txt"
  expect_usage_error gpus_bad_rows "'abc'" "${dist[@]}" --gpus 2 --rows abc
fi
# --gpus 2 where fewer than 2 GPUs are visible: refused, naming the value. Skipped where 2 are
# (`xpose kernels` prints "cuda (N devices visible):"; the run would be real there, and tiny).
visible_gpus="$(timeout 10 "$xpose" kernels 2>/dev/null | sed -n 's/^cuda (\([0-9][0-9]*\) devices* visible):.*/\1/p' | head -1)"
if [ "${visible_gpus:-0}" -ge 2 ]; then
  echo "skip gpus_more_than_visible: $visible_gpus GPUs are visible"
else
  expect_usage_error gpus_more_than_visible "--gpus 2" "${dist[@]}" --gpus 2 --rows 8 --reps 1 --warmup 0
fi

# A case too large for host memory (8 TB): exit 1 (a run error, not a usage error), and the table
# says once what was needed and what is available instead of crashing; its variants are "not run"
# (nothing was verified, so nothing FAILED). The bench compares with
# /proc/meminfo's MemAvailable before allocating; without that file it cannot tell in advance.
if [ ! -r /proc/meminfo ]; then
  echo "skip too_large_for_memory: no /proc/meminfo"
else
  cases=$((cases + 1))
  status=0
  timeout 20 "$xpose" bench --device cpu --rows 2000000 --cols 2000000 --dtype u8 --reps 1 --warmup 0 \
    --kernels blocked --no-progress >"$scratch/stdout" 2>"$scratch/stderr" </dev/null || status=$?
  if [ "$status" -eq 1 ] && [ "$(grep -c "needed, .* available" "$scratch/stdout")" -eq 1 ] &&
     grep -q "^  not run: cannot allocate host memory" "$scratch/stdout" &&
     grep -q "^  blocked .* not run$" "$scratch/stdout" && ! grep -q "FAILED" "$scratch/stdout" &&
     grep -q "^Summary: 0 passed, 0 failed, 0 n/a, 0 errors; 1 of 1 case not run$" "$scratch/stdout" &&
     grep -q "^Verification: not run (no case could run" "$scratch/stdout"; then
    echo "ok   too_large_for_memory"
  else
    failures=$((failures + 1))
    echo "FAIL too_large_for_memory: exit status $status"
    sed 's/^/    | /' "$scratch/stdout" "$scratch/stderr"
  fi
fi

# A good command: exit 0 and a verified table.
cases=$((cases + 1))
status=0
timeout 10 "$xpose" bench --device cpu --rows 33 --cols 17 --dtype u8 --reps 2 --warmup 1 \
  --kernels blocked --no-progress >"$scratch/stdout" 2>"$scratch/stderr" </dev/null || status=$?
if [ "$status" -eq 0 ] && grep -q "Verification: PASSED" "$scratch/stdout"; then
  echo "ok   tiny_cpu_bench_passes"
else
  failures=$((failures + 1))
  echo "FAIL tiny_cpu_bench_passes: exit status $status"
  sed 's/^/    | /' "$scratch/stdout" "$scratch/stderr"
fi

# Timing rounds: the settings and the table say how many, every variant has all its runs, and
# more rounds than runs are cut to the runs.
cases=$((cases + 1))
status=0
timeout 10 "$xpose" bench --device cpu --rows 33 --cols 17 --dtype u8 --reps 5 --warmup 1 --rounds 9 \
  --kernels blocked,reference --no-progress --format json --output "$scratch/rounds.json" \
  >"$scratch/stdout" 2>"$scratch/stderr" </dev/null || status=$?
if [ "$status" -eq 0 ] && grep -q "Verification: PASSED" "$scratch/stdout" &&
   grep -q '"rounds": 5,' "$scratch/rounds.json" && [ "$(grep -c '"runs": 5,' "$scratch/rounds.json")" -eq 3 ] &&
   grep -q "5 timed runs in 5 rounds alternating between the variants" "$scratch/stdout"; then
  echo "ok   rounds_in_settings_and_runs"
else
  failures=$((failures + 1))
  echo "FAIL rounds_in_settings_and_runs: exit status $status"
  sed 's/^/    | /' "$scratch/stdout" "$scratch/stderr" "$scratch/rounds.json"
fi

# CSV carries the rounds and each variant's launch gate (false on the CPU) before the note.
cases=$((cases + 1))
status=0
timeout 10 "$xpose" bench --device cpu --rows 33 --cols 17 --dtype u8 --reps 5 --warmup 1 --rounds 9 \
  --kernels blocked,reference --no-progress --format csv --output "$scratch/rounds.csv" \
  >"$scratch/stdout" 2>"$scratch/stderr" </dev/null || status=$?
if [ "$status" -eq 0 ] && head -1 "$scratch/rounds.csv" | grep -q ',cache_resident,rounds,launch_gate,note$' &&
   [ "$(grep -c ',5,false,$' "$scratch/rounds.csv")" -eq 3 ]; then
  echo "ok   rounds_and_launch_gate_in_csv"
else
  failures=$((failures + 1))
  echo "FAIL rounds_and_launch_gate_in_csv: exit status $status"
  sed 's/^/    | /' "$scratch/stdout" "$scratch/stderr" "$scratch/rounds.csv"
fi

# A suite of padded views: each line's own padding (an explicit 0 included), --pad-out for the
# lines without one, every case verified (padding left untouched) and labelled with its padding.
cases=$((cases + 1))
status=0
printf '33 17 u8 pad_in 3 pad_out 5\n17 33 f32 2 pad_out 1\n9 7 f16\n5 6 u8 pad_out 0\n' >"$scratch/padded.txt"
timeout 10 "$xpose" bench --device cpu --suite "$scratch/padded.txt" --pad-out 2 --reps 2 --warmup 1 \
  --kernels blocked --no-progress --format json --output "$scratch/padded.json" \
  >"$scratch/stdout" 2>"$scratch/stderr" </dev/null || status=$?
labels="$(grep -o '"label": "[^"]*"' "$scratch/padded.json" 2>/dev/null | tr '\n' ';')"
if [ "$status" -eq 0 ] && grep -q "Verification: PASSED" "$scratch/stdout" &&
   [ "$labels" = '"label": "33x17 u8 pad_in 3 pad_out 5";"label": "17x33 f32 batch 2 pad_out 1";"label": "9x7 f16 pad_out 2";"label": "5x6 u8";' ] &&
   grep -q '"ld_in": 20,' "$scratch/padded.json" && grep -q '"ld_out": 38,' "$scratch/padded.json"; then
  echo "ok   padded_suite_passes"
else
  failures=$((failures + 1))
  echo "FAIL padded_suite_passes: exit status $status, labels $labels"
  sed 's/^/    | /' "$scratch/stdout" "$scratch/stderr"
fi

echo "$((cases - failures)) of $cases cases behaved as required"
[ "$failures" -eq 0 ]
