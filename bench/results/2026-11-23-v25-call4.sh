#!/usr/bin/env bash
# H100, v25 call 4: the H200's winner of call 3 (aligned f32 tile 64 x 64 at 4 blocks per SM, e4)
# against the current 3 blocks (base) on the H100, alternating processes; then the whole test
# suite with e4 built in.
set -uo pipefail
out=$OUT
start=$SECONDS
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
x=build/tools/xpose/xpose
cp $x /tmp/x-base
sed -i 's/kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 3; };/kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 4; };/' src/cuda/tuning.hpp
grep -n "TileTuning<4, false>" src/cuda/tuning.hpp | head -1
ninja -C build > $out/build-e4.log 2>&1 || { tail -20 $out/build-e4.log; exit 1; }
cp $x /tmp/x-e4
echo "built e4 ($((SECONDS - start)) s)"
printf '8192 8192 f32\n16384 16384 f32\n256 256 f32 1024\n3136 256 f32 64\n256 3136 f32 64\n' > /tmp/f32.txt
for round in 1 2 3; do
  for b in base e4; do
    /tmp/x-$b bench --suite /tmp/f32.txt --kernels memcpy,tile --no-progress 2>&1 \
      | awk -v b=$b -v r=$round '/^\[/{c=$3"x"$5"/"$8} /^  tile /{print "round " r " " b " " c " tile " $2 " us " $4}'
  done
done | tee $out/f32-inflight.txt
echo "== full suite with e4 ($((SECONDS - start)) s)"
ctest --test-dir build --output-on-failure -j 4 > $out/cuda-tests.log 2>&1; grep -E "tests passed|Failed" $out/cuda-tests.log | head
git checkout -q src/cuda/tuning.hpp
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
