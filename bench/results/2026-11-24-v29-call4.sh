#!/usr/bin/env bash
# H100, v29 call 4, at the fine shape's commit: build; the whole test suite; memcheck, racecheck and
# initcheck on the production tests (small sizes; the block-aligned f64 property views there are
# large enough for the fine shape).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
OUT=$out scripts/gpu_check.sh build tests sanitize pack
grep -E "tests passed|\(Failed\)" $out/tests.log | head
grep -E "EightByte|LargeAligned" $out/tests.log | head -8
echo "done $((SECONDS - start)) s"
