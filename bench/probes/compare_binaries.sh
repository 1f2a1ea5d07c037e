#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Times builds of xpose side by side: each binary runs `xpose bench --suite SUITE --kernels
# memcpy,KERNEL` in its own process, the binaries alternating, ROUNDS times. Writes each run's JSON
# under OUT (default /tmp/compare) and prints one line per case and binary: the kernel's median of
# each round, with its ratio to memcpy in the same process.
# Usage: compare_binaries.sh ROUNDS SUITE KERNEL BINARY... (a BINARY is a path; its file name labels it)
set -uo pipefail
rounds=$1 suite=$2 kernel=$3; shift 3
out=${OUT:-/tmp/compare}; mkdir -p "$out"
here="$(dirname "$0")"
tag=$(basename "$suite" .txt)
files=()
for round in $(seq "$rounds"); do
  for binary in "$@"; do
    json="$out/$tag-$(basename "$binary")-$round.json"
    "$binary" bench --suite "$suite" --kernels "memcpy,$kernel" --no-progress --format json --output "$json" > /dev/null 2>&1 \
      || echo "$binary round $round: bench failed (rc $?)" >&2
    files+=("$(basename "$binary")=$json")
  done
done
python3 "$here/summarize_runs.py" "$kernel" "${files[@]}"
