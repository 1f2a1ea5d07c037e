# SPDX-License-Identifier: Apache-2.0
# Sourced by the tool tests (check_targets_test.sh, compare_reports_test.sh).
# check_output NAME WANT STATUS OUT TEXT...: a command exited with STATUS (WANT expected) and wrote
# OUT, which must hold every TEXT (fixed strings); prints "ok NAME" or "FAIL NAME" with what was
# wrong and the output, and counts failures in $failures.
check_output() {
  local name="$1" want="$2" status="$3" out="$4"
  shift 4
  local problems=()
  [ "$status" -ne "$want" ] && problems+=("exit status $status, expected $want")
  for text in "$@"; do grep -qF -- "$text" "$out" || problems+=("output lacks '$text'"); done
  if [ "${#problems[@]}" -gt 0 ]; then
    failures=$((failures + 1))
    echo "FAIL $name"
    for problem in "${problems[@]}"; do echo "  - $problem"; done
    sed 's/^/    | /' "$out"
  else
    echo "ok   $name"
  fi
}
