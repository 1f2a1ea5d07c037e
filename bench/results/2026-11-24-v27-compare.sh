#!/usr/bin/env bash
# v27 calls 9 (H100) and 10 (H200): workstation-built binaries (.exp-bins/bins.tar.xz, stripped)
# compared side by side, `tile` against memcpy, alternating processes, 2 rounds. U8_BINS and F32_BINS
# name the binaries in the order they run, U8 and F32 their cases (suite lines). Binaries (each from 5055ca5 with one edit to src/cuda/tuning.hpp, or none):
# new (HEAD), notall (the tall u8 shape turned off), f32u64x4 / f32u64x3 (the large unaligned f32
# shape 64 x 64 at 256 threads and 4 / 3 blocks per SM, against 128 x 64 at 2). Call 14 (H200):
# new (573d856) against nohint / hint128 (the input loads of device_types.cuh without the L2::256B
# prefetch hint, or with L2::128B; one edit there instead of in tuning.hpp).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
summary() {  # json binary round
  python3 - "$@" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    t = {v["kernel"]: v for v in c["results"]}
    a = t.get("auto") or t.get("tile"); m = t.get("memcpy")
    pct = f'{100*m["median_us"]/a["median_us"]:6.1f}%' if m and m.get("median_us") else "      "
    print(f'round {sys.argv[3]} {sys.argv[2]:8} {c["label"]:30} {a["kernel"]} {a["median_us"]:8.2f} us {pct} {a["status"]}')
P
}
printf "$U8" > /tmp/u8.txt; printf "$F32" > /tmp/f32.txt
run() {  # label suite binaries...
  local label=$1 suite=$2; shift 2
  for round in 1 2; do
    for b in "$@"; do
      /tmp/v/$b bench --suite $suite --kernels memcpy,tile --no-progress --format json --output $out/$label-$b-$round.json > /dev/null 2>&1
      summary $out/$label-$b-$round.json $b $round
    done
  done
}
{ run u8 /tmp/u8.txt $U8_BINS; run f32 /tmp/f32.txt $F32_BINS; } > $out/variants.txt
python3 - $out/variants.txt <<'P'
import sys, collections
t = collections.defaultdict(list)
for l in open(sys.argv[1]):
    f = l.split(); t[(f[3] + ' ' + f[4], f[2])].append(f[6] + ' (' + f[8] + ')')
for (case, b), v in t.items(): print(f'{case:22} {b:9} ' + ' '.join(v))
P
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
