#!/usr/bin/env bash
# H200, v25 call 3: the harness and runner tests; 1024^2 f32 in 6 processes (3 with --rounds 1,
# 3 with the default 4); shapes2d with the default rounds; then the aligned f32 tile with more
# bytes in flight per SM (the H200 lead of v24), built from this tree with tuning.hpp edited:
#   base: 64 x 64, 256 threads, 3 blocks per SM (48 KiB in flight per SM)
#   e4:   64 x 64, 256 threads, 4 blocks per SM (64 KiB; register cap 64)
#   e2:   128 x 64, 512 threads, 2 blocks per SM (64 KiB; 64 registers, no spills here)
# each timed as `tile` against memcpy on the aligned f32 cases, in alternating processes.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi > $out/nvidia-smi.txt 2>&1
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
x=build/tools/xpose/xpose
(ctest --test-dir build -R "bench_harness|BenchRunner|^cli" --output-on-failure > $out/harness-tests.log 2>&1; grep "tests passed" $out/harness-tests.log)
echo "== 1024x1024 f32, rounds 1 / 4, 3 processes each"
for p in 1 2 3; do
  for r in 1 4; do
    $x bench --rows 1024 --cols 1024 --dtype f32 --kernels memcpy,auto,tiled_diagonal --rounds $r --no-progress 2>&1 \
      | grep -E "^  (memcpy|auto|tiled_diagonal) " | tr -s ' ' | sed "s/^/p$p rounds$r/"
  done
done | tee $out/small-rounds.txt | cut -c1-60
echo "== shapes2d ($((SECONDS - start)) s)"
$x bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
python3 tools/check_targets.py $out/shapes2d.json > $out/targets.txt; grep -E "cases meet" $out/targets.txt
python3 - $out/shapes2d.json <<'PY' | tee $out/shapes2d-summary.txt
import json, sys
d = json.load(open(sys.argv[1]))
for c in d['cases']:
    row = {v['kernel']: v for v in c['results'] if v.get('median_us')}
    seeds = [k for k in row if k.startswith(('tiled', 'naive'))]
    best = max(seeds, key=lambda k: row[k]['pct_memcpy'])
    cb = row.get('cublas_geam')
    print('%-24s auto %8.2f %5.1f%%  seed %-17s %8.2f  cublas %s' % (c['label'][:24], row['auto']['median_us'],
          row['auto']['pct_memcpy'], best[:17], row[best]['median_us'], '%.2f' % cb['median_us'] if cb else '-'))
PY
cp $x /tmp/x-base
printf '8192 8192 f32\n16384 16384 f32\n256 256 f32 1024\n3136 256 f32 64\n256 3136 f32 64\n' > /tmp/f32.txt
for e in e4 e2; do
  [ $((SECONDS - start)) -lt 420 ] || { echo "no time for $e"; continue; }
  git checkout -q src/cuda/tuning.hpp
  case $e in
    e4) sed -i 's/kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 3; };/kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 4; };/' src/cuda/tuning.hpp ;;
    e2) sed -i 's/kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 3; };/kRows = 128, kCols = 64, kThreads = 512, kMinBlocks = 2; };/' src/cuda/tuning.hpp ;;
  esac
  grep -n "TileTuning<4, false>" src/cuda/tuning.hpp | head -1
  ninja -C build xpose_cli > $out/build-$e.log 2>&1 || { tail -20 $out/build-$e.log; continue; }
  cp $x /tmp/x-$e
  echo "built $e ($((SECONDS - start)) s)"
done
git checkout -q src/cuda/tuning.hpp
for round in 1 2; do
  for b in base e4 e2; do
    [ -x /tmp/x-$b ] || continue
    /tmp/x-$b bench --suite /tmp/f32.txt --kernels memcpy,tile --no-progress 2>&1 \
      | awk -v b=$b -v r=$round '/^\[/{c=$3"x"$5"/"$8} /^  tile /{print "round " r " " b " " c " tile " $2 " us " $4}'
  done
done | tee $out/f32-inflight.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
