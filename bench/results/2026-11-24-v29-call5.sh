#!/usr/bin/env bash
# H100, v29 call 5, at the fine shape's commit (workstation-built binary, stripped, carried as
# .exp-bins/bins.tar.xz): the shapes2d suite (every kernel, every row verified) and its targets;
# then 8192^2 f64, `auto` against the seed `tiled_padded_rows`: four processes (two with each
# kernel order), 200 timed runs each in 20 alternating rounds.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
bin=/tmp/v/xpose-head
tag=2026-11-24-nvidia-h100-80gb-hbm3
$bin bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/$tag-shapes2d.json \
  > $out/$tag-shapes2d.txt 2> $out/bench-shapes2d.err
python3 tools/check_targets.py $out/$tag-shapes2d.json | tee $out/$tag-targets.txt
echo "suite $((SECONDS - start)) s"
for p in 1 2 3 4; do
  kernels=memcpy,auto,tiled_padded_rows; [ $((p % 2)) = 0 ] && kernels=memcpy,tiled_padded_rows,auto
  $bin bench --rows 8192 --dtype f64 --kernels $kernels --reps 200 --rounds 20 --no-progress \
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
