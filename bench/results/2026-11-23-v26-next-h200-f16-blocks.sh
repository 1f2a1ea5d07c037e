#!/usr/bin/env bash
# Prepared in v25 for the next session, not yet run. H200: the aligned large f16 tile (64 x 128,
# 256 threads) at 4 blocks per SM (e4: 64 KiB in flight per SM against 48, as DeviceTileTuningF32
# does for f32) against the current 3 (base), `tile` against memcpy in alternating processes.
# Compiled on the CI machine in v25: 64 registers, no spills (the c128 tile at 4 blocks spills 28
# bytes, so c128 is left out). If e4 wins on the H200 (and, as for f32, loses on the H100), the
# device entry of tuning.hpp grows an f16 shape; run the whole suite on the H200 after.
set -uo pipefail
out=$OUT
start=$SECONDS
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
x=build/tools/xpose/xpose
cp $x /tmp/x-base
sed -i 's/kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 3; };/kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 4; };/' src/cuda/tuning.hpp
grep -n "TileTuning<2, false>" src/cuda/tuning.hpp | head -1
ninja -C build xpose_cli > $out/build-e4.log 2>&1 || { tail -20 $out/build-e4.log; exit 1; }
cp $x /tmp/x-e4
git checkout -q src/cuda/tuning.hpp
echo "built ($((SECONDS - start)) s)"
printf '16384 16384 f16\n8192 8192 f16\n256 256 f16 1024\n3136 256 f16 64\n256 3136 f16 64\n' > /tmp/f16.txt
for round in 1 2 3; do
  for b in base e4; do
    /tmp/x-$b bench --suite /tmp/f16.txt --kernels memcpy,tile --no-progress 2>&1 \
      | awk -v b=$b -v r=$round '/^\[/{c=$3"x"$5"/"$8} /^  tile /{print "round " r " " b " " c " tile " $2 " us " $4}'
  done
done | tee $out/f16-inflight.txt
echo "done $((SECONDS - start)) s"
