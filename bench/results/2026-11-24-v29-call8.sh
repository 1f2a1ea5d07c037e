#!/usr/bin/env bash
# H100, v29 call 8: 40 KiB in flight per SM for the tile kernel's aligned large shapes (v29's finding
# for f64). Workstation-built, stripped (.exp-bins/bins.tar.xz): head = 862b983 (f32 64 x 64, f16 64 x
# 128, c128 32 x 32, each 16 KiB at 3 blocks per SM: 48 KiB); v40a = f32 32 x 64, f16 64 x 64, c128
# 16 x 32; v40b = f32 64 x 32, f16 32 x 128, c128 32 x 16; both 8 KiB tiles at 256 threads and
# kMinBlocks 5 (41-45 registers: 5 blocks per SM, 40 KiB). `auto`, two alternating rounds.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
cat > /tmp/cases.txt <<'S'
8192 8192 f32
16384 16384 f32
256 256 f32 1024
3136 256 f32 64
8192 8192 f16
16384 16384 f16
8192 8192 c128
4096 4096 c128
S
OUT=$out bench/probes/compare_binaries.sh 2 /tmp/cases.txt auto /tmp/v/head /tmp/v/v40a /tmp/v/v40b | tee $out/inflight.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
