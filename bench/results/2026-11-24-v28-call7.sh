#!/usr/bin/env bash
# H100, v28 call 7: call 6's two winners on the H200 (f32_64x64_t128_b4, f16_64x128_t128_b4; see
# 2026-11-24-v28-call6.sh for the binaries) against head on the same odd f32 and f16 views.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
printf '8191 8193 f32\n12345 6789 f32\n2049 8193 f32\n300 1000003 f32\n1000003 300 f32\n' > /tmp/f32odd.txt
printf '8191 8193 f16\n12345 6789 f16\n2049 8193 f16\n300 1000003 f16\n1000003 301 f16\n' > /tmp/f16odd.txt
c() { OUT=$out bench/probes/compare_binaries.sh 2 "$@"; }
c /tmp/f32odd.txt tile /tmp/v/head /tmp/v/f32_64x64_t128_b4 > $out/f32odd.txt 2>&1
c /tmp/f16odd.txt tile /tmp/v/head /tmp/v/f16_64x128_t128_b4 > $out/f16odd.txt 2>&1
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
cat $out/f32odd.txt $out/f16odd.txt
echo "done $((SECONDS - start)) s"
