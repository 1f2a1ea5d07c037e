#!/usr/bin/env bash
# H100: the unaligned tile shapes walked columns first (writes spread) against their rows-first
# walk (reads spread), by bench/results/2026-11-23-v24-forced-walk-experiment.patch's environment
# variable; alternating rounds, memcpy in the same process.
set -uo pipefail
out=$OUT
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
x=build/tools/xpose/xpose
for round in 1 2 3; do
  for walk in rows cols; do
    for c in "8191 8193 u8" "16383 16385 u8" "12345 6789 u8" "8191 8193 f32" "12345 6789 f32" "8191 8193 f16"; do
      set -- $c
      XPOSE_EXPERIMENT_WALK=$walk $x bench --rows $1 --cols $2 --dtype $3 --kernels memcpy,auto --reps 30 \
        --format json --no-progress --output $out/r$round-$walk-$1x$2-$3.json > /dev/null 2>&1
      python3 - "$out/r$round-$walk-$1x$2-$3.json" "$round" "$walk" "$1x$2 $3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["kernel"]: x for x in d["cases"][0]["results"]}
print(f"round {sys.argv[2]} {sys.argv[3]:4s} {sys.argv[4]:16s} auto {r['auto']['median_us']:8.2f} us  memcpy {r['memcpy']['median_us']:8.2f}  {r['auto']['pct_memcpy']:5.1f}%  {r['auto']['status']}")
PY
    done
  done
done | tee $out/walk-call6.txt
