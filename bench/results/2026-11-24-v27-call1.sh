#!/usr/bin/env bash
# H100, v27 call 1 (prepared in v26, run on 2026-11-24 at 8c8d4da):
# (1) the address probe on 8191 x 8193 u8 at HEAD (16 placements of the buffers), to confirm that
# the transposed u8 halo (v26) meets 95% of memcpy on every placement, as v22's probe found it
# did not before (15 of 26 below); (2) the shapes2d suite at HEAD once more.
set -uo pipefail
out=$OUT
start=$SECONDS
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
bench/probes/run_address_offsets.sh 16 8191 8193 u8 > $out/address-u8.txt 2>&1; tail -25 $out/address-u8.txt
echo "== shapes2d ($((SECONDS - start)) s)"
build/tools/xpose/xpose bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
python3 tools/check_targets.py $out/shapes2d.json > $out/targets.txt; grep -E "MISSED|cases meet" $out/targets.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
