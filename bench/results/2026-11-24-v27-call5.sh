#!/usr/bin/env bash
# H100, v27 call 5, at 5055ca5 (the large unaligned u8 shape at 4 blocks per SM, the partial-row u8
# shape): (1) build; (2) u8 views, `tile` against memcpy, alternating processes, 2 rounds: base
# (463e97f, before), new (5055ca5) and notall (5055ca5 with the tall u8 shape turned off: is it
# still faster on the H100 than the large shape at 4 blocks?), binaries built on the workstation
# (.exp-bins); (3) the whole test suite. Call 7 runs it on the H200 with BINS="base new" (the tall
# shape is the H100's only, so notall is new there).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
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
printf '8191 8193 u8\n12345 6789 u8\n16383 16385 u8\n4099 8193 u8\n2049 8193 u8\n3001 5003 u8\n300 1000003 u8\n1000 200003 u8\n1000003 300 u8\n100003 1000 u8\n43408 1216 u8\n' > /tmp/cases.txt
for round in 1 2; do
  for b in ${BINS:-base new notall}; do
    /tmp/v/$b bench --suite /tmp/cases.txt --kernels memcpy,tile --no-progress --format json --output $out/u8-$b-$round.json > /dev/null 2>&1
    summary $out/u8-$b-$round.json $b $round
  done
done > $out/variants.txt
sort -s -k4,5 $out/variants.txt | awk '{printf "%-14s %-6s %9s %7s\n", $4, $3, $7, $9}' | paste $(for b in ${BINS:-base new notall}; do printf -- '- - '; done)
echo "== tests ($((SECONDS - start)) s)"
ctest --test-dir build --output-on-failure -j 4 > $out/cuda-tests.log 2>&1; grep -E "tests passed|\(Failed\)" $out/cuda-tests.log | head
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
