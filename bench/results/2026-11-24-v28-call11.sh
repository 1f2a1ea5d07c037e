#!/usr/bin/env bash
# H100, v28 call 11: the square element shape walking column tiles fastest on block-aligned rows
# (h100col: f2ee7e4 plus ElementSquareColumnWalk for the H100) against head (84cc0b7, the same f64
# paths as f2ee7e4 on this GPU); workstation-built, stripped (.exp-bins/bins.tar.xz).
# 8192^2 f64, `auto` against the seed tiled_padded_rows: three processes per binary, 200 timed runs
# in 20 alternating rounds each; then other block-aligned f64 views, `auto`, 2 rounds.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
for p in 1 2 3; do
  for b in head h100col; do
    kernels=memcpy,auto,tiled_padded_rows; [ $((p % 2)) = 0 ] && kernels=memcpy,tiled_padded_rows,auto
    /tmp/v/$b bench --rows 8192 --dtype f64 --kernels $kernels --reps 200 --rounds 20 --no-progress \
      --format json --output $out/f64-many-$b-$p.json > /dev/null 2>&1
  done
done
python3 - $out/f64-many-*.json <<'P' | tee $out/f64-many.txt
import json, sys, statistics
for f in sorted(sys.argv[1:]):
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
printf '4096 4096 f64\n2048 2048 f64\n6000 8192 f64\n8192 4096 f64\n8192 8192 f64 pad_in 32 pad_out 32\n4096 4096 f64 8\n16384 16384 f64\n8193 8191 f64\n' > /tmp/f64.txt
OUT=$out bench/probes/compare_binaries.sh 2 /tmp/f64.txt auto /tmp/v/head /tmp/v/h100col > $out/f64-views.txt 2>&1
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
cat $out/f64-views.txt
echo "done $((SECONDS - start)) s"
