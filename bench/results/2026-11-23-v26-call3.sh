#!/usr/bin/env bash
# H100, v26 call 3: (1) whether the H100 too gains from the aligned large f16 tile at 4 blocks per
# SM (DeviceTileTuning<2>, measured faster on the H200 in call 2): HEAD against a build whose f16
# device entry names the H100, `tile` against memcpy, alternating processes; (2) the shapes2d suite
# at HEAD (on the H100 HEAD's kernels are 4a036c6's..ab66ba2's: PTX unchanged by v26).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
x=build/tools/xpose/xpose
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
cp $x /tmp/x-base
python3 - <<'P'
p = 'src/cuda/tuning.hpp'
s = open(p).read()
i = s.index('struct DeviceTileTuning<2> {')
j = s.index('"NVIDIA H200"', i)
open(p, 'w').write(s[:j] + '"H100"' + s[j + len('"NVIDIA H200"'):])
P
grep -n '"H100"' src/cuda/tuning.hpp
ninja -C build xpose_cli > $out/build-f16e4.log 2>&1 || { tail -30 $out/build-f16e4.log; exit 1; }
cp $x /tmp/x-f16e4
git checkout -q HEAD -- src/cuda/tuning.hpp 2>/dev/null; git stash list >/dev/null
echo "built ($((SECONDS - start)) s)"
summary() {  # json binary round
  python3 - "$@" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    t = {v["kernel"]: v for v in c["results"]}
    a = t.get("auto") or t.get("tile"); m = t.get("memcpy")
    pct = f'{100*m["median_us"]/a["median_us"]:6.1f}%' if m and m.get("median_us") else "      "
    print(f'round {sys.argv[3]} {sys.argv[2]:6} {c["label"]:30} {a["kernel"]} {a["median_us"]:8.2f} us {pct} {a["status"]}')
P
}
printf '16384 16384 f16\n8192 8192 f16\n256 256 f16 1024\n3136 256 f16 64\n256 3136 f16 64\n' > /tmp/f16.txt
for round in 1 2; do
  for b in base f16e4; do
    /tmp/x-$b bench --suite /tmp/f16.txt --kernels memcpy,tile --no-progress --format json --output $out/f16-$b-$round.json > /dev/null 2>&1
    summary $out/f16-$b-$round.json $b $round
  done
done | tee $out/f16-inflight-h100.txt
echo "== shapes2d ($((SECONDS - start)) s)"
/tmp/x-base bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
python3 tools/check_targets.py $out/shapes2d.json > $out/targets.txt; grep -E "MISSED|cases meet|faster in" $out/targets.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
