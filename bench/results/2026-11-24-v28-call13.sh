#!/usr/bin/env bash
# H100, v28 call 13, at 2c442aa (the partial-row shapes per size): build; the whole test suite;
# memcheck, racecheck and initcheck on the production tests (small sizes).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
OUT=$out scripts/gpu_check.sh build tests sanitize pack
grep -E "tests passed|\(Failed\)" $out/tests.log | head
echo "done $((SECONDS - start)) s"
