#!/usr/bin/env bash
# H200, v28 call 9, right after call 8 (its build, or a fresh one): the shapes2d and tall2d suites,
# every kernel, every row verified.
set -uo pipefail
out=$OUT
start=$SECONDS
[ -x build/tools/xpose/xpose ] || scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
OUT=$out SUITES="shapes2d tall2d" scripts/gpu_check.sh bench pack
grep -E "^\[|auto|memcpy " $out/*-shapes2d.txt | grep -E "^\[|auto" | paste - - | awk '{print $2, $3, $4, $5, "|", $(NF-6), $(NF-5), $(NF-4)}' | head -25
echo "done $((SECONDS - start)) s"
