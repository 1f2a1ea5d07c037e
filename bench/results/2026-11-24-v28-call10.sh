#!/usr/bin/env bash
# H100, v28 call 10, at HEAD: build; the whole test suite; the shapes2d suite (every kernel, every
# row verified); then 8192^2 f64, `auto` against the seed `tiled_padded_rows` with many runs: four
# processes (two with each kernel order), 200 timed runs each in 20 alternating rounds.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
OUT=$out scripts/gpu_check.sh build tests
echo "build + tests $((SECONDS - start)) s"
grep -E "tests passed|\(Failed\)" $out/tests.log | head
OUT=$out SUITES=shapes2d scripts/gpu_check.sh bench | tail -22
echo "suite $((SECONDS - start)) s"
for p in 1 2 3 4; do
  kernels=memcpy,auto,tiled_padded_rows; [ $((p % 2)) = 0 ] && kernels=memcpy,tiled_padded_rows,auto
  build/tools/xpose/xpose bench --rows 8192 --dtype f64 --kernels $kernels --reps 200 --rounds 20 --no-progress \
    --format json --output $out/f64-many-$p.json > /dev/null 2>&1
done
python3 - $out/f64-many-*.json <<'P' | tee $out/f64-many.txt
import json, sys, statistics
for f in sys.argv[1:]:
    c = json.load(open(f))["cases"][0]
    t = {r["kernel"]: r for r in c["results"]}
    a, s, m = t["auto"], t["tiled_padded_rows"], t["memcpy"]
    rounds = 20
    per = len(a["samples_us"]) // rounds
    ahead = sum(statistics.median(a["samples_us"][r * per:(r + 1) * per]) < statistics.median(s["samples_us"][r * per:(r + 1) * per])
                for r in range(rounds))
    print(f'{f.split("/")[-1]}: memcpy {m["median_us"]:.2f}  auto {a["median_us"]:.2f} ({a["status"]})  seed {s["median_us"]:.2f} ({s["status"]})'
          f'  auto - seed {a["median_us"] - s["median_us"]:+.2f} us ({100 * (a["median_us"] / s["median_us"] - 1):+.3f}%),'
          f' means {statistics.mean(a["samples_us"]):.2f} / {statistics.mean(s["samples_us"]):.2f}, auto ahead in {ahead} of {rounds} rounds')
P
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
