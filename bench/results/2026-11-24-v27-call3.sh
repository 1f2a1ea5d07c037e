#!/usr/bin/env bash
# v27 call 3 (H200) and call 4 (H100, the same script): the unaligned u8 shape at 4 blocks per SM (call 2's `blk`
# binary, whose u8 change is that alone) against HEAD (`base`) on every u8 view of shapes2d and
# tall2d and a few of few row tiles, which take the partial-row instantiation (it spills 12-16
# bytes at the 64-register cap), `tile` against memcpy, alternating processes, 2 rounds.
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
    print(f'round {sys.argv[3]} {sys.argv[2]:6} {c["label"]:30} {a["kernel"]} {a["median_us"]:8.2f} us {pct} {a["status"]}')
P
}
printf '8191 8193 u8\n12345 6789 u8\n16383 16385 u8\n4099 8193 u8\n2049 8193 u8\n3001 5003 u8\n300 1000003 u8\n1000 200003 u8\n1000003 300 u8\n100003 1000 u8\n43408 1216 u8\n200000 2048 u8\n' > /tmp/cases.txt
for round in 1 2; do
  for b in base blk; do
    /tmp/v/$b bench --suite /tmp/cases.txt --kernels memcpy,tile --no-progress --format json --output $out/u8-$b-$round.json > /dev/null 2>&1
    summary $out/u8-$b-$round.json $b $round
  done
done > $out/variants.txt
sort -k4,4 -k3,3 -s $out/variants.txt | awk '{printf "%-16s %-5s %9s %7s\n", $4, $3, $6, $8}'
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
