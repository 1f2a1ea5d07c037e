#!/usr/bin/env bash
# v28 call 6 (H200) and 7 (H100): workstation-built binaries (.exp-bins/bins.tar.xz, stripped; each
# 84cc0b7 with one edit to src/cuda/tuning.hpp, or none) side by side, `tile` against memcpy, 2
# alternating rounds. head: 84cc0b7. The large unaligned shapes as rows x cols, threads, blocks per
# SM: f32_64x64_t128_b4 (call 5's winner on the H200; head 128 x 64, 256, 2), f32_64x32_t64_b8;
# f16_64x128_t128_b4 (head 128 x 128, 512, 2); u8_128x128_t128_b4 (head 128 x 128, 256, 4). Each
# keeps 64 KiB in flight per SM, in more blocks of fewer threads (128 registers each).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
printf '8191 8193 f32\n12345 6789 f32\n2049 8193 f32\n300 1000003 f32\n1000003 300 f32\n' > /tmp/f32odd.txt
printf '8191 8193 f16\n12345 6789 f16\n2049 8193 f16\n300 1000003 f16\n1000003 301 f16\n' > /tmp/f16odd.txt
printf '8191 8193 u8\n12345 6789 u8\n2049 8193 u8\n16383 16385 u8\n100003 1000 u8\n' > /tmp/u8odd.txt
c() { OUT=$out bench/probes/compare_binaries.sh 2 "$@"; }
c /tmp/f32odd.txt tile /tmp/v/head /tmp/v/f32_64x64_t128_b4 /tmp/v/f32_64x32_t64_b8 > $out/f32odd.txt 2>&1
c /tmp/f16odd.txt tile /tmp/v/head /tmp/v/f16_64x128_t128_b4 > $out/f16odd.txt 2>&1
c /tmp/u8odd.txt tile /tmp/v/head /tmp/v/u8_128x128_t128_b4 > $out/u8odd.txt 2>&1
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
cat $out/f32odd.txt $out/f16odd.txt $out/u8odd.txt
echo "done $((SECONDS - start)) s"
