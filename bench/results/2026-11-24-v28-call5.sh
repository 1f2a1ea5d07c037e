#!/usr/bin/env bash
# H200, v28 call 5: workstation-built binaries (.exp-bins/bins.tar.xz, stripped; each 84cc0b7 with
# one edit to src/cuda/tuning.hpp, or none) side by side, `tile` against memcpy, 2 alternating rounds.
# head: 84cc0b7. f32_64x128, f32_128x32_t128_b4, f32_64x64_t128_b4: the large unaligned f32 shape
# (128 x 64, 256 threads, 2 blocks per SM at head) as rows x cols, threads, blocks (the 128-thread
# ones 4 blocks of 128 registers: 64 KiB in flight per SM as at head, but four blocks alternating
# phases instead of two). c128_t128_b5, c128_t128_b4: a DeviceTileTuning<16> entry for the H200, the
# 32 x 32 c128 tile at 128 threads and 5 blocks (96 registers, 80 KiB in flight per SM) or 4 (64 KiB),
# against 256 threads and 3 blocks (48 KiB).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
printf '8191 8193 f32\n12345 6789 f32\n16383 16385 f32\n2049 8193 f32\n300 1000003 f32\n1000003 300 f32\n' > /tmp/f32odd.txt
printf '8192 8192 c128\n4096 4096 c128\n16384 8192 c128\n256 256 c128 256\n' > /tmp/c128.txt
OUT=$out bench/probes/compare_binaries.sh 2 /tmp/f32odd.txt tile /tmp/v/head /tmp/v/f32_64x128 /tmp/v/f32_128x32_t128_b4 \
  /tmp/v/f32_64x64_t128_b4 > $out/f32odd.txt 2>&1
OUT=$out bench/probes/compare_binaries.sh 2 /tmp/c128.txt tile /tmp/v/head /tmp/v/c128_t128_b5 /tmp/v/c128_t128_b4 \
  > $out/c128.txt 2>&1
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
cat $out/f32odd.txt $out/c128.txt
echo "done $((SECONDS - start)) s"
