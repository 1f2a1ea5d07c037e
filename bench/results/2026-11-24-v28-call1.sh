#!/usr/bin/env bash
# H100, v28 call 1: is the transpose floor at 8192^2 f64 the DRAM's (the whole grid's accesses
# spread over the matrix) or each SM's (its own successive tiles spread)? The walk probe's locality
# mode (a resident grid walking tiles per block or per grid), 5 rounds; then the same case with
# padded rows (pitch 64 KiB + 256 B, + 1 KiB, + 2 KiB): does a pitch off powers of two move the floor?
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > $out/configure.log 2>&1 || { tail -30 $out/configure.log; exit 1; }
cmake --build build --target xpose xpose_cli > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
bench/probes/run_walk_bands.sh locality 5 > $out/locality.txt 2>&1; echo "probe rc $?"
for pad in 0 32 128 256; do
  build/tools/xpose/xpose bench --rows 8192 --dtype f64 --pad-in $pad --pad-out $pad --kernels memcpy,copy,tile,tiled_padded_rows \
    --no-progress > $out/pad-$pad.txt 2>&1
  grep -E "^\s+(memcpy|copy|tile|tiled_padded_rows) " $out/pad-$pad.txt | sed "s/^/pad $pad /"
done | tee $out/pads.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
cat $out/locality.txt
echo "done $((SECONDS - start)) s"
