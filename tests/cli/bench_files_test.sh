#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `xpose bench` and the files it writes, and what it says on stderr during a run: --output appears
# whole or not at all (an interrupted run leaves no file, or the earlier one, and no temporary
# file); --plot reports a failing plot script in one line and a missing matplotlib before the run;
# a run that falls back to the CPU says so once; the largest --seed is kept as given. No GPU needed.
# Usage: bench_files_test.sh PATH/TO/xpose
set -u

xpose="${1:?usage: $0 PATH/TO/xpose}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/xpose-files-test-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

failures=0
cases=0
tiny=(bench --device cpu --rows 33 --cols 17 --dtype u8 --reps 2 --warmup 1 --kernels blocked --no-progress)

pass() { echo "ok   $1"; }
fail() {
  failures=$((failures + 1))
  echo "FAIL $1"
  shift
  for file in "$@"; do [ -f "$file" ] && sed "s|^|    $(basename "$file") |" "$file"; done
}
# The folder's files other than the ones named, e.g. temporary files left behind.
others() {
  local folder="$1"
  shift
  local names
  names="$(ls -A "$folder")"
  for keep in "$@"; do names="$(grep -vxF "$keep" <<<"$names")"; done
  echo "$names"
}

# A completed run writes its report (JSON) and leaves no temporary file.
cases=$((cases + 1))
mkdir "$scratch/done"
status=0
"$xpose" "${tiny[@]}" --format json --output "$scratch/done/run.json" >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
if [ "$status" -eq 0 ] && grep -q '"verification": "PASSED"' "$scratch/done/run.json" &&
   [ -z "$(others "$scratch/done" run.json)" ] && [ ! -s "$scratch/stderr" ]; then
  pass output_written_when_done
else
  fail "output_written_when_done: exit status $status, files: $(ls -A "$scratch/done" | tr '\n' ' ')" "$scratch/stderr"
fi

# A run that is interrupted leaves no report: the earlier file of that name stays as it was, a new
# name is not created, and no temporary file is left. Job control puts the background run in its
# own process group, where SIGINT is not ignored (as for a run in a terminal).
interrupt_run() {  # NAME SIGNAL EXPECTED_STATUS TARGET_EXISTS
  local name="$1" signal="$2" expected="$3" existing="$4"
  cases=$((cases + 1))
  local folder="$scratch/$name"
  mkdir "$folder"
  [ "$existing" = yes ] && echo "earlier report" >"$folder/run.json"
  set -m
  "$xpose" bench --device cpu --rows 2048 --dtype f64 --kernels reference --reps 100000 --warmup 0 \
    --no-progress --format json --output "$folder/run.json" >"$folder.stdout" 2>"$folder.stderr" &
  local pid=$!
  set +m
  # The table's header on stdout says the run is under way (its output file is open).
  for _ in $(seq 100); do grep -q '^Date: ' "$folder.stdout" && break; sleep 0.1; done
  sleep 0.2
  kill "-$signal" "$pid"
  local status=0
  wait "$pid" || status=$?
  local left
  left="$(others "$folder" run.json)"
  local report_ok=no
  if [ "$existing" = yes ]; then
    [ "$(cat "$folder/run.json")" = "earlier report" ] && report_ok=yes
  else
    [ ! -e "$folder/run.json" ] && report_ok=yes
  fi
  if [ "$status" -eq "$expected" ] && [ "$report_ok" = yes ] && [ -z "$left" ]; then
    pass "$name"
  else
    fail "$name: exit status $status (expected $expected), report as expected: $report_ok, left: '$left'" \
      "$folder.stderr"
  fi
}
interrupt_run interrupted_by_sigint_keeps_the_earlier_report INT 130 yes
interrupt_run interrupted_by_sigterm_creates_no_report TERM 143 no

# A run whose case cannot run still writes its report, which says that nothing was verified.
if [ -r /proc/meminfo ]; then
  cases=$((cases + 1))
  status=0
  "$xpose" bench --device cpu --rows 2000000 --cols 2000000 --dtype u8 --reps 1 --warmup 0 --kernels blocked \
    --no-progress --format json --output "$scratch/not_run.json" >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
  if [ "$status" -eq 1 ] && grep -q '"verification": "not run"' "$scratch/not_run.json" &&
     grep -q '"cases_not_run": 1' "$scratch/not_run.json" && grep -q '"status": "not run"' "$scratch/not_run.json"; then
    pass report_of_a_case_that_could_not_run
  else
    fail "report_of_a_case_that_could_not_run: exit status $status" "$scratch/stderr" "$scratch/not_run.json"
  fi
else
  echo "skip report_of_a_case_that_could_not_run: no /proc/meminfo"
fi

# XPOSE_PYTHON without matplotlib: refused before the run, in one line, and no other interpreter
# is tried behind the user's back.
cases=$((cases + 1))
printf '#!/bin/sh\nexit 1\n' >"$scratch/python_without_matplotlib"
chmod +x "$scratch/python_without_matplotlib"
status=0
XPOSE_PYTHON="$scratch/python_without_matplotlib" "$xpose" "${tiny[@]}" --plot "$scratch/plot.png" \
  >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
if [ "$status" -eq 2 ] && [ ! -s "$scratch/stdout" ] && [ "$(wc -l <"$scratch/stderr")" -eq 1 ] &&
   grep -q "^xpose: error: --plot: XPOSE_PYTHON='.*' cannot import matplotlib" "$scratch/stderr"; then
  pass plot_without_matplotlib_refused_before_the_run
else
  fail "plot_without_matplotlib_refused_before_the_run: exit status $status" "$scratch/stdout" "$scratch/stderr"
fi

# A plot script that fails after the run (here a stand-in interpreter that prints a traceback):
# one line, naming the PNG and the traceback's last line; the run's report is kept.
cases=$((cases + 1))
cat >"$scratch/python_that_fails" <<'SCRIPT'
#!/bin/sh
[ "$1" = "-c" ] && exit 0
echo "Traceback (most recent call last):" >&2
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "  File \"plot_bench.py\", line $i, in main" >&2; echo "    step()" >&2; done
echo "FileNotFoundError: [Errno 2] No such file or directory: 'plot.png'" >&2
exit 1
SCRIPT
chmod +x "$scratch/python_that_fails"
status=0
XPOSE_PYTHON="$scratch/python_that_fails" "$xpose" "${tiny[@]}" --format json --output "$scratch/plotted.json" \
  --plot "$scratch/plot.png" >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
if [ "$status" -eq 1 ] && [ "$(wc -l <"$scratch/stderr")" -eq 1 ] &&
   grep -q "^xpose: error: --plot: drawing '$scratch/plot.png' failed (.* exited with status 1): FileNotFoundError: " "$scratch/stderr" &&
   grep -q "Verification: PASSED" "$scratch/stdout" && grep -q '"verification": "PASSED"' "$scratch/plotted.json"; then
  pass failing_plot_script_reported_in_one_line
else
  fail "failing_plot_script_reported_in_one_line: exit status $status" "$scratch/stderr"
fi

# With matplotlib (where the bench looks for it), --plot draws a PNG.
if python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  cases=$((cases + 1))
  status=0
  "$xpose" "${tiny[@]}" --plot "$scratch/drawn.png" >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
  if [ "$status" -eq 0 ] && [ "$(head -c 4 "$scratch/drawn.png" | tail -c 3)" = "PNG" ]; then
    pass plot_drawn
  else
    fail "plot_drawn: exit status $status" "$scratch/stderr"
  fi
else
  echo "skip plot_drawn: python3 cannot import matplotlib"
fi

# Without a GPU, a run that did not ask for a device says once, on stderr, that it runs on the CPU.
cuda_line="$("$xpose" kernels 2>/dev/null | grep '^cuda' | head -1)"
case "$cuda_line" in
  "cuda: not built"* | "cuda (0 devices visible):")
    cases=$((cases + 1))
    status=0
    "$xpose" bench --rows 33 --cols 17 --dtype u8 --reps 2 --warmup 1 --kernels blocked --no-progress \
      >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
    if [ "$status" -eq 0 ] && [ "$(wc -l <"$scratch/stderr")" -eq 1 ] &&
       grep -q "^xpose: note: running on the CPU: " "$scratch/stderr" && grep -q "^Device: .*(cpu;" "$scratch/stdout"; then
      pass cpu_fallback_is_said
    else
      fail "cpu_fallback_is_said: exit status $status" "$scratch/stderr"
    fi ;;
  "cuda ("[1-9]*" visible):") echo "skip cpu_fallback_is_said: a GPU is visible ($cuda_line)" ;;
  *)
    cases=$((cases + 1))
    fail "cpu_fallback_is_said: cannot tell from 'xpose kernels' whether a GPU is visible: '$cuda_line'" ;;
esac
# With --device cpu there is nothing to say.
cases=$((cases + 1))
status=0
"$xpose" "${tiny[@]}" >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
if [ "$status" -eq 0 ] && [ ! -s "$scratch/stderr" ]; then pass explicit_cpu_is_quiet; else fail explicit_cpu_is_quiet "$scratch/stderr"; fi

# The largest seed is taken as given.
cases=$((cases + 1))
status=0
"$xpose" "${tiny[@]}" --seed 18446744073709551615 >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
if [ "$status" -eq 0 ] && grep -q "seed 18446744073709551615" "$scratch/stdout"; then
  pass largest_seed_kept
else
  fail "largest_seed_kept: exit status $status" "$scratch/stderr"
fi

echo "$((cases - failures)) of $cases cases behaved as required"
[ "$failures" -eq 0 ]
